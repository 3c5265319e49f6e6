"""
# P.I. self-play vector env

``num_envs`` P.I. games stepped together by the batched engine (:mod:`pi_env.engine`, not a loop
of single envs), turn-based: each call takes the action of the agent to move in every game and
returns, per game, one *row* for the next learner seat that must act.

| Import             | `from pi_env.envs.selfplay import SelfPlayVecEnv`                              |
|--------------------|---------------------------------------------------------------------------|
| Games              | `num_envs` (B), each with 2 to 5 players (`num_players`, default 2)       |
| Learner seats      | every seat (`opponents=None`), or one rotating seat plus `"self"` seats   |
| Action Shape       | `int[B]`, values 0 .. 1729 (`single_action_space = Discrete(1730)`)      |
| Observation Shape  | `float32[B, 618 + 1912·P]` (2 players: 4442), the flat encoding; `observations="packed"`: `float32[B, 150 + 269·P]` (688); `"packed-int8"`: `int8[B, 78 + 105·P]` (288) |
| Observation Values | about 0 .. 1 (`pi_env.envs.encoders`; bounds in `single_observation_space`)     |
| Rewards            | `float32[B]`: the row's seat's score change since its previous row        |
| Episode end        | `bool[B]` terminated / truncated, one terminal row per learner seat       |
| Autoreset          | `NEXT_STEP` (`metadata["autoreset_mode"]`)                                |

### Rows

After `reset` and after every `step`, row `b` belongs to one learner seat `s = info["to_move"][b]`
of game `b` (absolute player number). It is either

* a **turn**: `s` is the player to move; `step` applies `actions[b]` for it; or
* a **terminal row** (`terminated[b]` or `truncated[b]` set): game `b` is over and this row tells
  seat `s` its last reward; the next `step` **ignores** `actions[b]` (any integer will do).

Games are independent: in one call some rows may be turns and others terminal rows.

### Observation Space

`obs[b]` is the flat encoding (:func:`pi_env.envs.encoders.encode_flat`, documented there; with
`observations="packed"` the packed encoding, :mod:`pi_env.engine.packed`) of seat `s`'s
view: the engine observation of `s` (docs/rules.md §9: everything public plus the case `s` holds, never
its own case), scaled to about `[0, 1]`, relative seats (seat 0 = `s`). For a terminal row it is the
view of the final position. :class:`pi_env.rl.solver_features_env.SolverFeaturesVecEnv` wraps this env to append
`s`'s exact case marginals.

By default (`copy=False`) `obs`, `info["action_mask"]` and `info["to_move"]` are **read-only views
of buffers the next call overwrites** (no copy of ``B x 4442`` floats per call): copy what you
keep, or pass `copy=True`. `rewards`, `terminated` and `truncated` are new arrays every call.

### Legal Actions Mask

`info["action_mask"]`: `int8[B, 1730]`. For a turn, 1 where the action is legal for `s`: clue `x`
while its card is on the display, investigator in `d` while `s` has tiles left and none in `d` this
round, every solve triple always (never empty). For a terminal row all ones (the action is ignored;
a masked sampler needs no special case), as the engine's mask of a finished game.

### Action Space

`Discrete(1730)` per game (:mod:`pi_env.core.constants`): `0..35` clue on element `x`; `36..49`
investigator in district `d` (`36 + d`); `50..1729` solve case `s * 140 + e * 14 + l`
(`50 + case`). An illegal action in a turn row raises :class:`~pi_env.core.errors.IllegalActionError`
(a malformed one :class:`~pi_env.core.errors.InvalidActionError`) naming the game, before any game is
stepped; learners should sample from the mask.

### Rewards

The engine gives every player a reward at every step (`State.rewards`: the change of its score;
duel: +1/−1 round and game results, see :class:`pi_env.engine.State`). The env sums them per game
and seat and pays a seat its sum at the seat's next row: `rewards[b]` is everything seat `s`
received since its previous row in this game (from its own last action and from everything the
other players did since), 0 at its first row unless something already happened. A seat's rewards
over its rows of a game sum to its final score (duel: its results). Nothing is lost at the end: the
final reward reaches every learner seat through its terminal row, also a seat that was not the
last to act.

### Episode End and Autoreset

When a step ends game `b` (its last round is over, docs/rules.md §5, §7), the rows of game `b` become
terminal rows, one per learner seat, in turn order starting after the player who took the last
action (that player's comes last): the first in the same call, the others in the following calls.
`terminated[b]` is set on them, or `truncated[b]` instead if the rotation-limit safeguard ended any
round of the game (docs/rules.md §5; the duel's `max_rounds` safeguard likewise). Autoreset is
`NEXT_STEP`: the call after a game's last terminal row ignores its action, starts a new game in that
slot (the slot's engine generator stream continues, :func:`pi_env.engine.reset_done`) and returns
its first learner row (reward 0, not terminal).

So with every seat a learner a finished P-player game costs its slot P calls with no action applied;
with one learner seat, one.

### Opponents and Seats

`opponents=None` (or `"self"`): every seat is played by the learner (self-play); each call steps
every game once, all in numba kernels. Otherwise `opponents` lists `P − 1` policies for the
*relative* seats 1..P−1 after the game's *primary learner seat* `L`: an entry is an
:class:`pi_env.agents.Agent` (deep-copied per game slot), a zero-argument factory returning an Agent
(for a built-in agent by name: :func:`pi_env.agents.opponent_factory`), or `"self"` (that seat is a
learner seat too). Fixed agents act inside `step`: after the learner's
actions the env steps the engine again for every game whose player to move is an agent, until each
game reaches a learner row or its end, so only learner rows are returned. Each agent sees exactly
its engine observation and mask (`Agent.act(observation, action_mask)`), and is `reset` with a seed
from the env's generator at the start of every game. **Cost**: one engine step per round of agent
moves, plus one Python `act` call per game needing a move (a Python loop over those games: about
10 µs for `random`, milliseconds for `deducer`); the learner-only mode has no Python loop per game.

**Batched opponents.** An entry may also be a *batch opponent*: an object with
`act_batch(state, games, players) -> int64[len(games)]` that chooses the actions of `players[i]`
in game `games[i]` for all those games in one call (one object serves every slot; it is not
copied). It must use only what each of those players may see (docs/rules.md §9), e.g. its engine
observation or an encoding of it. An optional `new_games(games, seeds)` is called when new games
start in the slots `games` (`int64[n]`, with one seed per slot from the env's generator).
:class:`RandomBatchOpponent` is `random` in batch (the engine's sampling kernel: uniform over
legal actions, no Python per game); the learner's snapshots and pools of opponents are batch
opponents of :mod:`pi_env.rl.pool`.

`learner_seats` chooses `L` for each game: `"rotate"` (default): slot `b` starts at a seat drawn
from the seed and moves one seat on with every new game, so the learner plays every seat equally
often; `"random"`: drawn per game; an int: always that seat. The engine draws the first player of
each game from its own generator, independently.

### Speed

`benchmarks/selfplay_throughput.py --only-selfplay` (2 players, random legal actions, every seat a
learner; quiet 2-core machine, 2026-12-02 05:21-05:23 UTC, load average 0.6-1.0, code of commit
a3ec71e): at B = 4096 with flat observations and masks 681,458 agent-steps (rows) per second on one
thread and 1,294,097 threaded; packed observations 693,644 / 1,397,424; masks only (no observation)
1,318,138 / 2,439,310: writing the observation costs about as much as the step. The table
*Self-play throughput* of docs/results.md has all of it (4 players too). Threads help only when both cores are
free: on a loaded machine every threaded kernel waits for its slowest thread.

### Arguments

``` python
SelfPlayVecEnv(num_envs, num_players=2, *, edition="second", variants=(), investigators=None,
               max_rotations=60, board="daytime", mode="standard", max_rounds=9,
               opponents=None, learner_seats="rotate", seed=None, copy=False, check=True,
               parallel=None, observations=True)
```

The rules arguments are those of :class:`pi_env.engine.GameConfig` (and of `pi_env.env`).
`seed`: seeds the first `reset()` (as `reset(seed=...)`); `reset(seed=s)` plays the engine games
`pi_env.engine.init(config, B, s)` (the same seed gives the same games, seats and agent seeds).
`check=False` skips the legality check of the learner's actions: the engine then ignores an
illegal one (any integer; that game is not stepped and its row comes again, reward 0), see
:meth:`pi_env.engine.Engine.step`.
`observations="packed"` returns the packed encoding instead of the flat one (`float32[B, 150 + 269·P]`,
688 for 2 players: the flat encoding with the one-hot tiles as district indices and the failed-solve
flags as counts and per-element shares; :mod:`pi_env.engine.packed` documents every entry), written by
the same fused call; `observations="flat"` is `True`.
`observations="packed-int8"` returns the packed encoding *before its scales*, as `int8[B, 78 +
105·P]` (288 bytes for 2 players: district indices, bit fields of the 0/1 flags and 0..3 counts,
failed-solve counts, scores; `"packed-int16"`:
`int16`, for the games `int8` cannot hold: the first edition, `max_rotations` above 127; the
constructor says so), written by the same fused call. The learner turns a batch into the packed
`float32` rows, bit for bit, with :class:`pi_env.rl.packed_int.PackedIntToFloat` (torch:
`to_float(obs)`, a torch tensor) or :func:`pi_env.envs.encoders.float_from_packed_int` (numpy);
or feeds the integers to its network as they are (`obs.astype(np.float32)` is an encoding in its own
right, entries up to 60, bit fields as numbers). :mod:`pi_env.engine.packed` ("Integer rows") lists every entry's range;
`single_observation_space` is a `Box` of that dtype with those bounds.
`observations=False` skips the encoding: `obs` is then `float32[B, 0]`, for learners that
encode the rows themselves from `state` and `info["to_move"]` (e.g. :mod:`pi_env.rl.engine_env`);
rows, masks, rewards and ends are unchanged.
`parallel`: run the engine's kernels and the encoder on all cores (`True`), on one (`False`), or
as `pi_env.core._config.PARALLEL_MIN_BATCH` decides for `num_envs` (`None`; with every seat a
learner a turn is one fused call, family `selfplay`: threads from 1,024 games on, unless
`PI_ENV_NUMBA_PARALLEL=0`). On a machine busy with other work one thread can be faster: every
threaded kernel waits for its slowest thread.

### Copies and saved positions

(docs/positions.md.) `copy.deepcopy(env)` and `pickle` keep everything: the games (their engine
generators included), each slot's row, accumulated rewards and learner seats, the env's generator,
and the opponents (a per-slot agent's memory and generator; a batch opponent is copied once and
shared by the copy's slots). Pickling needs picklable opponents and factories (a lambda is not).
`clone_state()` lists the `B` games as saved `pi-position/1` positions (privileged: every case);
`reset(options={"positions": [...]})` starts game `b` from position `b` (rows as after a reset).

### Version History

`metadata["name"]` changes its version whenever the behaviour changes (rows, observations, masks,
rewards, ends); `tests/test_env_versions.py` pins the name with a fingerprint of seeded rollouts
and fails on a change without a new version.

* v0: Initial version. In pi-env 0.2.0 `opponents` takes agents or factories instead of names;
  behaviour unchanged. Additive: copies keep the game, `clone_state()`, `reset(options={"positions":
  ...})`, `observations="packed"`, `"packed-int8"` / `"packed-int16"` (the default rows unchanged).
"""

