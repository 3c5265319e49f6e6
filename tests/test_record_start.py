"""Starting a game at a point of a pi-record/1 record (issue #17 item 3): pi_env.records.start."""

from __future__ import annotations

import json
from dataclasses import replace

import numpy as np
import pytest

from pi_env.core.constants import CASE_TRIPLES, NUM_CASES, case_index
from pi_env.core.errors import PIError, RecordError
from pi_env.engine import GameConfig, init, legal_action_mask, step_inplace
from pi_env.records.record_file import clue_answer, investigate_answer, load_record, record_to_dict
from pi_env.records.recorder import Recorder
from pi_env.records.start import record_start
from pi_env.records.types import CLUE, INVESTIGATE, SOLVE

PUBLIC = ("round", "first_player", "current_player", "rotation", "tier", "solved_this_rotation", "done",
          "truncated", "turn", "tile_district", "district_tile", "front", "spot", "trace", "inv_count",
          "inv_district", "inv_answer", "inv_markers", "inv_suppressed", "inv_left", "attempted", "solved",
          "solved_case", "failed", "score", "solve_points", "penalty", "last_action", "last_answer",
          "last_player", "extra_turn", "round_winner")


def play_recorded(cfg, seed, steps=400, p_solve=0.07, policy_seed=0):
    """A recorded engine game; returns (record document, {(round, event index): state after it}),
    with ``(round, -1)`` the start of every later round."""
    rng = np.random.default_rng(policy_seed)
    st = init(cfg, 1, seed=seed)
    rec = Recorder(cfg, st, seed)
    after = {}
    for _ in range(steps):
        if st.done[0]:
            break
        legal = np.flatnonzero(legal_action_mask(st)[0])
        small = legal[legal < 50]
        a = rng.choice(small) if small.size and rng.random() > p_solve else rng.choice(legal)
        key = (int(st.round[0]), sum(1 for _ in rec.record().rounds[-1].events))
        step_inplace(st, np.array([a]), cfg)
        rec.after_step(st)
        after[key] = st.copy()
        if int(st.round[0]) != key[0] and not st.done[0]:
            after[(int(st.round[0]), -1)] = st.copy()  # the next round's start
    return json.loads(json.dumps(record_to_dict(rec.record()))), after


def cid(triple):
    return case_index(*(int(v) for v in triple))


def consistent_cases(record, r, p):
    """bool[1680]: the cases of player p consistent with its own answers in round r (brute force
    over the rules' answer functions; a player's answers depend on its own case only)."""
    rnd = record.rounds[r]
    ok = np.ones(NUM_CASES, dtype=bool)
    adj = record.board.adjacency
    for c in range(NUM_CASES):
        for ev in rnd.events:
            if not ev.is_turn or ev.player != p:
                continue
            if ev.kind == CLUE and clue_answer(rnd.tile_district, c, ev.element, adj) != ev.answer:
                ok[c] = False
            elif ev.kind == INVESTIGATE and investigate_answer(rnd.tile_district, c, ev.district, ev.suppressed,
                                                               adj) != (ev.spots, ev.traces):
                ok[c] = False
            elif ev.kind == SOLVE and (c == ev.case) != bool(ev.correct):
                ok[c] = False
            if not ok[c]:
                break
    return ok


def brute_force_completer(record, round_index, known, rng):
    """Exact: every missing player's case uniform on its consistent set, jointly disjoint (rejection)."""
    P = record.rules.players
    sets = {p: np.flatnonzero(consistent_cases(record, round_index, p)) for p in range(P) if p not in known}
    while True:
        cases = dict(known)
        for p, s in sets.items():
            cases[p] = int(s[rng.integers(s.size)])
        trip = CASE_TRIPLES[[cases[p] for p in range(P)]]
        if all(len(set(trip[:, t])) == P for t in range(3)):
            return cases


