"""The variants of docs/rules.md §6, worked by hand on layout S of ``test_rules`` (engine and reference
in lockstep through ``test_rules.Table``): nick of time for 2..5 players, the fast game and the
beginner-friendly investigator counts; their records, scoring and command line.

Nick of time: once a player has solved this round, the tier advances at the end of every rotation
whether or not anyone solved; the rotation played at the last tier, ``min(3, P - 2)`` (tier k needs
k + 2 players), ends the round.
"""

from __future__ import annotations

import json

import pytest

from pi_env.apps.cli import main
from pi_env.engine import GameConfig, init, outcome
from pi_env.core.errors import RecordError
from pi_env.records.recorder import Recorder, replay_with_engine
from pi_env.records.record_file import load_record, record_to_dict
from pi_env.records.scoring import score_record
from helpers import play_game
from test_cli import load_record_tiles
from test_rules import Table, inv

NICK = ("nick-of-time",)


def ints(a) -> list[int]:
    return [int(v) for v in a]


# --------------------------------------------------------------------------- nick of time

@pytest.mark.parametrize("players,last_tier", [(2, 0), (3, 1), (4, 2), (5, 3)])
def test_nick_round_ends_after_the_rotation_at_the_last_tier(players, last_tier):
    """P0 solves in rotation 1; everyone else only takes clues. The tier is 1, 2, ... after
    rotations 1, 2, ...; the round ends at the end of rotation ``1 + last_tier``, after
    ``P + (P - 1) * last_tier`` turns (the solved P0 is skipped)."""
    t = Table(players=players, variants=NICK)
    t.act(t.correct())
    turns = players + (players - 1) * last_tier
    for k in range(1, turns):
        assert int(t.s.round[0]) == 0, k
        t.filler()
        if int(t.s.round[0]) == 0 and t.player == 1:  # a rotation just ended
            assert int(t.s.tier[0]) == int(t.s.rotation[0])
    assert int(t.s.round[0]) == 1 and int(t.s.turn[0]) == turns and not t.s.truncated[0]
    assert ints(t.s.score[0]) == [7] + [0] * (players - 1)


def test_nick_3_players_contrast_with_standard():
    """Rotation 1: clues. Rotation 2: P0 solves (7), clues -> tier 1. Rotation 3: clues -> at the
    end of the rotation at the last tier (1) the round ends; without the variant it goes on."""
    for variants, ends in ((NICK, True), ((), False)):
        t = Table(players=3, variants=variants)
        for _ in range(3):
            t.filler()
        assert int(t.s.tier[0]) == 0
        t.act(t.correct())
        t.filler(), t.filler()
        assert int(t.s.tier[0]) == 1 and int(t.s.rotation[0]) == 2
        t.filler(), t.filler()
        if ends:
            assert int(t.s.round[0]) == 1 and int(t.s.first_player[0]) == 1 and t.player == 1
            assert int(t.s.rotation[0]) == 0 and int(t.s.tier[0]) == 0
        else:
            assert int(t.s.round[0]) == 0 and int(t.s.rotation[0]) == 3 and int(t.s.tier[0]) == 1
        assert ints(t.s.score[0]) == [7, 0, 0]


def test_nick_3_players_solve_at_the_last_tier():
    t = Table(players=3, variants=NICK)
    t.act(t.correct()), t.filler(), t.filler()  # tier 1
    t.filler()  # P1
    assert t.act(t.correct()) == (1, -1)  # P2 at tier 1: 5
    assert int(t.s.round[0]) == 1 and ints(t.s.score[0]) == [7, 0, 5]


@pytest.mark.parametrize("edition", ["second", "first"])
def test_nick_5_players(edition):
    """Rotation 1: P0 solves (tier 0: 7). Rotation 2: nobody solves, the tier still advances (2).
    Rotation 3: P1 solves at tier 2 (3). Rotation 4: P2 solves at tier 3 (1); the round ends at
    the end of it. Without the variant P1 and P2 would get 5 and 3."""
    t = Table(players=5, edition=edition, variants=NICK)
    t.act(t.correct())
    for _ in range(4):
        t.filler()
    assert int(t.s.tier[0]) == 1
    for _ in range(4):
        t.filler()
    assert int(t.s.tier[0]) == 2 and int(t.s.rotation[0]) == 2
    assert t.act(t.correct()) == (1, -1)
    assert int(t.s.rewards[0, 1]) == 3
    t.filler(), t.filler(), t.filler()
    assert int(t.s.tier[0]) == 3
    assert t.act(t.correct()) == (1, -1)
    assert int(t.s.rewards[0, 2]) == 1
    t.filler()
    assert int(t.s.round[0]) == 0
    t.filler()  # P4 closes rotation 4
    assert int(t.s.round[0]) == 1 and not t.s.truncated[0]
    assert ints(t.s.score[0]) == [7, 3, 1, 0, 0]
    assert int(t.s.turn[0]) == 5 + 4 + 4 + 3


