"""The parameter names of the learner's policy (:mod:`pi_env.rl.network`): an SB3 MaskablePPO policy
with :class:`~pi_env.rl.network.TrunkExtractor` renamed to a
:class:`~pi_env.agents._policy_net.PolicyNet`'s (:func:`~pi_env.rl.network.policy_net_state`) and
back (:func:`~pi_env.rl.network.sb3_policy_state`), the tensors unchanged to the bit.

Skipped without the ``rl`` extra (torch, stable-baselines3, sb3-contrib)."""

from __future__ import annotations

import pytest
from helpers import need_extra

from pi_env.core.errors import PIError


def _tiny_model(seed: int):
    """A real MaskablePPO of trunk (12, 10) and policy/value layers (6,) on 2-player games."""
    need_extra("rl", "torch", "stable_baselines3", "sb3_contrib")
    from sb3_contrib import MaskablePPO

    from pi_env.rl.engine_env import SB3LearnerVecEnv
    from pi_env.rl.network import policy_kwargs

    env = SB3LearnerVecEnv(4, 2, ["random"], seed=0, parallel=False)
    return MaskablePPO("MlpPolicy", env, n_steps=8, batch_size=32, seed=seed, device="cpu",
                       policy_kwargs=policy_kwargs((12, 10), (6,)))


def test_an_sb3_policy_renames_to_a_policy_net_and_back_bit_for_bit():
    need_extra("rl", "torch", "stable_baselines3", "sb3_contrib")
    import torch

    from pi_env.agents._policy_net import PolicyNet
    from pi_env.rl.network import policy_net_state, sb3_policy_state
    from pi_env.rl.train import _load_init

    model = _tiny_model(seed=1)
    pol = model.policy
    net_state = policy_net_state(pol.state_dict())
    # the names by hand: the trunk's Linear layers are entries 0 and 2 of its Sequential (ReLU between)
    want = {"trunk.0.weight": pol.features_extractor.net[0].weight, "trunk.0.bias": pol.features_extractor.net[0].bias,
            "trunk.2.weight": pol.features_extractor.net[2].weight, "trunk.2.bias": pol.features_extractor.net[2].bias,
            "policy_net.0.weight": pol.mlp_extractor.policy_net[0].weight,
            "policy_net.0.bias": pol.mlp_extractor.policy_net[0].bias,
            "action_net.weight": pol.action_net.weight, "action_net.bias": pol.action_net.bias}
    assert sorted(net_state) == sorted(want)
    assert all(torch.equal(net_state[k], want[k]) for k in want)
    assert policy_net_state(net_state) == net_state  # a PolicyNet's state dict passes unchanged

    # the renamed state loads into a PolicyNet, which gives the SB3 policy's logits exactly
    net = PolicyNet(pol.observation_space.shape[0], (6,), "relu", (12, 10))
    net.load_state_dict(net_state)  # strict: exactly PolicyNet's keys
    x = torch.randn(5, pol.observation_space.shape[0], generator=torch.Generator().manual_seed(0))
    with torch.no_grad():
        sb3_logits = pol.action_net(pol.mlp_extractor.forward_actor(pol.extract_features(x, pol.pi_features_extractor)))
        assert torch.equal(net(x), sb3_logits)

    # and back: the SB3 names of the policy half, the same tensors
    back = sb3_policy_state(net_state)
    params = dict(pol.named_parameters())
    assert sorted(back) == sorted(k for k in params if k.startswith(
        ("features_extractor.net.", "mlp_extractor.policy_net.", "action_net.")))
    assert all(torch.equal(back[k], params[k]) for k in back)

    # loaded into another model (other seed), its policy half becomes this one's; its value head stays
    other = _tiny_model(seed=2)
    value_before = {k: v.detach().clone() for k, v in other.policy.named_parameters() if "value" in k}
    assert not torch.equal(other.policy.action_net.weight, pol.action_net.weight)
    _load_init(other, {k: v.detach().clone() for k, v in net_state.items()})
    again = policy_net_state(other.policy.state_dict())
    assert sorted(again) == sorted(net_state) and all(torch.equal(again[k], net_state[k]) for k in net_state)
    assert all(torch.equal(v, dict(other.policy.named_parameters())[k]) for k, v in value_before.items())


def test_a_key_that_is_not_a_policy_net_parameter_is_named():
    from pi_env.rl.network import sb3_policy_state

    with pytest.raises(PIError, match=r"^'value_net.weight' is not a PolicyNet parameter"):
        sb3_policy_state({"trunk.0.weight": 0, "value_net.weight": 1})
