"""``learned:solo``: a Solo Time Attack policy cloned from the exact planner,
with DAgger rounds.

**Teacher** (:class:`SoloTeacher`, one per layout): the exact optimal planner
:class:`pi_env.solvers.solo_optimum.OptimalSearch` on every set of at most ``exact_below``
consistent cases (its :meth:`~pi_env.solvers.solo_optimum.OptimalSearch.best_action`: an optimal
query, or naming a case, which the compact action space turns into its solve choice), and on
larger sets the greedy information-gain query
(:meth:`~pi_env.solvers.solo_optimum.OptimalSearch.greedy_action`) — the policy docs/solo_optimal.md
calls "greedy, but optimal once at most N cases remain" (layout 0: 5.9714 actions at N = 40,
against 6.3869 for the greedy and 5.9351 for the optimum). The planner's exact search of the full
tree takes 6–8 minutes per layout, out of reach for hundreds of training layouts; on sets of at
most 40 cases it takes milliseconds.

**Learner**: :class:`pi_env.agents._policy_net.PolicyNet` on ``"solo-compact-v1"``
(:func:`pi_env.solvers.compact.encode_solo_compact`: own-information marginals, case count, the
information gain of every query, investigators placed and left, ...; and each query's gain
relative to the best, 250 floats), 51 compact choices, masked
by the legal actions and :func:`pi_env.agents.learned.useful_queries` — exactly what
:class:`pi_env.agents.learned.LearnedAgent` computes from the observation when it plays. The
hidden case reaches the learner only through the answers (the observation; tests play paired
cases).

**Collection** (:func:`collect`): layouts of seeds ``layout_seed, layout_seed + 1, ...`` (training
uses seeds from 1000 on: the benchmark layouts of docs/solo_optimal.md are seeds 0..9), on each
``cases_per_layout`` distinct cases drawn uniformly, played to the end in one batch of the solo
engine. At every decision the teacher labels the position; the teacher's choice is played with
probability ``beta`` and the current policy's masked argmax otherwise (``beta = 1``: behaviour
cloning; ``beta < 1``: a DAgger round, Ross, Gordon & Bagnell 2011). A solve choice names
:func:`pi_env.agents.learned.best_cases_from_mask` of the consistent set (the most likely case),
as the agent does.

**Fit** (:func:`fit`): cross-entropy of the masked logits against the teacher's choices, Adam,
minibatches, a held-out tenth measured.

Command line (:func:`pi_env.rl.cli.solo_imitate_main` over :func:`imitate_solo`; what made
``pi_env/models/learned_solo.pt``; see its model card)::

    python -m pi_env.rl.solo_imitate --out results/rl/solo --layouts 300 --cases 32 --rounds 0 --epochs 40

(3.5 minutes on the shared 2-core machine; two DAgger rounds, ``--rounds 2``, did not improve the
exact validation values: the model card has the figures.)
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from pi_env.core.constants import CASE_TRIPLES, INVESTIGATE_BASE, NUM_CASES, SOLVE_BASE
from pi_env.core.errors import PIError
from pi_env.rl.imitate import minibatch_epochs

__all__ = ["SoloTeacher", "SoloRows", "collect", "fit", "new_net", "imitate_solo", "ENCODING", "FIRST_TRAINING_SEED"]

ENCODING = "solo-compact-v1"
"""The learner's input (:data:`pi_env.agents.learned.SOLO_ENCODING`)."""
FIRST_TRAINING_SEED = 1000
"""Training layouts start here: seeds 0..9 are the benchmark layouts of docs/solo_optimal.md."""
_MAX_STEPS = 40  # a collected game stops after this many decisions (a poor policy may wander)


class SoloTeacher:
    """The teacher of one layout (module docstring).

    Args:
        tile_district: ``int[36]`` the layout.
        investigators: investigator tiles of the games.
        exact_below: the exact planner decides on sets of at most this many cases.
    """

    def __init__(self, tile_district: np.ndarray, investigators: int = 5, exact_below: int = 40):
        from pi_env.solvers.solo_optimum import OptimalSearch, answer_codes

        codes = answer_codes(np.asarray(tile_district))
        self.opt = OptimalSearch(codes, np.arange(codes.shape[0]) >= INVESTIGATE_BASE, investigators,
                                 table_bits=18)
        self.exact_below = int(exact_below)
        self._memo: dict[tuple[bytes, int], int] = {}

    def choice(self, cases: np.ndarray, k: int) -> int:
        """The teacher's compact choice (query ``0..49`` or the solve choice 50) on the consistent
        cases ``cases`` (sorted ids) with ``k`` investigators left."""
        from pi_env.solvers.solo_optimum import GUESS

        cases = np.asarray(cases, dtype=np.int16)
        key = (cases.tobytes(), int(k))
        if key in self._memo:
            return self._memo[key]
        if cases.size <= 1:
            out = SOLVE_BASE
        elif cases.size <= self.exact_below:
            a = self.opt.best_action(cases, int(k))
            out = SOLVE_BASE if a >= GUESS else int(a)
        else:
            a = self.opt.greedy_action(cases, int(k))
            out = SOLVE_BASE if a is None else int(a)
        self._memo[key] = out
        return out


