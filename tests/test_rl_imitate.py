"""Imitation warm start (issue #12, :mod:`pi_env.rl.imitate`): the collected rows are the teacher's
own choices in the positions it (or, in DAgger rounds, the policy) reached, replayed independently
game by game; value targets are the discounted outcomes; the fit reproduces a hand-made dataset
exactly; bad input gets one-line errors; the warm start runs inside ``pi_env.rl.train``.

Skipped without the ``rl`` extra (torch, stable-baselines3, sb3-contrib), which CI installs."""

from __future__ import annotations

import json

import numpy as np
import pytest

from pi_env.agents import make_agent
from pi_env.agents.learned import SOLVE_ACTION, best_cases, encode_state, policy_mask
from pi_env.core.constants import SOLVE_BASE
from pi_env.core.errors import PIError, UnknownNameError
from pi_env.engine import GameConfig, legal_action_mask, observe
from helpers import need_extra


def _rl():
    need_extra("rl", "torch", "stable_baselines3", "sb3_contrib")


def _tiny_model(num_envs: int = 8, trunk=(32,), hidden=(16,), num_players: int = 2):
    import torch
    from sb3_contrib import MaskablePPO

    from pi_env.rl.engine_env import SB3LearnerVecEnv
    from pi_env.rl.train import TrunkExtractor

    env = SB3LearnerVecEnv(num_envs, num_players, ["random"] * (num_players - 1), seed=0, parallel=False)
    return MaskablePPO("MlpPolicy", env, n_steps=8, batch_size=64, seed=0, device="cpu",
                       policy_kwargs={"features_extractor_class": TrunkExtractor,
                                      "features_extractor_kwargs": {"trunk": list(trunk)},
                                      "net_arch": {"pi": list(hidden), "vf": list(hidden)},
                                      "activation_fn": torch.nn.ReLU})


def _replay(num_players: int, teacher: str, rows: int, *, seed: int, num_envs: int, gamma: float,
            net=None, label: "str | None" = None, encoding: str = "compact-v1", opponents=(("gain", 1.0),)):
    """The rows :func:`collect` should return, computed game by game: the teacher is a fresh
    ``make_agent(teacher)`` per game, seeded as :class:`Teacher` seeds it, acting on
    ``observe`` of its one game; the encoding and mask of each row come from that game alone; with
    ``net`` (beta 0) the policy's masked argmax is played, a solve naming ``best_cases`` of the
    player's observation; with ``label`` a fresh ``make_agent(label)`` per game (seeded from
    ``seed + 2``) gives ``y`` on the same observation while the teacher's action is played.
    Returns ``(x, mask, y, value)`` in the order of ``collect``."""
    import torch

    from pi_env.rl.engine_env import LearnerBatch
    from pi_env.rl.pool import PoolOpponent

    config = GameConfig(num_players=num_players)
    pools = [PoolOpponent(list(opponents), config) for _ in range(num_players - 1)]
    batch = LearnerBatch(num_envs, num_players, pools, encoding=encoding, seed=seed, parallel=False)
    rng = np.random.default_rng(seed + 1)
    rng_label = np.random.default_rng(seed + 2)
    agents = [None] * num_envs
    labellers = [None] * num_envs

    def fresh(b: int) -> None:
        agents[b] = make_agent(teacher)
        agents[b].reset(num_players, config.board, seed=int(rng.integers(2**62)))
        if label is not None:
            labellers[b] = make_agent(label)
            labellers[b].reset(num_players, config.board, seed=int(rng_label.integers(2**62)))

    for b in range(num_envs):
        fresh(b)
    batch.reset()
    records: list[tuple] = []  # (x, mask, y) in the order rows are made
    open_rows: list[list[int]] = [[] for _ in range(num_envs)]
    values: dict[int, float] = {}
    kept: list[int] = []
    while len(kept) < rows:
        st = batch.venv.state
        engine = np.zeros(num_envs, dtype=np.int64)
        for b in np.flatnonzero(~batch._restart).tolist():
            one = st.take(np.array([b]))
            seat = np.array([batch._seat[b]])
            obs = observe(one, seat)[0]
            legal = legal_action_mask(one)[0]
            action = int(agents[b].act(obs, legal))
            y = action if label is None else int(labellers[b].act(obs, legal))
            x = encode_state(encoding, one, config, seat)[0]
            mask = policy_mask(legal[None])[0]
            open_rows[b].append(len(records))
            records.append((x, mask, min(y, SOLVE_BASE)))
            if net is not None:
                with torch.no_grad():
                    logits = net.logits(torch.from_numpy(x[None]))[0].numpy()
                choice = int(np.where(mask, logits, -np.inf).argmax())
                action = choice if choice != SOLVE_ACTION else SOLVE_BASE + int(best_cases(obs[None], num_players)[0])
            engine[b] = action
        _, _, _, done, _, episodes = batch.step_engine(engine)
        for b, ep in episodes:
            k = len(open_rows[b])
            for i, r in enumerate(open_rows[b]):
                values[r] = ep["win"] * gamma ** (k - 1 - i)
            kept.extend(open_rows[b])
            open_rows[b] = []
        for b in np.flatnonzero(done).tolist():
            fresh(b)
    idx = sorted(kept[:rows])
    x, mask, y = (np.array([records[r][j] for r in idx]) for j in range(3))
    return x, mask, y, np.array([values[r] for r in idx], dtype=np.float32)


