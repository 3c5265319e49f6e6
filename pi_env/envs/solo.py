# noqa: D212, D415
"""
# P.I. Solo Time Attack

A Gymnasium environment for the solo mode of *P.I.* (docs/rules.md §8): the program lays out the board and
hides a case (a suspect, an evidence and a location); the agent queries until it names the case.
Fewer actions is better. It only translates: the rules are the batched solo engine
:mod:`pi_env.engine.solo`, whose answer rules are the standard engine's own code.

| Import             | `import pi_env` then `gymnasium.make("pi_env/SoloTimeAttack-v0")`, or `pi_env.envs.solo.SoloTimeAttackEnv` |
|--------------------|------------------------------------------------------------------|
| Vector             | `gymnasium.make_vec("pi_env.envs.solo:pi_env/SoloTimeAttack-v0", num_envs=N, vectorization_mode="vector_entry_point")` → `SoloTimeAttackVectorEnv` |
| Action Space       | `Discrete(1730)`                                                 |
| Observation Space  | `Dict("observation": Box(int16, (2452,)), "action_mask": Box(int8, (1730,)))` |
| Reward             | −1 per action, minus `investigator_cost` per investigator, minus `wrong_solve_cost` per wrong solve |
| Episode End        | terminated on the correct solve (or an illegal action); truncated after `max_actions` |
| Autoreset (vector) | `AutoresetMode.NEXT_STEP`                                        |

### Observation Space

`{"observation": obs, "action_mask": mask}`, fresh arrays. `obs` is the engine's solo observation
(:func:`pi_env.engine.solo.observe`): everything the player knows, nothing about the case beyond the
answers (docs/rules.md §9). Components in order (offsets: :func:`pi_env.engine.solo.observation_layout`;
named views: :func:`pi_env.engine.solo.decode_observation`):

| name           | shape    | values | meaning                                                          |
|----------------|----------|--------|------------------------------------------------------------------|
| tiles          | [36, 14] | 0/1    | one-hot district of each element's tile (locations fixed)        |
| display        | [36]     | 0/1    | a clue on the element can be asked now (open mode: all 1)        |
| discard        | [36]     | 0/1    | display mode: the clue card is in the discard pile               |
| spot           | [36]     | 0/1    | clue answered *spot* (the element is the case's)                 |
| trace          | [36]     | 0/1    | clue answered *trace* (the case's element of that type is adjacent) |
| nothing        | [36]     | 0/1    | clue answered *nothing*                                          |
| inv_placed     | [14]     | 0/1    | an investigator is in the district                               |
| inv_spots      | [14]     | 0..3   | spots it received                                                |
| inv_traces     | [14]     | 0..3   | traces it received                                               |
| inv_suppressed | [14, 3]  | 0/1    | types (suspect, evidence, location) it was suppressed for (§4.2) |
| failed         | [1680]   | 0/1    | case ids named in a wrong solve                                  |
| inv_left       | [1]      | 0..investigators | investigator tiles left                                |
| actions        | [1]      | 0..max_actions   | actions taken                                          |
| wrong_solves   | [1]      | 0..max_actions   | wrong solve attempts                                   |
| deck_size      | [1]      | 0..36  | display mode: cards left in the deck (open mode 0)               |

Element ids: suspects 0..11, evidence 12..21, locations (= districts) 22..35; case id
`s * 140 + e * 14 + l` (:mod:`pi_env.core.constants`). The `Box` bounds are exactly these per entry.

### Legal Actions Mask

`action_mask[a] == 1` when `a` is legal now: a clue on `x` always in open mode (repeating a query is
legal and answers the same again, so it only costs an action), and while `x`'s card is face up in
display mode; an investigator in district `d` while tiles are left and none is in `d`; every solve
triple always (also one already failed). It is never empty. Once the episode is over it is all ones.

### Action Space

`Discrete(1730)`, the standard layout of :mod:`pi_env.core.constants`:

* `0 .. 35`: clue query on element `x` — action `x` (answer *spot*, *trace* or *nothing*, §4.1);
* `36 .. 49`: place an investigator in district `d` — action `36 + d` (answer: spots and traces,
  with the suppression rule, §4.2);
* `50 .. 1729`: name suspect `s`, evidence `e`, location `l` — action `50 + s * 140 + e * 14 + l`.

An action outside `0..1729` raises `InvalidActionError`. An **illegal** action (masked out) ends
the episode at once (*terminated*, `info["forfeited"] = True`; it does not count as an action) with
reward `−(max_actions − actions taken)`: the same total as running out the clock, so forfeiting
never pays.

### Rewards

Every action: `−1`; an investigator additionally `−investigator_cost`; a wrong solve additionally
`−wrong_solve_cost`. The correct solve gets `−1` and ends the episode. So the return is
`−(actions + investigator_cost · investigators used + wrong_solve_cost · wrong solves)`, the
docs/rules.md §8 result as one number.

### Infos

`{"actions", "investigators_used", "wrong_solves"}` (ints, the §8 result so far), `"forfeited"`
(bool) and, after a step, `"answer"`: `"spot"`, `"trace"`, `"nothing"`, `"1 spot, 2 traces"`,
`"correct"`, `"wrong"` or `"illegal"`. Never anything about the case. The vector env returns the
same keys as arrays (with Gymnasium's `_key` masks), without `"answer"`.

### Episode End

*Terminated* on the correct solve (or an illegal action). *Truncated* when `max_actions` actions
have been taken without solving (a correct solve with the last allowed action terminates).
Stepping a finished single env returns the same observation, reward 0 and the same flags; call
`reset()`.

### Arguments

``` python
gymnasium.make("pi_env.envs.solo:pi_env/SoloTimeAttack-v0", render_mode=None, use_display=False,
               investigators=5, investigator_cost=0.0, wrong_solve_cost=0.0, max_actions=200,
               accept_case=None, board="daytime")
```

`render_mode`: `None` or `"ansi"` (`render()` returns the text: layout, answers, investigators,
failed solves; never the case until it is solved).

`use_display`: `False` (default): a clue may name any of the 36 elements. `True`: only the 9 face-up
clue cards, with the card flow of docs/rules.md §4.1.

`investigators`: investigator tiles, 0..14 (default 5).

`investigator_cost`, `wrong_solve_cost`: extra non-negative costs (default 0).

`max_actions`: truncation limit, 1..32767 (default 200).

`accept_case`: `None` or a callable `accept_case(tile_district: int8[36], case: int) -> bool`: each
reset draws games from the episode's generator stream until one is accepted. For a difficulty
bucket use `pi_env.solvers.solo_rating.difficulty_filter("easy" | "medium" | "hard")` (the greedy
solver's actions in open mode: ≤ 5, 6–7, ≥ 8; the rating takes about 13 ms per draw: easy ≈ 0.1 s
per reset, medium ≈ 20 ms, hard ≈ 0.1 s). (Before 0.2.0 this was `difficulty="hard"`: the env
layer cannot import the solver, so the rating is passed in.)

`board`: a bundled board name, a board JSON object or a :class:`~pi_env.core.board.Board`.

Seeding: `reset(seed=s)` seeds `self.np_random` and plays the engine game
`pi_env.engine.solo.init(config, 1, s)`: the same seed gives the same layout and case, and
`pi_env.apps.solo_cases.generate(s)` is that case. `reset()` without a seed continues the engine
generator of the previous episode (the next game of the stream, as the vector env's autoreset
does); the very first `reset()` without a seed draws the stream from `self.np_random`.
`reset(options={"tile_district": td, "case": c})` plays a given layout (`int[36]`) and case (a case
id or `(s, e, l)`), e.g. a generated case.

### Copies, saved positions, record starts (docs/positions.md)

`copy.deepcopy(env)` and `pickle` keep the whole game (the engine generator included): the copy and
the original, given the same actions, give the same observations, rewards, flags, infos and renders,
and the same next games after `reset()`. `env.clone_state()` returns the game as a small JSON
`pi-position/1` object (:mod:`pi_env.engine.position`; **privileged**: it holds the case);
`reset(options={"position": saved})` puts it into an env with the same options (another game's
position is refused with a `PositionError`). `reset(options={"record": r, "event": e})` starts after
event `e` of a solo record (`pi_env.records.start.solo_record_start`; open queries only; a typed
record without its case needs `"complete_cases"`, a `pi_env.records.start.CaseCompleter` such as
`pi_env.solvers.complete_cases`);
the info then has `"record"`. The vector env's `clone_state()` lists one position per sub-env, and
`reset(options={"positions": [...]})` starts sub-env `i` from position `i`.

The vector env `SoloTimeAttackVectorEnv(num_envs, **same arguments)` steps all games in one call
of the batched engine. `reset(seed=s)` gives sub-env `i` the game of `reset(seed=s + i)` of a single
env (a list of seeds, one per sub-env, is also accepted); with `NEXT_STEP` autoreset, the step after
a sub-env's episode ended ignores its action, starts its next game (continuing its stream, as a
single env's `reset()`) and returns reward 0, not terminated, not truncated.

### Registration

`import pi_env` registers `pi_env/SoloTimeAttack-v0` (`entry_point` and `vector_entry_point`,
as strings: this module loads on `gymnasium.make`), as Gymnasium plugins such as ale-py do:
Gymnasium ≥ 1.0 loads no plugins through package entry points, so registration cannot happen at
install time. The id's `module:id` form works as well: `gymnasium.make` and `gymnasium.make_vec`
import the module named before the colon before they look the id up, so
`gymnasium.make("pi_env.envs.solo:pi_env/SoloTimeAttack-v0")` works in a fresh interpreter without
importing anything first.

### Version History

The id's version changes whenever the behaviour changes (what an agent observes, the rewards, the
ends of episodes); `tests/test_env_versions.py` pins the id with a fingerprint of seeded rollouts
and fails on a change without a new version.

* v0: Initial version (pi-env 0.1.0). In 0.2.0 the `difficulty` argument became `accept_case` (a
  callable, e.g. `pi_env.solvers.solo_rating.difficulty_filter("hard")`); behaviour unchanged.
"""

