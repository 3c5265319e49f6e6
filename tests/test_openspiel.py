"""P.I. as an OpenSpiel game (issue #16 item 4): OpenSpiel's own random-simulation checks, the chance
nodes of the deal and the clue cards, information that never shows another player's hidden case,
``resample_from_infostate`` from the exact world sampler, and OpenSpiel's IS-MCTS bot running on it.
Skipped with a reason without the ``openspiel`` extra."""

from __future__ import annotations

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel", reason="OpenSpiel not installed: pip install '.[openspiel]'")

from pi_env.core.constants import NUM_ACTIONS, NUM_CASES, ON_DISPLAY  # noqa: E402
from pi_env.engine import GameConfig, legal_action_mask, observe  # noqa: E402
from pi_env.rl import openspiel_game as og  # noqa: E402


def _deal(state, cases, cards):
    """Apply the deal's and the display's chance outcomes."""
    for c in cases:
        assert state.is_chance_node()
        state.apply_action(c)
    for c in cards:
        assert state.is_chance_node()
        state.apply_action(c)


def test_registered_by_name_with_the_engines_sizes():
    g = pyspiel.load_game(og.GAME_NAME, {"players": 4, "seed": 1})
    assert g.num_players() == 4 and g.num_distinct_actions() == NUM_ACTIONS
    assert g.max_chance_outcomes() == NUM_CASES
    assert g.get_type().chance_mode == pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC
    assert g.observation_tensor_size() == 618 + 1912 * 4 == g.information_state_tensor_size()
    with pytest.raises(Exception):
        pyspiel.load_game(og.GAME_NAME, {"players": 6})


@pytest.mark.parametrize("players", [2, 4])
def test_openspiel_random_simulation_checks(players):
    """pyspiel.random_sim_test: random games with chance, serialization and the tensors checked."""
    g = pyspiel.load_game(og.GAME_NAME, {"players": players, "seed": 3})
    pyspiel.random_sim_test(g, num_sims=2, serialize=True, verbose=False)


def test_deal_and_display_chance_nodes():
    """The deal: player 0 any of 1,680 cases; player 1 the 11·9·13 = 1,287 cases sharing no element
    with it. The display: 36 cards, then 35, ... each uniform. Then the engine's first player moves
    with the engine's legal actions, and the state holds exactly the dealt cases and shown cards."""
    g = pyspiel.load_game(og.GAME_NAME, {"players": 2, "seed": 0})
    s = g.new_initial_state()
    outs = s.chance_outcomes()
    assert len(outs) == 1680 and outs[0] == (0, 1 / 1680)
    s.apply_action(0)  # suspect 0, evidence 0, location 0
    outs = s.chance_outcomes()
    assert len(outs) == 11 * 9 * 13
    assert all(og.case_triple(c)[t] != 0 for c, _ in outs for t in range(3))
    s.apply_action(1 * 140 + 1 * 14 + 1)
    for k in range(9):
        outs = s.chance_outcomes()
        assert [c for c, _ in outs] == [c for c in range(36) if c % 2 or c >= 2 * k]
        assert all(p == 1 / (36 - k) for _, p in outs)
        s.apply_action(2 * k)
    assert not s.is_chance_node()
    st = s._st
    assert st.case[0].tolist() == [[0, 0, 0], [1, 1, 1]]
    assert np.flatnonzero(st.card_place[0] == ON_DISPLAY).tolist() == [0, 2, 4, 6, 8, 10, 12, 14, 16]
    assert s.legal_actions() == np.flatnonzero(legal_action_mask(st)[0]).tolist()