@pytest.mark.parametrize("teacher", ["greedy", "heuristic"])
def test_collected_rows_are_the_teachers_own_actions_replayed_game_by_game(teacher):
    """Behaviour cloning rows (beta 1): encodings, masks, the teacher's choices and the discounted
    win of every row equal an independent game-by-game replay."""
    _rl()
    from pi_env.rl.imitate import collect

    demos = collect(2, teacher, 150, opponents=[("gain", 1.0)], num_envs=3, seed=11, gamma=0.9)
    x, mask, y, value = _replay(2, teacher, 150, seed=11, num_envs=3, gamma=0.9)
    assert len(demos) == 150 and demos.played_teacher.all()
    np.testing.assert_array_equal(demos.x, x)
    np.testing.assert_array_equal(demos.mask, mask)
    np.testing.assert_array_equal(demos.y, y)
    np.testing.assert_allclose(demos.value, value, rtol=1e-6)
    assert demos.mask[np.arange(150), demos.y].all()  # every label is a legal choice
    assert set(np.unique(demos.value)) - {0.0} and (demos.value <= 1.0).all()


def test_dagger_rows_are_labelled_by_the_teacher_where_the_policy_plays(tmp_path):
    """beta 0: the policy's masked argmax is played (solves naming the most likely case) and the
    teacher labels every position: equal to the independent replay."""
    _rl()
    from pi_env.agents.learned import load_model
    from pi_env.rl.imitate import collect
    from pi_env.rl.train import export_policy

    model = _tiny_model()
    f = tmp_path / "p.pt"
    export_policy(model, f, {"encoding": "compact-v1", "num_players": 2, "trunk": [32], "hidden": [16]})
    demos = collect(2, "greedy", 120, opponents=[("gain", 1.0)], num_envs=3, seed=4, gamma=1.0,
                    policy=str(f), beta=0.0)
    net, _ = load_model(str(f))
    x, mask, y, value = _replay(2, "greedy", 120, seed=4, num_envs=3, gamma=1.0, net=net)
    assert not demos.played_teacher.any()
    np.testing.assert_array_equal(demos.x, x)
    np.testing.assert_array_equal(demos.mask, mask)
    np.testing.assert_array_equal(demos.y, y)
    np.testing.assert_array_equal(demos.value, value)


@pytest.mark.parametrize("num_players, beta, label", [(2, 1.0, None), (3, 1.0, None), (4, 1.0, None),
                                                      (5, 1.0, None), (3, 0.5, None), (4, 0.5, "greedy")])
def test_the_batched_greedy_teacher_gives_the_per_game_teachers_rows(tmp_path, num_players, beta, label):
    """``greedy`` teaches (and labels) in batch at 2–5 players (:class:`pi_env.agents.greedy_batch.
    GreedyOpponent`): the rows equal, entry for entry, those of the per-game agents (``batched=False``)
    with the same seed: behaviour cloning at 2, 3, 4 and 5 players, a DAgger round (beta 0.5: the
    teacher's memory of the previous turn is of every learner turn, played by it or not, in both
    forms) and ``greedy`` labelling ``heuristic``'s play. The rows hold solves and queries (both of
    greedy's decisions are compared) and, with beta 0.5, rows played by either."""
    _rl()
    from pi_env.agents.greedy_batch import GreedyOpponent
    from pi_env.rl.imitate import Teacher, collect
    from pi_env.rl.train import export_policy

    config = GameConfig(num_players=num_players)
    assert isinstance(Teacher("greedy", config, 2)._batch, GreedyOpponent)
    assert Teacher("greedy", config, 2, batched=False)._batch is None
    kw: dict = dict(opponents=[("heuristic", 0.5), ("gain", 0.5)], num_envs=4, seed=31 + num_players, gamma=0.95,
                    beta=beta, label=label, encoding="compact-v1")
    if beta < 1.0:
        f = tmp_path / "p.pt"
        export_policy(_tiny_model(num_players=num_players), f,
                      {"encoding": "compact-v1", "num_players": num_players, "trunk": [32], "hidden": [16]})
        kw["policy"] = str(f)
    teacher = "greedy" if label is None else "heuristic"
    batched = collect(num_players, teacher, 300, **kw)
    per_game = collect(num_players, teacher, 300, batched=False, **kw)
    for k in ("x", "mask", "y", "value", "played_teacher"):
        np.testing.assert_array_equal(getattr(batched, k), getattr(per_game, k), err_msg=k)
    assert batched.info == per_game.info
    assert 0 < (batched.y == SOLVE_ACTION).sum() < 300
    assert (0 < batched.played_teacher.sum() < 300) if beta < 1.0 else batched.played_teacher.all()


@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_the_batched_greedy_teacher_remembers_what_each_per_game_agent_remembers(num_players):
    """The one thing the two forms of the teacher keep between calls is greedy's memory of its
    previous turn (``(round, rotation, solved flags)`` of the seat's last call, used for ``pending``);
    it rarely changes a decision (no row of the collections above depends on it), so it is compared
    directly: stepping 4 games with both forms side by side (the teacher plays, new games in the
    slots that end), after every call each slot's memory in :class:`~pi_env.agents.greedy_batch.
    GreedyOpponent` equals that slot's ``GreedyAgent._previous`` and a new game clears both; the
    actions are equal. The memories seen include later rotations and seats that had solved."""
    from pi_env.rl.engine_env import LearnerBatch
    from pi_env.rl.imitate import Teacher
    from pi_env.rl.pool import PoolOpponent

    config = GameConfig(num_players=num_players)
    pools = [PoolOpponent([("heuristic", 0.5), ("gain", 0.5)], config) for _ in range(num_players - 1)]
    batch = LearnerBatch(4, num_players, pools, encoding="compact-v1", seed=5, parallel=False)
    fast, slow = Teacher("greedy", config, 4, seed=6), Teacher("greedy", config, 4, seed=6, batched=False)
    for t in (fast, slow):
        t.new_games(np.arange(4))
    batch.reset()
    mem = fast._batch
    later_rotation = solved_seen = ended_games = 0
    for _ in range(120):
        live = np.flatnonzero(~batch._restart)
        st, seats = batch.venv.state, batch._seat[live]
        action = fast.act(st, live, seats)
        np.testing.assert_array_equal(action, slow.act(st, live, seats))
        for b in live.tolist():
            previous = slow._agents[b]._previous
            assert mem._valid[b] and previous == (mem._round[b], mem._rotation[b], tuple(mem._solved[b].tolist()))
            later_rotation += previous[1] > 0
            solved_seen += any(previous[2][1:])
        engine = np.zeros(4, dtype=np.int64)
        engine[live] = action
        done = batch.step_engine(engine)[3]
        ended = np.flatnonzero(done)
        for t in (fast, slow):
            t.new_games(ended)
        ended_games += ended.size
        assert not mem._valid[ended].any() and all(slow._agents[b]._previous is None for b in ended.tolist())
    assert later_rotation > 0 and solved_seen > 0 and ended_games > 0


