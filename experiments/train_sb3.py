"""Train sb3-contrib's MaskablePPO on P.I.

    python -m pi_env.experiments.train_sb3 solo [--timesteps N] [--num-envs B] [--seed S] [--out DIR]
                                         [--eval-positions N] [--eval-seed S] [--legal-mask]
    python -m pi_env.experiments.train_sb3 2p   [--timesteps N] [--num-envs B] [--seed S] [--out DIR]
                                         [--opponent random] [--consistent]

Needs the ``rl`` extra (torch, stable-baselines3, sb3-contrib; docs/reinforcement-learning.md
for the CPU build of torch); without it the script says how to install it and exits with status 2.

* ``solo``: Solo Time Attack (docs/rules.md §8) on :class:`pi_env.rl.sb3_envs.SoloSB3VecEnv`
  (``--num-envs`` games per engine call, open mode, 5 investigators, cut off after 200 actions;
  reward −1 per action). After training, the policy (masked argmax) plays ``--eval-positions``
  seeded positions (position ``i`` = the solo game of seed ``eval_seed + i``, disjoint from the
  training games' seeds), as do ``random`` and ``greedy`` through
  :func:`pi_env.experiments.strategy_benchmark.play_positions` on the same positions; the table is
  printed and written to ``solo_eval.csv``.
* ``2p``: 2-player standard games (second edition) against a fixed ``--opponent`` on
  :class:`pi_env.rl.sb3_envs.SelfPlaySB3VecEnv` (the learner's seat rotates every game; reward:
  its score change). ``--consistent``: the solo-style input and mask
  (:func:`pi_env.agents.sb3_policy.standard_policy_input`: solver features, only the solves the learner's
  own information allows). Measure the result with a tournament:
  ``pi-env tournament --agents sb3:DIR/policy.zip,random --players 2 --games 1000``.

The networks (:mod:`pi_env.agents._sb3_nets`), one torch thread (``torch.set_num_threads(1)``): a shared
``Linear(obs, 128) + ReLU`` input layer, then a 128-unit hidden layer for the policy and one for the
value, and a factorized action head (solve logits = suspect + evidence + location terms). Solo: the
observation also carries the solver features and the allowed-solve flags
(:func:`pi_env.rl.sb3_envs.solo_policy_input`) and the head is
:class:`pi_env.agents._sb3_nets.NormalizedSolveHead` (first whether to name a case, then which allowed
one). ``--legal-mask`` drops the own-information filter from the solo mask (then only failed solves
are masked).

Files in ``--out`` (default ``results/rl/solo`` or ``results/rl/2p``): ``model.zip`` (the full
MaskablePPO model, to continue training), ``policy.zip`` (the policy alone, what ``sb3:PATH``
agents load; a few MB), ``curve.csv`` (one line per rollout: timesteps, seconds, episodes finished,
mean return, mean length, and the solve rate or win rate), ``curve.png`` (the learning curve) and
``train.json`` (settings, environment steps per second over the whole run and during collection).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from pi_env.core.files import write_figure_atomic, write_text_atomic
from pi_env.core.text import csv_text

__all__ = ["TASKS", "train", "evaluate_solo", "plot_curve", "main", "PPO_DEFAULTS"]

TASKS = ("solo", "2p")
PPO_DEFAULTS: dict[str, Any] = {"n_steps": 128, "batch_size": 1024, "n_epochs": 4, "learning_rate": 3e-4,
                                "gamma": 0.99, "gae_lambda": 0.95, "clip_range": 0.2, "ent_coef": 0.003,
                                "vf_coef": 0.5, "max_grad_norm": 0.5}
"""MaskablePPO settings used unless overridden (``--n-steps``, ``--ent-coef``...)."""
HIDDEN = 128


def _make_env(task: str, num_envs: int, seed: int, opponent: str, max_actions: int, consistent: bool):
    from pi_env.rl.sb3_envs import SelfPlaySB3VecEnv, SoloSB3VecEnv

    if task == "solo":
        return SoloSB3VecEnv(num_envs, seed=seed, max_actions=max_actions, consistent=consistent)
    return SelfPlaySB3VecEnv(num_envs, 2, opponents=[opponent], seed=seed, consistent=consistent)


def _curve_callback(rows: list[dict[str, Any]], task: str, verbose: bool):
    """An SB3 callback appending one learning-curve row per rollout to ``rows``."""
    from stable_baselines3.common.callbacks import BaseCallback

    class Curve(BaseCallback):
        def _on_training_start(self) -> None:
            self.t0 = time.perf_counter()
            self.collect = 0.0
            self.episodes: list[dict[str, Any]] = []

        def _on_rollout_start(self) -> None:
            self.r0 = time.perf_counter()

        def _on_step(self) -> bool:
            self.episodes.extend(i for i in self.locals["infos"] if "episode" in i)
            return True

        def _on_rollout_end(self) -> None:
            self.collect += time.perf_counter() - self.r0
            eps, self.episodes = self.episodes, []
            row: dict[str, Any] = {"timesteps": self.num_timesteps,
                                   "seconds": round(time.perf_counter() - self.t0, 2),
                                   "collect_seconds": round(self.collect, 2), "episodes": len(eps)}
            if eps:
                row["return_mean"] = float(np.mean([e["episode"]["r"] for e in eps]))
                row["length_mean"] = float(np.mean([e["episode"]["l"] for e in eps]))
                key = "solved" if task == "solo" else "win"
                row[f"{key}_rate"] = float(np.mean([float(e[key]) for e in eps]))
            rows.append(row)
            if verbose:
                print(" ".join(f"{k}={v:.3f}" if isinstance(v, float) else f"{k}={v}" for k, v in row.items()),
                      flush=True)

    return Curve()


def train(task: str, timesteps: int, out: "str | Path", *, num_envs: int = 64, seed: int = 0,
          opponent: str = "random", max_actions: int = 200, consistent: bool | None = None,
          verbose: bool = True, **ppo: Any) -> dict[str, Any]:
    """Train MaskablePPO on ``task`` (``"solo"`` or ``"2p"``) for ``timesteps`` environment steps
    and write the files of the module docstring to ``out``. ``consistent`` (default: solo yes,
    2p no): the own-information solve mask, solver features and the normalized head.

    Returns:
        The ``train.json`` dict: settings, ``sps`` (environment steps per second over the whole
        run, updates included), ``collect_sps`` (during rollout collection only), ``seconds``.

    Raises:
        PIError: the ``rl`` extra is missing, an unknown task, or a bad option.
    """
    from pi_env.agents.sb3_policy import require_rl
    from pi_env.core.errors import PIError

    require_rl()
    if task not in TASKS:
        raise PIError(f"task must be one of {', '.join(TASKS)}, got {task!r}")
    import torch
    from sb3_contrib import MaskablePPO

    from pi_env.agents._sb3_nets import (FactorizedMaskablePolicy, NormalizedSolvePolicy, PassMaskExtractor,
                                  SharedInputExtractor)

    consistent = task == "solo" if consistent is None else bool(consistent)
    torch.set_num_threads(1)
    torch.distributions.Distribution.set_default_validate_args(False)  # masked logits are checked by sb3
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    settings = {**PPO_DEFAULTS, **ppo}
    env = _make_env(task, num_envs, seed, opponent, max_actions, consistent)
    if consistent:
        policy_class: Any = NormalizedSolvePolicy
        policy_kwargs = {"features_extractor_class": PassMaskExtractor,
                         "features_extractor_kwargs": {"hidden": HIDDEN},
                         "net_arch": {"pi": [], "vf": [HIDDEN]}}
    else:
        policy_class = FactorizedMaskablePolicy
        policy_kwargs = {"features_extractor_class": SharedInputExtractor,
                         "features_extractor_kwargs": {"features_dim": HIDDEN},
                         "net_arch": {"pi": [HIDDEN], "vf": [HIDDEN]}}
    model = MaskablePPO(policy_class, env, policy_kwargs=policy_kwargs, seed=seed, device="cpu", verbose=0,
                        **settings)
    rows: list[dict[str, Any]] = []
    t0 = time.perf_counter()
    model.learn(total_timesteps=timesteps, callback=_curve_callback(rows, task, verbose))
    seconds = time.perf_counter() - t0
    model.save(out / "model.zip")
    model.policy.save(str(out / "policy.zip"))
    _write_curve(rows, out / "curve.csv")
    plot_curve(rows, task, out / "curve.png", opponent)
    steps = int(model.num_timesteps)
    collect = rows[-1]["collect_seconds"] if rows else float("nan")
    info = {"task": task, "timesteps": steps, "num_envs": num_envs, "seed": seed,
            "opponent": opponent if task == "2p" else None, "max_actions": max_actions,
            "consistent_mask": consistent, "ppo": settings,
            "hidden": HIDDEN, "seconds": round(seconds, 1), "sps": round(steps / seconds, 1),
            "collect_sps": round(steps / collect, 1) if rows else None,
            "torch": torch.__version__}
    write_text_atomic(out / "train.json", json.dumps(info, indent=2) + "\n")
    env.close()
    return info


def _write_curve(rows: Sequence[dict[str, Any]], path: Path) -> None:
    write_text_atomic(path, csv_text(rows, list(dict.fromkeys(k for r in rows for k in r))))


def plot_curve(rows: Sequence[dict[str, Any]], task: str, path: "str | Path", opponent: str = "random") -> None:
    """The learning curve as a PNG: solo, mean actions per finished episode (and the solve rate);
    2p, the mean final score (and the win rate), against environment steps."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    pts = [r for r in rows if r.get("episodes")]
    x = [r["timesteps"] for r in pts]
    fig, ax = plt.subplots(figsize=(7, 4))
    if task == "solo":
        ax.plot(x, [r["length_mean"] for r in pts], color="C0")
        ax.set_ylabel("actions per finished episode (mean)", color="C0")
        key, label = "solved_rate", "solved within 200 actions"
        ax.set_title("MaskablePPO, Solo Time Attack")
    else:
        ax.plot(x, [r["return_mean"] for r in pts], color="C0")
        ax.set_ylabel("learner's final score (mean)", color="C0")
        key, label = "win_rate", "win rate"
        ax.set_title(f"MaskablePPO, 2 players vs {opponent}")
    ax2 = ax.twinx()
    ax2.plot(x, [r[key] for r in pts], color="C1")
    ax2.set_ylabel(label, color="C1")
    ax2.set_ylim(0, 1.02)
    ax.set_xlabel("environment steps (rollouts of the training run)")
    ax.grid(alpha=0.3)
    fig.tight_layout()
    write_figure_atomic(path, fig, dpi=110)
    plt.close(fig)


