"""pi_env.core.rules, the one home of the answer and scoring rules (docs/rules.md §4–§6): the functions
with values worked by hand, and the proof that changing a rule there changes it everywhere.

The proof (:func:`test_a_cap_changed_in_the_rules_module_changes_every_caller`) copies the package
source to a temporary folder, edits the second edition's cap from 21 to 15 in the copy's
``pi_env/core/rules.py`` only, and plays in a subprocess (its own numba cache) the scripted game of
:func:`scripted_game_values`: the engine, the record scorer, the solver's hint and greedy's
valuation all follow the new cap. (The plain-Python twin of the engine would disagree: it is not
run there.)

The scripted game (3 players, second edition, seed 5): on its turn every player names its own case,
except player 2 on its first turn of round 1, which names a wrong one. So in each round every
player attempts in rotation 0 and the round ends there (docs/rules.md §5: at most one player has
not attempted); the correct solves share tier 0 and score ``7 + r − 1`` in round ``r``:

=========  ===========  ===========  ===========  ===========================
           round 1      round 2      round 3      final (cap 21 / cap 15)
=========  ===========  ===========  ===========  ===========================
player 0   +7           +8 (15)      +9           21 (+6) / 15 (+0)
player 1   +7           +8 (15)      +9           21 (+6) / 15 (+0)
player 2   −2           +8 (6)       +9           15 (+9) / 15 (+9)
=========  ===========  ===========  ===========  ===========================

Solve points 24, 24, 17 and penalty points 0, 0, 2 whatever the cap. At player 0's first turn of
round 3 its score is 15 and a correct solve is worth 9 points: greedy's gain is ``min(9, 21 − 15)
= 6`` (cap 15: 0) and its value of naming a case of probability 1/2 ``6/2 − 2/2 = 2`` (cap 15:
−1); the hint for player 0 before round 3's first event names one of the 11 · 9 · 13 = 1287 cases
disjoint from the case it holds (uniform, ``p = 1/1287``): expected points ``p · 6 − (1 − p) · 2``
(cap 15: ``−(1 − p) · 2``).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from pi_env.core import constants, rules
from pi_env.core.board import DAYTIME
from pi_env.core.constants import CASE_TRIPLES, FIRST_EDITION, NOTHING, SECOND_EDITION, SPOT, TRACE, case_index

SEED = 5
P_HINT = 1.0 / 1287  # player 0's chance to name its case with no answers (module docstring)


def scripted_game_values() -> dict:
    """Play the scripted game of the module docstring with the ``pi_env`` on ``sys.path`` and return
    what every caller of the scoring rules makes of it (JSON-ready)."""
    import pi_env
    from pi_env.agents.greedy import assess
    from pi_env.core import rules as the_rules
    from pi_env.core.constants import SOLVE_BASE, case_index as index
    from pi_env.engine import GameConfig, init, legal_action_mask, observe, step_inplace
    from pi_env.records.recorder import Recorder
    from pi_env.records.scoring import score_record
    from pi_env.solvers import record_hint

    cfg = GameConfig(num_players=3)
    st = init(cfg, seed=SEED)
    rec = Recorder(cfg, st, SEED)
    greedy = None
    while not st.done[0]:
        p = int(st.current_player[0])
        if int(st.round[0]) == 2 and p == 0 and greedy is None:  # player 0's first turn of round 3
            o = assess(observe(st, 0)[0], legal_action_mask(st)[0], 3, cfg.board).outlook
            greedy = {"score": int(o.score), "points": int(o.points(0)), "penalty": int(o.penalty()),
                      "solve_value": float(o.solve_value(0.5))}
        case = index(*(int(v) for v in st.case[0, p]))
        if int(st.round[0]) == 0 and p == 2:
            case = (case + 1) % 1680  # a wrong solve
        step_inplace(st, np.array([SOLVE_BASE + case], dtype=np.int64), cfg)
        rec.after_step(st)
    record = rec.record()
    scored = score_record(record)
    h = record_hint(record, player=0, round_index=2, after_event=-1)
    return {"package": os.path.dirname(pi_env.__file__), "cap": the_rules.SCORE_CAP,
            "engine": {"score": st.score[0].tolist(), "solve_points": st.solve_points[0].tolist(),
                       "penalty": st.penalty[0].tolist()},
            "record": {"round_points": [list(r) for r in scored.round_points], "scores": list(scored.scores)},
            "hint": {"p_correct": h.p_correct, "points": h.points, "expected_points": h.expected_points,
                     "gain": h.context.gain(0), "score": h.context.score},
            "greedy": greedy}


def _expected(cap: int) -> dict:
    final = [min(cap, 24), min(cap, 24), 15]
    gain = min(9, cap - 15)
    return {"engine": {"score": final, "solve_points": [24, 24, 17], "penalty": [0, 0, 2]},
            "record": {"round_points": [[7, 7, -2], [8, 8, 8], [final[0] - 15, final[1] - 15, 9]],
                       "scores": final},
            "hint": {"points": 9, "gain": gain, "score": 15},
            "greedy": {"score": 15, "points": gain, "penalty": 2, "solve_value": 0.5 * gain - 0.5 * 2}}


def _check(values: dict, cap: int) -> None:
    want = _expected(cap)
    assert values["cap"] == cap
    assert values["engine"] == want["engine"]
    assert values["record"] == want["record"]
    assert values["greedy"] == want["greedy"]
    h = values["hint"]
    assert {k: h[k] for k in ("points", "gain", "score")} == want["hint"]
    assert h["p_correct"] == pytest.approx(P_HINT, rel=1e-12)
    assert h["expected_points"] == pytest.approx(P_HINT * want["hint"]["gain"] - (1 - P_HINT) * 2, rel=1e-12)


def test_the_scripted_game_with_the_rules_as_they_are():
    _check(scripted_game_values(), 21)


def _run_with_edited_rules(tmp_path: Path, old: str, new: str, count: int, function: str) -> dict:
    """Copy the package to ``tmp_path``, replace the ``count`` occurrences of ``old`` by ``new`` in the
    copy's ``pi_env/core/rules.py`` only, and return what ``function`` of this module gives in a
    subprocess that imports the copy (its own numba cache)."""
    package = Path(rules.__file__).resolve().parents[1]  # pi_env (its agents, solvers, experiments are links)
    copy = tmp_path / "src" / "pi_env"
    shutil.copytree(package, copy, symlinks=False, ignore=shutil.ignore_patterns("__pycache__", "*.nbi", "*.nbc"))
    rules_py = copy / "core" / "rules.py"
    text = rules_py.read_text()
    assert text.count(old) == count
    rules_py.write_text(text.replace(old, new))
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(copy.parent), str(Path(__file__).parent)]),
               NUMBA_CACHE_DIR=str(tmp_path / "numba_cache"), PI_ENV_COMPILE_NOTICE="0")
    code = f"import json, test_rules_module as t; print(json.dumps(t.{function}()))"
    run = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=env, capture_output=True, text=True,
                         timeout=1800)
    assert run.returncode == 0, run.stderr[-3000:]
    values = json.loads(run.stdout.strip().splitlines()[-1])
    assert Path(values["package"]).resolve() == copy.resolve()  # the copy ran, not the installed package
    return values


def test_a_cap_changed_in_the_rules_module_changes_every_caller(tmp_path):
    """The module docstring: cap 21 → 15 in the copy's rules module only; engine, record scoring,
    hint and greedy all give the cap-15 values."""
    values = _run_with_edited_rules(tmp_path, "SCORE_CAP: int = 21\n", "SCORE_CAP: int = 15\n", 1,
                                    "scripted_game_values")
    _check(values, 15)


def tier_game_values() -> dict:
    """Play the tier game with the ``pi_env`` on ``sys.path`` (3 players, second edition, seed
    :data:`SEED`): in every round the round's first player names its own case on its first turn,
    the others take their first legal query on their first turn and name their own cases on their
    second. So in round ``r`` (1-based) the first player solves at tier 0 (``7 + r − 1``) and the
    others in rotation 1 at tier 1 (``5 + r − 1``; docs/rules.md §5), and the round ends after
    rotation 1. Returns what the engine, the record scorer and the solver's turn context make of it
    (JSON-ready): the context is player ``first + 1``'s before its second turn of round 1."""
    import pi_env
    from pi_env.core.constants import SOLVE_BASE, case_index as index
    from pi_env.engine import GameConfig, init, legal_action_mask, step_inplace
    from pi_env.records.recorder import Recorder
    from pi_env.records.scoring import score_record
    from pi_env.solvers import turn_context

    cfg = GameConfig(num_players=3)
    st = init(cfg, seed=SEED)
    rec = Recorder(cfg, st, SEED)
    turns = [0, 0, 0]
    rnd = 0
    while not st.done[0]:
        if int(st.round[0]) != rnd:
            rnd, turns = int(st.round[0]), [0, 0, 0]
        p = int(st.current_player[0])
        if p == int(st.first_player[0]) or turns[p] > 0:
            action = SOLVE_BASE + index(*(int(v) for v in st.case[0, p]))
        else:
            action = int(np.flatnonzero(legal_action_mask(st)[0][:SOLVE_BASE])[0])
        turns[p] += 1
        step_inplace(st, np.array([action], dtype=np.int64), cfg)
        rec.after_step(st)
    record = rec.record()
    scored = score_record(record)
    asker = (record.rounds[0].first_player + 1) % 3
    ctx = turn_context(record, player=asker, round_index=0, after_event=2)
    return {"package": os.path.dirname(pi_env.__file__),
            "first_players": [r.first_player for r in record.rounds],
            "engine": {"score": st.score[0].tolist(), "solve_points": st.solve_points[0].tolist()},
            "record": {"round_points": [list(r) for r in scored.round_points], "scores": list(scored.scores),
                       "tiers": [[e.tier for e in r] for r in scored.events]},
            "turns": {"player": asker, "tier": ctx.tier, "gain": ctx.gain(ctx.tier)}}


