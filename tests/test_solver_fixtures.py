"""The solver against the worked examples of tests/data/solver (docs/rules.md §9).

Every fixture, every player: own_count, count and every case with its exact probability; the SAT
model's consistent set; and information hygiene (the answer for p depends on no case but p+1's).
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import numpy as np
import pytest

from pi_env.core.constants import case_index
from pi_env.core.names import parse_element
from pi_env.records.record_file import load_record
from pi_env.solvers import CaseFilter, analyze, case_mask_reference, knowledge_of, sat_consistent_cases

from helpers import SOLVER_FIXTURES as FIXTURES
from helpers import fixture_players

RECORDS = sorted(FIXTURES.glob("*.record.json"))


def test_every_golden_position_is_present() -> None:
    """The 17 positions (4 with 3 players, 3 with 4, 10 with 5) each with its expected answers."""
    assert [p.name.split("_")[0] for p in RECORDS] == ["3p"] * 4 + ["4p"] * 3 + ["5p"] * 10
    assert all(p.with_name(p.name.replace(".record.json", ".expected.json")).is_file() for p in RECORDS)


def _expected(path: Path) -> dict:
    return json.loads(path.with_name(path.name.replace(".record.json", ".expected.json")).read_text())


def _case_id(entry: dict, board) -> int:
    s = parse_element(entry["suspect"], board, 0)
    e = parse_element(entry["evidence"], board, 1) - 12
    loc = parse_element(entry["location"], board, 2) - 22
    return case_index(s, e, loc)


@pytest.mark.parametrize("path,player", list(fixture_players(RECORDS)))
def test_fixture_exact(path: Path, player: int) -> None:
    record = load_record(path)
    want = _expected(path)[str(player)]
    a = analyze(record, player)
    assert a.own_count == want["own_count"]
    assert a.count == want["count"]
    expected = {_case_id(c, record.board): c["probability"] for c in want["cases"]}
    got = a.as_dict()
    assert set(got) == set(expected)
    for case, prob in expected.items():
        assert got[case] == pytest.approx(prob, abs=1e-12, rel=0)
    assert a.probabilities.sum() == pytest.approx(1.0, abs=1e-12)
    # the true case is always possible, and p's joint set lies inside its own set
    assert record.rounds[0].cases[player] in got
    assert set(a.cases) <= set(a.own_cases)


@pytest.mark.parametrize("path,player", list(fixture_players(RECORDS)))
def test_fixture_sat_model_agrees(path: Path, player: int) -> None:
    record = load_record(path)
    k = knowledge_of(record, player)
    assert set(np.flatnonzero(sat_consistent_cases(k))) == set(analyze(k, player).cases)


@pytest.mark.parametrize("path,player", list(fixture_players(RECORDS)))
def test_fixture_information_hygiene(path: Path, player: int) -> None:
    """Removing every case but the held one (p+1's) from the record changes nothing."""
    record = load_record(path)
    n = record.rules.players
    rnd = record.rounds[0]
    held = (player + 1) % n
    stripped = dataclasses.replace(rnd, cases={held: rnd.cases[held]})
    stripped_record = dataclasses.replace(record, rounds=(stripped,))
    a, b = analyze(record, player), analyze(stripped_record, player)
    assert np.array_equal(a.cases, b.cases) and np.array_equal(a.joint_counts, b.joint_counts)
    assert a.own_count == b.own_count and a.total == b.total


@pytest.mark.parametrize("path", RECORDS, ids=lambda p: p.name.split(".")[0])
def test_fixture_prefixes_numba_equals_numpy(path: Path) -> None:
    """Own filter after every event: batch numba, incremental numba and numpy reference agree, and
    the true case stays consistent."""
    record = load_record(path)
    n = record.rules.players
    for p in range(n):
        k = knowledge_of(record, p)
        inc = CaseFilter(k.prefix(0))
        for i in range(len(k.events) + 1):
            ki = k.prefix(i)
            ref = case_mask_reference(ki)
            assert np.array_equal(CaseFilter(ki).mask, ref)
            assert np.array_equal(inc.mask, ref)
            assert ref[record.rounds[0].cases[p]]
            if i < len(k.events):
                inc.update(k.events[i])