def evaluate_solo(policy: Any, positions: int, seed: int, *, max_actions: int = 200,
                  deterministic: bool = True, consistent: bool = True) -> list[dict[str, Any]]:
    """Play the solo games of seeds ``seed .. seed + positions − 1`` with ``policy`` (a
    ``MaskableActorCriticPolicy``), all in one batch, with the training mask
    (:func:`pi_env.rl.sb3_envs.solo_action_mask`); one row per position in the format of
    :func:`pi_env.experiments.strategy_benchmark.play_positions` (agent ``"maskable_ppo"``)."""
    from pi_env.rl.sb3_envs import solo_policy_input, solo_scale
    from pi_env.engine import solo

    config = solo.SoloConfig(max_actions=max_actions)
    state = solo.init(config, positions, seed=seed)
    scale = solo_scale(config)
    while not state.done.all():
        x, mask = solo_policy_input(solo.observe(state), solo.legal_action_mask(state), config.board, scale,
                                    consistent)
        actions, _ = policy.predict(x, deterministic=deterministic, action_masks=mask)
        solo.step_inplace(state, np.asarray(actions, dtype=np.int64), config)
    return [{"agent": "maskable_ppo", "position": i, "seed": seed + i, "solved": int(state.solved[i]),
             "actions": int(state.actions[i]), "investigators": int(state.investigators_used[i]),
             "wrong_solves": int(state.wrong_solves[i])} for i in range(positions)]