from __future__ import annotations

import copy as _copy
from typing import Any, Sequence

import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space
from pi_env.core.board import Board, load_board
from pi_env.core.constants import NUM_ACTIONS
from pi_env.core.errors import IllegalActionError, InvalidActionError, PIError
from pi_env.engine import NO_ACTION, Engine, GameConfig, State, legal_action_mask, observe, sample_actions
from pi_env.engine.arrays import action_array
from pi_env.engine.position import check_rules, load_positions, rules_of, save_position
from pi_env.engine.rows import SelfPlayTurn, advance_kernel
from pi_env.engine.state import DEFAULT_MAX_ROUNDS
from pi_env.encodings import ENV_OBSERVATIONS, get as get_encoding
from pi_env.envs.encoders import FailedSolves, FlatEncoder, PackedEncoder, PackedIntEncoder

__all__ = ["SelfPlayVecEnv", "RandomBatchOpponent", "is_batch_opponent"]


def is_batch_opponent(spec: Any) -> bool:
    """Whether ``spec`` is a batch opponent (it has ``act_batch``; module docstring)."""
    return callable(getattr(spec, "act_batch", None))


class RandomBatchOpponent:
    """The ``random`` agent in batch: a uniformly random legal action for every game asked, from
    the engine's sampler (:func:`pi_env.engine.sample_actions`: the distribution of
    :class:`pi_env.agents.RandomAgent`, which mostly names cases, as 1680 of the 1730 actions are
    solves), with no Python per game. Its generator is reseeded from the env's seeds whenever new
    games start (:meth:`new_games`), so the env's seed decides its moves.

    Args:
        seed: the generator's seed until the env reseeds it.
    """

    name = "random"

    def __init__(self, seed: int | None = None):
        self.rng = np.random.default_rng(seed)

    def new_games(self, games: np.ndarray, seeds: np.ndarray) -> None:
        """Reseed from the first new game's seed (``seeds``: ``int64[len(games)]``)."""
        if len(seeds):
            self.rng = np.random.default_rng(int(seeds[0]))

    def act_batch(self, state: State, games: np.ndarray, players: np.ndarray) -> np.ndarray:
        """``int64[len(games)]``: a legal action for the player to move in each game of ``games``
        (the sampler reads only the public legal actions)."""
        return sample_actions(state, self.rng)[games]


