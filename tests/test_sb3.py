"""MaskablePPO tools (issue #7 item 3): the missing-extra message, masks, the factorized head, the SB3
VecEnv adapters and the ``sb3:PATH`` tournament agent. Tests that need torch / stable-baselines3 /
sb3-contrib (the ``rl`` extra) are skipped without it; CI installs only ``.[test]``."""

from __future__ import annotations

import builtins
import csv

import numpy as np
import pytest

from pi_env.agents import make_agent
from pi_env.agents.sb3_policy import refine_mask
from pi_env.core.constants import NUM_ACTIONS, NUM_CASES, SOLVE_BASE
from pi_env.core.errors import PIError
from helpers import need_extra


def _hide_rl(monkeypatch):
    """Make ``import torch / stable_baselines3 / sb3_contrib`` fail, as without the extra."""
    real_import = builtins.__import__

    def fake_import(name, *args, **kwargs):
        if name.split(".")[0] in ("torch", "stable_baselines3", "sb3_contrib"):
            raise ImportError(f"No module named {name!r}", name=name.split(".")[0])
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", fake_import)


def test_train_script_without_the_extra_says_how_to_install(monkeypatch, capsys):
    from pi_env.experiments import train_sb3

    _hide_rl(monkeypatch)
    with pytest.raises(SystemExit) as exc:
        train_sb3.main(["solo", "--timesteps", "10"])
    assert exc.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1  # no usage block: the command line was fine
    assert err[-1].startswith("python -m pi_env.experiments.train_sb3: error: the MaskablePPO tools need the 'rl' extra")
    assert "pip install '.[rl]'" in err[-1] and "download.pytorch.org/whl/cpu" in err[-1]


def test_sb3_agent_errors_are_one_line(monkeypatch, tmp_path):
    with pytest.raises(PIError, match=r"^sb3 model 'no/such/model.zip' not found"):
        make_agent("sb3:no/such/model.zip")
    fake = tmp_path / "Model.zip"
    fake.write_bytes(b"not a zip")
    _hide_rl(monkeypatch)
    with pytest.raises(PIError, match=r"need the 'rl' extra .*pip install '\.\[rl\]'") as exc:
        make_agent(f"sb3:{fake}")
    assert "\n" not in str(exc.value)


def test_refine_mask_drops_only_failed_solves():
    mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
    mask[[3, 40, SOLVE_BASE, SOLVE_BASE + 7, NUM_ACTIONS - 1]] = 1
    failed = np.zeros(NUM_CASES, dtype=np.float32)
    failed[[7, 9]] = 1.0  # case 9 is not in the mask anyway
    out = refine_mask(mask, failed)
    assert out.dtype == bool
    assert np.flatnonzero(out).tolist() == [3, 40, SOLVE_BASE, NUM_ACTIONS - 1]
    both = refine_mask(np.stack([mask, mask]), np.stack([failed, np.zeros_like(failed)]))
    assert np.flatnonzero(both[1]).tolist() == [3, 40, SOLVE_BASE, SOLVE_BASE + 7, NUM_ACTIONS - 1]


def test_tournament_keeps_the_case_of_model_paths(tmp_path):
    from pi_env.apps.tournament import agent_key

    assert agent_key(" Random ") == "random"
    assert agent_key("SB3:Results/RL/Policy.zip") == "sb3:Results/RL/Policy.zip"


# --- with the rl extra -------------------------------------------------------------------------

def _rl():
    need_extra("rl", "torch", "stable_baselines3", "sb3_contrib")


def test_factorized_head_is_suspect_plus_evidence_plus_location():
    _rl()
    import torch

    from pi_env.agents._sb3_nets import FactorizedActionHead

    torch.manual_seed(0)
    head = FactorizedActionHead(5)
    latent = torch.randn(3, 5)
    logits = head(latent)
    assert logits.shape == (3, NUM_ACTIONS)
    raw = head.linear(latent)
    q, u, v, w, b = raw[:, :50], raw[:, 50:62], raw[:, 62:72], raw[:, 72:86], raw[:, 86]
    assert torch.equal(logits[:, :50], q)
    for s, e, l in [(0, 0, 0), (3, 4, 5), (11, 9, 13), (7, 0, 12)]:
        case = s * 140 + e * 14 + l
        expect = b + u[:, s] + v[:, e] + w[:, l]
        assert torch.allclose(logits[:, SOLVE_BASE + case], expect, atol=1e-6)


