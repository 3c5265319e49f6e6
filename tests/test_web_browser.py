"""End-to-end tests of the web pages in headless Chromium (issue #14 item 5): a game with one
person and three agents played to the end by clicking, a solo case played to the end, a replay
opened by upload and stepped through with the keyboard.

They need Debian's ``chromium`` and ``chromium-driver`` (``.ci/run`` installs them) and skip, with
that reason, only when those programs are absent — except under CI (``CI`` set), which must have
them: there they fail instead."""

from __future__ import annotations

import json
import os
import shutil
import tempfile
import time

import pytest

pytest.importorskip("fastapi", reason="the web app needs the 'web' extra: pip install '.[web]'")
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
CHROMEDRIVER = shutil.which("chromedriver")
ABSENT = "headless Chromium is absent: apt-get install chromium chromium-driver"
pytestmark = [pytest.mark.browser,
              pytest.mark.skipif(not (CHROMIUM and CHROMEDRIVER) and not os.environ.get("CI"), reason=ABSENT)]

FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--window-size=1300,1000")


@pytest.fixture(scope="module")
def browser():
    if not (CHROMIUM and CHROMEDRIVER):  # only under CI (else the module is skipped)
        pytest.fail(f"CI must run the browser tests, but {ABSENT}")
    selenium = pytest.importorskip("selenium", reason="the browser tests need selenium (test extra)")
    from selenium import webdriver
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service

    del selenium
    options = Options()
    for flag in FLAGS:
        options.add_argument(flag)
    profile = tempfile.mkdtemp(prefix="pi-env-chromium-")
    options.add_argument(f"--user-data-dir={profile}")
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})  # the console: policy violations
    options.binary_location = CHROMIUM
    driver = webdriver.Chrome(options=options, service=Service(CHROMEDRIVER))
    driver.set_page_load_timeout(60)
    yield driver
    driver.quit()
    shutil.rmtree(profile, ignore_errors=True)


@pytest.fixture
def server(tmp_path):
    from pi_env.apps.web import background_server

    with background_server(tmp_path, agent_delay=0.02) as url:
        yield url


def wait_for(predicate, timeout=90.0, what="condition"):
    from selenium.common.exceptions import StaleElementReferenceException

    end = time.monotonic() + timeout
    while time.monotonic() < end:
        try:
            value = predicate()
        except StaleElementReferenceException:  # the page was being redrawn: ask again
            value = None
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")


def press(d, key, shift=False):
    """Press ``key`` (with Shift) on the focused element, as a person at the keyboard."""
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.keys import Keys

    chain = ActionChains(d)
    if shift:
        chain = chain.key_down(Keys.SHIFT)
    chain = chain.send_keys(key)
    if shift:
        chain = chain.key_up(Keys.SHIFT)
    chain.perform()


def attr(driver, name):
    return driver.find_element("tag name", "body").get_attribute(name)


