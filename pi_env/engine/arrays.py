"""What every batched state shares (STYLE.md §2): a dataclass of arrays with a leading batch axis."""

from __future__ import annotations

from dataclasses import fields
from typing import Any, ClassVar, Sequence, TypeVar

import numpy as np

from pi_env.core.constants import NUM_ACTIONS
from pi_env.core.errors import InvalidActionError

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
        """The sub-batch ``index`` (copies); an int gives that game as ``B == 1``."""
        if isinstance(index, (int, np.integer)):
            index = [int(index)]
        return type(self)(*(np.ascontiguousarray(a[index]) for a in self.arrays()))

    def equals(self, other: "BatchArrays") -> bool:
        """Exact equality of every field."""
        return all(np.array_equal(a, b) for a, b in zip(self.arrays(), other.arrays()))


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
