"""The learner's network as sb3-contrib's MaskablePPO builds it, shared by the training loop
(:mod:`pi_env.rl.train`, which re-exports these names: saved models refer to
``pi_env.rl.train.TrunkExtractor``) and the collection workers (:mod:`pi_env.rl.ray_collect`).

A shared trunk (:class:`TrunkExtractor`: ``Linear + ReLU`` layers of widths ``trunk``), then separate
policy and value layers of widths ``hidden`` (ReLU), SB3's heads; the solve logit's bias starts at
:data:`INITIAL_SOLVE_BIAS`. Needs the ``rl`` extra to build one (the module imports without it).
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

import numpy as np

from pi_env.core.errors import PIError

try:
    from stable_baselines3.common.torch_layers import BaseFeaturesExtractor as _Base
except ImportError:  # without the rl extra the module still imports; building a network says what to install
    _Base = object

__all__ = ["TrunkExtractor", "INITIAL_SOLVE_BIAS", "policy_kwargs", "policy_net_state", "sb3_policy_state"]

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


# The parameter names of the policy half: SB3's (MaskableActorCriticPolicy with TrunkExtractor) and
# PolicyNet's (pi_env/agents/_policy_net.py), as (SB3 prefix, PolicyNet prefix) pairs.
_SB3_TO_NET = (("features_extractor.net.", "trunk."), ("pi_features_extractor.net.", "trunk."),
               ("mlp_extractor.policy_net.", "policy_net."), ("action_net.", "action_net."))
_NET_PREFIXES = ("trunk.", "policy_net.", "action_net.")


def policy_net_state(sb3_state: Mapping[str, Any]) -> dict[str, Any]:
    """The :class:`~pi_env.agents._policy_net.PolicyNet` state dict of an SB3 policy's state dict
    (``model.policy.state_dict()`` of MaskablePPO with :class:`TrunkExtractor`): the policy half
    renamed, ``features_extractor.net.*`` (and its alias ``pi_features_extractor.net.*``) to
    ``trunk.*``, ``mlp_extractor.policy_net.*`` to ``policy_net.*``, ``action_net.*`` kept; the value
    half (``vf_features_extractor``, ``mlp_extractor.value_net``, ``value_net``) is left out. Keys
    that are a PolicyNet's already (``trunk.*``, ``policy_net.*``: a saved ``pool/step_N.pt``) are
    kept, so either kind of state dict may be passed. :func:`sb3_policy_state` is the inverse.

    Args:
        sb3_state: parameter name to value (torch tensors or numpy arrays; the values are passed
            on as they are, not copied).

    Returns:
        ``dict[str, value]`` with PolicyNet's parameter names.
    """
    out: dict[str, Any] = {}
    for k, v in sb3_state.items():
        if k.startswith(_NET_PREFIXES):
            out[k] = v
            continue
        for sb3, net in _SB3_TO_NET:
            if k.startswith(sb3):
                out[net + k[len(sb3):]] = v
                break
    return out


def sb3_policy_state(net_state: Mapping[str, Any]) -> dict[str, Any]:
    """The inverse of :func:`policy_net_state`: a :class:`~pi_env.agents._policy_net.PolicyNet`
    state dict under the names of the SB3 policy's parameters (``model.policy.named_parameters()``:
    ``trunk.*`` to ``features_extractor.net.*``, ``policy_net.*`` to
    ``mlp_extractor.policy_net.*``, ``action_net.*`` kept).

    Args:
        net_state: PolicyNet parameter name to value (passed on as it is, not copied).

    Returns:
        ``dict[str, value]`` with the SB3 policy's parameter names.

    Raises:
        PIError: a key that is not a PolicyNet parameter (named).
    """
    out: dict[str, Any] = {}
    for k, v in net_state.items():
        if k.startswith("trunk."):
            out["features_extractor.net." + k[len("trunk."):]] = v
        elif k.startswith("policy_net."):
            out["mlp_extractor." + k] = v
        elif k.startswith("action_net."):
            out[k] = v
        else:
            raise PIError(f"{k!r} is not a PolicyNet parameter (trunk.*, policy_net.*, action_net.*)")
    return out
