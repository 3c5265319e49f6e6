"""Train a P.I. policy at engine speed with sb3-contrib's MaskablePPO.

    python -m pi_env.rl.train 2p --timesteps 20000000 --out results/rl/run2p [--seed 0]
        [--opponents gain:1,heuristic:0.05] [--snapshot-weight 0.5] [--resume | --force]

(also ``python -m pi_env.experiments.train_rl``; the command line is :func:`pi_env.rl.cli.train_main`, the
library :func:`train`). Needs the ``rl`` extra.

**Environment.** :class:`pi_env.rl.engine_env.SB3LearnerVecEnv`: ``--num-envs`` games stepped by the
batched engine, one learner seat per game rotating game by game, the compact action space (50
queries + solve, :mod:`pi_env.agents.learned`), observations encoded in batch from the engine state.
``--threads N`` (default 1) sets both numba's threads (engine step, encoder) and torch's: with
both thread pools active at once on a loaded 2-core machine they slow each other down, so one
thread is the default; two pay off on a machine of one's own (``benchmarks/rl_training_speed.py``
rows (c) and (d) measure both). Defaults: :data:`DEFAULT_NUM_ENVS` games, :data:`PPO_DEFAULTS`.

**Opponents** (``task`` ``2p``, ``3p``, ``4p``, ``5p``: 1 to 4 seats, each its own
:class:`pi_env.rl.pool.PoolOpponent`): at the start of every game each opponent seat draws a member:
the built-in agents of ``--opponents`` (``name:weight``; ``random``, ``gain`` — the core rules
of ``heuristic`` in batch, :class:`pi_env.rl.pool.GainOpponent` — and ``heuristic`` itself
(:class:`pi_env.rl.heuristic_batch.HeuristicOpponent`, the agent's actions) run in batch, as does
``greedy`` in the ``2p``, ``3p`` and ``4p`` tasks (:class:`pi_env.agents.greedy_batch.GreedyOpponent`); the other
agents game by game, so keep their weight small), and the learner's own snapshots, which share
``--snapshot-weight``: every ``--snapshot-every`` updates the current policy is frozen into the
pool (at most ``--max-snapshots``, oldest out) and plays in batch, sampling its choices.

**On a Ray cluster** (``--ray-actors K [--ray-address ADDR]``, this session; the ``ray`` extra): the
experience is collected by ``K`` Ray actors of ``--num-envs / K`` games each, spread over the
cluster's nodes (:mod:`pi_env.rl.ray_collect`); each holds the same env and opponent pools (the
snapshots are sent to them as they are added) and steps its games with the current policy's
weights, and this process runs the PPO updates, evaluations and checkpoints. The actors' seeds
come from the session's seed (``numpy.random.SeedSequence`` spawn), so a run is a function of its seed
and ``K``, wherever the actors run; ``run.json``'s session entry records ``collect_workers``.
The curve's ``pool_*`` shares are then this process's pools' first draws, not the actors'.

**Reward** (``--reward``): ``win`` (default): 0 during the game and, at its end, the learner's
share of first place (1, ``1/k`` for a k-way tie, 0) — exactly the quantity tournaments report;
``score``: the score changes (a game's rewards sum to the final score); ``rank``: 0 during the
game and, at its end, ``(players below − players above) / (P − 1)`` in the final standings
(:class:`pi_env.rl.engine_env.LearnerBatch`).

**Evaluation** (``--eval-every N`` updates, default 25, ``0``: never; and at the end of every
session): the current policy, choosing its most likely legal action, plays ``--eval-games``
(default 256) games against ``--eval-opponents`` (one built-in agent on every other seat, default
``heuristic``) on games held apart from training (:mod:`pi_env.rl.evaluation`; ``--seed`` is
0..2**39, the evaluation games come from seed 2**40). The curve's ``eval_*`` columns and the
model card's ``evaluation`` hold the win rate, mean score, wrong solves and turns per game.

**Warm start** (``--imitate TEACHER``, :func:`warm_start`, :mod:`pi_env.rl.imitate`): before PPO,
the policy and value heads are fitted to ``--imitate-rows`` rows of the teacher's play from the
learner's seat (behaviour cloning; any built-in agent, e.g. ``deducer``, played game by game, or
in batch ``gain`` and ``greedy`` at 2–5 players: :class:`pi_env.rl.imitate.Teacher`), against ``--imitate-opponents``; ``--dagger-rounds N`` then adds N rounds where
the current policy plays (the teacher's action with probability ``--dagger-beta``) and the teacher
labels every position (DAgger), each followed by a fit on all rows so far; ``--demos F1,F2`` starts
from saved rows (:meth:`pi_env.rl.imitate.Demonstrations.save`), and without ``--imitate`` clones
the agent that labelled them (the files' ``label``, :func:`demos_teacher`; files with no label or
different ones are refused: name the teacher with ``--imitate``). PPO then improves on the clone
against the pool (``--timesteps 0``: the clone only).

**Warm start from a model** (``--init MODEL``, :func:`init_network`): a model file or a shipped
name (``learned:2p``, ``2p``) of the task's player count; the network (``--encoding``, ``--trunk``,
``--hidden``: left out, they are the model's; given and different, refused) starts from its trunk,
policy layers and action logits exactly. The model file holds no value head: it starts new, and
``--value-warmup N`` trains only it (every other weight frozen, learning rate
:data:`VALUE_WARMUP_LR`) for the first N updates, so that the first policy update uses advantages
of a fitted value (without it, a fine-tuned policy drifts on noise: measured, docs/results.md); a
run stopped during the warm-up and resumed does the rest of it (every checkpoint records the
warm-up updates done). Excludes ``--imitate``.

**Network** (:class:`TrunkExtractor` + SB3's MLP heads, exported as
:class:`pi_env.agents._policy_net.PolicyNet`): a shared trunk (``--trunk``, default 128), then
separate policy and value layers (``--hidden``, default 64), ReLU; the solve logit's bias starts
at :data:`INITIAL_SOLVE_BIAS` (a new policy asks before it guesses).

**Run directory** (``--out``; an existing, non-empty one is refused unless ``--resume`` (continue
from its last checkpoint) or ``--force`` (start again, deleting it)):

* ``policy.pt``: the final policy (:data:`pi_env.agents.learned.MODEL_FORMAT`: what ``learned:PATH``
  loads); ``model.zip``: the full MaskablePPO model (optimizer included);
* ``checkpoints/step_N.zip`` + ``step_N.pt`` every ``--checkpoint-every`` steps (and at the end);
  ``pool/step_N.pt``: the snapshots in the pool;
* ``curve.csv`` (one row per update: steps, seconds, games finished, win rate, mean score, wrong
  solves per game, mean length, steps per second, pool shares; the evaluation's ``eval_*`` columns
  in the rows where it ran), ``curve.png`` (win rates, score and wrong solves against steps), and
  SB3's logger output: ``logs/session_N/`` (``progress.csv`` and TensorBoard event files, one
  folder per session, ``N`` its first step);
* ``run.json``: ``settings`` (every option as the run was started, written before training
  begins), ``resumes`` (per resumed session: its first step and the options it changed), the
  model card at the top level (the settings in force in the last session: ``num_envs``, ``ppo``,
  ``timesteps``, ``seconds``, ...), and the steps, wall-clock seconds and steps per second of every
  session. ``--resume`` checks it first (:data:`RUN_SCHEMA`: a hand-edited field of the wrong type or
  out of range, or an unknown setting, is a one-line error naming ``run.json`` and the field, exit 2,
  nothing written). A directory interrupted before its first checkpoint holds only ``run.json``
  without sessions: the same command (no ``--force`` needed) starts it again.

``--timesteps`` is the total over every session of the run, rounded up to whole updates of
``--num-envs`` x ``--n-steps`` (the progress bar counts to that figure; ``0`` with ``--imitate``: no
PPO, ``policy.pt`` is the warm start's last clone, the file ``imitation/round_K.pt`` with its card);
``--max-minutes`` ends this session earlier (without ``--timesteps`` it alone ends the run: the target is
:data:`~pi_env.rl.settings.UNTIL_TIME_RUNS_OUT`; the files are written as at the end; ``--resume`` goes
on from there). **Resuming** (:func:`resume_settings`): options not given take the run's saved
values (its settings with the changes of earlier resumes), options given replace them, except
:data:`FIXED_SETTINGS` (task, ``--encoding``, ``--trunk``, ``--hidden``), which a resumed run cannot
change: one-line error, exit 2, nothing written. **Interrupted** (Ctrl-C, SIGTERM;
:mod:`pi_env.core.interrupts`): the checkpoint of the step reached and the files of the end
(``policy.pt``, ``model.zip``, curves, ``run.json``) are written atomically, one line says how to
continue (``--resume``), exit status 130. Every option is checked before ``--out`` is created.

**Seeds.** ``--seed`` seeds the games, the seats, the opponents' draws and torch; two runs with
the same seed and settings on the same machine give the same policy (single-threaded torch). A
resumed run continues from the checkpoint's weights, optimizer and step count with generators
re-seeded from ``seed + steps`` (not bit-identical to an uninterrupted run).
"""

