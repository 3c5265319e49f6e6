"""The ``"compact-v4"`` encoding of learned models: ``"compact-v3"`` followed by
the decision block, the figures the ``greedy`` agent decides on, written by greedy's batch kernel
(:func:`pi_env.agents.greedy_batch.decision_block`). Every entry equals the per-game Python greedy's
figures (:func:`pi_env.agents.greedy.assess` and :func:`~pi_env.agents.greedy.greedy_decision`,
an independent path) on many seeded positions at 2 to 5 players; at 3 to 5 players the joint block the
decision kernel writes equals :func:`pi_env.solvers.compact.encode_joint_block` bit for bit; the state
and observation paths agree entry by entry; nothing of the player's own case shows (docs/rules.md §9);
a tiny training run on it writes a model that plays as ``learned:PATH``."""

from __future__ import annotations

import numpy as np
import pytest

from pi_env import encodings as E
from pi_env.agents.greedy import assess, best_query, denial_weight_for, greedy_decision, q_after
from pi_env.agents.learned import encode_observations, encode_state, encoding_size
from pi_env.core.constants import INVESTIGATE_BASE, SOLVE_BASE
from pi_env.core.errors import PIError
from pi_env.engine import GameConfig, init, legal_action_mask, observe, sample_actions, step_inplace
from pi_env.agents.greedy_batch import decision_block, greedy_actions, query_legal
from helpers import need_extra

_BLOCK = E.layouts.DECISION_BLOCK_LAYOUT


def _positions(num_players: int, edition: str, games: int, seed: int, turns: int, explore: float,
               cheat: float = 0.0):
    """Seeded games played by greedy (``greedy_actions`` without memory) with a share ``explore`` of
    random queries and a share ``cheat`` of correct solves (the mover names its true case: solved
    seats, tier rises); yields ``(config, state, live rows)`` before every turn."""
    cfg = GameConfig(num_players=num_players, edition=edition)
    st = init(cfg, games, seed=seed)
    rng = np.random.default_rng(seed)
    for _ in range(turns):
        live = np.flatnonzero(~st.done)
        if live.size == 0:
            return
        yield cfg, st, live
        a = np.zeros(games, dtype=np.int64)
        p = st.current_player[live].astype(np.int64)
        a[live] = greedy_actions(st.take(live), cfg.board, p, edition)
        rand = sample_actions(st, rng)
        swap = (rng.random(games) < explore) & (rand < SOLVE_BASE)
        a[swap] = rand[swap]
        right = np.flatnonzero((rng.random(games) < cheat) & ~st.done)
        mover = st.current_player[right].astype(np.int64)
        c = st.case[right, mover].astype(np.int64)
        a[right] = SOLVE_BASE + c[:, 0] * 140 + c[:, 1] * 14 + c[:, 2]
        step_inplace(st, a, cfg)


def _reference_row(obs, mask, num_players, board, edition):
    """The decision block of one position from the Python greedy (module docstring)."""
    s = assess(obs, mask, num_players, board, edition=edition)
    o = s.outlook
    p = s.p_best
    b = best_query(s, denial_weight_for(num_players))
    q = q_after(s.answers[b], s.probs) if b is not None else p
    choice = greedy_decision(s)
    row = np.zeros(E.layouts.DECISION_BLOCK_SIZE, dtype=np.float32)
    row[0] = p
    row[1] = o.solve_value(p) * 0.1
    row[2] = o.wait_value(q) * 0.1
    row[3] = choice >= SOLVE_BASE
    row[4] = o.points(o.tier) * 0.1
    row[5] = o.penalty() * 0.1
    row[6] = s.inv_allowed / 5
    row[7] = o.pending
    for j in o.after_me:
        if not o.solved[j] and not o.idle[j] and o.pmf[j, 0] > 0:
            row[8 + j - 1] = o.pmf[j, 0]
    row[12:12 + num_players - 1] = o.idle[1:]
    row[16 + min(choice, SOLVE_BASE)] = 1.0
    return row, choice