from __future__ import annotations

import math
from typing import Any, Callable, Sequence

import gymnasium
import numpy as np
from gymnasium import spaces
from gymnasium.utils import seeding
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from pi_env.core.actions import action_id
from pi_env.core.board import Board, load_board
from pi_env.core.constants import (ANSWER_NAMES, CASE_TRIPLES, EVIDENCE_NAMES, INVESTIGATE_BASE, NUM_ACTIONS,
                        NUM_DISTRICTS, NUM_ELEMENTS, SOLVE_BASE, SUSPECT_NAMES, TYPE_NAMES)
from pi_env.encodings import solo_observation_bounds
from pi_env.engine import solo as S
from pi_env.engine.position import load_solo_position, save_solo_position
from pi_env.core.errors import InvalidActionError, PIError
from pi_env.core.text import format_table

__all__ = ["SoloTimeAttackEnv", "SoloTimeAttackVectorEnv", "ENV_ID"]

ENV_ID = "pi_env/SoloTimeAttack-v0"
"""The Gymnasium id, registered by ``import pi_env`` (:data:`pi_env.GYMNASIUM_ENVS`)."""


def _check_cost(name: str, value: Any) -> float:
    try:
        v = float(value)
    except (TypeError, ValueError):
        v = float("nan")
    if isinstance(value, bool) or not math.isfinite(v) or v < 0:
        raise PIError(f"{name} must be a finite number >= 0, got {value!r}")
    return v


