"""Playing with friends in headless Chromium: two people in two separate browser sessions (their own
profiles) join one game by its private links, wait in the lobby, and play it with two agents to the
end screen; the moves reach each page as server-sent events. One of them plays by keyboard only,
from the first move through the round summaries to the end screen.

Needs Debian's ``chromium`` and ``chromium-driver``, like ``tests/test_web_browser.py`` (skipped only
when they are absent, failed under CI)."""

from __future__ import annotations

import os
import shutil
import tempfile

import pytest

pytest.importorskip("fastapi", reason="the web app needs the 'web' extra: pip install '.[web]'")
from test_web_browser import ABSENT, CHROMEDRIVER, CHROMIUM, FLAGS, attr, press, wait_for  # noqa: E402

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
            options.set_capability("goog:loggingPrefs", {"browser": "ALL"})  # the pages' traces of views
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
                  | {"turn": d.find_element("id", "turn").text, "message": d.find_element("id", "message").text,
                     "console": [e["message"] for e in d.get_log("browser")[-30:]]}
                  for d in drivers]
        raise AssertionError(f"timed out waiting for a person's turn or the end after moves {moves}: "
                             f"{states}") from None


FOCUS_SHOWN = """
const e = arguments[0];
if (!e.matches(':focus')) return false;
if (e.matches('#board g.invbtn')) return getComputedStyle(e.querySelector('rect')).strokeWidth === '3px';
if (e.matches('#board text')) return getComputedStyle(e).fill === 'rgb(26, 95, 180)';
const s = getComputedStyle(e);
return e.matches(':focus-visible') && s.outlineStyle === 'solid' && s.outlineWidth === '3px';
"""


def _tab_to(d, found, what, limit=300):
    """Press Tab until the focused element satisfies ``found``; the element."""
    from selenium.webdriver.common.keys import Keys

    for _ in range(limit):
        el = d.switch_to.active_element
        if found(el):
            return el
        press(d, Keys.TAB)
    raise AssertionError(f"{what} was not reached with Tab in {limit} presses")


def _dismiss_summary_by_keyboard(d):
    """The round summary holds the focus: Tab and Shift+Tab stay in it, Enter dismisses it."""
    from selenium.webdriver.common.keys import Keys

    assert d.switch_to.active_element.get_attribute("id") == "summary-close"
    press(d, Keys.TAB)
    assert d.switch_to.active_element.get_attribute("id") == "summary-body"
    press(d, Keys.TAB, shift=True)
    assert d.switch_to.active_element.get_attribute("id") == "summary-close"
    press(d, Keys.ENTER)
    wait_for(lambda: not d.find_element("id", "round-summary").is_displayed(), what="the summary to close")


def _keyboard_move(d, n):
    """The keyboard player's move number ``n``: every third a solve (suspect 1, evidence 2, location
    3, chosen with the arrow keys), else the ``n % 3 + 1``-th offered action reached with Tab from the
    focus, played with Enter (even ``n``) or Space (odd ``n``); each action's focus is drawn."""
    from selenium.webdriver.common.keys import Keys

    if n % 3 == 2:
        for sel, value in (("solve-suspect", 1), ("solve-evidence", 2), ("solve-location", 3)):
            _tab_to(d, lambda e: e.get_attribute("id") == sel, sel)
            for _ in range(value + 1):  # past the placeholder option
                press(d, Keys.ARROW_DOWN)
            assert d.switch_to.active_element.get_attribute("value") == str(value)
        el = _tab_to(d, lambda e: e.get_attribute("id") == "solve-button", "the solve button")
    else:
        passed = []

        def nth_action(e):
            if e.get_attribute("data-action") is None:
                return False
            passed.append(e.get_attribute("data-action"))
            return len(passed) > n % 3

        el = _tab_to(d, nth_action, "an offered action")
    assert d.execute_script(FOCUS_SHOWN, el), f"no visible focus on {el.tag_name} {el.get_attribute('data-action')}"
    press(d, Keys.ENTER if n % 2 == 0 else Keys.SPACE)


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
    # Ann clicks; Bob uses the keyboard only (Tab, Shift+Tab, Enter, Space, the arrows in a selector)
    moves, summaries = [0, 0], [0, 0]
    for _ in range(400):
        if attr(ann, "data-done") == "1" and attr(bob, "data-done") == "1":
            break
        who = _wait_or_explain((ann, bob), moves, lambda: _turn_or_end(ann, bob))
        if who == "end":
            break
        who = int(who)
        d = (ann, bob)[who]
        if d.find_element("id", "round-summary").is_displayed():  # a round ended: read, then dismiss
            summaries[who] += 1
            if d is bob:
                _dismiss_summary_by_keyboard(bob)
            else:
                d.find_element("id", "summary-close").click()
        version = attr(d, "data-version")
        if d is bob:
            _keyboard_move(bob, moves[1])
        elif moves[who] % 3 == 2:
            for sel, value in (("solve-suspect", "1"), ("solve-evidence", "2"), ("solve-location", "3")):
                Select(d.find_element("id", sel)).select_by_value(value)
            d.find_element("id", "solve-button").click()
        else:
            clickable = d.find_elements("css selector", "button.card[data-action], g.invbtn[data-action]")
            assert clickable, "a legal move must be offered"
            clickable[moves[who] % len(clickable)].click()
        moves[who] += 1
        wait_for(lambda: attr(d, "data-version") != version, what="the move to be played")
    assert moves[0] >= 1 and moves[1] >= 3  # Bob solved by keyboard at least once
    # a fast game has two rounds: Bob dismissed the first one's summary (the second's: the end screen)
    assert summaries[1] == 1, summaries
    ends = [wait_for(lambda: d.find_element("id", "end-title").text, what="the end screen") for d in (ann, bob)]
    assert ends[0] == ends[1] and ends[0].startswith("The game is over: ")
    assert attr(ann, "data-version") == attr(bob, "data-version")
    # the end screen's links are reached by keyboard too
    link = _tab_to(bob, lambda e: e.get_attribute("id") == "download", "the record's download link")
    assert bob.execute_script(FOCUS_SHOWN, link)
