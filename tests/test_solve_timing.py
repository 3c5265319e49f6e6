"""The learned solve-timing head (:mod:`pi_env.agents.solve_timing`) and its training by branched
games (:mod:`pi_env.rl.solve_timing`): the rule, the forward pass against torch, the model file,
the agent, and every branch sample against an independent replay of its game."""

from __future__ import annotations

import numpy as np
import pytest

from helpers import need_extra

from pi_env.agents.learned import encode_state, encoding_size, policy_mask
from pi_env.agents.solve_timing import (COLUMNS, P_CERTAIN, SolveTimingHead, eligible_rows, head_columns,
                                        other_plans)
from pi_env.core.constants import SOLVE_BASE
from pi_env.core.errors import PIError
from pi_env.encodings import get
from pi_env.engine import GameConfig, init, legal_action_mask, outcome, step_inplace


def _col(name, P=4):
    return get("compact-v4").layout(P)[name][0]


def _head(P=4, *, win_of=None, bias=(0.0, 0.0), lam=0.0, tau=0.0, hidden=None, seed=0):
    """A head with one linear layer: ``A_win`` = the standardised column ``win_of`` (identity
    scaling) plus ``bias[0]``, ``A_wrong`` = ``bias[1]``; or random layers of widths ``hidden``."""
    F = len(head_columns(P))
    mean, scale = np.zeros(F, np.float32), np.ones(F, np.float32)
    if hidden is not None:
        rng = np.random.default_rng(seed)
        widths = [F, *hidden, 2]
        layers = tuple((rng.normal(size=(widths[i], widths[i + 1])).astype(np.float32) * 0.3,
                        rng.normal(size=widths[i + 1]).astype(np.float32) * 0.1) for i in range(len(widths) - 1))
        return SolveTimingHead(P, rng.normal(size=F).astype(np.float32), (rng.random(F) + 0.5).astype(np.float32),
                               layers, lam, tau)
    W = np.zeros((F, 2), np.float32)
    if win_of is not None:
        W[list(head_columns(P)).index(_col(win_of, P)), 0] = 1.0
    return SolveTimingHead(P, mean, scale, ((W, np.asarray(bias, np.float32)),), lam, tau)


def test_columns_are_the_named_components():
    L = get("compact-v4").layout(4)
    cols = head_columns(4)
    want = []
    for name in COLUMNS:
        start, shape = L[name]
        want += list(range(start, start + (int(np.prod(shape)) if shape else 1)))
    assert cols.tolist() == want and len(cols) == 44
    # five per-seat components (score, attempted, solved, inv_left, public_log2_count): 5 columns a player
    assert len(head_columns(3)) == 39 and len(head_columns(2)) == 34


def test_eligible_rows_by_hand():
    size = encoding_size("compact-v4", 4)
    x = np.zeros((6, size), np.float32)
    p, r = _col("p_correct"), _col("round")
    x[:, p] = [0.5, 0.5, 0.5, P_CERTAIN, 0.998, 1.0]
    x[:, r] = [2 / 3, 1 / 3, 1 / 3, 2 / 3, 0.0, 2 / 3]  # round / num_rounds: rounds 2, 1, 1, 2, 0, 2
    choices = np.array([7, 7, SOLVE_BASE, SOLVE_BASE, SOLVE_BASE, 7])
    assert eligible_rows(x, choices, 4, 3).tolist() == [True, False, True, False, True, False]


def test_other_plans_by_hand():
    size = encoding_size("compact-v4", 4)
    x = np.zeros((4, size), np.float32)
    g = _col("clue_gain")
    x[:, g + 3] = 0.2
    x[:, g + 40] = 0.2  # district 4's gain (column 36 + 4 of the 50 gains), as large: the lower id wins
    x[:, g + 9] = 0.3
    mask = np.ones((4, SOLVE_BASE), bool)
    mask[1, 9] = False  # not legal: the next best
    mask[2] = False     # nothing legal: keep the solve
    choices = np.array([SOLVE_BASE, SOLVE_BASE, SOLVE_BASE, 12])
    assert other_plans(x, choices, mask, 4).tolist() == [9, 3, SOLVE_BASE, SOLVE_BASE]


