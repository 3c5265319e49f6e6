"""The solo strategy benchmark (issue #4, item 3): same positions for every agent, statistics that
match its CSV, the solo-to-standard observation adapter."""

from __future__ import annotations

import csv

import numpy as np
import pytest

from pi_env.experiments import strategy_benchmark as sb
from pi_env.core.constants import SOLVE_BASE
from pi_env.engine import solo
from pi_env.solvers import analyze_knowledge, knowledge_from_observation


def _read(path):
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def test_statistics_recomputed_from_the_csv(tmp_path):
    agents = ["greedy", "deducer", "random"]
    summary = sb.run(agents, positions=4, seed=11, out=tmp_path, max_actions=40)
    rows = _read(tmp_path / sb.POSITIONS_FILE)
    assert [r["agent"] for r in rows] == [a for a in agents for _ in range(4)]
    assert [int(r["seed"]) for r in rows] == [11, 12, 13, 14] * 3  # the same positions for all
    table = {r["agent"]: r for r in _read(tmp_path / sb.SUMMARY_FILE)}
    for entry in summary:
        mine = [r for r in rows if r["agent"] == entry["agent"]]
        solved = [r for r in mine if r["solved"] == "1"]
        assert entry["positions"] == 4 and entry["solved"] == len(solved)
        assert int(table[entry["agent"]]["solved"]) == len(solved)
        for m in sb.METRICS:
            v = np.array([int(r[m]) for r in solved], dtype=float)
            for stat, value in (("mean", v.mean() if v.size else None),
                                ("median", np.median(v) if v.size else None),
                                ("p90", np.percentile(v, 90) if v.size else None)):
                assert entry[f"{m}_{stat}"] == value
                written = table[entry["agent"]][f"{m}_{stat}"]
                assert (written == "") if value is None else (float(written) == value)
        for r in mine:  # unsolved games were cut off at 40 actions
            assert int(r["actions"]) <= 40 and (r["solved"] == "1" or int(r["actions"]) == 40)
    by = {e["agent"]: e for e in summary}
    assert by["greedy"]["solved"] == 4 and by["deducer"]["solved"] == 4
    assert by["greedy"]["wrong_solves_mean"] == 0.0  # greedy never gambles with no one racing it
    assert (tmp_path / sb.PLOT_FILE).stat().st_size > 1000
    lines = sb.table(summary)
    assert lines[0].startswith("agent") and len(lines) == 4


@pytest.mark.parametrize("agent", ["greedy", "heuristic"])
def test_agents_replay_identically(agent):
    assert sb.play_positions(agent, 2, seed=3) == sb.play_positions(agent, 2, seed=3)


def test_standard_view_of_a_solo_game():
    """The adapter shows the agent's answers as seat 0's of a 2-player observation without a held
    case: the solver's cases are exactly the solo own-information cases (the true one among them)."""
    config = solo.SoloConfig()
    state = solo.init(config, 1, seed=5)
    true = solo.case_of(state)
    for a in (0, 14, 30, 36 + 3, SOLVE_BASE + (true + 1) % 1680):
        solo.step_inplace(state, np.array([a]), config)
    view = solo.standard_view(solo.observe(state)[0])
    k = knowledge_from_observation(view, 2, config.board)
    assert k.held_case == -1
    an = analyze_knowledge(k)
    assert true in an.cases and (true + 1) % 1680 not in an.cases
    assert np.allclose(an.probabilities, 1.0 / an.count)  # uniform, as in solo
    assert an.count == an.own_count


def test_command_line(tmp_path, capsys):
    assert sb.main(["--positions", "2", "--seed", "1", "--agents", "deducer,heuristic",
                    "--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "deducer" in out and "heuristic" in out and "2/2" in out
    assert (tmp_path / sb.SUMMARY_FILE).exists()