def _solo_report(policy: Any, positions: int, seed: int, max_actions: int, consistent: bool,
                 out: Path) -> list[str]:
    from pi_env.experiments.strategy_benchmark import COLUMNS, play_positions, summarize, table

    rows = evaluate_solo(policy, positions, seed, max_actions=max_actions, consistent=consistent)
    sampled = evaluate_solo(policy, positions, seed, max_actions=max_actions, deterministic=False,
                            consistent=consistent)
    for r in sampled:
        r["agent"] = "maskable_ppo_sample"
    rows += sampled
    for name in ("greedy", "random"):
        rows += play_positions(name, positions, seed, max_actions=max_actions)
    names = ["maskable_ppo", "maskable_ppo_sample", "greedy", "random"]
    write_text_atomic(out / "solo_positions.csv", csv_text(rows, COLUMNS))
    summary = summarize(rows, names)
    for e in summary:  # unsolved positions counted at the cut-off: a mean over all positions
        mine = [r["actions"] for r in rows if r["agent"] == e["agent"]]
        e["actions_mean_all"] = float(np.mean(mine))
    write_text_atomic(out / "solo_eval.csv", csv_text(summary, list(summary[0])))
    lines = table(summary)
    lines.append("mean actions over all positions (unsolved counted at the cut-off): " + ", ".join(
        f"{e['agent']} {e['actions_mean_all']:.2f}" for e in summary))
    return lines


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m pi_env.experiments.train_sb3",
                                description="Train MaskablePPO (sb3-contrib) on P.I.")
    p.add_argument("task", choices=TASKS, help="solo: Solo Time Attack; 2p: 2-player games vs --opponent")
    p.add_argument("--timesteps", type=int, default=None, help="environment steps (default: solo 1.5M, 2p 1M)")
    p.add_argument("--num-envs", type=int, default=64, help="games stepped together (default 64)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--out", default=None, help="output directory (default results/rl/TASK)")
    p.add_argument("--opponent", default="random", help="2p: the fixed opponent agent (default random)")
    p.add_argument("--max-actions", type=int, default=200, help="solo: cut-off (default 200)")
    p.add_argument("--legal-mask", action="store_true",
                   help="solo: mask only illegal and failed solves, not those the answers rule out")
    p.add_argument("--consistent", action="store_true",
                   help="2p: solver features and only the solves the learner's own information allows")
    p.add_argument("--eval-positions", type=int, default=200, help="solo: positions evaluated after training")
    p.add_argument("--eval-seed", type=int, default=1_000_000, help="solo: seed of the first evaluated position")
    p.add_argument("--n-steps", type=int, default=PPO_DEFAULTS["n_steps"], help="rollout steps per env")
    p.add_argument("--ent-coef", type=float, default=PPO_DEFAULTS["ent_coef"])
    p.add_argument("--learning-rate", type=float, default=PPO_DEFAULTS["learning_rate"])
    p.add_argument("--quiet", action="store_true", help="no line per rollout")
    return p


