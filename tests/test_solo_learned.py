"""learned:solo (issue #12 items 4-5): the exact evaluation of an agent on every case of a solo
layout (against the greedy's value computed independently), the solo model's loading and play
through every door, its information hygiene, and its training path. The tests that load or train
a model need torch (the rl extra) and skip without it; the rest run everywhere."""

from __future__ import annotations

import numpy as np
import pytest

from pi_env.agents.base import Agent
from pi_env.agents.runner import play_solo_cases
from pi_env.core.constants import INVESTIGATE_BASE, SOLVE_BASE
from pi_env.core.errors import PIError
from pi_env.engine import solo as S
from pi_env.solvers.own_info import solo_observation_case_mask
from pi_env.solvers.solo_optimum import OptimalSearch, answer_codes
from helpers import need_extra

GREEDY_LAYOUT_0 = 10730
"""docs/figures/solo_optimal.csv, layout 0: greedy 6.386904761904866 expected actions = 10730 / 1680."""


def _tiles(seed: int) -> np.ndarray:
    return S.init(S.SoloConfig(), 1, seed=seed).tile_district[0].copy()


class _GreedyFromObservation(Agent):
    """The rating greedy of pi_env.solvers.hints played from the observation: the highest-gain query
    on the consistent cases; when no query splits them, the lowest consistent case."""

    name = "test-greedy"

    def __init__(self, opt: OptimalSearch):
        self.opt = opt
        self.calls = 0

    def act(self, observation, action_mask):
        from pi_env.agents.learned import solo_observation_of_view

        self.calls += 1
        solo = solo_observation_of_view(observation)
        cases = np.flatnonzero(solo_observation_case_mask(solo, self.board))
        k = int(S.decode_observation(solo)["inv_left"][0])
        a = self.opt.greedy_action(cases, k)
        return SOLVE_BASE + int(cases[0]) if a is None else int(a)


def _opt(tiles):
    codes = answer_codes(tiles)
    return OptimalSearch(codes, np.arange(codes.shape[0]) >= INVESTIGATE_BASE, 5, table_bits=12)


def test_every_case_evaluation_equals_the_greedy_tree_on_a_subtree():
    """The cases answering the greedy's first two queries alike, played in the engine: their total
    is 2 per case plus the greedy's total on that set by the answer-table recursion
    (OptimalSearch.rollout_value with no endgame, which equals pi_env.solvers.hints'
    greedy_expected_actions)."""
    tiles = _tiles(0)
    opt = _opt(tiles)
    cases, k = np.arange(1680), 5
    for _ in range(2):
        a = opt.greedy_action(cases, k)
        k -= int(opt.is_inv[a])
        cases = sorted(opt.children(cases, a), key=lambda c: (-c.size, int(c[0])))[1]
    assert 10 <= cases.size <= 200
    agent = _GreedyFromObservation(opt)
    counts, solved = play_solo_cases(agent, tiles, cases=cases)
    assert solved.all() and counts.shape == cases.shape
    assert int(counts.sum()) == 2 * cases.size + opt.rollout_value(cases, k, 0)
    assert agent.calls < counts.sum()  # each node of the tree asked once


@pytest.mark.slow
def test_every_case_evaluation_reproduces_the_greedy_value_of_layout_0():
    tiles = _tiles(0)
    counts, solved = play_solo_cases(_GreedyFromObservation(_opt(tiles)), tiles)
    assert solved.all() and int(counts.sum()) == GREEDY_LAYOUT_0


def test_learned_solo_loads_by_name_and_plays_the_solo_env():
    need_extra("rl", "torch")
    import gymnasium

    from pi_env.agents import make_agent
    from pi_env.agents.learned import LearnedAgent, load_model

    net, meta = load_model("solo")
    assert meta["num_players"] == 0 and meta["encoding"] == "solo-compact-v1" and meta["input_size"] == 250
    agent = make_agent("learned:solo")
    assert isinstance(agent, LearnedAgent)
    agent.reset(2)
    env = gymnasium.make("pi_env.envs.solo:pi_env/SoloTimeAttack-v0")
    for seed in (11, 12):
        obs, info = env.reset(seed=seed)
        done, n = False, 0
        while not done:
            o, m = obs["observation"], obs["action_mask"]
            a = agent.act(o, m)
            assert a == agent.act(S.standard_view(o), m)  # the solo observation or its standard view
            obs, _, term, trunc, info = env.step(a)
            done, n = term or trunc, n + 1
        assert term and not info["forfeited"] and n < 20


