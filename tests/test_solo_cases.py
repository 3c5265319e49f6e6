"""Solo case generator (issue 5 item 2): determinism for seeds and dates, difficulty buckets against
an independent re-implementation of the greedy policy, record and setup sheet, ``pi-env solo generate``."""

from __future__ import annotations

import json

import numpy as np
import pytest

from pi_env.core.board import DAYTIME
from pi_env.apps.cli import main
from pi_env.core.constants import EVIDENCE_NAMES, SUSPECT_NAMES
from pi_env.engine import solo as S
from pi_env.core.errors import PIError
from pi_env.records.record_file import load_record
from pi_env.envs.solo import SoloTimeAttackEnv
from pi_env.apps.solo_cases import case_record, date_seed, generate, setup_sheet, write_case
from pi_env.solvers.solo_rating import DIFFICULTIES, THRESHOLDS, difficulty_of, greedy_play
from pi_env.solvers.tables import answer_tables

TOL = 1e-9  # pi_env.solvers.hints.GAIN_TOLERANCE
POP3 = np.array([0, 1, 1, 2, 1, 2, 2, 3])


def reference_greedy(td, case, adjacency, investigators=5):
    """The greedy policy written from its definition, from the answer tables alone: uniform weights
    over the cases consistent with the answers so far; solve when one is left; else the query of
    highest answer entropy (ties within TOL to the lowest action id); if none splits, name the
    lowest remaining case. Returns (actions, investigators used, wrong solves, trace)."""
    T = answer_tables(np.asarray(td), adjacency)
    alive = np.ones(1680, dtype=bool)
    marked_sup = np.zeros(14, dtype=np.int64)  # per district: types whose tile carries a marker
    used: set[int] = set()
    trace: list[int] = []
    wrong = 0
    td = np.asarray(td)

    def codes(a, cases):
        if a < 36:
            return T.clue_answers[a, cases].astype(np.int64)
        d = a - 36
        keep = 7 & ~marked_sup[d]
        return 4 * POP3[T.investigation_spots[d, cases] & keep] + POP3[T.investigation_traces[d, cases] & keep]

    while True:
        cases = np.flatnonzero(alive)
        if cases.size == 1:
            trace.append(50 + int(cases[0]))
            return len(trace), len(used), wrong, tuple(trace)
        cands = list(range(36))
        if len(used) < investigators:
            cands += [36 + d for d in range(14) if d not in used]
        gains = []
        for a in cands:
            _, counts = np.unique(codes(a, cases), return_counts=True)
            p = counts / cases.size
            gains.append(float(-(p * np.log2(p)).sum()))
        gains = np.array(gains)
        if gains.max() <= TOL:
            c = int(cases[0])
            trace.append(50 + c)
            if c == case:
                return len(trace), len(used), wrong, tuple(trace)
            alive[c] = False
            wrong += 1
            continue
        a = cands[int(np.flatnonzero(gains >= gains.max() - TOL)[0])]
        trace.append(a)
        answer = codes(a, np.array([case]))[0]
        alive &= np.isin(np.arange(1680), cases) & (codes(a, np.arange(1680)) == answer)
        if a < 36:
            if answer > 0:
                t = 0 if a < 12 else 1 if a < 22 else 2
                marked_sup[td[a]] |= 1 << t
        else:
            used.add(a - 36)


def test_greedy_matches_the_reference_policy():
    config = S.SoloConfig()
    for seed in range(25):
        state = S.init(config, 1, seed=seed)
        td, case = state.tile_district[0], S.case_of(state)
        g = greedy_play(td, case)
        assert (g.actions, g.investigators, g.wrong_solves, g.trace) == reference_greedy(td, case, DAYTIME.adjacency)
        assert g.trace[-1] == 50 + case


def test_greedy_with_few_investigators():
    config = S.SoloConfig()
    for seed in range(6):
        state = S.init(config, 1, seed=seed)
        td, case = state.tile_district[0], S.case_of(state)
        for k in (0, 1):
            g = greedy_play(td, case, investigators=k)
            assert g.investigators <= k
            assert (g.actions, g.investigators, g.wrong_solves, g.trace) == \
                reference_greedy(td, case, DAYTIME.adjacency, investigators=k)


def test_generate_is_deterministic_and_is_the_env_case():
    a, b = generate(12), generate(12)
    assert a == b and a.seed == 12 and a.base_seed == 12
    env = SoloTimeAttackEnv()
    env.reset(seed=12)
    assert tuple(env.game_state.tile_district[0]) == a.tile_district
    assert S.case_of(env.game_state) == a.case
    assert generate(13).tile_district != a.tile_district
    assert generate() == generate(0)