def test_greedy_teaches_game_by_game_when_asked_at_5_players():
    """At 5 players the teacher is the batch ``greedy`` (as at 2–4); ``batched=False`` gives the
    per-game agent, one per game slot."""
    _rl()
    from pi_env.agents.greedy import GreedyAgent
    from pi_env.agents.greedy_batch import GreedyOpponent
    from pi_env.rl.imitate import Teacher

    assert isinstance(Teacher("greedy", GameConfig(num_players=5), 2)._batch, GreedyOpponent)
    t = Teacher("greedy", GameConfig(num_players=5), 2, batched=False)
    t.new_games(np.arange(2))
    assert t._batch is None and all(isinstance(a, GreedyAgent) for a in t._agents)


def _rule_labels(x: np.ndarray, mask: np.ndarray, num_players: int) -> "tuple[np.ndarray, np.ndarray]":
    """``deducer-own``'s rule read off ``compact-v2``/``-v3`` rows (the compact kernel's
    own-information gains and the joint block: an implementation independent of the agent's
    :func:`information_gains` over :func:`answer_matrix`): ``(solve, best)`` where ``solve[r]`` says
    the rule solves (the joint posterior leaves one case, or no legal query has a positive gain)
    and ``best[r]`` marks the legal queries of the largest gain (ties within the encoding's
    float32 precision)."""
    from pi_env.solvers.compact import GAIN_SCALE, compact_layout, compact_size

    lay = compact_layout(num_players)
    c0, d0 = lay["clue_gain"][0], lay["district_gain"][0]
    g = np.concatenate([x[:, c0:c0 + 36], x[:, d0:d0 + 14]], axis=1).astype(np.float64) / GAIN_SCALE
    g = np.where(mask[:, :50], g, -1.0)
    top = g.max(axis=1)
    joint_log2_count = x[:, compact_size(num_players) + 36]
    solve = (joint_log2_count == 0) | (top <= 1e-6)
    return solve, g >= top[:, None] - 1e-5


def test_rows_played_by_one_agent_and_labelled_by_another():
    """``label``: the teacher's play and the labeller's choices on the states it reached. 4 players
    against ``heuristic``, ``compact-v3`` rows written directly: every row equals an independent
    game-by-game replay where ``greedy`` plays and a fresh ``deducer-own`` labels; the states, masks
    and value targets are exactly those of the unlabelled collection with the same seed (the play
    is the player's); each label is ``deducer-own``'s rule read off the row itself (solve iff the
    joint posterior leaves one case or nothing splits the own-information set, else a legal query of
    the largest own-information gain); the file records who played and who labelled."""
    _rl()
    from pi_env.rl.imitate import collect

    kw = dict(opponents=[("heuristic", 1.0)], encoding="compact-v3", num_envs=2, seed=21, gamma=0.9)
    demos = collect(4, "greedy", 40, label="deducer-own", **kw)
    x, mask, y, value = _replay(4, "greedy", 40, seed=21, num_envs=2, gamma=0.9, label="deducer-own",
                                encoding="compact-v3", opponents=[("heuristic", 1.0)])
    assert demos.x.shape == (40, 386) and demos.played_teacher.all()
    np.testing.assert_array_equal(demos.x, x)
    np.testing.assert_array_equal(demos.mask, mask)
    np.testing.assert_array_equal(demos.y, y)
    np.testing.assert_allclose(demos.value, value, rtol=1e-6)
    played = collect(4, "greedy", 40, **kw)  # greedy's own labels, same games
    np.testing.assert_array_equal(demos.x, played.x)
    np.testing.assert_array_equal(demos.value, played.value)
    assert (demos.y != played.y).any()  # the labels are not greedy's
    solve, best = _rule_labels(demos.x, demos.mask, 4)
    assert 0 < solve.sum() < 40
    np.testing.assert_array_equal(demos.y == SOLVE_ACTION, solve)
    queries = np.flatnonzero(~solve)
    np.testing.assert_array_equal(demos.y[queries], best[queries].argmax(axis=1))  # ties: lowest action id
    assert demos.info == {"teacher": "greedy", "label": "deducer-own", "encoding": "compact-v3",
                          "num_players": 4, "seed": 21, "opponents": [["heuristic", 1.0]], "beta": 1.0,
                          "policy": None}
    again = collect(4, "greedy", 40, label="deducer-own", **kw)  # determinism by seed
    for k in ("x", "mask", "y", "value", "played_teacher"):
        np.testing.assert_array_equal(getattr(again, k), getattr(demos, k))
    other = collect(4, "greedy", 40, label="deducer-own", **{**kw, "seed": 22})
    assert not np.array_equal(other.x, demos.x)