def test_forward_pass_equals_torch():
    torch = need_extra("rl", "torch")
    head = _head(hidden=(16, 8), seed=3)
    x = np.random.default_rng(1).normal(size=(32, encoding_size("compact-v4", 4))).astype(np.float32)
    layers = []
    for i, (W, b) in enumerate(head.layers):
        lin = torch.nn.Linear(*W.shape)
        lin.weight.data = torch.from_numpy(W.T.copy())
        lin.bias.data = torch.from_numpy(b)
        layers += [lin] + ([torch.nn.ReLU()] if i < len(head.layers) - 1 else [])
    with torch.no_grad():
        want = torch.nn.Sequential(*layers)(torch.from_numpy((x[:, head_columns(4)] - head.mean) / head.scale))
    assert np.allclose(head.advantages(x), want.numpy(), atol=1e-5)


def test_apply_switches_where_the_rule_says():
    size = encoding_size("compact-v4", 4)
    x = np.zeros((5, size), np.float32)
    x[:, _col("round")] = 2 / 3  # the last round
    x[:, _col("p_correct")] = 0.6
    x[:, _col("e_now")] = [0.2, 0.05, 0.2, 0.2, 0.0]   # A_win = e_now, A_wrong = 1
    x[4, _col("p_correct")] = 1.0                      # certain: never switched
    x[:, _col("clue_gain") + 5] = 0.1
    mask = np.ones((5, SOLVE_BASE), bool)
    head = _head(win_of="e_now", bias=(0.0, 1.0), lam=0.1, tau=0.0)
    choices = np.array([3, 3, SOLVE_BASE, 3, 3])
    # 0.2 - 0.1 > 0 switches; 0.05 - 0.1 does not; a solve switches to the best query (5)
    assert head.apply(x, choices, mask).tolist() == [SOLVE_BASE, 3, 5, SOLVE_BASE, 3]
    never = _head(win_of="e_now", bias=(0.0, 1.0), lam=0.1, tau=np.inf)
    assert never.apply(x, choices, mask).tolist() == choices.tolist()


def test_saved_round_trip_and_malformed_heads():
    head = _head(hidden=(8,), seed=2, lam=0.05, tau=0.01)
    back = SolveTimingHead.from_saved(head.saved())
    x = np.random.default_rng(0).normal(size=(4, encoding_size("compact-v4", 4))).astype(np.float32)
    assert np.array_equal(back.advantages(x), head.advantages(x)) and (back.lam, back.tau) == (0.05, 0.01)
    bad = head.saved() | {"columns": list(COLUMNS[:-1])}
    with pytest.raises(PIError, match=r"^solve-timing head: its columns are not this version's$"):
        SolveTimingHead.from_saved(bad)
    bad = head.saved() | {"weights": [head.layers[0][0][:-1], head.layers[1][0]]}
    with pytest.raises(PIError, match=r"^solve-timing head: a layer of shape \[43, 8\] does not follow width 44$"):
        SolveTimingHead.from_saved(bad)
    with pytest.raises(PIError, match=r"^solve-timing head: malformed \(KeyError"):
        SolveTimingHead.from_saved({"columns": list(COLUMNS)})
    nan = head.layers[1][0].copy()
    nan[0, 0] = np.nan
    for bad in (head.saved() | {"weights": [head.layers[0][0], nan]}, head.saved() | {"scale": 0 * head.scale}):
        with pytest.raises(PIError, match=r"^solve-timing head: its weights and standardisation must be finite"):
            SolveTimingHead.from_saved(bad)


