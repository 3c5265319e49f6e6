"""The game page's server side for players (docs/web.md): HTML error pages for browsers while the
API keeps JSON, the strongest agents selectable, agents' decision times, the round summaries and
the end screen's data."""

from __future__ import annotations

import pytest

pytest.importorskip("fastapi", reason="the web app needs the 'web' extra: pip install '.[web]'")
pytest.importorskip("httpx", reason="the test client needs httpx")

from web_client import client  # noqa: E402

HTML = {"accept": "text/html,application/xhtml+xml,*/*;q=0.8"}


def test_unknown_page_is_html_for_a_browser_and_json_for_the_api(tmp_path):
    with client(tmp_path) as c:
        r = c.get("/gmae/abc", headers=HTML)
        assert r.status_code == 404 and r.headers["content-type"].startswith("text/html")
        assert "no such page: /gmae/abc" in r.text and '<a href="/">' in r.text
        assert "<script" not in r.text and "style=" not in r.text
        r = c.get("/game/nosuchgame", headers=HTML)
        assert r.status_code == 404 and r.headers["content-type"].startswith("text/html")
        assert "no game &#x27;nosuchgame&#x27; on this server" in r.text
        r = c.get("/api/games/nosuchgame/view", headers=HTML)
        assert r.status_code == 404 and r.headers["content-type"] == "application/json"
        assert r.json() == {"error": "no game 'nosuchgame' on this server"}
        r = c.get("/gmae/abc")  # no Accept: text/html (a script): JSON
        assert r.headers["content-type"] == "application/json" and r.json()["error"] == "no such page: /gmae/abc"
        r = c.get("/static/nope.js", headers=HTML)
        assert r.headers["content-type"] == "application/json"


def new_game(c, seats, **settings):
    r = c.post("/api/games", json={"seats": seats, **settings})
    assert r.status_code == 201, r.text
    doc = r.json()
    return doc["id"], [None if s["link"] is None else s["link"].rsplit("/", 1)[1] for s in doc["seats"]]


def get_view(c, gid, token, since=None):
    url = f"/api/games/{gid}/view" + ("" if since is None else f"?since={since}")
    r = c.get(url, headers={} if token is None else {"x-seat-token": token})
    assert r.status_code == 200, r.text
    return r.json()


def play_person_until(c, gid, token, stop):
    """P0 (a person) takes the first legal clue card, else investigates the first legal district,
    never solves, until ``stop(view)``; the three agents play on by themselves."""
    v = get_view(c, gid, token)
    while not stop(v):
        if v["your_turn"]:
            legal = v["legal"]
            action = legal["clues"][0] if legal["clues"] else 36 + legal["districts"][0]
            r = c.post(f"/api/games/{gid}/move", json={"version": v["version"], "action": action},
                       headers={"x-seat-token": token})
            assert r.status_code == 200, r.text
            v = r.json()
        else:
            v = get_view(c, gid, token, since=v["version"])
    return v


def test_round_summary_lists_solvers_points_and_only_the_cases_the_rules_reveal(tmp_path):
    from pi_env.records.record_file import load_record

    with client(tmp_path) as c:
        gid, tokens = new_game(c, ["human", "greedy", "greedy", "greedy"], seed=7)
        v = play_person_until(c, gid, tokens[0], lambda v: v["round_summaries"] or v["done"])
        assert not v["done"] and v["round"] == 2
        (s,) = v["round_summaries"]
        assert s["round"] == 1 and s["points"] == v["scores"]  # round 1 started at 0
        correct = [x for x in s["solves"] if x["correct"]]
        revealed = {x["player"]: x["why"] for x in s["revealed"]}
        # public: the cases solved correctly; private to P0: the case it held (P1's); never P0's own
        assert revealed == {**{x["player"]: "solved" for x in correct}, **({1: "you held it"} if 1 not in
                                                                            {x["player"] for x in correct} else {})}
        assert 0 not in revealed
        spectator = get_view(c, gid, None)["round_summaries"][0]
        assert {x["player"] for x in spectator["revealed"]} == {x["player"] for x in correct}
        exact = [(x["player"], x["correct"], x["move"], x["rotation"]) for x in s["solves"]]
        # P2 and P3 solve in rotation 6 (tier 0: 7 points), P1 in rotation 8 (tier 1: 5), P0 never tries
        assert exact == [(2, True, 22, 6), (3, True, 23, 6), (1, True, 27, 8)] and s["points"] == [0, 5, 7, 7]
        v = play_person_until(c, gid, tokens[0], lambda v: v["done"])
        record = load_record(c.get(f"/api/games/{gid}/record").json())
        r1 = record.rounds[0]
        assert [(ev.player, ev.correct) for ev in r1.events if ev.kind == "solve"] == [x[:2] for x in exact]
        for x in s["revealed"]:  # what was revealed is the true case
            assert x["case"]["id"] == r1.cases[x["player"]]
        # after the end every case of every round is shown, P0's own too
        assert [[d["id"] for d in rnd] for rnd in v["result"]["cases"]] == [
            [rr.cases[p] for p in range(4)] for rr in record.rounds]
        assert len(v["round_summaries"]) == len(record.rounds)
        assert {x["player"] for x in v["round_summaries"][0]["revealed"]} == {0, 1, 2, 3}