def _own_filter(solo_obs):
    """The solver's own-information filter of a solo position (independent of the numpy one)."""
    from pi_env.engine.solo import standard_view
    from pi_env.core.board import DAYTIME
    from pi_env.solvers.case_sets import case_bits
    from pi_env.solvers.observation import knowledge_from_observation
    from pi_env.solvers.tables import from_bitset

    return from_bitset(case_bits(knowledge_from_observation(standard_view(solo_obs), 2, DAYTIME))[0])


def test_solo_consistent_cases_equal_the_solvers_own_filter():
    from pi_env.agents.sb3_policy import solo_consistent_cases
    from pi_env.engine import solo as S

    config = S.SoloConfig()
    state = S.init(config, 12, seed=3)
    rng = np.random.default_rng(1)
    for _ in range(9):  # clues and investigators (suppression included), random
        legal = S.legal_action_mask(state)
        S.step_inplace(state, np.array([rng.choice(np.flatnonzero(m[:SOLVE_BASE])) for m in legal]), config)
        obs = S.observe(state)
        mine = solo_consistent_cases(obs)
        assert mine.shape == (12, NUM_CASES)
        for b in range(12):
            assert np.array_equal(mine[b], _own_filter(obs[b]))
            assert mine[b, S.case_of(state, b)]
    assert np.array_equal(solo_consistent_cases(obs[0]), mine[0])
    assert S.observe(S.init(config, 1, seed=0)).shape == (1, 2452)
    assert solo_consistent_cases(S.observe(S.init(config, 1, seed=0))).all()  # nothing asked yet


@pytest.mark.parametrize("players", [2, 3])
def test_own_consistent_cases_equal_the_solvers_own_filter(players):
    from pi_env.agents.sb3_policy import own_consistent_cases, standard_policy_input
    from pi_env.engine import GameConfig, init, legal_action_mask, observe, step_inplace
    from pi_env.solvers.case_sets import case_bits
    from pi_env.solvers.observation import knowledge_from_observation
    from pi_env.solvers.tables import from_bitset

    config = GameConfig(num_players=players)
    state = init(config, 8, seed=players)
    rng = np.random.default_rng(players)
    checked = 0
    for _ in range(30):  # mostly queries, a solve now and then (failed and correct solves)
        legal = legal_action_mask(state)
        acts = [int(rng.choice(np.flatnonzero(m[:SOLVE_BASE]))) if rng.random() < 0.9
                else SOLVE_BASE + int(rng.integers(NUM_CASES)) for m in legal]
        step_inplace(state, np.array(acts), config)
        for p in range(players):
            obs = observe(state, p)
            mine = own_consistent_cases(obs, players, config.board)
            for b in np.flatnonzero(~state.done):
                ref = from_bitset(case_bits(knowledge_from_observation(obs[b], players, config.board))[0])
                assert np.array_equal(mine[b], ref)
                checked += 1
    assert checked > 100
    x, mask = standard_policy_input(obs, legal_action_mask(state), config)
    assert x.shape == (8, 618 + 1912 * players + 37 + NUM_CASES)
    assert np.array_equal(mask[:, SOLVE_BASE:], mine & legal_action_mask(state)[:, SOLVE_BASE:].astype(bool))
    assert np.array_equal(x[:, -NUM_CASES:], mask[:, SOLVE_BASE:].astype(np.float32))


