"""The game and solo pages' details a player notices, in headless Chromium (docs/web.md): one "you"
mark per label, no sideways scrolling of the page from a phone up (tables and the board scroll in
their own box), one column below 900 px with a readable board, a focus ring on the board's clue
words, the hand-to-an-agent button only when the server accepts it, and the solo end's wording.
Needs Debian's ``chromium`` and ``chromium-driver``, like tests/test_web_browser.py."""

from __future__ import annotations

import json
import os
import time
import urllib.request

import pytest

from test_web_browser import ABSENT, CHROMEDRIVER, CHROMIUM, attr, browser, wait_for  # noqa: F401

pytest.importorskip("fastapi", reason="the web app needs the 'web' extra: pip install '.[web]'")
pytestmark = [pytest.mark.browser,
              pytest.mark.skipif(not (CHROMIUM and CHROMEDRIVER) and not os.environ.get("CI"), reason=ABSENT)]


@pytest.fixture
def server(tmp_path):
    from pi_env.apps.web import background_server

    with background_server(tmp_path, agent_delay=0.0, seat_timeout=4.0) as url:
        yield url


def post(server, path, body, token=None):
    headers = {"content-type": "application/json"}
    if token:
        headers["x-seat-token"] = token
    req = urllib.request.Request(server + path, data=json.dumps(body).encode(), headers=headers, method="POST")
    with urllib.request.urlopen(req) as r:
        return json.loads(r.read())


def create(server, seats, **settings):
    doc = post(server, "/api/games", {"seats": seats, **settings})
    return doc["id"], [s["link"] for s in doc["seats"]]


def api_view(server, gid):
    with urllib.request.urlopen(f"{server}/api/games/{gid}/view") as r:
        return json.loads(r.read())


def text(d, css):
    """The element's rendered text read in one script call (no stale element between a find and a
    read while agents' moves redraw the page)."""
    return d.execute_script("const e = document.querySelector(arguments[0]); return e && e.innerText.trim()", css)


NO_SIDEWAYS = "return [document.documentElement.scrollWidth, window.innerWidth]"
# the board's scale on screen: its drawn width over its viewBox width (the words are 12.5 px at 1)
BOARD_SCALE = ("const b = document.getElementById('board'); "
               "return b.getBoundingClientRect().width / b.viewBox.baseVal.width")


def narrow(d, width):
    d.set_window_size(width, 800)
    wait_for(lambda: d.execute_script("return window.innerWidth") <= width, what=f"the {width} px window")


def test_one_you_mark_in_the_players_and_the_people_at_the_table(browser, server):
    d = browser
    d.set_window_size(1300, 1000)
    _, links = create(server, ["human", "greedy", "greedy"], seed=5)
    d.get(server + links[0])
    wait_for(lambda: d.find_elements("css selector", "#people [data-seat='0']"), what="the people at the table")
    # read in one go: with agents moving at no delay the panel is redrawn between two reads
    me, agent, me_size, agent_size = d.execute_script(
        "const me = document.querySelector(\"#people [data-seat='0']\"), a = document.querySelector('#people .muted');"
        "return [me.textContent.trim(), a.textContent.trim(), getComputedStyle(me).fontSize, getComputedStyle(a).fontSize]")
    assert me == "P0 (you): here"  # was "P0 (you) (you): here"
    assert agent == "P1 (greedy): greedy"
    assert me_size == agent_size == "12.5px"
    assert text(d, "#players tr[data-player='0'] td") == "P0 (you)"
    # with friends the names say "human", and this page's own seat "you", the same in both places
    gid, links = create(server, ["human", "human", "greedy"], seed=5)
    post(server, f"/api/games/{gid}/join", {}, links[1].split("/seat/")[1])
    d.get(server + links[0])
    wait_for(lambda: attr(d, "data-version") is not None and attr(d, "data-lobby") is None, what="the game page")
    wait_for(lambda: d.find_elements("css selector", "#people [data-seat='0']"), what="the people at the table")
    assert text(d, "#players tr[data-player='0'] td") == "P0 (you)"
    assert text(d, "#players tr[data-player='1'] td") == "P1 (human)"
    assert text(d, "#people [data-seat='0']") == "P0 (you): here"
    # a spectator's page calls nobody "you", also in a game with one person (whose stored default
    # name is "P0 (you)")
    for game in (gid, create(server, ["human", "greedy", "greedy"], seed=5)[0]):
        d.get(server + f"/game/{game}")
        wait_for(lambda: attr(d, "data-version") is not None, what="the spectator's page")
        assert text(d, "#players tr[data-player='0'] td") == "P0 (human)"


