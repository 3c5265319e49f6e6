"""Public API of the solver package: inputs accepted, shapes/dtypes, errors, isolation."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest

from pi_env.core.board import DAYTIME
from pi_env.core.constants import CASE_TRIPLES, NUM_CASES, TYPE_OFFSETS
from pi_env.records.record_file import load_record
from pi_env.solvers import Analysis, CaseFilter, Knowledge, analyze, case_bits, knowledge_of
from pi_env.solvers.tables import BITSET_WORDS, bitset_cases, from_bitset, to_bitset

from helpers import SOLVER_FIXTURES as FIXTURES

RECORD = FIXTURES / "5p_seed300.record.json"


def test_solvers_does_not_import_rl_frameworks() -> None:
    """The solver needs neither PettingZoo nor Gymnasium: it imports with both blocked (``import
    pi_env`` registers the Gymnasium ids when Gymnasium is there, and skips that when it is not)."""
    code = ("import sys; sys.modules['gymnasium'] = None; sys.modules['pettingzoo'] = None; "
            "import pi_env.solvers; print(sorted(m for m in sys.modules if m.split('.')[0] in "
            "('pettingzoo', 'gymnasium') and sys.modules[m] is not None))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_inputs_path_dict_record_round_knowledge_agree() -> None:
    record = load_record(RECORD)
    doc = json.loads(RECORD.read_text())
    results = [
        analyze(RECORD, 2),
        analyze(str(RECORD), 2),
        analyze(doc, 2),
        analyze(record, 2),
        analyze(record.rounds[0], 2, n_players=5, adjacency=record.board.adjacency),
        analyze(knowledge_of(record, 2), 2),
    ]
    for a in results[1:]:
        assert np.array_equal(a.cases, results[0].cases)
        assert np.array_equal(a.joint_counts, results[0].joint_counts)


def test_analysis_fields_shapes_and_consistency() -> None:
    a = analyze(RECORD, 0, after_event=20)
    assert isinstance(a, Analysis)
    assert a.cases.dtype == np.int64 and a.cases.shape == (a.count,)
    assert a.probabilities.dtype == np.float64 and a.probabilities.shape == (a.count,)
    assert a.joint_counts.dtype == np.int64 and a.own_cases.shape == (a.own_count,)
    assert [m.shape for m in a.marginals] == [(12,), (10,), (14,)]
    assert np.all(np.diff(a.cases) > 0)
    for t, marg in enumerate(a.marginals):
        for x in range(marg.size):
            assert marg[x] == pytest.approx(a.probabilities[CASE_TRIPLES[a.cases, t] == x].sum(), abs=1e-15)
    certain = {int(TYPE_OFFSETS[t] + x) for t, m in enumerate(a.marginals) for x in np.flatnonzero(m > 1 - 1e-12)}
    assert set(a.certain) == certain
    ranked = a.ranked()
    assert [c for c, _ in ranked] == sorted(a.cases.tolist(), key=lambda c: (-a.probability_of(c), c))
    assert a.probability_of(int(np.setdiff1d(np.arange(NUM_CASES), a.cases)[0])) == 0.0


def test_after_event_prefixes() -> None:
    record = load_record(RECORD)
    full = analyze(record, 1)
    assert np.array_equal(analyze(record, 1, after_event=10_000).cases, full.cases)
    before = analyze(record, 1, after_event=-1)
    assert before.own_count == before.count == 11 * 9 * 13  # only the held case's elements are gone
    # every unknown player (3 of them) picks from what p and the held case leave: falling factorials
    assert before.total == 11 * 9 * 13 * (10 * 9 * 8) * (8 * 7 * 6) * (12 * 11 * 10)
    assert np.allclose(before.probabilities, 1 / 1287, rtol=0, atol=1e-15)
    k = knowledge_of(record, 1, after_event=5)
    assert k.events.shape == (6, 7) and k.events.dtype == np.int32


def test_errors() -> None:
    record = load_record(RECORD)
    with pytest.raises(ValueError):
        analyze(record, 5)
    with pytest.raises(ValueError):
        analyze(record, 0, round_index=1)
    with pytest.raises(ValueError):
        analyze(record.rounds[0], 0)  # n_players required
    with pytest.raises(ValueError):
        analyze(knowledge_of(record, 0), 1)  # someone else's knowledge
    k = knowledge_of(record, 0)
    with pytest.raises(ValueError):
        k.events[0, 0] = 3  # read-only


def test_bitset_round_trip() -> None:
    rng = np.random.default_rng(0)
    mask = rng.random(NUM_CASES) < 0.3
    bits = to_bitset(mask)
    assert bits.dtype == np.uint64 and bits.shape == (BITSET_WORDS,)
    assert np.array_equal(from_bitset(bits), mask)
    assert np.array_equal(bitset_cases(bits), np.flatnonzero(mask))


def test_case_filter_and_case_bits_shapes() -> None:
    td = np.concatenate([np.arange(12), np.arange(10), np.arange(14)])
    k = Knowledge(0, 3, td, DAYTIME.adjacency, held_case=0)
    bits = case_bits(k)
    assert bits.shape == (3, BITSET_WORDS) and bits.dtype == np.uint64
    assert from_bitset(bits[1]).sum() == 1  # the held player's case is known
    f = CaseFilter(k)
    assert f.count == 11 * 9 * 13
    f.update(np.array([0, 0, 2, 0, 0, 0, 0], dtype=np.int32))  # own failed solve of case 0: not in set
    assert f.count == 11 * 9 * 13
    f.update(np.array([1, 0, 3, 1000, 0, 0, 0], dtype=np.int32))  # own correct solve
    assert f.cases.tolist() == [1000]
