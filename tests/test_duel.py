"""Duel (docs/rules.md §7), worked by hand on layout S of ``test_rules`` (player 0: Doc, Forgery,
Waterfront; player 1: Pinky, Murder, Lakeside). Every scenario runs through the engine and the
reference in lockstep (``test_rules.Table``); later rounds get their layouts from the generator, so
their solves use the dealt cases (``Table.correct`` / ``Table.wrong``).

Conventions checked here (pi_env.engine.state): ``score`` = rounds won; rewards ±1 to the round's
winner / loser at the deciding step, plus ±1 to the game's winner / loser at the last step;
investigators start at 2, and before each later round each player gets 2 (the last round's winner
1: it gives one back), holding at most 5.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from pi_env.apps.cli import main
from pi_env.engine import (GameConfig, init, legal_action_mask, outcome, reset_done, sample_actions,
                           step_inplace)
from pi_env.core.errors import PIError, RecordError
from pi_env.records.recorder import Recorder, config_of, replay_with_engine
from pi_env.records.record_file import load_record, record_to_dict
from pi_env.records.report import report_json, report_lines
from pi_env.records.scoring import score_record
from helpers import play_game
from test_cli import load_record_tiles
from test_rules import S, Table, inv


def duel(**kwargs) -> Table:
    return Table(players=2, mode="duel", **kwargs)


def ints(a) -> list[int]:
    return [int(v) for v in a]


def state_after_round(t: Table, round_index: int, wins, rewards, winner, inv_left) -> None:
    s = t.s
    assert int(s.round[0]) == round_index
    assert ints(s.score[0]) == wins
    assert ints(s.rewards[0]) == rewards
    assert int(s.round_winner[0]) == winner
    assert ints(s.inv_left[0]) == inv_left
    assert not s.extra_turn[0] and not s.attempted[0].any() and not s.solved[0].any()
    assert int(s.rotation[0]) == 0 and not s.solve_points[0].any() and not s.penalty[0].any()


# --------------------------------------------------------------------------- the first attempt

def test_new_duel_state():
    config = GameConfig(mode="duel")
    assert config.num_players == 2 and config.investigators == (2, 2) and config.max_rounds == 9
    s = init(config, 3, seed=5)
    assert (s.inv_left == 2).all() and (s.round_winner == -2).all() and not s.extra_turn.any()
    assert not s.score.any()


@pytest.mark.parametrize("first_player", [0, 1])
def test_wrong_first_attempt_opponent_wins(first_player):
    t = duel(first_player=first_player)
    p = first_player
    assert t.act(t.wrong()) == (0, -1)
    # the round ends at once; the opponent wins it and keeps 1 of its 2 new tiles
    if p == 0:
        state_after_round(t, 1, [0, 1], [-1, 1], 1, [4, 3])
    else:
        state_after_round(t, 1, [1, 0], [1, -1], 0, [3, 4])
    assert int(t.s.first_player[0]) == 1 - p and t.player == 1 - p and int(t.s.turn[0]) == 1


def test_wrong_attempt_of_the_second_player_after_clues():
    t = duel()
    t.filler(), t.filler(), t.filler()  # P0, P1, P0: clues
    assert t.player == 1
    assert t.act(t.wrong()) == (0, -1)
    state_after_round(t, 1, [1, 0], [1, -1], 0, [3, 4])


def test_second_player_right_wins_at_once():
    t = duel()
    t.filler()  # P0
    assert t.act(t.correct()) == (1, -1)  # P1 is the round's second player
    state_after_round(t, 1, [0, 1], [-1, 1], 1, [4, 3])
    assert int(t.s.first_player[0]) == 1 and t.player == 1


@pytest.mark.parametrize("first_player", [0, 1])
def test_first_player_right_then_opponent_right_is_a_draw(first_player):
    t = duel(first_player=first_player)
    p = first_player
    assert t.act(t.correct()) == (1, -1)
    # not decided yet: the opponent takes exactly one more turn
    assert t.s.extra_turn[0] and t.player == 1 - p and int(t.s.round[0]) == 0
    assert ints(t.s.rewards[0]) == [0, 0] and ints(t.s.score[0]) == [0, 0]
    assert t.s.solved[0, p] and legal_action_mask(t.s)[0].sum() == 9 + 14 + 1680
    assert t.act(t.correct()) == (1, -1)
    state_after_round(t, 1, [0, 0], [0, 0], -1, [4, 4])


@pytest.mark.parametrize("extra", ["wrong", "clue", "investigator"])
def test_first_player_right_then_anything_else_loses(extra):
    t = duel()
    t.act(t.correct())  # P0
    assert t.s.extra_turn[0]
    if extra == "wrong":
        assert t.act(t.wrong()) == (0, -1)
        inv_left = [3, 4]
    elif extra == "clue":
        assert t.act(S["Doc"]) == (0, -1)  # P1 (Pinky in Union Square): Doc's tile in Forest Park
        inv_left = [3, 4]
    else:
        assert t.act(inv("Lakeside")) == (1, 0)  # P1's location is Lakeside
        inv_left = [3, 3]  # P1 spent one of its 2 in the extra turn, then got 2
    state_after_round(t, 1, [1, 0], [1, -1], 0, inv_left)


def test_first_player_right_in_a_later_rotation():
    t = duel()
    t.filler(), t.filler()  # rotation 1
    assert t.act(t.correct()) == (1, -1)  # P0 again, rotation 2
    assert t.s.extra_turn[0] and t.player == 1
    t.filler()
    state_after_round(t, 1, [1, 0], [1, -1], 0, [3, 4])


# --------------------------------------------------------------------------- rounds and tiles

def test_investigators_across_rounds_and_sudden_death():
    """Round 1 (P0 first): P0 wrong -> P1 wins; tiles P0 2+2=4, P1 2+1=3.
    Round 2 (P1 first): both investigate (P0 3, P1 2), P1 wrong -> P0 wins; tiles P0 3+1=4,
    P1 2+2=4. Round 3 (P0 first): P0 right, P1 right -> draw, 1-1 after the 3 regular rounds:
    sudden death; tiles 4+2 capped at 5 for both. Round 4 (P1 first): P1 clue, P0 right (second
    player) -> P0 wins the round and the duel 2-1: rewards +2 / -2 at that step."""
    t = duel()
    t.act(t.wrong())
    state_after_round(t, 1, [0, 1], [-1, 1], 1, [4, 3])
    assert t.player == 1
    t.act(inv("Lakeside")), t.act(inv("Lakeside"))
    assert ints(t.s.inv_left[0]) == [3, 2]
    t.act(t.wrong())  # P1
    state_after_round(t, 2, [1, 1], [1, -1], 0, [4, 4])
    t.act(t.correct()), t.act(t.correct())
    state_after_round(t, 3, [1, 1], [0, 0], -1, [5, 5])
    assert not t.s.done[0] and int(t.s.first_player[0]) == 1
    t.filler()  # P1
    assert t.act(t.correct()) == (1, -1)  # P0, the round's second player
    s = t.s
    assert s.done[0] and int(s.round[0]) == 4 and not s.truncated[0]
    assert ints(s.score[0]) == [2, 1] and ints(s.rewards[0]) == [2, -2]
    assert int(s.round_winner[0]) == 0 and ints(s.inv_left[0]) == [5, 5]  # no tiles after the end
    out = outcome(s, t.config)
    assert out.scores == (2, 1) and out.ranks == (1, 2) and out.winners == (0,) and not out.truncated


def test_three_regular_rounds_are_played_even_after_two_wins():
    t = duel()
    t.act(t.wrong())  # round 1: P1 wins
    t.act(t.wrong())  # round 2, P1 first: P0 wins
    assert ints(t.s.score[0]) == [1, 1]
    t2 = duel()
    t2.filler()
    t2.act(t2.correct())  # round 1: P1 (second player) wins
    t2.filler()  # round 2, P1 first: clue
    t2.act(t2.wrong())  # P0 wrong: P1 wins
    assert ints(t2.s.score[0]) == [0, 2] and not t2.s.done[0] and int(t2.s.round[0]) == 2
    t2.act(t2.wrong())  # round 3, P0 first: P0 wrong -> P1 wins 3-0
    assert t2.s.done[0] and ints(t2.s.score[0]) == [0, 3] and ints(t2.s.rewards[0]) == [-2, 2]


def test_last_round_won_by_the_trailing_player_nets_zero():
    """Round 3 won by P1 (+1 / -1) while P0 wins the duel 2-1 (+1 / -1): rewards [0, 0]."""
    t = duel(round_index=2, score=[2, 0])
    t.act(t.wrong())  # P0 first, wrong
    assert t.s.done[0] and ints(t.s.score[0]) == [2, 1] and ints(t.s.rewards[0]) == [0, 0]
    assert outcome(t.s, t.config).winners == (0,)


def test_fast_duel_has_two_regular_rounds():
    t = duel(variants=("fast",))
    assert t.config.num_rounds == 2
    t.act(t.wrong())  # P1 wins
    t.act(t.correct()), t.act(t.correct())  # round 2 (P1 first): draw
    assert t.s.done[0] and int(t.s.round[0]) == 2 and ints(t.s.score[0]) == [0, 1]
    assert ints(t.s.rewards[0]) == [-1, 1]


def test_tied_duel_ends_at_max_rounds_truncated():
    """Round 4 of a duel with max_rounds=4, tied 1-1: a draw ends the duel, truncated, no reward."""
    t = duel(max_rounds=4, round_index=3, score=[1, 1], first_player=1)
    t.act(t.correct())  # P1 first
    t.act(t.correct())  # P0: draw
    s = t.s
    assert s.done[0] and s.truncated[0] and int(s.round[0]) == 4 and int(s.round_winner[0]) == -1
    assert ints(s.score[0]) == [1, 1] and ints(s.rewards[0]) == [0, 0]
    out = outcome(s, t.config)
    assert out.ranks == (1, 1) and out.winners == (0, 1) and out.truncated


def test_sudden_death_goes_on_while_tied():
    t = duel(round_index=3, score=[1, 1], first_player=1)
    for r in range(3, 6):  # draws in rounds 4, 5, 6
        assert int(t.s.round[0]) == r and not t.s.done[0]
        t.act(t.correct()), t.act(t.correct())
    assert int(t.s.round[0]) == 6 and ints(t.s.score[0]) == [1, 1] and not t.s.done[0]
    assert int(t.s.first_player[0]) == 0  # rounds 4..7: P1, P0, P1, P0 first
    t.act(t.wrong())  # round 7: P0 wrong -> P1 wins the round and the duel
    assert t.s.done[0] and not t.s.truncated[0]
    assert ints(t.s.score[0]) == [1, 2] and ints(t.s.rewards[0]) == [-2, 2]


def test_safeguard_round_is_a_draw():
    t = duel(max_rotations=2)
    for _ in range(4):
        t.filler()
    state_after_round(t, 1, [0, 0], [0, 0], -1, [4, 4])
    assert t.s.truncated[0] and not t.s.done[0]


def test_reset_done_restarts_a_duel():
    config = GameConfig(mode="duel", max_rounds=3)
    s = init(config, 2, seed=3)
    gen = np.random.default_rng(0)
    while not s.done.all():
        step_inplace(s, sample_actions(s, gen), config)
    reset_done(s, config)
    assert (s.inv_left == 2).all() and (s.round_winner == -2).all() and not s.score.any()
    assert not s.done.any() and (s.round == 0).all()


# --------------------------------------------------------------------------- configuration

@pytest.mark.parametrize("kwargs,fragment", [
    (dict(mode="duel", num_players=3), "a duel is played by exactly 2 players (docs/rules.md §7), got 3 players"),
    (dict(mode="solo"), "mode must be one of ('standard', 'duel'), got 'solo' (solo time attack"),
    (dict(mode="night"), "mode must be one of ('standard', 'duel'), got 'night'"),
    (dict(mode="duel", variants=("nick-of-time",)), "variant 'nick-of-time' does not apply to a duel"),
    (dict(mode="duel", investigators=(2, 2, 2)), "investigators gives 3 counts for 2 players"),
    (dict(mode="duel", investigators=(2, 6)), "investigator counts must be integers 0..5, got (2, 6)"),
    (dict(mode="duel", max_rounds=2), "max_rounds must be an integer 3..100 (at least the 3 regular rounds), got 2"),
    (dict(mode="duel", max_rounds=101), "max_rounds must be an integer 3..100"),
    (dict(mode="duel", variants=("fast", "fast")), "variants lists a variant twice"),
    (dict(num_players=4, investigators=(5, 5, 3)), "investigators gives 3 counts for 4 players"),
    (dict(num_players=2, investigators=(5, 2.5)), "investigator counts must be integers 0..5"),
    (dict(variants="fast"), "variants must be a sequence of variant names"),
])
def test_config_errors(kwargs, fragment):
    with pytest.raises(PIError) as exc:
        GameConfig(**kwargs)
    assert fragment in str(exc.value)


def test_config_codes():
    assert GameConfig(mode="duel", variants=("fast",), max_rounds=5).round_limit == 5
    assert GameConfig(mode="duel", variants=("fast",)).num_rounds == 2
    assert GameConfig(num_players=3).round_limit == 3
    c = GameConfig(mode="duel", edition="first", max_rounds=7)
    assert c.rules_code == 1 | 4 | (7 << 8) and c.edition_index == 1


# --------------------------------------------------------------------------- records

@pytest.mark.parametrize("seed", range(4))
def test_duel_records_replay_and_score(seed):
    config = GameConfig(mode="duel", variants=("fast",) if seed % 2 else (), max_rotations=20)
    states = []
    final, rec = play_game(config, ["deducer", "random"] if seed < 2 else ["deducer", "deducer"], seed,
                           on_step=lambda s, p, o, a: states.append(s.copy()))
    states.append(final.copy())
    record = load_record(json.loads(json.dumps(record_to_dict(rec.record()))))
    assert record.rules.mode == "duel" and record.rules.investigators == (2, 2)
    assert record.rules.rounds == config.num_rounds
    assert config_of(record).mode == "duel"
    scores = score_record(record)
    assert scores.scores == tuple(ints(final.score[0]))
    assert scores.investigators_left == tuple(ints(final.inv_left[0]))
    assert scores.ranks == outcome(final, config).ranks
    assert scores.round_winners[-1] == int(final.round_winner[0])
    assert len(scores.round_winners) == int(final.round[0])
    seen = []
    replay_with_engine(record, on_step=lambda s: seen.append(s.copy()))
    for i, s in enumerate(seen):
        assert s.equals(states[i + 1]), f"state after step {i} differs"


def _duel_doc(rounds):
    tiles = load_record_tiles()
    return {"format": "pi-record/1", "rules": {"mode": "duel"}, "players": ["Ann", "Ben"],
            "rounds": [{"first_player": fp, "tiles": tiles, "events": events} for fp, events in rounds]}


ROUNDS = [
    (0, [{"player": 0, "clue": "Pinky", "answer": "trace"},
         {"player": 1, "solve": ["Doc", "Forgery", "Downtown"], "correct": False}]),
    (1, [{"player": 1, "solve": ["Doc", "Forgery", "Downtown"], "correct": True},
         {"player": 0, "solve": ["Rusty", "Murder", "Lakeside"], "correct": True}]),
    (0, [{"player": 0, "investigate": "Skid Row", "spots": 0, "traces": 1},
         {"player": 1, "investigate": "Skid Row", "spots": 0, "traces": 0},
         {"player": 0, "solve": ["Rusty", "Murder", "Lakeside"], "correct": True},
         {"player": 1, "clue": "Doc", "answer": "nothing"}]),
]


def test_duel_report_exact():
    rec = load_record(_duel_doc(ROUNDS))
    scores = score_record(rec)
    assert scores.mode == "duel" and scores.round_winners == (0, -1, 0)
    assert scores.scores == (2, 0) and scores.ranks == (1, 2) and scores.penalty == (0, 0)
    # tiles: 2 each; after round 1 (Ann won) 3 and 4; after the draw 5 and 5 (capped); one each spent
    assert scores.investigators_left == (4, 4)
    assert scores.round_points == ((1, 0), (0, 0), (1, 0))
    assert report_lines(rec, scores) == [
        "Round 1 (first player Ann)",
        "  rot  1  Ann  clue Pinky                                       -> trace",
        "  rot  1  Ben  solve Doc / Forgery / Downtown                   -> wrong",
        "Round 1: Ann wins",
        "Round 2 (first player Ben)",
        "  rot  1  Ben  solve Doc / Forgery / Downtown                   -> correct",
        "  rot  1  Ann  solve Rusty / Murder / Lakeside                  -> correct",
        "Round 2: draw",
        "Round 3 (first player Ann)",
        "  rot  1  Ann  investigate Skid Row                             -> 0 spots, 1 trace",
        "  rot  1  Ben  investigate Skid Row                             -> 0 spots, 0 traces",
        "  rot  2  Ann  solve Rusty / Murder / Lakeside                  -> correct",
        "  rot  2  Ben  clue Doc                                         -> nothing",
        "Round 3: Ann wins",
        "Final standings:",
        "  1. Ann     2 round wins",
        "  2. Ben     0 round wins",
        "Duel won by Ann",
    ]
    doc = report_json(rec, scores)
    assert doc["mode"] == "duel" and [r["winner"] for r in doc["rounds"]] == [0, None, 0]
    assert doc["scores"] == [2, 0]


def test_duel_record_errors():
    late = list(ROUNDS)
    late[0] = (0, ROUNDS[0][1] + [{"player": 0, "clue": "Doc", "answer": "nothing"}])
    with pytest.raises(RecordError, match=r"round 1, event 2: the duel round was decided at event 1"):
        score_record(load_record(_duel_doc(late)))
    after = list(ROUNDS) + [(1, [{"player": 1, "clue": "Doc", "answer": "nothing"}])]
    with pytest.raises(RecordError, match=r"round 4: the duel was over after round 3: player 0 won 2-0"):
        score_record(load_record(_duel_doc(after)))
    solo = {"format": "pi-record/1", "rules": {"mode": "solo"},
            "rounds": [{"first_player": 0, "tiles": load_record_tiles()}]}
    with pytest.raises(RecordError, match="mode 'solo' cannot be replayed by the engine"):
        config_of(load_record(solo))


def test_recorder_writes_duel_rules():
    config = GameConfig(mode="duel", investigators=(3, 2), max_rounds=4)
    state = init(config, 1, seed=2)
    doc = record_to_dict(Recorder(config, state, 2).record())
    assert doc["rules"] == {"edition": "second", "mode": "duel", "players": 2, "rounds": 3,
                            "variants": [], "investigators": [3, 2]}


# --------------------------------------------------------------------------- CLI

def test_cli_play_and_replay_duel(capsys, tmp_path):
    path = tmp_path / "duel.json"
    assert main(["play", "--mode", "duel", "--seed", "3", "--quiet", "--record", str(path)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "P.I. — 2 players, duel, seed 3, agents deducer, deducer"
    record = load_record(path)
    scores = score_record(record)
    results = [line for line in out if line.startswith("Round ") and "(first player" not in line]
    assert len(results) == len(record.rounds) >= 3
    for r, line in enumerate(results):
        w = scores.round_winners[r]
        assert line == (f"Round {r + 1}: P{w} (deducer) wins" if w >= 0 else f"Round {r + 1}: draw")
    assert record.rules.mode == "duel"
    assert main(["replay", str(path), "--quiet"]) == 0
    rout = capsys.readouterr().out.splitlines()
    assert rout[-1].startswith("record checked: re-run by the engine")
    # replay labels the seats as play did, from the record's engine.agents (it printed "P0 wins")
    assert [l for l in rout if l.startswith("Round ") and "first player" not in l] == results
    assert rout[:-1] == out[1:-1]  # play's log but its header and "record written"


@pytest.mark.parametrize("argv,message", [
    (["play", "--mode", "duel", "--players", "3"],
     "pi-env play: error: argument --players: a duel is played by exactly 2 players (docs/rules.md §7), "
     "got 3 players (see 'pi-env play --help')\n"),
    (["play", "--mode", "duel", "--variant", "nick-of-time"],
     "pi-env play: error: argument --variant: variant 'nick-of-time' does not apply to a duel (the first "
     "solve attempt decides a duel round, docs/rules.md §7) (see 'pi-env play --help')\n"),
    (["play", "--max-rounds", "5"],
     "pi-env play: error: argument --max-rounds: the duel's safeguard, taken only with --mode duel "
     "(see 'pi-env play --help')\n"),
    (["play", "--mode", "duel", "--max-rounds", "2"],
     "pi-env play: error: argument --max-rounds: must be an integer 3..100 (at least the 3 regular rounds), "
     "got 2 (see 'pi-env play --help')\n"),
])
def test_cli_duel_errors(capsys, argv, message):
    with pytest.raises(SystemExit) as exc:
        main(argv)
    out, err = capsys.readouterr()
    assert exc.value.code == 2 and err == message and out == ""
