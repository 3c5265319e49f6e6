"""Whole games in one call: fused play with a policy kernel (docs/rules.md §3–§7).

:func:`play` plays a number of turns in every game of a batch (sampling, step and autoreset in one
numba loop per game, no Python per turn); :func:`rollout` plays copies of given states to their
end and returns the outcomes: what a search agent needs to evaluate positions. Both give the same
games as the step-by-step API (:func:`pi_env.engine.step_inplace` with the same actions; tested).

Policies (``policy=``), each drawing its chance from its own per-game stream (``seed``), never from
the games' generators:

``"random"``
    Uniform over the legal actions (as :func:`pi_env.engine.sample_actions`): with 1,680 solve
    triples always legal, mostly wrong solves.
``"rules"``
    Rules of thumb over the player's own information (docs/rules.md §9; no hidden case is read):

    1. **Candidates.** Type by type, the elements that can still be the player's: a spot on ``x``
       pins its type to ``x``; a trace on ``x`` keeps the elements whose tile is adjacent to
       ``x``'s (not ``x``); a card answered nothing keeps the elements neither ``x`` nor adjacent
       (§4.1); an investigator in ``d`` answered (spots, traces) over ``u`` unsuppressed types
       removes, for each unsuppressed type, the elements in ``d`` when there is no spot, those
       adjacent to ``d`` too when there is nothing, and those neither in nor adjacent to ``d`` when
       spots + traces = ``u`` (sharper: all spots / all traces) (§4.2). This is a sound superset of
       the exact deduction (the solver couples the types; this does not).
    2. **Solve** when at most 64 case triples are left and exactly one of them has not failed.
    3. Else **ask**: the clue card on the display with the largest worst-case elimination among
       its type's candidates (ties at random), or an **investigator** in the unused district with
       the largest summed worst-case elimination over its unsuppressed types when that beats the
       best clue by at least 3 candidates (investigators are scarce) or no clue informs.
    4. Else **guess** uniformly among the cases left (in a duel, where a wrong guess loses the
       round, only with at most 2 left); else pass time with a random clue card on the display.
``"scripted"``
    A model of players for a search's rollouts, not a player (it follows a :class:`Script`, which may
    come from the hidden cases): on the ``k``-th own turn of the call(s) player ``p`` names case
    ``script.case[b, p, s]`` where ``script.turn[b, p, s] == k`` (the first such slot ``s`` whose case
    ``p`` has not named wrongly before this round; if there is none, the turn is like the others); on
    its other turns it passes time with a random clue card on the display, else an investigator in
    a random district it has not used, else (neither legal) the ``"rules"`` action.
    ``script.taken[b, p]`` counts the own turns played (updated in place): across rounds, across
    calls and, with ``autoreset``, across the games of a slot (a new game does not restart it, as
    ``actions_out`` counts a slot's turns across games), so ``k`` is the ``k``-th own turn since
    the count began, whichever game it falls in. A script's cases are usually those of the game
    in the slot; a script meant for one game is for a call without ``autoreset``
    (:func:`rollout`).

Seeds: ``seed`` is an int (policy streams from ``numpy.random.SeedSequence(seed)``, independent of
the games' streams for the same int), explicit ``uint64[B]`` streams (updated in place, so calls can
continue one stream), or ``None`` (fresh entropy).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from pi_env.core.constants import NUM_CASES
from pi_env.core.errors import PIError
from pi_env.engine import _play
from pi_env.engine.api import check_config
from pi_env.engine.ranking import rank_batch
from pi_env.engine.state import GameConfig, State, kernel_rules

__all__ = ["POLICIES", "RolloutResult", "Script", "play", "rollout", "policy_streams"]

POLICIES = {"random": _play.POLICY_RANDOM, "rules": _play.POLICY_RULES, "scripted": _play.POLICY_SCRIPTED}
"""The policy names of :func:`play` and :func:`rollout`."""

_POLICY_SPAWN_KEY = (0x706F6C,)  # "pol": policy streams differ from the games' for the same seed


def policy_streams(seed: "int | np.ndarray | None", batch_size: int) -> np.ndarray:
    """``uint64[B]``: the policy generator states of :func:`play` / :func:`rollout` for ``seed``.

    An explicit ``uint64[B]`` array is returned as it is (not copied: the calls advance it).

    Raises:
        PIError: a negative or non-integer seed, or explicit states of the wrong shape or zero.
    """
    if isinstance(seed, np.ndarray):
        if seed.dtype != np.uint64 or seed.shape != (batch_size,):
            raise PIError(f"explicit policy streams must be uint64[{batch_size}], got {seed.dtype}{list(seed.shape)}")
        if not seed.all():
            raise PIError("explicit policy streams must be nonzero (xorshift64 states)")
        return seed
    if seed is not None and (not isinstance(seed, (int, np.integer)) or isinstance(seed, bool) or seed < 0):
        raise PIError(f"seed must be a non-negative integer, got {seed!r}")
    ss = np.random.SeedSequence(seed, spawn_key=_POLICY_SPAWN_KEY)
    return ss.generate_state(batch_size, dtype=np.uint64) | np.uint64(1)


@dataclass(frozen=True, eq=False)
class Script:
    """The script of the ``"scripted"`` policy (module docstring): up to ``K`` attempts per player.

    Attributes:
        turn: ``int32[B, P, K]`` own-turn numbers: ``k >= 1`` is the player's ``k``-th own turn
            counted by ``taken`` (1 = its first turn of the call when ``taken`` starts at 0); 0 or
            negative: none (never names a case, whatever ``taken`` holds).
        case: ``int32[B, P, K]`` the case id (0–1679, docs/rules.md §3) named on that turn.
        taken: ``int32[B, P]``, non-negative and writable: own turns played so far (the calls count
            on from it, also across the autoresets of :func:`play`; updated in place).

    Any memory layout is accepted (views of other arrays included); ``taken`` is written through.
    """

    turn: np.ndarray
    case: np.ndarray
    taken: np.ndarray

    @classmethod
    def empty(cls, batch_size: int, num_players: int, attempts: int = 2) -> "Script":
        """A script of ``attempts`` slots per player that names nothing (every ``turn`` 0).

        Raises:
            PIError: a negative size.
        """
        shape = (int(batch_size), int(num_players), int(attempts))
        if min(shape) < 0:
            raise PIError(f"Script.empty: sizes must be non-negative, got {shape}")
        return cls(np.zeros(shape, dtype=np.int32), np.zeros(shape, dtype=np.int32),
                   np.zeros(shape[:2], dtype=np.int32))

    def check(self, batch_size: int, num_players: int) -> None:
        """Raises :class:`PIError`, naming the array and what it holds, unless ``turn`` and ``case``
        are ``int32[batch_size, num_players, K]`` (the same shape), ``taken`` is a writable
        ``int32[batch_size, num_players]`` with no negative count, and every case id is in 0–1679."""
        def got(a) -> str:
            return f"{a.dtype}{list(a.shape)}" if isinstance(a, np.ndarray) else type(a).__name__

        B, P = batch_size, num_players
        t, c, n = self.turn, self.case, self.taken
        if not (isinstance(t, np.ndarray) and t.dtype == np.int32 and t.ndim == 3 and t.shape[:2] == (B, P)):
            raise PIError(f"script.turn must be int32[{B}, {P}, K], got {got(t)}")
        if not (isinstance(c, np.ndarray) and c.dtype == np.int32 and c.shape == t.shape):
            raise PIError(f"script.case must be int32{list(t.shape)} like script.turn, got {got(c)}")
        if not (isinstance(n, np.ndarray) and n.dtype == np.int32 and n.shape == (B, P)):
            raise PIError(f"script.taken must be int32[{B}, {P}], got {got(n)}")
        if not n.flags.writeable:
            raise PIError("script.taken must be writable (the calls count the own turns in it)")
        if n.size and n.min() < 0:
            b, p = np.unravel_index(int(np.argmin(n)), n.shape)
            raise PIError(f"script: taken must be non-negative (taken[{b}, {p}] = {int(n[b, p])})")
        if c.size and (c.min() < 0 or c.max() >= NUM_CASES):
            raise PIError(f"script: case ids must be in 0..{NUM_CASES - 1}")


def _script_arrays(policy: str, script: "Script | None", batch_size: int, num_players: int):
    if policy != "scripted":
        if script is not None:
            raise PIError(f"a script is for the policy 'scripted', not {policy!r}")
        script = Script.empty(batch_size, num_players, 0)
    elif script is None:
        raise PIError("the policy 'scripted' needs a script (pi_env.engine.Script)")
    script.check(batch_size, num_players)
    return script.turn, script.case, script.taken


def _policy_code(policy: str) -> int:
    try:
        return POLICIES[policy]
    except (KeyError, TypeError):
        raise PIError(f"unknown policy {policy!r}; known: {', '.join(POLICIES)}") from None


def _actions_buffer(actions_out: np.ndarray | None, batch_size: int) -> np.ndarray:
    if actions_out is None:
        return np.zeros((batch_size, 0), dtype=np.int64)
    if (not isinstance(actions_out, np.ndarray) or actions_out.ndim != 2 or actions_out.shape[0] != batch_size
            or actions_out.dtype != np.int64):
        raise PIError(f"actions_out must be an int64 array of shape ({batch_size}, T)")
    return actions_out


def play(state: State, config: GameConfig, num_steps: int, policy: str = "random",
         seed: "int | np.ndarray | None" = None, autoreset: bool = True,
         actions_out: np.ndarray | None = None, parallel: bool | None = None,
         script: Script | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Play ``num_steps`` turns in every game of ``state``, in place, in one fused call.

    Args:
        state: ``B`` games (changed in place).
        config: their rules (same player count).
        num_steps: turns per game, ``>= 0``.
        policy: ``"random"``, ``"rules"`` or ``"scripted"`` (module docstring).
        seed: the policy streams (module docstring).
        autoreset: a finished game is replaced at once by a new one in its slot (continuing the
            slot's generator stream, as :func:`pi_env.engine.reset_done`), also one finished
            before the call; a game that ends on the last turn stays finished. ``False``: a game
            stops when it ends.
        actions_out: optional ``int64[B, T]``: the actions of the first ``T`` turns of each slot.
        parallel: threads over games (``True``), one thread (``False``), or by batch size.
        script: the :class:`Script` of ``policy="scripted"`` (required there, refused otherwise);
            its ``taken`` counts on across ``autoreset`` (module docstring).

    Returns:
        ``(steps, games)``, ``int64[B]`` each: turns played and games finished per slot.

    Raises:
        PIError: a config for another player count, a bad policy, seed, ``num_steps``, buffer or
            script.
    """
    check_config(state, config)
    if not isinstance(num_steps, (int, np.integer)) or isinstance(num_steps, bool) or num_steps < 0:
        raise PIError(f"num_steps must be a non-negative integer, got {num_steps!r}")
    B = state.batch_size
    code = _policy_code(policy)
    turns, cases, taken = _script_arrays(policy, script, B, config.num_players)
    prng = policy_streams(seed, B)
    rec = _actions_buffer(actions_out, B)
    steps = np.zeros(B, dtype=np.int64)
    games = np.zeros(B, dtype=np.int64)
    _play.play_kernel.for_batch(B, parallel)(
        int(num_steps), bool(autoreset), code, prng, steps, games, rec, turns, cases, taken, kernel_rules(config),
        state.kernel_value())
    return steps, games


