"""Parity of the batched numba engine with the plain-Python reference (docs/contributing.md §C5).

Seeded rollouts are stepped through :mod:`pi_env.engine` (batched) and one
:class:`~pi_env.engine.reference.ReferenceGame` per game in lockstep; after every step every field
(public and hidden: generator state, deck order, cases) and the answer must agree exactly, and the
legal actions must agree. A subprocess runs the same rollouts with ``NUMBA_DISABLE_JIT=1`` (the
kernels as plain Python over numpy) and must produce the same digest of all states as the JIT run.

The rollout policy mixes :func:`pi_env.engine.sample_actions` (uniform over legal actions, so mostly
wrong solves) with clue-heavy choices (so decks run out and are reshuffled, and cards are taken
again after they return), investigators, and occasional correct solves, in proportions that vary
per configuration; small ``max_rotations`` exercise the safeguard.
"""

from __future__ import annotations

import hashlib

import numpy as np
import pytest

from pi_env.core.constants import (IN_DISCARD, INVESTIGATE_BASE, NUM_ACTIONS, NUM_DISTRICTS, ON_DISPLAY,
                              SOLVE_BASE, case_index)
from pi_env.engine import GameConfig, init, legal_action_mask, sample_actions, step_inplace
from pi_env.engine.reference import ReferenceGame

from helpers import script_digest

# (config, batch, mix) where mix = (clue, repeat-a-marked-card, investigator, correct solve);
# the rest of the probability goes to engine.sample_actions.
CASES = [
    ("2p-second", dict(num_players=2), 8, (0.80, 0.05, 0.05, 0.03)),
    ("2p-second-clues", dict(num_players=2), 6, (0.90, 0.05, 0.03, 0.015)),
    ("3p-first", dict(num_players=3, edition="first"), 6, (0.80, 0.05, 0.06, 0.02)),
    ("3p-second-clues", dict(num_players=3), 6, (0.88, 0.05, 0.04, 0.02)),
    ("4p-second-fast-inv", dict(num_players=4, variants=("fast",), investigators=(5, 3, 4, 0)), 8,
     (0.75, 0.05, 0.10, 0.03)),
    ("4p-first", dict(num_players=4, edition="first"), 4, (0.82, 0.05, 0.05, 0.03)),
    ("5p-first-inv", dict(num_players=5, edition="first", investigators=(1, 2, 3, 4, 5)), 4,
     (0.85, 0.05, 0.05, 0.01)),
    ("5p-second", dict(num_players=5), 8, (0.70, 0.05, 0.10, 0.05)),
    ("5p-second-clues", dict(num_players=5, investigators=(3, 4, 5, 4, 3)), 4,
     (0.88, 0.05, 0.04, 0.02)),
    ("3p-second-rot2", dict(num_players=3, max_rotations=2), 8, (0.85, 0.05, 0.05, 0.02)),
    ("4p-first-rot1-fast", dict(num_players=4, edition="first", max_rotations=1, variants=("fast",)),
     8, (0.60, 0.05, 0.10, 0.10)),
    ("2p-first-rot5", dict(num_players=2, edition="first", max_rotations=5), 8,
     (0.85, 0.05, 0.05, 0.02)),
    ("5p-second-rot7", dict(num_players=5, max_rotations=7), 6, (0.90, 0.05, 0.03, 0.01)),
    ("3p-second-uniform", dict(num_players=3), 8, (0.0, 0.0, 0.0, 0.0)),
    ("4p-first-uniform-fast", dict(num_players=4, edition="first", variants=("fast",)), 4,
     (0.0, 0.0, 0.0, 0.0)),
    # duel (docs/rules.md §7): correct solves by either seat, extra turns, sudden death, safeguards
    ("duel", dict(mode="duel"), 12, (0.80, 0.05, 0.08, 0.06)),
    ("duel-solvers", dict(mode="duel"), 12, (0.30, 0.02, 0.08, 0.45)),
    ("duel-fast-rot3-maxr4", dict(mode="duel", variants=("fast",), max_rotations=3, max_rounds=4),
     12, (0.85, 0.03, 0.05, 0.04)),
    ("duel-first-inv", dict(mode="duel", edition="first", investigators=(5, 0)), 8,
     (0.80, 0.05, 0.10, 0.05)),
    ("duel-uniform", dict(mode="duel", max_rounds=3), 8, (0.0, 0.0, 0.0, 0.0)),
    # nick of time (docs/rules.md §6)
    ("2p-nick", dict(num_players=2, variants=("nick-of-time",)), 8, (0.85, 0.05, 0.05, 0.04)),
    ("3p-nick", dict(num_players=3, variants=("nick-of-time",)), 8, (0.85, 0.05, 0.05, 0.04)),
    ("3p-first-nick-fast", dict(num_players=3, edition="first", variants=("fast", "nick-of-time")),
     6, (0.85, 0.05, 0.05, 0.04)),
    ("5p-nick", dict(num_players=5, variants=("nick-of-time",)), 6, (0.88, 0.04, 0.04, 0.03)),
    ("5p-first-nick-inv", dict(num_players=5, edition="first", variants=("nick-of-time",),
                               investigators=(5, 5, 3, 3, 4)), 6, (0.88, 0.04, 0.04, 0.03)),
    ("4p-nick-rot4", dict(num_players=4, variants=("nick-of-time",), max_rotations=4), 6,
     (0.85, 0.05, 0.05, 0.03)),
]


