"""Optimal solo play (issue 5 item 4): the branch-and-bound search against plain exhaustive
recursion on tiny instances, its bounds, and the experiment's plumbing."""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
import pytest

from pi_env.experiments.solo_optimal import (LayoutResult, format_table, gap_target, layout_of, main,
                                             read_results, solve_layout)
from pi_env.solvers.solo_optimum import (GUESS, INF, OptimalSearch, answer_codes, brute_force_value,
                                         counting_bound)

IS_INV = np.arange(50) >= 36


@pytest.fixture(scope="module")
def codes():
    return answer_codes(layout_of(3))


def restricted_sets(codes, rng, count, size):
    """Realistic small sets: the cases answering a few random queries alike, cut to ``size``."""
    out = []
    while len(out) < count:
        cases = np.arange(1680)
        for _ in range(int(rng.integers(1, 3))):
            row = codes[int(rng.integers(0, 50)), cases]
            cases = cases[row == rng.choice(np.unique(row))]
        if cases.size >= 4:
            out.append(np.sort(rng.choice(cases, min(size, cases.size), replace=False)))
    return out


def test_exact_search_equals_brute_force_on_the_real_tables(codes):
    rng = np.random.default_rng(5)
    for i, cases in enumerate(restricted_sets(codes, rng, 6, 12)):
        k = i % 3
        opt = OptimalSearch(codes, IS_INV, investigators=2)
        assert opt.value(cases, k) == brute_force_value(codes, IS_INV, cases, k), (cases, k)


def test_exact_search_equals_brute_force_on_synthetic_tables():
    rng = np.random.default_rng(11)
    for _ in range(60):
        n, a = int(rng.integers(3, 13)), int(rng.integers(1, 7))
        inv = rng.random(a) < 0.4
        codes = np.where(inv[:, None], rng.integers(0, 5, (a, n)), rng.integers(0, 3, (a, n))).astype(np.int8)
        k = int(rng.integers(0, 3))
        opt = OptimalSearch(codes, inv, investigators=2)
        assert opt.value(np.arange(n), k) == brute_force_value(codes, inv, range(n), k)


def test_refinement_dominance_equals_brute_force():
    # dominance is checked from dominance_from cases on (12 by default, so the tests above barely
    # reach it): check it at every node, on tables with planted refinements (row 1 refines row 0,
    # and row 2 when that is a clue; row 3 repeats row 0's partition with other labels)
    rng = np.random.default_rng(99)
    for _ in range(120):
        n, a = int(rng.integers(4, 12)), int(rng.integers(4, 8))
        codes, inv = _random_table(rng, n, a)
        codes[1] = codes[0] * 3 + codes[2] % 3
        codes[3] = 15 - codes[0]
        k = int(rng.integers(0, 3))
        opt = OptimalSearch(codes, inv, investigators=2, dominance_from=2)
        assert opt.value(np.arange(n), k) == brute_force_value(codes, inv, range(n), k)


def test_wrong_solves_are_part_of_the_optimum():
    # 4 cases, one clue splitting {0,1} | {2,3}: querying costs 4 + 3 + 3 = 10 = guessing's 4 + 6;
    # with 2 cases left a guess (1.5 actions on average) beats any query (2)
    codes = np.array([[0, 0, 1, 1]], dtype=np.int8)
    opt = OptimalSearch(codes, np.array([False]), investigators=0)
    assert opt.value(np.arange(2), 0) == 3 and opt.value(np.arange(4), 0) == 10
    assert opt.best_action(np.arange(2), 0) == GUESS + 0
    # nothing splits: name them one by one, 1 + 2 + 3 + 4
    flat = OptimalSearch(np.zeros((1, 4), dtype=np.int8), np.array([False]), investigators=0)
    assert flat.value(np.arange(4), 0) == 10


def test_investigators_are_limited():
    # only an investigator splits 4 ways; with none left the cases must be guessed
    codes = np.array([[0, 1, 2, 3]], dtype=np.int8)
    opt = OptimalSearch(codes, np.array([True]), investigators=1)
    assert opt.value(np.arange(4), 1) == 8 and opt.value(np.arange(4), 0) == 10


def test_counting_bound_is_a_lower_bound(codes):
    F = counting_bound(12, 2)
    rng = np.random.default_rng(3)
    for i, cases in enumerate(restricted_sets(codes, rng, 4, 12)):
        k = 2 * (i % 2)
        assert F[cases.size, k] <= brute_force_value(codes, IS_INV, cases, k)
    assert counting_bound(1680, 5)[1680, 5] / 1680 == pytest.approx(4.405, abs=1e-3)


