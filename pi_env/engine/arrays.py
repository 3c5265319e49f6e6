"""What every batched state shares (docs/contributing.md §C2): a dataclass of arrays with a leading batch axis."""

from __future__ import annotations

from dataclasses import fields
from typing import Any, ClassVar, Sequence, TypeVar

import numpy as np

from pi_env.core.constants import NUM_ACTIONS
from pi_env.core.errors import InvalidActionError, PIError

S = TypeVar("S", bound="BatchArrays")


class BatchArrays:
    """Mixin for a dataclass whose fields are all arrays with the batch axis first."""

    __dataclass_fields__: ClassVar[dict[str, Any]]  # the subclass is a dataclass

    @property
    def batch_size(self) -> int:
        """``B``, the number of games."""
        return int(getattr(self, fields(self)[0].name).shape[0])

    def arrays(self) -> tuple[np.ndarray, ...]:
        """All fields in declaration order (the kernels' argument order)."""
        return tuple(getattr(self, f.name) for f in fields(self))

    def copy(self: S) -> S:
        """A deep copy (all arrays copied)."""
        return type(self)(*(a.copy() for a in self.arrays()))

    def take(self: S, index: "int | slice | Sequence[int] | np.ndarray") -> S:
        """The sub-batch ``index`` (copies); an int gives that game as ``B == 1``. Indices may
        repeat (``take([0, 0, 0])``: three copies of game 0)."""
        if isinstance(index, (int, np.integer)):
            index = [int(index)]
        return type(self)(*(np.ascontiguousarray(a[index]) for a in self.arrays()))

    @classmethod
    def concatenate(cls: type[S], batches: Sequence[S]) -> S:
        """One batch of the games of ``batches`` in order (copies): ``B = sum of their B``.

        Raises:
            PIError: no batch, a batch of another type, or batches whose per-game shapes differ
                (another player count).
        """
        batches = list(batches)
        if not batches:
            raise PIError("concatenate needs at least one batch")
        for i, b in enumerate(batches):
            if type(b) is not cls:
                raise PIError(f"batches[{i}] is a {type(b).__name__}, not a {cls.__name__}")
            for x, y in zip(b.arrays(), batches[0].arrays()):
                if x.shape[1:] != y.shape[1:]:
                    raise PIError(f"batches[{i}] has per-game shape {x.shape[1:]}, batches[0] {y.shape[1:]} "
                                  f"(another player count)")
        return cls(*(np.concatenate(arrays) for arrays in zip(*(b.arrays() for b in batches))))

    def equals(self, other: "BatchArrays") -> bool:
        """Exact equality of every field (type, shapes and values; ``==`` is the same)."""
        return (type(self) is type(other) and all(a.shape == b.shape and np.array_equal(a, b)
                                                  for a, b in zip(self.arrays(), other.arrays())))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, BatchArrays):
            return NotImplemented
        return self.equals(other)

    __hash__ = None  # type: ignore[assignment]  # mutable arrays


def action_array(actions: np.ndarray, batch_size: int, check_range: bool = True) -> np.ndarray:
    """``int64[B]`` contiguous copy of ``actions`` after checking its shape and dtype.

    Raises:
        InvalidActionError: not an integer array of shape ``(B,)``, or (with ``check_range``) an id
            outside ``0..1729``; the message names the game.
    """
    a = np.asarray(actions)
    if a.shape != (batch_size,) or not np.issubdtype(a.dtype, np.integer):
        raise InvalidActionError(
            f"actions must be an integer array of shape ({batch_size},), got {a.dtype} {a.shape}")
    if check_range:
        bad = np.flatnonzero((a < 0) | (a >= NUM_ACTIONS))
        if bad.size:
            b = int(bad[0])
            raise InvalidActionError(f"game {b}: action {int(a[b])!r} is outside 0..{NUM_ACTIONS - 1}")
    return np.ascontiguousarray(a, dtype=np.int64)