def _tier_expected(advances: bool) -> dict:
    """:func:`tier_game_values` with the rules as they are (``advances``) or with a tier that never
    advances (every correct solve at tier 0: ``7 + r − 1``, then the cap 21)."""
    if advances:  # first players 2, 0, 1, each once: 7 + r - 1 there, 5 + r - 1 in the other rounds
        points = [[5, 5, 7], [8, 6, 6], [7, 9, 7]]
        tiers = [0, 0, 0, 1, 1]
    else:  # 7, 8, 9 for everyone: 15 after round 2, then +9 capped at 21
        points = [[7, 7, 7], [8, 8, 8], [6, 6, 6]]
        tiers = [0, 0, 0, 0, 0]
    final = [sum(r[i] for r in points) for i in range(3)]
    solve_points = [20, 20, 20] if advances else [24, 24, 24]
    return {"first_players": [2, 0, 1],
            "engine": {"score": final, "solve_points": solve_points},
            "record": {"round_points": points, "scores": final, "tiers": [tiers] * 3},
            "turns": {"player": 0, "tier": 1 if advances else 0, "gain": 5 if advances else 7}}


def test_the_tier_game_with_the_rules_as_they_are():
    values = tier_game_values()
    del values["package"]
    assert values == _tier_expected(True)


def test_a_tier_rule_changed_in_the_rules_module_changes_every_caller(tmp_path):
    """The tier never advances in the copy's rules module only (``tier_after_rotation`` returns the
    tier it is given, docs/rules.md §5 changed): the engine, the record scorer and the solver's turn
    context all score every correct solve at tier 0."""
    values = _run_with_edited_rules(tmp_path, "        return tier + 1\n", "        return tier\n", 2,
                                    "tier_game_values")
    del values["package"]
    assert values == _tier_expected(False)