from __future__ import annotations

import csv
import dataclasses
import json
import math
import sys
import time
from pathlib import Path
from typing import Any, Iterator, Sequence

from pi_env.core.errors import PIError
from pi_env.core.interrupts import (caused_by_interrupt, interrupted_while_starting,
                                   signals_held, terminate_as_interrupt)

with interrupted_while_starting(__name__, "python -m pi_env.rl.train"):  # the heavy imports (~3 s: numba, torch)
    import numpy as np

    from pi_env.agents.learned import MODEL_FORMAT, SOLVE_ACTION

    # saved models refer to pi_env.rl.train.TrunkExtractor: it must be importable by that name
    from pi_env.rl.network import (INITIAL_SOLVE_BIAS, TrunkExtractor, policy_kwargs, policy_net_state,
                                   sb3_policy_state)
from pi_env.core.files import (check_replaceable_dir, remove_run_dir, write_bytes_atomic, write_figure_atomic,
                               write_text_atomic)
from pi_env.core.text import csv_text

from pi_env.rl.settings import (DEFAULT_HIDDEN, DEFAULT_NUM_ENVS, DEFAULT_TRUNK, DEFAULTS, FIXED_SETTINGS,
                                MAX_SEED, PPO_DEFAULTS, SETTINGS_SCHEMA, TASKS, UNTIL_TIME_RUNS_OUT, check_settings,
                                parse_opponents)

__all__ = ["train", "init_network", "saved_settings", "check_settings", "SETTINGS_SCHEMA", "RUN_SCHEMA", "resume_settings", "TrainingInterrupted", "FIXED_SETTINGS",
           "DEFAULTS", "PPO_DEFAULTS", "INITIAL_SOLVE_BIAS", "TrunkExtractor", "TASKS", "parse_opponents", "export_policy"]


def _sb3():
    from pi_env.agents.sb3_policy import require_rl

    require_rl()
    import torch
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.torch_layers import BaseFeaturesExtractor

    return torch, MaskablePPO, BaseFeaturesExtractor



def _policy_state(model: Any) -> dict[str, Any]:
    """The PolicyNet parameters of an SB3 policy with :class:`TrunkExtractor`
    (:func:`pi_env.rl.network.policy_net_state`), copied."""
    return {k: v.detach().clone() for k, v in policy_net_state(model.policy.state_dict()).items()}


def export_policy(model: Any, path: "str | Path", meta: dict[str, Any]) -> None:
    """Write the policy of ``model`` as a :data:`~pi_env.agents.learned.MODEL_FORMAT` file
    (atomically): ``meta`` gives ``encoding``, ``num_players``, ``trunk``, ``hidden``, ``card``."""
    import torch

    from pi_env.agents.learned import encoding_fingerprint

    data = {"format": MODEL_FORMAT, "encoding": meta["encoding"], "num_players": int(meta["num_players"]),
            "fingerprint": encoding_fingerprint(meta["encoding"], int(meta["num_players"])),
            "trunk": [int(h) for h in meta["trunk"]], "hidden": [int(h) for h in meta["hidden"]],
            "activation": "relu", "input_size": int(model.observation_space.shape[0]),
            "card": json.loads(json.dumps(meta.get("card", {}))),  # plain values only (weights_only loading)
            "state_dict": _policy_state(model)}
    path = Path(path)
    tmp = path.with_name(path.name + ".tmp")
    torch.save(data, tmp)
    tmp.replace(path)


def init_network(spec: str, num_players: int, *, encoding: "str | None" = None,
                 trunk: "Sequence[int] | None" = None, hidden: "Sequence[int] | None" = None) -> dict[str, Any]:
    """The network of ``--init``: a model (a ``.pt`` file, a shipped name such as ``2p``, either
    after ``learned:``) checked against the task and the network options given.

    Args:
        spec: the model, as ``--init`` names it. num_players: the task's players.
        encoding, trunk, hidden: the options given (``None``: not given, the model's is taken).

    Returns:
        ``{"model": spec, "file": path, "encoding", "trunk", "hidden", "state_dict", "head"}``: the
        model's network, a copy of its :class:`~pi_env.agents._policy_net.PolicyNet` tensors, and
        whether the model also carries a solve-timing head (``head``: bool), which the run does not
        take over (:mod:`pi_env.rl.solve_timing` fits one on a policy).

    Raises:
        PIError: an unknown name or unreadable file, a model of another player count (or solo), or
            an option given that differs from the model's (one line starting ``--init:``).
    """
    from pi_env.agents.learned import load_model, model_path

    try:
        net, meta = load_model(spec)  # a zoo name with or without "learned:" (model_path)
        path = model_path(spec)
    except PIError as exc:
        raise PIError(f"--init: {exc}") from None
    have = int(meta["num_players"])
    if have != num_players:
        raise PIError(f"--init: {spec!r} is a model for {f'{have}-player' if have else 'solo'} games, the task "
                      f"plays {num_players}")
    got = {"encoding": str(meta["encoding"]), "trunk": [int(h) for h in meta["trunk"]],
           "hidden": [int(h) for h in meta["hidden"]]}
    for key, value in (("encoding", encoding), ("trunk", trunk), ("hidden", hidden)):
        if value is not None and (list(value) if key != "encoding" else value) != got[key]:
            raise PIError(f"--init: the model {spec!r} has --{key} {_show(got[key])}, not {_show(value)}; "
                          f"leave --{key} out (the network is the model's)")
    return {"model": spec, "file": str(path), **got,
            "state_dict": {k: v.detach().clone() for k, v in net.state_dict().items()},
            "head": meta.get("solve_timing") is not None}


def _load_init(model: Any, state: dict[str, Any], temperature: float = 1.0) -> None:
    """Copy a :class:`~pi_env.agents._policy_net.PolicyNet` state (:func:`init_network`) into the
    SB3 policy of ``model`` in place (:func:`pi_env.rl.network.sb3_policy_state`, the inverse of
    :func:`_policy_state`; the value head stays), the action head's weights and bias divided by
    ``temperature`` (``--init-temperature``: every logit divided by it, so the argmax and the order
    of the choices stay and, above 1, the probabilities of the other choices rise).

    Raises:
        PIError: a tensor of the state has no place in the network (one line starting ``--init:``).
    """
    import torch

    try:
        named = sb3_policy_state(state)
    except PIError as e:
        raise PIError(f"--init: {e}") from None
    params = dict(model.policy.named_parameters())
    with torch.no_grad():
        for k, (target, v) in zip(state, named.items()):
            if target not in params or params[target].shape != v.shape:
                raise PIError(f"--init: the model's tensor {k!r} {tuple(v.shape)} has no place in this network")
            params[target].copy_(v / temperature if target.startswith("action_net.") else v)


VALUE_PARAMS = ("mlp_extractor.value_net.", "value_net.")
"""Prefixes of the SB3 policy's value-head parameters: the only ones trained during ``--value-warmup``."""
VALUE_WARMUP_LR = 1e-3
"""The learning rate of the ``--value-warmup`` updates (only the new value head learns then: at the
run's own, small rate for fine-tuning, a few dozen updates leave its explained variance below 0)."""


def _freeze_all_but_value(model: Any, frozen: bool) -> None:
    """Freeze (or free again) every parameter of ``model``'s policy except the value head's; while
    frozen, the learning rate is :data:`VALUE_WARMUP_LR` (the run's own is restored after)."""
    from stable_baselines3.common.utils import FloatSchedule

    for k, p in model.policy.named_parameters():
        if not k.startswith(VALUE_PARAMS):
            p.requires_grad_(not frozen)
    model.lr_schedule = FloatSchedule(VALUE_WARMUP_LR if frozen else model.learning_rate)


def _snapshot_net(model: Any, meta: dict[str, Any]) -> Any:
    from pi_env.agents._policy_net import PolicyNet

    net = PolicyNet(int(model.observation_space.shape[0]), tuple(meta["hidden"]), "relu", tuple(meta["trunk"]))
    net.load_state_dict(_policy_state(model))
    net.eval()
    return net