def main(argv: Sequence[str] | None = None) -> int:
    """Command line (module docstring). Returns the exit status; errors are one line, status 2."""
    from pi_env.agents.sb3_policy import require_rl
    from pi_env.core.errors import PIError

    parser = _parser()
    args = parser.parse_args(argv)
    try:
        require_rl()
    except PIError as exc:  # one line, no usage block: the command line itself was fine
        parser.exit(2, f"{parser.prog}: error: {exc}\n")
    for name in ("timesteps", "num_envs", "eval_positions", "n_steps"):
        value = getattr(args, name)
        if value is not None and value < 1:
            parser.error(f"--{name.replace('_', '-')} must be at least 1, got {value}")
    timesteps = args.timesteps or (1_500_000 if args.task == "solo" else 1_000_000)
    out = Path(args.out or f"results/rl/{args.task}")
    try:
        info = train(args.task, timesteps, out, num_envs=args.num_envs, seed=args.seed, opponent=args.opponent,
                     max_actions=args.max_actions,
                     consistent=not args.legal_mask if args.task == "solo" else args.consistent,
                     verbose=not args.quiet,
                     n_steps=args.n_steps,
                     ent_coef=args.ent_coef, learning_rate=args.learning_rate)
        print(f"trained {info['timesteps']} steps in {info['seconds']} s: {info['sps']} env steps/s "
              f"({info['collect_sps']} during collection); files in {out}")
        if args.task == "solo":
            from pi_env.agents.sb3_policy import load_policy

            for line in _solo_report(load_policy(str(out / "policy.zip")), args.eval_positions, args.eval_seed,
                                     args.max_actions, not args.legal_mask, out):
                print(line)
        else:
            print(f"measure it: pi-env tournament --agents sb3:{out / 'policy.zip'},{args.opponent} "
                  f"--players 2 --games 1000")
    except PIError as exc:
        parser.error(str(exc))
    return 0


if __name__ == "__main__":
    sys.exit(main())