def _replay(P, seed, chunk, B, game, turn, player, other_choice=None):
    """Game ``game`` of a chunk replayed alone by greedy (per-game seats), up to ``turn``; then
    ``other_choice`` (a compact choice) once if given, and greedy to the end. Returns the player's
    win share (from :func:`pi_env.engine.outcome`) and wrong solves."""
    from pi_env.rl.solve_timing import GreedySeats, _engine_actions, game_states

    cfg = GameConfig(num_players=P)
    state = init(cfg, 1, game_states(seed, chunk, B)[game:game + 1])
    seats = GreedySeats(1, P)
    zero = np.zeros(1, np.int64)
    while not state.done[0]:
        p = np.array([int(state.current_player[0])])
        a = seats.actions(state, zero, p, cfg)
        if other_choice is not None and int(state.turn[0]) == turn:
            assert p[0] == player
            a = _engine_actions(state, cfg, p, np.array([other_choice]))
        seats.acted(state, zero, p)
        step_inplace(state, a, cfg, check=False)
    o = outcome(state, cfg)
    return (1 / len(o.winners) if player in o.winners else 0.0), int(state.penalty[0, player]) // 2


def test_every_branch_sample_equals_a_replay_of_its_game():
    from pi_env.rl.solve_timing import GreedySeats, collect_chunk, game_states, play_to_end

    P, seed, chunk, B = 4, 11, 2, 6
    cfg = GameConfig(num_players=P)
    data = collect_chunk(cfg, seed, chunk, B, branch=0.3)
    assert len(data.win) > 10 and data.greedy_solves.any() and (~data.greedy_solves).any()
    assert (data.game // B == chunk).all()
    # the collection's own games are greedy's games: their ends equal a plain run
    plain = init(cfg, B, game_states(seed, chunk, B))
    play_to_end(plain, cfg, GreedySeats(B, P))
    for i in range(len(data.win)):
        g, t, p = int(data.game[i]) - chunk * B, int(data.turn[i]), int(data.player[i])
        # the decision's columns and the other plan, from the replayed position
        state = init(cfg, 1, game_states(seed, chunk, B)[g:g + 1])
        seats = GreedySeats(1, P)
        zero = np.zeros(1, np.int64)
        while int(state.turn[0]) != t:
            q = np.array([int(state.current_player[0])])
            a = seats.actions(state, zero, q, cfg)
            seats.acted(state, zero, q)
            step_inplace(state, a, cfg, check=False)
        x = encode_state("compact-v4", state, cfg, np.array([p]))
        assert np.array_equal(x[0, head_columns(P)], data.x[i])
        greedy = int(min(seats.actions(state, zero, np.array([p]), cfg)[0], SOLVE_BASE))
        assert (greedy == SOLVE_BASE) == bool(data.greedy_solves[i])
        assert eligible_rows(x, np.array([greedy]), P, 3)[0]
        other = int(other_plans(x, np.array([greedy]), policy_mask(legal_action_mask(state))[:, :SOLVE_BASE], P)[0])
        win_main, wrong_main = _replay(P, seed, chunk, B, g, t, p)
        win_other, wrong_other = _replay(P, seed, chunk, B, g, t, p, other)
        assert win_main == pytest.approx(float(outcome(plain, cfg, g).winners.count(p)) /
                                         len(outcome(plain, cfg, g).winners))
        assert data.win[i] == pytest.approx(win_other - win_main, abs=1e-6)
        assert data.wrong[i] == wrong_other - wrong_main


def test_evaluate_with_a_head_that_never_switches_is_greedy():
    from pi_env.rl.solve_timing import evaluate

    cfg = GameConfig(num_players=4)
    ev = evaluate(_head(tau=np.inf), cfg, 16, 5, batch_size=8)
    assert ev.switches == 0 and ev.win_diff == 0.0 and ev.win_learner == ev.win_greedy
    assert ev.wrong_learner == ev.wrong_greedy
    always = evaluate(_head(bias=(1.0, 0.0)), cfg, 16, 5, batch_size=8)
    assert always.switches > 0


def test_model_file_with_a_head_and_the_agent(tmp_path):
    need_extra("rl", "torch")
    from pi_env.agents._policy_net import PolicyNet
    from pi_env.agents.learned import LearnedAgent, load_model, save_model
    from pi_env.engine import observe
    from pi_env.rl.solve_timing import GreedySeats, _step

    P = 4
    cfg = GameConfig(num_players=P)
    net = PolicyNet(encoding_size("compact-v4", P), (16,), "relu", (32,))
    plain, never, always = tmp_path / "plain.pt", tmp_path / "never.pt", tmp_path / "always.pt"
    save_model(net, plain, encoding="compact-v4", num_players=P, card={})
    save_model(net, never, encoding="compact-v4", num_players=P, card={}, solve_timing=_head(tau=np.inf))
    save_model(net, always, encoding="compact-v4", num_players=P, card={}, solve_timing=_head(bias=(1.0, 0.0)))
    assert load_model(str(plain))[1]["solve_timing"] is None
    assert load_model(str(always))[1]["solve_timing"].lam == 0.0
    agents = {}
    for name, path in (("plain", plain), ("never", never), ("always", always)):
        agents[name] = LearnedAgent(str(path))
        agents[name].reset(P)
    # positions of greedy's games in their last round, uncertain: the player to move
    state = init(cfg, 8, 21)
    seats = GreedySeats(8, P)
    while not (state.round == 2).all():
        _step(state, cfg, seats, None)
    switched = 0
    for b in range(8):
        p = int(state.current_player[b])
        obs = observe(state.take([b]), p)[0]
        mask = legal_action_mask(state.take([b]))[0]
        base = agents["plain"].choice(obs, mask)
        assert agents["never"].choice(obs, mask) == base
        x = encode_state("compact-v4", state.take([b]), cfg, np.array([p]))
        want = base if x[0, _col("p_correct")] >= P_CERTAIN else int(
            other_plans(x, np.array([base]), policy_mask(mask[None])[:, :SOLVE_BASE], P)[0])
        assert agents["always"].choice(obs, mask) == want
        switched += want != base
    assert switched > 0


def test_a_head_on_another_encoding_is_refused(tmp_path):
    need_extra("rl", "torch")
    import torch

    from pi_env.agents._policy_net import PolicyNet
    from pi_env.agents.learned import load_model, save_model

    net = PolicyNet(encoding_size("compact-v3", 4), (16,), "relu", (32,))
    path = tmp_path / "v3.pt"
    save_model(net, path, encoding="compact-v3", num_players=4, card={})
    data = torch.load(path, weights_only=True)
    data["solve_timing"] = {k: (v if not isinstance(v, np.ndarray) else torch.from_numpy(v))
                            for k, v in _head().saved().items()}
    data["solve_timing"]["weights"] = [torch.from_numpy(w) for w in data["solve_timing"]["weights"]]
    data["solve_timing"]["biases"] = [torch.from_numpy(b) for b in data["solve_timing"]["biases"]]
    torch.save(data, path)
    with pytest.raises(PIError, match=r"its solve-timing head is for compact-v4 at 4 players, the policy "
                                      r"'compact-v3' at 4$"):
        load_model(str(path))


def test_the_curves_experiment(tmp_path):
    """``pi_env.experiments.solve_timing_curves``: the games curve refits on the first games (their
    count exact), its last point (every game) is the λ curve's point of the same λ (the same head on
    the same games), and the figure and table are written."""
    need_extra("rl", "torch")
    from pi_env.experiments.solve_timing_curves import curves, main
    from pi_env.rl.solve_timing import Branches, collect_chunk

    cfg = GameConfig(num_players=4)
    data = Branches.concatenate([collect_chunk(cfg, 3, c, 8, branch=0.5) for c in range(2)])
    assert int(data.game.max()) + 1 == 16 and len(data.win) >= 100
    rows = curves(data, 4, 0, 0.05, [0.05, 1.0], 9, 8, [0.5, 1.0])
    assert [(r["curve"], r["games"], r["lam"]) for r in rows] == [
        ("games", 8, 0.05), ("games", 16, 0.05), ("lam", 16, 0.05), ("lam", 16, 1.0)]
    assert {k: v for k, v in rows[1].items() if k != "curve"} == {k: v for k, v in rows[2].items() if k != "curve"}
    path = tmp_path / "branches.npz"
    data.save(path)
    assert main([str(path), "--players", "4", "--seed", "0", "--lam", "0.05", "--lams", "0.05",
                 "--fractions", "1", "--eval-seed", "9", "--eval-games", "8", "--out", str(tmp_path / "c.png")]) == 0
    assert (tmp_path / "c.png").stat().st_size > 0
    assert (tmp_path / "c.csv").read_text().splitlines()[0] == (
        "curve,games,lam,tau,gain,gain_ci,wrong,wrong_greedy,wrong_others,switches")
    # two files joined (the second one's games numbered after the first's) and a margin τ
    second = tmp_path / "second.npz"
    Branches.concatenate([collect_chunk(cfg, 4, 0, 8, branch=0.5)]).save(second)
    assert main([str(path), str(second), "--players", "4", "--seed", "0", "--lam", "0.05", "--lams", "0.05",
                 "--fractions", "0.5", "1", "--tau", "0.02", "--eval-seed", "9", "--eval-games", "8",
                 "--out", str(tmp_path / "j.png")]) == 0
    table = [line.split(",") for line in (tmp_path / "j.csv").read_text().splitlines()[1:]]
    assert [(r[0], r[1], r[2], r[3]) for r in table] == [
        ("games", "12", "0.05", "0.02"), ("games", "24", "0.05", "0.02"), ("lam", "24", "0.05", "0.02")]
    # an --out that cannot be written is refused before the branches are even read
    with pytest.raises(SystemExit, match=r"^error: --out: .*c\.png: the folder '.*nope' does not exist$"):
        main([str(tmp_path / "missing.npz"), "--players", "4", "--seed", "0", "--lam", "0.05", "--lams", "0.05",
              "--eval-seed", "9", "--out", str(tmp_path / "nope" / "c.png")])
    with pytest.raises(SystemExit, match="not a branches file"):
        main([str(tmp_path / "c.csv"), "--players", "4", "--seed", "0", "--lam", "0", "--lams", "0",
              "--eval-seed", "1", "--out", str(tmp_path / "d.png")])
    # numbers a head or an evaluation refuses: refused before the branches are read
    for extra, message in [(["--tau", "nan"], "error: --tau must be a finite number or inf, got nan"),
                           (["--lam", "inf"], "error: --lam and --lams must be finite numbers, got inf and [0.0]"),
                           (["--lams", "0", "nan"], "error: --lam and --lams must be finite numbers, got 0.0 and [0.0, nan]"),
                           (["--eval-games", "0"], "error: --eval-games must be at least 1, got 0")]:
        with pytest.raises(SystemExit) as exc:
            main([str(tmp_path / "missing.npz"), "--players", "4", "--seed", "0", "--lam", "0", "--lams", "0",
                  "--eval-seed", "1", "--out", str(tmp_path / "d.png"), *extra])
        assert str(exc.value) == message


def test_joined_collections_number_their_games_one_after_another(tmp_path, capsys):
    """``Branches.join``: the rows in order (so the fit is the fit of the plain concatenation, bit for
    bit), the second collection's games numbered after the first's; the command's ``--data`` with two
    files fits that head and records the games of both."""
    need_extra("rl", "torch")
    from pi_env.agents.learned import load_model
    from pi_env.rl.solve_timing import Branches, collect, fit, load_branches, main

    cfg = GameConfig(num_players=4)
    a, b = collect(cfg, 16, 1, batch_size=8, progress=False), collect(cfg, 6, 2, batch_size=8, progress=False)
    na, nb = int(a.game.max()) + 1, int(b.game.max()) + 1  # the last game with a branch, counted from 1
    assert 8 < na <= 16 and 0 < nb <= 6
    joined = Branches.join([a, b])
    assert np.array_equal(joined.game, np.concatenate([a.game, b.game + na]))
    for f in ("x", "win", "wrong", "greedy_solves", "turn", "player"):
        assert np.array_equal(getattr(joined, f), np.concatenate([getattr(a, f), getattr(b, f)]))
    assert int(joined.game.max()) + 1 == na + nb and len(np.unique(joined.game)) == len(np.unique(a.game)) + len(
        np.unique(b.game))
    a.save(tmp_path / "a.npz")
    b.save(tmp_path / "b.npz")
    loaded = load_branches([str(tmp_path / "a.npz"), str(tmp_path / "b.npz")], 4)
    assert all(np.array_equal(getattr(loaded, f), getattr(joined, f)) for f in ("x", "win", "game"))
    want, _ = fit(Branches.concatenate([a, b]), 4, lam=0.05, tau=0.01, seed=3)
    out = tmp_path / "run"
    assert main(["4p", "--init", "4p", "--lam", "0.05", "--tau", "0.01", "--seed", "3", "--eval-games", "0",
                 "--data", str(tmp_path / "a.npz"), str(tmp_path / "b.npz"), "--out", str(out)]) == 0
    # learned:4p has a head already: the run says the new one replaces it
    assert [line for line in capsys.readouterr().err.splitlines() if line.startswith("note:")] == [
        "note: --init 4p has a solve-timing head already; the head fitted here replaces it (the policy network "
        "is kept)"]
    _, meta = load_model(str(out / "policy.pt"))
    got = meta["solve_timing"]
    assert (got.lam, got.tau) == (0.05, 0.01)
    assert all(np.array_equal(x[0], y[0]) and np.array_equal(x[1], y[1]) for x, y in zip(got.layers, want.layers))
    assert meta["card"]["solve_timing"]["games"] == na + nb


def test_data_refuses_a_file_given_twice_and_files_without_samples(tmp_path, capsys):
    """``load_branches``: the same file twice (also by another spelling of its path) would put the
    held-out rows of the fit among its training rows: refused in one line; so are files without a
    single sample (``Branches.join`` of empty parts is empty: no game to count). The command and
    the curves refuse them before ``--out`` is made."""
    need_extra("rl", "torch")
    from pi_env.agents.solve_timing import head_columns
    from pi_env.experiments import solve_timing_curves
    from pi_env.rl.solve_timing import Branches, load_branches, main

    F = len(head_columns(4))

    def branches(n):
        return Branches(np.zeros((n, F), np.float32), np.zeros(n, np.float32), np.zeros(n, np.float32),
                        np.zeros(n, bool), np.arange(n, dtype=np.int64), np.zeros(n, np.int64), np.zeros(n, np.int64))

    a, e1, e2 = tmp_path / "a.npz", tmp_path / "e1.npz", tmp_path / "e2.npz"
    branches(3).save(a)
    branches(0).save(e1)
    branches(0).save(e2)
    assert len(Branches.join([branches(0), branches(0)]).win) == 0
    assert len(load_branches([str(e1), str(a)], 4).win) == 3  # an empty part beside samples is fine
    for paths, words in [([a, a], "given twice"), ([a, tmp_path / "." / "a.npz"], "given twice"),
                         ([e1], "hold no branch samples"), ([e1, e2], "hold no branch samples")]:
        with pytest.raises(PIError, match=words):
            load_branches([str(p) for p in paths], 4)
    out = tmp_path / "run"
    with pytest.raises(SystemExit) as exc:
        main(["4p", "--init", "4p", "--lam", "0.05", "--seed", "1", "--eval-games", "0",
              "--data", str(e1), "--out", str(out)])
    assert exc.value.code == 2 and not out.exists()
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and err.endswith("--data: '" + str(e1) + "' hold no branch samples")
    with pytest.raises(SystemExit) as exc:
        solve_timing_curves.main([str(e1), "--players", "4", "--seed", "1", "--lam", "0.05", "--lams", "0.05",
                                  "--eval-seed", "2", "--out", str(tmp_path / "c.png")])
    assert str(exc.value) == "error: '" + str(e1) + "' hold no branch samples"


def test_the_fit_is_the_same_whatever_the_caller_s_threads():
    """``fit`` runs on one torch thread and restores the caller's: the same samples and seed give the
    same head whatever ``torch.get_num_threads()`` was."""
    torch = need_extra("rl", "torch")
    from pi_env.rl.solve_timing import collect_chunk, fit

    data = collect_chunk(GameConfig(num_players=4), 5, 0, 16, branch=0.5)
    before = torch.get_num_threads()
    heads = []
    for threads in (1, 2):
        torch.set_num_threads(threads)
        heads.append(fit(data, 4, lam=0.05, seed=3)[0])
        assert torch.get_num_threads() == threads
    torch.set_num_threads(before)
    assert all(np.array_equal(a[0], b[0]) and np.array_equal(a[1], b[1])
               for a, b in zip(heads[0].layers, heads[1].layers))

def test_command_line_refuses_bad_input_in_one_line_before_writing(tmp_path, capsys):
    """Every mistake is one line ``PROG: error: ...`` naming the option, exit status 2, and
    nothing already in ``--out`` is overwritten."""
    need_extra("rl", "torch")
    from pi_env.rl.solve_timing import main

    out = tmp_path / "out"
    base = ["4p", "--init", "4p", "--lam", "0.06", "--seed", "1", "--eval-games", "0"]

    def refused(extra, *words):
        with pytest.raises(SystemExit) as e:
            main(base + ["--out", str(out)] + extra)
        err = capsys.readouterr().err.strip()
        assert e.value.code == 2 and "Traceback" not in err, err
        err = err.splitlines()[-1]  # after a progress bar when the branches were collected
        assert err.startswith("python -m pi_env.rl.solve_timing: error: ")
        for w in words:
            assert w in err, (w, err)

    refused(["--games", "0"], "--games", "0")
    refused(["--games", "-5"], "--games", "-5")
    refused(["--eval-games", "-1"], "--eval-games")
    refused(["--branch", "0"], "--branch", "0.0")
    refused(["--branch", "2"], "--branch", "2.0")
    refused(["--lam", "nan"], "--lam", "nan")
    refused(["--tau=-inf"], "--tau")
    refused(["--hidden", "0"], "--hidden")
    with pytest.raises(SystemExit) as e:
        main(["4p", "--init", str(tmp_path / "missing.pt"), "--lam", "0.06", "--seed", "1", "--out", str(out)])
    assert e.value.code == 2 and "--init" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["4p", "--init", "2p", "--lam", "0.06", "--seed", "1", "--out", str(out)])
    assert "compact-v4 policy for 4 players" in capsys.readouterr().err
    bad = tmp_path / "bad.npz"
    bad.write_text("not a branches file")
    refused(["--data", str(bad)], "--data", "bad.npz")
    assert not out.exists()  # nothing written so far
    # a 3-player branches file for a 4-player head
    three = tmp_path / "three"
    with pytest.raises(SystemExit):  # 3 games: too few samples to fit, but the branches are kept
        main(["3p", "--init", "4p", "--lam", "0.06", "--seed", "1", "--out", str(three)])
    assert "compact-v4 policy for 3 players" in capsys.readouterr().err
    from pi_env.rl.solve_timing import Branches, collect
    collect(GameConfig(num_players=3), 2, 1, progress=False).save(tmp_path / "b3.npz")
    refused(["--data", str(tmp_path / "b3.npz")], "--data", "b3.npz", "4-player")
    # too few samples: one line, the collected branches kept; a second run does not overwrite them
    refused(["--games", "2"], "too few")
    kept = (out / "branches.npz").read_bytes()
    assert len(Branches.load(out / "branches.npz").win) > 0
    refused(["--games", "4"], "--out", "branches.npz", "--data")
    assert (out / "branches.npz").read_bytes() == kept
    (out / "policy.pt").write_bytes(b"keep")
    refused(["--data", str(out / "branches.npz")], "--out", "policy.pt")
    assert (out / "policy.pt").read_bytes() == b"keep"


