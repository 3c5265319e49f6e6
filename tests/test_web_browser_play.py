"""The game and solo pages as players use them, in headless Chromium (docs/web.md): the round
summary, the end screen, keyboard play, the layout from a phone to a wide screen, markers that never
cover a name, and the error page of a mistyped link.

Set ``PI_ENV_SCREENSHOTS=DIR`` to save a picture of each (``web_round_summary.png``,
``web_end.png``, ``web_keyboard.png``, ``web_phone.png``, ``web_error.png``) into ``DIR``; the ones
in ``docs/figures/`` were made this way (docs/web.md). Needs Debian's ``chromium`` and
``chromium-driver``, like tests/test_web_browser.py."""

from __future__ import annotations

import json
import os
import time
import urllib.request
from pathlib import Path

import pytest

from test_web_browser import ABSENT, CHROMEDRIVER, CHROMIUM, attr, browser, press, wait_for  # noqa: F401

pytest.importorskip("fastapi", reason="the web app needs the 'web' extra: pip install '.[web]'")
pytestmark = [pytest.mark.browser,
              pytest.mark.skipif(not (CHROMIUM and CHROMEDRIVER) and not os.environ.get("CI"), reason=ABSENT)]


@pytest.fixture
def server(tmp_path):
    from pi_env.apps.web import background_server

    with background_server(tmp_path, agent_delay=0.0) as url:
        yield url


def shot(d, name):
    """Save a screenshot when PI_ENV_SCREENSHOTS names a folder."""
    out = os.environ.get("PI_ENV_SCREENSHOTS")
    if out:
        Path(out).mkdir(parents=True, exist_ok=True)
        d.save_screenshot(str(Path(out) / name))


def create(server, seats, **settings):
    req = urllib.request.Request(server + "/api/games", data=json.dumps({"seats": seats, **settings}).encode(),
                                 headers={"content-type": "application/json"}, method="POST")
    with urllib.request.urlopen(req) as r:
        doc = json.loads(r.read())
    return doc["id"], [s["link"] for s in doc["seats"]]


def api_view(server, gid):
    with urllib.request.urlopen(f"{server}/api/games/{gid}/view") as r:
        return json.loads(r.read())


MARKERS_CLEAR = """
let checked = 0, bad = [];
for (const g of document.querySelectorAll('#board g.district')) {
  const marks = [...g.querySelectorAll('g.marker')].map(m => m.getBBox());
  for (const t of g.querySelectorAll('text.tile, text.dname')) {
    const b = t.getBBox();
    for (const m of marks) {
      const overlap = b.x < m.x + m.width && m.x < b.x + b.width && b.y < m.y + m.height && m.y < b.y + b.height;
      checked += 1;
      if (overlap) bad.push(t.textContent);
    }
  }
}
return [checked, bad];
"""


def page_state(d, server, gid) -> str:
    """What the page shows, what the server has and the page's console (its trace of the views it
    drew or skipped, game.js), for the message of a timeout."""
    shown = {k: attr(d, k) for k in ("data-version", "data-done", "data-your-turn", "data-transport")}
    try:
        v = api_view(server, gid)
        latest = {"version": v["version"], "done": v["done"], "to_move": v["to_move"]}
    except OSError as exc:  # the server itself stopped answering
        latest = f"no answer ({exc})"
    console = "\n  ".join(e["message"] for e in d.get_log("browser")[-60:])
    return f"the page shows {shown}; the server's latest view: {latest}; the page's console:\n  {console}"


def wait_page(d, server, gid, predicate, what):
    """:func:`wait_for` that, on a timeout, says what the page and the server had (:func:`page_state`)."""
    try:
        return wait_for(predicate, what=what)
    except AssertionError:
        raise AssertionError(f"timed out waiting for {what}: {page_state(d, server, gid)}") from None


def play_first_offered(d, server, gid):
    """P0 takes the first offered clue card, else investigates the first offered district."""
    version = attr(d, "data-version")
    offered = d.find_elements("css selector", "#display button.card[data-action], #board g.invbtn[data-action]")
    offered[0].click()
    wait_page(d, server, gid, lambda: attr(d, "data-version") != version, what="the move to be played")