def test_labeller_never_sees_the_own_case():
    """The leak-test pattern on the labelling path (:class:`Teacher` on an engine state, as
    :func:`collect` labels): paired 4-player games that differ only in the labelled player's own
    case get the same labels from equally seeded ``deducer-own`` labellers until an answer to that
    player differs."""
    _rl()
    from helpers import paired_games, step_pair

    from pi_env.rl.imitate import Teacher

    cfg = GameConfig(num_players=4)
    reasons = []
    labels = 0
    for seed in (1, 2):
        for p in range(4):
            a, b, rng = paired_games(cfg, seed, p)
            ta, tb = Teacher("deducer-own", cfg, 1, seed=5), Teacher("deducer-own", cfg, 1, seed=5)
            ta.new_games(np.array([0]))
            tb.new_games(np.array([0]))
            while True:
                if a.done[0]:
                    reasons.append("game over")
                    break
                if int(a.current_player[0]) == p:
                    one = np.array([0])
                    assert ta.act(a, one, np.array([p])).tolist() == tb.act(b, one, np.array([p])).tolist()
                    labels += 1
                if step_pair(a, b, cfg, p, rng):
                    reasons.append("answer differs")
                    break
    assert "answer differs" in reasons and labels >= 8


def test_collect_bad_input_is_named():
    _rl()
    from pi_env.rl.imitate import collect

    with pytest.raises(PIError, match="needs the policy"):
        collect(2, "greedy", 10, beta=0.5)
    with pytest.raises(PIError, match=r"beta must be in \[0, 1\]"):
        collect(2, "greedy", 10, beta=1.5)
    with pytest.raises(UnknownNameError):
        collect(2, "no-such-agent", 10)
    with pytest.raises(UnknownNameError, match="unknown agent 'no-such-labeller'"):
        collect(2, "greedy", 10, label="no-such-labeller")


def test_fit_reproduces_a_hand_made_dataset_exactly():
    """Eight hand-made positions (distinct inputs, different legal sets, labels the teacher
    chose): after the fit the masked argmax is the label in every row and the value head is
    within 0.1 of each target (they are 0.25 apart; the shared trunk also serves the policy)."""
    _rl()
    import torch

    from pi_env.rl.imitate import Demonstrations, _heads, fit

    model = _tiny_model()
    n = model.observation_space.shape[0]
    rng = np.random.default_rng(0)
    x = rng.random((8, n), dtype=np.float32)
    mask = np.zeros((8, 51), dtype=bool)
    y = np.array([0, 5, 17, 35, 36, 49, 50, 50])
    for r in range(8):
        mask[r, rng.choice(51, size=10, replace=False)] = True
        mask[r, y[r]] = True
        mask[r, 50] = True
    value = np.array([0, 1, 0.5, 1, 0, 0.25, 1, 0], dtype=np.float32)
    demos = Demonstrations(x, mask, y, value, np.ones(8, dtype=bool))
    stats = fit(model.policy, demos, epochs=400, minibatch=8, lr=3e-3, holdout=0.0)
    assert stats["imitation_rows"] == 8 and stats["imitation_agreement"] == 1.0
    with torch.no_grad():
        logits, v = _heads(model.policy, torch.from_numpy(x))
    chosen = np.where(mask, logits.numpy(), -np.inf).argmax(1)
    np.testing.assert_array_equal(chosen, y)
    np.testing.assert_allclose(v.numpy(), value, atol=0.1)  # targets 0.25 apart: each told apart
    # a label its mask forbids is named by row
    bad = Demonstrations(x, mask.copy(), y.copy(), value, np.ones(8, dtype=bool))
    bad.mask[3, 35] = False
    with pytest.raises(PIError, match="demonstration row 3: choice 35 is not allowed by its mask"):
        fit(model.policy, bad, epochs=1)


def test_demonstrations_round_trip_and_unreadable_file(tmp_path):
    _rl()
    from pi_env.rl.imitate import Demonstrations, collect

    demos = collect(2, "gain", 64, num_envs=8, seed=2)
    demos.save(str(tmp_path / "d.npz"))
    back = Demonstrations.load(str(tmp_path / "d.npz"))
    for k in ("x", "mask", "y", "value", "played_teacher"):
        np.testing.assert_array_equal(getattr(back, k), getattr(demos, k))
    both = Demonstrations.concat([demos, back])
    assert len(both) == 128 and np.array_equal(both.y[64:], demos.y)
    (tmp_path / "bad.npz").write_bytes(b"not a zip")
    with pytest.raises(PIError, match="demonstrations file .*bad.npz.* is not readable"):
        Demonstrations.load(str(tmp_path / "bad.npz"))


def test_training_with_a_dagger_warm_start_records_every_round(tmp_path):
    """``--imitate gain --dagger-rounds 1``: two imitation rounds (their policies written), their
    statistics in run.json, then PPO."""
    _rl()
    from pi_env.rl.cli import train_main as main

    out = tmp_path / "run"
    code = main(["2p", "--timesteps", "1024", "--out", str(out), "--num-envs", "64", "--n-steps", "16",
                 "--batch-size", "512", "--n-epochs", "1", "--trunk", "32", "--hidden", "16", "--no-progress",
                 "--imitate", "gain", "--imitate-rows", "600", "--dagger-rounds", "1", "--imitate-epochs", "2"])
    assert code == 0
    assert sorted(p.name for p in (out / "imitation").glob("round_*.pt")) == ["round_0.pt", "round_1.pt"]
    run = json.loads((out / "run.json").read_text())
    rounds = run["warm_start"]["rounds"]
    assert [r["round"] for r in rounds] == [0, 1] and [r["rows"] for r in rounds] == [600, 600]
    assert rounds[1]["imitation_rows"] == 1200
    from pi_env.agents.learned import load_model

    _, meta = load_model(str(out / "imitation" / "round_1.pt"))
    card = meta["card"]
    assert card["imitation_round"] == 1 and card["teacher"] == "gain" and card["timesteps"] == 1200
    assert card["seconds"] > 0 and card["imitation_agreement"] == rounds[1]["imitation_agreement"]


