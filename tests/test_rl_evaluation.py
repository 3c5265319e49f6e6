"""The learner's episode figures (wrong solves, the rank reward), the evaluation during training on
held-apart games (:mod:`pi_env.rl.evaluation`), and the training options that use them
(``--reward rank``, ``--eval-*``, the 3- and 5-player tasks)."""

from __future__ import annotations

import csv
import json

import numpy as np
import pytest

from pi_env.agents.learned import SOLVE_ACTION
from pi_env.core.errors import PIError, UnknownNameError
from pi_env.core.rules import WRONG_SOLVE_PENALTY
from pi_env.engine.ranking import rank_players
from pi_env.rl.engine_env import LearnerBatch
from pi_env.rl.evaluation import EVAL_SEED, evaluate
from helpers import need_extra


def _solving_policy(rate: float, seed: int):
    """A policy that solves with probability ``rate`` and otherwise asks a random legal query."""
    rng = np.random.default_rng(seed)

    def choose(x: np.ndarray, mask: np.ndarray) -> np.ndarray:
        query = (rng.random(mask.shape) * mask).argmax(1)
        query[query == SOLVE_ACTION] = SOLVE_ACTION
        return np.where(rng.random(len(mask)) < rate, SOLVE_ACTION, query)

    return choose


@pytest.mark.parametrize("num_players,edition", [(2, "second"), (4, "first"), (3, "second")])
def test_wrong_solves_per_game_are_the_penalty_points_the_engine_gave(num_players, edition):
    # the count is judged by the rule before the step; the engine's penalty points (2 per wrong
    # solve, never reset within a game) are an independent record of the same thing
    lb = LearnerBatch(12, num_players, ["random"] * (num_players - 1), seed=5, edition=edition, parallel=False)
    x, mask = lb.reset()
    choose = _solving_policy(0.15, 1)
    seen = 0
    for _ in range(400):
        st, seats = lb.venv.state, lb._seat.copy()
        x, mask, _, _, _, eps = lb.step(choose(x, mask))
        for b, ep in eps:
            seen += ep["wrong"] > 0
            assert ep["wrong"] == st.penalty[b, seats[b]] // WRONG_SOLVE_PENALTY, (b, ep)
    assert seen >= 5  # games with wrong solves were checked, not only clean ones


@pytest.mark.parametrize("edition,mode", [("second", "standard"), ("first", "standard"), ("second", "duel")])
def test_the_rank_reward_is_players_below_minus_players_above(edition, mode):
    P = 2 if mode == "duel" else 4
    lb = LearnerBatch(4, P, ["random"] * (P - 1), seed=1, edition=edition, mode=mode, parallel=False)
    lb.reset()
    st = lb.venv.state
    rng = np.random.default_rng(3)
    games, seats = np.repeat(np.arange(4), P), np.tile(np.arange(P), 4)
    for _ in range(30):  # random standings, ties on score included
        st.score[:] = rng.integers(-2, 3, size=st.score.shape)
        st.inv_left[:] = rng.integers(0, 2, size=st.inv_left.shape)
        st.penalty[:] = rng.integers(0, 2, size=st.penalty.shape)
        got = lb._ranks(st, games, seats)
        for g, s, r in zip(games, seats, got):
            ranks = rank_players(st.score[g], st.inv_left[g], st.penalty[g], edition, mode)
            below = sum(k > ranks[s] for k in ranks)
            above = sum(k < ranks[s] for k in ranks)
            assert r == (below - above) / (P - 1)


def test_rank_reward_episodes_return_their_rank():
    lb = LearnerBatch(16, 3, ["random"] * 2, seed=2, reward="rank", parallel=False)
    x, mask = lb.reset()
    choose, total, finished = _solving_policy(0.05, 4), np.zeros(16), 0
    for _ in range(300):
        x, mask, r, _, _, eps = lb.step(choose(x, mask))
        total += r
        for b, ep in eps:
            assert ep["r"] == pytest.approx(ep["rank"]) and total[b] == pytest.approx(ep["rank"])
            assert ep["rank"] in (-1.0, -0.5, 0.0, 0.5, 1.0)
            total[b], finished = 0, finished + 1
    assert finished >= 16
    with pytest.raises(PIError, match="reward must be one of 'win', 'score', 'rank', got 'place'"):
        LearnerBatch(2, 2, ["random"], reward="place")