def test_solo_adapter_same_step_episode_end_and_restart_mask():
    _rl()
    from pi_env.rl.sb3_envs import SOLO_EXTRA, SoloSB3VecEnv
    from pi_env.engine import solo as S

    env = SoloSB3VecEnv(2, seed=5, max_actions=50)
    obs = env.reset()
    assert obs.shape == (2, S.OBSERVATION_SIZE + SOLO_EXTRA) and obs.dtype == np.float32
    assert 0.0 <= obs.min() and obs.max() <= 1.0
    assert env.action_masks().sum(axis=1).tolist() == [NUM_ACTIONS, NUM_ACTIONS]
    assert obs[:, -NUM_CASES:].sum() == 2 * NUM_CASES and np.allclose(obs[:, -NUM_CASES - 1], 1.0)
    case0, case1 = S.case_of(env.venv.game_state, 0), S.case_of(env.venv.game_state, 1)  # test only
    # env 0 solves correctly, env 1 asks the clue of element 0
    env.step_async(np.array([SOLVE_BASE + case0, 0]))
    obs, rewards, dones, infos = env.step_wait()
    assert rewards.tolist() == [-1.0, -1.0] and dones.tolist() == [True, False]
    assert infos[0]["episode"]["r"] == -1.0 and infos[0]["episode"]["l"] == 1
    assert infos[0]["solved"] is True and infos[0]["TimeLimit.truncated"] is False
    assert np.array_equal(infos[0]["terminal_observation"], obs[0]) and infos[1] == {}
    masks = np.stack(env.env_method("action_masks"))
    assert np.flatnonzero(masks[0]).tolist() == [0]  # restart step: one allowed action
    own = _own_filter(S.observe(env.venv.game_state)[1])
    assert not masks[1, 0] and masks[1, 1:SOLVE_BASE].all()  # clue 0 answered: not asked again
    assert np.array_equal(masks[1, SOLVE_BASE:], own) and own[case1]
    assert np.array_equal(obs[1, -NUM_CASES:], own.astype(np.float32))
    assert obs[1, -NUM_CASES - 1] == pytest.approx(np.log2(own.sum()) / np.log2(NUM_CASES))
    wrong = int(np.flatnonzero(own & (np.arange(NUM_CASES) != case1))[0]) if own.sum() > 1 else (case1 + 1) % NUM_CASES
    env.step_async(np.array([0, SOLVE_BASE + wrong]))
    obs, rewards, dones, infos = env.step_wait()
    assert rewards.tolist() == [0.0, -1.0] and dones.tolist() == [False, False]
    actions_at = S.observation_layout()["actions"][0]
    assert obs[0, actions_at] == 0.0  # a new game in slot 0
    assert obs[1, actions_at] == pytest.approx(2 / 50)
    masks = env.action_masks()
    assert masks[0].sum() == NUM_ACTIONS
    assert np.flatnonzero(masks[1, SOLVE_BASE:]).tolist() == np.flatnonzero(own & (np.arange(NUM_CASES) != wrong)).tolist()