CONFIGS = [GameConfig(num_players=3), GameConfig(mode="duel"),
           GameConfig(num_players=4, edition="first", variants=("nick-of-time",))]


@pytest.fixture(scope="module", params=CONFIGS, ids=["standard-3", "duel", "first-4-nick"])
def game(request):
    return (request.param, *play_recorded(request.param, seed=11))


def test_engine_written_record_starts_exactly(game):
    """At every event of an engine-written record (also right after a round's end: the next round's
    start) the start is exactly the recorded game's state, generator included."""
    cfg, doc, after = game
    record = load_record(doc)
    assert len(record.rounds) >= 2
    n = 0
    for (r, i), st in after.items():
        if st.done[0]:
            with pytest.raises(PIError, match=f"the game is over after event {i} of round {r}"):
                record_start(record, r, i)
            continue
        rs = record_start(record, r, i)
        assert rs.state.equals(st) and rs.seeded and rs.drawn_cases == {}
        n += 1
    start = record_start(doc, 0, -1)
    assert start.state.equals(init(cfg, 1, seed=doc["engine"]["seed"]))
    assert n == sum(1 for s in after.values() if not s.done[0])


def test_typed_record_with_every_case_starts_at_the_same_position(game):
    """Without the seed the record's layouts, cases, answers and totals fix everything public (and the
    cases): equal to the engine game in every field but the deck and the generator, across the
    game's reshuffles; the game plays on."""
    cfg, doc, after = game
    typed = {k: v for k, v in doc.items() if k != "engine"}
    if cfg.is_duel:
        typed["rules"] = dict(typed["rules"])
    keys = [k for k in after if not after[k].done[0]][::5]
    for r, i in keys:
        rs = record_start(typed, r, i, seed=3)
        assert not rs.seeded and rs.drawn_cards and rs.drawn_cases == {}
        st = after[(r, i)]
        for f in PUBLIC + ("case",):
            assert np.array_equal(getattr(rs.state, f), getattr(st, f)), (r, i, f)
        step_inplace(rs.state, np.array([50]), rs.config)  # it plays on (a solve of case 0)
    again = record_start(typed, *keys[-1], seed=3)
    assert again.state.equals(record_start(typed, *keys[-1], seed=3).state)  # same seed, same start


def test_typed_record_missing_cases_are_drawn_consistently(game):
    cfg, doc, after = game
    typed = {k: v for k, v in doc.items() if k != "engine"}
    P = cfg.num_players
    typed["rounds"] = [dict(rd, cases={"1": rd["cases"]["1"]}) for rd in typed["rounds"]]
    record = load_record(typed)
    r, i = max(k for k in after if k[0] == 1 and not after[k].done[0] and after[k].round[0] == 1)  # in round 1
    with pytest.raises(PIError, match=r"round 0: the record does not give the case of players 0, 2"
                       if P > 2 else r"round 0: the record does not give the case of player 0;"):
        record_start(record, r, i)
    rs = record_start(record, r, i, complete_cases=brute_force_completer, seed=5)
    missing = tuple(p for p in range(P) if p != 1)
    assert rs.drawn_cases == {0: missing, 1: missing}
    assert rs.info()["drawn_cases"] == [list(missing), list(missing)]
    assert json.loads(json.dumps(rs.info())) == rs.info()
    assert cid(rs.state.case[0, 1]) == record.rounds[1].cases[1]
    for p in missing:  # every answer of round 1 holds for the drawn cases
        assert consistent_cases(record, 1, p)[cid(rs.state.case[0, p])]
    for f in PUBLIC:
        assert np.array_equal(getattr(rs.state, f), getattr(after[(r, i)], f)), f