@dataclass
class SoloRows:
    """Rows of teacher-labelled positions: ``x`` ``float32[N, 250]``, ``mask`` ``bool[N, 51]``
    (legal and useful choices), ``y`` ``int64[N]`` the teacher's choices."""

    x: np.ndarray
    mask: np.ndarray
    y: np.ndarray

    def __len__(self) -> int:
        return int(self.y.shape[0])

    @staticmethod
    def concat(parts: Sequence["SoloRows"]) -> "SoloRows":
        return SoloRows(*(np.concatenate([getattr(p, k) for p in parts]) for k in ("x", "mask", "y")))


def encode(state: Any, config: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(x, mask, known)`` of every game of a solo state: the learner's input ``float32[B, 250]``,
    its allowed choices ``bool[B, 51]`` (legal and :func:`~pi_env.agents.learned.useful_queries`) and
    the own-information case set ``bool[B, 1680]`` — what :class:`pi_env.agents.learned.LearnedAgent`
    computes from the observation (tested equal)."""
    from pi_env.agents.learned import ENCODINGS, policy_mask, useful_queries
    from pi_env.engine import solo as S

    known = np.empty((state.batch_size, NUM_CASES), dtype=bool)
    x = ENCODINGS[ENCODING].from_state(state, config, mask=known)
    return x, policy_mask(S.legal_action_mask(state)) & useful_queries(x), known


def _argmax(net: Any, x: np.ndarray, mask: np.ndarray) -> np.ndarray:
    import torch

    with torch.no_grad():
        logits = net.logits(torch.from_numpy(x)).masked_fill(~torch.from_numpy(mask), -1e9)
    return logits.argmax(-1).numpy().astype(np.int64)


def collect(layout_seed: int, layouts: int, cases_per_layout: int, *, net: Any = None, beta: float = 1.0,
            exact_below: int = 40, investigators: int = 5, seed: int = 0, progress: bool = False) -> SoloRows:
    """Teacher-labelled rows of ``layouts`` layouts (seeds ``layout_seed + i``), ``cases_per_layout``
    distinct uniform cases each (module docstring).

    Args:
        layout_seed: the first layout's seed (layout ``i``: ``pi_env.engine.solo.init(SoloConfig(), 1,
            layout_seed + i)``'s tiles).
        layouts: layouts.
        cases_per_layout: games per layout, 1..1680.
        net: the current policy (:class:`~pi_env.agents._policy_net.PolicyNet`), needed when ``beta < 1``.
        beta: probability that a decision plays the teacher's choice.
        exact_below: the teacher's threshold (:class:`SoloTeacher`).
        investigators: investigator tiles.
        seed: the cases and the teacher/policy draws.
        progress: a tqdm bar over the layouts.

    Raises:
        PIError: ``beta`` outside ``[0, 1]``, ``beta < 1`` without ``net``, a bad count.
    """
    from pi_env.agents.learned import best_cases_from_mask
    from pi_env.engine import solo as S
    if not 0.0 <= beta <= 1.0:
        raise PIError(f"beta must be in [0, 1], got {beta}")
    if beta < 1.0 and net is None:
        raise PIError("a DAgger round (beta < 1) needs the policy to play")
    if not 1 <= cases_per_layout <= NUM_CASES or layouts < 1:
        raise PIError(f"need at least one layout and 1..{NUM_CASES} cases per layout")
    config = S.SoloConfig(investigators=investigators)
    rng = np.random.default_rng([seed, layout_seed])
    parts: list[SoloRows] = []
    order: Any = range(layouts)
    if progress:
        from tqdm import tqdm

        order = tqdm(order, desc=f"layouts (beta {beta:g})", unit="layout")
    for i in order:
        tiles = S.init(config, 1, seed=layout_seed + i).tile_district[0].copy()
        teacher = SoloTeacher(tiles, investigators, exact_below)
        cases = rng.choice(NUM_CASES, cases_per_layout, replace=False)
        st = S.from_layout(config, tiles, 0).take(np.zeros(cases_per_layout, dtype=np.int64))
        st.case[:] = CASE_TRIPLES[cases]
        for _ in range(_MAX_STEPS):
            live = np.flatnonzero(~st.done)
            if not live.size:
                break
            x, mask, known = encode(st.take(live), config)
            y = np.array([teacher.choice(np.flatnonzero(known[j]), int(st.inv_left[b]))
                          for j, b in enumerate(live.tolist())], dtype=np.int64)
            play = y.copy()
            if beta < 1.0:
                own = rng.random(live.size) >= beta
                if own.any():
                    play[own] = _argmax(net, x[own], mask[own])
            solve = play == SOLVE_BASE
            play[solve] = SOLVE_BASE + best_cases_from_mask(known[solve])
            actions = np.zeros(st.batch_size, dtype=np.int64)
            actions[live] = play
            S.step_inplace(st, actions, config)
            parts.append(SoloRows(x, mask, y))
    return SoloRows.concat(parts)


def new_net(trunk: Sequence[int] = (256,), hidden: Sequence[int] = (128,)) -> Any:
    """A fresh :class:`~pi_env.agents._policy_net.PolicyNet` for the solo input (250 floats)."""
    from pi_env.agents._policy_net import PolicyNet
    from pi_env.agents.learned import encoding_size

    return PolicyNet(encoding_size(ENCODING, 0), tuple(hidden), "relu", tuple(trunk))


def fit(net: Any, rows: SoloRows, *, epochs: int = 20, minibatch: int = 512, lr: float = 1e-3, seed: int = 0,
        holdout: float = 0.1, verbose: bool = False) -> dict[str, float]:
    """Fit ``net`` to ``rows`` (module docstring); returns ``rows``, ``loss`` (last epoch),
    ``agreement`` (all rows: masked argmax = teacher) and ``holdout_agreement``.

    Raises:
        PIError: no rows, or a row whose teacher choice its mask does not allow.
    """
    import torch

    if len(rows) == 0:
        raise PIError("no rows to fit")
    bad = np.flatnonzero(~rows.mask[np.arange(len(rows)), rows.y])
    if bad.size:
        raise PIError(f"row {int(bad[0])}: the teacher's choice {int(rows.y[bad[0]])} is not allowed by its mask")
    X, M, Y = (torch.from_numpy(np.ascontiguousarray(a)) for a in (rows.x, rows.mask, rows.y))
    gen = torch.Generator().manual_seed(seed)
    torch.manual_seed(seed)
    order = torch.randperm(X.shape[0], generator=gen)
    n_out = int(round(holdout * X.shape[0]))
    held, train_rows = order[:n_out], order[n_out:]
    opt = torch.optim.Adam(net.parameters(), lr=lr)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, max(epochs, 1))

    def step(idx: Any) -> Any:
        loss = torch.nn.functional.cross_entropy(net.logits(X[idx]).masked_fill(~M[idx], -1e9), Y[idx])
        opt.zero_grad()
        loss.backward()
        opt.step()
        return loss

    net.train()
    loss_value = minibatch_epochs(train_rows, epochs, minibatch, gen, step, after_epoch=sched.step,
                                  verbose=verbose, label="  epoch")
    net.eval()
    with torch.no_grad():
        agree = net.logits(X).masked_fill(~M, -1e9).argmax(-1) == Y
    return {"rows": int(X.shape[0]), "loss": round(loss_value, 4),
            "agreement": round(float(agree.float().mean()), 4),
            "holdout_agreement": round(float(agree[held].float().mean()), 4) if n_out else float("nan")}


def validate(path: str, seeds: Sequence[int], investigators: int = 5) -> list[float]:
    """Exact expected actions of the model file ``path`` on the layouts of ``seeds`` (every case,
    :func:`pi_env.agents.runner.play_solo_cases`)."""
    from pi_env.agents.learned import LearnedAgent
    from pi_env.agents.runner import play_solo_cases
    from pi_env.engine import solo as S

    out = []
    for s in seeds:
        tiles = S.init(S.SoloConfig(investigators=investigators), 1, seed=int(s)).tile_district[0]
        counts, _ = play_solo_cases(LearnedAgent(path), tiles, investigators=investigators)
        out.append(float(counts.mean()))
    return out


def imitate_solo(out: "str | Path", *, layouts: int = 300, cases: int = 32, rounds: int = 0, beta: float = 0.3,
                 exact_below: int = 40, epochs: int = 40, minibatch: int = 256, trunk: Sequence[int] = (256,),
                 hidden: Sequence[int] = (128,), validate_layouts: int = 3, seed: int = 0, progress: bool = True,
                 settings: "dict[str, Any] | None" = None) -> dict[str, Any]:
    """Clone the teacher into a solo policy (module docstring): behaviour cloning, then ``rounds``
    DAgger rounds, each a :func:`collect` of ``layouts`` new layouts and a :func:`fit` on every row so
    far. Writes into the folder ``out`` (created): ``round_K.pt`` after each round, ``policy.pt`` (the
    last round: what ``learned:PATH`` loads) and ``run.json`` (``settings``, per-round ``rounds``,
    ``seconds``). Prints one JSON line per round.

    Args:
        out: the run folder (an existing one is written into: the caller decides about replacing it).
        layouts, cases: training layouts per round (seeds from :data:`FIRST_TRAINING_SEED`) and cases
            played per layout.
        rounds: DAgger rounds after behaviour cloning; ``beta`` the teacher's share of the choices
            played in them.
        exact_below: the exact planner teaches on sets of at most this many cases.
        epochs, minibatch: of each round's fit.
        trunk, hidden: layer widths of the new network (:func:`new_net`).
        validate_layouts: after each round, exact expected actions on this many layouts of seeds
            500.. (:func:`validate`).
        seed: torch's seed and the rounds' (``seed + K``).
        progress: progress bars and fit lines.
        settings: what ``run.json`` stores as ``settings`` (default: these arguments).

    Returns:
        The ``run.json`` object.

    Raises:
        PIError: bad sizes (``layouts``, ``cases``, ``epochs`` below 1, ``rounds`` or
            ``validate_layouts`` below 0), or an error of :func:`collect` or :func:`fit`.
    """
    import torch

    from pi_env.agents.learned import save_model
    from pi_env.core.files import write_bytes_atomic, write_text_atomic

    if min(layouts, cases, epochs) < 1 or rounds < 0 or validate_layouts < 0:
        raise PIError("--layouts, --cases, --epochs must be at least 1, --rounds and --validate at least 0")
    if settings is None:
        settings = dict(out=str(out), layouts=layouts, cases=cases, rounds=rounds, beta=beta, exact_below=exact_below,
                        epochs=epochs, minibatch=minibatch, trunk=list(trunk), hidden=list(hidden),
                        validate=validate_layouts, seed=seed)
    out = Path(out)
    torch.manual_seed(seed)
    out.mkdir(parents=True, exist_ok=True)
    net = new_net(trunk, hidden)
    t_start = time.perf_counter()
    all_rows: list[SoloRows] = []
    done = []
    for k in range(rounds + 1):
        t0 = time.perf_counter()
        part = collect(FIRST_TRAINING_SEED + k * layouts, layouts, cases,
                       net=net if k else None, beta=1.0 if k == 0 else beta,
                       exact_below=exact_below, seed=seed + k, progress=progress)
        t1 = time.perf_counter()
        all_rows.append(part)
        stats = fit(net, SoloRows.concat(all_rows), epochs=epochs, minibatch=minibatch, seed=seed + k,
                    verbose=progress)
        t2 = time.perf_counter()
        path = out / f"round_{k}.pt"
        card = {"trainer": "pi_env.rl.solo_imitate", "round": k, "teacher": f"exact planner on sets of at most "
                f"{exact_below} cases, greedy above", "layouts": layouts * (k + 1),
                "cases_per_layout": cases, "beta": 1.0 if k == 0 else beta,
                "timesteps": int(sum(len(r) for r in all_rows)),
                "seconds": round(time.perf_counter() - t_start, 1), **stats}
        save_model(net, path, encoding=ENCODING, num_players=0, card=card)
        val = validate(str(path), range(500, 500 + validate_layouts))
        row = {"round": k, "rows": len(part), "collect_seconds": round(t1 - t0, 1),
               "fit_seconds": round(t2 - t1, 1), "validate_seconds": round(time.perf_counter() - t2, 1),
               "validation": [round(v, 4) for v in val],
               "validation_mean": round(float(np.mean(val)), 4) if val else None, **stats}
        done.append(row)
        print(json.dumps(row), flush=True)
    write_bytes_atomic(out / "policy.pt", (out / f"round_{rounds}.pt").read_bytes())
    run = {"settings": settings, "rounds": done, "seconds": round(time.perf_counter() - t_start, 1)}
    write_text_atomic(out / "run.json", json.dumps(run, indent=1) + "\n")
    return run