def choose_actions(state, gen: np.random.Generator, mix) -> np.ndarray:
    """One action per game: a seeded mixture of policies, all reading only the engine state."""
    clue, repeat, inv, correct = mix
    out = sample_actions(state, gen)
    u = gen.random(state.batch_size)
    pick = gen.random(state.batch_size)
    for b in range(state.batch_size):
        if state.done[b]:
            continue
        p = int(state.current_player[b])
        display = np.nonzero(state.card_place[b] == ON_DISPLAY)[0]
        r = u[b]
        if r < clue:
            if len(display):
                out[b] = display[int(pick[b] * len(display))]
        elif r < clue + repeat:
            marked = [x for x in display if state.spot[b, p, x] or state.trace[b, p, x]]
            if marked:
                out[b] = marked[int(pick[b] * len(marked))]
            elif len(display):
                out[b] = display[int(pick[b] * len(display))]
        elif r < clue + repeat + inv:
            used = set(int(d) for d in state.inv_district[b, p, :state.inv_count[b, p]])
            free = [d for d in range(NUM_DISTRICTS) if d not in used]
            if state.inv_left[b, p] > 0 and free:
                out[b] = INVESTIGATE_BASE + free[int(pick[b] * len(free))]
        elif r < clue + repeat + inv + correct:
            out[b] = SOLVE_BASE + case_index(*(int(v) for v in state.case[b, p]))
    return out