def _answer_text(action: int, answer: np.ndarray) -> str:
    if action < INVESTIGATE_BASE:
        return ANSWER_NAMES[int(answer[0])]
    if action < SOLVE_BASE:
        s, t = int(answer[0]), int(answer[1])
        return f"{s} spot{'' if s == 1 else 's'}, {t} trace{'' if t == 1 else 's'}"
    return "correct" if int(answer[0]) == 1 else "wrong"


class _SoloBatch:
    """The shared core of both envs: a batch of solo games, the reward rule and the seeding."""

    def __init__(self, batch_size: int, use_display: bool, investigators: int, investigator_cost: float,
                 wrong_solve_cost: float, max_actions: int,
                 accept_case: "Callable[[np.ndarray, int], bool] | None",
                 board: "str | dict[str, Any] | Board"):
        if accept_case is not None and not callable(accept_case):
            raise PIError(f"accept_case must be None or a callable (tile_district, case) -> bool, "
                          f"got {accept_case!r}")
        self.config = S.SoloConfig(investigators=investigators, use_display=use_display,
                                   max_actions=max_actions,
                                   board=board if isinstance(board, Board) else load_board(board))
        self.investigator_cost = _check_cost("investigator_cost", investigator_cost)
        self.wrong_solve_cost = _check_cost("wrong_solve_cost", wrong_solve_cost)
        self.accept_case = accept_case
        self.state = S.empty_solo_state(batch_size)
        self.state.done[:] = True
        low, high = solo_observation_bounds(self.config)
        self.single_observation_space = spaces.Dict({
            "observation": spaces.Box(low=low, high=high, shape=(S.OBSERVATION_SIZE,), dtype=np.int16),
            "action_mask": spaces.Box(low=0, high=1, shape=(NUM_ACTIONS,), dtype=np.int8),
        })
        self.single_action_space = spaces.Discrete(NUM_ACTIONS)

    def reset(self, which: np.ndarray, rng_states: np.ndarray | None = None) -> None:
        """New games for ``which``: from ``rng_states[which]`` if given, else continuing each
        game's stream; with ``accept_case``, further games of the stream until one is accepted."""
        st = self.state
        if rng_states is not None:
            st.rng[which] = rng_states[which]
        S.reset_games(st, self.config, which)
        if self.accept_case is not None:
            one = np.zeros(st.batch_size, dtype=bool)
            for b in np.flatnonzero(which):
                one[:] = False
                one[b] = True
                while not self.accept_case(st.tile_district[b].copy(), S.case_of(st, int(b))):
                    S.reset_games(st, self.config, one)

    def step(self, actions: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Step every game not done; returns ``(rewards float64[B], forfeited_now bool[B])``."""
        st = self.state
        was_done = st.done.copy()
        before = (st.actions.astype(np.int64), st.investigators_used.astype(np.int64),
                  st.wrong_solves.astype(np.int64))
        S.step_inplace(st, actions, self.config, check=False)
        rewards = -(st.actions - before[0]).astype(np.float64)
        rewards -= self.investigator_cost * (st.investigators_used - before[1])
        rewards -= self.wrong_solve_cost * (st.wrong_solves - before[2])
        forfeited_now = st.forfeited & ~was_done
        rewards[forfeited_now] = -(self.config.max_actions - st.actions[forfeited_now].astype(np.float64))
        return rewards, forfeited_now

    def observations(self) -> dict[str, np.ndarray]:
        return {"observation": S.observe(self.state), "action_mask": S.legal_action_mask(self.state)}

    def check_actions(self, actions: Any, n: int) -> np.ndarray:
        a = np.asarray(actions)
        if a.shape != (n,) or not (np.issubdtype(a.dtype, np.integer) or a.size == 0):
            raise InvalidActionError(f"actions must be {n} integers, got {a.dtype} {a.shape}")
        bad = np.flatnonzero((a < 0) | (a >= NUM_ACTIONS))
        if bad.size:
            raise InvalidActionError(f"env {int(bad[0])}: action {int(a[bad[0]])!r} is outside "
                                     f"0..{NUM_ACTIONS - 1}")
        return np.ascontiguousarray(a, dtype=np.int64)

    def render(self, b: int) -> str:
        return render_solo(self.state, self.config, b)


def render_solo(state: S.SoloState, config: S.SoloConfig, game: int = 0) -> str:
    """Text of one solo game: each district's tiles with the answers on them, investigators,
    failed solves, counters. The case is shown only once it is solved."""
    st, b, board = state, game, config.board
    names = [*SUSPECT_NAMES, *EVIDENCE_NAMES, *board.districts]

    def tile(x: int) -> str:
        if x < 0:
            return "-"
        mark = "S" if st.spot[b, x] else "T" if st.trace[b, x] else "0" if st.nothing[b, x] else ""
        return f"{names[x]}:{mark}" if mark else names[x]

    lines = [f"Solo Time Attack: actions {int(st.actions[b])}/{config.max_actions}, investigators "
             f"left {int(st.inv_left[b])}, wrong solves {int(st.wrong_solves[b])}",
             "(answers on tiles: S spot, T trace, 0 nothing; an investigator's answer nS mT)"]
    rows = []
    for d in range(NUM_DISTRICTS):
        investigator = ""
        if st.inv_placed[b, d]:
            sup = [TYPE_NAMES[t] for t in range(3) if st.inv_suppressed[b, d, t]]
            investigator = f"{int(st.inv_answer[b, d, 0])}S {int(st.inv_answer[b, d, 1])}T"
            if sup:
                investigator += f" (suppressed: {', '.join(sup)})"
        rows.append([*(tile(int(st.district_tile[b, d, t])) for t in (2, 0, 1)), investigator])
    lines += format_table(rows, ("District", "Suspect", "Evidence", "Investigator"))
    if config.use_display:
        shown = [names[x] for x in range(NUM_ELEMENTS) if st.card_place[b, x] == 1]
        lines.append(f"Display: {', '.join(shown)}; deck {int(st.deck_size[b])}")
    failed = np.flatnonzero(st.failed[b])
    if failed.size:
        shown_failed = [" / ".join(names[o + int(v)] for o, v in zip((0, 12, 22), CASE_TRIPLES[c]))
                        for c in failed[:10]]
        more = f" (+{failed.size - 10} more)" if failed.size > 10 else ""
        lines.append(f"Failed solves: {'; '.join(shown_failed)}{more}")
    if st.solved[b]:
        s, e, l = (int(v) for v in st.case[b])
        lines.append(f"Solved: {names[s]} / {names[12 + e]} / {names[22 + l]} in {int(st.actions[b])} "
                     f"actions, {int(st.investigators_used[b])} investigator tiles, "
                     f"{int(st.wrong_solves[b])} wrong solves")
    elif st.forfeited[b]:
        lines.append("Forfeited (illegal action)")
    elif st.truncated[b]:
        lines.append(f"Time is up: {config.max_actions} actions without solving")
    return "\n".join(lines) + "\n"


class SoloTimeAttackEnv(gymnasium.Env):
    """Solo Time Attack as a Gymnasium env; see the module docstring for the full specification.

    Attributes:
        config: the engine :class:`~pi_env.engine.solo.SoloConfig`.
        game_state: the engine :class:`~pi_env.engine.solo.SoloState` (``B == 1``). It holds the
            hidden case: for tools and tests, never an agent's input.

    Raises:
        PIError: an invalid option.

    Example:
        >>> env = SoloTimeAttackEnv()
        >>> obs, info = env.reset(seed=0)
        >>> obs["observation"].shape, int(obs["action_mask"].sum())
        ((2452,), 1730)
    """

    metadata = {"render_modes": ["ansi"], "render_fps": 1, "name": ENV_ID}

    def __init__(self, render_mode: str | None = None, use_display: bool = False, investigators: int = 5,
                 investigator_cost: float = 0.0, wrong_solve_cost: float = 0.0, max_actions: int = 200,
                 accept_case: "Callable[[np.ndarray, int], bool] | None" = None,
                 board: "str | dict[str, Any] | Board" = "daytime"):
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise PIError(f"render_mode must be None or 'ansi', got {render_mode!r}")
        self.render_mode = render_mode
        self._core = _SoloBatch(1, use_display, investigators, investigator_cost, wrong_solve_cost,
                                max_actions, accept_case, board)
        self.config = self._core.config
        self.observation_space = self._core.single_observation_space
        self.action_space = self._core.single_action_space
        self._started = False
        self._action = np.zeros(1, dtype=np.int64)

    @property
    def game_state(self) -> S.SoloState:
        return self._core.state

    def _info(self) -> dict[str, Any]:
        st = self._core.state
        return {"actions": int(st.actions[0]), "investigators_used": int(st.investigators_used[0]),
                "wrong_solves": int(st.wrong_solves[0]), "forfeited": bool(st.forfeited[0])}

    def _obs(self) -> dict[str, np.ndarray]:
        o = self._core.observations()
        return {"observation": o["observation"][0], "action_mask": o["action_mask"][0]}

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        super().reset(seed=seed)
        core = self._core
        one = np.ones(1, dtype=bool)
        options = dict(options or {})
        layout = {k: options.pop(k) for k in ("tile_district", "case") if k in options}
        start = {k: options.pop(k) for k in ("record", "event", "complete_cases") if k in options}
        position = options.pop("position", None)
        if options:
            raise PIError(f"unknown reset option {sorted(options)[0]!r} (known: tile_district, case; record, "
                          f"event, complete_cases; position)")
        info_extra: dict[str, Any] = {}
        if sum(map(bool, (layout, start, position is not None))) > 1:
            raise PIError("reset options 'position', 'record' and 'tile_district'/'case' exclude each other")
        if position is not None:
            fresh = load_solo_position(position, self.config)
            for dst, src in zip(core.state.arrays(), fresh.arrays()):
                dst[...] = src
        elif start:
            if "record" not in start:
                raise PIError("reset options 'event' and 'complete_cases' need 'record'")
            from pi_env.records.start import solo_record_start

            rs = solo_record_start(start["record"], start.get("event"), self.config,
                                   complete_cases=start.get("complete_cases"),
                                   seed=seed if seed is not None else int(self.np_random.integers(2**62)))
            for dst, src in zip(core.state.arrays(), rs.state.arrays()):
                dst[...] = src
            info_extra["record"] = rs.info()
        elif layout:
            if len(layout) != 2:
                raise PIError("reset options 'tile_district' and 'case' go together")
            rng = int(S.seed_states([seed if seed is not None else
                                     int(self.np_random.integers(2**62))])[0])
            fresh = S.from_layout(self.config, layout["tile_district"], layout["case"], rng_state=rng)
            for dst, src in zip(core.state.arrays(), fresh.arrays()):
                dst[...] = src  # (display mode: from_layout's default display and deck)
        elif seed is not None:
            core.reset(one, S.seed_states([seed]))
        elif not self._started:
            core.reset(one, S.seed_states([int(self.np_random.integers(2**62))]))
        else:
            core.reset(one)
        self._started = True
        return self._obs(), {**self._info(), **info_extra}

    # --- saved positions ------------------------------------------------------
    def clone_state(self) -> dict[str, Any]:
        """The game as a saved position: a small JSON-serialisable ``pi-position/1`` object
        (:mod:`pi_env.engine.position`, ``rules.mode == "solo"``), the engine generator included.
        ``reset(options={"position": saved})`` (this env or a new one with the same options) puts
        the game back: it then goes on exactly as this one would, chance included.

        **Privileged**: it holds the hidden case and the deck order (docs/rules.md §9). It is for tools,
        search and saved games, never an agent's input (an agent gets only the observation).

        Raises:
            PIError: before the first ``reset()``.
        """
        if not self._started:
            raise PIError("call reset() before clone_state()")
        return save_solo_position(self._core.state, self.config, 0)

    def step(self, action: Any):
        a = action_id(action)
        if not self._started:
            raise PIError("call reset() before step()")
        st = self._core.state
        was_done = bool(st.done[0])
        self._action[0] = a
        rewards, forfeited_now = self._core.step(self._action)
        info = self._info()
        if not was_done:
            info["answer"] = "illegal" if forfeited_now[0] else _answer_text(a, st.last_answer[0])
        terminated = bool(st.solved[0] or st.forfeited[0])
        return self._obs(), float(rewards[0]), terminated, bool(st.truncated[0]), info

    def render(self) -> str | None:
        if self.render_mode is None:
            gymnasium.logger.warn("render() called without a render_mode; use render_mode='ansi'")
            return None
        return self._core.render(0)


class SoloTimeAttackVectorEnv(VectorEnv):
    """``num_envs`` Solo Time Attack games stepped together by the batched engine.

    Same arguments as :class:`SoloTimeAttackEnv` plus ``num_envs``; see the module docstring
    (seeding, ``NEXT_STEP`` autoreset).

    Example:
        >>> envs = SoloTimeAttackVectorEnv(num_envs=3)
        >>> obs, infos = envs.reset(seed=0)
        >>> obs["observation"].shape
        (3, 2452)
        >>> _, rewards, terminations, truncations, _ = envs.step(np.array([0, 36, 50]))
        >>> rewards.tolist()
        [-1.0, -1.0, -1.0]
    """

    metadata = {"render_modes": ["ansi"], "render_fps": 1, "name": ENV_ID,
                "autoreset_mode": AutoresetMode.NEXT_STEP}

    def __init__(self, num_envs: int = 8, render_mode: str | None = None, use_display: bool = False,
                 investigators: int = 5, investigator_cost: float = 0.0, wrong_solve_cost: float = 0.0,
                 max_actions: int = 200, accept_case: "Callable[[np.ndarray, int], bool] | None" = None,
                 board: "str | dict[str, Any] | Board" = "daytime"):
        if not isinstance(num_envs, (int, np.integer)) or isinstance(num_envs, bool) or num_envs < 1:
            raise PIError(f"num_envs must be a positive integer, got {num_envs!r}")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise PIError(f"render_mode must be None or 'ansi', got {render_mode!r}")
        self.num_envs = int(num_envs)
        self.render_mode = render_mode
        self._core = _SoloBatch(self.num_envs, use_display, investigators, investigator_cost,
                                wrong_solve_cost, max_actions, accept_case, board)
        self.config = self._core.config
        self.single_observation_space = self._core.single_observation_space
        self.single_action_space = self._core.single_action_space
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        self._autoreset = np.zeros(self.num_envs, dtype=bool)
        self._started = False

    @property
    def game_state(self) -> S.SoloState:
        """The engine batch (holds the hidden cases: for tools and tests only)."""
        return self._core.state

    def _infos(self) -> dict[str, np.ndarray]:
        st = self._core.state
        out: dict[str, np.ndarray] = {
            "actions": st.actions.astype(np.int64), "investigators_used": st.investigators_used.astype(np.int64),
            "wrong_solves": st.wrong_solves.astype(np.int64), "forfeited": st.forfeited.copy()}
        for k in list(out):
            out["_" + k] = np.ones(self.num_envs, dtype=bool)
        return out

    def reset(self, *, seed: "int | Sequence[int | None] | None" = None,
              options: dict[str, Any] | None = None):
        """Reset every sub-env. ``seed``: an int (sub-env ``i`` gets ``seed + i``), one seed
        (or ``None``) per sub-env, or ``None`` (streams drawn from ``self.np_random``).

        ``options={"positions": [p_0, ..., p_{n-1}]}`` starts sub-env ``i`` from the saved position
        ``p_i`` (``pi-position/1``, e.g. from :meth:`SoloTimeAttackEnv.clone_state` or
        :meth:`clone_state`; each checked against this env's options, :class:`PositionError`
        otherwise; not a finished game) instead of a new game; ``seed`` then only seeds
        ``self.np_random``. Later games of the sub-env continue the position's generator stream.
        """
        options = dict(options or {})
        positions = options.pop("positions", None)
        if options:
            raise PIError(f"unknown reset option {sorted(options)[0]!r} (known: positions)")
        n = self.num_envs
        if positions is not None:
            if isinstance(positions, dict) or not isinstance(positions, Sequence) or len(positions) != n:
                raise PIError(f"options['positions'] must list {n} saved positions (one per sub-env)")
            states = []
            for i, pos in enumerate(positions):
                try:
                    states.append(load_solo_position(pos, self.config))
                except PIError as exc:
                    raise type(exc)(f"positions[{i}]: {exc}") from None
                if states[-1].done[0]:
                    raise PIError(f"positions[{i}] is a finished game: nothing is left to play")
            if seed is not None:
                if not isinstance(seed, (int, np.integer)) or isinstance(seed, bool):
                    raise PIError(f"with options['positions'], seed only seeds the env's generator: an int or "
                                  f"None, got {seed!r}")
                self._np_random, self._np_random_seed = seeding.np_random(int(seed))
            for name, dst in zip(S.SoloState.__dataclass_fields__, self._core.state.arrays()):
                dst[...] = np.concatenate([getattr(st, name) for st in states])
            self._autoreset[:] = False
            self._started = True
            return self._core.observations(), self._infos()
        if seed is None:
            seeds: list[int | None] = [None] * n
        elif isinstance(seed, bool):
            raise PIError(f"seed must be an int or {n} seeds (one per sub-env), got {seed!r}")
        elif isinstance(seed, (int, np.integer)):
            self._np_random, self._np_random_seed = seeding.np_random(int(seed))
            seeds = [int(seed) + i for i in range(n)]
        else:
            seeds = list(seed)
            if len(seeds) != n:
                raise PIError(f"seed must be an int or {n} seeds (one per sub-env), got {len(seeds)}")
        drawn = [int(s) if s is not None else int(self.np_random.integers(2**62)) for s in seeds]
        for s in drawn:
            if s < 0:
                raise PIError(f"seeds must be non-negative integers, got {s!r}")
        self._core.reset(np.ones(n, dtype=bool), S.seed_states(np.array(drawn, dtype=np.uint64)))
        self._autoreset[:] = False
        self._started = True
        return self._core.observations(), self._infos()

    def clone_state(self) -> list[dict[str, Any]]:
        """The sub-envs' games as saved positions, one ``pi-position/1`` object per sub-env
        (:meth:`SoloTimeAttackEnv.clone_state`; **privileged**: they hold the hidden cases). Start
        sub-envs from them with ``reset(options={"positions": ...})``; copy the whole vector env
        (autoreset flags included) with :func:`copy.deepcopy` or :mod:`pickle`.

        Raises:
            PIError: before the first ``reset()``.
        """
        if not self._started:
            raise PIError("call reset() before clone_state()")
        return [save_solo_position(self._core.state, self.config, b) for b in range(self.num_envs)]

    def step(self, actions: Any):
        if not self._started:
            raise PIError("call reset() before step()")
        a = self._core.check_actions(actions, self.num_envs)
        resetting = self._autoreset.copy()
        rewards, _ = self._core.step(a)  # finished sub-envs are skipped by the engine (reward 0)
        if resetting.any():
            self._core.reset(resetting)
        st = self._core.state
        terminations = st.solved | st.forfeited
        truncations = st.truncated.copy()
        self._autoreset = terminations | truncations
        return self._core.observations(), rewards, terminations.copy(), truncations, self._infos()

    def render(self) -> tuple[str, ...] | None:
        if self.render_mode is None:
            gymnasium.logger.warn("render() called without a render_mode; use render_mode='ansi'")
            return None
        return tuple(self._core.render(b) for b in range(self.num_envs))