def test_daily_seed_and_date():
    assert date_seed("2024-05-01") == 20240501
    import datetime
    assert date_seed(datetime.date(1999, 12, 31)) == 19991231
    d = generate(date="2024-05-01")
    # one daily case per date and difficulty: the plain daily is the daily medium case, found by
    # the search from YYYYMMDD * 1000 (the first medium case there is that seed's)
    assert d == generate(date="2024-05-01", difficulty="medium") == generate(date="2024-05-01")
    assert (d.base_seed, d.target, d.difficulty, d.date) == (20240501000, "medium", "medium", "2024-05-01")
    plain = generate(20240501000, difficulty="medium")  # the same case from its block's first seed
    assert (d.seed, d.tile_district, d.case) == (plain.seed, plain.tile_district, plain.case)
    assert generate(date="2024-05-01", difficulty="hard").seed != d.seed
    for bad in ("2024-5-1", "2024-02-30", "tomorrow"):
        with pytest.raises(PIError, match="YYYY-MM-DD"):
            date_seed(bad)
    with pytest.raises(PIError, match="not both"):
        generate(1, date="2024-05-01")


@pytest.mark.parametrize("difficulty", DIFFICULTIES)
def test_difficulty_target_is_the_first_seed_in_the_bucket(difficulty):
    for base in (0, 500):
        c = generate(base, difficulty=difficulty)
        assert c.base_seed == base and c.seed >= base and c.difficulty == difficulty
        state = S.init(S.SoloConfig(), 1, seed=c.seed)
        actions, _, _, _ = reference_greedy(state.tile_district[0], S.case_of(state), DAYTIME.adjacency)
        assert c.greedy.actions == actions
        lo, hi = {"easy": (0, THRESHOLDS[0]), "medium": (THRESHOLDS[0] + 1, THRESHOLDS[1]),
                  "hard": (THRESHOLDS[1] + 1, 10**6)}[difficulty]
        assert lo <= actions <= hi
        for s in range(base, c.seed):  # every skipped seed is in another bucket
            st = S.init(S.SoloConfig(), 1, seed=s)
            skipped = reference_greedy(st.tile_district[0], S.case_of(st), DAYTIME.adjacency)[0]
            assert difficulty_of(skipped) != difficulty


def test_difficulty_distribution_is_spread():
    buckets = [generate(s).difficulty for s in range(120)]
    assert set(buckets) == set(DIFFICULTIES)
    assert buckets.count("medium") > buckets.count("easy") > 0 and buckets.count("hard") > 0


def test_record_and_setup_sheet(tmp_path):
    c = generate(date="2024-05-01", difficulty="hard")
    rec_path, sheet_path = write_case(c, tmp_path / "case.json")
    assert sheet_path == tmp_path / "case.txt"
    record = load_record(rec_path)
    assert record.rules.mode == "solo" and record.rules.players == 1
    assert record.rules.investigators == (5,) and record.seed == c.seed
    rnd = record.rounds[0]
    assert rnd.tile_district == c.tile_district and rnd.cases == {0: c.case} and rnd.events == ()
    assert record == load_record(json.loads(rec_path.read_text()))
    assert case_record(c).rounds[0].cases == {0: c.case}
    sheet = sheet_path.read_text()
    assert sheet == setup_sheet(c)
    assert "daily case 2024-05-01" in sheet and "Difficulty: hard" in sheet
    rows = {line[:17].strip(): line[17:].split() for line in sheet.splitlines()
            if line[:17].strip() in DAYTIME.districts}
    assert len(rows) == 14
    for x in range(12):
        assert SUSPECT_NAMES[x] in " ".join(rows[DAYTIME.districts[c.tile_district[x]]])
    for x in range(10):
        assert EVIDENCE_NAMES[x] in " ".join(rows[DAYTIME.districts[c.tile_district[12 + x]]])
    # the sheet never names the case
    s, e, l = c.case // 140, (c.case // 14) % 10, c.case % 14
    solution = f"{SUSPECT_NAMES[s]} / {EVIDENCE_NAMES[e]} / {DAYTIME.districts[l]}"
    assert solution not in sheet
    with pytest.raises(PIError, match="exists"):
        write_case(c, tmp_path / "case.json")
    write_case(generate(3), tmp_path / "case.json", force=True)
    assert load_record(rec_path).seed == 3


def run(capsys, *argv):
    try:
        code = main(list(argv))
    except SystemExit as exc:  # argparse errors
        code = exc.code
    out, err = capsys.readouterr()
    return code, out, err


def test_cli_generate_files_and_same_case_for_same_seed_or_date(capsys, tmp_path):
    out = tmp_path / "daily.json"
    code, text, err = run(capsys, "solo", "generate", "--daily", "2024-05-01", "--difficulty", "easy",
                          "--out", str(out))
    assert code == 0 and err == ""
    c = generate(date="2024-05-01", difficulty="easy")
    assert f"seed {c.seed}" in text and "difficulty easy" in text
    assert load_record(out).seed == c.seed and (tmp_path / "daily.txt").read_text() == setup_sheet(c)
    first = out.read_text()
    code, _, _ = run(capsys, "solo", "generate", "--daily", "2024-05-01", "--difficulty", "easy",
                     "--out", str(out), "--force")
    assert code == 0 and out.read_text() == first
    code, _, _ = run(capsys, "solo", "generate", "--seed", "20240501", "--out", str(tmp_path / "s.json"))
    assert load_record(tmp_path / "s.json").rounds[0].cases == {0: generate(20240501).case}