def test_completer_output_is_checked():
    cfg = GameConfig(num_players=3)
    doc, _ = play_recorded(cfg, seed=2, steps=10, p_solve=0.0)
    typed = {k: v for k, v in doc.items() if k != "engine"}
    typed["rounds"] = [dict(rd, cases={"1": rd["cases"]["1"]}) for rd in typed["rounds"]]
    with pytest.raises(PIError, match="complete_cases gave no case id 0..1679 for player 2 in round 0"):
        record_start(typed, 0, 3, complete_cases=lambda rec, r, known, rng: {0: 5})
    with pytest.raises(PIError, match="complete_cases changed player 1's stated case in round 0"):
        record_start(typed, 0, 3, complete_cases=lambda rec, r, known, rng: {0: 0, 1: 141, 2: 282})
    c1 = load_record(typed).rounds[0].cases[1]
    with pytest.raises(PIError, match="cases that share a suspect"):
        record_start(typed, 0, 3, complete_cases=lambda rec, r, known, rng: {0: c1, 1: c1, 2: c1})


def test_turn_order_and_declared_incorrect_answers_are_refused():
    cfg = GameConfig(num_players=3)
    doc, _ = play_recorded(cfg, seed=2, steps=12, p_solve=0.0)
    typed = {k: v for k, v in doc.items() if k != "engine"}
    rd = typed["rounds"][0]
    swapped = dict(typed, rounds=[dict(rd, events=[rd["events"][1], rd["events"][0], *rd["events"][2:]])])
    first, second = rd["events"][0]["player"], rd["events"][1]["player"]
    with pytest.raises(RecordError, match=f"round 1, event 0: player {second} acts but it is player {first}'s turn"):
        record_start(swapped, 0, 5)
    asker = rd["events"][2]["player"]  # the record cannot give the asker's case (its answer would hold)
    true_case = load_record(typed).rounds[0].cases[asker]
    cases = {q: c for q, c in rd["cases"].items() if int(q) != asker}
    declared = dict(typed, rounds=[dict(rd, cases=cases, events=[*rd["events"][:6], {"incorrect": 2}])])
    complete = lambda rec, r, known, rng: {**known, asker: true_case}  # noqa: E731
    record_start(declared, 0, 1, complete_cases=complete)  # before the declared answer: fine
    with pytest.raises(RecordError, match=r"round 1, event 2: this answer is declared incorrect \(event 6\)"):
        record_start(declared, 0, 4, complete_cases=complete)


def test_position_indices_are_checked():
    doc, _ = play_recorded(GameConfig(num_players=3), seed=2, steps=12, p_solve=0.0)
    with pytest.raises(PIError, match=r"round must be 0..0 \(0-based; the record has 1 round\), got 1"):
        record_start(doc, 1, 0)
    with pytest.raises(PIError, match=r"event must be -1..11 \(the position after that event of round 0"):
        record_start(doc, 0, 12)
    with pytest.raises(PIError, match="this is a solo record"):
        record_start({"format": "pi-record/1", "rules": {"mode": "solo", "players": 1},
                      "rounds": [{"first_player": 0, "tiles": load_tiles(doc), "cases": {}, "events": []}]})


def load_tiles(doc):
    return doc["rounds"][0]["tiles"]


def test_typed_clue_cards_follow_the_record():
    """A stated display is the start display; a clue the shuffle left in the deck is swapped in, and an
    event's display statement holds after it."""
    doc, after = play_recorded(GameConfig(num_players=3), seed=8, steps=30, p_solve=0.0)
    typed = {k: v for k, v in doc.items() if k != "engine"}
    record = load_record(typed)
    rs = record_start(typed, 0, -1, seed=0)
    shown = sorted(np.flatnonzero(rs.state.card_place[0] == 1).tolist())
    assert shown == sorted(record.rounds[0].display)
    no_display = dict(typed, rounds=[{k: v for k, v in typed["rounds"][0].items() if k != "display"}])
    for seed in range(5):  # any shuffle: every recorded clue is taken legally
        rs = record_start(no_display, 0, 20, seed=seed)
        assert np.array_equal(rs.state.front, after[(0, 20)].front)
    engine_display = sorted(np.flatnonzero(after[(0, 9)].card_place[0] == 1).tolist())
    rd = dict(no_display["rounds"][0])
    names = load_record(doc)  # element names for the statement
    from pi_env.core.names import element_names
    el = element_names(names.board)
    rd["events"] = [dict(ev) for ev in rd["events"]]
    rd["events"][9]["display"] = [el[x] for x in engine_display]
    stated = dict(no_display, rounds=[rd])
    for seed in range(3):
        rs = record_start(stated, 0, 9, seed=seed)
        assert sorted(np.flatnonzero(rs.state.card_place[0] == 1).tolist()) == engine_display