def test_a_draw_is_a_chance_node_over_the_deck():
    """Taking a clue card from the display: a chance node turns up one of the 27 deck cards, and the
    outcome chosen is the card that comes up."""
    g = pyspiel.load_game(og.GAME_NAME, {"players": 2, "seed": 0})
    s = g.new_initial_state()
    _deal(s, [0, 155], list(range(9)))
    clue = next(a for a in s.legal_actions() if a < 36)
    s.apply_action(clue)
    assert s.is_chance_node()
    outs = [c for c, _ in s.chance_outcomes()]
    assert outs == list(range(9, 36))
    s.apply_action(35)
    shown = np.flatnonzero(s._st.card_place[0] == ON_DISPLAY).tolist()
    assert shown == sorted([c for c in range(9) if c != clue] + [35])


def test_information_never_shows_another_players_hidden_case():
    """Two games that differ only in player 0's own case (dealt by a chance node it does not see):
    player 0's information state string, tensor and observation are identical; player 1, who
    holds player 0's case (docs/rules.md §3.2), sees the difference."""
    g = pyspiel.load_game(og.GAME_NAME, {"players": 2, "seed": 0})
    views = []
    for own in (0, 2 * 140 + 3 * 14 + 5):
        s = g.new_initial_state()
        _deal(s, [own, 1 * 140 + 1 * 14 + 1], list(range(9)))
        views.append((s.information_state_string(0), s.information_state_tensor(0), s.observation_string(0),
                      s.information_state_string(1)))
    assert views[0][0] == views[1][0] and views[0][1] == views[1][1] and views[0][2] == views[1][2]
    assert views[0][3] != views[1][3]


def test_resample_keeps_the_information_state_and_draws_consistent_worlds():
    """After a few moves, resampled states give the acting player the same information state string
    and observation, keep the case it holds, deal disjoint cases, and differ from the original in
    the player's own case in some draws."""
    g = pyspiel.load_game(og.GAME_NAME, {"players": 3, "seed": 2})
    s = g.new_initial_state()
    rng = np.random.default_rng(0)
    while s.is_chance_node() or s.move_number() < 25:
        if s.is_chance_node():
            outs = s.chance_outcomes()
            s.apply_action(outs[rng.integers(len(outs))][0])
        else:
            la = [a for a in s.legal_actions() if a < 50]
            s.apply_action(la[rng.integers(len(la))])
        if s.is_terminal():
            pytest.fail("the game ended before the check")
    p = s.current_player()
    sampler = pyspiel.UniformProbabilitySampler(0.0, 1.0)
    owns = set()
    for _ in range(20):
        r = s.resample_from_infostate(p, sampler)
        assert r.information_state_string(p) == s.information_state_string(p)
        assert np.array_equal(observe(r._st, p), observe(s._st, p))
        assert r._st.case[0, (p + 1) % 3].tolist() == s._st.case[0, (p + 1) % 3].tolist()
        for t in range(3):
            assert len(set(r._st.case[0, :, t].tolist())) == 3
        owns.add(tuple(r._st.case[0, p].tolist()))
    assert len(owns) > 1


def test_ismcts_bot_runs_unchanged_and_is_deterministic_given_its_seed():
    """OpenSpiel's IS-MCTS bot with the engine's rules-of-thumb rollouts as evaluator returns a legal
    action, the same for the same seeds."""
    from open_spiel.python.algorithms import ismcts

    g = pyspiel.load_game(og.GAME_NAME, {"players": 2, "seed": 3})
    s = g.new_initial_state()
    _deal(s, [0, 155], list(range(9)))
    actions = []
    for _ in range(2):
        bot = ismcts.ISMCTSBot(g, og.RulesRolloutEvaluator(4, seed=0), uct_c=2.0, max_simulations=10,
                               random_state=np.random.RandomState(0))
        actions.append(int(bot.step(s.clone())))
    assert actions[0] == actions[1] and actions[0] in s.legal_actions()


def test_config_matches_the_engine():
    assert og._config(4, "second") == GameConfig(num_players=4)


def test_without_openspiel_a_one_line_install_hint(monkeypatch):
    monkeypatch.setattr(og, "pyspiel", None)
    with pytest.raises(og.PIError, match=r"pip install '\.\[openspiel\]'"):
        og.require_openspiel()