def test_anytime_search_only_claims_proven_bounds(codes):
    rng = np.random.default_rng(8)
    for cases in restricted_sets(codes, rng, 6, 12):
        exact = brute_force_value(codes, IS_INV, cases, 1)
        opt = OptimalSearch(codes, IS_INV, investigators=1)
        for limit, beta in [(1, int(INF)), (2, exact), (3, exact + 1), (2, exact - 2), (0, exact)]:
            v, is_exact = opt.search(cases, 1, beta=beta, node_limit=limit)
            assert v <= exact and (not is_exact or v == exact)
        assert opt.value(cases, 1) == exact  # the memo filled by stopped searches stays sound


def test_root_search_and_policies_on_a_subproblem(codes):
    # the cases answering "investigate Lakeside: 1 spot, 1 trace" (a few dozen cases)
    cases = np.flatnonzero(codes[36] == 5)
    opt = OptimalSearch(codes, IS_INV, investigators=4)
    exact = opt.value(cases, 4)
    rollout = opt.rollout_value(cases, 4, exact_below=3)
    assert exact <= rollout
    res = OptimalSearch(codes, IS_INV, investigators=4).solve_root(cases, 4, rollout)
    assert res.exact and res.upper == res.lower == exact
    stopped = OptimalSearch(codes, IS_INV, investigators=4).solve_root(cases, 4, rollout,
                                                                       deadline=time.monotonic() - 1)
    assert stopped.lower <= exact <= stopped.upper == rollout
    # with a deadline the children are searched in node-limited chunks (200 nodes each here), each
    # building on the bounds the previous one stored: still exact
    chunked = OptimalSearch(codes, IS_INV, investigators=4)
    chunked._rate = 1.0
    res = chunked.solve_root(cases, 4, rollout, deadline=time.monotonic() + 300)
    assert res.exact and res.upper == res.lower == exact


def test_rollout_without_endgame_is_the_solvers_greedy(codes):
    # exact_below=1: the rollout is the greedy of pi_env.solvers.hints, whose expectation it must match
    from pi_env.solvers.hints import greedy_expected_actions

    cases = np.flatnonzero(codes[40] == 4)
    opt = OptimalSearch(codes, IS_INV, investigators=4)
    greedy = greedy_expected_actions(codes[:, cases].astype(np.int16), np.ones(cases.size), IS_INV, 4)
    assert opt.rollout_value(cases, 4, exact_below=1) / cases.size == pytest.approx(greedy, abs=1e-9)
    assert opt.value(cases, 4) <= opt.rollout_value(cases, 4, exact_below=3) <= greedy * cases.size


def _random_table(rng, n, a):
    inv = rng.random(a) < 0.4
    codes = np.where(inv[:, None], rng.integers(0, 5, (a, n)), rng.integers(0, 3, (a, n))).astype(np.int8)
    return codes, inv


def _random_instances(seed, count, cases, queries, investigators):
    """``count`` random instances ``(n, codes, inv, k, exact)``: ``n`` cases and ``a`` queries drawn
    from the half-open ranges ``cases`` and ``queries``, ``k`` from ``range(investigators)``, and
    the brute-force optimum of all ``n`` cases with ``k`` investigators."""
    rng = np.random.default_rng(seed)
    for _ in range(count):
        n, a = int(rng.integers(*cases)), int(rng.integers(*queries))
        codes, inv = _random_table(rng, n, a)
        k = int(rng.integers(0, investigators))
        yield n, codes, inv, k, brute_force_value(codes, inv, range(n), k)


def test_exchange_argument_behind_the_pair_bound():
    # the searches skip every solve once n + (n - 1) + F[n - 2] reaches the best value found; that is
    # sound because T >= min(best query, that pair bound), not because a solve's own value n + T(S - c)
    # is above it (it often is not): check both against brute force
    below = 0
    for n, codes, inv, k, total in _random_instances(21, 80, (4, 10), (1, 6), 3):
        a = codes.shape[0]
        F = counting_bound(n, 2, 3, 5)
        queries = [n + sum(brute_force_value(codes, inv, np.flatnonzero(codes[q] == v), k - int(inv[q]))
                           for v in np.unique(codes[q]))
                   for q in range(a) if np.unique(codes[q]).size > 1 and (k > 0 or not inv[q])]
        pair = n + (n - 1) + int(F[n - 2, k])
        assert total >= min(queries + [pair])
        solves = [n + brute_force_value(codes, inv, np.delete(np.arange(n), c), k) for c in range(n)]
        below += min(solves) < pair
    assert below > 0  # the naive bound "a solve costs at least the pair bound" is false