@pytest.mark.parametrize("num_players,edition,seed,rows,solves", [
    (2, "second", 1, 136, 6), (2, "first", 2, 134, 5), (3, "second", 3, 269, 13), (3, "first", 4, 282, 21),
    (4, "second", 5, 326, 29), (4, "first", 6, 373, 45), (5, "second", 7, 432, 51), (5, "first", 8, 420, 45)])
def test_the_block_is_the_python_greedys_figures(num_players, edition, seed, rows, solves):
    """Every entry of the block equal (float32, bit for bit) to the Python greedy's figures on every
    position of 6 seeded games (greedy's play with a fifth of random queries and a tenth of correct
    solves, both editions); its
    choice is ``greedy_actions(..., previous=None)`` of the player to move. The positions include
    solves, clues and investigators chosen, a positive ``E_wait``, a ``pending`` tier rise, seats
    with a hazard (the last later seat's too: relative seat 4 at 5 players) and idle seats."""
    n = solved = 0
    kinds = set()
    seen = np.zeros(5, dtype=np.int64)  # e_wait > 0, pending, a hazard, an idle seat (next test), the last seat's hazard
    for cfg, st, live in _positions(num_players, edition, 6, seed, 400, 0.2, 0.1):
        sub = st.take(live)
        p = sub.current_player.astype(np.int64)
        got = decision_block(sub, cfg.board, p, edition)
        obs, mask = observe(sub, p), legal_action_mask(sub)
        assert np.array_equal(query_legal(sub, p), mask[:, :SOLVE_BASE] == 1)
        acts = greedy_actions(sub, cfg.board, p, edition)
        for k in range(live.size):
            want, choice = _reference_row(obs[k], mask[k], num_players, cfg.board, edition)
            assert got[k].tolist() == want.tolist(), (k, got[k] - want)
            seen += [got[k, 2] > 0, got[k, 7] > 0, got[k, 8:12].any(), got[k, 12:16].any(),
                     got[k, 8 + num_players - 2] > 0]
            assert choice == acts[k]
            solved += choice >= SOLVE_BASE
            kinds.add("solve" if choice >= SOLVE_BASE else "inv" if choice >= INVESTIGATE_BASE else "clue")
        n += live.size
    assert (n, solved) == (rows, solves) and kinds == {"solve", "inv", "clue"}
    assert (seen[[0, 1, 2, 4]] > 0).all()
    assert not got[:, 8 + num_players - 1:12].any() and not got[:, 12 + num_players - 1:16].any()


@pytest.mark.parametrize("num_players", [2, 3, 4, 5])
def test_idle_seats_as_the_python_greedy_reads_them(num_players):
    """Seats that have not acted once their turn has passed (a fresh deal shown in rotation 1) are
    idle: no hazard, the ``idle`` flags, as the Python greedy reads them."""
    cfg = GameConfig(num_players=num_players)
    st = init(cfg, 4, seed=num_players)
    st.rotation[:] = 1
    p = st.current_player.astype(np.int64)
    got = decision_block(st, cfg.board, p)
    obs, mask = observe(st, p), legal_action_mask(st)
    for k in range(4):
        want, _ = _reference_row(obs[k], mask[k], num_players, cfg.board, "second")
        assert got[k].tolist() == want.tolist()
    assert got[:, 12:12 + num_players - 1].all() and not got[:, 12 + num_players - 1:16].any()
    assert not got[:, 8:12].any()