@pytest.mark.parametrize("variants,final_tier", [(NICK, 0), ((), 1)])
def test_nick_2_players_tier_stays_at_the_last_tier(variants, final_tier):
    """Last round, 2 players: P0 solves (7 + 2 = 9), P1 takes a clue; the round and the game end.
    With nick of time the tier stays at the last tier (0); otherwise the solve advances it."""
    t = Table(players=2, variants=variants, round_index=2)
    t.act(t.correct())
    t.filler()
    assert t.s.done[0] and int(t.s.tier[0]) == final_tier
    assert ints(t.s.score[0]) == [9, 0]


def test_nick_does_not_start_before_the_first_solve():
    t = Table(players=3, variants=NICK, max_rotations=4)
    for _ in range(9):
        t.filler()
    assert int(t.s.tier[0]) == 0 and int(t.s.rotation[0]) == 3 and int(t.s.round[0]) == 0
    t.filler(), t.filler(), t.filler()
    assert int(t.s.round[0]) == 1 and t.s.truncated[0]  # the safeguard, not the variant


def test_nick_wrong_attempts_do_not_start_it():
    """A wrong attempt is not a solve: the tier does not move (first edition, where wrong attempts
    do not end the round)."""
    t = Table(players=3, edition="first", variants=NICK)
    t.act(t.wrong()), t.filler(), t.filler()
    t.filler(), t.filler(), t.filler()
    assert int(t.s.tier[0]) == 0 and int(t.s.round[0]) == 0 and int(t.s.rotation[0]) == 2


# --------------------------------------------------------------------------- fast, beginner friendly

def test_fast_game_with_nick_of_time():
    """Fast + nick, 3 players. Round 1: P0 solves (7), round over after rotation 2. Round 2 (P1
    first): P1 solves (7 + 1 = 8); over after rotation 2; the game ends after 2 rounds."""
    t = Table(players=3, variants=("fast", "nick-of-time"))
    assert t.config.num_rounds == 2
    t.act(t.correct())
    for _ in range(4):
        t.filler()
    assert int(t.s.round[0]) == 1 and t.player == 1
    t.act(t.correct())
    for _ in range(4):
        t.filler()
    assert t.s.done[0] and int(t.s.round[0]) == 2 and ints(t.s.score[0]) == [7, 8, 0]


def test_beginner_investigators():
    config = GameConfig(num_players=4, investigators=(5, 5, 3, 3))
    assert ints(init(config, 2, seed=1).inv_left[1]) == [5, 5, 3, 3]
    t = Table(players=4, investigators=(5, 5, 3, 0))
    t.act(inv("Lakeside")), t.act(inv("Lakeside")), t.act(inv("Lakeside"))
    assert ints(t.s.inv_left[0]) == [4, 4, 2, 0]
    from pi_env.engine import legal_action_mask
    assert not legal_action_mask(t.s)[0, 36:50].any()  # P3 has none


def test_beginner_investigators_break_ties():
    """Last round, equal scores: the tiebreak is the unused tiles, so the counts given matter."""
    t = Table(players=4, investigators=(5, 5, 3, 3), max_rotations=1, round_index=2,
              score=[10, 10, 10, 10])
    while not t.s.done[0]:
        t.filler()
    out = outcome(t.s, t.config)
    assert out.ranks == (1, 1, 3, 3) and out.winners == (0, 1)


# --------------------------------------------------------------------------- records

@pytest.mark.parametrize("players,edition,seed", [(3, "second", 1), (5, "first", 2), (5, "second", 3),
                                                  (4, "second", 4)])
def test_nick_records_replay_and_score(players, edition, seed):
    config = GameConfig(num_players=players, edition=edition, variants=NICK + (("fast",) if seed == 4 else ()),
                        investigators=(5, 4, 3, 2, 1)[:players])
    states = []
    final, rec = play_game(config, ["deducer", "random", "deducer", "deducer", "random"][:players], seed,
                           on_step=lambda s, p, o, a: states.append(s.copy()))
    states.append(final.copy())
    record = load_record(json.loads(json.dumps(record_to_dict(rec.record()))))
    assert record.rules.variants == config.variants
    assert record.rules.investigators == config.investigators
    scores = score_record(record)
    assert scores.scores == tuple(ints(final.score[0]))
    assert scores.investigators_left == tuple(ints(final.inv_left[0]))
    assert scores.ranks == outcome(final, config).ranks
    seen = []
    replay_with_engine(record, on_step=lambda s: seen.append(s.copy()))
    assert len(seen) == len(states) - 1
    for i, s in enumerate(seen):
        assert s.equals(states[i + 1]), f"state after step {i} differs"


def _clue(p):
    return {"player": p, "clue": "Doc", "answer": "trace"}


def _solve(p, triple):
    return {"player": p, "solve": list(triple), "correct": True}


