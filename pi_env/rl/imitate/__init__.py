"""Imitation warm start: behaviour cloning of a built-in agent, with DAgger rounds.

PPO from scratch has to discover that asking good questions and solving at the right time scores;
a policy cloned from a strong built-in agent starts as a player of the real game. This module
collects demonstrations and fits a policy to them:

* :func:`collect`: ``B`` games of :class:`pi_env.rl.engine_env.LearnerBatch` (one learner seat per
  game, opponents per game from a weighted list), where at every learner turn the **teacher** (a
  built-in agent: ``heuristic``, ``deducer``, ... played game by game from the learner seat's own
  observation, one agent object per game slot and game; or in batch: ``gain``, ``random``, and
  ``greedy`` at 2–5 players, :class:`Teacher`) is asked for its action. The row keeps the learner's encoding ``x``, its compact mask and the teacher's
  compact choice ``y`` (a query as it is, any solve as the solve choice 50). What is *played* is
  the teacher's action with probability ``beta`` and otherwise the current policy's (its masked
  argmax, as :class:`pi_env.agents.learned.LearnedAgent` plays): ``beta = 1`` is plain behaviour
  cloning, ``beta < 1`` is a DAgger round (Ross, Gordon & Bagnell 2011, "A reduction of imitation
  learning and structured prediction to no-regret online learning"): the teacher labels the states
  the learner itself reaches, which corrects the errors that compound along the learner's own
  games.
* ``label``: another agent **labels** the rows while the teacher plays (``--teacher greedy --label
  deducer-own``): at every learner turn the labeller (an agent by name, one object per game slot
  and game, as the teacher) is asked for its action on the same observation, and its compact
  choice is ``y``; the teacher's (or, with ``beta < 1``, the policy's) action is still the one
  played. The rows then cover the states one agent reaches and teach another agent's decisions
  there. The labeller's actions are never played, so its memory must not depend on them: an agent
  that remembered its own previous *choice* would remember a turn that did not happen. ``greedy``
  remembers only what it observed at the seat's previous turn (round, rotation, who had solved: to
  tell whether a seat solved earlier in this rotation), which happened whoever played, and it is
  asked at every learner turn, so ``--label greedy`` gives the labels greedy would give in those
  states; the batched form keeps the same memory per game slot (the same labels, tested). The
  stateless agents (``deducer``, ``deducer-own``, ``heuristic``) label the same way.
* Every row also gets a value target: the learner's outcome of its game (the share of first
  place, as tournaments count it, or the final score with ``reward="score"``) discounted by
  ``gamma`` per learner step still to come — what PPO's critic estimates — so that PPO starts with
  a fitted critic as well as a fitted policy. Only rows of finished games are kept.
* Rows are written in the learner's encoding as they are collected (``--encoding compact-v3``
  directly: nothing to convert afterwards); the file also records how they were made
  (:attr:`Demonstrations.info`: teacher, labeller, encoding, players, seed, opponents, beta), which
  :func:`pi_env.rl.train.warm_start` copies into the model's card.
* :func:`collect_parallel`: the same in ``workers`` processes (disjoint seeds), concatenated.
* :func:`fit`: cross-entropy of the policy's masked logits against ``y`` plus ``value_coef`` times
  the squared error of the value head, Adam, minibatches; returns the loss and the share of rows
  where the masked argmax equals the teacher's choice (on all rows and on a held-out tenth).

A teacher played game by game costs its decision time per row (the per-game ``greedy``: about
2 ms on an idle core, 3–8 ms per row measured with its opponents on the shared machine), so
collection runs in processes; ``gain``, ``random`` and ``greedy`` (2–5 players) are batched
(``greedy``: one numba call per step for all the games, :class:`pi_env.agents.greedy_batch.GreedyOpponent`,
the same rows as the per-game agent; ``benchmarks/imitation_speed.py`` measures both, docs/results.md). From the command line (:func:`pi_env.rl.cli.imitate_main`; one process; run several with different
seeds and pass the files to ``python -m pi_env.rl.train --demos A.npz,B.npz``)::

    python -m pi_env.rl.imitate 2p --teacher greedy --rows 25000 --seed 101 \
        --opponents gain:0.75,heuristic:0.25 --num-envs 128 --out results/rl/demos/greedy_0.npz

and with a labeller other than the player (the 4-player model's rows, docs/results.md, "learned:4p")::

    python -m pi_env.rl.imitate 4p --teacher greedy --label deducer-own --rows 2000 --seed 4101 \
        --encoding compact-v3 --opponents heuristic:1 --num-envs 32 --out demos/4p/gl_4101.npz
"""