@pytest.mark.parametrize("num_players", [2, 3, 4, 5])
def test_state_path_equals_observation_path_for_every_seat(num_players):
    """``encode_state`` (training) and ``encode_observations`` (agents) give equal rows entry by entry
    for every seat, to move or not, on positions of seeded games at several depths; the first
    ``compact-v3`` entries are compact-v3's."""
    cfg = GameConfig(num_players=num_players)
    checked = 0
    for depth, (c, st, live) in enumerate(_positions(num_players, "second", 8, 40 + num_players, 48, 0.3)):
        if depth % 6:
            continue
        sub = st.take(live)
        for p in range(num_players):
            players = np.full(live.size, p)
            x = encode_state("compact-v4", sub, cfg, players)
            assert x.shape == (live.size, encoding_size("compact-v4", num_players))
            assert np.array_equal(x, encode_observations("compact-v4", observe(sub, players), cfg))
            n3 = encoding_size("compact-v3", num_players)
            assert np.array_equal(x[:, :n3], encode_state("compact-v3", sub, cfg, players))
            checked += live.size
    assert checked >= 8 * 6 * num_players


@pytest.mark.parametrize("num_players", [2, 3, 4, 5])
def test_the_block_never_shows_the_cases_the_player_cannot_know(num_players):
    """Changing, in the hidden state, the player's own case and every case but the one it holds
    (seat 1's), every public answer kept: its rows (the whole encoding) do not change, while
    changing the held case does change some (the test can fail)."""
    cfg = GameConfig(num_players=num_players)
    rng = np.random.default_rng(num_players)
    rows = moved = 0
    for depth, (c, st, live) in enumerate(_positions(num_players, "second", 8, 60 + num_players, 40, 0.3)):
        if depth % 5:
            continue
        sub = st.take(live)
        for p in range(num_players):
            players = np.full(live.size, p)
            x = encode_state("compact-v4", sub, cfg, players)
            other = sub.take(np.arange(live.size))
            for j in [0] + list(range(2, num_players)):
                q = (p + j) % num_players
                other.case[:, q] = (other.case[:, q] + rng.integers(1, 9, size=(live.size, 3))) % np.array([12, 10, 14])
            assert not np.array_equal(other.case, sub.case)
            assert np.array_equal(encode_state("compact-v4", other, cfg, players), x)
            held = sub.take(np.arange(live.size))
            h = (p + 1) % num_players
            held.case[:, h] = (held.case[:, h] + 1) % np.array([12, 10, 14])
            moved += int((encode_state("compact-v4", held, cfg, players) != x).any())
            rows += live.size
    assert rows >= 8 * 8 * num_players and moved > 0


@pytest.mark.parametrize("num_players", [2, 4])
def test_paired_games_differing_in_the_own_case_look_the_same(num_players):
    """Paired games (the own case replaced, same actions): equal rows until an answer differs."""
    from test_rl_train import run_pair

    reasons = [run_pair(num_players, seed, p, "compact-v4") for seed in (1, 2) for p in range(num_players)]
    assert "answer differs" in reasons