def engine_view(state, b: int) -> dict:
    """Every field of game ``b`` as plain Python values, in the reference's terms."""
    P = state.num_players
    place = state.card_place[b]
    n = int(state.deck_size[b])
    invs = []
    for i in range(P):
        k_n = int(state.inv_count[b, i])
        invs.append([(int(state.inv_district[b, i, k]),
                      (int(state.inv_answer[b, i, k, 0]), int(state.inv_answer[b, i, k, 1])),
                      (int(state.inv_markers[b, i, k, 0]), int(state.inv_markers[b, i, k, 1])),
                      tuple(bool(v) for v in state.inv_suppressed[b, i, k]))
                     for k in range(k_n)])
        assert (state.inv_district[b, i, k_n:] == -1).all()
    return dict(
        rng=int(state.rng[b]), round=int(state.round[b]), first_player=int(state.first_player[b]),
        current_player=int(state.current_player[b]), rotation=int(state.rotation[b]),
        tier=int(state.tier[b]), solved_this_rotation=bool(state.solved_this_rotation[b]),
        done=bool(state.done[b]), truncated=bool(state.truncated[b]), turn=int(state.turn[b]),
        tile_district=[int(v) for v in state.tile_district[b]],
        district_tile=[[int(v) for v in row] for row in state.district_tile[b]],
        case=[[int(v) for v in row] for row in state.case[b]],
        display=sorted(int(x) for x in np.nonzero(place == ON_DISPLAY)[0]),
        discard=sorted(int(x) for x in np.nonzero(place == IN_DISCARD)[0]),
        card_place=[int(v) for v in place],
        deck=[int(v) for v in state.deck[b, :n]],
        front=[sorted(int(x) for x in np.nonzero(state.front[b, i])[0]) for i in range(P)],
        spot=[sorted(int(x) for x in np.nonzero(state.spot[b, i])[0]) for i in range(P)],
        trace=[sorted(int(x) for x in np.nonzero(state.trace[b, i])[0]) for i in range(P)],
        investigators=invs,
        inv_left=[int(v) for v in state.inv_left[b]],
        attempted=[bool(v) for v in state.attempted[b]],
        solved=[bool(v) for v in state.solved[b]],
        solved_case=[int(v) for v in state.solved_case[b]],
        failed=[sorted(int(c) for c in np.nonzero(state.failed[b, i])[0]) for i in range(P)],
        score=[int(v) for v in state.score[b]],
        solve_points=[int(v) for v in state.solve_points[b]],
        penalty=[int(v) for v in state.penalty[b]],
        rewards=[int(v) for v in state.rewards[b]],
        last_action=int(state.last_action[b]),
        last_answer=(int(state.last_answer[b, 0]), int(state.last_answer[b, 1])),
        last_player=int(state.last_player[b]),
        extra_turn=bool(state.extra_turn[b]), round_winner=int(state.round_winner[b]),
    )


def reference_view(g: ReferenceGame) -> dict:
    return dict(
        rng=g.rng, round=g.round, first_player=g.first_player, current_player=g.current_player,
        rotation=g.rotation, tier=g.tier, solved_this_rotation=g.solved_this_rotation,
        done=g.done, truncated=g.truncated, turn=g.turn, tile_district=list(g.tile_district),
        district_tile=[list(r) for r in g.district_tile], case=[list(c) for c in g.case],
        display=sorted(g.display), discard=sorted(g.discard), card_place=g.card_place,
        deck=list(g.deck), front=[sorted(f) for f in g.front], spot=[sorted(s) for s in g.spot],
        trace=[sorted(t) for t in g.trace],
        investigators=[[(inv.district, tuple(inv.answer), tuple(inv.markers), tuple(inv.suppressed))
                        for inv in invs] for invs in g.investigators],
        inv_left=list(g.inv_left), attempted=list(g.attempted), solved=list(g.solved),
        solved_case=list(g.solved_case), failed=[sorted(f) for f in g.failed],
        score=list(g.score), solve_points=list(g.solve_points), penalty=list(g.penalty),
        rewards=list(g.rewards), last_action=g.last_action, last_answer=tuple(g.last_answer),
        last_player=g.last_player, extra_turn=g.extra_turn, round_winner=g.round_winner,
    )


def assert_same(state, b: int, ref: ReferenceGame, where: str) -> None:
    ev, rv = engine_view(state, b), reference_view(ref)
    diff = [k for k in ev if ev[k] != rv[k]]
    assert not diff, f"{where}: fields differ: " + "; ".join(
        f"{k}: engine {ev[k]!r} reference {rv[k]!r}" for k in diff)


def seeds_for(name: str, batch: int) -> np.ndarray:
    """Full 64-bit generator states, odd (the engine ORs explicit states with 1 anyway)."""
    words = [int(hashlib.sha256(f"{name}/{k}".encode()).hexdigest()[:16], 16) | 1
             for k in range(batch)]
    return np.array(words, dtype=np.uint64)