# --- the functions, by hand (docs/rules.md §4.1-§4.3, §5, §6) ----------------------------------


def test_points_and_last_tier():
    assert [rules.last_tier(n) for n in (2, 3, 4, 5)] == [0, 1, 2, 3]
    assert [rules.tier_points(k, 2, 5, SECOND_EDITION) for k in range(5)] == [9, 7, 5, 3, 0]
    assert [rules.tier_points(k, 2, 5, FIRST_EDITION) for k in range(5)] == [7, 5, 3, 1, 0]
    assert [rules.tier_points(k, 0, 3, SECOND_EDITION) for k in range(3)] == [7, 5, 0]  # no tier 2 with 3
    assert rules.edition_code("second") == SECOND_EDITION and rules.edition_code("first") == FIRST_EDITION
    with pytest.raises(ValueError, match="unknown edition 'third'"):
        rules.edition_code("third")


def test_scores_gains_and_losses():
    assert [rules.bounded_score(s, SECOND_EDITION) for s in (-7, -5, 0, 21, 24)] == [-5, -5, 0, 21, 21]
    assert [rules.bounded_score(s, FIRST_EDITION) for s in (-7, 24)] == [-7, 24]
    assert [rules.solve_gain(s, 9, SECOND_EDITION) for s in (0, 15, 21)] == [9, 6, 0]
    assert rules.solve_gain(21, 9, FIRST_EDITION) == 9
    assert [rules.wrong_solve_loss(s, SECOND_EDITION) for s in (0, -4, -5)] == [2, 1, 0]
    assert rules.wrong_solve_loss(-5, FIRST_EDITION) == 2
    assert rules.score_after(19, 7, 99, 0, SECOND_EDITION) == 21
    assert rules.score_after(-4, -2, 99, 0, SECOND_EDITION) == -5
    assert rules.score_after(0, 7, 12, 4, FIRST_EDITION) == 8  # solve points minus penalty points
    assert rules.first_edition_score(12, 4) == 8
    assert rules.score_range(SECOND_EDITION, 3, 60) == (-5, 21)
    assert rules.score_range(FIRST_EDITION, 2, 60) == (-240, 14)
    scores = np.array([[-4, 15], [21, 0]], dtype=np.int16)
    assert rules.bounded_scores(scores + 7, SECOND_EDITION).tolist() == [[3, 21], [21, 7]]
    assert rules.solve_gains(np.array([0, 15, 21]), np.array([9, 9, 9]), SECOND_EDITION).tolist() == [9, 6, 0]
    assert rules.wrong_solve_losses(np.array([0, -4, -5]), SECOND_EDITION).tolist() == [2, 1, 0]
    # the plain-Python callers get Python ints from the compiled rules
    assert type(rules.solve_gain(3, 7, SECOND_EDITION)) is int


