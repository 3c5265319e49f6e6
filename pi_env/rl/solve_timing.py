"""Learn when to solve from experience: one step of approximate policy iteration over ``greedy``'s
solve-or-wait choice, the :class:`~pi_env.agents.solve_timing.SolveTimingHead` of a learned model.

**The method** (policy iteration with Monte Carlo action values; Sutton & Barto, *Reinforcement
Learning*, 2nd ed., sections 5.3 and 4.3). Every seat plays ``greedy`` (in batch,
:func:`pi_env.agents.greedy_batch.greedy_actions`, each seat with its own agent memory). At every
*eligible* decision (:func:`pi_env.agents.solve_timing.eligible_rows`: the case not certain, and
the last round or greedy solving), with probability ``branch`` the game is copied and the copy takes
the *other* plan (:func:`~pi_env.agents.solve_timing.other_plans`: a query's is solving the most
likely case, a solve's the best own-information query); both games are then played to the end by
greedy in every seat. The copy carries the game's generator, so the two games share their chance
(common random numbers) and differ only by that one decision and what follows from it. Each such
*branch* gives a sample of the advantage of the other plan for the deciding player: the change of
its win share at the end (docs/rules.md §5: a first place shared by ``k`` players counts ``1/k``)
and of its wrong solves. A multilayer perceptron regresses both on the decision's
``"compact-v4"`` columns (:data:`~pi_env.agents.solve_timing.COLUMNS`), with early stopping on a
held-out tenth; the improved policy takes the other plan where ``A_win − λ·A_wrong > τ`` — the
greedy policy improvement step, with ``λ`` pricing a wrong solve in win share.

Nothing here sees more than the deciding player may: the samples' inputs are its
``"compact-v4"`` rows; the outcomes are the games' ends.

``python -m pi_env.rl.solve_timing 4p --init MODEL.pt --games 65536 --seed S --out DIR`` collects,
fits, evaluates the head in batch against greedy on held-apart seeds, and writes ``DIR/policy.pt``
(``MODEL.pt``'s policy with the head: a ``learned:`` model file) and ``DIR/card.json``; the
reinforcement-learning guide (docs/reinforcement-learning.md) shows a run.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
import time
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any, Callable, NoReturn, Sequence

import numpy as np

from pi_env.agents.greedy_batch import greedy_actions
from pi_env.agents.learned import check_player_encoding, encode_state, load_model, policy_mask, save_model
from pi_env.agents.solve_timing import ENCODING, SolveTimingHead, eligible_rows, head_columns, other_plans
from pi_env.core.constants import SOLVE_BASE
from pi_env.core.errors import PIError
from pi_env.core.files import write_text_atomic
from pi_env.engine import GameConfig, init, legal_action_mask, step_inplace
from pi_env.engine.api import NO_ACTION
from pi_env.engine.ranking import rank_batch
from pi_env.engine.state import State

__all__ = ["GreedySeats", "Branches", "collect", "load_branches", "fit", "evaluate", "win_shares", "main"]


class GreedySeats:
    """``greedy`` in every seat of a batch of games, each seat with its own agent memory (its
    previous turn, as :class:`pi_env.agents.greedy.GreedyAgent` keeps it).

    Args:
        batch_size, num_players: ``B``, ``P``.
    """

    def __init__(self, batch_size: int, num_players: int):
        B, P = batch_size, num_players
        self.valid = np.zeros((B, P), dtype=bool)
        self.round = np.zeros((B, P), dtype=np.int64)
        self.rotation = np.zeros((B, P), dtype=np.int64)
        self.solved = np.zeros((B, P, P), dtype=bool)

    def take(self, games: np.ndarray) -> "GreedySeats":
        """The memories of ``games`` (copies), as a new batch."""
        out = GreedySeats(0, self.valid.shape[1])
        out.valid, out.round = self.valid[games].copy(), self.round[games].copy()
        out.rotation, out.solved = self.rotation[games].copy(), self.solved[games].copy()
        return out

    @staticmethod
    def concatenate(parts: Sequence["GreedySeats"]) -> "GreedySeats":
        """The batches ``parts`` one after another."""
        out = GreedySeats(0, parts[0].valid.shape[1])
        out.valid = np.concatenate([p.valid for p in parts])
        out.round = np.concatenate([p.round for p in parts])
        out.rotation = np.concatenate([p.rotation for p in parts])
        out.solved = np.concatenate([p.solved for p in parts])
        return out

    def actions(self, sub: State, games: np.ndarray, players: np.ndarray, config: GameConfig) -> np.ndarray:
        """``int64[n]``: greedy's actions for ``players[k]`` in ``sub`` (the games ``games`` of the
        batch); the memories are not updated (:meth:`acted`)."""
        previous = (self.valid[games, players], self.round[games, players], self.rotation[games, players],
                    self.solved[games, players])
        return greedy_actions(sub, config.board, players, config.edition, previous)

    def acted(self, sub: State, games: np.ndarray, players: np.ndarray) -> None:
        """Record that ``players[k]`` acted in ``sub`` (the games ``games``) as greedy remembers it."""
        P = sub.num_players
        rel = (players[:, None] + np.arange(P)[None, :]) % P
        self.valid[games, players] = True
        self.round[games, players] = sub.round
        self.rotation[games, players] = sub.rotation
        self.solved[games, players] = np.take_along_axis(sub.solved, rel, axis=1)


Override = Callable[[State, np.ndarray, np.ndarray, np.ndarray], np.ndarray]


def _step(state: State, config: GameConfig, seats: GreedySeats, override: "Override | None") -> None:
    live = np.flatnonzero(~state.done)
    sub = state.take(live)
    players = sub.current_player.astype(np.int64)
    actions = seats.actions(sub, live, players, config)
    if override is not None:
        actions = override(sub, live, players, actions)
    seats.acted(sub, live, players)
    full = np.full(state.batch_size, NO_ACTION, dtype=np.int64)
    full[live] = actions
    step_inplace(state, full, config, check=False)


def play_to_end(state: State, config: GameConfig, seats: GreedySeats, override: "Override | None" = None) -> None:
    """Play every game of ``state`` to its end (in place), greedy in every seat; ``override(sub,
    games, players, actions)`` may change the actions of the players to move (``sub``: the live
    games ``games`` of the batch)."""
    while not state.done.all():
        _step(state, config, seats, override)


def win_shares(state: State, config: GameConfig) -> np.ndarray:
    """``float64[B, P]``: each player's win share of finished games (docs/rules.md §5: a first
    place shared by ``k`` players counts ``1/k``)."""
    first = rank_batch(state.score, state.inv_left, state.penalty, config.edition) == 1
    return first / first.sum(axis=1, keepdims=True)


def _compact_choices(actions: np.ndarray) -> np.ndarray:
    return np.minimum(np.asarray(actions, dtype=np.int64), SOLVE_BASE)


def _engine_actions(sub: State, config: GameConfig, players: np.ndarray, choices: np.ndarray) -> np.ndarray:
    """Engine actions of compact choices; the solve choice names the most likely case
    (:func:`pi_env.agents.learned.best_cases_of_state`, as a learned agent names it)."""
    from pi_env.agents.learned import best_cases_of_state

    out = np.asarray(choices, dtype=np.int64).copy()
    rows = np.flatnonzero(out == SOLVE_BASE)
    if rows.size:
        out[rows] = SOLVE_BASE + best_cases_of_state(sub.take(rows), config.board, players[rows])
    return out


@dataclass
class Branches:
    """The samples of :func:`collect` (``N`` branches).

    Attributes:
        x: ``float32[N, F]`` the decisions' head columns (:func:`~pi_env.agents.solve_timing.head_columns`).
        win, wrong: ``float32[N]`` the advantage samples (other plan minus greedy's): win share, wrong solves.
        greedy_solves: ``bool[N]`` greedy's choice was the solve.
        game, turn, player: ``int64[N]`` where (the game's index in the collection, ``State.turn`` at
            the decision, the deciding player).
    """

    x: np.ndarray
    win: np.ndarray
    wrong: np.ndarray
    greedy_solves: np.ndarray
    game: np.ndarray
    turn: np.ndarray
    player: np.ndarray

    @staticmethod
    def concatenate(parts: Sequence["Branches"]) -> "Branches":
        """The samples of ``parts`` one after another."""
        return Branches(*(np.concatenate([getattr(p, f) for p in parts]) for f in _BRANCH_FIELDS))

    @property
    def num_games(self) -> int:
        """The games the samples come from, counted as ``max(game) + 1`` (games ``0 .. max``: a last
        game without a branch is not counted); 0 without samples."""
        return int(self.game.max()) + 1 if len(self.game) else 0

    @staticmethod
    def join(parts: Sequence["Branches"]) -> "Branches":
        """Several collections as one: the samples of ``parts`` one after another, the games of each
        part numbered after the games of the parts before it (``game`` of part ``i`` plus the games
        of parts ``0 .. i-1``, each part counting :attr:`num_games`), so ``game < k`` still selects
        the first ``k`` games. The rows keep their order, so :func:`fit` sees what it would see in
        one collection of the same samples."""
        shifted, offset = [], 0
        for part in parts:
            shifted.append(dataclasses.replace(part, game=part.game + offset))
            offset += part.num_games
        return Branches.concatenate(shifted)

    def take(self, rows: np.ndarray) -> "Branches":
        """The samples ``rows`` (indices or a ``bool[N]`` mask), as new arrays."""
        return Branches(*(getattr(self, f)[rows] for f in _BRANCH_FIELDS))

    def save(self, path: "str | Path") -> None:
        """Write the samples as a ``.npz`` file."""
        np.savez_compressed(path, **{f: getattr(self, f) for f in _BRANCH_FIELDS})

    @staticmethod
    def load(path: "str | Path") -> "Branches":
        """Read :meth:`save`'s file."""
        with np.load(path) as d:
            return Branches(*(d[f] for f in _BRANCH_FIELDS))


_BRANCH_FIELDS = tuple(f.name for f in fields(Branches))


def game_states(seed: int, chunk: int, batch_size: int) -> np.ndarray:
    """``uint64[batch_size]``: the generator states of chunk ``chunk`` of a collection seeded
    ``seed`` (independent streams of ``numpy.random.SeedSequence((seed, chunk))``)."""
    return np.random.SeedSequence((int(seed), int(chunk))).generate_state(batch_size, dtype=np.uint64) | np.uint64(1)


def collect_chunk(config: GameConfig, seed: int, chunk: int, batch_size: int, branch: float = 0.5) -> Branches:
    """The branches of ``batch_size`` games (chunk ``chunk`` of seed ``seed``; module docstring).

    Raises:
        PIError: a player count greedy in batch does not play, ``branch`` outside ``(0, 1]``.
    """
    P = config.num_players
    check_player_encoding(ENCODING, P)
    if not 0.0 < branch <= 1.0:
        raise PIError(f"branch must be in (0, 1], got {branch!r}")
    rng = np.random.default_rng(np.random.SeedSequence((int(seed), int(chunk), 1)))
    state = init(config, batch_size, game_states(seed, chunk, batch_size))
    seats = GreedySeats(batch_size, P)
    cols = head_columns(P)
    copies: list[State] = []
    copy_seats: list[GreedySeats] = []
    rows: list[tuple[np.ndarray, ...]] = []

    def override(sub: State, games: np.ndarray, players: np.ndarray, actions: np.ndarray) -> np.ndarray:
        pick = np.flatnonzero(rng.random(sub.batch_size) < branch)
        if not pick.size:
            return actions
        part = sub.take(pick)
        x = encode_state(ENCODING, part, config, players[pick])
        choices = _compact_choices(actions[pick])
        ok = np.flatnonzero(eligible_rows(x, choices, P, config.num_rounds))
        if not ok.size:
            return actions
        pick, x, choices = pick[ok], x[ok], choices[ok]
        part = part.take(ok)
        mask = policy_mask(legal_action_mask(part))[:, :SOLVE_BASE]
        other = _engine_actions(part, config, players[pick], other_plans(x, choices, mask, P))
        mem = seats.take(games[pick])
        mem.acted(part, np.arange(pick.size), players[pick])
        step_inplace(part, other, config, check=False)
        copies.append(part)
        copy_seats.append(mem)
        rows.append((x[:, cols], choices == SOLVE_BASE, games[pick], sub.turn[pick].astype(np.int64), players[pick]))
        return actions

    play_to_end(state, config, seats, override)
    if not rows:
        empty = np.zeros(0, dtype=np.int64)
        return Branches(np.zeros((0, cols.size), np.float32), np.zeros(0, np.float32), np.zeros(0, np.float32),
                        np.zeros(0, bool), empty, empty, empty)
    branched = State.concatenate(copies)
    play_to_end(branched, config, GreedySeats.concatenate(copy_seats))
    x, solves, game, turn, player = (np.concatenate([r[i] for r in rows]) for i in range(5))
    n = np.arange(game.size)
    win = win_shares(branched, config)[n, player] - win_shares(state, config)[game, player]
    wrong = branched.penalty[n, player] // 2 - state.penalty[game, player] // 2
    return Branches(x.astype(np.float32), win.astype(np.float32), wrong.astype(np.float32), solves,
                    game + chunk * batch_size, turn, player)


def collect(config: GameConfig, games: int, seed: int, batch_size: int = 1024, branch: float = 0.5,
            progress: bool = True) -> Branches:
    """:func:`collect_chunk` over ``ceil(games / batch_size)`` chunks (the last one smaller), with a
    progress bar."""
    from tqdm import tqdm

    parts = []
    chunks = -(-int(games) // int(batch_size))
    for c in tqdm(range(chunks), desc="branches", unit="chunk", disable=not progress):
        parts.append(collect_chunk(config, seed, c, min(batch_size, games - c * batch_size), branch))
    return Branches.concatenate(parts)


def fit(data: Branches, num_players: int, *, lam: float, tau: float = 0.0, hidden: Sequence[int] = (128, 128),
        epochs: int = 40, patience: int = 4, minibatch: int = 1024, lr: float = 1e-3, seed: int = 0,
        num_rounds: int = 3) -> tuple[SolveTimingHead, dict[str, Any]]:
    """Regress ``(win, wrong)`` on ``x`` (mean squared error, Adam; the first tenth of the rows
    held out for early stopping after ``patience`` epochs without improvement) and return the head
    with ``λ = lam``, ``τ = tau`` and the fit's figures (epochs, held-out and baseline errors). The
    fit runs on one torch thread, so the same samples and seed give the same head anywhere.

    Raises:
        PIError: fewer than 100 samples; torch missing (the ``rl`` extra).
    """
    import torch

    n = len(data.win)
    if n < 100:
        raise PIError(f"solve timing: {n} branch samples are too few to fit (collect more games)")
    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # one thread: the same head wherever it is fitted (float sums in one order)
    try:
        return _fit(data, num_players, lam, tau, hidden, epochs, patience, minibatch, lr, seed, num_rounds)
    finally:
        torch.set_num_threads(threads)


def _fit(data: Branches, num_players: int, lam: float, tau: float, hidden: Sequence[int], epochs: int,
         patience: int, minibatch: int, lr: float, seed: int, num_rounds: int) -> tuple[SolveTimingHead, dict[str, Any]]:
    import torch

    n = len(data.win)
    torch.manual_seed(seed)
    mean = data.x.mean(axis=0).astype(np.float32)
    scale = (data.x.std(axis=0) + 1e-6).astype(np.float32)
    X = torch.from_numpy((data.x - mean) / scale)
    Y = torch.from_numpy(np.stack([data.win, data.wrong], axis=1).astype(np.float32))
    widths = [X.shape[1], *map(int, hidden), 2]
    layers: list[Any] = []
    for i in range(len(widths) - 1):
        layers.append(torch.nn.Linear(widths[i], widths[i + 1]))
        if i < len(widths) - 2:
            layers.append(torch.nn.ReLU())
    net = torch.nn.Sequential(*layers)
    opt = torch.optim.Adam(net.parameters(), lr=lr)
    held = n // 10
    Xv, Yv, Xt, Yt = X[:held], Y[:held], X[held:], Y[held:]
    gen = torch.Generator().manual_seed(seed)
    best, best_state, bad, epoch = float("inf"), None, 0, 0
    for epoch in range(1, epochs + 1):
        perm = torch.randperm(len(Xt), generator=gen)
        for i in range(0, len(perm), minibatch):
            j = perm[i:i + minibatch]
            loss = ((net(Xt[j]) - Yt[j]) ** 2).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
        with torch.no_grad():
            v = float(((net(Xv) - Yv) ** 2).mean())
        if v < best - 1e-6:
            best, best_state, bad = v, {k: t.clone() for k, t in net.state_dict().items()}, 0
        else:
            bad += 1
            if bad >= patience:
                break
    assert best_state is not None
    net.load_state_dict(best_state)
    linear = [m for m in net if isinstance(m, torch.nn.Linear)]
    head = SolveTimingHead(num_players, mean, scale,
                           tuple((m.weight.detach().numpy().T.copy(), m.bias.detach().numpy().copy()) for m in linear),
                           float(lam), float(tau), num_rounds)
    base = float(((Yv - Yt.mean(dim=0)) ** 2).mean())
    return head, {"epochs": epoch, "held_out_mse": best, "held_out_mse_of_mean": base, "samples": n}


@dataclass
class Evaluation:
    """:func:`evaluate`'s figures (per game of the learner's seat; ``±``: 95 % normal intervals).

    Attributes:
        games: games played; switches: decisions the head changed.
        win_greedy, win_learner: mean win share of the seat as greedy / with the head.
        win_diff, win_diff_ci: the paired mean difference and its half-width.
        wrong_greedy, wrong_learner: wrong solves a game of the seat; wrong_others: of the other
            seats (greedy) in the learner's games.
        score_greedy, score_learner: mean final score of the seat.
    """

    games: int
    switches: int
    win_greedy: float
    win_learner: float
    win_diff: float
    win_diff_ci: float
    wrong_greedy: float
    wrong_learner: float
    wrong_others: float
    score_greedy: float
    score_learner: float


def _play_seat(config: GameConfig, games: int, seed: int, head: "SolveTimingHead | None",
               batch_size: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, int]:
    P = config.num_players
    win, wrong, others, score = [], [], [], []
    switches = 0
    for c in range(-(-games // batch_size)):
        B = min(batch_size, games - c * batch_size)
        learner = (np.arange(B) + c * batch_size) % P
        state = init(config, B, game_states(seed, c, B))

        def override(sub: State, g: np.ndarray, players: np.ndarray, actions: np.ndarray) -> np.ndarray:
            nonlocal switches
            rows = np.flatnonzero(players == learner[g])
            if head is None or not rows.size:
                return actions
            part = sub.take(rows)
            x = encode_state(ENCODING, part, config, players[rows])
            choices = _compact_choices(actions[rows])
            mask = policy_mask(legal_action_mask(part))[:, :SOLVE_BASE]
            new = head.apply(x, choices, mask)
            changed = np.flatnonzero(new != choices)
            if changed.size:
                switches += int(changed.size)
                actions = actions.copy()
                actions[rows[changed]] = _engine_actions(part.take(changed), config, players[rows[changed]],
                                                         new[changed])
            return actions

        play_to_end(state, config, GreedySeats(B, P), override)
        n = np.arange(B)
        win.append(win_shares(state, config)[n, learner])
        w = state.penalty // 2
        wrong.append(w[n, learner])
        others.append((w.sum(axis=1) - w[n, learner]) / (P - 1))
        score.append(state.score[n, learner])
    cat = np.concatenate
    return cat(win), cat(wrong).astype(float), cat(others).astype(float), cat(score).astype(float), switches


def evaluate(head: SolveTimingHead, config: GameConfig, games: int, seed: int, batch_size: int = 1024) -> Evaluation:
    """One seat with the head on greedy's choices against greedy in the other seats, and the same
    games with greedy in that seat too (paired: same seeds; the seat rotates with the game index),
    in batch. Greedy in batch plays as :class:`pi_env.agents.greedy.GreedyAgent` (tested), so the
    seat plays as a ``"compact-v4"`` clone of greedy with the head would, where the clone agrees
    with greedy."""
    w0, r0, _, s0, _ = _play_seat(config, games, seed, None, batch_size)
    w1, r1, o1, s1, switches = _play_seat(config, games, seed, head, batch_size)
    d = w1 - w0
    return Evaluation(int(games), switches, float(w0.mean()), float(w1.mean()), float(d.mean()),
                      float(1.96 * d.std(ddof=1) / np.sqrt(len(d))), float(r0.mean()), float(r1.mean()),
                      float(o1.mean()), float(s0.mean()), float(s1.mean()))


def load_branches(paths: Sequence[str], num_players: int) -> Branches:
    """The branches of one or several ``branches.npz`` files (:meth:`Branches.save`), joined in
    order (:meth:`Branches.join`), each checked to hold ``num_players``-player samples.

    Raises:
        PIError: a file that cannot be read as branches, or whose rows are not ``float[N, F]`` with
            ``F`` the head's columns at ``num_players`` (one line naming the file); a file given
            twice (its samples would be both held out and fitted); no sample in any file.
    """
    F = len(head_columns(num_players))
    parts = []
    seen: dict[Path, str] = {}
    for path in paths:
        key = Path(path).resolve()
        if key in seen:
            raise PIError(f"{path!r} is given twice (as {seen[key]!r} before); give each collection once")
        seen[key] = path
        try:
            data = Branches.load(path)
        except Exception as exc:  # noqa: BLE001 - any unreadable file is one line
            raise PIError(f"{path!r} is not a branches file ({type(exc).__name__})") from None
        n = len(data.win)
        if data.x.ndim != 2 or data.x.shape != (n, F) or any(
                len(getattr(data, f)) != n for f in ("wrong", "greedy_solves", "game", "turn", "player")):
            raise PIError(f"{path!r} holds rows of shape {list(data.x.shape)}, not {num_players}-player "
                          f"branches ({F} columns)")
        parts.append(data)
    if not any(len(p.win) for p in parts):
        raise PIError(f"{', '.join(map(repr, paths))} hold no branch samples")
    return parts[0] if len(parts) == 1 else Branches.join(parts)


def main(argv: "Sequence[str] | None" = None) -> int:
    """The command line (module docstring)."""
    ap = argparse.ArgumentParser(prog="python -m pi_env.rl.solve_timing",
                                 description="Learn a solve-timing head from greedy's games (module docstring).")
    ap.add_argument("players", choices=["2p", "3p", "4p", "5p"], help="player count")
    ap.add_argument("--init", required=True, help="the compact-v4 policy the head goes on (model file or zoo name)")
    ap.add_argument("--games", type=int, default=65536,
                    help="games to branch (default 65536; with --data, the files' games are used instead)")
    ap.add_argument("--branch", type=float, default=0.5, help="chance that an eligible decision branches")
    ap.add_argument("--lam", type=float, required=True, help="λ: win share per wrong solve")
    ap.add_argument("--tau", type=float, default=0.0, help="τ: margin in win share (default 0)")
    ap.add_argument("--hidden", type=int, nargs="+", default=[128, 128], help="hidden widths (default 128 128)")
    ap.add_argument("--seed", type=int, required=True, help="seed of the collection and the fit")
    ap.add_argument("--eval-games", type=int, default=8192, help="evaluation games in batch (0: none)")
    ap.add_argument("--eval-seed", type=int, default=None, help="seed of the evaluation (default seed + 1)")
    ap.add_argument("--data", nargs="+", default=None, metavar="BRANCHES",
                    help="reuse branches.npz files instead of collecting (several: joined in order, Branches.join)")
    ap.add_argument("--out", required=True, help="output directory (must not hold a policy.pt)")
    a = ap.parse_args(argv)
    P = int(a.players[0])
    out = Path(a.out)

    def fail(message: str) -> "NoReturn":
        ap.exit(2, f"{ap.prog}: error: {message}\n")  # one line, no usage, before anything is written

    if (out / "policy.pt").exists():
        fail(f"--out: {out / 'policy.pt'} exists; choose another --out")
    if out.exists() and not out.is_dir():
        fail(f"--out: {out} is a file, not a directory")
    if not a.data and (out / "branches.npz").exists():
        fail(f"--out: {out / 'branches.npz'} exists; reuse it with --data or choose another --out")
    if a.games < 1:
        fail(f"--games must be at least 1, got {a.games}")
    if a.eval_games < 0:
        fail(f"--eval-games must be at least 0, got {a.eval_games}")
    if not 0.0 < a.branch <= 1.0:
        fail(f"--branch must be in (0, 1], got {a.branch}")
    if not np.isfinite(a.lam):
        fail(f"--lam must be a finite number, got {a.lam}")
    if not (np.isfinite(a.tau) or a.tau == np.inf):
        fail(f"--tau must be a finite number or inf, got {a.tau}")
    if min(a.hidden) < 1:
        fail(f"--hidden widths must be at least 1, got {a.hidden}")
    try:
        net, meta = load_model(a.init)
    except PIError as exc:
        fail(f"--init: {exc}")
    if meta["encoding"] != ENCODING or int(meta["num_players"]) != P:
        fail(f"--init must be a {ENCODING} policy for {P} players, got {meta['encoding']} for {meta['num_players']}")
    data = None
    if a.data:
        try:
            data = load_branches(a.data, P)
        except PIError as exc:
            fail(f"--data: {exc}")
    if meta.get("solve_timing") is not None:  # a shipped learned:Np: its policy is kept, its head replaced
        print(f"note: --init {a.init} has a solve-timing head already; the head fitted here replaces it "
              "(the policy network is kept)", file=sys.stderr)
    out.mkdir(parents=True, exist_ok=True)
    import torch

    torch.set_num_threads(1)
    config = GameConfig(num_players=P)
    t0 = time.time()
    if data is None:
        data = collect(config, a.games, a.seed, branch=a.branch)
        data.save(out / "branches.npz")
    t1 = time.time()
    try:
        head, figures = fit(data, P, lam=a.lam, tau=a.tau, hidden=a.hidden, seed=a.seed)
    except PIError as exc:
        fail(str(exc))
    t2 = time.time()
    card = dict(meta["card"])
    card["solve_timing"] = {"command": "python -m pi_env.rl.solve_timing " + " ".join(argv or sys.argv[1:]),
                            "games": data.num_games if a.data else a.games, "branch": a.branch, "seed": a.seed,
                            "lam": a.lam, "tau": a.tau,
                            "hidden": list(a.hidden), "fit": figures, "collect_seconds": round(t1 - t0, 1),
                            "fit_seconds": round(t2 - t1, 1), "init": a.init}
    if a.eval_games:
        ev = evaluate(head, config, a.eval_games, a.seed + 1 if a.eval_seed is None else a.eval_seed)
        card["solve_timing"]["evaluation"] = {**ev.__dict__, "seed": a.seed + 1 if a.eval_seed is None else a.eval_seed}
        print(f"evaluation ({ev.games} games in batch against greedy): win share {ev.win_greedy:.4f} as greedy, "
              f"{ev.win_learner:.4f} with the head (paired {ev.win_diff:+.4f} ± {ev.win_diff_ci:.4f}); wrong solves "
              f"a game {ev.wrong_greedy:.3f} -> {ev.wrong_learner:.3f} (other seats {ev.wrong_others:.3f}); "
              f"{ev.switches} decisions changed")
    save_model(net, out / "policy.pt", encoding=ENCODING, num_players=P, card=card, solve_timing=head)
    write_text_atomic(out / "card.json", json.dumps(card, indent=2, default=float) + "\n")
    print(f"wrote {out / 'policy.pt'} ({len(data.win)} samples, fit {figures['epochs']} epochs)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