from __future__ import annotations

import json
import time
import zipfile
import zlib
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

import numpy as np

from pi_env.core.constants import SOLVE_BASE
from pi_env.core.errors import PIError

__all__ = ["BATCH_TEACHERS", "Demonstrations", "Teacher", "collect", "collect_parallel", "fit", "minibatch_epochs", "main"]


@dataclass
class Demonstrations:
    """Rows of teacher play (module docstring).

    Attributes:
        x: ``float32[N, n]`` the learner's encodings.
        mask: ``bool[N, 51]`` compact masks.
        y: ``int64[N]`` the teacher's compact choices.
        value: ``float32[N]`` discounted outcomes (module docstring).
        played_teacher: ``bool[N]`` whether the teacher's action was the one played.
        info: how the rows were made (plain values: ``teacher``, ``label``, ``encoding``,
            ``num_players``, ``seed``, ``opponents``, ``beta``; empty for files written before
            it existed); :meth:`concat` of parts with different ``info`` keeps them all as
            ``{"parts": [...]}``.
    """

    x: np.ndarray
    mask: np.ndarray
    y: np.ndarray
    value: np.ndarray
    played_teacher: np.ndarray
    info: dict[str, Any] = field(default_factory=dict)

    def __len__(self) -> int:
        return int(self.y.shape[0])

    @staticmethod
    def concat(parts: Sequence["Demonstrations"]) -> "Demonstrations":
        """All rows of ``parts`` in order."""
        infos = [p.info for p in parts]
        info = infos[0] if infos and all(i == infos[0] for i in infos) else {"parts": infos}
        return Demonstrations(*(np.concatenate([getattr(p, k) for p in parts]) for k in
                                ("x", "mask", "y", "value", "played_teacher")), info=info)

    def save(self, path: str) -> None:
        """Write the rows (and :attr:`info` as JSON) as a compressed ``.npz``."""
        np.savez_compressed(path, x=self.x, mask=self.mask, y=self.y, value=self.value,
                            played_teacher=self.played_teacher, info=np.array(json.dumps(self.info)))

    @staticmethod
    def load_info(path: str) -> dict[str, Any]:
        """Only the :attr:`info` of a file written by :meth:`save` (its rows are not read): ``{}`` for
        a file written before ``info`` existed. Raises PIError as :meth:`load` (one line naming the
        file) for a file that is not readable."""
        info = Demonstrations._read(path, _info_of)
        return info if isinstance(info, dict) else {}

    @staticmethod
    def load(path: str) -> "Demonstrations":
        """Rows written by :meth:`save`. Raises PIError (one line naming the file) for a file without them:
        missing, empty, truncated, corrupt or another kind of file."""
        return Demonstrations._read(path, lambda f: Demonstrations(f["x"], f["mask"], f["y"], f["value"],
                                                                   f["played_teacher"], _info_of(f)))

    @staticmethod
    def _read(path: str, read: Any) -> Any:
        """``read(f)`` of the open ``.npz`` file ``path``: the one reader of :meth:`load` and
        :meth:`load_info`. Raises PIError (one line naming the file) for a file that is missing,
        empty, truncated, corrupt, another kind of file or without what ``read`` takes."""
        try:
            with np.load(path) as f:
                return read(f)
        except (OSError, KeyError, ValueError, EOFError, zipfile.BadZipFile, zlib.error) as exc:
            raise PIError(f"demonstrations file {path!r} is not readable ({type(exc).__name__})") from None


def _info_of(f: Any) -> Any:
    """The decoded ``info`` of an open demonstrations file (``{}`` for one written before it existed)."""
    return json.loads(str(f["info"])) if "info" in f.files else {}


#: Teachers (and labellers) played in batch by :class:`Teacher`: ``gain`` and ``random`` at every
#: player count, ``greedy`` at the counts :class:`pi_env.agents.greedy_batch.GreedyOpponent` plays
#: (its :data:`~pi_env.agents.greedy_batch.SUPPORTED_PLAYERS`: 2 to 5).
BATCH_TEACHERS = ("gain", "random", "greedy")