def check_run_dir(out: Path, resume: bool, force: bool) -> None:
    """Refuse a bad ``--out`` before anything is written."""
    if resume and force:
        raise PIError("--resume and --force exclude each other")
    if out.exists() and not out.is_dir():
        raise PIError(f"--out {str(out)!r} is a file, not a run directory")
    nonempty = out.is_dir() and any(out.iterdir()) and not never_started(out)
    if resume:
        if not (out / "checkpoints").is_dir() or not list((out / "checkpoints").glob("step_*.zip")):
            raise PIError(f"--resume: {str(out)!r} holds no checkpoint (checkpoints/step_N.zip)")
    elif nonempty and not force:
        raise PIError(f"run directory {str(out)!r} exists and is not empty: --resume to continue it, "
                      "--force to start again (deletes it), or another --out")
    if force:
        check_replaceable_dir(out, _is_run, what=_RUN_WHAT)


_RUN_WHAT = "a pi-env training run (no run.json)"
"""What ``--force`` may replace, as its refusal names it (:func:`_is_run`)."""


def _is_run(out: Path) -> bool:
    """Whether ``out`` holds a training run (its ``run.json``): what ``--force`` may delete."""
    return (out / "run.json").is_file()


def never_started(out: Path) -> bool:
    """Whether ``out`` holds only what a run writes before its first checkpoint (its folders and a
    ``run.json`` with no session): a plain rerun may reuse it (an interrupted start)."""
    files = [f for f in out.rglob("*") if not f.is_dir()]
    if [f.relative_to(out) for f in files] != [Path("run.json")]:
        return False
    try:
        doc = json.loads(files[0].read_text())
    except (OSError, ValueError):
        return False
    return isinstance(doc, dict) and not doc.get("sessions") and isinstance(doc.get("settings"), dict)


def _prepare_out(out: Path, resume: bool, force: bool, note: str = "") -> None:
    """The run directory made ready (its subfolders; an old run removed with ``force``), then
    ``note`` (if any) on stderr: said only once the run is past every refusal."""
    check_run_dir(out, resume, force)
    if not resume and out.is_dir() and any(out.iterdir()):
        remove_run_dir(out, _is_run, what=_RUN_WHAT)
    for sub in ("checkpoints", "pool", "logs"):
        (out / sub).mkdir(parents=True, exist_ok=True)
    if note:
        print(note, file=sys.stderr)


RUN_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "settings": SETTINGS_SCHEMA,
        "resumes": {"type": "array", "items": {
            "type": "object", "required": ["at_step", "changed"],
            "properties": {"at_step": {"type": "integer", "minimum": 0},
                           "changed": {**SETTINGS_SCHEMA, "properties": {
                               k: v for k, v in SETTINGS_SCHEMA["properties"].items() if k not in FIXED_SETTINGS}}}}},
        "sessions": {"type": "array", "items": {"type": "object"}},
        "ppo": {"type": "object"}}}
"""JSON schema of ``run.json`` as :func:`saved_settings` reads it."""


def _check_schema(doc: Any, schema: dict[str, Any], path: Path, where: str = "") -> None:
    """Raise PIError ``PATH: FIELD: what is wrong`` (one line) unless ``doc`` matches ``schema``."""
    import jsonschema

    err = jsonschema.exceptions.best_match(jsonschema.Draft202012Validator(schema).iter_errors(doc))
    if err is None:
        return
    field = ".".join(str(k) for k in [*([where] if where else []), *err.absolute_path]) or "top level"
    if err.validator == "additionalProperties":
        message = err.message.replace("Additional properties are not allowed", "unknown setting(s)")
    elif err.validator == "type" and not err.absolute_path and not where:
        message = f"expected a JSON object, got {type(doc).__name__}"
    else:
        message = err.message.replace("None is not", "null is not", 1)
    raise PIError(f"{path}: {field}: {message}")


def saved_settings(out: "str | Path") -> dict[str, Any]:
    """The settings of the run in ``out``: ``run.json``'s ``settings`` (as the run was started) with
    the changes of its ``resumes`` applied in order (for runs written before ``settings`` was stored
    there, rebuilt from the card and the latest checkpoint's policy file). ``run.json`` is checked
    against :data:`RUN_SCHEMA` first and the result against :data:`SETTINGS_SCHEMA`.

    Raises:
        PIError: no readable ``run.json``, or one with a field of the wrong type or out of range, or
            an unknown setting (one line naming ``run.json`` and the field).
    """
    path = Path(out) / "run.json"
    try:
        doc = json.loads(path.read_text())
    except FileNotFoundError:
        raise PIError(f"--resume: {str(out)!r} has no run.json (its settings)") from None
    except IsADirectoryError:
        raise PIError(f"{path}: is a directory, not a file") from None
    except OSError as exc:
        raise PIError(f"{path}: cannot read it ({exc.strerror or type(exc).__name__})") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise PIError(f"{path}: not valid JSON ({getattr(exc, 'msg', exc)}, line {getattr(exc, 'lineno', 1)})") from None
    _check_schema(doc, RUN_SCHEMA, path)
    if "settings" in doc:  # as started, then what each resumed session changed
        return {**DEFAULTS, **doc["settings"], **{k: v for r in doc.get("resumes", []) for k, v in r["changed"].items()}}
    got = {k: doc[k] for k in ("task", "seed", "opponents", "snapshot_weight", "reward", "num_envs", "trunk",
                               "hidden", "encoding") if k in doc}
    got.update({k: v for k, v in doc.get("ppo", {}).items() if k in DEFAULTS})
    if "encoding" not in got:  # older run.json: the checkpoints' policy files name it
        import torch

        pts = _latest(Path(out), "checkpoints", "pt")
        if pts:
            got["encoding"] = torch.load(pts[-1], weights_only=True)["encoding"]
    if "timesteps" in doc:
        got["timesteps"] = doc["timesteps"]
    _check_schema(got, SETTINGS_SCHEMA, path)  # an older run.json: its top-level fields
    return {**DEFAULTS, **got}


START_SETTINGS = ("init", "value_warmup", "init_temperature")
"""Settings that only shape how a run starts (:func:`init_network`): a resumed run cannot change them."""


def resume_settings(out: "str | Path", given: dict[str, Any]) -> dict[str, Any]:
    """The settings of a resumed run: the saved ones (:func:`saved_settings`), replaced by the
    options ``given`` (those not ``None``).

    Raises:
        PIError: a given option differs from a saved :data:`FIXED_SETTINGS` or :data:`START_SETTINGS`
            one (one line naming the run directory, the saved and the given value).
    """
    saved = saved_settings(out)
    for k in START_SETTINGS:  # they only start a run: a resumed one continues from its checkpoint
        if given.get(k) is not None and given[k] != saved[k]:
            was = "without --init" if saved[k] is None else f"with --{k.replace('_', '-')} {_show(saved[k])}"
            raise PIError(f"--resume: the run in {str(out)!r} was started {was}, not {_show(given[k])}; "
                          f"--{k.replace('_', '-')} only starts a run (leave it out to resume)")
    for k in FIXED_SETTINGS:
        if given.get(k) is not None and given[k] != saved[k]:
            opt = "task" if k == "task" else "--" + k
            raise PIError(f"--resume: the run in {str(out)!r} was started with {opt} {_show(saved[k])}, "
                          f"not {_show(given[k])}; a resumed run keeps it (another --out, or --force to start again)")
    return {**saved, **{k: v for k, v in given.items() if v is not None}}


def _show(v: Any) -> str:
    return ",".join(map(str, v)) if isinstance(v, (list, tuple)) else str(v)


class TrainingInterrupted(PIError):
    """Training was interrupted (Ctrl-C or SIGTERM); the run is saved at step ``steps`` (a
    checkpoint ``--resume`` continues from, ``policy.pt``, ``model.zip``, ``run.json``)."""

    def __init__(self, out: Path, steps: int | None):
        self.out, self.steps = out, steps
        super().__init__(f"interrupted at step {steps}" if steps is not None else "interrupted")


def _load_checkpoint(cls: Any, path: Path, **kwargs: Any) -> Any:
    """``cls.load(path, **kwargs)``, a damaged file (truncated, empty, not SB3's zip, other contents)
    turned into one line naming it.

    Raises:
        PIError: the checkpoint cannot be loaded (nothing was written before this point on ``--resume``).
    """
    try:
        return cls.load(path, **kwargs)
    except PIError:
        raise
    except Exception as exc:  # zipfile.BadZipFile, KeyError, RuntimeError, EOFError, pickle errors...
        reason = str(exc).splitlines()[0][:120] if str(exc) else type(exc).__name__
        raise PIError(f"--resume: the checkpoint {str(path)!r} is not a readable model ({type(exc).__name__}: "
                      f"{reason}); delete it to resume from the one before, or --force to start again") from None