def test_game_with_one_person_and_three_agents_played_to_the_end(browser, server):
    from selenium.webdriver.support.ui import Select

    d = browser
    d.get(server + "/")
    # the seat choices come from GET /api/seat-kinds: the zoo's models with their player counts
    labels = wait_for(lambda: [o.text for o in Select(d.find_element("id", "seat-1")).options
                               if o.text.startswith("learned:")], what="the seat choices from the server")
    assert labels == ["learned:2p (trained model, 2 players)", "learned:3p (trained model, 3 players)",
                      "learned:4p (trained model, 4 players)", "learned:5p (trained model, 5 players)"]
    Select(d.find_element("id", "players")).select_by_visible_text("4")
    for i, agent in enumerate(["human", "random", "deducer", "random"]):
        Select(d.find_element("id", f"seat-{i}")).select_by_value(agent)
    # the seat rows are labelled as every pi-env command labels seats (they were letters A..D)
    assert [r.text.split()[0] for r in d.find_elements("css selector", "#seats > div")] == ["P0", "P1", "P2", "P3"]
    d.find_element("id", "fast").click()
    d.find_element("id", "create").click()
    wait_for(lambda: "/seat/" in d.current_url, what="the seat page")
    moves = 0
    while True:
        wait_for(lambda: attr(d, "data-your-turn") == "1" or attr(d, "data-done") == "1", what="my turn or the end")
        if attr(d, "data-done") == "1":
            break
        if d.find_element("id", "round-summary").is_displayed():  # a round ended: its summary first
            d.find_element("id", "summary-close").click()
        version = attr(d, "data-version")
        held = d.find_element("id", "held").text
        assert "You hold P1 (random)'s case" in held
        rule = d.find_element("id", "solve-rule").text
        assert rule == "A correct solve scores the current tier's points; a wrong one costs 2 (never below −5).", rule
        if moves % 3 == 2:  # name a case with the three selects
            for sel, value in (("solve-suspect", "1"), ("solve-evidence", "2"), ("solve-location", "3")):
                Select(d.find_element("id", sel)).select_by_value(value)
            d.find_element("id", "solve-button").click()
        else:
            clickable = d.find_elements("css selector", "button.card[data-action], g.invbtn[data-action]")
            assert clickable, "a legal move must be offered"
            clickable[moves % len(clickable)].click()
        moves += 1
        wait_for(lambda: attr(d, "data-version") != version, what="the move to be played")
    assert moves >= 2
    end = d.find_element("id", "end-title").text
    assert end.startswith("The game is over: ") and " wins with " in end or " share the win with " in end
    log = d.find_elements("css selector", "#log li:not(.sep)")
    assert len(log) >= moves
    # the record downloads as pi-record/1 and replays with the engine
    import urllib.request

    from pi_env.records.record_file import load_record
    from pi_env.records.recorder import replay_with_engine

    href = d.find_element("id", "download").get_attribute("href")
    token = d.current_url.rsplit("/", 1)[1]
    assert token not in href and "seat" not in href  # no private link in an address to download
    with urllib.request.urlopen(href) as resp:
        record = load_record(json.loads(resp.read()))
    assert bool(replay_with_engine(record).done[0])
    assert sum(1 for rnd in record.rounds for ev in rnd.events if ev.player == 0) == moves


def test_duel_page_states_the_duel_solve_rule(browser, server):
    """A duel's solve panel says what a duel's solve does (it said "a wrong one costs 2", a
    standard game's rule: in a duel the first attempt decides the round, docs/rules.md §7)."""
    import urllib.request

    req = urllib.request.Request(server + "/api/games", method="POST", headers={"content-type": "application/json"},
                                 data=json.dumps({"seats": ["human", "random"], "mode": "duel", "seed": 3}).encode())
    with urllib.request.urlopen(req) as resp:
        link = json.loads(resp.read())["seats"][0]["link"]
    d = browser
    d.get(server + link)
    wait_for(lambda: attr(d, "data-your-turn") == "1", what="my turn")
    rule = d.find_element("id", "solve-rule").text
    assert rule.startswith("Your first solve attempt of the round decides it: a wrong one gives the round to the "
                           "other player"), rule


def test_solo_case_played_to_the_end(browser, server):
    from selenium.webdriver.support.ui import Select

    from pi_env.apps.solo_app import game_from_seed

    d = browser
    d.get(server + "/")
    d.find_element("id", "solo-seeded").click()
    d.find_element("id", "solo-seed").send_keys("12")
    name = d.find_element("id", "solo-name")
    name.clear()
    name.send_keys("Tess")
    d.find_element("id", "solo-start").click()
    wait_for(lambda: "/solo/" in d.current_url, what="the solo page")
    wait_for(lambda: attr(d, "data-version") == "0", what="the solo board")
    d.find_element("css selector", "text.clickable[data-action='5']").click()  # clue Maurice
    wait_for(lambda: attr(d, "data-version") == "1", what="the clue's answer")
    assert "Maurice" in d.find_element("id", "last").text
    d.find_element("css selector", "g.invbtn[data-action='40']").click()  # investigate Ocean Drive
    wait_for(lambda: attr(d, "data-version") == "2", what="the investigator's answer")
    d.find_element("id", "hint-button").click()
    wait_for(lambda: "what you know" in d.find_element("id", "hint").text, what="the hint")
    case = game_from_seed(12).case
    s, e, loc = case // 140, (case // 14) % 10, case % 14
    for sel, value in (("solve-suspect", s), ("solve-evidence", e), ("solve-location", loc)):
        Select(d.find_element("id", sel)).select_by_value(str(value))
    d.find_element("id", "solve-button").click()
    wait_for(lambda: attr(d, "data-done") == "1", what="the solve")
    wait_for(lambda: d.find_elements("css selector", "#leaderboard td"), what="the leaderboard")
    assert "rank 1 of 1" in d.find_element("id", "end").text
    assert "It was the case of seed 12" in d.find_element("id", "end").text
    cells = [td.text for td in d.find_elements("css selector", "#leaderboard tr:nth-child(2) td")]
    assert cells[:3] == ["1", "Tess", "3"] and cells[-2:] == ["1", "—"]  # 1 hint; not played as a daily case


