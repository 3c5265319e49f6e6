"""``import pi_env`` registers its Gymnasium ids, as Gymnasium plugins (ale-py, minigrid) do, so
``gymnasium.make("pi_env/SoloTimeAttack-v0")`` works after it, without loading the environment's
module until it is made."""

from __future__ import annotations

import subprocess
import sys

PROBE = """
import sys
import gymnasium
import pi_env
print("pi_env.envs.solo" in sys.modules, "pettingzoo" in sys.modules, "numba" in sys.modules)
env = gymnasium.make("pi_env/SoloTimeAttack-v0", max_actions=7)
obs, info = env.reset(seed=3)
print(type(env.unwrapped).__name__, env.spec.id, env.spec.max_episode_steps, obs["action_mask"].sum() > 0)
vec = gymnasium.make_vec("pi_env/SoloTimeAttack-v0", num_envs=3, vectorization_mode="vector_entry_point")
print(type(vec).__name__, vec.num_envs)
again = gymnasium.make("pi_env.envs.solo:pi_env/SoloTimeAttack-v0")
print(type(again.unwrapped).__name__)
"""


def test_import_pi_env_registers_the_solo_env_and_loads_nothing_heavy():
    done = subprocess.run([sys.executable, "-W", "error", "-c", PROBE], capture_output=True, text=True,
                          timeout=600, check=True)
    assert done.stdout.splitlines() == [
        "False False False",  # registered by name only: nothing of the env is imported yet
        "SoloTimeAttackEnv pi_env/SoloTimeAttack-v0 None True",
        "SoloTimeAttackVectorEnv 3",
        "SoloTimeAttackEnv",  # the module:id form still works, and registering again is silent
    ]


def test_the_registered_ids_are_the_ones_listed():
    import gymnasium

    import pi_env

    assert list(pi_env.GYMNASIUM_ENVS) == ["pi_env/SoloTimeAttack-v0"]
    spec = gymnasium.spec("pi_env/SoloTimeAttack-v0")
    assert (spec.entry_point, spec.vector_entry_point) == ("pi_env.envs.solo:SoloTimeAttackEnv",
                                                           "pi_env.envs.solo:SoloTimeAttackVectorEnv")