NICK_5P_EVENTS = (
    [_solve(0, ("Rusty", "Murder", "Lakeside"))] + [_clue(p) for p in (1, 2, 3, 4)]
    + [_clue(p) for p in (1, 2, 3, 4)]
    + [_solve(1, ("Pinky", "Forgery", "Downtown"))] + [_clue(p) for p in (2, 3, 4)]
    + [_solve(2, ("Earl", "Bank Job", "Skid Row"))] + [_clue(p) for p in (3, 4)]
)


def _doc(events, variants=NICK):
    return {"format": "pi-record/1", "rules": {"players": 5, "variants": list(variants)},
            "rounds": [{"first_player": 0, "tiles": load_record_tiles(), "events": events}]}


def test_nick_record_tiers_and_scores():
    scores = score_record(load_record(_doc(NICK_5P_EVENTS)))
    assert [i.tier for i in scores.events[0]] == [0] * 5 + [1] * 4 + [2] * 4 + [3] * 3
    assert [i.rotation for i in scores.events[0]] == [0] * 5 + [1] * 4 + [2] * 4 + [3] * 3
    assert scores.scores == (7, 3, 1, 0, 0)
    assert [i.delta for i in scores.events[0]][9] == 3
    plain = score_record(load_record(_doc(NICK_5P_EVENTS, variants=())))
    assert plain.scores == (7, 5, 3, 0, 0)  # tiers 0, 1, 2 without the variant


def test_nick_record_event_after_the_end():
    with pytest.raises(RecordError, match=r"round 1, event 16: the round ended at the end of rotation 4 "
                                          r"\(nick of time: the rotation at the last tier, 3, was played out\)"):
        score_record(load_record(_doc(NICK_5P_EVENTS + [_clue(3)])))


def test_recorder_writes_variants_and_investigators():
    config = GameConfig(num_players=4, variants=("fast", "nick-of-time"), investigators=(5, 5, 3, 3))
    doc = record_to_dict(Recorder(config, init(config, 1, seed=1), 1).record())
    assert doc["rules"] == {"edition": "second", "mode": "standard", "players": 4, "rounds": 2,
                            "variants": ["fast", "nick-of-time"], "investigators": [5, 5, 3, 3]}


# --------------------------------------------------------------------------- CLI

def test_cli_variants_and_investigators(capsys, tmp_path):
    path = tmp_path / "g.json"
    code = main(["play", "--players", "4", "--variant", "fast", "--variant", "nick-of-time",
                 "--investigators", "5,5,3,3", "--seed", "2", "--quiet", "--record", str(path)])
    out = capsys.readouterr().out.splitlines()
    assert code == 0
    assert out[0] == ("P.I. — 4 players, second edition, fast, nick-of-time, investigators 5,5,3,3, "
                      "seed 2, agents deducer, deducer, random, random")
    record = load_record(path)
    assert record.rules.variants == ("fast", "nick-of-time") and record.rules.rounds == 2
    assert record.rules.investigators == (5, 5, 3, 3) and len(record.rounds) == 2
    assert main(["replay", str(path), "--quiet"]) == 0
    assert capsys.readouterr().out.splitlines()[-1].startswith("record checked: re-run by the engine")


@pytest.mark.parametrize("argv,message", [
    (["play", "--investigators", "5,5,3"],
     "pi-env play: error: argument --investigators: investigators gives 3 counts for 4 players (one per "
     "player) (see 'pi-env play --help')\n"),
    (["play", "--players", "2", "--investigators", "5,5,3,3"],
     "pi-env play: error: argument --investigators: investigators gives 4 counts for 2 players (one per "
     "player) (see 'pi-env play --help')\n"),
    (["play", "--variant", "fast", "--variant", "fast"],
     "pi-env play: error: argument --variant: variants lists a variant twice: ('fast', 'fast') "
     "(see 'pi-env play --help')\n"),
])
def test_cli_rules_errors(capsys, argv, message):
    """GameConfig checks the options; the command line names the option at fault, as argparse does."""
    with pytest.raises(SystemExit) as exc:
        main(argv)
    out, err = capsys.readouterr()
    assert exc.value.code == 2 and err == message and out == ""


@pytest.mark.parametrize("argv,fragment", [
    (["play", "--investigators", "5,6,3,3"], "argument --investigators: investigator counts must be "
                                             "integers 0..5, got (5, 6, 3, 3)"),
    (["play", "--investigators", "5,x"], "argument --investigators: expected integers separated by commas, "
                                         "one per player (e.g. 5,5,3,3), got '5,x'"),
    (["play", "--investigators", "5,x"], "got '5,x'"),
    (["play", "--variant", "slow"], "argument --variant: invalid choice: 'slow'"),
    (["play", "--mode", "solo"], "argument --mode: invalid choice: 'solo'"),
])
def test_cli_argument_errors_are_one_line(capsys, argv, fragment):
    with pytest.raises(SystemExit) as exc:
        main(argv)
    out, err = capsys.readouterr()
    assert exc.value.code == 2 and err.count("\n") == 1 and fragment in err