def test_round_end_rules():
    assert rules.finished_for_round_end(True, False, SECOND_EDITION)
    assert not rules.finished_for_round_end(True, False, FIRST_EDITION)
    assert rules.finished_for_round_end(True, True, FIRST_EDITION)
    assert [rules.round_ends_after_rotation(k) for k in (0, 1, 2)] == [True, True, False]
    assert [rules.nick_of_time_ends_round(t, 4) for t in (1, 2)] == [False, True]


def test_the_duel_investigators_after_a_round():
    """docs/rules.md §7: 2 more tiles before each later round, 1 for the round's winner, at most 5."""
    after = rules.duel_investigators_after_round
    assert [after(k, False) for k in (0, 2, 3, 4, 5)] == [2, 4, 5, 5, 5]
    assert [after(k, True) for k in (0, 2, 3, 4, 5)] == [1, 3, 4, 5, 5]
    assert rules.DUEL_START_INVESTIGATORS == 2


def test_the_tier_after_a_rotation():
    """docs/rules.md §5: one tier higher after a rotation with a correct solve; §6 nick of time:
    after every rotation once anyone has solved this round, staying at the last tier (2 with 4
    players)."""
    after = rules.tier_after_rotation
    assert [after(1, s, s, False, 4) for s in (False, True)] == [1, 2]
    assert after(1, False, True, False, 4) == 1  # an earlier solve: no nick of time, no advance
    assert [after(t, False, True, True, 4) for t in (0, 1, 2)] == [1, 2, 2]
    assert after(0, False, False, True, 4) == 0  # nick of time starts with the first correct solve
    assert after(3, True, True, False, 4) == 4  # §5 alone has no last tier (the round ends first)
    tiers = np.array([0, 1, 2, 2], dtype=np.int64)
    this = np.array([True, False, False, True])
    ever = np.array([True, True, False, True])
    assert rules.tiers_after_rotation(tiers, this, ever, False, 4).tolist() == [1, 1, 2, 3]
    assert rules.tiers_after_rotation(tiers, this, ever, True, 4).tolist() == [1, 2, 2, 2]