def test_replay_opened_by_upload_and_stepped_with_the_keyboard(browser, server, tmp_path):
    from selenium.webdriver.common.keys import Keys

    from pi_env.agents.runner import play_game
    from pi_env.engine import GameConfig
    from pi_env.records.record_file import write_record

    _, rec = play_game(GameConfig(num_players=4, variants=("fast",)), ["deducer"] * 4, 8)
    record = rec.record()
    path = write_record(record, tmp_path / "game.json")
    d = browser
    d.get(server + "/")
    d.find_element("id", "replay-file").send_keys(str(path))
    d.find_element("id", "replay-open").click()
    wait_for(lambda: "/replay/" in d.current_url, what="the replay page")
    wait_for(lambda: attr(d, "data-position") == "0", what="the first position")
    body = d.find_element("tag name", "body")
    first = record.rounds[0].events
    for k in range(1, 6):
        body.send_keys(Keys.ARROW_RIGHT)
        wait_for(lambda: attr(d, "data-position") == str(k), what=f"position {k}")
        ev = first[k - 1]
        assert d.find_element("id", "event").text.startswith(f"P{ev.player}: ")
    cases = [el.text for el in d.find_elements("css selector", ".true-case")]
    assert len(cases) == 4  # the all-seeing view of an engine-written record
    body.send_keys("1")  # player 1's point of view: the solver's view
    wait_for(lambda: d.find_element("id", "solver").get_attribute("data-status") == "done", timeout=120,
             what="the solver's view")
    text = d.find_element("id", "solver").text
    assert "consistent case" in text and "Certain:" in text
    assert len(d.find_elements("css selector", ".bar .fill")) >= 3
    body.send_keys(Keys.END)
    total = sum(len(r.events) + 1 for r in record.rounds)
    wait_for(lambda: attr(d, "data-position") == str(total - 1), what="the last position")


def policy_violations(driver):
    """The console messages of the page that report a Content-Security-Policy violation."""
    return [e["message"] for e in driver.get_log("browser") if "Content Security Policy" in e["message"]]


def test_pages_work_under_the_content_security_policy_and_cannot_be_framed(browser, server, tmp_path):
    """Every page loads with no policy violation (styles set through the DOM, no inline script) and
    its swatches keep their colours; a page of another port that frames the start page shows
    nothing of it (a click there created a game)."""
    import http.server
    import threading
    import urllib.request

    d = browser
    req = urllib.request.Request(server + "/api/games", method="POST", headers={"content-type": "application/json"},
                                 data=json.dumps({"seats": ["human", "random"], "seed": 3}).encode())
    with urllib.request.urlopen(req) as resp:
        link = json.loads(resp.read())["seats"][0]["link"]
    d.get_log("browser")  # forget earlier pages' messages
    for path in ("/", link, link.split("/seat/")[0]):
        d.get(server + path)
        wait_for(lambda: d.execute_script("return document.readyState") == "complete", what=path)
        time.sleep(0.3)
        assert policy_violations(d) == [], path
    d.get(server + "/")
    swatch = wait_for(lambda: d.find_elements("css selector", "#seats .swatch"), what="the seat rows")[0]
    assert swatch.value_of_css_property("background-color") == "rgba(214, 39, 40, 1)"  # P0's colour
    assert policy_violations(d) == []

    (tmp_path / "frame.html").write_text(f'<iframe id="f" src="{server}/" width="800" height="600"></iframe>')
    handler = lambda *a, **k: http.server.SimpleHTTPRequestHandler(*a, directory=str(tmp_path), **k)  # noqa: E731
    other = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=other.serve_forever, daemon=True).start()
    try:
        d.get(f"http://127.0.0.1:{other.server_address[1]}/frame.html")
        time.sleep(1.0)
        d.switch_to.frame(d.find_element("id", "f"))
        assert d.find_elements("id", "create") == []  # the start page was not shown in the frame
        d.switch_to.default_content()
    finally:
        other.shutdown()
        other.server_close()
