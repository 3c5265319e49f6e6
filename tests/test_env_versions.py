"""Environment names carry a version that changes when the environment's behaviour changes
(docs/contributing.md §C10, the convention of PettingZoo, Gymnasium and pgx ``Env.version``).

Each environment's name is pinned here together with a fingerprint of its behaviour: a SHA-256 over
everything a learner sees — observations, action masks, rewards, terminations, truncations and
infos — in short seeded rollouts with a seeded random policy (mostly queries, so that games run
long, and some solves, so that rounds end), over a few configurations. A change of behaviour
changes the fingerprint. Then either the change is a bug, or it is intended, and then the version
suffix of the name goes up, the env's "Version History" and CHANGELOG.md get a line, and the new
name is pinned here with its new fingerprint.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable

import gymnasium
import numpy as np
import pytest

from pi_env.core.constants import NUM_CASES, SOLVE_BASE

PINNED = {
    "pi_v0": "ff15c2ba889568c70dabf4cba19aee09e0ad9fd271e7bcc2f932cbf52169a022",
    "pi_env/SoloTimeAttack-v0": "facd43131abf1a2a1f2e7552ba58b3da6fe6083d00fa5c3b3aaae5a3d1f6e9fa",
    "pi_selfplay_v0": "0c743bb37d202814eafa30b9b731ee87130a3c1dcdba175eb1e5b2c8b78619a4",
}
"""Environment name -> fingerprint of its behaviour (:func:`_aec_fingerprint` and the others)."""


def _policy(rng: np.random.Generator, mask: np.ndarray) -> int:
    """A legal action: 85 % a query (clue or investigator) when one is legal, else a random solve."""
    queries = np.flatnonzero(mask[:SOLVE_BASE])
    if queries.size and rng.random() < 0.85:
        return int(rng.choice(queries))
    return SOLVE_BASE + int(rng.integers(NUM_CASES))


class _Digest:
    """SHA-256 over arrays (dtype, shape and bytes) and JSON-able values, in order."""

    def __init__(self) -> None:
        self.h = hashlib.sha256()

    def array(self, a: np.ndarray) -> None:
        a = np.ascontiguousarray(a)
        self.h.update(f"{a.dtype.str}{a.shape}".encode())
        self.h.update(a.tobytes())

    def value(self, v: object) -> None:
        self.h.update(json.dumps(v, sort_keys=True, default=_plain).encode())

    def hexdigest(self) -> str:
        return self.h.hexdigest()


def _plain(v: object) -> object:
    if isinstance(v, np.ndarray):
        return v.tolist()
    if isinstance(v, (np.integer, np.floating, np.bool_)):
        return v.item()
    raise TypeError(f"not JSON-able in an info: {type(v).__name__}")


def _aec_fingerprint() -> str:
    import pi_env

    d = _Digest()
    for seed, kwargs in [(1, dict(num_players=4)), (2, dict(num_players=3, edition="first")),
                         (3, dict(mode="duel", max_rounds=4)),
                         (4, dict(num_players=5, variants=("fast", "nick-of-time"), investigators=(5, 4, 3, 2, 1)))]:
        env = pi_env.env(max_rotations=8, **kwargs)
        env.reset(seed=seed)
        rng = np.random.default_rng(seed)
        d.value([env.metadata["name"], sorted(env.possible_agents)])
        for agent in env.agent_iter():
            obs, reward, termination, truncation, info = env.last()
            d.array(obs["observation"])
            d.array(obs["action_mask"])
            d.value([agent, float(reward), bool(termination), bool(truncation), info])
            env.step(None if termination or truncation else _policy(rng, obs["action_mask"]))
        env.close()
    return d.hexdigest()


def _solo_fingerprint() -> str:
    d = _Digest()
    for seed, kwargs in [(1, {}), (2, dict(use_display=True, investigators=3, max_actions=40)),
                         (3, dict(investigator_cost=0.5, wrong_solve_cost=2.0, max_actions=30))]:
        env = gymnasium.make("pi_env.envs.solo:pi_env/SoloTimeAttack-v0", **kwargs)
        obs, info = env.reset(seed=seed)
        rng = np.random.default_rng(seed)
        d.value(env.spec.id)
        for _ in range(60):
            d.array(obs["observation"])
            d.array(obs["action_mask"])
            d.value(info)
            obs, reward, terminated, truncated, info = env.step(_policy(rng, obs["action_mask"]))
            d.value([float(reward), bool(terminated), bool(truncated)])
            if terminated or truncated:
                obs, info = env.reset()
        env.close()
    envs = gymnasium.make_vec("pi_env.envs.solo:pi_env/SoloTimeAttack-v0", num_envs=3,
                              vectorization_mode="vector_entry_point", max_actions=25)
    obs, info = envs.reset(seed=7)
    rng = np.random.default_rng(7)
    for _ in range(40):
        actions = np.array([_policy(rng, m) for m in obs["action_mask"]])
        obs, rewards, terminated, truncated, info = envs.step(actions)
        for a in (obs["observation"], obs["action_mask"], rewards, terminated, truncated):
            d.array(np.asarray(a))
    envs.close()
    return d.hexdigest()


def _selfplay_fingerprint() -> str:
    from pi_env.agents import RandomAgent
    from pi_env.envs.selfplay import SelfPlayVecEnv

    d = _Digest()
    for seed, kwargs in [(1, dict(num_players=2)), (2, dict(num_players=3, opponents=[RandomAgent(), "self"])),
                         (3, dict(mode="duel", max_rounds=4))]:
        env = SelfPlayVecEnv(4, max_rotations=6, seed=seed, **kwargs)
        obs, info = env.reset()
        rng = np.random.default_rng(seed)
        d.value(env.metadata["name"])
        for _ in range(80):
            for a in (obs, info["action_mask"], info["to_move"]):
                d.array(np.asarray(a))
            actions = np.array([_policy(rng, m) for m in info["action_mask"]])
            obs, rewards, terminated, truncated, info = env.step(actions)
            for a in (rewards, terminated, truncated):
                d.array(np.asarray(a))
    return d.hexdigest()


def _environments() -> dict[str, tuple[str, Callable[[], str]]]:
    """Each environment: its current name and the function that fingerprints its behaviour."""
    import pi_env
    from pi_env.envs.selfplay import SelfPlayVecEnv
    from pi_env.envs.solo import ENV_ID

    return {"aec": (pi_env.raw_env.metadata["name"], _aec_fingerprint),
            "solo": (ENV_ID, _solo_fingerprint),
            "selfplay": (SelfPlayVecEnv.metadata["name"], _selfplay_fingerprint)}


@pytest.mark.parametrize("kind", ["aec", "solo", "selfplay"])
def test_name_and_behaviour_are_pinned_together(kind: str) -> None:
    name, fingerprint = _environments()[kind]
    assert name in PINNED, (
        f"environment name {name!r} has no pinned fingerprint: after a version bump, pin the new "
        f"name here (PINNED) with the fingerprint this test reports")
    got = fingerprint()
    assert got == PINNED[name], (
        f"the behaviour of {name!r} changed (fingerprint {got}, pinned {PINNED[name]}). If that is "
        f"intended, bump the version suffix of the environment's name, add a line to the "
        f"'Version History' of its module docstring and to CHANGELOG.md, and pin the new name with "
        f"this fingerprint in tests/test_env_versions.py; otherwise it is a regression.")


def test_fingerprints_are_reproducible_and_see_a_change(monkeypatch) -> None:
    """The same code gives the same fingerprint; a changed reward gives another one."""
    first = _solo_fingerprint()
    assert _solo_fingerprint() == first
    from pi_env.envs import solo

    original = solo._SoloBatch.step

    def cheaper(self, actions):
        rewards, forfeited = original(self, actions)
        return rewards * 0.5, forfeited

    monkeypatch.setattr(solo._SoloBatch, "step", cheaper)
    assert _solo_fingerprint() != first