class Teacher:
    """The teacher at the learner seat: a batch opponent (``gain``, ``random``, and ``greedy`` at 2–5
    players: :data:`BATCH_TEACHERS`) or a per-game agent by name, one object per game slot, renewed
    when a new game starts in the slot (agents such as ``greedy`` remember the previous turn of their
    game). The batched ``greedy`` (:class:`pi_env.agents.greedy_batch.GreedyOpponent`) keeps the same
    memory per game slot (the round, rotation and solved flags of the previous call for the slot,
    cleared by :meth:`new_games`) and gives the per-game agent's actions call for call, so the rows are
    the same either way (tests/test_rl_imitate.py).

    Args:
        spec: an agent name (:func:`pi_env.agents.make_agent`) or ``"gain"``.
        config: the games' rules.
        num_envs: game slots.
        seed: seeds the agents (game ``k`` of slot ``b`` gets a seed drawn from it).
        batched: ``False`` plays every agent game by game, ``greedy`` too (the reference the batched
            teacher is tested and measured against, benchmarks/imitation_speed.py); ``gain`` and
            ``random`` have no per-game form and stay batched.

    Raises:
        UnknownNameError: an unknown agent name; PIError: a learned model of another player count.
    """

    def __init__(self, spec: str, config: Any, num_envs: int, seed: int = 0, batched: bool = True):
        from pi_env.agents import make_agent
        from pi_env.agents.greedy_batch import SUPPORTED_PLAYERS
        from pi_env.rl.pool import batch_opponent

        self.spec, self.config = spec, config
        name = spec.strip().lower()
        in_batch = name in ("gain", "random") or (batched and name == "greedy"
                                                  and config.num_players in SUPPORTED_PLAYERS)
        self._batch = batch_opponent(name, config) if in_batch else None
        self._make = (lambda: make_agent(spec, edition=config.edition)) if self._batch is None else None
        if self._make is not None:
            self._make().reset(config.num_players, config.board)  # an unknown name, or a learned model
            # of another player count, fails now
        self._agents: list[Any] = [None] * num_envs
        self._rng = np.random.default_rng(seed)

    def new_games(self, slots: np.ndarray) -> None:
        """New games start in ``slots``: their agents start afresh."""
        if self._make is None:
            if self._batch is not None and hasattr(self._batch, "new_games") and slots.size:
                self._batch.new_games(slots, self._rng.integers(2**62, size=slots.size))
            return
        for b in slots.tolist():
            agent = self._agents[b] = self._make()
            agent.reset(self.config.num_players, self.config.board, seed=int(self._rng.integers(2**62)))

    def act(self, state: Any, games: np.ndarray, players: np.ndarray) -> np.ndarray:
        """``int64[len(games)]`` engine actions of the teacher for ``players[i]`` in ``games[i]``."""
        if self._batch is not None:
            return self._batch.act_batch(state, games, players)
        from pi_env.engine import legal_action_mask, observe

        sub = state.take(games)
        obs = observe(sub, players)
        mask = legal_action_mask(sub)
        return np.array([self._agents[b].act(obs[n], mask[n]) for n, b in enumerate(games.tolist())],
                        dtype=np.int64)


def _policy_choices(net: Any, x: np.ndarray, mask: np.ndarray) -> np.ndarray:
    import torch

    with torch.no_grad():
        logits = net.logits(torch.from_numpy(x)).masked_fill(~torch.from_numpy(mask), -1e9)
    return logits.argmax(-1).numpy().astype(np.int64)