@pytest.mark.parametrize("argv,message", [
    (["--daily", "2024-02-30"], "pi-env solo generate: error: argument --daily: date must be a valid YYYY-MM-DD date"),
    (["--seed", "-3"], "pi-env solo generate: error: argument --seed: seed must be an integer 0..2**63-1"),
    (["--seed", "1", "--daily", "2024-01-01"], "not allowed with argument"),
    (["--difficulty", "insane"], "argument --difficulty: invalid choice: 'insane'"),
    (["--investigators", "15"], "investigators must be 0..14"),
    (["--out", "case.txt"], "pi-env: error: --out case.txt: the record must not be a .txt file"),
    (["--out", ""], "pi-env: error: --out '': give a file name for the record (e.g. case.json), not a directory"),
    (["--out", "."], "pi-env: error: --out '.': give a file name for the record (e.g. case.json), not a directory"),
    (["--out", "/", "--force"], "pi-env: error: --out '/': give a file name for the record"),
    (["--out", "sub/"], "pi-env: error: --out 'sub/': give a file name for the record"),
    (["--out", "adir", "--force"], "pi-env: error: --out 'adir': give a file name for the record"),
])
def test_cli_errors_are_one_line(capsys, tmp_path, monkeypatch, argv, message):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "adir").mkdir()
    code, out, err = run(capsys, "solo", "generate", *argv)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and message in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["adir"] and not any((tmp_path / "adir").iterdir())


def test_cli_refuses_to_overwrite(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "case.txt").write_text("mine")
    code, out, err = run(capsys, "solo", "generate")
    assert code == 2 and err == "pi-env: error: case.txt exists; use --force to overwrite it\n"
    assert not (tmp_path / "case.json").exists() and (tmp_path / "case.txt").read_text() == "mine"
    code, out, err = run(capsys, "solo")
    assert code == 2 and err.count("\n") == 1


def test_cli_generate_with_6_to_14_investigators_writes_a_valid_record(capsys, tmp_path):
    for k in (6, 14):
        out = tmp_path / f"i{k}.json"
        code, text, err = run(capsys, "solo", "generate", "--investigators", str(k), "--seed", "2",
                              "--out", str(out))
        assert code == 0 and err == ""
        record = load_record(out)
        assert record.rules.investigators == (k,) and record.seed == 2
        assert record.rounds[0].cases == {0: generate(2, investigators=k).case}


def test_daily_cases_of_a_difficulty_have_their_own_seed_blocks():
    """Each date + difficulty searches YYYYMMDD*1000 upwards: consecutive dates no longer collide."""
    from pi_env.apps.solo_cases import DAILY_BLOCK, daily_search_start

    assert DAILY_BLOCK == 1000 and daily_search_start("2026-12-01") == 20261201000
    easy = [generate(date=f"2026-12-0{i}", difficulty="easy") for i in range(1, 7)]
    assert [c.seed for c in easy] == [20261201000, 20261202002, 20261203003, 20261204005, 20261205001,
                                      20261206008]
    for i, c in enumerate(easy, 1):  # the first easy seed of its block (brute force over the block)
        assert c.date == f"2026-12-0{i}" and c.base_seed == 20261200000 + i * 1000 and c.target == "easy"
        assert all(generate(s).difficulty != "easy" for s in range(c.base_seed, c.seed))
        assert generate(c.seed).case == c.case and c.difficulty == "easy"
    assert [generate(date="2026-12-01", difficulty=d).seed for d in ("medium", "hard")] == [20261201003,
                                                                                            20261201002]
    # the plain daily is the daily medium case (one daily case per date and difficulty)
    assert generate(date="2026-12-01") == generate(date="2026-12-01", difficulty="medium")
    assert generate(date="2026-12-01").target == "medium"
    assert "daily case 2026-12-01, hard, seed 20261201002" in setup_sheet(generate(date="2026-12-01",
                                                                                   difficulty="hard"))


def test_difficulty_search_stops_at_the_largest_seed(capsys, tmp_path):
    from pi_env.apps.solo_cases import MAX_SEED

    assert MAX_SEED == 9223372036854775807
    # seeds MAX_SEED-28 .. MAX_SEED are easy or medium, MAX_SEED-29 is hard (brute force)
    assert generate(MAX_SEED - 29, difficulty="hard").seed == MAX_SEED - 29
    with pytest.raises(PIError) as err:
        generate(MAX_SEED - 28, difficulty="hard")
    assert str(err.value) == ("no hard case among seeds 9223372036854775779..9223372036854775807 "
                              "(seeds end at 2**63-1; try a lower seed)")
    with pytest.raises(PIError, match=r"seed must be an integer 0..2\*\*63-1, got 9223372036854775808"):
        generate(MAX_SEED + 1)
    out = tmp_path / "x.json"
    code, text, err = run(capsys, "solo", "generate", "--difficulty", "hard", "--seed", str(MAX_SEED),
                          "--out", str(out))
    assert (code, text) == (2, "") and err == ("pi-env: error: no hard case among seeds "
                                               "9223372036854775807..9223372036854775807 (seeds end at "
                                               "2**63-1; try a lower seed)\n")
    assert not out.exists() and not (tmp_path / "x.txt").exists()
