"""Batch opponents for training (:class:`pi_env.envs.selfplay.SelfPlayVecEnv`'s ``act_batch``
protocol): the learner's frozen snapshots, built-in agents, and a pool mixing them per game.

* :class:`SnapshotOpponent`: a learned policy network (:class:`pi_env.agents._policy_net.PolicyNet`)
  playing every game it is asked about in one torch forward pass, from each player's own view
  (the flat encoding of its observation, docs/rules.md §9), sampling from its masked choices (seeded)
  or taking the argmax.
* :class:`GainOpponent` (``gain``): the core rules of the ``heuristic`` agent in batch.
* :class:`pi_env.rl.heuristic_batch.HeuristicOpponent` (``heuristic``): the ``heuristic`` agent itself
  in batch, the same actions game by game as the per-game agent seeded alike.
* :class:`pi_env.agents.greedy_batch.GreedyOpponent` (``greedy``, 2 to 5 players): the ``greedy`` agent
  itself in batch, the same actions game by game as the per-game agent.
* :class:`AgentOpponent`: any per-game :class:`pi_env.agents.Agent` (``deducer``, ...), one instance
  per game slot, asked game by game (Python per game: slow, use it for a fraction of the games).
* :class:`PoolOpponent`: at the start of every game, draws for that game one member of a weighted
  list (snapshots, ``random`` in batch, per-game agents) and lets it play the seat for the whole
  game; :meth:`PoolOpponent.add` adds a new snapshot as training goes (the oldest snapshot leaves
  when ``max_snapshots`` are held).

All draws come from generators seeded by the env (``new_games``), so a training run is a function
of its seed.
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

import numpy as np

from pi_env.agents import make_agent
from pi_env.agents.learned import SOLVE_ACTION, best_cases_of_state, encode_state, policy_mask
from pi_env.core.board import DAYTIME, Board
from pi_env.core.constants import SOLVE_BASE
from pi_env.core.errors import PIError
from pi_env.engine import GameConfig, State, legal_action_mask, observe
from pi_env.envs.selfplay import RandomBatchOpponent, is_batch_opponent

__all__ = ["SnapshotOpponent", "AgentOpponent", "GainOpponent", "PoolOpponent", "batch_opponent"]


def _seed_of(seeds: np.ndarray) -> int:
    return int(seeds[0]) if len(seeds) else 0


class SnapshotOpponent:
    """A frozen policy network playing in batch (module docstring).

    Args:
        net: a :class:`~pi_env.agents._policy_net.PolicyNet` (copied by the caller if training goes
            on; this object only reads it).
        encoding: its input encoding (:data:`pi_env.agents.learned.ENCODINGS`).
        config: the games' rules.
        sample: sample from the masked choice distribution (default) or play the argmax.
        name: a label for logs.
    """

    def __init__(self, net: Any, encoding: str, config: GameConfig, sample: bool = True, name: str = "snapshot"):
        import torch

        self.net, self.encoding, self.config, self.sample, self.name = net, encoding, config, sample, name
        self._gen = torch.Generator().manual_seed(0)

    def new_games(self, games: np.ndarray, seeds: np.ndarray) -> None:
        self._gen.manual_seed(_seed_of(seeds) % 2**63)

    def act_batch(self, state: State, games: np.ndarray, players: np.ndarray) -> np.ndarray:
        import torch

        sub = state.take(games)
        x = torch.from_numpy(encode_state(self.encoding, sub, self.config, players))
        mask = torch.from_numpy(policy_mask(legal_action_mask(sub)))
        with torch.no_grad():
            logits = self.net.logits(x).masked_fill(~mask, -1e9)
            if self.sample:
                choice = torch.multinomial(torch.softmax(logits, -1), 1, generator=self._gen)[:, 0]
            else:
                choice = logits.argmax(-1)
        out = choice.numpy().astype(np.int64)
        rows = np.flatnonzero(out == SOLVE_ACTION)
        if rows.size:
            out[rows] = SOLVE_BASE + best_cases_of_state(sub.take(rows), self.config.board, players[rows])
        return out


class AgentOpponent:
    """A per-game agent as a batch opponent: one instance per game slot (module docstring).

    Args:
        factory: returns a new :class:`~pi_env.agents.Agent`.
        num_players, board: the games' player count and board (for ``Agent.reset``).
    """

    def __init__(self, factory: Callable[[], Any], num_players: int, board: Board = DAYTIME):
        self.factory, self.num_players, self.board = factory, num_players, board
        self._agents: dict[int, Any] = {}
        self.name = getattr(factory(), "name", "agent")

    def new_games(self, games: np.ndarray, seeds: np.ndarray) -> None:
        for b, s in zip(games, seeds):
            agent = self._agents.get(int(b))
            if agent is None:
                agent = self._agents[int(b)] = self.factory()
            agent.reset(self.num_players, self.board, seed=int(s))

    def act_batch(self, state: State, games: np.ndarray, players: np.ndarray) -> np.ndarray:
        sub = state.take(games)
        obs = observe(sub, players)
        mask = legal_action_mask(sub)
        return np.array([self._agents[int(b)].act(obs[n], mask[n]) for n, b in enumerate(games)], dtype=np.int64)


class GainOpponent:
    """``gain``: the core of the ``heuristic`` agent's rules, in batch (numpy over the rows of one
    :func:`pi_env.solvers.own_info.own_features` call with the query gains; no Python per game). For
    each player to move, with ``n`` the size of its own-information case set:

    1. one case left (``n == 1``): solve (naming it);
    2. while ``n >= 60`` and this round's share of its investigator tiles is not used
       (``ceil(tiles at the round's start / rounds left)``, as ``heuristic``): an investigator in the
       legal district of the highest expected information gain;
    3. else the clue card on the display of the highest gain;
    4. when no legal query can split its cases: guess (solve) if ``n <= 3`` or from rotation 20 on,
       else take a card and wait for others' solves.

    Ties go to the lowest action id (``heuristic`` breaks them at random and prefers cards of the
    case it holds). It is a training opponent that plays the real game fast, not the ``heuristic``
    agent itself (tournaments use that).
    """

    name = "gain"
    INVESTIGATE_MIN_OPEN = 60
    GUESS_MAX = 3
    WAIT_ROTATIONS = 20

    def __init__(self, config: GameConfig):
        self.config = config

    def act_batch(self, state: State, games: np.ndarray, players: np.ndarray) -> np.ndarray:
        from pi_env.core.constants import INVESTIGATE_BASE
        from pi_env.solvers.own_info import QUERY_GAINS, own_features

        sub = state.take(games)
        m = games.size
        gain = np.empty((m, QUERY_GAINS), dtype=np.float32)
        feat = own_features(sub, self.config.board, players, gains=gain, parallel=False)
        n = np.rint(1.0 / np.maximum(feat[:, 37], 1e-9)).astype(np.int64)  # p_best = 1 / n
        legal = legal_action_mask(sub)[:, :SOLVE_BASE] != 0
        gain = np.where(legal, gain, -1.0)
        clue = gain[:, :INVESTIGATE_BASE].argmax(1)
        district = INVESTIGATE_BASE + gain[:, INVESTIGATE_BASE:].argmax(1)
        rows = np.arange(m)
        placed = sub.inv_count[rows, players].astype(np.int64)
        start_tiles = sub.inv_left[rows, players].astype(np.int64) + placed
        rounds_left = np.maximum(self.config.num_rounds - sub.round.astype(np.int64), 1)
        share = -(-start_tiles // rounds_left)
        investigate = ((n >= self.INVESTIGATE_MIN_OPEN) & (placed < share)
                       & (gain[rows, district] > 0))
        out = np.where(investigate, district, clue)
        stuck = gain[rows, out] <= 0
        guess = stuck & ((n <= self.GUESS_MAX) | (sub.rotation >= self.WAIT_ROTATIONS))
        solve = (n <= 1) | guess
        wait = stuck & ~solve
        any_card = np.where(legal[:, :INVESTIGATE_BASE], np.arange(INVESTIGATE_BASE), 99).min(1)
        out = np.where(wait, np.where(any_card < 99, any_card, SOLVE_BASE), out)
        out = np.where(solve | (out == SOLVE_BASE), SOLVE_BASE, out)
        pick = np.flatnonzero(out == SOLVE_BASE)
        if pick.size:  # the case sets of the solving rows only
            out[pick] = SOLVE_BASE + best_cases_of_state(sub.take(pick), self.config.board, players[pick])
        return out.astype(np.int64)


def batch_opponent(spec: Any, config: GameConfig) -> Any:
    """A batch opponent for ``spec``: ``"random"`` -> :class:`RandomBatchOpponent`; ``"gain"`` ->
    :class:`GainOpponent`; ``"heuristic"`` -> :class:`pi_env.rl.heuristic_batch.HeuristicOpponent`
    (the agent's actions, in batch); ``"greedy"`` -> :class:`pi_env.agents.greedy_batch.GreedyOpponent` for
    the player counts it plays (:data:`pi_env.agents.greedy_batch.SUPPORTED_PLAYERS`), else the per-game
    agent; another agent name -> :class:`AgentOpponent` (``make_agent``; an unknown name raises
    :class:`~pi_env.core.errors.UnknownNameError` now, a learned model of another player count
    :class:`~pi_env.core.errors.PIError`); a batch opponent as it is."""
    if is_batch_opponent(spec):
        return spec
    if isinstance(spec, str):
        if spec.strip().lower() == "random":
            return RandomBatchOpponent()
        if spec.strip().lower() == "gain":
            return GainOpponent(config)
        if spec.strip().lower() == "heuristic":
            from pi_env.rl.heuristic_batch import HeuristicOpponent

            return HeuristicOpponent(config)
        if spec.strip().lower() == "greedy":
            from pi_env.agents.greedy_batch import SUPPORTED_PLAYERS, GreedyOpponent

            if config.num_players in SUPPORTED_PLAYERS:
                return GreedyOpponent(config)
        make_agent(spec).reset(config.num_players, config.board)  # fail early on an unknown name or a
        # learned model of another player count
        return AgentOpponent(lambda: make_agent(spec, edition=config.edition), config.num_players, config.board)
    raise PIError(f"an opponent must be an agent name or a batch opponent, got {spec!r}")


class PoolOpponent:
    """Plays one seat with a member drawn per game from a weighted list (module docstring).

    Args:
        members: ``(opponent, weight)`` pairs; an opponent is anything :func:`batch_opponent` takes.
        config: the games' rules.
        snapshot_weight: the total weight shared by the snapshots added with :meth:`add`.
        max_snapshots: snapshots kept (the oldest leaves first).

    Raises:
        PIError: no member with a positive weight.
    """

    def __init__(self, members: Sequence[tuple[Any, float]], config: GameConfig, snapshot_weight: float = 0.0,
                 max_snapshots: int = 8):
        self.config = config
        self.fixed = [(batch_opponent(m, config), float(w)) for m, w in members]
        self.snapshots: list[Any] = []
        self.snapshot_weight, self.max_snapshots = float(snapshot_weight), int(max_snapshots)
        if not any(w > 0 for _, w in self.fixed) and self.snapshot_weight <= 0:
            raise PIError("the opponent pool needs a member with a positive weight")
        self._member = np.full(0, -1, dtype=np.int64)
        self._rng = np.random.default_rng(0)
        self._registry: list[Any] = []
        self._index: dict[int, int] = {}

    def add(self, snapshot: Any) -> None:
        """Add a snapshot (a batch opponent, usually :class:`SnapshotOpponent`)."""
        self.snapshots.append(snapshot)
        del self.snapshots[:-self.max_snapshots]

    def members(self) -> tuple[list[Any], np.ndarray]:
        """The current members and their draw probabilities (``float64[n]``)."""
        ms = [m for m, _ in self.fixed] + list(self.snapshots)
        w = [w for _, w in self.fixed] + ([self.snapshot_weight / len(self.snapshots)] * len(self.snapshots)
                                          if self.snapshots else [])
        w = np.asarray(w, dtype=np.float64)
        return ms, w / w.sum()

    def _id(self, member: Any) -> int:
        """A stable index of ``member`` (members of running games stay reachable after the pool
        changes)."""
        k = self._index.get(id(member))
        if k is None:
            k = self._index[id(member)] = len(self._registry)
            self._registry.append(member)
        return k

    def new_games(self, games: np.ndarray, seeds: np.ndarray) -> None:
        if self._member.size <= int(games.max(initial=-1)):
            self._member = np.concatenate([self._member, np.full(int(games.max()) + 1 - self._member.size, -1)])
        self._rng = np.random.default_rng(_seed_of(seeds))
        ms, p = self.members()
        draw = self._rng.choice(len(ms), size=games.size, p=p)
        for k, m in enumerate(ms):
            mine = draw == k
            if mine.any():
                self._member[games[mine]] = self._id(m)
                if hasattr(m, "new_games"):
                    m.new_games(games[mine], np.asarray(seeds)[mine])

    def act_batch(self, state: State, games: np.ndarray, players: np.ndarray) -> np.ndarray:
        out = np.zeros(games.size, dtype=np.int64)
        member = self._member[games]
        for k in np.unique(member):
            mine = member == k
            out[mine] = self._registry[int(k)].act_batch(state, games[mine], players[mine])
        return out

    def share(self) -> dict[str, float]:
        """The fraction of game slots each member (by name) plays now."""
        held = self._member[self._member >= 0]
        out: dict[str, float] = {}
        for k in np.unique(held):
            name = getattr(self._registry[int(k)], "name", str(k))
            out[name] = out.get(name, 0.0) + float(np.mean(held == k))
        return out