def test_answers():
    """Layout: suspect/evidence ``i`` in district ``i``; daytime board (docs/rules.md §2)."""
    td = np.array(list(range(12)) + list(range(10)) + list(range(14)), dtype=np.int64)
    adj = DAYTIME.adjacency
    row = CASE_TRIPLES[case_index(0, 0, 3)]  # Shorty, Murder, Trocadero
    assert rules.clue_answer(td, adj, row, 0) == SPOT  # Shorty
    assert rules.clue_answer(td, adj, row, 22 + 0) == TRACE  # Lakeside touches Trocadero
    assert rules.clue_answer(td, adj, row, 22 + 13) == NOTHING  # Skid Row
    row = CASE_TRIPLES[case_index(0, 1, 2)]  # Shorty (Lakeside), Mob Killing (Forest Park), Little Italy
    assert rules.investigate_answer(td, adj, row, 0, np.zeros(3, dtype=np.bool_)) == (1, 2)
    assert rules.investigate_answer(td, adj, row, 0, np.array([True, False, False])) == (0, 2)
    dtile = np.array([[d if d < 12 else -1, 12 + d if d < 10 else -1, 22 + d] for d in range(14)])
    spot, trace = np.zeros(36, dtype=np.bool_), np.zeros(36, dtype=np.bool_)
    trace[12] = True  # the player's trace on Murder (district 0)
    assert [rules.investigator_suppressed(dtile, spot, trace, 0, t) for t in range(3)] == [False, True, False]
    assert not rules.investigator_suppressed(dtile, spot, trace, 12, 0)  # a blank is never suppressed
    assert rules.is_case(CASE_TRIPLES[1000], 1000) and not rules.is_case(CASE_TRIPLES[1000], 1001)


def test_the_scoring_numbers_live_in_the_rules_module_only():
    """One home: constants does not re-export them (that made constants and rules import each other)."""
    assert (rules.TIER_POINTS, rules.WRONG_SOLVE_PENALTY, rules.SCORE_CAP, rules.SCORE_FLOOR) == ((7, 5, 3, 1), 2, 21, -5)
    for name in ("TIER_POINTS", "WRONG_SOLVE_PENALTY", "SCORE_CAP", "SCORE_FLOOR"):
        assert not hasattr(constants, name)


def test_legality_rules_by_hand():
    """docs/rules.md §4.1-§4.2: a card is takeable only on the display; an investigator needs one left
    and none of the player's own in the district this round."""
    from pi_env.core.constants import IN_DECK, IN_DISCARD, IN_FRONT, ON_DISPLAY

    assert [rules.clue_card_takeable(p) for p in (IN_DECK, ON_DISPLAY, IN_DISCARD, IN_FRONT)] == [
        False, True, False, False]
    assert [rules.investigator_placeable(left, there) for left, there in
            ((0, False), (1, False), (5, False), (1, True), (0, True))] == [False, True, True, False, False]