class _CopyOf:
    """A factory of deep copies of one agent (a class, not a lambda, so that the env pickles)."""

    def __init__(self, agent: Any):
        self.agent = agent

    def __call__(self) -> Any:
        return _copy.deepcopy(self.agent)


def _make_opponent(spec: Any, seat: int):
    """A per-slot factory for one opponent entry (``None`` for ``"self"``).

    An entry is ``"self"``, an agent (an object with ``reset(num_players, board, seed)`` and
    ``act(observation, action_mask) -> int``, copied per game) or a factory returning one. Agent
    names are resolved above this layer (:func:`pi_env.agents.make_agent`)."""
    if isinstance(spec, str):
        if spec.strip().lower() == "self":
            return None
        raise PIError(f"opponents[{seat - 1}] (relative seat {seat}) is the name {spec!r}: pass an agent "
                      f"or a factory instead, e.g. lambda: pi_env.agents.make_agent({spec!r}) (the env "
                      "layer does not know the agents by name)")
    if is_batch_opponent(spec):
        return spec  # shared by every slot (module docstring)
    if hasattr(spec, "act") and hasattr(spec, "reset"):
        return _CopyOf(spec)
    if callable(spec):
        return spec
    raise PIError(f"opponents[{seat - 1}] (relative seat {seat}) must be an agent, a factory or 'self', "
                  f"got {spec!r}")


