"""The settings of training and imitation runs, shared by :mod:`pi_env.rl.train` and
:mod:`pi_env.rl.imitate`: the tasks, the defaults, the JSON schema of a run's settings and its one
check, and the opponent lists (``random:1,heuristic:0.05``). Both commands import this module, and
neither imports the other's command line.
"""

from __future__ import annotations

from typing import Any

from pi_env.core.errors import PIError

__all__ = ["TASKS", "MAX_SEED", "UNTIL_TIME_RUNS_OUT", "PPO_DEFAULTS", "DEFAULT_NUM_ENVS", "DEFAULT_TRUNK", "DEFAULT_HIDDEN", "parse_opponents",
           "FIXED_SETTINGS", "DEFAULTS", "SETTINGS_SCHEMA", "check_settings"]

TASKS = {"2p": 2, "3p": 3, "4p": 4, "5p": 5}
PPO_DEFAULTS: dict[str, Any] = {"n_steps": 16, "batch_size": 16384, "n_epochs": 2, "learning_rate": 3e-4,
                                "gamma": 0.995, "gae_lambda": 0.95, "clip_range": 0.2, "ent_coef": 0.01,
                                "vf_coef": 0.5, "max_grad_norm": 0.5, "target_kl": None}
"""MaskablePPO settings sized for a 2-core CPU: :data:`DEFAULT_NUM_ENVS` games x 16 steps per update
(65,536 rows), 4 minibatches of 16,384, 2 epochs."""
DEFAULT_NUM_ENVS = 4096
"""Games stepped together (``--num-envs``)."""
DEFAULT_TRUNK: tuple[int, ...] = (128,)
"""Widths of the shared trunk (``--trunk``)."""
DEFAULT_HIDDEN: tuple[int, ...] = (64,)
"""Widths of the policy and value layers after the trunk (``--hidden``)."""


def parse_opponents(text: str, flag: str = "--opponents") -> list[tuple[str, float]]:
    """``"random:1,heuristic:0.05"`` -> ``[("random", 1.0), ("heuristic", 0.05)]`` (weight 1 when
    omitted; the weight follows the last colon, so ``learned:2p`` and ``learned:2p:0.5`` name the
    model ``learned:2p``). Raises PIError, naming ``flag``, for a malformed entry or a negative
    weight."""
    out = []
    for part in (p.strip() for p in text.split(",")):
        if not part:
            continue
        name, colon, w = part.rpartition(":")
        if not colon or (name.strip().lower() in ("learned", "sb3", "sb3-sample")):
            name, w = part, ""  # no weight: a plain name, or learned:NAME / sb3:PATH
        try:
            weight = float(w) if w else 1.0
        except ValueError:
            raise PIError(f"{flag} entry {part!r}: the weight {w!r} is not a number") from None
        if not weight >= 0:
            raise PIError(f"{flag} entry {part!r}: the weight must be at least 0")
        out.append((name.strip(), weight))
    if not out:
        raise PIError(f"{flag} lists no agent")
    return out


MAX_SEED = 2**39
"""The largest training seed: training games come from seeds below the evaluation games' seed
(:data:`pi_env.rl.evaluation.EVAL_SEED`, ``2**40``), so the two never share a stream."""
UNTIL_TIME_RUNS_OUT = 10**15
"""The step target of a run given ``--max-minutes`` and no ``--timesteps``: the clock ends it."""
FIXED_SETTINGS = ("task", "encoding", "trunk", "hidden")
"""Settings a resumed run cannot change (they shape the network and its input)."""
DEFAULTS: dict[str, Any] = {
    "timesteps": 10_000_000, "seed": 0, "num_envs": DEFAULT_NUM_ENVS, "opponents": "gain:1", "snapshot_weight": 0.0,
    "snapshot_every": 20, "max_snapshots": 8, "reward": "win", "encoding": "compact-v1",
    "trunk": list(DEFAULT_TRUNK), "hidden": list(DEFAULT_HIDDEN), "threads": 1, "checkpoint_every": 2_000_000,
    "imitate": None, "imitate_rows": 300_000, "imitate_opponents": "gain:1", "dagger_rounds": 0,
    "dagger_beta": 0.3, "imitate_workers": 1, "imitate_epochs": 10, "demos": None, "max_minutes": None,
    "eval_every": 25, "eval_games": 256, "eval_opponents": "heuristic", "init": None, "value_warmup": 0,
    "init_temperature": 1.0,
    **{k: PPO_DEFAULTS[k] for k in ("n_steps", "batch_size", "n_epochs", "learning_rate", "ent_coef", "gamma")}}
"""The command line's settings and their defaults (``run.json`` ``settings`` holds them all)."""


_POS_INT = {"type": "integer", "minimum": 1}
_WIDTHS = {"type": "array", "items": _POS_INT, "minItems": 1}
SETTINGS_SCHEMA: dict[str, Any] = {
    "type": "object", "additionalProperties": False,
    "properties": {
        "task": {"enum": list(TASKS)}, "timesteps": {"type": "integer", "minimum": 0},
        "seed": {"type": "integer", "minimum": 0, "maximum": MAX_SEED},
        "eval_every": {"type": "integer", "minimum": 0}, "eval_games": _POS_INT, "eval_opponents": {"type": "string"},
        **{k: _POS_INT for k in ("num_envs", "snapshot_every", "max_snapshots", "threads", "checkpoint_every",
                                 "imitate_rows", "imitate_workers", "imitate_epochs", "n_steps", "batch_size",
                                 "n_epochs")},
        "opponents": {"type": "string"}, "imitate_opponents": {"type": "string"}, "encoding": {"type": "string"},
        "snapshot_weight": {"type": "number", "minimum": 0}, "reward": {"enum": ["win", "score", "rank"]},
        "trunk": _WIDTHS, "hidden": _WIDTHS, "imitate": {"type": ["string", "null"]},
        "demos": {"type": ["string", "null"]}, "init": {"type": ["string", "null"]},
        "value_warmup": {"type": "integer", "minimum": 0},
        "init_temperature": {"type": "number", "exclusiveMinimum": 0}, "dagger_rounds": {"type": "integer", "minimum": 0},
        "dagger_beta": {"type": "number", "minimum": 0, "maximum": 1},
        "max_minutes": {"type": ["number", "null"], "minimum": 0},
        "learning_rate": {"type": "number", "exclusiveMinimum": 0}, "ent_coef": {"type": "number"},
        "gamma": {"type": "number", "minimum": 0, "maximum": 1}}}
"""JSON schema of ``run.json`` ``settings`` (and of each resume's ``changed``): the types and ranges
the command line accepts (:func:`main`)."""


def check_settings(values: dict[str, Any], flags: "dict[str, str] | None" = None) -> None:
    """Check command-line settings (any of :data:`SETTINGS_SCHEMA`'s keys) against their types and
    ranges: the one check of ``train`` and ``imitate`` options.

    Args:
        values: setting name -> value (e.g. ``{"gamma": 0.99, "num_envs": 64}``).
        flags: setting name -> the option that gave it, where it is not ``--`` + the name with
            dashes (``{"imitate_rows": "--rows"}``).

    Raises:
        PIError: one line: the option and what is wrong (``--gamma: 3.0 is greater than the maximum of 1``).
    """
    import jsonschema

    err = jsonschema.exceptions.best_match(jsonschema.Draft202012Validator(SETTINGS_SCHEMA).iter_errors(values))
    if err is not None:
        key = str(err.absolute_path[0]) if err.absolute_path else ""
        flag = (flags or {}).get(key, "--" + key.replace("_", "-"))
        raise PIError(f"{flag}: {err.message}")
