"""The public engine handle (issue #13 item 3): :class:`pi_env.engine.Engine` against the pure
functions, checked and unchecked steps, memory safety of any ``int64`` action, a configuration for
another player count refused, and no private engine import outside ``pi_env.engine``."""

from __future__ import annotations

import ast
from pathlib import Path

import numpy as np
import pytest

from pi_env.core.constants import (IN_DECK, IN_DISCARD, IN_FRONT, INVESTIGATE_BASE, MAX_INVESTIGATORS, NUM_ACTIONS,
                                   ON_DISPLAY, SOLVE_BASE)
from pi_env.core.errors import IllegalActionError, InvalidActionError, PIError
from pi_env.engine import (NO_ACTION, Engine, GameConfig, init, is_legal, legal_action_mask, observe, reset_done,
                           reset_games, sample_actions, step_inplace)

ROOT = Path(__file__).resolve().parents[1]

CONFIGS = [GameConfig(num_players=2), GameConfig(num_players=4, edition="first"),
           GameConfig(num_players=5, variants=("nick-of-time",), max_rotations=4),
           GameConfig(mode="duel", max_rotations=3, max_rounds=4),
           GameConfig(num_players=3, investigators=(0, 1, 5), variants=("fast",))]


def first_illegal(state, b: int) -> int:
    """An action that is illegal in game ``b``: a clue card not on the display."""
    return int(np.flatnonzero(state.card_place[b] != ON_DISPLAY)[0])


def test_handle_plays_the_games_of_the_pure_functions():
    cfg = GameConfig(num_players=3)
    eng = Engine(cfg, 6, seed=11)
    ref = init(cfg, 6, seed=11)
    assert eng.state.equals(ref)
    g1, g2 = np.random.default_rng(5), np.random.default_rng(5)
    obs, mask = np.zeros((6, eng.observation_size), np.int16), np.zeros((6, NUM_ACTIONS), np.int8)
    for _ in range(400):
        a = eng.sample_actions(g1)
        assert np.array_equal(a, sample_actions(ref, g2))
        assert not eng.step(a).any()
        step_inplace(ref, a, cfg)
        assert eng.state.equals(ref)
        assert eng.observe(1, out=obs) is obs and np.array_equal(obs, observe(ref, 1))
        assert eng.legal_action_mask(out=mask) is mask and np.array_equal(mask, legal_action_mask(ref))
        assert np.array_equal(eng.reset_done(), reset_done(ref, cfg))
        assert eng.state.equals(ref)
    # reset(seed) sets up init's games again, in the same arrays
    arrays = [id(x) for x in eng.state.arrays()]
    assert eng.reset(seed=3).equals(init(cfg, 6, seed=3))
    assert [id(x) for x in eng.state.arrays()] == arrays


def test_observe_per_game_players_and_bad_buffers():
    cfg = GameConfig(num_players=4)
    eng = Engine(cfg, 3, seed=0)
    players = np.array([3, 0, 2])
    assert np.array_equal(eng.observe(players), observe(eng.state, players))
    with pytest.raises(PIError, match="player must be 0..3"):
        eng.observe(4)
    with pytest.raises(PIError, match=r"player must be an integer or int\[3\]"):
        eng.observe(np.array([0, 1]))
    with pytest.raises(PIError, match="int16 array of shape"):
        eng.observe(0, out=np.zeros((3, eng.observation_size), np.float32))
    with pytest.raises(PIError, match="int8 array of shape"):
        eng.legal_action_mask(out=np.zeros((2, NUM_ACTIONS), np.int8))
    with pytest.raises(PIError, match="int64 array of shape"):
        eng.sample_actions(np.random.default_rng(0), out=np.zeros(2, np.int64))
    with pytest.raises(PIError, match="int64 array of shape"):
        sample_actions(eng.state, np.random.default_rng(0), out=np.zeros(2, np.int64))


def test_mask_without_solves_writes_only_clues_and_investigators():
    cfg = GameConfig(num_players=2)
    eng = Engine(cfg, 4, seed=2)
    eng.state.done[3] = True
    full = eng.legal_action_mask()
    head = np.full((4, NUM_ACTIONS), 7, np.int8)
    eng.legal_action_mask(out=head, solves=False)
    assert np.array_equal(head[:, :SOLVE_BASE], full[:, :SOLVE_BASE])
    assert (head[:, SOLVE_BASE:] == 7).all()  # untouched
    assert (full[:, SOLVE_BASE:] == 1).all() and (full[3] == 1).all()