def test_end_view_names_the_engine_winner_and_the_last_round_tier_track(tmp_path):
    """After the end: the result is the engine's (winners, ranks), the tier track is round 3's (it
    showed round 4's points), and every agent's decision time was measured on each of its moves."""
    from pi_env.records.record_file import load_record
    from pi_env.records.scoring import score_record

    with client(tmp_path) as c:
        gid, _ = new_game(c, ["greedy", "heuristic", "greedy", "random"], seed=5)
        v = get_view(c, gid, None)
        while not v["done"]:
            v = get_view(c, gid, None, since=v["version"])
        record = load_record(c.get(f"/api/games/{gid}/record").json())
        scores = score_record(record)
        assert v["result"]["ranks"] == list(scores.ranks)
        assert v["result"]["winners"] == [p for p in range(4) if scores.ranks[p] == 1]
        assert v["round"] == 3 and v["tier_points"] == [9, 7, 5]  # docs/rules.md §5: [7, 5, 3][k] + (3 - 1)
        moves = [sum(1 for rnd in record.rounds for ev in rnd.events if ev.player == p) for p in range(4)]
        assert [d["moves"] for d in v["decision"]] == moves
        assert all(0 <= d["mean"] <= d["max"] for d in v["decision"])
        assert all(ev["seconds"] is not None and ev["seconds"] >= 0 for ev in v["log"])


def test_strongest_agents_are_seat_choices(tmp_path):
    """winrollout and the learned models of the zoo can sit at the table; a model that does not fit
    the number of players is refused with the loader's reason."""
    with client(tmp_path, agent_delay=3600) as c:
        gid, _ = new_game(c, ["human", "winrollout", "learned:4p", "greedy"], seed=1)
        assert get_view(c, gid, None)["seats"] == ["human", "winrollout", "learned:4p", "greedy"]
        r = c.post("/api/games", json={"seats": ["human", "learned:2p", "greedy", "greedy"]})
        assert r.status_code == 422 and "was trained for 2 players, not 4" in r.json()["error"], r.text
        r = c.post("/api/games", json={"seats": ["human", "learned:solo"]})
        assert r.status_code == 422 and "'seats[]' must be one of" in r.json()["error"]


def test_hints_only_when_the_game_was_created_with_them_and_recorded(tmp_path):
    from pi_env.records.record_file import record_to_dict
    from pi_env.solvers.solve_report import solve_report

    with client(tmp_path) as c:
        gid, tokens = new_game(c, ["human", "greedy"], seed=3)
        r = c.post(f"/api/games/{gid}/hint", headers={"x-seat-token": tokens[0]})
        assert r.status_code == 403 and r.json()["error"] == "this game was created without hints (the 'hints' option)"
        assert get_view(c, gid, tokens[0])["hints"] is False
        assert "hints" not in record_to_dict(c.app.state.games.get(gid).record())["engine"]
        r = c.post("/api/games", json={"seats": ["human", "greedy"], "hints": "yes"})
        assert r.status_code == 422 and r.json()["error"] == "'hints' must be true or false, got 'yes'"

        gid, tokens = new_game(c, ["human", "greedy"], seed=3, hints=True)
        v = play_person_until(c, gid, tokens[0], lambda v: v["your_turn"])
        assert v["hints"] is True
        r = c.post(f"/api/games/{gid}/hint")
        assert r.status_code == 403 and "a spectator cannot ask for a hint" in r.json()["error"]
        r = c.post(f"/api/games/{gid}/hint", headers={"x-seat-token": tokens[0]})
        assert r.status_code == 200, r.text
        h = r.json()
        game = c.app.state.games.get(gid)
        expected = solve_report(game.record(), 0, top=5, strict=False)  # only what P0 knows (docs/rules.md §9)
        assert h["version"] == v["version"] and h["count"] == expected["count"]
        assert h["cases"] == expected["cases"] and h["best_action"] == expected["hint"]["best_action"]
        assert record_to_dict(game.record())["engine"]["hints"] is True
        # stored with the game, so a restart restores the option (GameManager.restore)
        assert {g: spec["hints"] for g, _, spec, *_ in c.app.state.store.games()}[gid] is True


def test_a_hint_past_the_time_limit_is_stopped_and_answered_clearly(tmp_path):
    """A hint is computed in a worker process bounded by the server's solver time limit: past it
    the computation is stopped and the seat gets 503 with the reason, and the game goes on (it used
    to run in the server's worker threads without a limit)."""
    with client(tmp_path, solver_timeout=0.001) as c:
        gid, tokens = new_game(c, ["human", "greedy"], seed=3, hints=True)
        v = play_person_until(c, gid, tokens[0], lambda v: v["your_turn"])
        r = c.post(f"/api/games/{gid}/hint", headers={"x-seat-token": tokens[0]})
        assert r.status_code == 503, r.text
        assert r.json() == {"error": "the hint took too long (more than 0.001 s) and was stopped; play on and ask "
                                     "again later: it is faster once fewer cases are left"}
        action = v["legal"]["clues"][0] if v["legal"]["clues"] else 36 + v["legal"]["districts"][0]
        r = c.post(f"/api/games/{gid}/move", json={"version": v["version"], "action": action},
                   headers={"x-seat-token": tokens[0]})
        assert r.status_code == 200 and r.json()["version"] == v["version"] + 1, r.text