def test_root_search_equals_brute_force_where_solves_matter():
    # few, coarse queries: solving (wrong) first is often part of the optimum, so solve_root has to
    # search the solves (pair bound below the policy) and still end exact
    searched = 0
    for n, codes, inv, k, exact in _random_instances(4, 40, (4, 11), (1, 3), 2):
        opt = OptimalSearch(codes, inv, investigators=1)
        upper = n * (n + 1) // 2  # naming the cases one by one
        res = opt.solve_root(np.arange(n), k, upper)
        assert res.exact and res.upper == res.lower == exact
        searched += n + (n - 1) + int(opt.F[n - 2, k]) < upper
    assert searched > 0


@pytest.mark.slow
def test_experiment_row_and_table():
    r = solve_layout(0, 0, time_limit=5.0, exact_below=40)
    assert r.lower_bound <= r.best_policy <= r.rollout <= r.greedy
    assert format_table([r])[2].split()[:2] == ["0", "0"]


def test_targeted_depth_bound_is_proven_and_reaches_its_target():
    # lower_bound(target=t) refines nothing beyond t: it must stay below the exact value and be at
    # least min(the untargeted bound of the same depth, t); exact_upto=3 makes it use the depth
    # recursion on every set of the random tables (the exact search only below 4 cases)
    capped = 0
    for n, codes, inv, k, exact in _random_instances(17, 80, (5, 12), (2, 7), 3):
        for depth in (1, 2, 3):
            free, _ = OptimalSearch(codes, inv, investigators=2).lower_bound(np.arange(n), k, depth, exact_upto=3)
            assert free <= exact
            for t in (exact - 3, exact - 1, exact, exact + 2):
                v, complete = OptimalSearch(codes, inv, investigators=2).lower_bound(
                    np.arange(n), k, depth, exact_upto=3, target=t)
                assert complete and min(free, t) <= v <= exact, (n, k, depth, t, v, free, exact)
                capped += free > t
    assert capped > 0  # some targets were below the untargeted bound, so the cut-off was exercised


def test_targeted_bound_on_a_real_subproblem_never_passes_the_optimum(codes):
    cases = np.flatnonzero(codes[36] == 5)
    exact = OptimalSearch(codes, IS_INV, investigators=4).value(cases, 4)
    for t in (exact - 5, exact, int(INF)):
        v, _ = OptimalSearch(codes, IS_INV, investigators=4).lower_bound(cases, 4, 3, exact_upto=8, target=t)
        assert v <= exact
    v, _ = OptimalSearch(codes, IS_INV, investigators=4).lower_bound(cases, 4, 6, exact_upto=8, target=exact - 5)
    assert v >= exact - 5  # deep enough, the target is reached


def test_gap_target():
    # the least t with (best - t) / t <= gap %: 1000 / 1.01 = 990.1 -> 991
    assert gap_target(1000, 1.0) == 991 and (1000 - 991) / 991 <= 0.01 < (1000 - 990) / 990
    assert gap_target(1010, 1.0) == 1000 and gap_target(1000, 0.0) == 1000
    assert gap_target(9971, 1.0) == 9873  # layout 0: 9971 / 1.01 = 9872.3
    with pytest.raises(ValueError, match="gap"):
        gap_target(1000, -1.0)


def _row(layout, seed):
    return LayoutResult(layout=layout, seed=seed, greedy=6.5, rollout=6.0, best_policy=5.9, lower_bound=5.85,
                        gap_percent=0.85, exact=False, seconds=1.5, nodes=10, lookahead_depth=4,
                        first_action="investigate Trocadero", engine_mean=5.9)


def test_results_round_trip_and_resume_keeps_them(tmp_path, capsys):
    from pi_env.experiments.solo_optimal import _report

    out = tmp_path / "opt.csv"
    _report([_row(1, 1), _row(0, 0)], out)
    assert read_results(out) == [_row(0, 0), _row(1, 1)]  # written in layout order
    old = tmp_path / "old.csv"  # a CSV of before the engine_mean column: read, the column NaN
    old.write_text("\n".join(",".join(line.split(",")[:-1]) for line in out.read_text().splitlines()) + "\n")
    assert [np.isnan(r.engine_mean) and r.first_action for r in read_results(old)] == ["investigate Trocadero"] * 2
    before = out.read_bytes()
    with pytest.raises(SystemExit):  # an existing file is never replaced without --force
        main(["--layouts", "2", "--out", str(out)])
    assert "--resume" in capsys.readouterr().err and out.read_bytes() == before
    assert main(["--layouts", "2", "--out", str(out), "--resume"]) == 0  # both kept: nothing to solve
    assert out.read_bytes() == before and "layouts 0, 1 kept" in capsys.readouterr().out
    assert main(["--layouts", "1", "--out", str(out), "--resume"]) == 0  # layout 1 is kept too
    assert out.read_bytes() == before
    with pytest.raises(SystemExit):  # layout 0 of seed 5 is not the row of seed 0
        main(["--layouts", "1", "--seed", "5", "--out", str(out), "--resume"])
    assert "resume with --seed 0" in capsys.readouterr().err and out.read_bytes() == before


