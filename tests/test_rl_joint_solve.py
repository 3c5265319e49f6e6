"""The learned agents' solve choice at 3–5 players names the joint posterior's most likely case
(issue #12 item 4): the case ``greedy`` names, from the observation and from the engine state alike;
at 2 players the own-information pick is unchanged."""

from __future__ import annotations

import numpy as np
import pytest

from pi_env.agents.greedy import assess
from pi_env.agents.learned import best_cases, best_cases_from_counts, best_cases_from_mask, best_cases_of_state
from pi_env.engine import legal_action_mask, observe
from pi_env.solvers import analyze_knowledge, joint_case_counts, knowledge_from_observation
from pi_env.solvers.own_info import observation_case_mask, own_case_mask
from test_rl_train import _played


def test_best_cases_from_counts_takes_the_largest_count_lowest_id_on_ties():
    counts = np.zeros((3, 1680), dtype=np.int64)
    counts[0, [5, 9, 700]] = [2, 7, 7]
    counts[1, 1679] = 1
    assert best_cases_from_counts(counts).tolist() == [9, 1679, 0]


@pytest.mark.parametrize("num_players,seed", [(3, 11), (4, 12), (5, 14)])
def test_joint_pick_is_greedys_case_from_observation_and_state(num_players, seed):
    """Against the solver's own analysis (:func:`analyze_knowledge`, an independent path): the
    counts are proportional to its probabilities, and the pick is the case ``greedy`` names."""
    cfg, st = _played(num_players, 5, seed, 30)
    differs = 0
    for p in range(num_players):
        obs = observe(st, p)
        mask = legal_action_mask(st)
        counts = joint_case_counts(st, cfg.board, p)
        from_obs = best_cases(obs, num_players, cfg.board)
        assert from_obs.tolist() == best_cases_of_state(st, cfg.board, np.full(5, p)).tolist()
        for b in range(5):
            a = analyze_knowledge(knowledge_from_observation(obs[b], num_players, cfg.board), strict=False)
            assert np.flatnonzero(counts[b]).tolist() == a.cases.tolist()
            w = counts[b, a.cases] / counts[b].sum()
            assert np.allclose(w, a.probabilities)
            assert from_obs[b] == assess(obs[b], mask[b], num_players, cfg.board).best_case
            own = best_cases_from_mask(observation_case_mask(obs[b:b + 1], num_players, cfg.board))[0]
            differs += int(own != from_obs[b])
    assert differs > 0  # the own-information pick is not the joint one in some of these positions


def test_two_players_keep_the_own_information_pick():
    """2 players: the joint posterior is the own-information set, uniform (counts 0/1), and the
    pick is the own-information one (the marginal-count rule), as ``learned:2p`` was trained."""
    cfg, st = _played(2, 6, 21, 20)
    for p in range(2):
        counts = joint_case_counts(st, cfg.board, p)
        assert np.array_equal(counts, own_case_mask(st, cfg.board, p).astype(np.int64))
        obs = observe(st, p)
        want = best_cases_from_mask(observation_case_mask(obs, 2, cfg.board))
        assert best_cases(obs, 2, cfg.board).tolist() == want.tolist()
        assert best_cases_of_state(st, cfg.board, np.full(6, p)).tolist() == want.tolist()


# --- compact-v2: compact-v1 and the joint block -----------------------------------------------