def _latest(out: Path, sub: str, ext: str) -> list[Path]:
    return sorted((out / sub).glob(f"step_*.{ext}"), key=lambda p: int(p.stem.split("_")[1]))


@dataclasses.dataclass
class _Session:
    """What the progress monitor of one :func:`train` session works with."""

    out: Path
    start: int
    timesteps: int
    num_envs: int
    settings: dict[str, Any]
    progress: bool
    max_minutes: float | None
    verbose: bool
    pools: list[Any]
    snapshot_weight: float
    snapshot_every: int
    checkpoint_every: int
    meta: dict[str, Any]
    card: dict[str, Any]
    encoding: str
    config: Any
    rows: list[dict[str, Any]]
    curve_path: Path
    eval_every: int
    eval_games: int
    eval_opponents: str
    collector: Any = None
    value_warmup: int = 0
    warmup_done: int = 0  # of value_warmup, the updates done before this session (a resumed run)


def _monitor(s: _Session) -> Any:
    """The SB3 callback of a training session: a progress bar, one curve row per update (win rate,
    score, wrong solves, length, speed, opponent shares; every ``eval_every`` updates the
    evaluation's figures, :mod:`pi_env.rl.evaluation`), snapshots of the policy into the opponent
    pools, and checkpoints (model, policy, curve) every ``checkpoint_every`` steps; it stops the
    session after ``max_minutes``."""
    from stable_baselines3.common.callbacks import BaseCallback
    from tqdm import tqdm

    from pi_env.rl.pool import SnapshotOpponent

    class Monitor(BaseCallback):
        """Progress bar, curve rows, snapshots and checkpoints of one training session."""

        def _on_training_start(self) -> None:
            self.t0 = time.perf_counter()
            self.eps: list[dict[str, Any]] = []
            self.updates = 0
            self.last_ckpt = s.start
            self.seconds0 = float(s.rows[-1]["seconds"]) if s.rows else 0.0
            self.steps0 = self.num_timesteps
            self.warm_left = max(s.value_warmup - s.warmup_done, 0)  # the first updates train the value head only
            self.warm_done = s.warmup_done  # counted once the update's training is over (_warm_trained)
            self.warm_pending = False
            if self.warm_left:
                _freeze_all_but_value(self.model, True)
            per_update = s.num_envs * int(s.settings["n_steps"])
            planned = s.start + -(-(s.timesteps - s.start) // per_update) * per_update
            timed = s.timesteps >= UNTIL_TIME_RUNS_OUT
            self.bar = tqdm(total=None if timed else planned, initial=s.start, unit="step", unit_scale=True,
                            file=sys.stderr, disable=not s.progress, dynamic_ncols=True,
                            desc=f"training for {s.max_minutes:g} min" if timed else f"training to {planned:,} steps")

        def _on_training_end(self) -> None:
            self._warm_trained()
            self.bar.close()

        def _on_rollout_start(self) -> None:
            self._warm_trained()

        def _warm_trained(self) -> None:
            """The last rollout's value-head-only update has trained (the next rollout starts, or
            training ended without an interruption): count it."""
            if self.warm_pending:
                self.warm_done += 1
                self.warm_pending = False

        def _on_step(self) -> bool:
            self.bar.update(self.num_timesteps - self.bar.n)
            for info in self.locals["infos"]:
                if "episode" in info:
                    self.eps.append(info["episode"])
            return s.max_minutes is None or time.perf_counter() - self.t0 < 60.0 * s.max_minutes

        def _on_rollout_end(self) -> None:
            self.updates += 1
            if self.warm_left and self.updates <= self.warm_left:
                self.warm_pending = True  # this update trains the value head only
            elif self.warm_left and self.updates == self.warm_left + 1:
                _freeze_all_but_value(self.model, False)  # the first update after the warm-up trains everything
            eps, self.eps = self.eps, []
            now = time.perf_counter() - self.t0
            row: dict[str, Any] = {"timesteps": self.num_timesteps, "seconds": round(self.seconds0 + now, 1),
                                   "games": len(eps),
                                   "sps": round((self.num_timesteps - self.steps0) / max(now, 1e-9), 1)}
            if eps:
                row["win_rate"] = float(np.mean([e["win"] for e in eps]))
                row["score_mean"] = float(np.mean([e["score"] for e in eps]))
                row["wrong_mean"] = float(np.mean([e["wrong"] for e in eps]))
                row["length_mean"] = float(np.mean([e["l"] for e in eps]))
                for k in ("win_rate", "score_mean", "wrong_mean", "length_mean"):
                    self.logger.record(f"pi/{k}", row[k])
            if s.eval_every and self.updates % s.eval_every == 0:
                row.update(self.evaluate())
            for name, share in s.pools[0].share().items():
                row[f"pool_{name}"] = round(share, 4)
            self.logger.record("pi/sps", row["sps"])
            s.rows.append(row)
            if s.verbose:
                print(" ".join(f"{k}={v}" for k, v in row.items()), flush=True)
            if s.snapshot_weight > 0 and self.updates % s.snapshot_every == 0:
                net = _snapshot_net(self.model, s.meta)
                f = s.out / "pool" / f"step_{self.num_timesteps}.pt"
                export_policy(self.model, f, {**s.meta, "card": {**s.card, "snapshot": True}})
                for pool in s.pools:
                    pool.add(SnapshotOpponent(net, s.encoding, s.config, name="snapshot"))
                if s.collector is not None:  # the workers' pools too
                    s.collector.add_snapshot(self.model.policy.state_dict())
            if self.num_timesteps - self.last_ckpt >= s.checkpoint_every:
                self._checkpoint()

        def evaluate(self) -> dict[str, float]:
            """The current policy's evaluation (:func:`pi_env.rl.evaluation.evaluate`): the curve's
            ``eval_*`` columns, also sent to SB3's logger."""
            from pi_env.rl.evaluation import evaluate

            def choose(x: np.ndarray, mask: np.ndarray) -> np.ndarray:
                return self.model.predict(x, action_masks=mask, deterministic=True)[0]

            ev = evaluate(choose, s.config.num_players, s.eval_opponents, s.eval_games, encoding=s.encoding).row()
            for k, v in ev.items():
                self.logger.record(f"pi/{k}", v)
            return ev

        def final_evaluation(self) -> dict[str, Any]:
            """The evaluation at the end of the session, added to the curve's last row (unless that
            row was just evaluated), for the model card: games, opponents, seed and the figures
            (``{}`` when evaluation is off)."""
            from pi_env.rl.evaluation import EVAL_SEED

            if not s.eval_every:
                return {}
            last = s.rows[-1] if s.rows and s.rows[-1]["timesteps"] == self.num_timesteps else None
            if last is not None and "eval_win_rate" in last:
                ev = {k: v for k, v in last.items() if k.startswith("eval_")}
            else:
                ev = self.evaluate()
                if last is not None:
                    last.update(ev)
                else:
                    s.rows.append({"timesteps": self.num_timesteps,
                                   "seconds": s.rows[-1]["seconds"] if s.rows else 0.0, **ev})
            return {"games": s.eval_games, "opponents": s.eval_opponents, "seed": EVAL_SEED,
                    **{k[len("eval_"):]: v for k, v in ev.items()}}

        def _checkpoint(self) -> None:
            self.last_ckpt = self.num_timesteps
            _save_model(self.model, s.out / "checkpoints" / f"step_{self.num_timesteps}.zip")
            warm = {"value_warmup_done": self.warm_done} if s.value_warmup else {}  # what a resumed run continues
            export_policy(self.model, s.out / "checkpoints" / f"step_{self.num_timesteps}.pt",
                          {**s.meta, "card": {**s.card, "timesteps": self.num_timesteps, **warm}})
            _write_curve(s.rows, s.curve_path)

    return Monitor()


def _starting_network(init: str | None, value_warmup: int, imitate_teacher: str | None, imitate_opponents: str,
                      demos: str | None, resuming: bool, config: Any, encoding: str, trunk: Sequence[int],
                      hidden: Sequence[int]) -> dict[str, Any]:
    """Check how the network starts, before the run directory is touched: the ``init`` model
    (:func:`init_network`; returned, ``{}`` when there is none or a checkpoint is resumed; a model
    with a solve-timing head gets a one-line ``note:`` from :func:`_init_note` once the run
    directory is prepared, the head not being carried) or the
    imitation warm start's teacher, opponents and demonstration files.

    Raises:
        PIError: a negative ``value_warmup``; ``init`` together with ``imitate_teacher``; a bad
            model, teacher, opponent list or demonstration file.
    """
    if value_warmup < 0:
        raise PIError(f"--value-warmup must be at least 0, got {value_warmup}")
    if resuming:
        return {}
    if init is not None and imitate_teacher:
        raise PIError("--init and --imitate exclude each other (both start the network)")
    if imitate_teacher:
        from pi_env.rl.imitate import Teacher
        from pi_env.rl.pool import PoolOpponent

        Teacher(imitate_teacher, config, 1)
        PoolOpponent(parse_opponents(imitate_opponents), config)
        if demos:  # read and checked now: a bad file leaves no run directory behind
            load_demos(demos, encoding, config.num_players)
        return {}
    if init is None:
        return {}
    return init_network(init, config.num_players, encoding=encoding, trunk=trunk, hidden=hidden)


def _init_note(init: str | None, initial: dict[str, Any]) -> str:
    """The one-line ``note:`` when the ``init`` model carries a solve-timing head (not carried over;
    docs/reinforcement-learning.md), else ``""``; :func:`_prepare_out` says it once the run is past
    every refusal."""
    if not initial.get("head"):
        return ""
    return (f"note: --init {init}: the run starts from the model's network only; its solve-timing head is not "
            "carried over (fit one on the result with python -m pi_env.rl.solve_timing)")


def _check_start(out: Path, resume: bool, force: bool, task: str, P: int, encoding: str, trunk: Sequence[int],
                 hidden: Sequence[int], init: str | None, value_warmup: int,
                 init_temperature: float = 1.0) -> tuple[dict[str, Any], int]:
    """The checks of :func:`train` on ``out`` and the encoding (before anything is written), and on
    ``resume`` the saved ``run.json`` and the run's warm-up (``value_warmup`` 0: the run's own).

    Returns:
        ``(run.json's object or {}, value_warmup in force)``.

    Raises:
        PIError: as :func:`check_run_dir`, :func:`_check_temperature`, :func:`resume_settings` and
            :func:`pi_env.agents.learned.check_player_encoding` (an unknown or solo encoding).
    """
    from pi_env.agents.learned import check_player_encoding

    check_run_dir(out, resume, force)
    _check_temperature(init_temperature, init, resume)
    check_player_encoding(encoding, P)  # an unknown or solo encoding
    if not resume:
        return {}, value_warmup
    saved = resume_settings(out, {"task": task, "encoding": encoding, "trunk": list(trunk), "hidden": list(hidden),
                                  "init": init, "value_warmup": value_warmup or None,
                                  "init_temperature": None if init_temperature == 1.0 else init_temperature})
    return json.loads((out / "run.json").read_text()), value_warmup or int(saved.get("value_warmup") or 0)


def _warmup_done(ckpt: Path, value_warmup: int) -> int:
    """How many of the run's ``value_warmup`` updates had been done at checkpoint ``ckpt`` (the
    ``value_warmup_done`` of its policy file's card, written by every checkpoint of a run with a
    warm-up); a checkpoint written before that count was kept: all of them.

    Raises:
        PIError: the policy file cannot be read, or its ``value_warmup_done`` is not a whole number
            at least 0 (one line naming the file)."""
    import torch

    pt = ckpt.with_suffix(".pt")
    if not pt.exists():
        return value_warmup
    try:
        doc = torch.load(pt, weights_only=True)
    except Exception as exc:  # a truncated or foreign file: torch raises many kinds
        raise PIError(f"--resume: the checkpoint's policy file {str(pt)!r} is not readable "
                      f"({type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''})") from None
    card = doc.get("card", {}) if isinstance(doc, dict) else {}
    done = card.get("value_warmup_done", value_warmup) if isinstance(card, dict) else value_warmup
    if isinstance(done, bool) or not isinstance(done, int) or done < 0:
        raise PIError(f"--resume: {str(pt)!r}: card: value_warmup_done must be a whole number at least 0, "
                      f"got {done!r}")
    return min(done, value_warmup)


def _learn(model: Any, steps: int, monitor: Any, fresh: bool, env: Any, collector: Any) -> bool:
    """Run ``model.learn`` for ``steps`` environment steps with the ``monitor`` callback; close the env
    and the collector whatever happens. Returns whether Ctrl-C or SIGTERM stopped it (any other
    exception is raised)."""
    try:
        with terminate_as_interrupt():
            model.learn(total_timesteps=steps, callback=monitor, reset_num_timesteps=fresh)
    except BaseException as exc:  # Ctrl-C / SIGTERM (also when it surfaces inside a numba kernel)
        if not caused_by_interrupt(exc):
            raise
        if hasattr(monitor, "bar"):
            monitor.bar.close()
        return True
    finally:
        env.close()
        if collector is not None:
            collector.close()
    return False


def train(task: str, timesteps: int, out: "str | Path", *, seed: int = 0, num_envs: int = DEFAULT_NUM_ENVS,
          opponents: str = "gain:1", snapshot_weight: float = 0.0, snapshot_every: int = 20,
          max_snapshots: int = 8, reward: str = "win", encoding: str = "compact-v1",
          trunk: Sequence[int] = DEFAULT_TRUNK, hidden: Sequence[int] = DEFAULT_HIDDEN, threads: int = 1,
          checkpoint_every: int = 2_000_000, max_minutes: float | None = None, imitate_teacher: str | None = None,
          imitate_rows: int = 300_000, imitate_opponents: str = "gain:1", dagger_rounds: int = 0,
          dagger_beta: float = 0.3, imitate_workers: int = 1, imitate_epochs: int = 10, demos: str | None = None,
          eval_every: int = 25, eval_games: int = 256, eval_opponents: str = "heuristic",
          collect_workers: int = 0, use_ray: bool = True, ray_address: str | None = None,
          init: str | None = None, value_warmup: int = 0, init_temperature: float = 1.0, resume: bool = False,
          force: bool = False, progress: bool = True, verbose: bool = False, **ppo: Any) -> dict[str, Any]:
    """Train a policy with MaskablePPO into the run directory ``out`` (module docstring: what it
    writes); the command line ``python -m pi_env.rl.train`` (:func:`pi_env.rl.cli.train_main`)
    checks its options and calls this.

    Args:
        task: ``"2p"``, ``"3p"``, ``"4p"`` or ``"5p"`` (:data:`TASKS`). timesteps: environment steps in total over every
            session, rounded up to whole updates (``0`` with ``imitate_teacher`` or ``demos``: the warm start only).
        out: the run directory. seed: of the games, seats, opponents' draws and torch.
        num_envs, opponents (``"name:weight,..."``), snapshot_weight, snapshot_every, max_snapshots,
            reward (``"win"`` or ``"score"``), encoding, trunk, hidden, threads, checkpoint_every,
            max_minutes (``None``: no limit): the options of the same names (module docstring).
        imitate_teacher: warm start imitating this agent (``None``: none), shaped by ``imitate_rows``,
            ``imitate_opponents``, ``dagger_rounds``, ``dagger_beta``, ``imitate_workers``,
            ``imitate_epochs``, ``demos`` (:func:`warm_start`); ``demos`` without it: the files'
            label (:func:`demos_teacher`), recorded as ``imitate`` in ``run.json``.
        eval_every, eval_games, eval_opponents: evaluate the policy every ``eval_every`` updates
            (``0``: never) and at the end, in ``eval_games`` games against ``eval_opponents`` on every
            other seat, on games held apart from training (:mod:`pi_env.rl.evaluation`).
        collect_workers, use_ray, ray_address: ``K``: the experience is collected by ``K`` workers
            (module docstring), Ray actors on the cluster at ``ray_address`` (``None``: the one
            connected, else ``RAY_ADDRESS``, else a new local one) or, ``use_ray=False``, objects
            in this process (the same arrays); ``0`` (default): by this process's env.
        init: start from this model's network (:func:`init_network`; ``encoding``, ``trunk`` and
            ``hidden`` must be the model's); resuming, ``None`` or the run's own (:data:`START_SETTINGS`).
        value_warmup: the first updates of the run that train only the value head (resuming: ``0``
            or the run's own, ``0`` meaning the run's own; the updates its last checkpoint had not done,
            :func:`_warmup_done`).
        init_temperature: with ``init``, its logits divided by it at the start (:func:`_load_init`: above
            1, softer choices for PPO to sample, the same argmax); ``1.0`` without ``init``.
        resume, force: continue the run in ``out``; delete ``out`` and start again.
        progress, verbose: a progress bar; a line per update.
        **ppo: MaskablePPO's settings (default :data:`PPO_DEFAULTS`).

    Returns:
        The ``run.json`` object of the run after this session.

    Raises:
        PIError: the ``rl`` extra is missing, a bad option (unknown agent or encoding, missing
            demonstration file: checked before ``out`` is created), a run directory that exists
            without ``--resume`` / ``--force``; with ``resume``, another task, encoding, trunk or
            hidden widths than the saved run, or ``timesteps`` already reached; an ``init`` model
            of another player count or network, or with ``imitate_teacher``; a bad ``init_temperature``.
        TrainingInterrupted: Ctrl-C or SIGTERM; the run is saved at the step reached.
    """
    _sb3()
    from stable_baselines3.common.logger import configure

    from pi_env.engine import GameConfig
    from pi_env.rl.engine_env import SB3LearnerVecEnv
    from pi_env.rl.pool import PoolOpponent

    _check_options(task, reward, seed, eval_every, eval_opponents, collect_workers, num_envs)
    P = TASKS[task]
    out = Path(out)
    # everything that can be refused is checked before the run directory is created or changed
    saved_doc, value_warmup = _check_start(out, resume, force, task, P, encoding, trunk, hidden, init, value_warmup,
                                           init_temperature)
    if demos and not imitate_teacher and not resume:  # demonstrations alone: clone the agent that labelled them
        imitate_teacher = demos_teacher(demos)
    settings = {**PPO_DEFAULTS, **ppo}
    members = parse_opponents(opponents)
    config = GameConfig(num_players=P)
    meta = {"encoding": encoding, "num_players": P, "trunk": list(trunk), "hidden": list(hidden)}

    ckpts = _latest(out, "checkpoints", "zip") if resume else []
    initial = _starting_network(init, value_warmup, imitate_teacher, imitate_opponents, demos, bool(ckpts), config,
                                encoding, trunk, hidden)
    start = int(ckpts[-1].stem.split("_")[1]) if ckpts else 0
    if ckpts and start >= timesteps:
        raise PIError(f"--resume: the run in {str(out)!r} is already at step {start}; --timesteps is the total "
                      f"over every session ({timesteps} given): give a larger one")
    session_seed = seed + start
    pools = [PoolOpponent(members, config, snapshot_weight=snapshot_weight, max_snapshots=max_snapshots)
             for _ in range(P - 1)]
    settings_doc = {"task": task, "timesteps": int(timesteps), "seed": seed, "num_envs": num_envs,
                    "opponents": opponents, "snapshot_weight": snapshot_weight, "snapshot_every": snapshot_every,
                    "max_snapshots": max_snapshots, "reward": reward, "encoding": encoding, "trunk": list(trunk),
                    "hidden": list(hidden), "threads": threads, "checkpoint_every": checkpoint_every,
                    "imitate": imitate_teacher, "imitate_rows": imitate_rows, "imitate_opponents": imitate_opponents,
                    "dagger_rounds": dagger_rounds, "dagger_beta": dagger_beta, "imitate_workers": imitate_workers,
                    "imitate_epochs": imitate_epochs, "demos": demos, "max_minutes": max_minutes,
                    "eval_every": eval_every, "eval_games": eval_games, "eval_opponents": eval_opponents,
                    "init": init, "value_warmup": value_warmup, "init_temperature": init_temperature,
                    **{k: settings[k] for k in ("n_steps", "batch_size", "n_epochs", "learning_rate", "ent_coef",
                                                "gamma")}}
    started_ray = False
    if collect_workers and use_ray:  # a cluster that cannot be reached is refused before --out is touched
        from pi_env.rl.ray_collect import connect_ray

        started_ray = connect_ray(ray_address, collect_workers)
    _prepare_out(out, resume, force, _init_note(init, initial))  # the note after every refusal (Ray too)
    if not resume:  # the settings first: an interrupted run can be resumed with them
        write_text_atomic(out / "run.json", json.dumps({"settings": settings_doc, "sessions": []}, indent=2) + "\n")
    threads = _set_threads(threads)
    if resume:
        _restore_snapshots(out, pools, max_snapshots, encoding, config)
    env = SB3LearnerVecEnv(num_envs, P, pools, encoding=encoding, seed=session_seed, parallel=threads > 1,
                           reward=reward)
    model = _model(env, ckpts[-1] if ckpts else None, trunk, hidden, settings, seed, session_seed)
    if initial:
        _load_init(model, initial["state_dict"], init_temperature)
    collector = (_collect_with_workers(model, collect_workers, session_seed, use_ray, ray_address, pools, settings_doc)
                 if collect_workers else None)
    if collector is not None:
        collector._started_ray = started_ray  # Ray was joined above: closing the collector leaves it
    warm: dict[str, Any] = {}
    if imitate_teacher and not ckpts:
        warm = _warm_start_session(env, out, lambda: warm_start(
            model, P, imitate_teacher, imitate_rows, encoding=encoding, out=out,
            opponents=parse_opponents(imitate_opponents), dagger_rounds=dagger_rounds, dagger_beta=dagger_beta,
            workers=imitate_workers, epochs=imitate_epochs, seed=seed, gamma=float(settings["gamma"]),
            reward=reward, meta=meta, demos=demos, verbose=verbose))
    logs = out / "logs" / f"session_{start}"  # SB3's logger: progress.csv and TensorBoard events
    model.set_logger(configure(str(logs), ["csv", "tensorboard"] if _has_tensorboard() else ["csv"]))

    curve_path = out / "curve.csv"
    rows: list[dict[str, Any]] = _read_curve(curve_path) if resume else []
    rows = [r for r in rows if int(r["timesteps"]) <= start]
    card = {"task": task, "encoding": encoding, "seed": seed, "opponents": opponents, "snapshot_weight": snapshot_weight,
            **({"warm_start": warm} if warm else {}),
            **({"init": {"model": init, "value_warmup": value_warmup,
                        **({"temperature": init_temperature} if init_temperature != 1.0 else {})}} if init else {}), "reward": reward, "num_envs": num_envs, "ppo": settings, "trunk": list(trunk), "hidden": list(hidden)}

    monitor = _monitor(_Session(
        out=out, start=start, timesteps=timesteps, num_envs=num_envs, settings=settings, progress=progress,
        max_minutes=max_minutes, verbose=verbose, pools=pools, snapshot_weight=snapshot_weight,
        snapshot_every=snapshot_every, checkpoint_every=checkpoint_every, meta=meta, card=card,
        encoding=encoding, config=config, rows=rows, curve_path=curve_path, eval_every=eval_every,
        eval_games=eval_games, eval_opponents=eval_opponents, collector=collector, value_warmup=value_warmup,
        warmup_done=_warmup_done(ckpts[-1], value_warmup) if ckpts and value_warmup else 0))
    t0 = time.perf_counter()
    interrupted = _learn(model, max(timesteps - start, 0), monitor, not ckpts, env, collector)
    with signals_held() as held:  # a (second) Ctrl-C cannot break the saving; one that came is honoured after
        info = _finish(model, monitor, out, start, t0, rows, card, warm, meta, curve_path, saved_doc,
                       settings_doc, interrupted, f"MaskablePPO, {task} ({opponents}; snapshots {snapshot_weight})",
                       {"collect_workers": collect_workers, "ray": use_ray} if collect_workers else {})
    if interrupted or held:  # the files are complete either way
        raise TrainingInterrupted(out, info["sessions"][-1]["timesteps"])
    return info


def _check_temperature(temperature: float, init: str | None, resume: bool) -> None:
    """:func:`train`'s check of ``init_temperature``.

    Raises:
        PIError: not a finite number above 0, or other than 1 without ``init`` (a new run)."""
    if isinstance(temperature, bool) or not isinstance(temperature, (int, float)) or not 0 < temperature < math.inf:
        raise PIError(f"--init-temperature must be a finite number above 0, got {temperature!r}")
    if temperature != 1.0 and init is None and not resume:
        raise PIError("--init-temperature needs --init (it softens the starting model's choices)")


def _check_options(task: str, reward: str, seed: int, eval_every: int, eval_opponents: str, collect_workers: int = 0,
                   num_envs: int = 1) -> None:
    """:func:`train`'s own checks of the options it cannot leave to the libraries.

    Raises:
        PIError: an unknown task or reward, a seed outside ``0..MAX_SEED``, collection workers that
            do not divide the games; UnknownNameError: an
            unknown evaluation opponent (when evaluating)."""
    from pi_env.engine import GameConfig
    from pi_env.rl.engine_env import REWARDS
    from pi_env.rl.pool import batch_opponent

    if task not in TASKS:
        raise PIError(f"task must be one of {', '.join(TASKS)}, got {task!r}")
    if reward not in REWARDS:
        raise PIError(f"--reward must be one of {', '.join(map(repr, REWARDS))}, got {reward!r}")
    if not 0 <= seed <= MAX_SEED:
        raise PIError(f"--seed must be 0..{MAX_SEED} (the evaluation games' seeds lie above), got {seed}")
    if collect_workers < 0 or (collect_workers and num_envs % collect_workers):
        raise PIError(f"--ray-actors must be at least 1 and divide --num-envs ({num_envs}), got {collect_workers}")
    if eval_every:
        batch_opponent(eval_opponents, GameConfig(num_players=TASKS[task]))


def _model(env: Any, checkpoint: "Path | None", trunk: Sequence[int], hidden: Sequence[int],
           settings: dict[str, Any], seed: int, session_seed: int) -> Any:
    """The MaskablePPO model of a session: loaded from ``checkpoint`` (re-seeded with
    ``session_seed``), else new, its solve logit's bias :data:`INITIAL_SOLVE_BIAS`."""
    torch, MaskablePPO, _ = _sb3()
    if checkpoint is not None:
        model = _load_checkpoint(MaskablePPO, checkpoint, env=env, device="cpu", **settings)
        model.set_random_seed(session_seed)
        return model
    model = MaskablePPO("MlpPolicy", env, policy_kwargs=policy_kwargs(trunk, hidden), seed=seed, device="cpu", verbose=0,
                        **settings)
    with torch.no_grad():
        model.policy.action_net.bias[SOLVE_ACTION] = INITIAL_SOLVE_BIAS
    return model


def _set_threads(threads: int) -> int:
    """numba's and torch's threads (at most numba's maximum); returns the number set."""
    import numba
    import torch

    threads = max(1, min(int(threads), numba.config.NUMBA_NUM_THREADS))
    numba.set_num_threads(threads)
    torch.set_num_threads(threads)
    torch.distributions.Distribution.set_default_validate_args(False)
    return threads


def _restore_snapshots(out: Path, pools: Sequence[Any], max_snapshots: int, encoding: str, config: Any) -> None:
    """A resumed run's last ``max_snapshots`` snapshots (``pool/step_N.pt``) back into ``pools``."""
    from pi_env.agents.learned import load_model
    from pi_env.rl.pool import SnapshotOpponent

    for f in _latest(out, "pool", "pt")[-max_snapshots:]:
        net, _ = load_model(str(f))
        for pool in pools:
            pool.add(SnapshotOpponent(net, encoding, config, name="snapshot"))


def _collect_with_workers(model: Any, workers: int, seed: int, use_ray: bool, address: str | None,
                          pools: Sequence[Any], settings: dict[str, Any]) -> Any:
    """A :class:`pi_env.rl.ray_collect.Collector` of ``workers`` x ``num_envs / workers`` games
    seeded ``seed`` for a run of ``settings`` (:data:`~pi_env.rl.settings.SETTINGS_SCHEMA`), its
    pools holding the snapshots of ``pools`` (a resumed run's), and ``model`` turned into a
    MaskablePPO whose ``collect_rollouts`` takes the collector's experience
    (:func:`pi_env.rl.ray_collect.fill_rollout_buffer`; the collector is left out of saved models)."""
    from pi_env.rl.ray_collect import CollectSpec, Collector, fill_rollout_buffer

    spec = CollectSpec(num_players=TASKS[settings["task"]], num_envs=settings["num_envs"] // workers,
                       opponents=settings["opponents"], snapshot_weight=settings["snapshot_weight"],
                       max_snapshots=settings["max_snapshots"], encoding=settings["encoding"],
                       reward=settings["reward"], trunk=tuple(settings["trunk"]), hidden=tuple(settings["hidden"]),
                       gamma=float(settings["gamma"]))
    collector = Collector(spec, workers, seed, use_ray=use_ray, address=address)
    for snapshot in pools[0].snapshots if pools else []:
        collector.add_snapshot(snapshot.net.state_dict())

    class CollectedPPO(type(model)):  # type: ignore[misc]
        """MaskablePPO with its experience from the workers."""

        def collect_rollouts(self, env: Any, callback: Any, rollout_buffer: Any, n_rollout_steps: int,
                             use_masking: bool = True) -> bool:
            return fill_rollout_buffer(self, self._collector, callback, rollout_buffer, n_rollout_steps, use_masking)

        def _excluded_save_params(self) -> list[str]:
            return [*super()._excluded_save_params(), "_collector"]

    model.__class__ = CollectedPPO
    model._collector = collector
    return collector


def _warm_start_session(env: Any, out: Path, run: Any) -> dict[str, Any]:
    """``run()`` (the warm start) with its seconds added; Ctrl-C or SIGTERM meanwhile closes ``env``
    and raises :class:`TrainingInterrupted` (no step reached)."""
    t_im = time.perf_counter()
    try:
        with terminate_as_interrupt():
            warm = run()
    except BaseException as exc:
        env.close()
        if caused_by_interrupt(exc):
            raise TrainingInterrupted(out, None) from None
        raise
    warm["imitation_seconds"] = round(time.perf_counter() - t_im, 1)
    return warm


def _save_model(model: Any, path: Path) -> None:
    """``model.save`` to ``path`` atomically (a run interrupted while saving keeps the old file)."""
    import io

    buf = io.BytesIO()
    model.save(buf)
    write_bytes_atomic(path, buf.getvalue())


def _finish(model: Any, monitor: Any, out: Path, start: int, t0: float, rows: list[dict[str, Any]],
            card: dict[str, Any], warm: dict[str, Any], meta: dict[str, Any], curve_path: Path,
            saved_doc: dict[str, Any], settings_doc: dict[str, Any], interrupted: bool, title: str,
            session_extra: "dict[str, Any] | None" = None) -> dict[str, Any]:
    """Write the session's files: last checkpoint, policy, model, curve, ``run.json`` (returned);
    ``session_extra`` goes into the session's entry (how its experience was collected)."""
    import torch

    seconds = time.perf_counter() - t0
    steps = int(model.num_timesteps)
    if not hasattr(monitor, "t0"):  # interrupted before training started
        monitor.init_callback(model)
    monitor.num_timesteps = steps
    if not interrupted and steps > start:
        evaluation = monitor.final_evaluation()
        if evaluation:
            card["evaluation"] = evaluation
    monitor._checkpoint()
    total_seconds = float(rows[-1]["seconds"]) if rows else seconds
    if rows and hasattr(monitor, "seconds0"):  # this session's share of the curve's clock: the sessions'
        seconds = total_seconds - monitor.seconds0  # seconds add up to the top-level "seconds"
    card.update(timesteps=steps, seconds=round(total_seconds, 1), torch=torch.__version__)
    if steps == 0 and warm:  # imitation only: the policy is the last round's clone, card and all
        last = out / "imitation" / f"round_{len(warm['rounds']) - 1}.pt"
        write_bytes_atomic(out / "policy.pt", last.read_bytes())
    else:
        export_policy(model, out / "policy.pt", {**meta, "card": card})
    _save_model(model, out / "model.zip")
    _write_curve(rows, curve_path)
    plot_curve(rows, out / "curve.png", title)
    session = {"started_at_step": start, "timesteps": steps, "seconds": round(seconds, 1),
               "sps": round((steps - start) / max(seconds, 1e-9), 1), **({"interrupted": True} if interrupted else {}),
               **(session_extra or {})}
    if settings_doc.get("value_warmup") and hasattr(monitor, "warm_done"):  # how far the warm-up got
        session["value_warmup_done"] = monitor.warm_done
    if saved_doc:  # resumed: the original settings and card stay; what this session changed is appended
        saved = saved_doc.get("settings") or {k: v for k, v in settings_doc.items() if k not in ("timesteps",)}
        changed = {k: v for k, v in settings_doc.items() if saved.get(k, DEFAULTS.get(k)) != v}
        # the top-level card: the settings in force in this session (the imitation card of the start stays)
        info = {**saved_doc, **card,
                "settings": {**DEFAULTS, **saved}, "sessions": saved_doc.get("sessions", []) + [session],
                "resumes": saved_doc.get("resumes", []) + [{"at_step": start, "changed": changed}]}
    else:
        info = {**card, "settings": settings_doc, "sessions": [session]}
    write_text_atomic(out / "run.json", json.dumps(info, indent=2) + "\n")
    return info


def load_demos(demos: str, encoding: str, num_players: int) -> tuple[list[str], list[Any]]:
    """The ``--demos`` files (comma-separated), read and checked against the run's encoding.

    Returns:
        The file names and their :class:`~pi_env.rl.imitate.Demonstrations`, in order.

    Raises:
        PIError: a missing, empty, truncated or corrupt file, or rows of another width (another
            player count or encoding): one line naming the file.
    """
    from pi_env.agents.learned import encoding_size
    from pi_env.rl.imitate import Demonstrations

    width = encoding_size(encoding, num_players)
    files, loaded = [], []
    for name in _demo_files(demos):
        files.append(name)
        d = Demonstrations.load(name)
        if d.x.ndim != 2 or d.x.shape[1] != width:
            raise PIError(f"--demos: {name!r} holds rows of {d.x.shape[-1]} inputs, the policy takes {width} "
                          f"({encoding}, {num_players} players)")
        loaded.append(d)
    return files, loaded


def _demo_files(demos: str) -> Iterator[str]:
    """The ``--demos`` file names (comma-separated, blanks skipped), each checked to exist as it is
    reached (the one listing of :func:`load_demos` and :func:`demos_teacher`).

    Raises:
        PIError: a name that is not a file (``--demos: no file 'x.npz'``)."""
    for name in (f.strip() for f in demos.split(",") if f.strip()):
        if not Path(name).is_file():
            raise PIError(f"--demos: no file {name!r}")
        yield name


def demos_teacher(demos: str) -> str:
    """The teacher of a warm start from ``demos`` files (comma-separated) given without one
    (``--demos`` without ``--imitate``): the agent whose choices label their rows, the ``label`` of
    each file's :attr:`~pi_env.rl.imitate.Demonstrations.info` (``python -m pi_env.rl.imitate``
    writes it: its ``--label``, else its ``--teacher``). Only the files' ``info`` is read.

    Raises:
        PIError: no file named, a missing or unreadable file (as :func:`load_demos`), or files that do
            not name one label (a file without one, or two different labels): one line naming every
            file and its label, asking for ``--imitate NAME``.
    """
    from pi_env.rl.imitate import Demonstrations

    labels: dict[str, str | None] = {}
    for name in _demo_files(demos):
        label = Demonstrations.load_info(name).get("label")
        labels[name] = label if isinstance(label, str) and label else None
    if not labels:
        raise PIError(f"--demos: no file named in {demos!r}")
    found = set(labels.values())
    if len(found) == 1 and None not in found:
        return str(found.pop())
    listing = ", ".join(f"{name!r}: {'no label' if label is None else label}" for name, label in labels.items())
    raise PIError(f"--demos: the files are not labelled by one agent ({listing}); name the teacher with "
                  "--imitate NAME")


def warm_start(model: Any, num_players: int, teacher: str, rows: int, *, encoding: str, out: Path,
               opponents: Sequence[tuple[str, float]] = (("gain", 1.0),), dagger_rounds: int = 0,
               dagger_beta: float = 0.3, workers: int = 1, epochs: int = 10, num_envs: int = 256, seed: int = 0,
               gamma: float = 0.995, reward: str = "win", meta: dict[str, Any] | None = None,
               demos: str | None = None, verbose: bool = False) -> dict[str, Any]:
    """Warm start by imitation (:mod:`pi_env.rl.imitate`) before PPO: ``rows`` rows of the teacher's
    own play (behaviour cloning), then ``dagger_rounds`` rounds that each add ``rows`` rows of games
    where the current policy plays (the teacher's action with probability ``dagger_beta``) and the
    teacher labels every position; after every round the policy and value heads are fitted to all
    rows so far. ``demos``: :meth:`~pi_env.rl.imitate.Demonstrations.save` files (comma-separated,
    concatenated) to start from instead of the first collection (``python -m pi_env.rl.imitate``; how
    each file was made, its :attr:`~pi_env.rl.imitate.Demonstrations.info`, goes into the cards as
    ``demos``). The policy of every round is written to
    ``out/imitation/round_K.pt`` (its card: the round, teacher, epochs, rows so far as ``timesteps``, seconds
    of this warm start so far, fit statistics). Returns the statistics of every round."""
    from pi_env.rl.imitate import Demonstrations, collect_parallel, fit

    folder = out / "imitation"
    folder.mkdir(parents=True, exist_ok=True)
    info: dict[str, Any] = {"imitation_teacher": teacher, "imitation_opponents": [list(o) for o in opponents],
                            "dagger_rounds": dagger_rounds, "dagger_beta": dagger_beta, "rounds": []}
    common = dict(opponents=list(opponents), encoding=encoding, num_envs=num_envs, gamma=gamma, reward=reward)
    all_demos: list[Any] = []
    t_start = time.perf_counter()
    policy_file: str | None = None
    for k in range(dagger_rounds + 1):
        t0 = time.perf_counter()
        if k == 0 and demos:
            files, loaded = load_demos(demos, encoding, num_players)
            info["demos"] = [{"file": Path(f).name, "rows": len(d), **d.info} for f, d in zip(files, loaded)]
            part = Demonstrations.concat(loaded)
        else:
            part = collect_parallel(num_players, teacher, rows, workers=workers, seed=seed + 7919 * (k + 1),
                                    policy=policy_file if k else None, beta=1.0 if k == 0 else dagger_beta,
                                    progress=verbose, **common)
        t1 = time.perf_counter()
        all_demos.append(part)
        stats = fit(model.policy, Demonstrations.concat(all_demos), epochs=epochs, seed=seed + k, verbose=verbose)
        policy_file = str(folder / f"round_{k}.pt")
        rows_so_far = sum(len(d) for d in all_demos)
        export_policy(model, policy_file, {**(meta or {}), "card": {
            "imitation_round": k, "teacher": teacher, **({"demos": info["demos"]} if "demos" in info else {}),
            "dagger_beta": dagger_beta, "epochs": epochs, "timesteps": rows_so_far,
            "seconds": round(time.perf_counter() - t_start, 1), **stats}})
        row = {"round": k, "rows": len(part), "collect_seconds": round(t1 - t0, 1),
               "fit_seconds": round(time.perf_counter() - t1, 1), **stats}
        info["rounds"].append(row)
        if verbose:
            print(row, flush=True)
    return info


def _has_tensorboard() -> bool:
    try:
        import tensorboard  # noqa: F401
    except ImportError:
        return False
    return True


def _read_curve(path: Path) -> list[dict[str, Any]]:
    if not path.is_file():
        return []
    with open(path, newline="") as f:
        return [{k: _curve_value(v) for k, v in r.items()} for r in csv.DictReader(f)]


def _curve_value(text: "str | None") -> "int | float | None":
    """A ``curve.csv`` field as written: an integer column stays an integer (``4096``, not ``4096.0``)
    when a resume rewrites the earlier rows; an empty field is None."""
    if text in ("", None):
        return None
    try:
        return int(text)  # type: ignore[arg-type]
    except ValueError:
        return float(text)  # type: ignore[arg-type]


def _write_curve(rows: Sequence[dict[str, Any]], path: Path) -> None:
    write_text_atomic(path, csv_text(rows, list(dict.fromkeys(k for r in rows for k in r))))


def plot_curve(rows: Sequence[dict[str, Any]], path: "str | Path", title: str) -> None:
    """The learning curves as a PNG: above, the win rate in training games and in the evaluation
    games (:mod:`pi_env.rl.evaluation`) with the mean final score; below, wrong solves per game in
    both (a policy that gambles shows there)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    def series(key: str) -> tuple[list[float], list[float]]:
        pts = [r for r in rows if r.get(key) is not None]
        return [float(r["timesteps"]) for r in pts], [float(r[key]) for r in pts]

    fig, (ax, low) = plt.subplots(2, 1, figsize=(7, 6), sharex=True, height_ratios=(3, 2))
    ax.plot(*series("win_rate"), color="C0", marker="o", markersize=3, label="win rate, training games")
    ax.plot(*series("eval_win_rate"), color="C2", marker="s", markersize=4, label="win rate, evaluation games")
    ax.set_ylabel("win rate")
    ax.set_ylim(0, 1.02)
    ax.legend(loc="upper left", fontsize=8)
    ax2 = ax.twinx()
    ax2.plot(*series("score_mean"), color="C1", marker="o", markersize=3)
    ax2.set_ylabel("learner's final score (mean, training)", color="C1")
    low.plot(*series("wrong_mean"), color="C3", marker="o", markersize=3, label="training games")
    low.plot(*series("eval_wrong_mean"), color="C4", marker="s", markersize=4, label="evaluation games")
    low.set_ylabel("wrong solves per game")
    low.set_ylim(bottom=0)
    low.legend(loc="upper right", fontsize=8)
    low.set_xlabel("environment steps")
    ax.set_title(title, fontsize=9)
    for a in (ax, low):
        a.grid(alpha=0.3)
    fig.tight_layout()
    write_figure_atomic(path, fig, dpi=110)
    plt.close(fig)