def test_round_summary_then_end_screen_with_the_engine_winner(browser, server):
    from selenium.webdriver.common.keys import Keys

    d = browser
    d.set_window_size(1300, 1000)
    gid, links = create(server, ["human", "greedy", "greedy", "greedy"], seed=7)
    d.get(server + links[0])
    # P0 never solves; the server's summary (its exact values: tests/test_web_play_ux.py) as shown
    summary = d.find_element("id", "round-summary")
    checked = 0
    while not summary.is_displayed():
        wait_page(d, server, gid, lambda: attr(d, "data-your-turn") == "1" or summary.is_displayed(),
                  what="my turn or the summary")
        if not summary.is_displayed():
            n, bad = d.execute_script(MARKERS_CLEAR)  # no spot or trace over a word
            assert bad == [], bad
            checked += n
            play_first_offered(d, server, gid)
    assert checked > 0
    assert d.find_element("id", "summary-title").text == "Round 1 is over"
    rows = {r.get_attribute("data-player"): r.text for r in d.find_elements("css selector", "#summary-table tr[data-player]")}
    (s,) = api_view(server, gid)["round_summaries"]
    for p in range(4):
        solves = [x for x in s["solves"] if x["player"] == p]
        sign = "+" if s["points"][p] > 0 else ""
        said = "; ".join(f"{'solved' if x['correct'] else 'wrong'}: {x['case']['suspect']} / {x['case']['evidence']} / "
                         f"{x['case']['location']} (move {x['move']}, rotation {x['rotation']})" for x in solves)
        assert rows[str(p)] == f"P{p} ({'you' if p == 0 else 'greedy'}) {sign}{s['points'][p]} {s['scores'][p]} " + (
            said or "no solve"), rows[str(p)]
    solved = {x["player"] for x in s["solves"] if x["correct"]}
    assert 0 not in solved and solved
    revealed = [li.get_attribute("data-player") for li in d.find_elements("css selector", "#summary-cases li")]
    assert sorted(revealed) == sorted(str(p) for p in solved | {1})  # solved, and the case P0 held; never its own
    shot(d, "web_round_summary.png")
    assert d.switch_to.active_element.get_attribute("id") == "summary-close"  # the dialog has the focus
    assert d.execute_script("return document.getElementById('round-summary').matches(':modal')")
    # the focus stays in the dialog: Tab and Shift+Tab go round its two stops, never to the page behind
    stops = []
    for shift in (False, False, False, True, True, True):
        press(d, Keys.TAB, shift=shift)
        stops.append(d.switch_to.active_element.get_attribute("id"))
    assert stops == ["summary-body", "summary-close", "summary-body", "summary-close", "summary-body", "summary-close"]
    press(d, Keys.ESCAPE)  # dismissed by the player (Escape); the focus is back on the board
    wait_page(d, server, gid, lambda: not summary.is_displayed(), what="the summary to close")
    # (the dialog's close event, which moves the focus, comes just after the dialog is closed)
    wait_page(d, server, gid, lambda: d.execute_script(
        "const a = document.activeElement; return document.getElementById('board').contains(a) "
        "|| a.closest('#display') !== null"), what="the focus back on the board")
    while attr(d, "data-done") != "1":
        wait_page(d, server, gid, lambda: attr(d, "data-your-turn") == "1" or attr(d, "data-done") == "1",
                  what="my turn or the end")
        if summary.is_displayed():
            d.find_element("id", "summary-close").click()
        if attr(d, "data-your-turn") == "1" and attr(d, "data-done") != "1":
            play_first_offered(d, server, gid)
    v = api_view(server, gid)
    from pi_env.records.record_file import load_record
    from pi_env.records.scoring import score_record

    with urllib.request.urlopen(f"{server}/api/games/{gid}/record") as r:
        record = load_record(json.loads(r.read()))
    res = score_record(record)  # the rules' scoring of the record, apart from the page
    (w,) = [p for p in range(4) if res.ranks[p] == 1]
    title = d.find_element("id", "end-title").text
    assert title == f"The game is over: {v['names'][w]} wins with {res.scores[w]} points"
    assert d.find_element("id", "turn").text == f"The game is over: {v['names'][w]} wins with {res.scores[w]} points."
    assert d.find_element("id", "end-panel").location["y"] < d.find_element("id", "board").location["y"]
    assert [t.text for t in d.find_elements("css selector", "#tiers .tier")] == ["tier 0: 9 pts", "tier 1: 7 pts",
                                                                                 "tier 2: 5 pts"]
    cells = d.find_elements("css selector", "#cases td[data-player='0']")
    assert [c.text for c in cells] == [f"{x.suspect} / {x.evidence} / {x.location}" for x in
                                       [_case(record, r, 0) for r in range(len(record.rounds))]]
    assert "unused investigator tiles" in d.find_element("id", "tiebreak").text
    assert "P0 (you) — you" not in d.find_element("id", "players").text
    # one "you" mark (the column read "P0 (you) (your case)"); the held case no longer "hidden"
    heads = [th.text for th in d.find_elements("css selector", "#cases th")]
    assert heads == ["round", "P0 (you)", "P1 (greedy)", "P2 (greedy)", "P3 (greedy)"], heads
    held = d.find_element("id", "held").text
    assert held.startswith("You held P1 (greedy)'s case: ") and held.endswith(
        " (the game is over: every case is shown on the end screen)."), held
    assert not summary.is_displayed()
    shot(d, "web_end.png")
    try:  # the end screen on a phone: its tables scroll in their own box, never the page
        d.set_window_size(360, 800)
        wait_for(lambda: d.execute_script("return window.innerWidth") <= 360, what="the narrow window")
        width, inner = d.execute_script("return [document.documentElement.scrollWidth, window.innerWidth]")
        assert width <= inner, (width, inner)
    finally:
        d.set_window_size(1300, 1000)


