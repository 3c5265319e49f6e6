"""Environments over the engine: PettingZoo AEC (:mod:`pi_env.envs.aec`), the Gymnasium Solo
Time Attack env and vector env (:mod:`pi_env.envs.solo`), the batched self-play vector env
(:mod:`pi_env.envs.selfplay`), observation encoders (:mod:`pi_env.envs.encoders`), the text
rendering (:mod:`pi_env.envs.render`) and the board picture (:mod:`pi_env.envs.board_image`).

Importing :mod:`pi_env.envs.solo` registers the Gymnasium env ``pi_env/SoloTimeAttack-v0``.
Gymnasium 1.x loads no plugins through package entry points, so without a prior import use the
``module:id`` form, which ``gymnasium.make`` and ``gymnasium.make_vec`` import first (see the
*Registration* section of :mod:`pi_env.envs.solo`)::

    gymnasium.make("pi_env.envs.solo:pi_env/SoloTimeAttack-v0")

This package imports nothing itself: :mod:`pi_env.envs.render` works without gymnasium.
"""