def lockstep(config: GameConfig, seeds: np.ndarray, mix, policy_seed: int,
             check_mask_every: int = 1, max_steps: int = 5000, check_every_game: int = 1) -> dict:
    """Run both paths to the end; returns counters of what the games exercised.

    Every game's reference is stepped every step; the fields of game ``b`` are compared every step
    when ``b % check_every_game == 0`` and for all games at the end."""
    B = len(seeds)
    state = init(config, B, seed=seeds.copy())
    refs = [ReferenceGame(config, int(s)) for s in seeds]
    for b in range(B):
        assert_same(state, b, refs[b], f"game {b} after init")
    gen = np.random.default_rng(policy_seed)
    stats = dict(steps=0, reshuffles=0, truncated=0, short_display=0, repeats=0, solves=0,
                 marker_moves=0, extra_turns=0, duel_draws=0, sudden_death=0, nick_ends=0)
    steps = 0
    while not state.done.all():
        steps += 1
        assert steps < max_steps, "rollout did not terminate"
        actions = choose_actions(state, gen, mix)
        if steps % check_mask_every == 0:
            mask = legal_action_mask(state)
            for b in range(0, B, check_every_game):
                if not state.done[b]:
                    legal = refs[b].legal_actions()
                    assert np.nonzero(mask[b])[0].tolist() == legal, f"game {b} step {steps}: mask"
        prev_deck = state.deck_size.copy()
        prev_marks = [(state.spot[b] | state.trace[b]).copy() for b in range(B)]
        prev_markers = state.inv_markers.sum()
        prev_round = state.round.copy()
        prev_tier = state.tier.copy()
        step_inplace(state, actions, config)
        for b in range(B):
            was_done = refs[b].done
            answer = refs[b].step(int(actions[b]))
            where = f"game {b} step {steps} action {int(actions[b])}"
            if b % check_every_game == 0:
                assert_same(state, b, refs[b], where)
            if was_done:
                assert answer is None and not state.rewards[b].any()
                continue
            stats["steps"] += 1
            assert answer == (int(state.last_answer[b, 0]), int(state.last_answer[b, 1])), where
            a = int(actions[b])
            if a < INVESTIGATE_BASE and prev_deck[b] == 0 and state.deck_size[b] > 0:
                stats["reshuffles"] += 1
            if a < INVESTIGATE_BASE and prev_marks[b][int(state.last_player[b]), a]:
                stats["repeats"] += 1
            if a >= SOLVE_BASE and answer[0] == 1:
                stats["solves"] += 1
            if (state.card_place[b] == ON_DISPLAY).sum() < 9 and not state.done[b]:
                stats["short_display"] += 1
            stats["extra_turns"] += int(state.extra_turn[b])
            if config.mode == "duel" and refs[b].round != prev_round[b]:
                stats["duel_draws"] += int(state.round_winner[b] == -1)
                stats["sudden_death"] += int(refs[b].round > config.num_rounds)
            if (config.nick_of_time and refs[b].round != prev_round[b] and not refs[b].truncated
                    and 0 < int(prev_tier[b]) == min(3, config.num_players - 2)):
                stats["nick_ends"] += 1
        stats["marker_moves"] += int(prev_markers - state.inv_markers.sum() > 0)
    stats["truncated"] = int(state.truncated.sum())
    # the finished games: stepping again changes nothing
    before = state.copy()
    step_inplace(state, np.zeros(B, dtype=np.int64), config)
    for b in range(B):
        refs[b].step(0)
        assert_same(state, b, refs[b], f"game {b} after the end")
    assert not state.rewards.any()
    for f in ("score", "round", "turn", "rng", "card_place"):
        assert np.array_equal(getattr(before, f), getattr(state, f))
    return stats


TOTALS: dict[str, int] = {}