def collect(num_players: int, teacher: str, rows: int, *, opponents: Sequence[tuple[Any, float]] = (("gain", 1.0),),
            encoding: str = "compact-v1", policy: "str | None" = None, beta: float = 1.0, num_envs: int = 256,
            seed: int = 0, gamma: float = 0.995, reward: str = "win", label: "str | None" = None,
            progress: bool = False, batched: bool = True) -> Demonstrations:
    """At least ``rows`` rows of finished games (module docstring), then cut to ``rows``.

    Args:
        num_players: 2..5.
        teacher: the teacher (:class:`Teacher`).
        rows: rows to return.
        opponents: the opponent pool of every seat after the learner's (``(spec, weight)``,
            :class:`pi_env.rl.pool.PoolOpponent`).
        encoding: the learner's input encoding.
        policy: a model file (``learned:PATH`` form without the prefix) whose masked argmax plays
            when the teacher does not (``beta < 1``); required then.
        beta: probability that a row plays the teacher's action.
        num_envs: games stepped together.
        seed: games, seats, opponents' and teacher's draws.
        gamma: discount per learner step of the value targets.
        reward: ``"win"`` or ``"score"`` (the value target's outcome).
        label: an agent name (:func:`pi_env.agents.make_agent`, or ``"gain"``) whose choices label
            the rows instead of the teacher's (module docstring); ``None``: the teacher labels.
        progress: a tqdm bar.
        batched: ``False`` plays the teacher and the labeller game by game even where a batch form
            gives the same rows (:class:`Teacher`; the reference of tests and benchmarks).

    Raises:
        PIError: ``beta < 1`` without a policy, a bad option; UnknownNameError: an unknown agent.
    """
    from pi_env.engine import GameConfig
    from pi_env.rl.engine_env import LearnerBatch
    from pi_env.rl.pool import PoolOpponent

    if not 0.0 <= beta <= 1.0:
        raise PIError(f"beta must be in [0, 1], got {beta}")
    net = None
    if beta < 1.0 and policy is None:
        raise PIError("a DAgger round (beta < 1) needs the policy to play")
    if policy is not None:  # checked even when beta == 1 (it never plays then): a wrong file is named
        net = check_policy(policy, num_players, encoding)
    config = GameConfig(num_players=num_players)
    pools = [PoolOpponent(list(opponents), config) for _ in range(num_players - 1)]
    batch = LearnerBatch(num_envs, num_players, pools, encoding=encoding, seed=seed, parallel=False, reward=reward)
    tutor = Teacher(teacher, config, num_envs, seed=seed + 1, batched=batched)
    labeller = None if label is None else Teacher(label, config, num_envs, seed=seed + 2, batched=batched)
    rng = np.random.default_rng([seed, 7])
    B = num_envs
    tutor.new_games(np.arange(B))
    if labeller is not None:
        labeller.new_games(np.arange(B))
    x, mask = batch.reset()
    open_rows: list[list[int]] = [[] for _ in range(B)]  # rows of each slot's running game
    xs, ms, ys, teach = [], [], [], []
    values: list[float] = []
    kept: list[int] = []  # rows of finished games
    total = 0
    bar = None
    if progress:
        from tqdm import tqdm

        bar = tqdm(total=rows, desc=f"demonstrations ({teacher}{'' if label is None else ', labels ' + label}, "
                                    f"beta {beta:g})", unit="row")
    while len(kept) < rows:
        live = np.flatnonzero(~batch._restart)
        st = batch.venv.state
        seats = batch._seat[live]
        t_act = tutor.act(st, live, seats)
        engine = np.zeros(B, dtype=np.int64)
        engine[live] = t_act
        use_teacher = np.ones(live.size, dtype=bool)
        if net is not None:
            use_teacher = rng.random(live.size) < beta
            own = ~use_teacher
            if own.any():
                choice = np.zeros(B, dtype=np.int64)
                choice[live[own]] = _policy_choices(net, x[live[own]], mask[live[own]])
                engine[live[own]] = batch.engine_actions(choice)[live[own]]
        xs.append(x[live])
        ms.append(mask[live])
        ys.append(np.minimum(t_act if labeller is None else labeller.act(st, live, seats), SOLVE_BASE))
        teach.append(use_teacher)
        for b, r in zip(live.tolist(), range(total, total + live.size)):
            open_rows[b].append(r)
        total += live.size
        values.extend([0.0] * live.size)
        x, mask, _, done, _, episodes = batch.step_engine(engine)
        for b, ep in episodes:
            outcome = ep["win"] if reward == "win" else float(ep["score"])
            mine = open_rows[b]
            k = len(mine)
            for i, r in enumerate(mine):
                values[r] = outcome * gamma ** (k - 1 - i)
            kept.extend(mine)
            open_rows[b] = []
            if bar is not None:  # rows kept, never past the total (the last game's extra rows are dropped)
                bar.update(max(0, min(k, rows - bar.n)))
        ended = np.flatnonzero(done)
        if ended.size:
            tutor.new_games(ended)
            if labeller is not None:
                labeller.new_games(ended)
    if bar is not None:
        bar.close()
    idx = np.sort(np.asarray(kept[:rows], dtype=np.int64))
    X, M, Y, T = (np.concatenate(a)[idx] for a in (xs, ms, ys, teach))
    info = {"teacher": teacher, "label": teacher if label is None else label, "encoding": encoding,
            "num_players": num_players, "seed": seed, "opponents": [[str(o), float(w)] for o, w in opponents],
            "beta": beta, "policy": policy}
    return Demonstrations(X, M, Y.astype(np.int64), np.asarray(values, dtype=np.float32)[idx], T, info)


def _collect_job(kwargs: dict[str, Any]) -> Demonstrations:
    import numba

    numba.set_num_threads(1)
    try:
        import torch

        torch.set_num_threads(1)
    except ImportError:
        pass
    return collect(**kwargs)