_SAMPLING_UNDER_ANOTHER_RULE = r"""
import json
import numpy as np
from pi_env.engine import _kernels
from pi_env.core.constants import IN_DECK, ON_DISPLAY

# another rule of docs/rules.md §4.2 (a second investigator in the same district allowed)
_kernels.investigator_placeable = lambda inv_left, own_in_district: inv_left > 0
card_place = np.full((1, 36), IN_DECK, dtype=np.int8)
card_place[0, [3, 20, 30]] = ON_DISPLAY
inv_count = np.array([[1, 0]], dtype=np.int8)
inv_district = np.zeros((1, 2, 5), dtype=np.int8)
inv_district[0, 0, 0] = 13
inv_left = np.array([[2, 2]], dtype=np.int8)
current_player, done = np.zeros(1, dtype=np.int8), np.zeros(1, dtype=np.bool_)
mask = np.zeros((1, 1730), dtype=np.int8)
_kernels._mask_row(0, mask, True, current_player, done, card_place, inv_count, inv_district, inv_left)
n = 3 + 14 + 1680
sampled = sorted({int(_kernels._sample_legal(0, (k + 0.5) / n, current_player, done, card_place, inv_count,
                                             inv_district, inv_left)) for k in range(n)})
print(json.dumps({"mask": np.flatnonzero(mask[0, :50]).tolist(), "sampled": [a for a in sampled if a < 50]}))
"""


def test_sampling_follows_the_legality_rule():
    """The engine's uniform sampling of a legal action counted the investigator actions itself
    (``14 - placed`` while one is left), restating docs/rules.md §4.2 beside
    :func:`pi_env.core.rules.investigator_placeable`: under another rule of placing the count and
    the mask disagreed and a legal district was never drawn. Plain Python (JIT off) with the rule
    replaced: every legal action of the mask is drawn, nothing else."""
    env = dict(os.environ, NUMBA_DISABLE_JIT="1", PI_ENV_COMPILE_NOTICE="0")
    run = subprocess.run([sys.executable, "-c", _SAMPLING_UNDER_ANOTHER_RULE], env=env, capture_output=True,
                         text=True, timeout=600)
    assert run.returncode == 0, run.stderr[-2000:]
    got = json.loads(run.stdout.strip().splitlines()[-1])
    assert got["mask"] == [3, 20, 30] + list(range(36, 50))
    assert got["sampled"] == got["mask"]


def test_sampling_draws_the_kth_legal_action_of_the_mask():
    """Compiled, with the rules as they are: in 150 turns of 32 games of 4 players that take clues
    and place investigators at random (players with investigators placed, and with none left,
    included), the sampled action is the ``floor(u · count)``-th legal action of the mask."""
    from pi_env.engine import GameConfig, init, legal_action_mask, sample_actions, step_inplace

    cfg = GameConfig(num_players=4)
    st = init(cfg, batch_size=32, seed=11)
    rng, seen = np.random.default_rng(3), set()
    for turn in range(150):
        u = np.random.default_rng(turn).random(32)  # the variates sample_actions draws
        actions = sample_actions(st, np.random.default_rng(turn))
        mask = legal_action_mask(st)
        play = np.empty(32, dtype=np.int64)
        for b in range(32):
            legal = np.flatnonzero(mask[b])
            if not st.done[b]:
                assert actions[b] == legal[int(u[b] * legal.size)], (turn, b)
                p = st.current_player[b]
                seen.add((int(st.inv_count[b, p]) > 0, int(st.inv_left[b, p]) == 0))
            head = legal[legal < 50]
            play[b] = rng.choice(head) if head.size else legal[0]
        step_inplace(st, play, cfg)
    assert seen == {(False, False), (False, True), (True, False), (True, True)}