@pytest.mark.parametrize("flags, message", [(["--gap", "nan"], "--gap must be"), (["--gap", "-1"], "--gap must be"),
                                            (["--time-limit", "0"], "--time-limit must be"),
                                            (["--time-limit", "inf"], "--time-limit must be"),
                                            (["--table-bits", "1"], "--table-bits must be 4..34, got 1"),
                                            (["--workers", "0"], "--workers must be at least 1, got 0"),
                                            (["--layouts", "0"], "--layouts must be at least 1, got 0"),
                                            (["--investigators", "15"], "--investigators must be 0..14")])
def test_bad_flags_are_refused_before_any_work(tmp_path, capsys, flags, message):
    with pytest.raises(SystemExit):
        main(["--layouts", "1", "--out", str(tmp_path / "x.csv"), *flags])
    assert message in capsys.readouterr().err and not (tmp_path / "x.csv").exists()


@pytest.mark.parametrize("flags", [[], ["--force"], ["--resume"]])
def test_out_directory_is_refused_before_any_work(tmp_path, capsys, flags):
    with pytest.raises(SystemExit):
        main(["--layouts", "1", "--out", str(tmp_path), *flags])
    assert f"--out: {tmp_path} is a directory, not a file" in capsys.readouterr().err


def test_a_tiny_table_is_refused():
    with pytest.raises(ValueError, match="table_bits must be 4..34"):
        OptimalSearch(np.zeros((1, 4), np.int8), np.zeros(1, bool), table_bits=1)


def test_malformed_results_file_is_named(tmp_path, capsys):
    bad = tmp_path / "bad.csv"
    bad.write_text("layout,seed\n0,0\n", encoding="utf-8")
    with pytest.raises(ValueError, match="not a solo_optimal CSV"):
        read_results(bad)
    from pi_env.experiments.solo_optimal import _report

    _report([_row(0, 0)], bad)
    bad.write_text(bad.read_text(encoding="utf-8").replace("False", "maybe"), encoding="utf-8")
    with pytest.raises(ValueError, match=r"line 2, column exact: 'maybe' is not True or False"):
        read_results(bad)
    with pytest.raises(SystemExit):
        main(["--layouts", "1", "--out", str(bad), "--resume"])
    assert "column exact" in capsys.readouterr().err


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc (Linux)")
def test_sigterm_stops_the_workers_and_keeps_the_file(tmp_path):
    # a killed run must not leave worker processes computing (they did, before: orphans of a pool)
    import signal
    import subprocess
    import sys

    def children(pid):
        out = []
        for d in Path("/proc").iterdir():
            if d.name.isdigit():
                try:
                    fields_ = (d / "stat").read_text().rsplit(")", 1)[1].split()
                except OSError:
                    continue
                if int(fields_[1]) == pid:
                    out.append(int(d.name))
        return out

    out = tmp_path / "opt.csv"
    proc = subprocess.Popen([sys.executable, "-m", "pi_env.experiments.solo_optimal", "--layouts", "2", "--workers", "2",
                             "--time-limit", "600", "--out", str(out)], cwd=Path(__file__).resolve().parents[1],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 120
    while len(children(proc.pid)) < 3 and time.monotonic() < deadline:  # 2 workers + resource tracker
        time.sleep(0.2)
    kids = children(proc.pid)
    assert len(kids) >= 2, kids
    time.sleep(1.0)
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130 and "no layout had finished, nothing written; run again with --resume" in err, err
    time.sleep(0.5)
    alive = [k for k in kids if Path(f"/proc/{k}").exists() and "Z" not in
             Path(f"/proc/{k}/stat").read_text().rsplit(")", 1)[1].split()[0]]
    assert alive == [], alive
    assert not out.exists()  # no layout finished: nothing written


def test_optimal_policy_played_in_the_engine_takes_its_value(codes):
    # the exact policy on a subproblem, played by the solo rules engine on each of its cases: the
    # engine's action counts add up to the optimum the search computed
    from pi_env.solvers.solo_optimum import play_in_engine

    cases = np.flatnonzero(codes[36] == 5)  # "investigate Lakeside: 1 spot, 1 trace"
    opt = OptimalSearch(codes, IS_INV, investigators=4)
    counts = play_in_engine(opt, layout_of(3), 4, cases=cases)
    assert counts.shape == cases.shape and counts.min() >= 1
    assert int(counts.sum()) == opt.value(cases, 4)
    # a table that disagrees with the engine is caught
    wrong = codes.copy()
    wrong[:36] = (wrong[:36] + 1) % 3
    with pytest.raises(RuntimeError, match="excludes it"):
        play_in_engine(OptimalSearch(wrong, IS_INV, investigators=4), layout_of(3), 4, cases=cases)
