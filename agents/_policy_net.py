"""The torch network of a learned policy (needs torch, the ``rl`` extra); see
:mod:`pi_env.agents.learned`.

``PolicyNet(input_size, hidden, activation, trunk)``: an MLP ``input -> trunk[0] -> ... ->
trunk[-1] -> hidden[0] -> ... -> hidden[-1]`` (``activation`` after every layer) and a linear head
to the 51 compact choices. The parameters are the policy half of an sb3-contrib
``MaskableActorCriticPolicy`` whose features extractor is the trunk
(:class:`pi_env.rl.train.TrunkExtractor`) and whose ``net_arch`` is ``dict(pi=hidden, ...)``:
``trunk.*`` = ``features_extractor.net.*``, ``policy_net.*`` = ``mlp_extractor.policy_net.*``,
``action_net.*`` (:func:`pi_env.rl.train.export_policy` renames them).
"""

from __future__ import annotations

import torch
from torch import nn

__all__ = ["PolicyNet", "ACTIVATIONS"]

ACTIVATIONS: dict[str, type[nn.Module]] = {"relu": nn.ReLU, "tanh": nn.Tanh}
_CHOICES = 51


class PolicyNet(nn.Module):
    """``float32[N, input_size] -> float32[N, 51]`` logits (module docstring)."""

    def __init__(self, input_size: int, hidden: tuple[int, ...] = (128,), activation: str = "relu",
                 trunk: tuple[int, ...] = ()):
        super().__init__()
        if activation not in ACTIVATIONS:
            raise ValueError(f"unknown activation {activation!r} (known: {', '.join(ACTIVATIONS)})")
        n = int(input_size)
        self.trunk, n = _mlp(n, trunk, ACTIVATIONS[activation])
        self.policy_net, n = _mlp(n, hidden, ACTIVATIONS[activation])
        self.action_net = nn.Linear(n, _CHOICES)

    def logits(self, x: torch.Tensor) -> torch.Tensor:
        return self.action_net(self.policy_net(self.trunk(x)))

    forward = logits


def _mlp(n: int, widths: tuple[int, ...], act: type[nn.Module]) -> tuple[nn.Sequential, int]:
    layers: list[nn.Module] = []
    for h in widths:
        layers += [nn.Linear(n, int(h)), act()]
        n = int(h)
    return nn.Sequential(*layers), n