# A 3-player round typed in by Ben (player 1, who holds Cleo's case), answers worked out by hand from
# the cases Ann (Queenie / Forgery / Skid Row) and Ben (Dutch / Bank Job / Main Street) were dealt.
TABLE = {
    "format": "pi-record/1", "rules": {"players": 3}, "players": ["Ann", "Ben", "Cleo"],
    "rounds": [{
        "first_player": 0,
        "tiles": {
            "suspect": {"Lakeside": "Shorty", "Forest Park": "Doc", "Little Italy": "Rusty", "Trocadero": "Bubbles",
                        "Ocean Drive": "Frenchy", "China Town": "Maurice", "Central Station": "Pop",
                        "Main Street": "Dutch", "Road House": "Knuckles", "Union Square": "Pinky",
                        "Downtown": "Queenie", "Rick's Café": "Earl", "Waterfront": None, "Skid Row": None},
            "evidence": {"Lakeside": None, "Forest Park": None, "Little Italy": None, "Trocadero": None,
                         "Ocean Drive": "Murder", "China Town": "Mob Killing", "Central Station": "Bank Job",
                         "Main Street": "Blackmail", "Road House": "Police Corruption", "Union Square": "Forgery",
                         "Downtown": "Kidnapping", "Rick's Café": "Jewellery Heist", "Waterfront": "Smuggling",
                         "Skid Row": "Protection Racket"}},
        "cases": {"2": {"suspect": "Doc", "evidence": "Murder", "location": "Lakeside"}},
        "events": [
            {"player": 0, "clue": "Pinky", "answer": "trace"}, {"player": 1, "clue": "Dutch", "answer": "spot"},
            {"player": 2, "investigate": "Downtown", "spots": 0, "traces": 0},
            {"player": 0, "investigate": "Union Square", "spots": 1, "traces": 0},
            {"player": 1, "clue": "Bank Job", "answer": "spot"}, {"player": 2, "clue": "Frenchy", "answer": "trace"},
            {"player": 0, "clue": "Kidnapping", "answer": "trace"}, {"player": 1, "clue": "Trocadero", "answer": "trace"},
            {"player": 2, "solve": ["Pop", "Blackmail", "Road House"], "correct": False},
            {"player": 0, "solve": ["Earl", "Smuggling", "Waterfront"], "correct": False}]}]}