def test_checked_step_raises_and_steps_nothing():
    cfg = GameConfig(num_players=3)
    eng = Engine(cfg, 4, seed=1)
    before = eng.state.copy()
    a = eng.sample_actions(np.random.default_rng(0))
    a[2] = first_illegal(eng.state, 2)
    with pytest.raises(IllegalActionError, match=rf"^game 2: action {a[2]} \(clue .*\) is not legal for player "):
        eng.step(a)
    assert eng.state.equals(before)
    a[2] = NUM_ACTIONS
    with pytest.raises(InvalidActionError, match=rf"^game 2: action {NUM_ACTIONS} is outside 0..1729$"):
        eng.step(a)
    a[2] = NO_ACTION
    with pytest.raises(InvalidActionError, match="game 2: action -1 is outside"):
        eng.step(a)
    with pytest.raises(InvalidActionError, match=r"shape \(4,\)"):
        eng.step(a[:3], check=False)  # the shape is checked on the unchecked path too
    with pytest.raises(InvalidActionError, match=r"shape \(4,\)"):
        eng.step(a.astype(float))
    assert eng.state.equals(before)


def test_unchecked_illegal_action_is_a_flagged_no_op():
    cfg = GameConfig(num_players=2)
    eng = Engine(cfg, 3, seed=4)
    g = np.random.default_rng(1)
    for _ in range(5):
        eng.step(eng.sample_actions(g))
    before = eng.state.copy()
    a = eng.sample_actions(g)
    a[0], a[2] = NO_ACTION, first_illegal(eng.state, 2)
    rejected = eng.step(a, check=False)
    assert rejected.tolist() == [True, False, True] and not rejected.flags.writeable
    assert eng.rejected is rejected
    after = eng.state
    for b in (0, 2):
        one, two = before.take(b), after.take(b)
        assert (two.rewards == 0).all()
        one.rewards[:] = 0
        assert one.equals(two), f"game {b} changed"
    assert int(after.turn[1]) == int(before.turn[1]) + 1
    # the pure function flags the same way
    st = before.copy()
    flags = np.ones(3, bool)
    step_inplace(st, a, cfg, check=False, rejected=flags)
    assert flags.tolist() == [True, False, True] and st.equals(after)


def state_invariants(state, config) -> None:
    """Invariants every reachable state keeps (docs/rules.md §3–§5)."""
    P = config.num_players
    assert ((state.current_player >= 0) & (state.current_player < P)).all()
    assert ((state.first_player >= 0) & (state.first_player < P)).all()
    assert np.isin(state.card_place, [IN_DECK, ON_DISPLAY, IN_DISCARD, IN_FRONT]).all()
    assert ((state.card_place == ON_DISPLAY).sum(axis=1) <= 9).all()
    assert ((state.deck_size >= 0) & (state.deck_size <= 36)).all()
    assert ((state.inv_count >= 0) & (state.inv_count <= MAX_INVESTIGATORS)).all()
    assert ((state.inv_left >= 0) & (state.inv_left <= MAX_INVESTIGATORS)).all()
    for b in range(state.batch_size):
        n = int(state.deck_size[b])
        deck = state.deck[b, :n]
        assert (state.card_place[b, deck] == IN_DECK).all() and len(set(deck.tolist())) == n
        assert int((state.card_place[b] == IN_DECK).sum()) == n
        for i in range(P):
            k = int(state.inv_count[b, i])
            used = state.inv_district[b, i, :k]
            assert ((used >= 0) & (used < 14)).all() and len(set(used.tolist())) == k
            assert (state.inv_district[b, i, k:] == -1).all()
    assert (state.rng != 0).all()
    assert ((state.round >= 0) & (state.round <= config.round_limit)).all()
    assert (state.rotation <= config.max_rotations).all()


