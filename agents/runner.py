"""Play one standard or duel game with agents on the engine (the one loop every command,
experiment, benchmark and test uses).

Each agent sees only its own observation and the legal-action mask (docs/rules.md §9); agent ``i`` is
reset with seed ``seed * 10 + i`` so a game is a pure function of ``(config, agent names, seed)``.
"""

from __future__ import annotations

import inspect
from typing import Callable, Sequence

import numpy as np

from pi_env.engine import GameConfig, State, init, legal_action_mask, observe, step_inplace
from pi_env.records.recorder import Recorder

from pi_env.agents.base import Agent, reset_for_game

BeforeStep = Callable[..., None]
"""``before_step(state, player, observation, agent)`` or ``before_step(state, player, observation,
agent, mask)`` (see :func:`play_game`)."""


def _takes(fn: Callable, n: int) -> bool:
    """Whether ``fn`` accepts ``n`` positional arguments (no signature to inspect: ``False``)."""
    try:
        inspect.signature(fn).bind(*([None] * n))
    except TypeError:
        return False
    except ValueError:  # no signature to inspect (some builtins): the shorter form
        return False
    return True


def _takes_mask(before_step: Callable) -> bool:
    """Whether ``before_step`` accepts a fifth positional argument (the legal-action mask)."""
    return _takes(before_step, 5)


def play_game(config: GameConfig, agents: Sequence["Agent | str"], seed: int, *,
              before_step: BeforeStep | None = None,
              after_step: Callable[..., None] | None = None) -> tuple[State, Recorder]:
    """Play one whole game (``B == 1``) and record it.

    Args:
        config: the rules.
        agents: one :class:`Agent` or agent name per seat.
        seed: the game seed (``init(config, 1, seed)``).
        before_step: called before each move as ``before_step(state, player, observation, agent)``,
            or, when it takes a fifth positional parameter, as ``before_step(state, player,
            observation, agent, mask)``: ``observation`` is the mover's ``int16`` row of
            :func:`pi_env.engine.observe` and ``mask`` the ``int8[1730]`` legal-action mask, the very
            arrays the agent is then given (docs/rules.md §9: only the mover's own view).
        after_step: called with the state after each move, as ``after_step(state)`` or, when it
            takes a second positional parameter, as ``after_step(state, recorder)``: the
            :class:`~pi_env.records.recorder.Recorder` already holds that move (``pi-env play``
            with a person at the table scores each round as it ends from ``recorder.record()``).

    Returns:
        ``(final state, recorder)``; ``recorder.record()`` is the game record.

    Raises:
        PIError: an agent count that differs from ``config.num_players``; UnknownNameError for an
            unknown agent name.
    """
    from pi_env.core.errors import PIError

    from pi_env.agents import make_agent

    if len(agents) != config.num_players:
        raise PIError(f"{len(agents)} agents for {config.num_players} players")
    agents = [make_agent(a, edition=config.edition) if isinstance(a, str) else a for a in agents]
    state = init(config, 1, seed=seed)
    for i, agent in enumerate(agents):
        reset_for_game(agent, config, seed=seed * 10 + i)
    recorder = Recorder(config, state, seed)
    with_mask = before_step is not None and _takes_mask(before_step)
    with_recorder = after_step is not None and _takes(after_step, 2)
    action = np.zeros(1, dtype=np.int64)
    while not state.done[0]:
        p = int(state.current_player[0])
        obs = observe(state, p)[0]
        mask = legal_action_mask(state)[0]
        if before_step is not None:
            if with_mask:
                before_step(state, p, obs, agents[p], mask)
            else:
                before_step(state, p, obs, agents[p])
        action[0] = agents[p].act(obs, mask)
        step_inplace(state, action, config)
        recorder.after_step(state)
        if after_step is not None:
            if with_recorder:
                after_step(state, recorder)
            else:
                after_step(state)
    return state, recorder


def play_solo_cases(agent: "Agent | str", tile_district: np.ndarray, *, cases: "np.ndarray | None" = None,
                    investigators: int = 5, max_actions: int = 200,
                    board=None) -> tuple[np.ndarray, np.ndarray]:
    """Play a deterministic agent on every case of one Solo Time Attack layout (docs/rules.md §8):
    its exact expected number of actions is the mean of the counts (each case has weight 1/1680).

    All the games run in one batch of the solo engine (:mod:`pi_env.engine.solo`, open mode); the
    agent sees :func:`pi_env.engine.solo.standard_view` of each game and its legal-action mask, as
    in :mod:`pi_env.experiments.strategy_benchmark`, and is reset once with 2 players and seed 0.
    Games whose observations are equal (the same answers so far) get the agent's action of the
    first of them: the evaluation is the agent's decision tree, each node asked once — exact for
    an agent whose action is a function of its observation (``learned:*``, a solver's policy), not
    for one that draws at random or remembers earlier turns.

    Args:
        agent: an :class:`Agent` or an agent name.
        tile_district: ``int[36]`` the layout (e.g. ``pi_env.engine.solo.init(SoloConfig(), 1, seed)``'s).
        cases: case ids to play (default all 1680).
        investigators: investigator tiles (default 5).
        max_actions: a game still unsolved after this many actions is cut off (its count is then
            ``max_actions``).
        board: the board (default the daytime board).

    Returns:
        ``(actions int64[n], solved bool[n])``: the solo engine's count of actions of each game (the
        final correct solve and wrong solves included) and whether it ended solved.
    """
    from pi_env.agents import make_agent
    from pi_env.core.board import DAYTIME
    from pi_env.core.constants import CASE_TRIPLES, NUM_CASES
    from pi_env.engine import solo as S

    board = DAYTIME if board is None else board
    agent = make_agent(agent) if isinstance(agent, str) else agent
    agent.reset(S.VIEW_PLAYERS, board, seed=0)
    config = S.SoloConfig(investigators=investigators, max_actions=max_actions, board=board)
    ids = np.arange(NUM_CASES) if cases is None else np.asarray(cases, dtype=np.int64)
    state = S.from_layout(config, tile_district, 0).take(np.zeros(ids.size, dtype=np.int64))
    state.case[:] = CASE_TRIPLES[ids]
    memo: dict[bytes, int] = {}
    actions = np.zeros(ids.size, dtype=np.int64)
    while not state.done.all():
        obs = S.observe(state)
        mask = S.legal_action_mask(state)
        actions[:] = 0
        for b in np.flatnonzero(~state.done).tolist():
            key = obs[b].tobytes()
            if key not in memo:
                memo[key] = int(agent.act(S.standard_view(obs[b]), mask[b]))
            actions[b] = memo[key]
        S.step_inplace(state, actions, config)
    return state.actions.astype(np.int64), state.solved.copy()