def test_solver_completer_draws_exactly_from_the_posterior():
    """pi_env.solvers.complete_cases (the CaseCompleter the docs name) draws the missing cases uniformly
    from the deals that fit every answer and the stated case: compared with a brute force over pairs."""
    from pi_env.solvers import complete_cases
    record = load_record(TABLE)
    stated = record.rounds[0].cases[2]
    s0 = np.flatnonzero(consistent_cases(record, 0, 0))
    s1 = np.flatnonzero(consistent_cases(record, 0, 1))
    disjoint = lambda a, b: bool((CASE_TRIPLES[a] != CASE_TRIPLES[b]).all())  # noqa: E731
    worlds = {(int(a), int(b)) for a in s0 for b in s1
              if disjoint(a, b) and disjoint(a, stated) and disjoint(b, stated)}
    assert len(worlds) == 153  # also counted by hand-written code outside pi-env
    ben_location = {}
    for _, b in worlds:
        ben_location[b % 14] = ben_location.get(b % 14, 0) + 1
    assert ben_location == {6: 33, 1: 30, 2: 30, 4: 30, 7: 30}  # Central Station, Forest Park, ...
    drawn = []
    for s in range(2500):
        got = complete_cases(record, 0, {2: stated}, np.random.default_rng(s))
        assert set(got) == {0, 1, 2} and got[2] == stated
        drawn.append((got[0], got[1]))
    assert set(drawn) == worlds  # every world fits, and every world is reached
    share = sum(b % 14 == 6 for _, b in drawn) / len(drawn)
    assert abs(share - 33 / 153) < 0.03
    rng = np.random.default_rng(7)
    again = np.random.default_rng(7)
    assert complete_cases(record, 0, {2: stated}, rng) == complete_cases(record, 0, {2: stated}, again)


def test_solver_completer_starts_environments():
    """The completer works where the docs use it: an AEC env and the solo env started from typed
    records without (all) cases; a record whose answers no deal fits is one line naming events."""
    import gymnasium as gym
    import pi_env
    from pi_env.solvers import ContradictionError, complete_cases
    env = pi_env.env(num_players=3)
    env.reset(seed=0, options={"record": TABLE, "round": 0, "event": 5, "complete_cases": complete_cases})
    assert env.agent_selection == "player_0"
    assert env.infos["player_0"]["record"]["drawn_cases"] == [[0, 1]]
    case = env.unwrapped.game_state.case[0]
    assert cid(case[2]) == load_record(TABLE).rounds[0].cases[2]
    assert consistent_cases(load_record(TABLE), 0, 0)[cid(case[0])]
    assert consistent_cases(load_record(TABLE), 0, 1)[cid(case[1])]

    bad = json.loads(json.dumps(TABLE))
    bad["rounds"][0]["events"][7]["answer"] = "nothing"  # Ben: Dutch and Bank Job spots, Trocadero nothing,
    bad["rounds"][0]["events"].append({"player": 1, "clue": "Lakeside", "answer": "spot"})  # yet Lakeside
    with pytest.raises(ContradictionError, match=r"^round 0: no deal of the missing cases fits the record's "
                       r"answers and stated cases; these events cannot all hold: .*\b10\b"):
        complete_cases(load_record(bad), 0, {2: load_record(bad).rounds[0].cases[2]}, np.random.default_rng(0))
    import pickle
    try:
        complete_cases(load_record(bad), 0, {2: load_record(bad).rounds[0].cases[2]}, np.random.default_rng(0))
    except ContradictionError as err:  # it crosses process boundaries intact (worker pools)
        back = pickle.loads(pickle.dumps(err))
        assert (type(back), back.player, back.events, str(back)) == (ContradictionError, err.player, err.events,
                                                                     str(err))

    solo = {"format": "pi-record/1", "rules": {"mode": "solo", "players": 1},
            "rounds": [{"first_player": 0, "tiles": TABLE["rounds"][0]["tiles"], "cases": {},
                        "events": [{"player": 0, "clue": "Pinky", "answer": "spot"},
                                   {"player": 0, "clue": "Murder", "answer": "spot"},
                                   {"player": 0, "clue": "Lakeside", "answer": "trace"}]}]}
    env = gym.make("pi_env.envs.solo:pi_env/SoloTimeAttack-v0")
    _, info = env.reset(seed=1, options={"record": solo, "event": 2, "complete_cases": complete_cases})
    assert info["record"]["drawn_cases"] == [[0]]
    seen = {complete_cases(load_record(solo), 0, {}, np.random.default_rng(s))[0] for s in range(60)}
    pinky_murder = 9 * 140 + 0 * 14
    assert seen == {pinky_murder + 1, pinky_murder + 2, pinky_murder + 3}  # Lakeside's neighbours