def test_the_agent_with_a_head_never_reads_hidden_state(tmp_path, monkeypatch):
    """docs/rules.md §2: the learner with a head that switches at every eligible decision acts the
    same when everything hidden from it is replaced (other players' cases, deck, generator)."""
    need_extra("rl", "torch")
    from test_greedy import check_hidden_state_invariance

    from pi_env.agents._policy_net import PolicyNet
    from pi_env.agents.learned import LearnedAgent, save_model

    P = 4
    net = PolicyNet(encoding_size("compact-v4", P), (16,), "relu", (32,))
    path = tmp_path / "always.pt"
    save_model(net, path, encoding="compact-v4", num_players=P, card={}, solve_timing=_head(bias=(1.0, 0.0)))
    switched = []
    apply = SolveTimingHead.apply

    def counting(self, x, choices, mask):
        out = apply(self, x, choices, mask)
        switched.append(int((out != np.asarray(choices)).sum()))
        return out

    monkeypatch.setattr(SolveTimingHead, "apply", counting)
    check_hidden_state_invariance([f"learned:{path}", "greedy", "greedy", "greedy"], P, 11, LearnedAgent, 10)
    assert sum(switched) > 0  # the head changed decisions that were checked


@pytest.mark.parametrize("name, players, games, lam, tau", [
    ("2p", 2, 32768, 0.15, 0), ("3p", 3, 65536, 0.08, 0.05), ("4p", 4, 65536, 0.06, 0), ("5p", 5, 32768, 0.06, 0)])
