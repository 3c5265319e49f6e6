"""The learner's network as sb3-contrib's MaskablePPO builds it, shared by the training loop
(:mod:`pi_env.rl.train`, which re-exports these names: saved models refer to
``pi_env.rl.train.TrunkExtractor``) and the collection workers (:mod:`pi_env.rl.ray_collect`).

A shared trunk (:class:`TrunkExtractor`: ``Linear + ReLU`` layers of widths ``trunk``), then separate
policy and value layers of widths ``hidden`` (ReLU), SB3's heads; the solve logit's bias starts at
:data:`INITIAL_SOLVE_BIAS`. Needs the ``rl`` extra to build one (the module imports without it).
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

try:
    from stable_baselines3.common.torch_layers import BaseFeaturesExtractor as _Base
except ImportError:  # without the rl extra the module still imports; building a network says what to install
    _Base = object

__all__ = ["TrunkExtractor", "INITIAL_SOLVE_BIAS", "policy_kwargs"]

INITIAL_SOLVE_BIAS = -3.0
"""Initial bias of the solve logit: with ~24 legal choices and the other logits near 0, a new
policy solves at about 0.2 % of its turns."""


class TrunkExtractor(_Base):  # type: ignore[misc, valid-type]
    """The shared trunk: ``Linear + ReLU`` layers of widths ``trunk`` on the encoding
    ``float32[N, n]`` (module docstring); ``features_dim = trunk[-1]``."""

    def __init__(self, observation_space: Any, trunk: Sequence[int] = (256,)):
        from torch import nn

        super().__init__(observation_space, int(trunk[-1]))
        layers: list[Any] = []
        n = int(np.prod(observation_space.shape))
        for h in trunk:
            layers += [nn.Linear(n, int(h)), nn.ReLU()]
            n = int(h)
        self.net = nn.Sequential(*layers)

    def forward(self, x: Any) -> Any:
        return self.net(x)


def policy_kwargs(trunk: Sequence[int], hidden: Sequence[int]) -> dict[str, Any]:
    """MaskablePPO's ``policy_kwargs`` of the network with these widths (module docstring).

    Returns:
        ``features_extractor_class``, ``features_extractor_kwargs``, ``net_arch``, ``activation_fn``.
    """
    from torch import nn

    return {"features_extractor_class": TrunkExtractor, "features_extractor_kwargs": {"trunk": [int(h) for h in trunk]},
            "net_arch": {"pi": [int(h) for h in hidden], "vf": [int(h) for h in hidden]}, "activation_fn": nn.ReLU}