def test_command_line_collection_equals_collect_and_feeds_training(tmp_path, capsys):
    """``python -m pi_env.rl.imitate`` writes the rows of :func:`collect` with the same arguments;
    an existing file is refused; ``train --demos`` uses them as the first round and refuses rows of
    another width, naming the files."""
    _rl()
    from pi_env.rl.cli import imitate_main as main
    from pi_env.rl.imitate import Demonstrations, collect
    from pi_env.rl.cli import train_main

    f = tmp_path / "d.npz"
    assert main(["2p", "--teacher", "gain", "--rows", "300", "--seed", "5", "--opponents", "gain:1,random:1",
                 "--num-envs", "16", "--out", str(f), "--no-progress"]) == 0
    got = Demonstrations.load(str(f))
    want = collect(2, "gain", 300, opponents=[("gain", 1.0), ("random", 1.0)], num_envs=16, seed=5)
    for k in ("x", "mask", "y", "value", "played_teacher"):
        np.testing.assert_array_equal(getattr(got, k), getattr(want, k))
    capsys.readouterr()
    with pytest.raises(SystemExit) as exc:
        main(["2p", "--teacher", "gain", "--rows", "10", "--out", str(f)])
    assert exc.value.code == 2 and "exists: --force to overwrite it" in capsys.readouterr().err
    common = ["2p", "--timesteps", "1024", "--num-envs", "64", "--n-steps", "16", "--batch-size", "512",
              "--n-epochs", "1", "--trunk", "32", "--hidden", "16", "--no-progress", "--imitate", "gain",
              "--imitate-epochs", "1"]
    assert train_main([*common, "--out", str(tmp_path / "run"), "--demos", f"{f},{f}"]) == 0
    run = json.loads((tmp_path / "run" / "run.json").read_text())
    assert run["warm_start"]["rounds"][0]["rows"] == 600
    narrow = tmp_path / "narrow.npz"
    Demonstrations(got.x[:, :10], got.mask, got.y, got.value, got.played_teacher).save(str(narrow))
    with pytest.raises(SystemExit) as exc:
        train_main([*common, "--out", str(tmp_path / "run2"), "--demos", str(narrow)])
    err = capsys.readouterr().err.strip().splitlines()
    assert exc.value.code == 2 and len(err) == 1 and "narrow.npz" in err[0] and "10 inputs" in err[0]
    assert not (tmp_path / "run2").exists()  # checked before the run directory is created
    # a truncated and an empty file: one line naming the file, exit 2, no run directory
    data = f.read_bytes()
    (tmp_path / "trunc.npz").write_bytes(data[: len(data) // 2])
    (tmp_path / "empty.npz").write_bytes(b"")
    for bad, kind in (("trunc.npz", "BadZipFile"), ("empty.npz", "EOFError")):
        with pytest.raises(SystemExit) as exc:
            train_main([*common, "--out", str(tmp_path / "run3"), "--demos", str(tmp_path / bad)])
        err = capsys.readouterr().err.strip().splitlines()
        assert exc.value.code == 2 and len(err) == 1, err
        assert f"demonstrations file {str(tmp_path / bad)!r} is not readable ({kind})" in err[0], err
        assert not (tmp_path / "run3").exists()


def test_labelled_collection_from_the_command_line_and_imitation_only_training(tmp_path, capsys):
    """``--teacher gain --label deducer-own`` writes :func:`collect`'s rows with that labeller; an
    unknown labeller is one line (exit 2, nothing written); ``train --timesteps 0 --demos F``
    trains no PPO: ``policy.pt`` is the clone (the file ``imitation/round_0.pt``, card and all) and
    its card names who played and who labelled the rows."""
    _rl()
    import torch

    from pi_env.agents.learned import load_model
    from pi_env.rl.cli import imitate_main as main
    from pi_env.rl.imitate import Demonstrations, collect
    from pi_env.rl.cli import train_main

    f = tmp_path / "d.npz"
    assert main(["2p", "--teacher", "gain", "--label", "deducer-own", "--rows", "60", "--seed", "3",
                 "--num-envs", "4", "--out", str(f), "--no-progress"]) == 0
    got = Demonstrations.load(str(f))
    want = collect(2, "gain", 60, num_envs=4, seed=3, label="deducer-own")
    for k in ("x", "mask", "y", "value", "played_teacher"):
        np.testing.assert_array_equal(getattr(got, k), getattr(want, k))
    assert got.info["teacher"] == "gain" and got.info["label"] == "deducer-own"
    capsys.readouterr()
    with pytest.raises(SystemExit) as exc:
        main(["2p", "--teacher", "gain", "--label", "nobody", "--rows", "10", "--out", str(tmp_path / "n.npz")])
    err = capsys.readouterr().err.strip().splitlines()
    assert exc.value.code == 2 and len(err) == 1 and "unknown agent 'nobody'" in err[0]
    assert not (tmp_path / "n.npz").exists()
    out = tmp_path / "run"
    assert train_main(["2p", "--timesteps", "0", "--out", str(out), "--num-envs", "4", "--trunk", "32",
                       "--hidden", "16", "--no-progress", "--imitate", "deducer-own", "--imitate-epochs", "1",
                       "--demos", str(f)]) == 0
    _, meta = load_model(str(out / "policy.pt"))
    a = torch.load(out / "policy.pt", weights_only=True)["state_dict"]
    b = torch.load(out / "imitation" / "round_0.pt", weights_only=True)["state_dict"]
    assert a.keys() == b.keys() and all(torch.equal(a[k], b[k]) for k in a)
    card = meta["card"]
    assert card["imitation_round"] == 0 and card["teacher"] == "deducer-own" and card["timesteps"] == 60
    assert card["demos"] == [{"file": "d.npz", "rows": 60, **got.info}]
    run = json.loads((out / "run.json").read_text())
    assert run["timesteps"] == 0 and run["warm_start"]["demos"] == card["demos"]
    capsys.readouterr()
    with pytest.raises(SystemExit) as exc:
        train_main(["2p", "--timesteps", "0", "--out", str(tmp_path / "run2")])
    assert exc.value.code == 2 and "0: imitation only, with --imitate" in capsys.readouterr().err


def test_demos_alone_clone_the_agent_that_labelled_them(tmp_path, capsys):
    """``train --demos F`` without ``--imitate`` clones the agent that labelled F's rows (its
    ``info["label"]``, not the agent that played them), ``--timesteps 0`` included (imitation
    only), from the command line and from :func:`pi_env.rl.train.train`; files that do not name one
    label are refused in one line naming every file (exit 2, no run directory); ``--imitate NAME``
    given keeps its teacher; ``--init`` with ``--demos`` is refused as with ``--imitate``."""
    _rl()
    from pi_env.rl.cli import imitate_main, train_main
    from pi_env.rl.imitate import Demonstrations
    from pi_env.rl.train import train

    gain, rand = tmp_path / "gain.npz", tmp_path / "rand.npz"
    for f, extra in ((gain, []), (rand, ["--label", "random"])):
        assert imitate_main(["2p", "--teacher", "gain", *extra, "--rows", "24", "--seed", "3", "--num-envs", "4",
                             "--out", str(f), "--no-progress"]) == 0
    assert Demonstrations.load_info(str(gain))["label"] == "gain"
    assert Demonstrations.load_info(str(rand))["teacher"] == "gain" and Demonstrations.load_info(str(rand))["label"] == "random"
    net = ["--num-envs", "4", "--trunk", "32", "--hidden", "16", "--no-progress", "--imitate-epochs", "1"]
    out = tmp_path / "run"
    assert train_main(["2p", "--timesteps", "0", "--out", str(out), *net, "--demos", str(gain)]) == 0
    run = json.loads((out / "run.json").read_text())
    assert run["settings"]["imitate"] == "gain" and run["settings"]["demos"] == str(gain)
    assert run["warm_start"]["imitation_teacher"] == "gain" and run["timesteps"] == 0
    assert [r["rows"] for r in run["warm_start"]["rounds"]] == [24]
    run = train("2p", 0, tmp_path / "lib", num_envs=4, trunk=(32,), hidden=(16,), imitate_epochs=1, demos=str(rand),
                progress=False)  # the library: the label (random), not the agent that played (gain)
    assert run["settings"]["imitate"] == run["warm_start"]["imitation_teacher"] == "random"
    assert json.loads((tmp_path / "lib" / "run.json").read_text())["settings"]["imitate"] == "random"
    old = tmp_path / "old.npz"  # a file without info (written before it existed): no label
    d = Demonstrations.load(str(gain))
    Demonstrations(d.x, d.mask, d.y, d.value, d.played_teacher).save(str(old))
    nobody = tmp_path / "nobody.npz"
    Demonstrations(d.x, d.mask, d.y, d.value, d.played_teacher, {"label": "nobody"}).save(str(nobody))
    prog = "python -m pi_env.rl.train: error: "
    for files, argv, line in (
            ([gain, rand], [], f"--demos: the files are not labelled by one agent ({str(gain)!r}: gain, "
                               f"{str(rand)!r}: random); name the teacher with --imitate NAME"),
            ([gain, old], [], f"--demos: the files are not labelled by one agent ({str(gain)!r}: gain, "
                              f"{str(old)!r}: no label); name the teacher with --imitate NAME"),
            ([nobody], [], "--demos (the files' label): unknown agent 'nobody'"),
            ([gain], ["--init", "learned:2p"], "--init and --demos exclude each other (both start the network)")):
        capsys.readouterr()
        with pytest.raises(SystemExit) as exc:
            train_main(["2p", "--timesteps", "0", "--out", str(tmp_path / "refused"), *net, *argv,
                        "--demos", ",".join(map(str, files))])
        err = capsys.readouterr().err.splitlines()
        assert exc.value.code == 2 and len(err) == 1 and err[0].startswith(prog + line), err
        assert files[0] == nobody or err == [prog + line]
        assert not (tmp_path / "refused").exists()
    with pytest.raises(PIError) as exc:
        train("2p", 0, tmp_path / "refused", num_envs=4, demos=f"{rand},{old}", progress=False)
    assert str(exc.value) == (f"--demos: the files are not labelled by one agent ({str(rand)!r}: random, "
                              f"{str(old)!r}: no label); name the teacher with --imitate NAME")
    assert not (tmp_path / "refused").exists()
    out = tmp_path / "named"  # --imitate given: its teacher, whatever the files' labels
    assert train_main(["2p", "--timesteps", "0", "--out", str(out), *net, "--imitate", "gain",
                       "--demos", f"{gain},{rand},{old}"]) == 0
    run = json.loads((out / "run.json").read_text())
    assert run["settings"]["imitate"] == run["warm_start"]["imitation_teacher"] == "gain"
    assert [r["rows"] for r in run["warm_start"]["rounds"]] == [72]


def test_demos_on_resume_of_a_run_without_a_warm_start_is_refused(tmp_path, capsys):
    """``--resume --demos F`` of a run started without a warm start (its saved ``imitate`` is
    ``None``): one line saying ``--demos`` only starts a run; the run directory is left as it was."""
    _rl()
    from pi_env.rl.cli import train_main
    from pi_env.rl.settings import DEFAULTS

    out = tmp_path / "run"
    (out / "checkpoints").mkdir(parents=True)
    (out / "checkpoints" / "step_64.zip").write_bytes(b"")
    doc = json.dumps({"settings": {**DEFAULTS, "task": "2p"}, "sessions": []})
    (out / "run.json").write_text(doc)
    capsys.readouterr()
    with pytest.raises(SystemExit) as exc:
        train_main(["2p", "--out", str(out), "--resume", "--demos", str(tmp_path / "d.npz")])
    assert exc.value.code == 2
    assert capsys.readouterr().err.splitlines() == [
        "python -m pi_env.rl.train: error: --demos: the run was started without an imitation warm start; "
        "--demos only starts a run (leave it out to resume)"]
    assert (out / "run.json").read_text() == doc and sorted(p.name for p in out.rglob("*")) == [
        "checkpoints", "run.json", "step_64.zip"]


@pytest.mark.parametrize("argv, message", [
    (["--teacher", "nonesuch"], "--teacher: unknown agent 'nonesuch'"),
    (["--label", "nonesuch"], "--label: unknown agent 'nonesuch'"),
    (["--opponents", "gain:1,nonesuch:2"], "--opponents: unknown agent 'nonesuch'"),
    (["--teacher", "learned:2p"], "--teacher: learned model '"),
    (["--opponents", "learned:2p:0.5"], "was trained for 2 players, not 4"),
    (["--label", "learned:{dir}"], "--label: learned model '{dir}' is a directory, not a model file; "
                                   "did you mean learned:{dir}/policy.pt?"),
    (["--rows", "0"], "--rows must be at least 1, got 0"),
    (["--num-envs", "-3"], "--num-envs must be at least 1, got -3"),
    (["--workers", "0"], "--workers must be at least 1, got 0"),
    (["--workers", "100000"], "--workers 100000: this machine has "),
    (["--encoding", "solo-compact-v1"], "--encoding: encoding 'solo-compact-v1' is for Solo Time Attack models"),
    (["--policy", "{dir}/missing.pt"], "--policy: unknown learned model '{dir}/missing.pt': not a zoo name"),
    (["--gamma", "3"], "--gamma: 3.0 is greater than the maximum of 1"),
    (["--beta", "-1", "--policy", "learned:4p"], "--beta: -1.0 is less than the minimum of 0"),
    (["--out", "{dir}", "--force"], "--out: {dir} is a directory, not a file"),
    (["--out", "{dir}/policy.pt/d.npz"], "a parent of it is a file, not a directory"),
])
def test_command_line_errors_name_the_option_and_write_nothing(tmp_path, capsys, argv, message):
    """Every bad option of ``python -m pi_env.rl.imitate`` is one line naming it (exit 2), found
    before any game is played; nothing is written (no ``.tmp.npz`` either)."""
    _rl()
    from pi_env.rl.cli import imitate_main as main

    run_dir = tmp_path / "run"
    run_dir.mkdir()
    (run_dir / "policy.pt").write_bytes(b"")
    argv = [a.format(dir=run_dir) for a in argv]
    if "--out" not in argv:
        argv += ["--out", str(tmp_path / "d.npz")]
    with pytest.raises(SystemExit) as exc:
        main(["4p", "--rows", "20", "--no-progress", *argv] if "--rows" not in argv else ["4p", "--no-progress", *argv])
    err = capsys.readouterr().err.strip().splitlines()
    assert exc.value.code == 2 and len(err) == 1
    assert err[0].startswith("python -m pi_env.rl.imitate: error: ") and message.format(dir=run_dir) in err[0]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["run"]
    assert sorted(p.name for p in run_dir.iterdir()) == ["policy.pt"]


def test_a_failed_write_leaves_no_temporary_file(tmp_path, capsys, monkeypatch):
    """When writing ``--out`` fails after the collection, the error is one line and the
    ``.tmp.npz`` file is removed."""
    _rl()
    from pi_env.rl import imitate
    from pi_env.rl.cli import imitate_main

    def fail(self, path):
        open(path, "wb").close()  # a partial file, then the disk fails
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(imitate.Demonstrations, "save", fail)
    with pytest.raises(SystemExit) as exc:
        imitate_main(["2p", "--teacher", "gain", "--rows", "10", "--num-envs", "4", "--no-progress",
                      "--out", str(tmp_path / "d.npz")])
    err = capsys.readouterr().err.strip().splitlines()
    assert exc.value.code == 2 and len(err) == 1
    assert err[0].endswith(f"--out: cannot write {tmp_path / 'd.npz'} (No space left on device)")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("argv, message", [
    (["--opponents", "nonesuch"], "--opponents: unknown agent 'nonesuch'"),
    (["--imitate-opponents", "gain,nonesuch:0.5"], "--imitate-opponents: unknown agent 'nonesuch'"),
    (["--imitate-opponents", "gain:x"], "--imitate-opponents entry 'gain:x': the weight 'x' is not a number"),
    (["--imitate", "nonesuch"], "--imitate: unknown agent 'nonesuch'"),
    (["--opponents", "learned:4p"], "--opponents: learned model '"),
])
def test_train_agent_errors_name_the_option_and_write_nothing(tmp_path, capsys, argv, message):
    _rl()
    from pi_env.rl.cli import train_main

    with pytest.raises(SystemExit) as exc:
        train_main(["2p", "--timesteps", "64", "--out", str(tmp_path / "run"), "--no-progress", *argv])
    err = capsys.readouterr().err.strip().splitlines()
    assert exc.value.code == 2 and len(err) == 1
    assert err[0].startswith("python -m pi_env.rl.train: error: ") and message in err[0]
    assert list(tmp_path.iterdir()) == []


def test_parse_opponents_keeps_learned_model_names_whole():
    from pi_env.rl.train import parse_opponents

    assert parse_opponents("learned:2p, gain:0.25,learned:a/b.pt:3,heuristic") == [
        ("learned:2p", 1.0), ("gain", 0.25), ("learned:a/b.pt", 3.0), ("heuristic", 1.0)]
    with pytest.raises(PIError, match="^--imitate-opponents lists no agent$"):
        parse_opponents(" , ", "--imitate-opponents")


def test_collect_parallel_refuses_more_workers_than_cpus_and_starts_no_more_than_rows(monkeypatch):
    """``workers`` above ``os.cpu_count()`` is refused before any process starts; 3 rows over 2
    workers is 2 jobs of 2 and 1 rows, 1 row over 2 workers runs here (one job)."""
    _rl()
    import os

    from pi_env.rl import imitate

    with pytest.raises(PIError, match=rf"^--workers {os.cpu_count() + 1}: this machine has {os.cpu_count()} CPU"):
        imitate.collect_parallel(2, "gain", 10, workers=os.cpu_count() + 1)
    calls = []
    monkeypatch.setattr(imitate, "collect", lambda **job: calls.append(job["rows"]) or "here")
    monkeypatch.setattr(os, "cpu_count", lambda: 4)
    assert imitate.collect_parallel(2, "gain", 1, workers=4) == "here" and calls == [1]


def test_a_bad_option_is_named_before_an_existing_out(tmp_path, capsys):
    """The options are checked before ``--out``: with an existing file the bad option is reported."""
    _rl()
    from pi_env.rl.cli import imitate_main as main

    out = tmp_path / "d.npz"
    out.write_bytes(b"old")
    with pytest.raises(SystemExit) as exc:
        main(["2p", "--rows", "20", "--no-progress", "--out", str(out), "--opponents", "x:1"])
    err = capsys.readouterr().err.strip().splitlines()
    assert exc.value.code == 2 and len(err) == 1 and "--opponents: unknown agent 'x'" in err[0], err
    assert out.read_bytes() == b"old"


def test_the_progress_bar_stops_at_the_rows_asked(monkeypatch):
    """The bar counts rows kept: it ends at ``rows`` though the last games bring more."""
    _rl()
    import tqdm

    from pi_env.rl.imitate import collect

    seen = []

    class Bar:
        def __init__(self, total, **kwargs):
            self.total, self.n = total, 0

        def update(self, k):
            self.n += k

        def close(self):
            seen.append((self.total, self.n))

    monkeypatch.setattr(tqdm, "tqdm", Bar)
    demos = collect(2, "gain", 50, num_envs=8, seed=1, progress=True)
    assert len(demos) == 50 and seen == [(50, 50)]


def test_an_interrupt_ends_collect_parallel_without_waiting_for_the_workers():
    """Ctrl-C (or SIGTERM, turned into one) while 2 workers collect ends the call within seconds:
    the pool is terminated, not drained (their 1,000,000 rows would take minutes)."""
    _rl()
    import os
    import signal
    import threading
    import time

    from pi_env.rl.imitate import collect_parallel

    if (os.cpu_count() or 1) < 2:
        pytest.skip("needs 2 CPUs")
    timer = threading.Timer(8.0, signal.pthread_kill, (threading.main_thread().ident, signal.SIGINT))
    t0 = time.perf_counter()
    timer.start()
    with pytest.raises(KeyboardInterrupt):
        collect_parallel(2, "gain", 1_000_000, workers=2, num_envs=64)
    # 8 s, then the pool's end: seconds on an idle machine, up to ~20 s on a loaded one (several test
    # runs sharing 2 cores); draining 1,000,000 rows would take minutes
    assert time.perf_counter() - t0 < 40.0


@pytest.mark.parametrize("missing", ["torch", "stable_baselines3", "sb3_contrib"])
def test_without_the_rl_extra_imitate_and_the_speed_benchmark_print_the_install_hint(missing):
    """Without torch / stable-baselines3 / sb3-contrib (simulated: the module blocked in
    ``sys.modules``), ``imitate`` and ``benchmarks/rl_training_speed.py`` print the one-line install
    hint (exit 2) and write nothing, as ``train`` does."""
    import subprocess
    import sys
    from pathlib import Path

    from pi_env.agents.sb3_policy import RL_INSTALL_HINT

    root = Path(__file__).resolve().parents[1]
    block = f"import sys; sys.modules[{missing!r}] = None; "
    runs = {
        "imitate": block + "from pi_env.rl.cli import imitate_main; sys.exit(imitate_main(['2p', '--rows', '10', '--out', 'x.npz']))",
        "benchmark": block + "import runpy; sys.argv = ['rl_training_speed.py']; "
                             "runpy.run_path('benchmarks/rl_training_speed.py', run_name='__main__')",
    }
    for what, code in runs.items():
        out = subprocess.run([sys.executable, "-c", code], cwd=root, capture_output=True, text=True, timeout=120)
        err = out.stderr.strip().splitlines()
        assert out.returncode == 2 and len(err) == 1, (what, out.stderr)
        assert "need the 'rl' extra" in err[0] and err[0].endswith(RL_INSTALL_HINT), (what, err)
        assert out.stdout == ""
    assert not (root / "x.npz").exists()
