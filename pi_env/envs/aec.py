# noqa: D212, D415
"""
# P.I.

A PettingZoo AEC environment for Martin Wallace's deduction board game *P.I.* (docs/rules.md). It only
translates: the rules live in the batched engine :mod:`pi_env.engine`, run here with one game
(``B == 1``).

| Import             | `from pi_env import env` (wrapped) or `raw_env`                  |
|--------------------|------------------------------------------------------------------|
| Actions            | Discrete                                                         |
| Parallel API       | No                                                               |
| Manual Control     | No                                                               |
| Agents             | `agents = ['player_0', ..., 'player_{n-1}']`                     |
| Agents             | 2 to 5 (`num_players`, default 4; a duel has exactly 2)          |
| Action Shape       | Discrete(1730)                                                   |
| Action Values      | 0 .. 1729                                                        |
| Observation Shape  | dict: `observation` (618 + 1912·n,) int16; `action_mask` (1730,) int8 |
| Observation Values | `observation`: small non-negative counts and flags, scores may be negative (bounds below); `action_mask`: 0 / 1 |

Each agent must find its own *case* (a suspect, an evidence and a location) by asking the player to its
right, who holds it: it selects clue cards from the display (answered *spot*, *trace* or *nothing* on
the board), places investigator tiles (answered with counts of spots and traces) and names a case
when it thinks it knows it. Three rounds, scored by how early each player solves (docs/rules.md §4, §5),
or, with `mode="duel"`, a two-player duel of won rounds (docs/rules.md §7).

### Observation Space

`observe(agent)` returns `{"observation": obs, "action_mask": mask}`; both are fresh arrays the caller
may keep. `obs` is the engine observation of that player (:func:`pi_env.engine.observe`, documented
in :mod:`pi_env.engine.observe`): a flat `int16` vector holding everything public plus the case the
agent holds, never its own case (docs/rules.md §9). Per-player blocks are in *relative seat* order: seat
`j` is player `(p + j) % n`, so seat 0 is the agent itself and seat 1 the player whose case it holds.
Components in order (offsets: :func:`pi_env.engine.observation_layout`; named views:
:func:`pi_env.engine.decode_observation`):

| name           | shape      | values   | meaning                                                        |
|----------------|------------|----------|----------------------------------------------------------------|
| tiles          | [36, 14]   | 0/1      | one-hot district of each element's tile (locations fixed)      |
| display        | [36]       | 0/1      | the element's clue card is face up on the display              |
| discard        | [36]       | 0/1      | the card is in the discard pile                                |
| front          | [n, 36]    | 0/1      | cards answered *nothing*, face up in front of each seat        |
| spot           | [n, 36]    | 0/1      | each seat's spot markers on tiles                              |
| trace          | [n, 36]    | 0/1      | each seat's trace markers on tiles                             |
| inv_placed     | [n, 14]    | 0/1      | the seat placed an investigator in the district this round     |
| inv_spots      | [n, 14]    | 0..3     | spots answered by that investigator                            |
| inv_traces     | [n, 14]    | 0..3     | traces answered by that investigator                           |
| inv_suppressed | [n, 14, 3] | 0/1      | types (suspect, evidence, location) the suppression rule skipped |
| held_case      | [36]       | 0/1      | the 3 elements of the case the agent holds (seat 1's case)     |
| solved_case    | [n, 36]    | 0/1      | the 3 elements each seat named in its correct solve this round |
| failed         | [n, 1680]  | 0/1      | failed solve triples each seat named this round (case ids)     |
| score          | [n]        | see below| scores (duel: rounds won)                                      |
| attempted      | [n]        | 0/1      | the seat attempted a solve this round                          |
| solved         | [n]        | 0/1      | the seat solved this round                                     |
| inv_left       | [n]        | 0..5     | unused investigator tiles                                      |
| round          | [1]        | 0..R     | round, 0-based (equals the rounds played once the game is over) |
| tier           | [1]        | 0..n     | current tier (docs/rules.md §5)                                |
| rotation       | [1]        | 0..max_rotations | rotations completed this round                        |
| first_seat     | [1]        | 0..n-1   | relative seat of the round's first player                      |
| deck_size      | [1]        | 0..36    | cards left in the deck                                         |
| to_move        | [1]        | 0..n-1   | relative seat of the player to move                            |

Element ids: suspects 0..11, evidence 12..21, locations (= districts) 22..35; case id
`s * 140 + e * 14 + l` with type-local indices (:mod:`pi_env.core.constants`). R is the most rounds a
game can last (`GameConfig.round_limit`): 3, 2 with the `fast` variant, `max_rounds` in a duel.
Score bounds: second edition −5..21; first edition `−2 · max_rotations · R` .. `7 · R` (clipped to
int16); duel 0..`max_rounds` (rounds won; the edition does not matter). The variants change no bound
(nick of time keeps the tier within 0..n; per-player investigator counts stay within 0..5).
`observation_space(agent)` is a `Dict` of two `Box`es with exactly these per-entry bounds; the space
objects are built once per env and returned as the same objects on every call.

### Legal Actions Mask

`action_mask[a]` is 1 when action `a` is legal for the agent now. It is all zeros for every agent
except the one to move, and all zeros once the game is over. For the agent to move: a clue `x`
while its card is on the display; an investigator in district `d` while the agent has tiles left
and none in `d` this round; every solve triple always (so the mask is never empty).

### Action Space

`Discrete(1730)`, laid out as in :mod:`pi_env.core.constants`:

* `0 .. 35`: select the clue card of element `x` — action `x`;
* `36 .. 49`: place an investigator in district `d` — action `36 + d`;
* `50 .. 1729`: solve naming suspect `s` (0..11), evidence `e` (0..9), location `l` (0..13) —
  action `50 + s * 140 + e * 14 + l`.

`pi_env.core.actions.action_name(a)` / `parse_action(text)` convert to and from text
(`"clue Pinky"`, `"investigate Downtown"`, `"solve Doc / Forgery / Downtown"`).

### Rewards

After every step, `rewards` holds a reward for **all** agents. In a standard game it is the change
of each agent's score caused by the step (a correct solve gives the tier points; a wrong one −2,
floored at −5 in the second edition); summed over the game they equal the final scores. A duel's
rewards are results, below. `last()` returns the reward accumulated since the agent last acted
(PettingZoo convention). With the `env()` wrappers an illegal action ends
the game at once with reward −1 for the offender and 0 for everyone else (`TerminateIllegalWrapper`);
`raw_env` raises `IllegalActionError` instead.

| event                | reward of the acting agent                           |
|----------------------|------------------------------------------------------|
| clue / investigator  | 0                                                    |
| correct solve        | tier points `[7, 5, 3, 1][tier]` (+ round − 1 in the second edition) |
| wrong solve          | −2 (second edition: not below a score of −5)         |
| illegal move (`env`) | −1, game over                                        |

**Duel** (`mode="duel"`, docs/rules.md §7). There are no points: `score` counts the rounds each player
has won, and the rewards are results. The step that decides a round (the first solve attempt of the
round, or the opponent's one more turn after the round's first player solved correctly) gives
+1 to the round's winner and −1 to its loser, 0 to both for a draw (also a round ended by the
rotation-limit safeguard, at the step that reached it). The step that ends the game adds +1 to the
game's winner and −1 to its loser, so the last step can give ±2. Summed over a game, an agent's
rewards are its rounds won − rounds lost ± 1 for the game. A duel still tied after `max_rounds`
rounds ends *truncated* with no game reward. The one-more-turn situation is public and visible in the
observation: the round's first player (`first_seat`) has `solved` set while the round goes on.

| event (duel)                                   | rewards                                      |
|------------------------------------------------|----------------------------------------------|
| clue / investigator / correct first solve of the round's first player | 0 (the opponent now takes its one more turn) |
| wrong first solve attempt of the round         | −1 to the solver, +1 to the opponent          |
| correct first solve by the round's second player | +1 to the solver, −1 to the opponent        |
| the one more turn: correct solve / anything else | 0 to both (draw) / +1 first player, −1 opponent |
| the step that ends the duel                    | additionally +1 winner, −1 loser (none if tied at `max_rounds`) |

### Infos

`infos[agent]` is a dict. After an agent acts, its info describes that action, all public
(docs/rules.md §9): `{"action": a, "last_action": "clue Pinky", "answer": "trace"}` (answers: `spot`,
`trace`, `nothing`; `"1 spot, 2 traces"`; `correct`, `wrong`). When the game ends every agent's info
also gets `"rank"` (1-based, ties shared) and `"scores"` (final scores of all players; duel: rounds
won). Nothing in an info is derived from the agent's own case beyond these public answers.

### Episode End

A standard game ends after the last round (3, or 2 with the `fast` variant). Then every agent is
*terminated*. The rotation-limit safeguard (docs/rules.md §5, `max_rotations`, not a rule of the game)
ends a round as if time ran out and the game goes on; if it fired in any round, the end of the game
is reported as *truncation* for every agent instead of termination. Players who solved are skipped
for the rest of their round but remain agents until the game ends.

A duel ends as soon as one player has more round wins after the regular rounds (3, or 2 with
`fast`); while tied it goes on, and a duel still tied after `max_rounds` rounds is truncated. A duel
round ends at the step that decides it (no end-of-rotation check); the safeguard ends a duel round
as a draw and, as above, makes the end of the game a truncation.

### Arguments

``` python
pi_env.env(num_players=None, edition="second", render_mode=None, max_rotations=60,
           board="daytime", variants=(), mode="standard", investigators=None, max_rounds=9)
```

`num_players`: 2 to 5; `None` (default) means 4, or 2 in a duel.

`edition`: `"second"` (default) or `"first"` (first edition / Board Game Arena scoring). It
changes nothing in a duel.

`render_mode`: `None`, `"ansi"` (`render()` returns the text), `"human"` (prints it, also after
every reset and step) or `"rgb_array"` (`render()` returns a picture of the board, `uint8[H, W, 3]`,
:func:`pi_env.envs.board_image.board_image`). Every rendering is the spectator's view
(:func:`pi_env.envs.render.render_text` with `viewer=None`): no case is shown.

`max_rotations`: the safeguard: a round ends after this many rotations.

`board`: a bundled board name, a board JSON object or a :class:`pi_env.core.board.Board`.

`variants`: any combination of `"fast"` (2 rounds) and `"nick-of-time"` (docs/rules.md §6: after the
first solve of a round the tier advances at the end of every rotation, and the rotation played at the
last tier ends the round; not in a duel).

`mode`: `"standard"` (default) or `"duel"` (docs/rules.md §7: exactly 2 players, rounds won instead of
points; see Rewards and Episode End).

`investigators`: starting investigator tiles per player, one count 0..5 each (the *beginner
friendly* variant, docs/rules.md §6), e.g. `[5, 5, 3, 3]`; `None` means 5 each (duel: 2 each; before
every later round each player gets 2 more, the last round's winner 1, holding at most 5).

`max_rounds`: the duel's safeguard: a duel still tied after this many rounds ends truncated
(default 9; at least the regular rounds; unused in standard games).

An invalid option or combination (a duel with other than 2 players, nick of time in a duel, an
unknown variant, a wrong number of investigator counts, ...) raises the engine's `PIError`.

Seeding: `reset(seed=s)` plays the engine game `pi_env.engine.init(config, 1, s)`, so the same seed
gives the same game; `reset()` without a seed draws the game seed from the env's generator, which
is seeded at construction (fresh entropy) and reseeded by every `reset(seed=s)`.

### Copies, saved positions, record starts

(docs/positions.md.) `copy.deepcopy` and `pickle` of `env()` or `raw_env()` keep the whole game: the
copy and the original, given the same actions, show the same observations, masks, rewards,
terminations, truncations, infos and renders to the end, every later chance draw included (all
chance comes from the engine generator inside the game state).

`clone_state()` (forwarded by the wrappers) returns the game as a small JSON-serialisable
`pi-position/1` object (:mod:`pi_env.engine.position`: `{"format", "rules", "state", "env"}`, the
engine state and this env's bookkeeping). `reset(options={"position": saved})` puts it into this
env or a new one of the same game and goes on exactly as the saved env would; a position of another
format version, mode, player count, rules or board is refused with a `PositionError` naming the
difference (a bare engine position without `"env"` starts as after a reset). The saved position is
**privileged** (every case, the deck order): it is never an agent's input.

`reset(seed=s, options={"record": r, "round": k, "event": e})` starts after event `e` (0-based;
`-1`: the round's start; absent: after its last event) of round `k` (0-based; absent: the last) of
a `pi-record/1` record (a path, a parsed object or a `GameRecord`) of this env's game, seen by the
player to move (`agent_selection`): an engine-written record (with its seed) exactly as played; a
record typed in at a table from its stated layouts and cases, with the clue cards and any later
chance drawn from `s`, and missing cases drawn by `options["complete_cases"]` (a
`pi_env.records.start.CaseCompleter`, such as `pi_env.solvers.complete_cases`: the solver's exact
posterior; `pi_env.records.start` explains). Every agent's info then has
`"record": {"round", "event", "seeded", "drawn_cases", "drawn_cards"}` (`drawn_cases[r]`: whose
cases were drawn in round `r`; never a case).

### Version History

`metadata["name"]` changes its version whenever the behaviour changes (observations, masks,
rewards, ends, infos); `tests/test_env_versions.py` pins the name with a fingerprint of seeded
rollouts and fails on a change without a new version.

* v0: Initial version.
* v0, additive: `mode="duel"`, the `"nick-of-time"` variant, per-player `investigators` and
  `max_rounds`; `num_players` defaults to `None` (4, or 2 in a duel). Games with the old arguments
  play, observe and reward exactly as before.
* v0, additive: `render_mode="rgb_array"` (a picture of the board).
* v0, additive: copies keep the game; `clone_state()`, `reset(options={"position": ...})`,
  `reset(options={"record": ...})`.
"""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from pi_env.core.actions import action_id, action_name
from pi_env.core.board import Board, load_board
from pi_env.encodings import observation_bounds  # the encodings package's; exported here as always
from pi_env.core.constants import (ANSWER_NAMES, DEFAULT_MAX_ROTATIONS, INVESTIGATE_BASE, MAX_INVESTIGATORS,
                                   NUM_ACTIONS, NUM_ELEMENTS, SOLVE_BASE)