@pytest.mark.parametrize("name,kwargs,batch,mix", CASES, ids=[c[0] for c in CASES])
def test_lockstep(name, kwargs, batch, mix):
    config = GameConfig(**kwargs)
    stats = lockstep(config, seeds_for(name, batch), mix, policy_seed=len(name))
    for k, v in stats.items():
        TOTALS[k] = TOTALS.get(k, 0) + v
    if kwargs.get("max_rotations", 60) <= 2 and mix[0] > 0.5:
        assert stats["truncated"] > 0


def test_rollouts_exercise_the_rules():
    """The parity rollouts above reach reshuffles, repeated cards, marker moves and the safeguard."""
    if not TOTALS.get("steps"):  # run alone: collect the counters here
        for name, kwargs, batch, mix in CASES:
            test_lockstep(name, kwargs, batch, mix)
    for k in ("reshuffles", "repeats", "truncated", "solves", "marker_moves", "short_display",
              "extra_turns", "duel_draws", "sudden_death", "nick_ends"):
        assert TOTALS[k] > 0, (k, TOTALS)


def test_threaded_build_matches_reference(monkeypatch):
    """The threaded (prange) builds play the reference's games: every family's threshold set to 1
    game, so that the default dispatch picks them at B = 256."""
    from pi_env.core import _config
    for family, threshold in _config.PARALLEL_MIN_BATCH.items():
        if threshold is not None:
            monkeypatch.setitem(_config.PARALLEL_MIN_BATCH, family, 1)
    B = 256
    config = GameConfig(num_players=4, max_rotations=6)
    stats = lockstep(config, seeds_for("threaded", B), (0.85, 0.05, 0.05, 0.02), policy_seed=1,
                     check_mask_every=7, check_every_game=17)
    assert stats["steps"] > 20 * B


def test_long_game_without_solves_hits_the_safeguard():
    """Clue-only play in the first edition never ends a round: the safeguard does, every round."""
    config = GameConfig(num_players=4, edition="first", max_rotations=25)
    stats = lockstep(config, seeds_for("clue-only", 2), (0.9, 0.1, 0.0, 0.0), policy_seed=3,
                     check_mask_every=5)
    assert stats["reshuffles"] > 0 and stats["truncated"] == 2


def test_reference_matches_engine_seed_handling():
    """``init`` with an int seed ORs each SeedSequence word with 1; the reference does the same."""
    config = GameConfig(num_players=3)
    words = np.random.SeedSequence(42).generate_state(2, dtype=np.uint64)
    state = init(config, 2, seed=42)
    for b in range(2):
        assert_same(state, b, ReferenceGame(config, int(words[b])), f"game {b}")


def test_reference_rejects_bad_actions():
    from pi_env.core.errors import IllegalActionError, InvalidActionError
    g = ReferenceGame(GameConfig(num_players=2), 5)
    with pytest.raises(InvalidActionError):
        g.step(NUM_ACTIONS)
    with pytest.raises(InvalidActionError):
        g.step(-1)
    hidden = next(x for x in range(36) if x not in g.display)
    with pytest.raises(IllegalActionError):
        g.step(hidden)


# --------------------------------------------------------------------------- JIT off vs JIT on

def digest_rollouts() -> str:
    """sha256 over every field of every state (and every mask) of the CASES rollouts, engine only."""
    h = hashlib.sha256()
    for name, kwargs, batch, mix in CASES:
        config = GameConfig(**kwargs)
        state = init(config, batch, seed=seeds_for(name, batch))
        gen = np.random.default_rng(len(name))
        for a in state.arrays():
            h.update(np.ascontiguousarray(a).tobytes())
        while not state.done.all():
            step_inplace(state, choose_actions(state, gen, mix), config)
            for a in state.arrays():
                h.update(np.ascontiguousarray(a).tobytes())
            h.update(legal_action_mask(state).tobytes())
    return h.hexdigest()


def test_jit_off_matches_jit_on():
    code = "import test_parity; print(test_parity.digest_rollouts())"
    assert script_digest(code, jit=False, timeout=120) == digest_rollouts()


if __name__ == "__main__":  # pragma: no cover - used by hand
    print(digest_rollouts())
