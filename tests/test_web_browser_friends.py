"""Playing with friends in headless Chromium: two people in two separate browser sessions (their own
profiles) join one game by its private links, wait in the lobby, and play it with two agents to the
end screen; the moves reach each page as server-sent events.

Needs Debian's ``chromium`` and ``chromium-driver``, like ``tests/test_web_browser.py`` (skipped only
when they are absent, failed under CI)."""

from __future__ import annotations

import os
import shutil
import tempfile

import pytest

pytest.importorskip("fastapi", reason="the web app needs the 'web' extra: pip install '.[web]'")
from test_web_browser import ABSENT, CHROMEDRIVER, CHROMIUM, FLAGS, attr, wait_for  # noqa: E402

pytestmark = [pytest.mark.browser,
              pytest.mark.skipif(not (CHROMIUM and CHROMEDRIVER) and not os.environ.get("CI"), reason=ABSENT)]


@pytest.fixture
def two_browsers():
    if not (CHROMIUM and CHROMEDRIVER):
        pytest.fail(f"CI must run the browser tests, but {ABSENT}")
    pytest.importorskip("selenium", reason="the browser tests need selenium (test extra)")
    from selenium import webdriver
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service

    drivers, profiles = [], []
    try:
        for _ in range(2):
            options = Options()
            for flag in FLAGS:
                options.add_argument(flag)
            profiles.append(tempfile.mkdtemp(prefix="pi-env-chromium-"))
            options.add_argument(f"--user-data-dir={profiles[-1]}")
            options.binary_location = CHROMIUM
            drivers.append(webdriver.Chrome(options=options, service=Service(CHROMEDRIVER)))
            drivers[-1].set_page_load_timeout(60)
        yield drivers
    finally:
        for d in drivers:
            d.quit()
        for p in profiles:
            shutil.rmtree(p, ignore_errors=True)


@pytest.fixture
def server(tmp_path):
    from pi_env.apps.web import background_server

    with background_server(tmp_path, agent_delay=0.02) as url:
        yield url


def _turn_or_end(ann, bob) -> str | None:
    """``"0"``/``"1"``: whose page offers a move; ``"end"``: both pages show the end; else ``None``."""
    if attr(ann, "data-done") == "1" and attr(bob, "data-done") == "1":
        return "end"
    return next((f"{i}" for i, d in enumerate((ann, bob)) if attr(d, "data-your-turn") == "1"), None)


def _wait_or_explain(drivers, moves, predicate):
    try:
        return wait_for(predicate, what="a person's turn or the end")
    except AssertionError:
        states = [{k: attr(d, k) for k in ("data-version", "data-your-turn", "data-done", "data-transport")}
                  | {"turn": d.find_element("id", "turn").text, "message": d.find_element("id", "message").text}
                  for d in drivers]
        raise AssertionError(f"timed out waiting for a person's turn or the end after moves {moves}: "
                             f"{states}") from None


def test_two_people_and_two_agents_play_by_link_to_the_end(two_browsers, server):
    from selenium.webdriver.support.ui import Select

    ann, bob = two_browsers
    ann.get(server + "/")
    Select(ann.find_element("id", "players")).select_by_visible_text("4")
    for i, seat in enumerate(["human", "random", "human", "deducer"]):
        Select(ann.find_element("id", f"seat-{i}")).select_by_value(seat)
    ann.find_element("id", "fast").click()
    ann.find_element("id", "create").click()
    links = wait_for(lambda: [a.get_attribute("href") for a in ann.find_elements("css selector", "#links a.seat-link")],
                     what="the private links")
    assert len(links) == 2 and all("/seat/" in link for link in links)
    ann.get(links[0])
    wait_for(lambda: attr(ann, "data-lobby") == "1", what="Ann's lobby")
    wait_for(lambda: "Waiting for P2 (human)" in ann.find_element("id", "status").text, what="the lobby waiting")
    assert not ann.find_element("id", "creator-panel").get_attribute("hidden")  # Ann created it: she may start it
    shared = ann.find_element("id", "share").text  # her tab remembers the link to give Bob
    assert links[1].split("/seat/")[1] in shared and links[0].split("/seat/")[1] not in shared
    bob.get(links[1])  # Bob joins: the game starts on both pages
    for d in (ann, bob):
        wait_for(lambda: attr(d, "data-version") is not None and attr(d, "data-lobby") is None, what="the game page")
        wait_for(lambda: attr(d, "data-transport") == "events", what="moves pushed as events")
    # each sees only the case they hold (the next seat's), never their own
    assert "You hold P1 (random)'s case" in ann.find_element("id", "held").text
    assert "You hold P3 (deducer)'s case" in bob.find_element("id", "held").text
    moves = [0, 0]
    for _ in range(400):
        if attr(ann, "data-done") == "1" and attr(bob, "data-done") == "1":
            break
        who = _wait_or_explain((ann, bob), moves, lambda: _turn_or_end(ann, bob))
        if who == "end":
            break
        who = int(who)
        d = (ann, bob)[who]
        if d.find_element("id", "round-summary").is_displayed():  # a round ended: read, then dismiss
            d.find_element("id", "summary-close").click()
        version = attr(d, "data-version")
        if moves[who] % 3 == 2:
            for sel, value in (("solve-suspect", "1"), ("solve-evidence", "2"), ("solve-location", "3")):
                Select(d.find_element("id", sel)).select_by_value(value)
            d.find_element("id", "solve-button").click()
        else:
            clickable = d.find_elements("css selector", "button.card[data-action], g.invbtn[data-action]")
            assert clickable, "a legal move must be offered"
            clickable[moves[who] % len(clickable)].click()
        moves[who] += 1
        wait_for(lambda: attr(d, "data-version") != version, what="the move to be played")
    assert moves[0] >= 1 and moves[1] >= 1
    ends = [wait_for(lambda: d.find_element("id", "end-title").text, what="the end screen") for d in (ann, bob)]
    assert ends[0] == ends[1] and ends[0].startswith("The game is over: ")
    assert attr(ann, "data-version") == attr(bob, "data-version")