from pi_env.core.errors import IllegalActionError, PIError, PositionError
from pi_env.engine import Engine, GameConfig, State, observation_layout, observation_size
from pi_env.engine.position import POSITION_FORMAT, check_rules, load_position, rules_of, save_position
from pi_env.engine.state import DEFAULT_MAX_ROUNDS
from pi_env.envs.render import render_text

__all__ = ["env", "raw_env", "observation_bounds"]


def env(**kwargs: Any) -> AECEnv:
    """The P.I. AEC environment with PettingZoo's classic-game wrappers.

    ``TerminateIllegalWrapper(illegal_reward=-1)``, ``AssertOutOfBoundsWrapper`` and
    ``OrderEnforcingWrapper`` around :class:`raw_env` (keyword arguments go to it).

    Example:
        >>> e = env(num_players=3)
        >>> e.reset(seed=0)
        >>> e.agent_selection in e.possible_agents
        True
    """
    e: AECEnv = raw_env(**kwargs)
    e = wrappers.TerminateIllegalWrapper(e, illegal_reward=-1)
    e = wrappers.AssertOutOfBoundsWrapper(e)
    e = wrappers.OrderEnforcingWrapper(e)
    return e


class raw_env(AECEnv):
    """The unwrapped P.I. environment; see the module docstring for the full specification.

    Args:
        num_players: 2 to 5, or ``None`` for 4 (2 in a duel).
        edition: ``"second"`` or ``"first"``.
        render_mode: ``None``, ``"ansi"``, ``"human"`` or ``"rgb_array"``.
        max_rotations: the rotation-limit safeguard (docs/rules.md §5).
        board: bundled board name, board JSON object or :class:`~pi_env.core.board.Board`.
        variants: rule variants, any of ``"fast"`` and ``"nick-of-time"``.
        mode: ``"standard"`` or ``"duel"``.
        investigators: starting investigator tiles per player, or ``None`` for the default.
        max_rounds: the duel's safeguard (most rounds a tied duel lasts).

    Attributes:
        config: the :class:`~pi_env.engine.GameConfig` of the game.
        game_state: the engine :class:`~pi_env.engine.State` (``B == 1``), ``None`` before the
            first ``reset``. It holds hidden information (every case): use it for tools and
            tests, never as an agent's input. The same object is reused by later resets (the new
            game is set up in its arrays) and the env keeps references to its arrays, so edit them
            only in place.

    Raises:
        PIError: an invalid option or combination (bad player count, edition, mode, variant,
            investigator counts, ``max_rounds``, board or render mode; a duel with other than 2
            players; nick of time in a duel).
    """

    metadata: dict[str, Any] = {"name": "pi_v0", "render_modes": ["ansi", "human", "rgb_array"],
                                "is_parallelizable": False, "render_fps": 1}

    def __init__(self, num_players: int | None = None, edition: str = "second",
                 render_mode: str | None = None, max_rotations: int = DEFAULT_MAX_ROTATIONS,
                 board: "str | dict[str, Any] | Board" = "daytime", variants: "tuple[str, ...]" = (),
                 mode: str = "standard", investigators: "tuple[int, ...] | None" = None,
                 max_rounds: int = DEFAULT_MAX_ROUNDS):
        super().__init__()
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise PIError(f"render_mode must be None or one of {self.metadata['render_modes']}, "
                          f"got {render_mode!r}")
        self.config = GameConfig(num_players=num_players, edition=edition, variants=variants,
                                 investigators=investigators, max_rotations=max_rotations,
                                 board=load_board(board), mode=mode, max_rounds=max_rounds)
        self.render_mode = render_mode
        P = self.config.num_players
        self.possible_agents = [f"player_{i}" for i in range(P)]
        self.agents = self.possible_agents[:]
        self._index = {a: i for i, a in enumerate(self.possible_agents)}
        self._obs_size = observation_size(P)
        low, high = observation_bounds(self.config)
        self.observation_spaces = {
            a: spaces.Dict({
                "observation": spaces.Box(low=low, high=high, shape=(self._obs_size,), dtype=np.int16),
                "action_mask": spaces.Box(low=0, high=1, shape=(NUM_ACTIONS,), dtype=np.int8),
            }) for a in self.possible_agents}
        self.action_spaces = {a: spaces.Discrete(NUM_ACTIONS) for a in self.possible_agents}
        self._np_random: np.random.Generator | None = np.random.default_rng()
        self._last_seed: int | None = None
        # Per-board tables and preallocated buffers.
        board_ = self.config.board
        self._action_names = tuple(action_name(a, board_) for a in range(NUM_ACTIONS))
        self._inv_answers = tuple(tuple(
            f"{s} spot{'' if s == 1 else 's'}, {t} trace{'' if t == 1 else 's'}" for t in range(4))
            for s in range(4))
        self._action = np.zeros(1, dtype=np.int64)
        self._legal = np.zeros(1, dtype=bool)
        self._zero_mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
        # one game on one thread (B == 1 never needs threads); set up anew by every reset
        self._engine = Engine(self.config, 1, seed=0, parallel=False)
        self.game_state: State | None = None

    # --- spaces ---------------------------------------------------------------------------
    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    # --- episode --------------------------------------------------------------------------
    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """A new game; see Seeding and "Copies, saved positions, record starts" in the module
        docstring for ``options`` (``"position"``; ``"record"``, ``"round"``, ``"event"``,
        ``"complete_cases"``).

        Raises:
            PIError: options that exclude each other (an unknown option is ignored, as PettingZoo's
                API test expects).
            PositionError: a saved position or a record of another game than this env's.
            RecordError: a record that cannot be started at that point (the message says why).
        """
        options = dict(options or {})
        position = options.pop("position", None)
        start = {k: options.pop(k) for k in ("record", "round", "event", "complete_cases") if k in options}
        # other keys are ignored, as hosts do: PettingZoo's API test passes {'options': 1} and wants no warning
        if position is not None and start:
            raise PIError("reset options 'position' and 'record' exclude each other")
        if start and "record" not in start:
            raise PIError("reset options 'round', 'event' and 'complete_cases' need 'record'")
        # the engine's game for the seed is that of ``pi_env.engine.init(config, 1, seed)``
        if seed is not None:
            game_seed = seed
            self._np_random = None  # reseeded from ``seed`` when an unseeded reset needs it
            self._last_seed = seed
        else:
            if self._np_random is None:
                self._np_random = np.random.default_rng(self._last_seed)
            game_seed = int(self._np_random.integers(0, 2**63 - 1))
        saved_env: Any = None
        info: dict[str, Any] = {}
        if position is not None:
            check_rules(position, rules_of(self.config))  # "... this env plays ..."
            st = self._engine.state
            self._engine.load(load_position(position, self.config))
            saved_env = position.get("env")
        elif start:
            from pi_env.records.recorder import config_of
            from pi_env.records.start import as_record, record_start

            rec = as_record(start["record"])
            if rec.rules.mode != "solo":  # (record_start refuses a solo record) another game: said first
                check_rules({"format": POSITION_FORMAT, "rules": rules_of(config_of(rec)), "state": {}},
                            rules_of(self.config), what="the record")
            rs = record_start(rec, start.get("round"), start.get("event"),
                              complete_cases=start.get("complete_cases"), seed=game_seed)
            st = self._engine.state
            assert isinstance(rs.state, State)  # record_start plays standard and duel records
            self._engine.load(rs.state)
            info = {"record": rs.info()}
        else:
            st = self._engine.reset(game_seed)  # validates the seed first
        self.game_state = st
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {a: dict(info) for a in self.agents}
        self.agent_selection = self.possible_agents[st.current_player[0]]
        self._skip_agent_selection = None
        if st.done[0]:
            self._finish()
        if saved_env is not None:
            self._restore_env(saved_env)
        if self.render_mode == "human":
            self.render()

    def _started(self) -> State:
        """The game's state; a one-line error before the first reset()."""
        if self.game_state is None:
            raise PIError("call reset() before step() or observe()")
        return self.game_state

    # --- saved positions ------------------------------------------------------
    def clone_state(self) -> dict[str, Any]:
        """The game as a saved position: a small JSON-serialisable ``pi-position/1`` object
        (:mod:`pi_env.engine.position`) with the env's bookkeeping under ``"env"`` (the agents
        still in the game, the agent to act, the rewards, the rewards accumulated since each agent
        last acted, terminations, truncations, infos; PettingZoo's ``_skip_agent_selection`` while
        finished agents are removed). ``reset(options={"position": saved})``, in
        this env or a new one of the same game, goes on exactly as this env would, chance included.

        **Privileged**: the position holds every case and the deck order (docs/rules.md §9). It is for
        tools, search, tests and saved games, never an agent's input; agents get only
        :meth:`observe` / :meth:`last`.

        Raises:
            PIError: before the first ``reset()``.
        """
        if self.game_state is None:
            raise PIError("call reset() before clone_state()")
        saved = save_position(self.game_state, self.config)
        saved["env"] = {
            "agents": list(self.agents), "agent_selection": self.agent_selection,
            "rewards": dict(self.rewards), "cumulative_rewards": dict(self._cumulative_rewards),
            "terminations": dict(self.terminations), "truncations": dict(self.truncations),
            "infos": {a: {k: (list(v) if isinstance(v, tuple) else v) for k, v in i.items()}
                      for a, i in self.infos.items()},
            "skip_agent_selection": self._skip_agent_selection,
        }
        return saved

    def _restore_env(self, saved: Any) -> None:
        """The bookkeeping of a saved position's ``"env"`` object (checked)."""
        keys = ("agents", "agent_selection", "rewards", "cumulative_rewards", "terminations", "truncations",
                "infos", "skip_agent_selection")
        if not isinstance(saved, dict) or sorted(saved) != sorted(keys):
            raise PositionError(f"saved position: 'env' must be an object with the keys {', '.join(keys)}")
        known = set(self.possible_agents)

        def fail(key: str, msg: str) -> None:
            raise PositionError(f"saved position: env.{key} {msg}")

        agents = saved["agents"]
        if not isinstance(agents, list) or not set(agents) <= known or len(set(agents)) != len(agents):
            fail("agents", f"must list agents of this env ({', '.join(self.possible_agents)})")
        if saved["agent_selection"] not in known:
            fail("agent_selection", f"{saved['agent_selection']!r} is not an agent of this env")
        if saved["skip_agent_selection"] is not None and saved["skip_agent_selection"] not in known:
            fail("skip_agent_selection", f"{saved['skip_agent_selection']!r} is not an agent of this env")
        for key, kind in (("rewards", (int, float)), ("cumulative_rewards", (int, float)),
                          ("terminations", bool), ("truncations", bool), ("infos", dict)):
            d = saved[key]
            if (not isinstance(d, dict) or not set(d) <= known
                    or any(not isinstance(v, kind) or (kind != bool and isinstance(v, bool)) for v in d.values())):
                fail(key, f"must map agents of this env to {'numbers' if kind != bool and kind != dict else kind.__name__ + 's'}")
        self.agents = list(agents)
        self.agent_selection = saved["agent_selection"]
        self.rewards = dict(saved["rewards"])
        self._cumulative_rewards = dict(saved["cumulative_rewards"])
        self.terminations = dict(saved["terminations"])
        self.truncations = dict(saved["truncations"])
        self.infos = {a: {k: (tuple(v) if k == "scores" and isinstance(v, list) else v) for k, v in i.items()}
                      for a, i in saved["infos"].items()}
        self._skip_agent_selection = saved["skip_agent_selection"]

    def _check_action(self, action: Any) -> int:
        a = action_id(action)
        st = self._started()
        self._action[0] = a
        if not self._engine.is_legal(self._action, out=self._legal)[0]:
            raise IllegalActionError(
                f"action {a} ({self._action_names[a]}) is not legal for {self.agent_selection} "
                f"(round {int(st.round[0]) + 1}, turn {int(st.turn[0])})")
        return a

    def step(self, action: Any) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        a = self._check_action(action)  # sets self._action
        self._engine.step(self._action, check=False)
        st = self._started()
        self._cumulative_rewards[agent] = 0
        self.rewards = rewards = dict(zip(self.possible_agents, st.rewards[0].tolist()))
        cum = self._cumulative_rewards
        for name, r in rewards.items():
            cum[name] += r
        a0, a1 = st.last_answer[0].tolist()
        if a < INVESTIGATE_BASE:
            text = ANSWER_NAMES[a0]
        elif a < SOLVE_BASE:
            text = self._inv_answers[a0][a1]
        else:
            text = "correct" if a0 == 1 else "wrong"
        self.infos[agent] = {"action": a, "last_action": self._action_names[a], "answer": text}
        if st.done[0]:
            self._finish()
        self.agent_selection = self.possible_agents[st.current_player[0]]
        if self.render_mode == "human":
            self.render()

    def _finish(self) -> None:
        st = self._started()
        res = self._engine.outcome()
        ended = self.truncations if st.truncated[0] else self.terminations
        for i, name in enumerate(self.possible_agents):
            ended[name] = True
            self.infos[name] = {**self.infos[name], "rank": res.ranks[i], "scores": res.scores}

    # --- observation ----------------------------------------------------------------------
    def observe(self, agent: str) -> dict[str, np.ndarray]:
        p = self._index[agent]
        out = self._engine.observe(p)
        if agent == self.agent_selection and not self._started().done[0]:
            return {"observation": out[0], "action_mask": self._engine.legal_action_mask()[0]}
        return {"observation": out[0], "action_mask": self._zero_mask.copy()}

    # --- rendering ------------------------------------------------------------------------
    def render(self) -> str | np.ndarray | None:
        if self.render_mode is None:
            gymnasium.logger.warn("You are calling render method without specifying any render mode.")
            return None
        if self.game_state is None:
            raise PIError("call reset() before render()")
        if self.render_mode == "rgb_array":
            from pi_env.envs.board_image import board_image

            return board_image(self.game_state, self.config)
        text = render_text(self.game_state, self.config)
        if self.render_mode == "ansi":
            return text
        print(text)
        return None

    def close(self) -> None:
        pass