def test_hand_to_an_agent_is_offered_only_once_the_server_accepts_it(browser, tmp_path):
    # Bob joined (a request just now) but has no event stream open: the server counts him at the
    # table for its seat timeout (12 s here: time for a loaded machine to load the page), and refuses
    # to hand his seat. The page offered the button at once (it looked at the open stream only), and
    # the click was refused.
    from pi_env.apps.web import background_server

    d = browser
    d.set_window_size(1300, 1000)
    with background_server(tmp_path, agent_delay=0.0, seat_timeout=12.0) as server:
        gid, links = create(server, ["human", "human", "greedy"], seed=5)
        post(server, f"/api/games/{gid}/join", {}, links[1].split("/seat/")[1])
        joined = time.monotonic()
        d.get(server + links[0])
        wait_for(lambda: attr(d, "data-version") is not None and attr(d, "data-lobby") is None, what="the game page")
        bob = wait_for(lambda: d.find_elements("css selector", "#people [data-seat='1']"), what="Bob's row")[0]
        row, people, buttons = bob.text, api_view(server, gid)["people"][1], d.find_elements("css selector", "button[data-hand]")
        if time.monotonic() - joined < 11:  # still within the seat timeout (else too loaded to tell)
            assert row == "P1 (human): here"
            assert people == {"person": True, "joined": True, "connected": False, "present": True, "left": False}
            assert buttons == []
        # past the seat timeout the server says he is away (a people event at that moment, not at the
        # stream's next keep-alive 15 s on): then it is offered
        button = wait_for(lambda: d.find_elements("css selector", "button[data-hand='1']"), timeout=20,
                          what="the hand button once Bob is away")[0]
        assert time.monotonic() - joined >= 11.5
        assert text(d, "#people [data-seat='1']").startswith("P1 (human): away")
        button.click()
        wait_for(lambda: api_view(server, gid)["seats"][1] == "greedy", what="the seat handed to an agent")
        assert text(d, "#message") == ""


def test_no_sideways_scrolling_and_a_readable_board_from_a_phone_up(browser, server):
    d = browser
    _, links = create(server, ["human", "greedy", "greedy", "greedy"], seed=11)
    try:
        d.set_window_size(1300, 1000)
        d.get(server + links[0])
        wait_for(lambda: attr(d, "data-version") is not None, what="the page")
        narrow(d, 800)  # one column below 900 px: the board the full width, the panel under it
        board, turn = d.find_element("id", "board").rect, d.find_element("id", "turn-panel").rect
        assert turn["y"] >= board["y"] + board["height"] - 1
        assert board["width"] >= d.execute_script("return document.querySelector('main').clientWidth") - 34  # its padding
        assert d.execute_script(BOARD_SCALE) * 12.5 >= 9  # the words were about 6 px
        assert d.execute_script(NO_SIDEWAYS)[0] <= d.execute_script(NO_SIDEWAYS)[1]
        narrow(d, 360)  # the board keeps its size and scrolls in its own box; the page does not
        width, inner = d.execute_script(NO_SIDEWAYS)
        assert width <= inner, (width, inner)
        scale = d.execute_script(BOARD_SCALE)
        assert scale * 12.5 >= 8 and scale * 18 >= 12, scale  # words; the investigate buttons' height
        box = d.find_element("css selector", ".board-box")
        assert d.execute_script("return arguments[0].scrollWidth > arguments[0].clientWidth", box)
        # the start page too (its new-game panel was at least 380 px wide: 388 px in 360)
        d.get(server + "/")
        wait_for(lambda: d.find_elements("css selector", "#games table"), what="the start page's games")
        width, inner = d.execute_script(NO_SIDEWAYS)
        assert width <= inner, (width, inner)
    finally:
        d.set_window_size(1300, 1000)


def test_counts_say_one_move_and_one_spot(browser, server):
    # "1 moves" in the start page's list of games, "1 spots" in an investigator's label: a game of two
    # people with one move played, an investigation that found exactly one spot or one trace
    d = browser
    d.set_window_size(1300, 1000)

    def seat_view(gid, token):
        req = urllib.request.Request(f"{server}/api/games/{gid}/view", headers={"x-seat-token": token})
        with urllib.request.urlopen(req) as r:
            return json.loads(r.read())

    for seed in range(40):
        gid, links = create(server, ["human", "human"], seed=seed)
        tokens = [link.split("/seat/")[1] for link in links]
        post(server, f"/api/games/{gid}/join", {}, tokens[1])
        views = [seat_view(gid, t) for t in tokens]
        mover = [v["your_turn"] for v in views].index(True)
        district = views[mover]["legal"]["districts"][0]
        post(server, f"/api/games/{gid}/move", {"version": views[mover]["version"], "action": 36 + district},
             tokens[mover])
        (inv,) = seat_view(gid, tokens[mover])["investigators"]
        if 1 in (inv["spots"], inv["traces"]):
            break
    d.get(server + "/")
    row = wait_for(lambda: [r for r in d.find_elements("css selector", "#games tr") if gid in r.text],
                   what="the game's row")[0]
    assert row.text.endswith(" 1 move"), row.text
    d.get(server + links[mover])
    wait_for(lambda: d.find_elements("css selector", "#board g.inv"), what="the investigator on the board")
    label = d.find_element("css selector", "#board g.inv title").get_attribute("textContent")
    s, t = inv["spots"], inv["traces"]
    assert label.startswith(f"P{mover}'s investigator: {s} spot{'' if s == 1 else 's'}, "
                            f"{t} trace{'' if t == 1 else 's'}"), (label, inv)