@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: f"{c.num_players}p-{c.mode}-{c.edition}")
def test_fuzz_unchecked_int64_actions(config):
    """Random int64 actions (negative, huge, out of range, illegal, legal) on the unchecked path:
    nothing is written out of bounds, exactly the illegal ones are rejected and leave their game
    as it was, the legal ones play exactly as the checked path, and the invariants hold."""
    B = 32
    eng = Engine(config, B, seed=7)
    g = np.random.default_rng(123)
    edges = np.array([-1, -2, -(2**63), 2**63 - 1, NUM_ACTIONS, NUM_ACTIONS + 1, 2**31, -(2**31),
                      SOLVE_BASE - 1, INVESTIGATE_BASE, 255, 256, 65536 + 3], dtype=np.int64)
    rejected_total = stepped_total = 0
    for t in range(600):
        st = eng.state
        before = st.copy()
        kind = g.integers(4, size=B)
        a = eng.sample_actions(g)
        wild = g.integers(-(2**63), 2**63 - 1, size=B, dtype=np.int64, endpoint=True)
        a = np.where(kind == 0, wild, a)
        a = np.where(kind == 1, edges[g.integers(edges.size, size=B)], a)
        a = np.where(kind == 2, g.integers(0, SOLVE_BASE, size=B), a)  # often illegal clues/districts
        live = ~st.done
        legal = is_legal(st, a)
        rejected = eng.step(a, check=False).copy()
        assert np.array_equal(rejected, live & ~legal)
        for b in np.flatnonzero(rejected):
            one, two = before.take(b), st.take(b)
            assert (two.rewards == 0).all()
            one.rewards[:] = 0
            assert one.equals(two)
        ok = np.flatnonzero(live & legal)
        if ok.size:
            sub = before.take(ok)
            step_inplace(sub, a[ok], config)  # the checked path
            assert sub.equals(st.take(ok))
        rejected_total += int(rejected.sum())
        stepped_total += ok.size
        state_invariants(st, config)
        eng.reset_done()
    assert rejected_total > 1000 and stepped_total > 5000


def test_a_config_for_another_player_count_is_refused():
    st = init(GameConfig(num_players=4), 2, seed=0)
    other = GameConfig(num_players=5)
    a = sample_actions(st, np.random.default_rng(0))
    before = st.copy()
    for call in (lambda: step_inplace(st, a, other), lambda: step_inplace(st, a, other, check=False),
                 lambda: reset_done(st, other), lambda: reset_games(st, other, np.ones(2, bool))):
        with pytest.raises(PIError, match="^config is for 5 players but the state has 4$"):
            call()
    assert st.equals(before)
    with pytest.raises(PIError, match="config must be a GameConfig"):
        Engine("4p", 2)


def test_reset_games_starts_new_games_in_the_chosen_slots():
    cfg = GameConfig(num_players=2)
    eng = Engine(cfg, 3, seed=9)
    g = np.random.default_rng(0)
    for _ in range(30):
        eng.step(eng.sample_actions(g))
    before = eng.state.copy()
    eng.reset_games(np.array([False, True, False]))
    assert eng.state.take([0, 2]).equals(before.take([0, 2]))
    assert int(eng.state.turn[1]) == 0 and int(before.turn[1]) > 0
    assert eng.state.rng[1] != before.rng[1]  # the slot's stream went on
    with pytest.raises(PIError, match=r"which must be a bool array of shape \(3,\)"):
        eng.reset_games(np.array([0, 1, 0]))


# --- no private engine import outside pi_env.engine ---------------------------------------------

SCANNED = ("pi_env", "agents", "solvers", "experiments", "benchmarks")
ENGINE = ROOT / "pi_env" / "engine"


def private_engine_imports(path: Path) -> list[str]:
    """``pi_env.engine`` private modules or names imported (or reached as attributes) by ``path``."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    bad = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("pi_env.engine"):
            parts = node.module.split(".")
            names = [a.name for a in node.names]
            if any(p.startswith("_") for p in parts) or any(n.startswith("_") for n in names):
                bad.append(f"line {node.lineno}: from {node.module} import {', '.join(names)}")
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("pi_env.engine") and any(p.startswith("_") for p in alias.name.split(".")):
                    bad.append(f"line {node.lineno}: import {alias.name}")
    return bad


def test_no_private_engine_import_outside_the_engine():
    seen, offenders = set(), []
    for top in SCANNED:
        for path in sorted((ROOT / top).rglob("*.py")):
            real = path.resolve()
            if real in seen or real.is_relative_to(ENGINE):
                continue
            seen.add(real)
            offenders += [f"{path.relative_to(ROOT)} {b}" for b in private_engine_imports(path)]
    assert len(seen) > 50
    assert offenders == []


def test_the_scan_finds_a_private_import(tmp_path):
    f = tmp_path / "x.py"
    f.write_text("from pi_env.engine import _kernels as K\nfrom pi_env.engine.observe import _offsets\n"
                 "import pi_env.engine._kernels\nfrom pi_env.engine import Engine\n")
    assert private_engine_imports(f) == ["line 1: from pi_env.engine import _kernels",
                                         "line 2: from pi_env.engine.observe import _offsets",
                                         "line 3: import pi_env.engine._kernels"]