def check_policy(policy: str, num_players: int, encoding: str) -> Any:
    """Load the model file ``policy`` and check it plays ``num_players`` games on ``encoding``;
    returns its network.

    Raises:
        PIError: a missing or unreadable file, another player count or encoding (naming the file).
    """
    from pi_env.agents.learned import load_model

    net, meta = load_model(policy)
    if meta["encoding"] != encoding or int(meta["num_players"]) != num_players:
        raise PIError(f"policy {policy!r} is for {meta['num_players']} players / {meta['encoding']}, "
                      f"not {num_players} / {encoding}")
    return net


def check_agent(name: str, num_players: int) -> None:
    """Build ``name`` as a :class:`Teacher` of a ``num_players`` game once, so that an unknown agent
    or a learned model of another player count fails before any game is played.

    Raises:
        PIError: as :class:`Teacher` (an unknown agent name, an unreadable model, a model for another
            player count).
    """
    from pi_env.engine import GameConfig

    Teacher(name, GameConfig(num_players=num_players), 1)


def check_workers(workers: int, option: str = "--workers") -> None:
    """Refuse a worker count the machine cannot run: below 1 or above ``os.cpu_count()``.

    Raises:
        PIError: one line naming ``option``, the value and the number of CPUs.
    """
    import os

    cpus = os.cpu_count() or 1
    if workers < 1:
        raise PIError(f"{option} must be at least 1, got {workers}")
    if workers > cpus:
        raise PIError(f"{option} {workers}: this machine has {cpus} CPU{'s' if cpus > 1 else ''}, "
                      f"give at most {cpus}")