def _joint_block_by_count_joint(state, board, players):
    """The joint block of every row from the seats' sets (:func:`pi_env.solvers.own_info.seat_case_masks`)
    and one :func:`pi_env.solvers.joint.count_joint` per row (its own table, not the kernels' counts):
    marginals ``sum of counts / total`` of exact integer sums, ``log2(positive) / log2(1680)``, the
    largest count over the total; a row without a joint deal all zeros."""
    import math

    from pi_env.solvers.joint import count_joint
    from pi_env.solvers.own_info import seat_case_masks

    P = state.num_players
    masks, sizes = seat_case_masks(state, board, players)
    out = np.zeros((state.batch_size, 38), dtype=np.float32)
    for b in range(state.batch_size):
        if not sizes[b].all():
            continue
        counts = count_joint(masks[b, 0], [masks[b, j] for j in range(2, P)])
        cases = np.flatnonzero(counts)
        total = int(counts.sum())
        if total == 0:
            continue
        c = counts[cases]
        for x, v in enumerate(np.bincount(cases // 140, c, 12).astype(np.int64)):
            out[b, x] = int(v) / total
        for x, v in enumerate(np.bincount((cases // 14) % 10, c, 10).astype(np.int64)):
            out[b, 12 + x] = int(v) / total
        for x, v in enumerate(np.bincount(cases % 14, c, 14).astype(np.int64)):
            out[b, 22 + x] = int(v) / total
        out[b, 36] = math.log2(cases.size) / math.log2(1680)
        out[b, 37] = int(c.max()) / total
    return out


@pytest.mark.parametrize("num_players,seed,steps,every,positions", [(3, 81, 48, 6, 8), (4, 82, 48, 6, 8),
                                                                    (5, 83, 48, 6, 8)])
def test_the_joint_block_from_the_decision_kernel_is_encode_joint_blocks(num_players, seed, steps, every, positions):
    """At 3 to 5 players the joint block :func:`decision_block` writes (``joint=``, the counts of greedy's
    posterior: at 5 players the triples of seats 2, 3 and 4) equals
    :func:`pi_env.solvers.compact.encode_joint_block` bytewise and an independent per-row
    :func:`pi_env.solvers.joint.count_joint` block exactly, for every seat, on positions of random
    play with right and wrong solves (later rounds, failed solves); ``compact-v4``'s joint entries are
    that block. The buffer's old contents (NaN) are all overwritten."""
    from test_own_info import random_positions

    from pi_env.solvers.compact import encode_joint_block

    cfg = GameConfig(num_players=num_players)
    n1 = E.layouts.compact_size(num_players)
    rows = later = 0
    for step, st in enumerate(random_positions(cfg, 8, seed, steps)):
        if step % every:
            continue
        later += int((st.round > 0).sum())
        for p in range(num_players):
            players = np.full(8, p)
            jb = np.full((8, 38), np.nan, dtype=np.float32)
            decision_block(st, cfg.board, players, joint=jb)
            assert jb.tobytes() == encode_joint_block(st, cfg, players).tobytes()
            assert jb.tobytes() == _joint_block_by_count_joint(st, cfg.board, players).tobytes()
            assert (jb[:, 37] > 0).all()
            x = encode_state("compact-v4", st, cfg, players)
            assert x[:, n1:n1 + 38].tobytes() == jb.tobytes()
            rows += 8
    assert rows == positions * 8 * num_players and later > 0


def test_the_layout_and_registry():
    """67 entries after compact-v3 (8 scalars, hazard [4], idle [4], greedy_choice [51]); version 4;
    2–5 players (6: :func:`test_six_players_are_refused_in_check_player_encodings_words`)."""
    spec = E.get("compact-v4")
    assert spec.version == 4 and spec.dtype == "float32" and not spec.solo
    assert "compact-v4" in E.learned_names()
    for P in (2, 3, 4, 5):
        lay = spec.layout(P)
        n3 = E.get("compact-v3").size(P)
        assert spec.size(P) == n3 + 67 == 421 + 8 * P
        assert list(lay)[:len(E.get("compact-v3").layout(P))] == list(E.get("compact-v3").layout(P))
        assert {k: lay[k] for k in _BLOCK} == {k: (n3 + s, shape) for k, (s, shape) in _BLOCK.items()}
    assert list(_BLOCK) == ["p_correct", "e_now", "e_wait", "solve_now", "solve_points", "wrong_penalty",
                            "inv_allowed", "pending", "hazard", "idle", "greedy_choice"]


def test_six_players_are_refused_in_check_player_encodings_words():
    """The registry's layout and size of compact-v4 at 6 players (and so ``encoding_size``) are the
    one-line PIError of :func:`pi_env.agents.learned.check_player_encoding`: one rule,
    :func:`pi_env.encodings.registry.check_players` (every player encoding: 2–5 players). 2–5 players
    answer (compact-v3's 370, 378, 386, 394 entries + 67)."""
    from pi_env.agents.learned import ENCODING_PLAYERS, check_player_encoding

    line = "the compact-v4 encoding is computed for 2, 3, 4 and 5 players, not 6"
    spec = E.get("compact-v4")
    for ask in (lambda: spec.layout(6), lambda: spec.size(6), lambda: encoding_size("compact-v4", 6),
                lambda: check_player_encoding("compact-v4", 6), lambda: E.registry.check_players("compact-v4", 6)):
        with pytest.raises(PIError) as exc:
            ask()
        assert str(exc.value) == line
    for name, P in (("compact-v4", 1), ("compact-v2", 6), ("flat-v1", 0)):
        with pytest.raises(PIError) as exc:
            check_player_encoding(name, P)
        assert str(exc.value) == f"the {name} encoding is computed for 2, 3, 4 and 5 players, not {P}"
    assert [spec.size(P) for P in (2, 3, 4, 5)] == [encoding_size("compact-v4", P) for P in (2, 3, 4, 5)] == [
        437, 445, 453, 461]
    assert list(spec.layout(5).items())[-1] == ("greedy_choice", (461 - 51, (51,)))
    assert list(spec.layout(2))[:3] == list(E.get("compact-v3").layout(2))[:3]
    for P in (2, 3, 4, 5):
        check_player_encoding("compact-v4", P)  # no error
    assert ENCODING_PLAYERS is E.registry.ENCODING_PLAYERS and ENCODING_PLAYERS == {}


def test_five_players_and_bad_buffers():
    """At 5 players ``encode_state`` writes the decision block of :func:`decision_block` after
    compact-v3 (461 entries); a wrong ``out`` or a ``joint`` buffer at 2 players is a one-line PIError."""
    cfg = GameConfig(num_players=5)
    st = init(cfg, 2, seed=1)
    x = encode_state("compact-v4", st, cfg, np.zeros(2, dtype=np.int64))
    assert x.shape == (2, 461)
    assert np.array_equal(x[:, 394:], decision_block(st, cfg.board, np.zeros(2, dtype=np.int64)))
    assert np.array_equal(x[:, :394], encode_state("compact-v3", st, cfg, np.zeros(2, dtype=np.int64)))
    cfg2 = GameConfig(num_players=2)
    with pytest.raises(PIError, match=r"^out must be float32\[2, 67\]"):
        decision_block(init(cfg2, 2, seed=1), cfg2.board, np.zeros(2, dtype=np.int64),
                       out=np.zeros((2, 66), np.float32))
    with pytest.raises(PIError, match=r"^joint must be float32\[2, 38\] with contiguous rows, writable, at 3 to 5 "
                                      r"players, got float32\[2, 38\] at 2 players$"):
        decision_block(init(cfg2, 2, seed=1), cfg2.board, np.zeros(2, dtype=np.int64),
                       joint=np.zeros((2, 38), np.float32))
    with pytest.raises(PIError, match=r"^joint must be float32\[2, 38\] .* got float32\[2, 37\] at 5 players$"):
        decision_block(st, cfg.board, np.zeros(2, dtype=np.int64), joint=np.zeros((2, 37), np.float32))


def test_odd_batches_and_bad_inputs():
    """Batches of 0 and 1 rows give ``float32[0 or 1, size]`` (both paths, the 2- to 4-player
    encodings); seats that are not ``int[B]`` of ``0..P-1``, a read-only or wrongly sized ``out`` and
    observations of another width are one-line PIErrors (not an IndexError, a numba typing error
    or a silent read past the end of ``players``)."""
    cfg = GameConfig(num_players=3)
    st = init(cfg, 2, seed=1)
    none = st.take(np.arange(0))
    for name, size in (("compact-v2", 278), ("compact-v3", 378), ("compact-v4", 445)):
        assert encoding_size(name, 3) == size
        assert encode_state(name, none, cfg, np.zeros(0, np.int64)).shape == (0, size)
        obs = observe(st, np.zeros(2, np.int64))
        assert encode_observations(name, obs[:0], cfg).shape == (0, size)
        one = encode_observations(name, obs[1], cfg)
        assert one.shape == (1, size) and np.array_equal(one[0], encode_state(name, st, cfg, np.zeros(2, np.int64))[1])
    assert decision_block(none, cfg.board, np.zeros(0, np.int64)).shape == (0, 67)
    for fn in (lambda p: decision_block(st, cfg.board, p), lambda p: greedy_actions(st, cfg.board, p),
               lambda p: query_legal(st, p)):
        for bad, msg in ((np.zeros(1, np.int64), r"or int\[2\] \(one per game\), got int64\[1\]$"),
                         (np.zeros(3, np.int64), r"or int\[2\] \(one per game\), got int64\[3\]$"),
                         (np.array([0.0, 1.0]), r"got float64\[2\]$"),
                         (np.array([-1, 0]), r"^player must be 0..2, got"), (np.array([0, 3]), r"^player must be 0..2")):
            with pytest.raises(PIError, match=msg):
                fn(bad)
    ro = np.zeros((2, 67), np.float32)
    ro.flags.writeable = False
    with pytest.raises(PIError, match=r"^out must be float32\[2, 67\] with contiguous rows, writable, got float32\[2, 67\]$"):
        decision_block(st, cfg.board, np.zeros(2, np.int64), out=ro)
    with pytest.raises(PIError, match=r"^out must be float32\[2, 445\] \(compact-v4 at 3 players\) with contiguous "
                                      r"rows, writable, got float32\[2, 10\]$"):
        encode_state("compact-v4", st, cfg, np.zeros(2, np.int64), out=np.zeros((2, 10), np.float32))
    obs = observe(st, np.zeros(2, np.int64))
    with pytest.raises(PIError, match=r"^observations must be int16\[n, 8266\] \(engine observations at 4 players\), "
                                      r"got int16\[2, 6354\]$"):
        encode_observations("compact-v4", obs, GameConfig(num_players=4))
    with pytest.raises(PIError, match=r"^observations must be int16\[n, 6354\] .* got int16\[2, 6351\]$"):
        encode_observations("compact-v3", obs[:, :-3], cfg)


def test_imitate_5p_writes_compact_v4_rows_labelled_by_greedy(tmp_path):
    """``imitate 5p --encoding compact-v4`` (greedy teaching, as in the 5-player runs): the demo rows are
    ``float32[n, 461]`` and the label of each (greedy's choice, with its agent memory) is the block's
    ``greedy_choice`` one-hot on these rows (seed 0)."""
    need_extra("rl", "torch", "stable_baselines3", "sb3_contrib")
    from pi_env.rl.cli import imitate_main

    out = tmp_path / "d.npz"
    assert imitate_main(["5p", "--encoding", "compact-v4", "--rows", "8", "--out", str(out), "--no-progress"]) == 0
    with np.load(out, allow_pickle=False) as d:
        x, y = d["x"], d["y"]
    assert x.shape == (8, 461) and x.dtype == np.float32
    choice = x[:, 461 - 51:]
    assert (choice.sum(axis=1) == 1).all() and choice.argmax(axis=1).tolist() == y.tolist()


def test_a_tiny_training_run_on_it_plays_as_a_learned_agent(tmp_path):
    """``train 4p --encoding compact-v4 --opponents greedy``: a model file for the encoding, which
    loads and plays whole 4-player games as ``learned:PATH`` (its solve choice from the block's
    figures' own posterior)."""
    need_extra("rl", "torch", "stable_baselines3", "sb3_contrib")
    from pi_env.agents import make_agent
    from pi_env.agents.learned import load_model
    from pi_env.agents.runner import play_game
    from pi_env.rl.cli import train_main

    out = tmp_path / "run"
    assert train_main(["4p", "--encoding", "compact-v4", "--opponents", "greedy", "--timesteps", "1024",
                       "--out", str(out), "--num-envs", "32", "--n-steps", "16", "--batch-size", "256",
                       "--n-epochs", "1", "--trunk", "32", "--hidden", "16", "--no-progress"]) == 0
    net, meta = load_model(str(out / "policy.pt"))
    assert (meta["encoding"], meta["num_players"], meta["input_size"]) == ("compact-v4", 4, 453)
    agents = [make_agent(f"learned:{out / 'policy.pt'}")] + [make_agent("greedy") for _ in range(3)]
    final, rec = play_game(GameConfig(num_players=4), agents, seed=3)
    assert bool(final.done[0]) and final.score.shape == (1, 4)


_JIT_SCRIPT = """
import hashlib
import numpy as np
from pi_env.engine import GameConfig, init, sample_actions, step_inplace
from pi_env.agents.learned import encode_state
h = hashlib.sha256()
for players in (2, 3, 4, 5):
    cfg = GameConfig(num_players=players)
    st = init(cfg, 3, seed=4)
    rng = np.random.default_rng(4)
    for _ in range(4):
        x = encode_state("compact-v4", st, cfg, st.current_player.astype(np.int64))
        h.update(np.round(x.astype(np.float64), 5).tobytes())
        a = sample_actions(st, rng)
        a[a >= 50] = 50 + (a[a >= 50] - 50) % 7
        step_inplace(st, a, cfg)
print(h.hexdigest())
"""


def test_jit_off_path_agrees():
    """docs/contributing.md §C5: the encoding's kernels (the decision kernel writing its block, the
    joint block's kernel) run as plain Python with NUMBA_DISABLE_JIT=1 and give the same rows."""
    from helpers import assert_jit_off_agrees

    assert_jit_off_agrees(_JIT_SCRIPT, timeout=900)


@pytest.mark.parametrize("num_players", [2, 3, 4, 5])
def test_threads_write_the_same_rows_and_actions(num_players, monkeypatch):
    """The decision kernel's threaded build (numba threads over runs of 32 rows,
    ``parallel=True``; and ``parallel=None`` with the default family's threshold put at 1) and its
    one-thread build (``parallel=False``, the default) give the same ``"compact-v4"`` rows, decision
    block, joint block and greedy actions bit for bit, on 100 rows (three full runs and a partial one)
    of the deal and of games after greedy's play with random queries and correct solves."""
    from pi_env.agents import greedy_batch
    from pi_env.core import _config

    assert (greedy_batch._decide_kernel.parallel is not greedy_batch._decide_kernel.serial) == _config.PARALLEL
    seen = 0
    for k, (cfg, st, live) in enumerate(_positions(num_players, "second", 100, 90 + num_players, 40, 0.3, 0.05)):
        if k % 13 or live.size < 40:
            continue
        sub = st.take(live)
        players = (sub.current_player.astype(np.int64) + k) % num_players  # not always the mover
        runs = {}
        for parallel in (False, True, None):
            if parallel is None:
                monkeypatch.setitem(_config.PARALLEL_MIN_BATCH, "default", 1)
            joint = np.full((sub.batch_size, 38), -1.0, dtype=np.float32)
            runs[parallel] = (encode_state("compact-v4", sub, cfg, players, parallel=parallel),
                              decision_block(sub, cfg.board, players, cfg.edition, parallel=parallel,
                                             joint=None if num_players == 2 else joint), joint,
                              greedy_actions(sub, cfg.board, sub.current_player.astype(np.int64), cfg.edition,
                                             parallel=parallel))
            monkeypatch.undo()
        for parallel in (True, None):
            for got, want in zip(runs[parallel], runs[False]):
                assert np.array_equal(got.view(np.int32) if got.dtype == np.float32 else got,
                                      want.view(np.int32) if want.dtype == np.float32 else want), (k, parallel)
        assert (runs[False][1][:, _BLOCK["p_correct"][0]] > 0).all()  # a block was written in every row
        seen += 1
    assert seen >= 3, seen