class SelfPlayVecEnv(VectorEnv):
    """Batched turn-based P.I. for self-play; see the module docstring for the full specification.

    Attributes:
        config: the :class:`~pi_env.engine.GameConfig`.
        state: the engine :class:`~pi_env.engine.State` (``B`` games). It holds every case: for
            tools and tests, never as a learner's input.

    Example:
        >>> env = SelfPlayVecEnv(4, num_players=2, seed=0)
        >>> obs, info = env.reset(seed=0)
        >>> obs.shape, info["action_mask"].shape
        ((4, 4442), (4, 1730))
        >>> obs, rewards, terminated, truncated, info = env.step(env.sample_actions())
        >>> rewards.dtype, terminated.shape
        (dtype('float32'), (4,))
    """

    metadata = {"name": "pi_selfplay_v0", "autoreset_mode": AutoresetMode.NEXT_STEP, "render_modes": []}

    def __init__(self, num_envs: int = 64, num_players: int | None = 2, *, edition: str = "second",
                 variants: Sequence[str] = (), investigators: "Sequence[int] | None" = None,
                 max_rotations: int = 60, board: "str | dict[str, Any] | Board" = "daytime",
                 mode: str = "standard", max_rounds: int = DEFAULT_MAX_ROUNDS,
                 opponents: "None | str | Sequence[Any]" = None, learner_seats: "str | int" = "rotate",
                 seed: int | None = None, copy: bool = False, check: bool = True,
                 parallel: bool | None = None, observations: "bool | str" = True):
        if not isinstance(num_envs, (int, np.integer)) or isinstance(num_envs, bool) or num_envs < 1:
            raise PIError(f"num_envs must be a positive integer, got {num_envs!r}")
        self.config = GameConfig(num_players=num_players, edition=edition, variants=tuple(variants),
                                 investigators=None if investigators is None else tuple(investigators),
                                 max_rotations=max_rotations, board=load_board(board), mode=mode,
                                 max_rounds=max_rounds)
        B, P = int(num_envs), self.config.num_players
        self.num_envs, self.num_players = B, P
        self.render_mode = None
        self.copy, self.check = bool(copy), bool(check)
        # opponents: factories per relative seat 1..P-1 (None = learner)
        if opponents is None or (isinstance(opponents, str) and opponents.strip().lower() == "self"):
            specs: list[Any] = ["self"] * (P - 1)
        elif isinstance(opponents, str):
            raise PIError(f"opponents must be None, 'self' or a list of {P - 1} entries, got {opponents!r}")
        else:
            specs = list(opponents)
            if len(specs) != P - 1:
                raise PIError(f"opponents lists {len(specs)} entries; a {P}-player game needs {P - 1} "
                              f"(one per seat after the learner's)")
        self._factories = [_make_opponent(s, j + 1) for j, s in enumerate(specs)]
        self._batch = [f if is_batch_opponent(f) else None for f in self._factories]  # [rel seat - 1]
        self.self_play = all(f is None for f in self._factories)
        if isinstance(learner_seats, (int, np.integer)) and not isinstance(learner_seats, bool):
            if not 0 <= learner_seats < P:
                raise PIError(f"learner_seats must be 'rotate', 'random' or a seat 0..{P - 1}, "
                              f"got {learner_seats!r}")
        elif learner_seats not in ("rotate", "random"):
            raise PIError(f"learner_seats must be 'rotate', 'random' or a seat 0..{P - 1}, "
                          f"got {learner_seats!r}")
        self.learner_seats = learner_seats
        self._rel_learner = np.array([True] + [f is None for f in self._factories])  # [P] relative seats
        self._agents: list[list[Any]] = [[None] * P for _ in range(B)]  # [slot][relative seat]
        if not self.self_play:
            for b in range(B):
                self._agents[b] = [None] + [None if f is None or is_batch_opponent(f) else f()
                                            for f in self._factories]
        # spaces
        if isinstance(observations, str) and observations in ENV_OBSERVATIONS:
            self.encoding: "str | None" = observations
        elif isinstance(observations, bool):
            self.encoding = "flat" if observations else None
        else:
            raise PIError(f"observations must be True, False, {', '.join(repr(n) for n in ENV_OBSERVATIONS[:-1])} or "
                          f"{ENV_OBSERVATIONS[-1]!r}, got {observations!r}")
        self.observations = self.encoding is not None
        ints = None
        if self.encoding in ("packed-int8", "packed-int16"):  # refuses a dtype too narrow for the game
            ints = PackedIntEncoder(self.config, B, self.encoding[7:], parallel=parallel)
        self._encoder: "FlatEncoder | PackedEncoder | PackedIntEncoder | None" = (
            ints if ints is not None else None if self.encoding is None
            else FlatEncoder(self.config, B, parallel=parallel) if self.encoding == "flat"
            else PackedEncoder(self.config, B, parallel=parallel))
        # the packed rows count every failed triple: a longer list keeps random play off the scan
        self._failed = FailedSolves(B, P, 16 if self.encoding in ("flat", None) else 64)
        self._no_obs = np.zeros((B, 0), dtype=np.float32)
        if self.encoding is None:  # the rows are float32[B, 0]
            self.single_observation_space = spaces.Box(np.zeros(0, np.float32), np.zeros(0, np.float32), dtype=np.float32)
        else:  # the encoding's bounds and dtype (pi_env.encodings registry)
            spec = get_encoding(self.encoding)
            assert spec.bounds is not None
            low, high = spec.bounds(self.config)
            self.single_observation_space = spaces.Box(low, high, dtype=np.dtype(spec.dtype))
        self.observation_space = batch_space(self.single_observation_space, B)
        self.single_action_space = spaces.Discrete(NUM_ACTIONS)
        self.action_space = batch_space(self.single_action_space, B)
        # bookkeeping
        self._acc = np.zeros((B, P), dtype=np.int32)
        self._learner = np.ones((B, P), dtype=bool)
        self._notified = np.zeros((B, P), dtype=bool)
        self._primary = np.zeros(B, dtype=np.int64)
        self._games = np.zeros(B, dtype=np.int64)
        self._row_seat = np.zeros(B, dtype=np.int64)
        self._row_terminal = np.zeros(B, dtype=bool)
        self._pending = np.zeros(B, dtype=bool)
        self._need_opp = np.zeros(B, dtype=bool)
        self._active = np.ones(B, dtype=bool)
        self._all = np.ones(B, dtype=bool)
        self._rewards = np.zeros(B, dtype=np.float32)
        self._term = np.zeros(B, dtype=bool)
        self._trunc = np.zeros(B, dtype=bool)
        self._mask = np.ones((B, NUM_ACTIONS), dtype=np.int8)  # the solve part stays ones
        self._seat8 = np.zeros(B, dtype=np.int8)
        self._legal = np.zeros(B, dtype=bool)
        self._mask_view = self._mask.view()
        self._mask_view.flags.writeable = False
        self._seat_view = self._seat8.view()
        self._seat_view.flags.writeable = False
        self._actions = np.zeros(B, dtype=np.int64)
        self._opp_actions = np.zeros(B, dtype=np.int64)
        # the engine handle (its step and setup and the encoder run threaded as the engine decides
        # for B, or as ``parallel`` says; the cheap kernels run serially); built at the first reset
        self._parallel = parallel
        self._engine: Engine | None = None
        self._turn: SelfPlayTurn | None = None  # the fused self-play turn (every seat a learner)
        self._advance = advance_kernel.serial
        self._np_random, self._np_random_seed = _generator(seed)
        self._seed = seed
        self.state: State | None = None

    # --- episode --------------------------------------------------------------------------
    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        """Start ``num_envs`` new games.

        Args:
            seed: engine games ``init(config, B, seed)``, learner seats and agent seeds all follow
                from it; ``None``: the constructor's seed on the first reset, later a seed drawn
                from the env's generator.
            options: ``{"positions": [p_0, ..., p_{B-1}]}`` starts game ``b`` from the saved
                position ``p_b`` (``pi-position/1`` of this env's game, not finished; e.g. from
                :meth:`clone_state` or :func:`pi_env.engine.position.save_position`) instead of a
                new game; the learner seats and agent seeds still follow from ``seed``, later games
                of a slot continue its position's generator stream.

        Returns:
            ``(obs, info)``: the first learner row of every game (see the module docstring).

        Raises:
            PositionError: a position of another game, a malformed one (naming its index).
            PIError: an unknown option, not ``B`` positions, a finished game, a bad seed.
        """
        if self.closed:
            raise PIError("the env is closed (its opponents are gone); make a new one")
        options = dict(options or {})
        positions = options.pop("positions", None)
        if options:
            raise PIError(f"unknown reset option {sorted(options)[0]!r} (known: positions)")
        loaded = None
        if positions is not None:
            if isinstance(positions, dict) or not isinstance(positions, Sequence) or len(positions) != self.num_envs:
                raise PIError(f"options['positions'] must list {self.num_envs} saved positions (one per game)")
            for i, pos in enumerate(positions):
                try:
                    check_rules(pos, rules_of(self.config))
                except PIError as exc:
                    raise type(exc)(f"positions[{i}]: {exc}") from None
            loaded = load_positions(positions, self.config)
            if loaded.done.any():
                raise PIError(f"positions[{int(np.flatnonzero(loaded.done)[0])}] is a finished game: nothing "
                              f"is left to play")
        if seed is None and self.state is None:
            seed = self._seed
        if seed is not None:
            if not isinstance(seed, (int, np.integer)) or isinstance(seed, bool) or seed < 0:
                raise PIError(f"seed must be a non-negative integer, got {seed!r}")
            self._np_random, self._np_random_seed = _generator(int(seed))
            engine_seed = int(seed)
        else:
            engine_seed = int(self.np_random.integers(2**63 - 1))
        B, P = self.num_envs, self.num_players
        if self._engine is None:
            self._engine = Engine(self.config, B, seed=engine_seed, parallel=self._parallel)
        elif loaded is None:
            self._engine.reset(seed=engine_seed)
        if loaded is not None:
            self._engine.load(loaded)
        self.state = st = self._engine.state
        if self.self_play and self._turn is None:
            self._turn = self._make_turn()
        self._adv_args = (self._learner, self._notified, self._acc, self._row_seat, self._row_terminal,
                          self._pending, self._need_opp, self._rewards, self._term, self._trunc, st.done,
                          st.truncated, st.current_player, st.last_player, st.rewards)
        self._games[:] = 0
        if self.learner_seats == "rotate":
            self._start = self.np_random.integers(P, size=B)
        self._pending[:] = False
        self._new_games(np.ones(B, dtype=bool))
        if loaded is not None:
            self._failed.load(np.ones(B, dtype=bool), st)  # positions may be mid-round
        self._active[:] = True
        self._advance(self._active, *self._adv_args)
        self._play_opponents()
        return self._outputs()[0::4]

    def _started(self, doing: str) -> tuple[State, Engine]:
        """The games' state and the engine handle; a one-line error before the first reset()."""
        if self.state is None or self._engine is None:
            raise PIError(f"call reset() before {doing}")
        return self.state, self._engine

    def _new_games(self, which: np.ndarray) -> None:
        """Bookkeeping for the new games in the slots ``which`` (the engine already set them up)."""
        P = self.num_players
        self._acc[which] = 0
        self._notified[which] = False
        self._failed.reset(which, self._started("a new game")[0])
        if self.self_play:
            self._learner[which] = True
        else:
            idx = np.flatnonzero(which)
            if self.learner_seats == "rotate":
                self._primary[idx] = (self._start[idx] + self._games[idx]) % P
            elif self.learner_seats == "random":
                self._primary[idx] = self.np_random.integers(P, size=idx.size)
            else:
                self._primary[idx] = int(self.learner_seats)
            rel = (np.arange(P)[None, :] - self._primary[idx, None]) % P  # relative seat of each seat
            self._learner[idx] = self._rel_learner[rel]
            seeds = self.np_random.integers(2**63 - 1, size=(idx.size, P))
            for j, opp in enumerate(self._batch):
                if opp is not None and hasattr(opp, "new_games"):
                    opp.new_games(idx, seeds[:, j + 1])
            for n, b in enumerate(idx):
                for j, agent in enumerate(self._agents[b]):
                    if agent is not None:
                        agent.reset(P, self.config.board, seed=int(seeds[n, j]))
        self._games[which] += 1

    def _reset_slots(self, which: np.ndarray) -> None:
        """Autoreset: a new engine game in every slot of ``which`` (continuing its rng stream)."""
        self._started("an autoreset")[1].reset_games(which)
        self._new_games(which)

    def step(self, actions: Any):
        """Apply ``actions[b]`` for every turn row (ignored for terminal rows); return the next rows.

        Returns:
            ``(obs, rewards, terminated, truncated, info)`` as in the module docstring.

        Raises:
            InvalidActionError: ``actions`` is not an integer array of shape ``(B,)``, or a turn
                row's action is outside ``0..1729``.
            IllegalActionError: a turn row's action is not legal; no game was stepped.
        """
        if self.closed:
            raise PIError("the env is closed (its opponents are gone); make a new one")
        st, eng = self._started("step()")
        a = np.asarray(actions)
        B = self.num_envs
        if a.shape != (B,) or not np.issubdtype(a.dtype, np.integer):
            raise InvalidActionError(f"actions must be an integer array of shape ({B},), "
                                     f"got {a.dtype} {a.shape}")
        if self.check:
            # a terminal row's action is ignored, whatever it is (its game is finished)
            np.copyto(self._actions, a, casting="unsafe")
            self._actions[self._row_terminal] = 0
            a = self._actions
        if self._turn is not None:
            # the whole turn in one call: step, failed solves, new games, next rows, observations
            # and masks (pi_env.engine.rows); a bad action raises first, before any game is stepped
            if self.check:
                eng.check_actions(a)
            elif a.dtype != np.int64 or not a.flags.c_contiguous:
                a = action_array(a, B, check_range=False)
            self._turn(a)
            return self._turn_outputs()
        # checked: a bad action raises before any game is stepped; finished games are not stepped
        eng.step(a, check=self.check)
        self._failed.after_step(self._all, st)
        if self._pending.any():
            which = self._pending.copy()
            self._pending[:] = False
            self._reset_slots(which)
        self._active[:] = True
        self._advance(self._active, *self._adv_args)
        if not self.self_play:
            self._play_opponents()
        return self._outputs()

    def _play_opponents(self) -> None:
        """Step the engine for every game whose player to move is a fixed agent, until each game
        has a learner row (see Opponents in the module docstring)."""
        st, eng = self._started("the opponents' moves")
        P = self.num_players
        acts = self._opp_actions
        legal = self._legal
        while self._need_opp.any():
            idx = np.flatnonzero(self._need_opp)
            movers = st.current_player.astype(np.int64)
            rel = (movers[idx] - self._primary[idx]) % P  # relative seat of each mover
            acts[:] = NO_ACTION  # the other games are not stepped
            single = np.ones(idx.size, dtype=bool)
            for j, opp in enumerate(self._batch):
                if opp is not None:
                    mine = rel == j + 1
                    if mine.any():
                        games = idx[mine]
                        acts[games] = opp.act_batch(st, games, movers[games])
                        single &= ~mine
            if single.any():
                games = idx[single]
                sub = st.take(games)  # observe only the games a per-game agent moves in
                obs = observe(sub, movers[games])
                mask = legal_action_mask(sub)
                for n, b in enumerate(games):  # the Python loop over games needing an agent's move
                    agent = self._agents[b][(movers[b] - self._primary[b]) % P]
                    acts[b] = agent.act(obs[n], mask[n])
            eng.is_legal(acts, out=legal)
            wrong = idx[~legal[idx]]
            if wrong.size:
                b = int(wrong[0])
                j = int((movers[b] - self._primary[b]) % P)
                agent = self._batch[j - 1] if self._batch[j - 1] is not None else self._agents[b][j]
                raise IllegalActionError(f"game {b}: opponent agent {type(agent).__name__} (player "
                                         f"{int(movers[b])}) chose the illegal action {int(acts[b])}")
            eng.step(acts, check=False)  # only the agents' games move
            self._failed.after_step(self._need_opp, st)
            self._active[:] = self._need_opp
            self._advance(self._active, *self._adv_args)

    def _outputs(self):
        st, eng = self._started("reading the rows")
        self._seat8[:] = self._row_seat
        obs = (self._encoder.encode(st, self._row_seat, check=False, failed=self._failed) if self._encoder
               is not None else self._no_obs)
        eng.legal_action_mask(out=self._mask, solves=False)  # the solve part stays ones
        if self.copy:
            info = {"action_mask": self._mask.copy(), "to_move": self._seat8.copy()}
            return obs.copy(), self._rewards.copy(), self._term.copy(), self._trunc.copy(), info
        info = {"action_mask": self._mask_view, "to_move": self._seat_view}
        return obs, self._rewards.copy(), self._term.copy(), self._trunc.copy(), info

    def _turn_outputs(self):
        """The outputs after a fused turn (:meth:`_outputs` without the encoding and the mask, which
        the turn wrote)."""
        obs = self._encoder.view if self._encoder is not None else self._no_obs
        if self.copy:
            info = {"action_mask": self._mask.copy(), "to_move": self._seat8.copy()}
            return obs.copy(), self._rewards.copy(), self._term.copy(), self._trunc.copy(), info
        info = {"action_mask": self._mask_view, "to_move": self._seat_view}
        return obs, self._rewards.copy(), self._term.copy(), self._trunc.copy(), info

    def _make_turn(self) -> SelfPlayTurn:
        rows = (self._learner, self._notified, self._acc, self._row_seat, self._row_terminal, self._pending,
                self._need_opp, self._games, self._rewards, self._term, self._trunc, self._seat8)
        return SelfPlayTurn(self._engine, rows, self._failed,
                            None if self._encoder is None else self._encoder.writer, self._mask,
                            parallel=self._parallel)

    # --- helpers --------------------------------------------------------------------------
    def sample_actions(self, rng: np.random.Generator | None = None,
                       out: np.ndarray | None = None) -> np.ndarray:
        """``int64[B]``: a uniformly random legal action for every row (the engine's sample
        kernel, no mask needed; any value for terminal rows). Draws from ``rng`` or the env's
        generator."""
        _, eng = self._started("sample_actions()")
        g = self.np_random if rng is None else rng
        if out is None:
            out = np.empty(self.num_envs, dtype=np.int64)
        return eng.sample_actions(g, out)

    def engine_observations(self) -> np.ndarray:
        """``int16[B, 618 + 1912·P]``: the engine observation of each row's seat (the input of the
        built-in :mod:`agents`)."""
        return self._started("engine_observations()")[1].observe(self._row_seat)

    def clone_state(self) -> list[dict[str, Any]]:
        """The ``B`` games as saved positions, one ``pi-position/1`` object per game
        (:func:`pi_env.engine.position.save_position`). **Privileged**: they hold every case and
        the deck order (docs/rules.md §9), never a learner's input. ``reset(options={"positions": ...})``
        starts games from them; :func:`copy.deepcopy` / :mod:`pickle` copy the whole env (rows,
        accumulated rewards, opponents and generators included).

        Raises:
            PIError: before the first ``reset()``.
        """
        if self.state is None:
            raise PIError("call reset() before clone_state()")
        return [save_position(self.state, self.config, b) for b in range(self.num_envs)]

    # --- copies -----------------------------------------------------------------
    def __getstate__(self) -> dict[str, Any]:
        """``copy.deepcopy`` and :mod:`pickle` keep everything (the games, the rows, the accumulated
        rewards, the opponents with their memory and generators); the read-only views of the
        output buffers are rebuilt (a copied view would be a separate array)."""
        saved = dict(self.__dict__)
        for name in ("_mask_view", "_seat_view", "_advance", "_turn"):
            saved.pop(name, None)
        return saved

    def __setstate__(self, saved: dict[str, Any]) -> None:
        self.__dict__.update(saved)
        self._mask_view = self._mask.view()
        self._mask_view.flags.writeable = False
        self._seat_view = self._seat8.view()
        self._seat_view.flags.writeable = False
        self._advance = advance_kernel.serial
        self._turn = self._make_turn() if self.self_play and self._engine is not None else None

    @property
    def learner_mask(self) -> np.ndarray:
        """``bool[B, P]``: the learner seats of each slot's current game (a copy)."""
        return self._learner.copy()

    def close_extras(self, **kwargs: Any) -> None:
        self._agents = []


def _generator(seed: int | None) -> tuple[np.random.Generator, int | None]:
    """The env's own generator: independent of the engine's per-game streams for the same seed."""
    ss = np.random.SeedSequence(seed, spawn_key=(1,))
    return np.random.Generator(np.random.PCG64(ss)), seed