def test_learned_solo_paired_cases_same_decisions_until_an_answer_differs():
    """Two games on one layout differing only in the hidden case: the policy's input (the training
    encoding, from the state that holds the case) and its actions stay equal until an answer
    differs."""
    need_extra("rl", "torch")
    from pi_env.agents import make_agent
    from pi_env.rl.solo_imitate import encode

    config = S.SoloConfig()
    agent = make_agent("learned:solo")
    agent.reset(2)
    outcomes = []
    for seed in range(4):
        a = S.init(config, 1, seed=seed)
        b = a.copy()
        b.case[0] = [(int(v) + 1 + seed) % n for v, n in zip(a.case[0], (12, 10, 14))]
        while True:
            ea, eb = encode(a, config), encode(b, config)
            assert all(np.array_equal(u, v) for u, v in zip(ea, eb))
            act = agent.act(S.observe(a)[0], S.legal_action_mask(a)[0])
            assert act == agent.act(S.observe(b)[0], S.legal_action_mask(b)[0])
            S.step_inplace(a, np.array([act]), config)
            S.step_inplace(b, np.array([act]), config)
            if a.last_answer[0].tolist() != b.last_answer[0].tolist() or a.done[0]:
                outcomes.append(a.last_answer[0].tolist() != b.last_answer[0].tolist())
                break
    assert outcomes == [True] * 4


def test_training_encoding_equals_the_agents_and_the_view_round_trip():
    from pi_env.agents.learned import encode_observations, solo_observation_of_view
    from pi_env.rl.solo_imitate import encode

    config = S.SoloConfig()
    st = S.init(config, 24, seed=5)
    rng = np.random.default_rng(5)
    for step in range(6):
        obs = S.observe(st)
        for o in obs:
            assert np.array_equal(solo_observation_of_view(S.standard_view(o)), o)
        x, mask, known = encode(st, config)
        assert np.array_equal(x, encode_observations("solo-compact-v1", obs, config))
        assert np.array_equal(known, solo_observation_case_mask(obs, config.board))
        legal = S.legal_action_mask(st)
        acts = np.array([rng.choice(np.flatnonzero(row[:SOLVE_BASE])) if step % 3 else SOLVE_BASE + 1 + step
                         for row in legal])  # some wrong solves too
        S.step_inplace(st, acts, config)
    assert (st.wrong_solves > 0).any()


def test_solo_model_refused_for_other_player_counts_and_bad_files(tmp_path):
    need_extra("rl", "torch")
    from pi_env.agents._policy_net import PolicyNet
    from pi_env.agents.learned import LearnedAgent, save_model

    agent = LearnedAgent("solo")
    with pytest.raises(PIError, match=r"is a Solo Time Attack model \(it plays the solo game's 2-player view\), not a 4-player game$"):
        agent.reset(4)
    path = tmp_path / "bad.pt"
    save_model(PolicyNet(232, (8,), "relu", (8,)), path, encoding="compact-v1", num_players=0, card={})
    with pytest.raises(PIError, match=r"bad\.pt.*'compact-v1' is not for solo games"):
        LearnedAgent(str(path))


def test_collect_and_fit_learn_the_teacher():
    """A few layouts of teacher rows; the teacher's choices are allowed by the masks; fitting raises
    the agreement above the share of the most frequent choice."""
    need_extra("rl", "torch")
    from pi_env.rl.solo_imitate import SoloRows, collect, fit, new_net

    rows = collect(1000, 2, 12, seed=1)
    assert len(rows) >= 24 and rows.x.shape == (len(rows), 250)
    assert rows.mask[np.arange(len(rows)), rows.y].all()
    assert (rows.y == SOLVE_BASE).sum() >= 24  # every game ends with the solve choice
    net = new_net((32,), (32,))
    stats = fit(net, SoloRows.concat([rows, rows]), epochs=30, minibatch=32, lr=3e-3, holdout=0.0)
    assert stats["agreement"] > np.bincount(rows.y).max() / len(rows)
    with pytest.raises(PIError, match="needs the policy"):
        collect(1000, 1, 4, beta=0.5)


