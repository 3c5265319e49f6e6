"""The value of waiting follows the rules (issue #15 item 1): positions worked out by hand for each
rule that decides whether the player gets another turn this round and at which tier (second edition:
attempts; first edition: solves and its scoring; nick of time; the safeguard; score floor and cap;
the duel's values), and the facts read from a record checked against the engine.

Hand-made position (as ``tests/test_hints.py``): the asking player has spots on Doc and Murder and
has named every location but Lakeside and Skid Row in failed solves, so its case is Doc / Murder /
Lakeside or Doc / Murder / Skid Row, equally likely (the other players have no answers: the joint
posterior is symmetric): ``p = 0.5``. The Lakeside clue card answers spot for one and nothing for the
other, so after it the case is certain: ``q = 1``. Solving now at tier 0 of round 1 is worth
``0.5 · 7 − 0.5 · 2 = 2.5``.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from pi_env.apps.cli import main
from pi_env.core.board import DAYTIME
from pi_env.core.constants import INVESTIGATE_BASE, SOLVE_BASE, case_index
from pi_env.engine import GameConfig, init, legal_action_mask, step_inplace
from pi_env.records.recorder import Recorder
from pi_env.solvers import Knowledge, hint
from pi_env.solvers.knowledge import CLUE_KIND, SOLVE_FAILED
from pi_env.solvers.turns import TurnContext, turn_context, wait_outcomes

SIMPLE_TILES = np.array(list(range(12)) + list(range(10)) + list(range(14)), dtype=np.int8)
DOC, MURDER = 1, 12
LAKESIDE, SKID_ROW = 0, 13
LAKESIDE_CLUE = 22 + LAKESIDE


def two_cases(player: int, n: int, held: int = -1) -> Knowledge:
    """``player`` of ``n`` knows its case is Doc / Murder / Lakeside or Skid Row."""
    rows = [(0, player, CLUE_KIND, DOC, 2, 0, 0), (1, player, CLUE_KIND, MURDER, 2, 0, 0)]
    for loc in range(14):
        if loc not in (LAKESIDE, SKID_ROW):
            rows.append((len(rows), player, SOLVE_FAILED, case_index(1, 0, loc), 0, 0, 0))
    return Knowledge(player, n, SIMPLE_TILES, DAYTIME.adjacency, held, np.array(rows, dtype=np.int32))


def ctx(player=3, n=4, **kw) -> TurnContext:
    base = dict(player=player, n_players=n, first_player=0, attempted=(False,) * n, solved=(False,) * n,
                out=(False,) * n)
    base.update(kw)
    return TurnContext(**base)


def advise(c: TurnContext, hazards=None, held=-1):
    h = hint(two_cases(c.player, c.n_players, held), [LAKESIDE_CLUE], context=c, hazards=hazards or {},
             remaining=False)
    assert h.p_correct == 0.5 and h.best_action == LAKESIDE_CLUE and h.q_after == 1.0
    return h


# --------------------------------------------------------------------------- second edition


def test_the_reported_position_waiting_scores_nothing():
    """Issue #15: four players, every other one attempted this rotation, the player is the last
    seat: after its turn at most one player has not attempted, the round ends, waiting scores 0."""
    h = advise(ctx(attempted=(True, True, True, False)))
    assert h.expected_points == 2.5
    assert h.wait_expected_points == 0.0 and h.next_turn == "no" and h.solve_now
    (o,) = h.wait_outcomes
    assert not o.next_turn and o.reason == ("the round ends after this rotation: at most one player has "
                                            "not attempted a solve")
    # before issue #15 the next turn was assumed at the next tier: 1.0 · 5 = 5 > 2.5, wait
    legacy = hint(two_cases(3, 4), [LAKESIDE_CLUE], tier=0, round_index=0, remaining=False)
    assert legacy.wait_expected_points == 5.0 and not legacy.solve_now


def test_the_round_goes_on_at_the_same_tier_when_nobody_solved():
    # players 2 and 3 have not attempted: the round goes on; nobody solved this rotation: tier 0
    h = advise(ctx(attempted=(True, True, False, False)))
    assert h.wait_expected_points == 7.0 and h.next_turn == "yes" and not h.solve_now
    # someone solved earlier in this rotation: the next turn is at tier 1 (5 points)
    h = advise(ctx(attempted=(False, True, False, False), solved=(False, True, False, False),
                   solved_this_rotation=True))
    assert h.wait_expected_points == 5.0 and [o.tier for o in h.wait_outcomes] == [1]


def test_players_after_the_player_may_end_the_round():
    """Player 1 (seat 1) has not attempted; player 2 after it has not either, player 3 has. If player
    2 attempts (h = 0.3), only player 1 is left without an attempt: the round ends. Player 3 may
    solve (h = 0.1): tier 1.
    E_wait = 0.7·0.9·7 + 0.7·0.1·5 + 0.3·(0.9 + 0.1)·0 = 4.41 + 0.35 = 4.76."""
    h = advise(ctx(player=1, attempted=(True, False, False, True), later=(2, 3)), hazards={2: 0.3, 3: 0.1})
    assert h.wait_expected_points == pytest.approx(4.76, abs=1e-12)
    assert h.next_turn == "maybe" and not h.solve_now
    got = sorted((round(o.probability, 12), o.next_turn, o.tier, o.value, o.reason) for o in h.wait_outcomes)
    assert got == [(0.07, True, 1, 5.0, "next turn at tier 1 (player 3 attempts)"),
                   (0.3, False, 1, 0.0, "the round ends after this rotation: at most one player has not "
                                        "attempted a solve"),
                   (0.63, True, 0, 7.0, "next turn at tier 0 (nobody after you attempts)")]


def test_score_cap_and_floor():
    # 19 points: a correct solve adds 2 (cap 21): 0.5·2 − 0.5·2 = 0, not > 0: no solve
    h = advise(ctx(attempted=(True, True, True, False), score=19))
    assert h.expected_points == 0.0 and not h.solve_now
    # −4: a wrong solve costs 1 (floor −5): 0.5·7 − 0.5·1 = 3
    assert advise(ctx(attempted=(True, True, True, False), score=-4)).expected_points == 3.0


# ---------------------------------------------------------------------------- first edition


def test_first_edition_round_ends_by_solves_and_scores_without_round_bonus():
    # round 3: second edition 9 points, first edition 7
    attempts = dict(attempted=(True, True, True, False), round_index=2)
    assert advise(ctx(**attempts)).expected_points == 0.5 * 9 - 1
    h = advise(ctx(edition="first", **attempts))
    assert h.expected_points == 2.5
    # the others attempted but nobody solved: the round goes on (first edition: at most one unsolved)
    assert h.wait_expected_points == 7.0 and h.next_turn == "yes" and not h.solve_now
    # every other player solved: the player is the only one unsolved, the round ends
    h = advise(ctx(edition="first", attempted=(True, True, True, False), solved=(True, True, True, False),
                   tier=1, round_index=2))
    assert h.expected_points == 0.5 * 5 - 1 and h.wait_expected_points == 0.0 and h.solve_now
    # first edition: no floor, the penalty is 2 whatever the score
    assert advise(ctx(edition="first", attempted=(True, True, True, False), score=-4)).expected_points == 2.5


# ------------------------------------------------------------------------------ nick of time


def test_nick_of_time():
    # 4 players: last tier 2. Someone solved this round; this rotation is at tier 2: the round's last
    h = advise(ctx(nick_of_time=True, tier=2, attempted=(True, False, False, False),
                   solved=(True, False, False, False)))
    assert h.expected_points == 0.5 * 3 - 1 and h.wait_expected_points == 0.0 and h.solve_now
    assert h.wait_outcomes[0].reason == "nick of time: this rotation, at the last tier (2), ends the round"
    assert h.next_turn == "no"
    # tier 1 and a solve in an earlier rotation: nick of time advances the tier anyway (3 points)
    c = dict(tier=1, attempted=(True, False, False, False), solved=(True, False, False, False))
    assert advise(ctx(nick_of_time=True, **c)).wait_expected_points == 3.0
    assert advise(ctx(**c)).wait_expected_points == 5.0  # without the variant: the same tier 1
    # 2 players, nobody solved yet: if the opponent solves this rotation (tier 0 = last) it ends
    h = advise(ctx(player=0, n=2, nick_of_time=True, later=(1,)), hazards={1: 0.25})
    assert h.wait_expected_points == pytest.approx(0.75 * 7)
    assert h.next_turn == "maybe"


# -------------------------------------------------------------------------------- safeguard


def test_safeguard():
    c = dict(attempted=(True, True, False, False), max_rotations=60)
    h = advise(ctx(rotation=59, **c))
    assert h.wait_expected_points == 0.0 and h.solve_now
    assert h.wait_outcomes[0].reason == "the safeguard of 60 rotations ends the round after this one"
    assert advise(ctx(rotation=58, **c)).wait_expected_points == 7.0
    assert advise(ctx(rotation=59, attempted=(True, True, False, False))).wait_expected_points == 7.0  # none


# -------------------------------------------------------------------------------------- duel


HELD = case_index(0, 2, 10)  # Shorty / Bank Job / Downtown: the opponent's case, held by player 0


def test_duel_second_player():
    """Values are round results. As the round's second player: right wins (+1), wrong loses (−1):
    2·0.5 − 1 = 0, not > 0. Waiting: the opponent (first player) acts first in the next rotation;
    if it attempts (h = 0.2, counted as right) the player has one more turn to draw: −(1 − q) = 0;
    else it solves next turn with q = 1: +1. E_wait = 0.8."""
    c = ctx(player=0, n=2, mode="duel", first_player=1)
    h = advise(c, hazards={1: 0.2}, held=HELD)
    assert h.points == 1 and h.expected_points == 0.0 and not h.solve_now
    assert h.wait_expected_points == pytest.approx(0.8) and h.reply is None
    # the safeguard ends the round after this rotation: a draw, 0
    h = advise(ctx(player=0, n=2, mode="duel", first_player=1, rotation=8, max_rotations=9), held=HELD)
    assert h.wait_expected_points == 0.0


def test_duel_first_player_and_the_opponents_reply():
    """As the round's first player a correct solve gives the opponent one more turn. The opponent
    knows the public answers and the player's case (it holds it), so with no answers of its own it
    has 11·9·13 = 1287 equally likely cases: it draws with 1/1287 when the player knows (it holds the
    opponent's case) that case is among them — it is. E_now = 0.5·(1 − 1/1287) − 0.5."""
    h = advise(ctx(player=0, n=2, mode="duel", first_player=0), hazards={1: 0.0}, held=HELD)
    assert h.reply == pytest.approx(1 / 1287, abs=0, rel=1e-15)
    assert h.expected_points == pytest.approx(0.5 * (1 - 1 / 1287) - 0.5, abs=1e-15)
    assert h.wait_expected_points == pytest.approx(1 - 1 / 1287) and not h.solve_now
    # without the held case: the opponent's own P(correct), its largest posterior, 1/1287 too
    assert advise(ctx(player=0, n=2, mode="duel", first_player=0)).reply == pytest.approx(1 / 1287)
    # the opponent attempts after the player in this rotation (h = 0.5): it wins the round (−1)
    h = advise(ctx(player=0, n=2, mode="duel", first_player=0), hazards={1: 0.5}, held=HELD)
    assert h.wait_expected_points == pytest.approx(0.5 * -1 + 0.5 * (1 - 1 / 1287))


def test_duel_one_more_turn_always_solves():
    h = advise(ctx(player=1, n=2, mode="duel", first_player=0, extra_turn=True,
                   attempted=(True, False), solved=(True, False)))
    assert h.expected_points == -0.5 and h.wait_expected_points == -1.0 and h.solve_now


def test_duel_hint_on_the_command_line(capsys, tmp_path):
    path = tmp_path / "duel.json"
    assert main(["play", "--mode", "duel", "--seed", "4", "--agents", "random,random", "--record", str(path),
                 "--quiet"]) == 0
    capsys.readouterr()
    assert main(["solve", str(path), "--player", "1", "--after-event", "-1", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    h = doc["hint"]
    assert h["units"] == "round result (+1 win, 0 draw, -1 loss)" and h["points"] == 1
    first = json.loads(path.read_text())["rounds"][0]["first_player"]
    q = h["p_correct"]
    if first == 1:
        assert h["expected_points"] == pytest.approx(q * (1 - h["opponent_reply"]) - (1 - q))
    else:
        assert h["expected_points"] == pytest.approx(2 * q - 1) and h["opponent_reply"] is None
    assert main(["solve", str(path), "--player", "1", "--after-event", "-1"]) == 0
    assert "Hint (duel: values are round results, +1 win, 0 draw, −1 loss):" in capsys.readouterr().out


# ------------------------------------------------------------- the facts of a record's position


def _query(state) -> int:
    """The lowest legal clue or investigator action (never a solve)."""
    mask = legal_action_mask(state)[0]
    return int(np.flatnonzero(mask[:SOLVE_BASE])[0])


def _correct(state, p) -> int:
    s, e, l = (int(v) for v in state.case[0, p])
    return SOLVE_BASE + case_index(s, e, l)


@pytest.mark.parametrize("players,edition,variants,seed", [
    (3, "second", (), 31), (4, "second", (), 32), (5, "first", (), 33), (4, "second", ("nick-of-time",), 34),
    (4, "first", ("nick-of-time",), 35), (3, "second", (), 36)])
def test_the_next_turn_follows_the_engine(players, edition, variants, seed):
    """At positions of engine games, the player to move queries and then the players after it in
    the rotation either all query or all solve correctly: whether the player gets another turn this
    round and its tier are what :func:`wait_outcomes` says for "nobody attempts" and "all attempt"
    (its attempt counted as a correct solve). The engine is the independent judge. The record's
    facts (tier, rotation, attempted, solved, score) equal the engine's at every turn."""
    from pi_env.agents import make_agent

    config = GameConfig(num_players=players, edition=edition, variants=variants, max_rotations=12)
    state = init(config, 1, seed=seed)
    bots = [make_agent("deducer" if i % 2 else "random") for i in range(players)]
    for i, b in enumerate(bots):
        b.reset(players, config.board, seed=seed + i)
    rec = Recorder(config, state, seed)
    from pi_env.engine import observe
    checked = {True: 0, False: 0}
    turn = 0
    while not state.done[0]:
        p, r = int(state.current_player[0]), int(state.round[0])
        record = rec.record()
        after = len(record.rounds[r].events) - 1
        c = turn_context(record, p, r, after)
        assert c.finished == "" and c.pending == ()
        assert (c.tier, c.rotation) == (int(state.tier[0]), int(state.rotation[0]))
        assert c.attempted == tuple(bool(x) for x in state.attempted[0])
        assert c.solved == tuple(bool(x) for x in state.solved[0])
        assert c.score == int(state.score[0, p])
        if turn % 3 == 0:
            for all_solve in (False, True):
                trial = state.copy()
                step_inplace(trial, np.array([_query(trial)]), config)
                while not trial.done[0] and int(trial.round[0]) == r and int(trial.current_player[0]) != p:
                    q = int(trial.current_player[0])
                    step_inplace(trial, np.array([_correct(trial, q) if all_solve else _query(trial)]), config)
                hazard = {j: 1.0 if all_solve else 0.0 for j in c.later}
                (o,) = [o for o in wait_outcomes(c, hazard) if o.probability > 0]
                on = not trial.done[0] and int(trial.round[0]) == r
                assert o.next_turn == on, (turn, all_solve, o.reason)
                if on:
                    assert o.tier == int(trial.tier[0])
                checked[on] += 1
        obs, mask = observe(state, p)[0], legal_action_mask(state)[0]
        step_inplace(state, np.array([bots[p].act(obs, mask)]), config)
        rec.after_step(state)
        turn += 1
    assert checked[True] > 0 and checked[False] > 0


def test_the_reported_position_on_the_command_line(capsys, tmp_path):
    """A 4-player record typed in: players 0, 1 and 2 attempted in rotation 1; player 3 (Dev) asks."""
    from test_records import _doc

    doc = _doc(players=4)
    del doc["rounds"][0]["cases"]
    doc["players"] = ["Ann", "Ben", "Cleo", "Dev"]
    doc["rounds"][0]["events"] = [{"player": p, "solve": [s, "Murder", "Lakeside"], "correct": False}
                                  for p, s in enumerate(("Doc", "Pinky", "Rusty"))]
    path = tmp_path / "table.json"
    path.write_text(json.dumps(doc))
    assert main(["solve", str(path), "--player", "dev", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    h = out["hint"]
    assert out["player"] == 3 and out["player_name"] == "Dev"
    assert h["wait_expected_points"] == 0.0 and h["next_turn"] == "no"
    assert main(["solve", str(path), "--player", "3"]) == 0
    text = capsys.readouterr().out
    assert ("  waiting scores nothing more this round: the round ends after this rotation: at most one "
            "player has not attempted a solve\n") in text
    # player 0 acts after player 3 in rotation 1, which ends the round whatever player 3 does
    assert main(["solve", str(path), "--player", "Ann"]) == 0
    text = capsys.readouterr().out
    assert text.endswith("No hint: the round ends before player 0's next turn (at most one player had not "
                         "attempted).\n")


@pytest.mark.parametrize("seed", [43, 44, 51])  # games with 1, 3 and 5 one-more turns
def test_duel_facts_follow_the_engine(seed):
    """In engine duels, at every turn the record's facts say the player has a turn, whether it is
    the one more turn after the first player's correct solve, and the rotation, as the engine."""
    from pi_env.agents import make_agent
    from pi_env.engine import observe

    config = GameConfig(num_players=2, mode="duel")
    state = init(config, 1, seed=seed)
    bots = [make_agent("deducer"), make_agent("deducer")]
    for i, b in enumerate(bots):
        b.reset(2, config.board, seed=seed + i)
    rec = Recorder(config, state, seed)
    extra_seen = 0
    while not state.done[0]:
        p, r = int(state.current_player[0]), int(state.round[0])
        record = rec.record()
        c = turn_context(record, p, r, len(record.rounds[r].events) - 1)
        assert c.finished == "" and c.duel
        assert c.extra_turn == bool(state.extra_turn[0]) and c.rotation == int(state.rotation[0])
        assert c.is_first_player == (p == int(state.first_player[0]))
        extra_seen += c.extra_turn
        obs, mask = observe(state, p)[0], legal_action_mask(state)[0]
        step_inplace(state, np.array([bots[p].act(obs, mask)]), config)
        rec.after_step(state)
    assert extra_seen > 0
    record = rec.record()
    last = record.rounds[-1]
    for p in range(2):  # after the deciding event the round is over for both
        assert turn_context(record, p, len(record.rounds) - 1, len(last.events) - 1).finished != ""
