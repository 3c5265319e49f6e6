"""``deducer-own`` (:class:`pi_env.agents.deducer.OwnQueryDeducerAgent`, issue #12: the labeller of
the 4-player model's demonstrations): it solves on the joint posterior as ``deducer`` does and asks
the legal query of the largest gain over its own-information set, ties to the lowest action id. Checked against the compact
encoding's own-information gains and joint block (the numba kernels: an implementation independent
of the agent's :func:`information_gains` over :func:`answer_matrix`) at every turn of 4-player games
played by ``heuristic`` agents."""

from __future__ import annotations

import numpy as np

from pi_env.agents import AGENTS, DeducerAgent, OwnQueryDeducerAgent, make_agent
from pi_env.agents.learned import encode_state
from pi_env.core.constants import SOLVE_BASE
from pi_env.engine import GameConfig, init, legal_action_mask, observe, step_inplace
from pi_env.solvers import analyze_knowledge, knowledge_from_observation
from pi_env.solvers.compact import GAIN_SCALE, compact_layout, compact_size


def test_deducer_ties_option_is_checked():
    import pytest

    from pi_env.core.errors import PIError

    with pytest.raises(PIError, match="ties must be 'random' or 'first', got 'last'"):
        DeducerAgent(ties="last")


def test_deducer_own_asks_the_best_own_information_query_and_solves_on_the_joint_posterior():
    assert AGENTS["deducer-own"] is OwnQueryDeducerAgent and isinstance(make_agent("deducer-own"), DeducerAgent)
    P = 4
    lay = compact_layout(P)
    c0, d0 = lay["clue_gain"][0], lay["district_gain"][0]
    n1 = compact_size(P)
    counts = {"joint certain": 0, "query": 0, "nothing splits": 0, "differs from deducer": 0}
    cfg = GameConfig(num_players=P)
    for seed in (5, 6, 7):
        st = init(cfg, 1, seed=seed)
        players = [make_agent("heuristic") for _ in range(P)]
        for q, agent in enumerate(players):
            agent.reset(P, cfg.board, seed=seed * 10 + q)
        while not st.done[0]:
            p = int(st.current_player[0])
            obs, legal = observe(st, p)[0], legal_action_mask(st)[0]
            x = encode_state("compact-v2", st, cfg, np.array([p]))[0]
            own = make_agent("deducer-own")
            own.reset(P, cfg.board, seed=3)
            action = own.act(obs, legal)
            g = np.concatenate([x[c0:c0 + 36], x[d0:d0 + 14]]).astype(np.float64) / GAIN_SCALE
            g = np.where(legal[:SOLVE_BASE] != 0, g, -1.0)
            joint = analyze_knowledge(knowledge_from_observation(obs, P, cfg.board), strict=False)
            assert (x[n1 + 36] == 0) == (joint.cases.size == 1)  # the joint block's log2 count
            if joint.cases.size == 1:
                assert action == SOLVE_BASE + int(joint.cases[0])
                counts["joint certain"] += 1
            elif g.max() <= 1e-6:
                top = joint.probabilities.max()
                assert action - SOLVE_BASE in joint.cases[joint.probabilities >= top - 1e-15].tolist()
                counts["nothing splits"] += 1
            else:
                assert action == int(np.flatnonzero(g >= g.max() - 1e-5)[0])  # ties: the lowest action id
                counts["query"] += 1
                ded = DeducerAgent()
                ded.reset(P, cfg.board, seed=3)
                counts["differs from deducer"] += int(g[ded.act(obs, legal)] < g.max() - 1e-5)
            step_inplace(st, np.array([players[p].act(obs, legal)]), cfg)
    print(counts)
    assert counts["joint certain"] >= 1 and counts["query"] >= 20 and counts["differs from deducer"] >= 1