def test_the_end_screen_fits_a_phone_and_says_the_cases_are_revealed(browser, server):
    # a spectator's page of a game of agents, and a seat's page of a game ended by its person's solve
    d = browser
    gid, _ = create(server, ["greedy", "greedy", "greedy", "greedy"], seed=11, variants=["fast"])
    wait_for(lambda: api_view(server, gid)["done"], what="the agents' game to end")
    try:
        narrow(d, 360)
        d.get(f"{server}/game/{gid}")
        wait_for(lambda: attr(d, "data-done") == "1", what="the end screen")
        width, inner = d.execute_script(NO_SIDEWAYS)
        assert width <= inner, (width, inner)  # was 369 px in 345
        assert text(d, "#held") == "Spectator: every case is shown on the end screen."
    finally:
        d.set_window_size(1300, 1000)


def test_solo_solved_in_one_action_hides_the_questions(browser, server):
    from selenium.webdriver.support.ui import Select

    from pi_env.apps.solo_app import game_from_seed

    d = browser
    doc = post(server, "/api/solo", {"seed": 12, "name": "Tess"})
    d.get(server + doc["link"])
    wait_for(lambda: attr(d, "data-version") == "0", what="the solo board")
    assert d.find_element("id", "ask-panel").is_displayed()
    case = game_from_seed(12).case
    for sel, value in (("solve-suspect", case // 140), ("solve-evidence", (case // 14) % 10),
                       ("solve-location", case % 14)):
        Select(d.find_element("id", sel)).select_by_value(str(value))
    d.find_element("id", "solve-button").click()
    wait_for(lambda: attr(d, "data-done") == "1", what="the solve")
    end = wait_for(lambda: text(d, "#end"), what="the end")
    assert " in 1 action, 0 investigator tiles, 0 wrong, " in end, end
    assert not d.find_element("id", "ask-panel").is_displayed()
    assert not d.find_element("id", "solve-panel").is_displayed()


def test_a_focused_clue_word_of_the_board_has_a_focus_ring(browser, server):
    d = browser
    d.set_window_size(1300, 1000)
    _, links = create(server, ["human", "greedy"], seed=3)
    d.get(server + links[0])
    wait_for(lambda: attr(d, "data-your-turn") == "1", what="my turn")
    clue = d.find_element("css selector", "#board text.clickable[data-action]")
    d.execute_script("arguments[0].focus()", clue)
    ring = d.execute_script("const s = getComputedStyle(arguments[0]); "
                            "return [s.outlineStyle, s.outlineWidth, s.outlineColor]", clue)
    assert ring == ["solid", "3px", "rgb(26, 95, 180)"], ring  # was none: only the word turned blue


SLOW_CREATE = """
// the server's answer to a new game arrives after 1.5 s (a first game compiling the engine takes minutes)
const fetched = window.fetch;
window.fetch = async (url, options) => {
  const r = await fetched(url, options);
  if (options && options.method === "POST" && String(url).endsWith("/api/games")) await new Promise(ok => setTimeout(ok, 1500));
  return r;
};
"""


def test_create_says_it_is_working_and_takes_one_click(browser, server):
    from selenium.webdriver.support.ui import Select

    d = browser
    d.get(server + "/")
    for i, seat in enumerate(["human", "human"]):
        Select(d.find_element("id", f"seat-{i}")).select_by_value(seat)
    d.execute_script(SLOW_CREATE)
    button = d.find_element("id", "create")
    button.click()
    assert not button.is_enabled()  # a second click cannot make a second game
    assert text(d, "#message") == (
        "Creating the game… the first game after installing compiles the engine, which can take a few minutes.")
    wait_for(lambda: d.find_elements("css selector", "#links a.seat-link"), what="the private links")
    assert button.is_enabled() and text(d, "#message") == ""