HOLD_MOVE_ANSWERS = """
// Each move's answer reaches the page only once the pushed views have gone past it (or brought the
// game's end): what a loaded machine can do. window.heldAnswers: [answer's version, answer's end,
// the version and end the page showed when the answer was let through].
window.heldAnswers = [];
const fetched = window.fetch;
window.fetch = async (url, options) => {
  const r = await fetched(url, options);
  if (options && options.method === "POST" && String(url).endsWith("/move") && r.ok) {
    const v = await r.clone().json();
    const since = Date.now();
    const shown = () => Number(document.body.getAttribute("data-version"));
    const over = () => document.body.getAttribute("data-done") === "1";
    while (shown() <= v.version && !over() && Date.now() - since < 5000) await new Promise(ok => setTimeout(ok, 20));
    window.heldAnswers.push([v.version, v.done, shown(), over()]);
  }
  return r;
};
"""


def test_a_move_answer_older_than_the_pushed_end_never_takes_the_end_back(browser, tmp_path):
    # The move's answer (the view just after P0's move) arrives after the server-sent events brought
    # the game's end (the agents finished it meanwhile): the page must keep showing the end. It used
    # to draw the older answer (it differed in 'done'), which took the end back for good (the event
    # stream closes at the end): the page waited for a turn that never came.
    from pi_env.apps.web import background_server

    d = browser
    with background_server(tmp_path, agent_delay=0.05) as server:
        gid, links = create(server, ["human", "greedy", "greedy", "greedy"], seed=7)
        d.get(server + links[0])
        wait_page(d, server, gid, lambda: attr(d, "data-version") is not None, what="the page")
        d.execute_script(HOLD_MOVE_ANSWERS)
        moves = 0
        while attr(d, "data-done") != "1":
            wait_page(d, server, gid, lambda: attr(d, "data-your-turn") == "1" or attr(d, "data-done") == "1",
                      what="my turn or the end")
            if d.find_element("id", "round-summary").is_displayed():
                d.find_element("id", "summary-close").click()
            if attr(d, "data-your-turn") == "1" and attr(d, "data-done") != "1":
                play_first_offered(d, server, gid)
                moves += 1
        final = api_view(server, gid)
        assert final["done"]
        # the last answer was let through after the end was shown: it is older and not the end
        last = wait_for(lambda: len(d.execute_script("return window.heldAnswers")) == moves
                        and d.execute_script("return window.heldAnswers")[-1], what="the last answer")
        assert last[1:] == [False, final["version"], True], last
        assert last[0] < final["version"]
        time.sleep(0.5)  # the page has drawn (or skipped) it
        assert (attr(d, "data-version"), attr(d, "data-done")) == (str(final["version"]), "1"), page_state(d, server, gid)
        assert d.find_element("id", "end-title").text.startswith("The game is over: ")


def _case(record, r, p):
    from types import SimpleNamespace

    from pi_env.agents.human import case_doc
    from pi_env.core.names import element_names

    doc = case_doc(record.rounds[r].cases[p], element_names(record.board))
    return SimpleNamespace(**doc)


def test_every_legal_action_is_reached_with_tab_and_played_with_enter(browser, server):
    from selenium.webdriver.common.keys import Keys

    d = browser
    d.set_window_size(1300, 1000)
    gid, links = create(server, ["human", "greedy"], seed=3)
    d.get(server + links[0])
    wait_for(lambda: attr(d, "data-your-turn") == "1", what="my turn")
    legal = d.execute_script("return [...document.querySelectorAll('[data-action]')].map(e => e.getAttribute('data-action'))")
    d.find_element("tag name", "body").click()
    reached, ids = [], []
    for _ in range(300):
        d.switch_to.active_element.send_keys(Keys.TAB)
        el = d.switch_to.active_element
        reached.append(el.get_attribute("data-action"))
        ids.append(el.get_attribute("id"))
        if el.get_attribute("data-action") and el.tag_name != "button":  # a board action: visible focus
            assert el.get_attribute("role") == "button" and el.get_attribute("aria-label")
    assert set(legal) <= set(reached), set(legal) - set(reached)
    assert {"solve-suspect", "solve-evidence", "solve-location", "solve-button"} <= set(ids)
    # the focus is visible: a focused investigate button draws a thick outline
    inv = d.find_element("css selector", "#board g.invbtn[data-action]")
    d.execute_script("arguments[0].focus()", inv)
    width = d.execute_script("return getComputedStyle(arguments[0].querySelector('rect')).strokeWidth", inv)
    assert width == "3px"
    clue = d.find_element("css selector", "#board text.clickable[data-action]")
    action = int(clue.get_attribute("data-action"))
    d.execute_script("arguments[0].focus()", clue)
    shot(d, "web_keyboard.png")
    before = int(attr(d, "data-version"))
    d.switch_to.active_element.send_keys(Keys.ENTER)  # plays the focused clue
    wait_for(lambda: api_view(server, gid)["version"] > before, what="the move to be played by Enter")
    first = api_view(server, gid)["log"][before]
    assert (first["player"], first["kind"], first["element"]) == (0, "clue", action)