def test_the_shipped_heads_are_the_ones_their_cards_and_curves_describe(name, players, games, lam, tau):
    """``learned:2p``, ``learned:3p``, ``learned:4p`` and ``learned:5p`` carry a head for their player
    count with the card's λ and τ; the curves' table in docs/figures has, as the last point of its games curve, the
    evaluation the card records for the shipped head (the same fit), and the model card prints it."""
    need_extra("rl", "torch")
    import csv
    from pathlib import Path

    from pi_env.agents.learned import load_model

    _, meta = load_model(f"learned:{name}")
    head, card = meta["solve_timing"], meta["card"]["solve_timing"]
    assert (head.num_players, head.lam, head.tau) == (players, lam, tau) == (players, card["lam"], card["tau"])
    assert card["games"] == games and card["hidden"] == [128, 128]
    repo = Path(__file__).resolve().parents[1]
    with open(repo / "docs" / "figures" / f"rl_{name}_solve_timing.csv", newline="") as f:
        rows = [r for r in csv.DictReader(f) if r["curve"] == "games" and int(r["games"]) == games]
    assert len(rows) == 1 and float(rows[0]["lam"]) == lam and float(rows[0].get("tau", 0)) == tau
    ev = card["evaluation"]
    assert float(rows[0]["gain"]) == pytest.approx(100 * ev["win_diff"], abs=1e-9)
    assert float(rows[0]["wrong"]) == pytest.approx(ev["wrong_learner"], abs=1e-12)
    text = (repo / "pi_env" / "models" / f"learned_{name}.md").read_text()
    assert f"--lam {lam} --tau {tau} --seed {card['seed']} --eval-games 8192 --eval-seed {ev['seed']}" in text