@pytest.mark.parametrize("num_players,seed", [(2, 31), (4, 32)])
def test_compact_v2_is_v1_then_the_joint_posterior_from_observations_and_state(num_players, seed):
    from pi_env.agents.learned import encode_observations, encode_state, encoding_size

    cfg, st = _played(num_players, 4, seed, 30)
    n1 = encoding_size("compact-v1", num_players)
    assert encoding_size("compact-v2", num_players) == n1 + 38 == 254 + 8 * num_players
    for p in range(num_players):
        x = encode_state("compact-v2", st, cfg, np.full(4, p))
        assert np.array_equal(x, encode_observations("compact-v2", observe(st, p), cfg))
        assert np.array_equal(x[:, :n1], encode_state("compact-v1", st, cfg, np.full(4, p)))
        counts = joint_case_counts(st, cfg.board, p)
        for b in range(4):
            a = analyze_knowledge(knowledge_from_observation(observe(st, p)[b], num_players, cfg.board), strict=False)
            probs = np.asarray(a.probabilities, dtype=np.float64)
            want = np.zeros(36)
            np.add.at(want, a.cases // 140, probs)
            np.add.at(want, 12 + (a.cases // 14) % 10, probs)
            np.add.at(want, 22 + a.cases % 14, probs)
            assert np.allclose(x[b, n1:n1 + 36], want, atol=1e-6)
            assert x[b, n1 + 36] == pytest.approx(np.log2(a.cases.size) / np.log2(1680), abs=1e-6)
            assert x[b, n1 + 37] == pytest.approx(probs.max(), abs=1e-6)
        if num_players == 2:  # the joint block repeats the own-information marginals
            assert np.allclose(x[:, n1:n1 + 37], x[:, :37])


@pytest.mark.parametrize("num_players", [2, 4])
def test_compact_v2_never_shows_the_own_case(num_players):
    """Paired games that differ only in the observer's own case look identical to it (its input,
    mask and named case) until an answer to it differs."""
    from test_rl_train import run_pair

    reasons = [run_pair(num_players, seed, p, "compact-v2") for seed in (1, 2) for p in range(num_players)]
    assert "answer differs" in reasons


# --- compact-v3: compact-v2 and each query's own-information gain relative to the best ----------

def test_query_extra_hand_worked():
    """Gains 1, 0.5, 0 (cannot split) and 2 (not available): the best available gain is 1."""
    from pi_env.agents.learned import _query_extra

    gains = np.zeros((1, 50))
    gains[0, :4] = [1.0, 0.5, 0.0, 2.0]
    available = np.zeros((1, 50), dtype=bool)
    available[0, :3] = True
    out = _query_extra(gains, available)
    assert out[0, :4].tolist() == pytest.approx([1.0, np.exp(-5.0), 0.0, 0.0])
    assert out[0, 50:54].tolist() == [1.0, 0.0, 0.0, 0.0]
    assert not out[0, 4:50].any() and not out[0, 54:].any()


@pytest.mark.parametrize("num_players,seed", [(2, 33), (4, 34)])
def test_compact_v3_is_v2_then_relative_own_information_gains(num_players, seed):
    """Against the deducer's own-information path (:func:`information_gains` over the
    own-information set, uniform weights) over the queries the encoding shows as available (a clue
    card on the display, a district without the observer's investigator while it has some left):
    ``rel_gain`` and ``best_gain`` per query, from observations and from the engine state alike."""
    from pi_env.agents.learned import encode_observations, encode_state, encoding_size
    from pi_env.solvers.compact import compact_layout
    from pi_env.solvers.hints import answer_matrix, information_gains

    cfg, st = _played(num_players, 4, seed, 24)
    lay = compact_layout(num_players)
    s0, p0, i0 = lay["display"][0], lay["own_inv_placed"][0], lay["inv_left"][0]
    n2 = encoding_size("compact-v2", num_players)
    assert encoding_size("compact-v3", num_players) == n2 + 100 == 354 + 8 * num_players
    checked = 0
    for p in range(num_players):
        obs = observe(st, p)
        x = encode_state("compact-v3", st, cfg, np.full(4, p))
        assert np.array_equal(x, encode_observations("compact-v3", obs, cfg))
        assert np.array_equal(x[:, :n2], encode_state("compact-v2", st, cfg, np.full(4, p)))
        for b in range(4):
            k = knowledge_from_observation(obs[b], num_players, cfg.board)
            cases = np.flatnonzero(observation_case_mask(obs[b:b + 1], num_players, cfg.board)[0])
            acts = np.arange(50)
            g = information_gains(answer_matrix(k, acts, cases), np.full(cases.size, 1.0 / cases.size))
            available = np.concatenate([x[b, s0:s0 + 36] == 1, (x[b, p0:p0 + 14] == 0) & (x[b, i0] > 0)])
            assert 0 < available.sum() < 50
            useful = available & (g > 1e-9)
            rel, best = x[b, n2:n2 + 50], x[b, n2 + 50:]
            if not useful.any():
                assert not rel.any() and not best.any()
                continue
            top = g[useful].max()
            assert np.allclose(rel, np.where(useful, np.exp(-10 * (top - g)), 0.0), atol=1e-4)
            assert np.flatnonzero(best).tolist() == np.flatnonzero(useful & (g >= top - 1e-5)).tolist()
            checked += 1
    assert checked >= 4


@pytest.mark.parametrize("num_players", [2, 4])
def test_compact_v3_never_shows_the_own_case(num_players):
    """Paired games that differ only in the observer's own case look identical to it."""
    from test_rl_train import run_pair

    reasons = [run_pair(num_players, seed, p, "compact-v3") for seed in (1, 2) for p in range(num_players)]
    assert "answer differs" in reasons