def test_solo_optimal_agent_mode_bad_input(capsys):
    from pi_env.experiments.solo_optimal import main

    with pytest.raises(SystemExit) as exc:
        main(["--agent", "learned:nope", "--layouts", "1"])
    assert exc.value.code == 2
    assert "unknown learned model 'nope'" in capsys.readouterr().err.splitlines()[-1]
    with pytest.raises(SystemExit) as exc:
        main(["--compare", "docs/figures/solo_optimal.csv"])
    assert exc.value.code == 2
    assert "--compare goes with --agent" in capsys.readouterr().err.splitlines()[-1]


@pytest.mark.slow
def test_solo_optimal_agent_mode_table(capsys):
    """One layout through the command: the learned policy's exact value beside the greedy's and the
    optimum's of docs/figures/solo_optimal.csv (layout 0: 6.3869 and 5.9351)."""
    need_extra("rl", "torch")
    from pathlib import Path

    from pi_env.experiments.solo_optimal import agent_expected, main

    csv = Path(__file__).resolve().parent.parent / "docs" / "figures" / "solo_optimal.csv"
    assert main(["--agent", "learned:solo", "--layouts", "1", "--compare", str(csv)]) == 0
    row = capsys.readouterr().out.splitlines()[2]
    r = agent_expected("learned:solo", 0, 0)
    counts, _ = play_solo_cases("learned:solo", _tiles(0))
    assert r.total == int(counts.sum()) and r.greedy * 1680 == pytest.approx(GREEDY_LAYOUT_0)
    assert f"{r.mean:.4f}" in row and "6.3869" in row and "5.9351" in row


def test_solo_imitate_command_writes_a_loadable_run_and_refuses_to_overwrite(tmp_path, capsys):
    need_extra("rl", "torch")
    import json

    from pi_env.agents import make_agent
    from pi_env.rl.cli import solo_imitate_main as main

    out = tmp_path / "run"
    assert main(["--out", str(out), "--layouts", "1", "--cases", "4", "--epochs", "1", "--trunk", "16",
                 "--hidden", "16", "--validate", "0", "--no-progress"]) == 0
    run = json.loads((out / "run.json").read_text())
    assert [r["round"] for r in run["rounds"]] == [0] and run["rounds"][0]["rows"] >= 4
    agent = make_agent(f"learned:{out / 'policy.pt'}")
    assert agent.meta["card"]["timesteps"] == run["rounds"][0]["rows"] and agent.meta["trunk"] == [16]
    with pytest.raises(SystemExit) as exc:
        main(["--out", str(out), "--layouts", "1"])
    assert exc.value.code == 2 and "exists: --force to replace it" in capsys.readouterr().err


@pytest.mark.parametrize("agent, message", [
    ("learned:4p", "was trained for 4 players, not 2"),
    ("learned:{dir}", "learned model '{dir}' is a directory, not a model file; did you mean "
                      "learned:{dir}/policy.pt?"),
    ("nonesuch", "unknown agent 'nonesuch'"),
])
def test_solo_optimal_agent_that_cannot_play_solo_is_one_line(tmp_path, capsys, agent, message):
    """``--agent`` with a model of another player count, a run directory or an unknown name: one
    line naming ``--agent`` (exit 2), no traceback, no game played."""
    from pi_env.experiments.solo_optimal import main

    if agent == "learned:4p":
        need_extra("rl", "torch")  # the model is loaded to learn its player count
    (tmp_path / "policy.pt").write_bytes(b"")
    with pytest.raises(SystemExit) as exc:
        main(["--agent", agent.format(dir=tmp_path), "--layouts", "1"])
    err = capsys.readouterr().err.strip().splitlines()
    assert exc.value.code == 2 and len(err) == 1
    assert err[0].startswith("python -m pi_env.experiments.solo_optimal: error: --agent: ")
    assert message.format(dir=tmp_path) in err[0]