def test_evaluation_counts_the_first_game_of_every_slot():
    # the same games replayed by hand: each slot's first game, its wrong solves from the penalty points
    games = 24
    got = evaluate(_solving_policy(0.2, 9), 2, "random", games)
    lb = LearnerBatch(games, 2, ["random"], seed=EVAL_SEED, reward="win")
    x, mask = lb.reset()
    choose, first = _solving_policy(0.2, 9), {}
    while len(first) < games:
        st, seats = lb.venv.state, lb._seat.copy()
        x, mask, _, _, _, eps = lb.step(choose(x, mask))
        for b, ep in eps:
            first.setdefault(b, (ep["win"], int(st.score[b, seats[b]]),
                                 int(st.penalty[b, seats[b]]) // WRONG_SOLVE_PENALTY, ep["l"]))
    rows = np.array([first[b] for b in range(games)], dtype=float)
    assert got.games == games
    assert (got.win_rate, got.score_mean, got.wrong_mean, got.length_mean) == pytest.approx(tuple(rows.mean(0)))
    assert got.wrong_mean > 0  # a policy that guesses shows it
    never = evaluate(lambda x, m: (m[:, :SOLVE_ACTION]).argmax(1), 2, "random", games)
    assert never.wrong_mean == 0.0
    assert evaluate(_solving_policy(0.2, 9), 2, "random", games) == got  # the same games every time
    assert got.row() == {"eval_win_rate": round(got.win_rate, 4), "eval_score_mean": round(got.score_mean, 4),
                         "eval_wrong_mean": round(got.wrong_mean, 4), "eval_length_mean": round(got.length_mean, 4)}


def test_evaluation_refuses_bad_arguments():
    with pytest.raises(PIError, match="evaluation games must be at least 1, got 0"):
        evaluate(lambda x, m: m.argmax(1), 2, "random", 0)
    with pytest.raises(UnknownNameError):
        evaluate(lambda x, m: m.argmax(1), 2, "nobody", 4)


def _train(tmp_path, *extra, task="3p", steps=2048):
    from pi_env.rl.cli import train_main

    out = tmp_path / "run"
    argv = [task, "--timesteps", str(steps), "--out", str(out), "--num-envs", "64", "--n-steps", "16",
            "--batch-size", "512", "--n-epochs", "1", "--trunk", "32", "--hidden", "16", "--no-progress", *extra]
    return train_main(argv), out


def test_training_evaluates_on_held_apart_games_and_writes_the_figures(tmp_path):
    need_extra("rl", "torch", "stable_baselines3", "sb3_contrib")
    from pi_env.agents.learned import load_model

    code, out = _train(tmp_path, "--eval-every", "1", "--eval-games", "16", "--eval-opponents", "gain",
                       "--reward", "rank")
    assert code == 0
    with open(out / "curve.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == 2 and all(r["eval_win_rate"] != "" for r in rows)
    assert all((r["wrong_mean"] != "") == (int(r["games"]) > 0) for r in rows) and rows[-1]["games"] != "0"
    run = json.loads((out / "run.json").read_text())
    ev = run["evaluation"]
    assert {k: ev[k] for k in ("games", "opponents", "seed")} == {"games": 16, "opponents": "gain", "seed": EVAL_SEED}
    assert ev["win_rate"] == float(rows[-1]["eval_win_rate"]) and ev["wrong_mean"] == float(rows[-1]["eval_wrong_mean"])
    assert run["reward"] == "rank" and run["settings"]["eval_games"] == 16 and run["task"] == "3p"
    assert load_model(str(out / "policy.pt"))[1]["card"]["evaluation"] == ev
    assert (out / "curve.png").stat().st_size > 10_000


@pytest.mark.parametrize("extra,message", [
    (("--seed", str(2**40)), "--seed: 1099511627776 is greater than the maximum of 549755813888"),
    (("--eval-games", "0"), "--eval-games: 0 is less than the minimum of 1"),
    (("--eval-every", "-1"), "--eval-every: -1 is less than the minimum of 0"),
    (("--eval-opponents", "nobody"), "--eval-opponents: "),
])
def test_bad_evaluation_options_are_one_line_and_write_nothing(tmp_path, capsys, extra, message):
    need_extra("rl", "torch", "stable_baselines3", "sb3_contrib")
    with pytest.raises(SystemExit) as exc:
        _train(tmp_path, *extra, task="5p")
    assert exc.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and message in err[0], err
    assert not (tmp_path / "run").exists()


def test_the_reward_choice_table_reads_each_runs_evaluation(tmp_path, capsys):
    from pi_env.experiments.reward_choice import main

    for reward, win in (("win", 0.25), ("score", 0.5)):
        d = tmp_path / reward
        d.mkdir()
        ev = {"games": 8, "opponents": "heuristic", "seed": EVAL_SEED, "win_rate": win, "score_mean": 1.5,
              "wrong_mean": 0.125, "length_mean": 20.0}
        (d / "run.json").write_text(json.dumps({"settings": {"reward": reward}, "timesteps": 4096, "seconds": 12.4,
                                                "evaluation": ev}))
        (d / "curve.csv").write_text("timesteps,win_rate,eval_win_rate,eval_wrong_mean\n2048,0.1,,\n"
                                     f"4096,0.2,{win},0.125\n")
    assert main([str(tmp_path / "win"), str(tmp_path / "score"), "--out", str(tmp_path / "f.png")]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[2:4] == ["| win | 4,096 | 12 | 8 (heuristic) | 0.25 | 1.5 | 0.125 | 20.0 |",
                          "| score | 4,096 | 12 | 8 (heuristic) | 0.5 | 1.5 | 0.125 | 20.0 |"]
    assert (tmp_path / "f.png").stat().st_size > 5_000
    (tmp_path / "score" / "curve.csv").write_text("timesteps,win_rate\n2048,0.1\n")
    with pytest.raises(SystemExit) as exc:
        main([str(tmp_path / "score"), "--out", str(tmp_path / "g.png")])
    assert exc.value.code == 2 and "curve.csv has no evaluated row" in capsys.readouterr().err
    assert not (tmp_path / "g.png").exists()
