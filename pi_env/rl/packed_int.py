"""The packed integer rows of the self-play env (``observations="packed-int8"`` / ``"packed-int16"``,
:mod:`pi_env.engine.packed`, "Integer rows") turned into the packed ``float32`` encoding on the
learner's side, in torch: a quarter of the bytes cross from the env to the learner, and the
conversion is one gather with a shift and a mask (the bit fields), one batched multiply, a table
look-up and a division, equal bit for bit to the
``float32`` rows the env returns with ``observations="packed"`` (``tests/test_packed_int.py``).

Example (needs the ``rl`` extra)::

    env = SelfPlayVecEnv(4096, observations="packed-int8")
    to_float = PackedIntToFloat(env.config)
    obs, info = env.reset(seed=0)
    x = to_float(obs)                          # int8[4096, 288] -> torch float32[4096, 688]

(``to_float`` takes the env's numpy rows as they are: ``torch.from_numpy(obs)`` of the env's
read-only rows makes torch warn that the array is not writable.)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from pi_env.core.errors import PIError
from pi_env.engine import GameConfig
from pi_env.engine.packed import FAILED_COUNT, packed_int_size, packed_int_unpacking, packed_layout
from pi_env.envs.encoders import int_row_scales

__all__ = ["PackedIntToFloat"]


class PackedIntToFloat:
    """Callable: integer rows (a torch tensor or numpy array ``int8`` or ``int16[..., packed_int_size(P)]``,
    e.g. the env's read-only ``obs``: numpy rows are moved to ``device``) to the packed ``float32``
    rows of a game with ``config`` (what :func:`pi_env.envs.encoders.float_from_packed_int` computes in
    numpy).

    Args:
        config: the game's rules (player count and scales).
        device: where the constant tensors live (the rows must be there too).

    Raises:
        ImportError: torch is not installed (the ``rl`` extra).
        PIError: (on a call) rows that are not a torch tensor or numpy array of a signed integer
            dtype (``int8``, ``int16``, ``int32``, ``int64``) with last dimension ``packed_int_size(P)``:
            float rows (already converted?) or another player count's rows would otherwise be
            converted silently or fail inside torch.
    """

    def __init__(self, config: GameConfig, device: Any = "cpu"):
        try:
            import torch
        except ImportError as exc:
            raise ImportError("PackedIntToFloat needs torch: install the rl extra (pip install "
                              "'pi-deduction[rl]'), or convert in numpy with "
                              "pi_env.envs.encoders.float_from_packed_int") from exc

        P = config.num_players
        self.num_players, self.size = P, packed_int_size(P)
        self.scale = torch.from_numpy(np.array(int_row_scales(config))).to(device)
        src, shift, mask = packed_int_unpacking(P)
        self._src = torch.from_numpy(src.copy()).to(device)
        self._shift = torch.from_numpy(shift.copy()).to(device)
        self._mask = torch.from_numpy(mask.copy()).to(device)
        self.failed_count = torch.from_numpy(FAILED_COUNT.copy()).to(device)
        lay = packed_layout(P)
        self._fc, self._fs = lay["failed_count"][0], lay["failed_share"][0]

    def __call__(self, rows: Any) -> Any:
        """``float32[..., packed_size(P)]`` of ``rows`` (a new tensor).

        Raises:
            PIError: rows of another dtype, type or length (class docstring).
        """
        import torch

        if isinstance(rows, np.ndarray) and rows.dtype in (np.int8, np.int16, np.int32, np.int64) \
                and rows.ndim >= 1 and rows.shape[-1] == self.size:
            # (a read-only array, as the env's rows, is copied: torch warns on one it would share)
            rows = torch.as_tensor(rows if rows.flags.writeable else rows.copy(), device=self.scale.device)
        if not isinstance(rows, torch.Tensor) or rows.dtype not in (torch.int8, torch.int16, torch.int32,
                                                                     torch.int64) or rows.dim() < 1 \
                or rows.shape[-1] != self.size:
            what = (f"{rows.dtype}{list(rows.shape)}" if isinstance(rows, (torch.Tensor, np.ndarray))
                    else type(rows).__name__)
            raise PIError(f"rows must be a torch tensor or numpy array of int8 or int16 rows of length "
                          f"{self.size} ({self.num_players} players), got {what}")
        P, fc, fs = self.num_players, self._fc, self._fs
        v = (rows.index_select(-1, self._src).to(torch.int64) >> self._shift) & self._mask
        out = v.to(torch.float32) * self.scale
        n = v[..., fc:fc + P]
        out[..., fc:fc + P] = self.failed_count[n]
        share = v[..., fs:fs + 36 * P].to(torch.float32).reshape(rows.shape[:-1] + (P, 36))
        den = n.clamp(min=1).to(torch.float32).unsqueeze(-1)
        out[..., fs:fs + 36 * P] = (share / den).reshape(rows.shape[:-1] + (36 * P,))
        return out