def test_layout_from_a_phone_to_a_wide_screen(browser, server):
    d = browser
    _, links = create(server, ["human", "greedy", "greedy", "greedy"], seed=11)
    try:
        d.set_window_size(1000, 900)  # below 1,150 px the side panel fell under the board
        d.get(server + links[0])
        wait_for(lambda: attr(d, "data-version") is not None, what="the page")
        board, turn = d.find_element("id", "board").rect, d.find_element("id", "turn-panel").rect
        assert turn["x"] >= board["x"] + board["width"] and turn["y"] < board["y"] + board["height"]
        d.set_window_size(360, 800)
        wait_for(lambda: d.execute_script("return window.innerWidth") <= 360, what="the narrow window")
        assert d.execute_script("return document.documentElement.scrollWidth <= window.innerWidth")
        board, turn = d.find_element("id", "board").rect, d.find_element("id", "turn-panel").rect
        assert turn["y"] >= board["y"] + board["height"] - 1  # one column
        shot(d, "web_phone.png")
    finally:
        d.set_window_size(1300, 1000)


def test_mistyped_link_shows_an_error_page(browser, server):
    d = browser
    d.get(server + "/gmae/abc")
    assert d.find_element("tag name", "h2").text == "Page not found"
    assert d.find_element("id", "reason").text == "no such page: /gmae/abc"
    shot(d, "web_error.png")


def test_solo_names_the_difficulty_once_clears_a_stale_hint_and_rounds_time_like_the_leaderboard(browser, server):
    import datetime as dt

    d = browser
    today = dt.datetime.now(dt.timezone.utc).date().isoformat()
    req = urllib.request.Request(server + "/api/solo", data=json.dumps({"daily": today, "difficulty": "medium"}).encode(),
                                 headers={"content-type": "application/json"}, method="POST")
    with urllib.request.urlopen(req) as r:
        link = json.loads(r.read())["link"]
    d.get(server + link)
    wait_for(lambda: attr(d, "data-version") == "0", what="the solo page")
    source = d.find_element("id", "source").text
    assert source.startswith(f"daily case {today}, medium (the reference solver needs ") and "medium · medium" not in source
    d.find_element("id", "hint-button").click()
    wait_for(lambda: d.find_element("id", "hint").text, what="the hint")
    d.find_element("css selector", "#board g.invbtn[data-action]").click()
    wait_for(lambda: attr(d, "data-version") == "1", what="the move")
    assert d.find_element("id", "hint").text == ""  # the hint was about the position before the move
    # 2.96 s is stored as 2.96 by the leaderboard and sent as 3.0 by the page's view: both show 0:03
    assert d.execute_script("return [fmt(2.96), fmt(3.0), fmt(2.94), fmt(62.5)]") == ["0:03", "0:03", "0:02", "1:02"]


def test_hint_button_only_in_a_game_with_hints(browser, server):
    d = browser
    _, links = create(server, ["human", "greedy"], seed=3)
    d.get(server + links[0])
    wait_for(lambda: attr(d, "data-your-turn") == "1", what="my turn")
    assert not d.find_element("id", "hint-box").is_displayed()
    gid, links = create(server, ["human", "greedy"], seed=3, hints=True)
    d.get(server + links[0])
    wait_for(lambda: attr(d, "data-your-turn") == "1", what="my turn")
    d.find_element("id", "hint-button").click()
    text = wait_for(lambda: d.find_element("id", "hint").text, what="the hint")
    token = links[0].rsplit("/", 1)[1]
    req = urllib.request.Request(f"{server}/api/games/{gid}/hint", headers={"x-seat-token": token}, method="POST")
    with urllib.request.urlopen(req) as r:
        count = json.loads(r.read())["count"]
    assert text.startswith(f"{count} cases fit what you know."), text