def test_normalized_head_splits_whether_and_which():
    _rl()
    import torch

    from pi_env.agents._sb3_nets import NormalizedSolveHead

    torch.manual_seed(0)
    head = NormalizedSolveHead(4 + NUM_CASES, hidden=6)
    allowed = torch.zeros(2, NUM_CASES)
    allowed[0, [5, 700, 1679]] = 1.0
    allowed[1] = 1.0
    latent = torch.cat([torch.randn(2, 4), allowed], dim=1)
    logits = head(latent)
    raw = head.linear(head.hidden(latent[:, :4]))
    q, u, v, w, s = raw[:, :50], raw[:, 50:62], raw[:, 62:72], raw[:, 72:86], raw[:, 86]
    for b, cases in ((0, [5, 700, 1679]), (1, list(range(NUM_CASES)))):
        f = torch.stack([u[b, c // 140] + v[b, c // 14 % 10] + w[b, c % 14] for c in cases])
        expect = s[b] + f - torch.logsumexp(f, 0)
        assert torch.allclose(logits[b, SOLVE_BASE + torch.tensor(cases)], expect, atol=1e-5)
        # masked to the allowed solves, the total solve probability is e^s / (e^s + sum e^q)
        full = torch.cat([logits[b, :50], logits[b, SOLVE_BASE + torch.tensor(cases)]])
        p_solve = torch.softmax(full, 0)[50:].sum()
        assert torch.allclose(p_solve, torch.exp(s[b]) / (torch.exp(s[b]) + torch.exp(q[b]).sum()), atol=1e-5)


def test_selfplay_adapter_observation_is_what_the_agent_computes():
    _rl()
    from pi_env.rl.sb3_envs import SelfPlaySB3VecEnv
    from pi_env.envs.encoders import flat_scales

    env = SelfPlaySB3VecEnv(3, 2, opponents=["random"], seed=2)
    obs = env.reset()
    scales = flat_scales(env.venv.config)
    rng = np.random.default_rng(0)
    for _ in range(5):
        engine = env.venv.engine_observations()
        assert np.array_equal(obs, engine.astype(np.float32) * scales)
        masks = env.action_masks()
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
        env.step_async(actions)
        obs, _, _, _ = env.step_wait()


def test_tournament_plays_a_saved_policy(tmp_path):
    _rl()
    import torch
    from sb3_contrib import MaskablePPO

    from pi_env.agents._sb3_nets import FactorizedMaskablePolicy, SharedInputExtractor
    from pi_env.agents.sb3_policy import SB3PolicyAgent
    from pi_env.rl.sb3_envs import SelfPlaySB3VecEnv
    from pi_env.apps.tournament import TournamentSettings, run_tournament
    from pi_env.engine import GameConfig, init, legal_action_mask, observe
    from pi_env.envs.encoders import flat_scales

    env = SelfPlaySB3VecEnv(2, 2, opponents=["random"], seed=0)
    model = MaskablePPO(FactorizedMaskablePolicy, env, n_steps=8, batch_size=16, n_epochs=1, seed=0,
                        device="cpu", policy_kwargs={"features_extractor_class": SharedInputExtractor,
                                                     "features_extractor_kwargs": {"features_dim": 8},
                                                     "net_arch": {"pi": [8], "vf": [8]}})
    model.learn(16)
    path = tmp_path / "Tiny" / "policy.zip"
    path.parent.mkdir()
    model.policy.save(str(path))
    agent = make_agent(f"sb3:{path}")
    assert isinstance(agent, SB3PolicyAgent) and agent.deterministic
    # the agent's move is the masked argmax of the policy's logits on the flat encoding
    config = GameConfig(num_players=2)
    state = init(config, 1, seed=3)
    agent.reset(2, config.board, seed=0)
    p = int(state.current_player[0])
    o, m = observe(state, p)[0], legal_action_mask(state)[0]
    with torch.no_grad():
        x = torch.as_tensor(o.astype(np.float32) * flat_scales(config))[None]
        logits = agent.policy.get_distribution(x).distribution.logits[0].numpy()
    logits[m == 0] = -np.inf
    assert agent.act(o, m) == int(np.argmax(logits))
    with pytest.raises(PIError, match="takes observations of length 4442, not those of a 3-player game"):
        agent.reset(3)
    summary = run_tournament(TournamentSettings(agents=(f"sb3:{path}", "random"), games=2, players=2, seed=1),
                             tmp_path / "t", workers=1)
    names = sorted(a["agent"] for a in summary["agents"])
    assert names == sorted([f"sb3:{path}", "random"])
    with open(tmp_path / "t" / "games.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == 4 and {r["agent"] for r in rows} == {f"sb3:{path}", "random"}


def test_agent_with_solver_input_plays_only_allowed_solves(tmp_path):
    _rl()
    import torch
    from sb3_contrib import MaskablePPO

    from pi_env.agents._sb3_nets import NormalizedSolvePolicy, PassMaskExtractor
    from pi_env.agents.sb3_policy import standard_policy_input
    from pi_env.rl.sb3_envs import SelfPlaySB3VecEnv
    from pi_env.engine import GameConfig, init, legal_action_mask, observe, step_inplace

    env = SelfPlaySB3VecEnv(2, 2, opponents=["random"], seed=0, consistent=True)
    assert env.observation_space.shape == (4442 + 37 + NUM_CASES,)
    model = MaskablePPO(NormalizedSolvePolicy, env, n_steps=8, batch_size=16, n_epochs=1, seed=0, device="cpu",
                        policy_kwargs={"features_extractor_class": PassMaskExtractor,
                                       "features_extractor_kwargs": {"hidden": 8}, "net_arch": {"pi": [], "vf": [8]}})
    model.learn(16)
    path = tmp_path / "policy.zip"
    model.policy.save(str(path))
    agent = make_agent(f"sb3:{path}")
    assert type(agent.policy).__name__ == "NormalizedSolvePolicy"
    config = GameConfig(num_players=2)
    state = init(config, 1, seed=8)
    agent.reset(2, config.board, seed=0)
    for _ in range(12):
        if state.done[0]:
            break
        p = int(state.current_player[0])
        o, m = observe(state, p)[0], legal_action_mask(state)[0]
        x, mask = standard_policy_input(o[None], m[None], config)
        with torch.no_grad():
            logits = agent.policy.get_distribution(torch.as_tensor(x)).distribution.logits[0].numpy()
        logits[~mask[0]] = -np.inf
        a = agent.act(o, m)
        assert a == int(np.argmax(logits)) and mask[0, a]
        step_inplace(state, np.array([a]), config)
