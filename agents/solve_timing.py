"""A learned solve-timing head on top of a ``"compact-v4"`` policy: where to solve now instead of
waiting, or to wait instead of solving, learned from experience (one step of approximate policy
iteration over the policy's solve-or-wait choice; trained by :mod:`pi_env.rl.solve_timing`).

**What it decides** (docs/rules.md §4.3, §5). At a decision of the player that is *eligible* — the
most likely case of the exact joint posterior is not certain (``p_correct < 0.999``) and either it
is the game's last round or the policy chose to solve — the head predicts two advantages of taking
the *other* plan once and then playing on as before: ``A_win``, the change of the player's win
share at the end of the game (a first place shared by ``k`` players counts ``1/k``), and
``A_wrong``, the change of its wrong solves in the game. It switches plans when
``A_win − λ·A_wrong > τ`` (``λ``: the price of a wrong solve in win share; ``τ``: a margin). The
other plan of a query is solving (the compact solve choice: the most likely case); the other plan
of a solve is the legal query of the highest own-information gain (the ``clue_gain`` and
``district_gain`` entries of the row, lowest action id on a tie), kept as a solve when no query is
legal.

**Inputs.** The columns :data:`COLUMNS` of the ``"compact-v4"`` row (:mod:`pi_env.agents.learned`,
module docstring): the player's view only, so the head leaks nothing the encoding does not (the
encoding's no-leak tests cover it). The network is a multilayer perceptron (ReLU) on the columns
standardised by the training rows' mean and scale; it runs in numpy (no torch at play).

**File.** A model file (:func:`pi_env.agents.learned.save_model`) carries the head under
``"solve_timing"``: :meth:`SolveTimingHead.saved` / :meth:`SolveTimingHead.from_saved`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from pi_env.core.constants import SOLVE_BASE
from pi_env.core.errors import PIError

__all__ = ["COLUMNS", "ENCODING", "P_CERTAIN", "SolveTimingHead", "head_columns", "eligible_rows",
           "other_plans"]

ENCODING = "compact-v4"
"""The encoding whose rows the head reads."""

COLUMNS: tuple[str, ...] = (
    "own_log2_count", "own_p_best", "score", "attempted", "solved", "inv_left", "public_log2_count", "round", "tier",
    "rotation", "first_seat", "joint_log2_count", "joint_p_best", "p_correct", "e_now", "e_wait", "solve_now",
    "solve_points", "wrong_penalty", "inv_allowed", "pending", "hazard", "idle")
"""The ``"compact-v4"`` components the head reads, in order (per-seat components: every relative seat)."""

P_CERTAIN = 0.999
"""A decision with ``p_correct`` at or above this is not eligible (the case is certain)."""

_SOLVE = SOLVE_BASE  # the compact solve choice
_GAINS = ("clue_gain", "district_gain")


def _layout(num_players: int) -> dict[str, tuple[int, tuple[int, ...]]]:
    from pi_env.encodings import get

    return get(ENCODING).layout(num_players)


def head_columns(num_players: int) -> np.ndarray:
    """``int64[F]``: the indices of :data:`COLUMNS` in a ``"compact-v4"`` row of ``num_players``
    (4 players: 44 columns).

    Raises:
        PIError: a player count the encoding does not have.
    """
    layout = _layout(num_players)
    cols: list[int] = []
    for name in COLUMNS:
        start, shape = layout[name]
        cols.extend(range(start, start + (int(np.prod(shape)) if shape else 1)))
    return np.asarray(cols, dtype=np.int64)


def eligible_rows(x: np.ndarray, choices: np.ndarray, num_players: int, num_rounds: int) -> np.ndarray:
    """``bool[n]``: which decisions the head may change (module docstring): ``p_correct <``
    :data:`P_CERTAIN` and (the last of ``num_rounds`` rounds, or the choice is the solve).

    Args:
        x: ``float32[n, size]`` ``"compact-v4"`` rows; choices: ``int[n]`` compact choices (0..50).
    """
    layout = _layout(num_players)
    p = x[:, layout["p_correct"][0]]
    rnd = np.rint(x[:, layout["round"][0]] * num_rounds).astype(np.int64)
    return (p < P_CERTAIN) & ((rnd == num_rounds - 1) | (np.asarray(choices) == _SOLVE))


def other_plans(x: np.ndarray, choices: np.ndarray, query_mask: np.ndarray, num_players: int) -> np.ndarray:
    """``int64[n]``: the other plan of each choice (module docstring): a query's is the solve
    choice (50); a solve's the legal query of the highest own-information gain (``query_mask``:
    ``bool[n, 50]``, the legal queries), the solve itself when none is legal."""
    layout = _layout(num_players)
    start = layout[_GAINS[0]][0]
    end = layout[_GAINS[1]][0] + layout[_GAINS[1]][1][0]
    gains = np.where(np.asarray(query_mask, dtype=bool), x[:, start:end], -np.inf)
    choices = np.asarray(choices, dtype=np.int64)
    best = gains.argmax(axis=1)
    any_query = np.isfinite(gains).any(axis=1)
    return np.where(choices == _SOLVE, np.where(any_query, best, _SOLVE), _SOLVE).astype(np.int64)


@dataclass(frozen=True)
class SolveTimingHead:
    """The head (module docstring).

    Attributes:
        num_players: the player count its columns are for.
        mean, scale: ``float32[F]`` standardisation of the columns (``F = len(head_columns(P))``).
        layers: ``((W, b), ...)`` ``float32`` weights ``[in, out]`` and biases ``[out]``; the last
            layer has 2 outputs (``A_win``, ``A_wrong``).
        lam: ``λ``, win share per wrong solve; tau: ``τ``, the margin in win share.
        num_rounds: the game's rounds (3 in the standard game).
    """

    num_players: int
    mean: np.ndarray
    scale: np.ndarray
    layers: tuple[tuple[np.ndarray, np.ndarray], ...]
    lam: float
    tau: float
    num_rounds: int = 3

    def __post_init__(self) -> None:
        F = len(head_columns(self.num_players))
        if self.mean.shape != (F,) or self.scale.shape != (F,) or not self.layers:
            raise PIError(f"solve-timing head: {F} standardised columns and at least one layer expected")
        width = F
        for W, b in self.layers:
            if W.ndim != 2 or W.shape[0] != width or b.shape != (W.shape[1],):
                raise PIError(f"solve-timing head: a layer of shape {list(W.shape)} does not follow width {width}")
            width = W.shape[1]
        if width != 2:
            raise PIError(f"solve-timing head: the last layer must have 2 outputs, not {width}")
        arrays = (self.mean, self.scale, *(a for layer in self.layers for a in layer))
        if not all(np.isfinite(a).all() for a in arrays) or not (self.scale > 0).all():
            raise PIError("solve-timing head: its weights and standardisation must be finite numbers "
                          "(scales positive); the file is damaged or the fit diverged")
        if not (np.isfinite(self.lam) and (np.isfinite(self.tau) or self.tau == np.inf)):
            raise PIError(f"solve-timing head: lam and tau must be numbers, got {self.lam!r}, {self.tau!r}")

    def advantages(self, x: np.ndarray) -> np.ndarray:
        """``float32[n, 2]``: ``(A_win, A_wrong)`` of taking the other plan at rows ``x``
        (``float32[n, size]`` ``"compact-v4"`` rows)."""
        h = (np.asarray(x, dtype=np.float32)[:, head_columns(self.num_players)] - self.mean) / self.scale
        for i, (W, b) in enumerate(self.layers):
            h = h @ W + b
            if i < len(self.layers) - 1:
                h = np.maximum(h, 0.0)
        return h.astype(np.float32)

    def apply(self, x: np.ndarray, choices: np.ndarray, query_mask: np.ndarray) -> np.ndarray:
        """``int64[n]``: the choices after the head (module docstring): the other plan where the
        decision is eligible and ``A_win − λ·A_wrong > τ``, else the choice unchanged.

        Args:
            x: ``float32[n, size]`` ``"compact-v4"`` rows of the players to move.
            choices: ``int[n]`` the policy's compact choices (0..50).
            query_mask: ``bool[n, 50]`` the legal queries.
        """
        choices = np.asarray(choices, dtype=np.int64)
        out = choices.copy()
        rows = np.flatnonzero(eligible_rows(x, choices, self.num_players, self.num_rounds))
        if rows.size:
            a = self.advantages(x[rows])
            switch = rows[a[:, 0] - self.lam * a[:, 1] > self.tau]
            if switch.size:
                out[switch] = other_plans(x[switch], choices[switch], np.asarray(query_mask)[switch],
                                          self.num_players)
        return out

    def saved(self) -> dict[str, Any]:
        """The head as plain values and numpy arrays (a model file converts the arrays to tensors)."""
        return {"num_players": int(self.num_players), "columns": list(COLUMNS), "mean": self.mean,
                "scale": self.scale, "weights": [W for W, _ in self.layers], "biases": [b for _, b in self.layers],
                "lam": float(self.lam), "tau": float(self.tau), "num_rounds": int(self.num_rounds)}

    @classmethod
    def from_saved(cls, saved: Any) -> "SolveTimingHead":
        """The head of :meth:`saved`'s dict (arrays or torch tensors).

        Raises:
            PIError: not such a dict, other columns than :data:`COLUMNS`, or weights that do not fit.
        """
        def arr(v: Any) -> np.ndarray:
            return np.asarray(v.numpy() if hasattr(v, "numpy") else v, dtype=np.float32)

        try:
            if list(saved["columns"]) != list(COLUMNS):
                raise PIError("solve-timing head: its columns are not this version's")
            layers = tuple((arr(W), arr(b)) for W, b in zip(saved["weights"], saved["biases"]))
            return cls(int(saved["num_players"]), arr(saved["mean"]), arr(saved["scale"]), layers,
                       float(saved["lam"]), float(saved["tau"]), int(saved.get("num_rounds", 3)))
        except PIError:
            raise
        except Exception as exc:  # noqa: BLE001 - any malformed head is one line
            raise PIError(f"solve-timing head: malformed ({type(exc).__name__}: {exc})") from None