@dataclass(frozen=True, eq=False)
class RolloutResult:
    """Outcomes of :func:`rollout` (docs/rules.md §5, §7), one row per game.

    Attributes:
        state: the final states (a copy, or the input with ``copy=False``).
        scores: ``int16[B, P]`` final scores (duel: rounds won).
        ranks: ``int8[B, P]`` 1-based ranks after the edition's tiebreaks (tied players share one).
        winners: ``bool[B, P]`` the players ranked 1.
        done: ``bool[B]`` the game ended within ``max_steps``.
        truncated: ``bool[B]`` some round was ended by the safeguard.
        steps: ``int64[B]`` turns played.
    """

    state: State
    scores: np.ndarray
    ranks: np.ndarray
    winners: np.ndarray
    done: np.ndarray
    truncated: np.ndarray
    steps: np.ndarray


def rollout(state: State, config: GameConfig, policy: str = "random", seed: "int | np.ndarray | None" = None,
            max_steps: int | None = None, copy: bool = True, actions_out: np.ndarray | None = None,
            parallel: bool | None = None, script: Script | None = None) -> RolloutResult:
    """Play every game of ``state`` from where it stands to its end with ``policy``, in one call.

    Args:
        state: ``B`` games (any positions, finished ones included: they stay as they are).
        config: their rules.
        policy: ``"random"``, ``"rules"`` or ``"scripted"`` (module docstring).
        seed: the policy streams (module docstring).
        max_steps: stop a game after this many turns (default: the most a game can last,
            ``round_limit * (max_rotations + 1) * P`` turns, so every game ends).
        copy: play copies (default) or ``state`` itself, in place.
        actions_out: optional ``int64[B, T]``: the first ``T`` actions of each game.
        parallel: threads over games (``True``), one thread (``False``), or by batch size.
        script: the :class:`Script` of ``policy="scripted"`` (required there, refused otherwise).

    Returns:
        :class:`RolloutResult`. Ranks of a game not done within ``max_steps`` are those of its
        current scores.

    Raises:
        PIError: a config for another player count, a bad policy, seed, ``max_steps``, buffer or
            script.
    """
    check_config(state, config)
    if max_steps is None:
        max_steps = config.round_limit * (config.max_rotations + 1) * config.num_players
    elif not isinstance(max_steps, (int, np.integer)) or isinstance(max_steps, bool) or max_steps < 0:
        raise PIError(f"max_steps must be a non-negative integer, got {max_steps!r}")
    st = state.copy() if copy else state
    steps, _ = play(st, config, int(max_steps), policy, seed, autoreset=False, actions_out=actions_out,
                    parallel=parallel, script=script)
    ranks = rank_batch(st.score, st.inv_left, st.penalty, config.edition, config.mode)
    return RolloutResult(state=st, scores=st.score.copy(), ranks=ranks, winners=ranks == 1,
                         done=st.done.copy(), truncated=st.truncated.copy(), steps=steps)
