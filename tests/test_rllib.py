"""RLlib example (issue #7 item 4): the environment as RLlib sees it, and a short PPO run with Ray
on this machine (slow; needs ``pip install '.[rllib]'``, skipped without it)."""

from __future__ import annotations

import numpy as np
import pytest

from pi_env.core.errors import PIError
from helpers import need_extra


def test_without_ray_the_example_says_how_to_install(monkeypatch, capsys):
    import builtins

    from pi_env.experiments import train_rllib

    real_import = builtins.__import__

    def fake_import(name, *args, **kwargs):
        if name.split(".")[0] == "ray":
            raise ImportError(f"No module named {name!r}", name="ray")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", fake_import)
    with pytest.raises(PIError, match=r"^the RLlib example needs ray\[rllib\] and torch \(ray is missing\); .*"
                                      r"pip install '\.\[rllib\]'$"):
        train_rllib.require_ray()
    with pytest.raises(SystemExit) as exc:
        train_rllib.main(["--iterations", "1"])
    assert exc.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("python -m pi_env.experiments.train_rllib: error: the RLlib example")
    assert "pip install '.[rllib]'" in err[0]


def test_rllib_env_is_the_pettingzoo_env_with_renamed_observations():
    need_extra("rllib", "ray.rllib", "torch")
    import pi_env
    from pi_env.rl.rllib_env import PiPettingZooEnv
    from pi_env.envs.encoders import flat_scales

    env = PiPettingZooEnv({"num_players": 2})
    ref = pi_env.env(num_players=2)
    obs, _ = env.reset(seed=4)
    ref.reset(seed=4)
    scales = flat_scales(ref.unwrapped.config)
    for _ in range(6):
        (aid, o), = obs.items()
        assert aid == ref.agent_selection
        r = ref.observe(aid)
        assert np.array_equal(o["observations"], r["observation"].astype(np.float32) * scales)
        assert np.array_equal(o["action_mask"], r["action_mask"].astype(np.float32))
        assert env.observation_space[aid].contains(o)
        a = int(np.flatnonzero(r["action_mask"][:50])[0])  # a query: the game goes on
        obs, rewards, term, trunc, _ = env.step({aid: a})
        ref.step(a)
        assert term["__all__"] is False


@pytest.mark.slow
def test_ppo_trains_saves_checkpoints_and_resumes_with_ray_locally(tmp_path):
    need_extra("rllib", "ray.rllib", "torch")
    from pi_env.experiments.train_rllib import checkpoints, train

    out = tmp_path / "rllib"
    rows = train(2, out=out, players=2, policies="per-seat", env_runners=0, batch=400, seed=0)
    assert [r["iteration"] for r in rows] == [1, 2]
    assert rows[0]["env_steps"] >= 400 and rows[1]["env_steps"] >= rows[0]["env_steps"] + 400
    assert [p.name for p in checkpoints(out)] == ["checkpoint_1", "checkpoint_2"]
    with pytest.raises(PIError, match="exists and is not empty: --resume to continue, --force"):
        train(1, out=out, players=2, policies="per-seat", batch=400)
    more = train(1, out=out, resume=True, players=2, policies="per-seat", env_runners=0, batch=400, seed=0)
    assert [r["iteration"] for r in more] == [3]
    assert more[0]["env_steps"] >= rows[1]["env_steps"] + 400  # the counters continue from the checkpoint
    assert checkpoints(out)[-1].name == "checkpoint_3"


def test_cluster_address_ships_the_package():
    import pi_env
    from pi_env.core.cluster import ray_init_kwargs

    local = ray_init_kwargs(None, num_cpus=3)
    assert local["num_cpus"] == 3 and "address" not in local and "runtime_env" not in local
    remote = ray_init_kwargs("auto")
    assert remote["address"] == "auto" and remote["runtime_env"]["py_modules"] == [pi_env]
    assert "runtime_env" not in ray_init_kwargs("auto", ship_package=False)