def collect_parallel(num_players: int, teacher: str, rows: int, *, workers: int = 2, seed: int = 0,
                     progress: bool = False, **kwargs: Any) -> Demonstrations:
    """:func:`collect` split over ``workers`` processes (worker ``k`` plays seed ``seed + 1000 k``;
    ``workers == 1`` runs here); the rows of all workers, in worker order (their
    :attr:`~Demonstrations.info`: the first worker's, with ``seed`` and ``workers`` of this call).
    Never more processes than rows.

    Raises:
        PIError: ``workers`` outside 1..``os.cpu_count()`` (:func:`check_workers`), an unknown agent.
    """
    check_workers(workers)
    for name in (teacher, kwargs.get("label")):  # an unknown agent name fails here, not in a worker
        if name is not None:
            check_agent(name, num_players)
    jobs = []
    per = -(-rows // workers)
    for k in range(workers):
        n = min(per, rows - per * k)
        if n > 0:
            jobs.append(dict(num_players=num_players, teacher=teacher, rows=n, seed=seed + 1000 * k,
                             progress=progress and k == 0, **kwargs))
    if len(jobs) == 1:
        return collect(**jobs[0])
    import multiprocessing

    method = "forkserver" if "forkserver" in multiprocessing.get_all_start_methods() else "spawn"
    # multiprocessing.Pool, not ProcessPoolExecutor: leaving the block terminates the workers at once
    # (an interrupt or SIGTERM ends the command in a moment, not when the workers' games are done)
    pool = multiprocessing.get_context(method).Pool(len(jobs))
    try:
        parts = pool.map(_collect_job, jobs, chunksize=1)
    finally:
        pool.terminate()
        pool.join()
    out = Demonstrations.concat(parts)
    out.info = {**parts[0].info, "seed": seed, "workers": len(jobs)}
    return out


def fit(policy: Any, demos: Demonstrations, *, epochs: int = 10, minibatch: int = 1024, lr: float = 1e-3,
        value_coef: float = 0.5, seed: int = 0, holdout: float = 0.1, verbose: bool = False) -> dict[str, float]:
    """Fit an sb3-contrib ``MaskableActorCriticPolicy`` (its features extractor, both heads) to
    ``demos`` (module docstring); a random ``holdout`` share of the rows is kept out of the fit and
    only measured. Returns ``imitation_rows``, ``imitation_loss`` (cross-entropy of the last
    epoch), ``imitation_agreement`` (all rows) and ``imitation_holdout_agreement``.

    Raises:
        PIError: no rows, or a row whose choice is not allowed by its mask (named by index).
    """
    import torch

    if len(demos) == 0:
        raise PIError("no demonstrations to fit")
    bad = np.flatnonzero(~demos.mask[np.arange(len(demos)), demos.y])
    if bad.size:
        raise PIError(f"demonstration row {int(bad[0])}: choice {int(demos.y[bad[0]])} is not allowed by its mask")

    X = torch.from_numpy(np.ascontiguousarray(demos.x))
    M = torch.from_numpy(np.ascontiguousarray(demos.mask))
    Y = torch.from_numpy(demos.y)
    V = torch.from_numpy(demos.value)
    gen = torch.Generator().manual_seed(seed)
    order = torch.randperm(X.shape[0], generator=gen)
    n_out = int(round(holdout * X.shape[0]))
    held, train_rows = order[:n_out], order[n_out:]
    opt = torch.optim.Adam(policy.parameters(), lr=lr)

    def step(idx: Any) -> Any:
        logits, values = _heads(policy, X[idx])
        loss = torch.nn.functional.cross_entropy(logits.masked_fill(~M[idx], -1e9), Y[idx])
        if value_coef:
            loss_v = torch.nn.functional.mse_loss(values, V[idx])
            full = loss + value_coef * loss_v
        else:
            full = loss
        opt.zero_grad()
        full.backward()
        torch.nn.utils.clip_grad_norm_(policy.parameters(), 1.0)
        opt.step()
        return loss

    policy.set_training_mode(True)
    loss_value = minibatch_epochs(train_rows, epochs, minibatch, gen, step, verbose=verbose,
                                  label="imitation epoch")
    policy.set_training_mode(False)
    agree = _agreement(policy, X, M, Y)
    return {"imitation_rows": int(X.shape[0]), "imitation_loss": round(loss_value, 4),
            "imitation_agreement": round(float(agree.float().mean()), 4),
            "imitation_holdout_agreement": round(float(agree[held].float().mean()), 4) if n_out else float("nan")}


def minibatch_epochs(train_rows: Any, epochs: int, minibatch: int, gen: Any, step: Callable[[Any], Any], *,
                     after_epoch: "Callable[[], None] | None" = None, verbose: bool = False,
                     label: str = "epoch") -> float:
    """The epoch loop of behaviour cloning, shared by :func:`fit` and :func:`pi_env.rl.solo_imitate.fit`:
    each epoch shuffles ``train_rows`` (``torch.int64[n]`` row indices) with the generator ``gen``,
    calls ``step(idx)`` on consecutive minibatches of ``minibatch`` rows (it takes the optimiser
    step and returns the minibatch's mean cross-entropy, a tensor), then ``after_epoch()``; with
    ``verbose`` it prints ``{label} {e}/{epochs}: loss {loss:.4f} ({seconds:.0f} s)``, the line
    ``docs/make_imitation_curve.py`` reads. Returns the last epoch's cross-entropy averaged over its
    rows (nats; NaN when ``epochs`` is 0)."""
    import torch

    loss_value = float("nan")
    t0 = time.perf_counter()
    for epoch in range(epochs):
        perm = train_rows[torch.randperm(train_rows.numel(), generator=gen)]
        total, count = 0.0, 0
        for k in range(0, perm.numel(), minibatch):
            idx = perm[k:k + minibatch]
            loss = step(idx)
            total += loss.item() * idx.numel()
            count += idx.numel()
        if after_epoch is not None:
            after_epoch()
        loss_value = total / max(count, 1)
        if verbose:
            print(f"{label} {epoch + 1}/{epochs}: loss {loss_value:.4f} ({time.perf_counter() - t0:.0f} s)",
                  flush=True)
    return loss_value


def _heads(policy: Any, x: Any) -> tuple[Any, Any]:
    """Choice logits and values of an SB3 actor-critic policy (shared or separate extractors)."""
    features = policy.extract_features(x)
    if policy.share_features_extractor:
        latent_pi, latent_vf = policy.mlp_extractor(features)
    else:
        pi_f, vf_f = features
        latent_pi, latent_vf = policy.mlp_extractor.forward_actor(pi_f), policy.mlp_extractor.forward_critic(vf_f)
    return policy.action_net(latent_pi), policy.value_net(latent_vf).squeeze(-1)


def _agreement(policy: Any, X: Any, M: Any, Y: Any, chunk: int = 65536) -> Any:
    import torch

    out = []
    with torch.no_grad():
        for k in range(0, X.shape[0], chunk):
            logits, _ = _heads(policy, X[k:k + chunk])
            out.append(logits.masked_fill(~M[k:k + chunk], -1e9).argmax(-1) == Y[k:k + chunk])
    return torch.cat(out) if out else torch.zeros(0, dtype=torch.bool)
