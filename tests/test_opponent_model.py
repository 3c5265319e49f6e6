"""The opponent model calibrated on greedy opponents (pi_env.solvers.turns.greedy_turns, issue #16
item 3): the measurement tool's rows and fitted counts against an independent recomputation, the
shrinkage and Kaplan–Meier steps by hand, the outlook's outcomes with wrong attempts, and the option
in TunedGreedy and winprob."""

from __future__ import annotations

import json

import numpy as np
import pytest
from test_greedy import _outlook
from test_winprob import _outlook as _last_round_outlook

from pi_env.agents.greedy import GreedyAgent, assess, public_case_bits
from pi_env.agents.winprob import WinProbAgent, greedy_opponents, plan_win_shares
from pi_env.engine import GameConfig, init, legal_action_mask, observe, step_inplace
from pi_env.experiments import opponent_calibration as oc
from pi_env.experiments.greedy_screen import TunedGreedy, main
from pi_env.solvers.knowledge import Knowledge
from pi_env.solvers.observation import knowledge_from_observation
from pi_env.solvers.turns import (COUNT_EDGES, GREEDY_HAZARD_BINS, SHRINK, greedy_hazard, greedy_opponent_table,
                                  greedy_turns, hazard_bin, shrunk_rates)


@pytest.fixture(scope="module")
def rows():
    """Two games of four greedy (tuning seed 4199, the tests' seed of the greedy screens)."""
    return oc.collect_turns(4199, 2)


def _c(rows, name):
    return rows[:, oc.FIELDS.index(name)]


def test_rows_follow_the_games(rows):
    """One row per turn; attempts are exactly the named cases, correct ones a subset; each seat's
    ``turn_in_round`` counts 0, 1, 2, ... within a round; a correct solve is the seat's last turn of
    the round; ``count >= joint_count >= 1`` (the joint solver only removes cases)."""
    assert rows.shape[1] == len(oc.FIELDS) and len(rows) > 80
    att, cor = _c(rows, "attempt"), _c(rows, "correct")
    assert set(np.unique(att)) <= {0.0, 1.0} and (cor <= att).all() and cor.sum() >= 6
    keys = rows[:, [oc.FIELDS.index(n) for n in ("seed", "game", "round", "seat")]]
    for key in np.unique(keys, axis=0):
        m = np.flatnonzero((keys == key).all(axis=1))
        assert _c(rows, "turn_in_round")[m].tolist() == list(range(m.size))
        assert cor[m][:-1].sum() == 0  # nothing after a correct solve
        first = np.flatnonzero(att[m])
        if first.size:  # attempted_before is 0 up to the first attempt, 1 after it
            assert _c(rows, "attempted_before")[m].tolist() == [0.0] * (first[0] + 1) + [1.0] * (m.size - first[0] - 1)
    assert (_c(rows, "count") >= _c(rows, "joint_count")).all() and (_c(rows, "joint_count") >= 1).all()


def test_the_features_are_what_every_other_seat_reads():
    """The acting seat's public count from its own observation equals the count any other seat
    computes for it from its observation (docs/rules.md §9: public information only), and it does
    not change when the acting seat's held case is dropped."""
    config = GameConfig(num_players=4)
    state = init(config, 1, seed=5)
    agents = [GreedyAgent() for _ in range(4)]
    for j, a in enumerate(agents):
        a.reset(4, config.board, seed=j)
    action = np.zeros(1, dtype=np.int64)
    checked = 0
    while not state.done[0] and checked < 40:
        p = int(state.current_player[0])
        obs = observe(state, p)[0]
        f = oc.turn_features(obs, 4, config.board)
        for q in range(4):
            kq = knowledge_from_observation(observe(state, q)[0], 4, config.board)
            bits = public_case_bits(kq)[(p - q) % 4]
            assert int(np.unpackbits(bits.view(np.uint8)).sum()) == f["count"]
        k = knowledge_from_observation(obs, 4, config.board)
        blind = Knowledge(0, 4, k.tile_district, k.adjacency, -1, k.events)
        assert int(np.unpackbits(public_case_bits(blind)[0].view(np.uint8)).sum()) == f["count"]
        action[0] = agents[p].act(obs, legal_action_mask(state)[0])
        step_inplace(state, action, config)
        checked += 1


def _brute_force_counts(rows, horizon):
    """The counts of fit_hazard_table by another route: for row ``r`` and turn ``t``, the seat's
    ``t``-th own turn from ``r`` is the row of the same game, round and seat whose ``turn_in_round``
    is ``r``'s + t − 1; at risk if that row exists and none of the rows in between attempted."""
    at_risk = np.zeros(GREEDY_HAZARD_BINS + (horizon,), dtype=np.int64)
    attempts, correct = at_risk.copy(), at_risk.copy()
    by_turn = {}
    for i, r in enumerate(rows):
        by_turn[(r[0], r[1], r[2], r[oc.FIELDS.index("seat")], r[oc.FIELDS.index("turn_in_round")])] = i
    for r in rows:
        n = int(r[oc.FIELDS.index("count")])
        c = next((b for b, edge in enumerate(COUNT_EDGES) if n <= edge), len(COUNT_EDGES))
        cell = (c, min(int(r[oc.FIELDS.index("tier")]), 2), int(r[oc.FIELDS.index("attempted_before")]))
        u = int(r[oc.FIELDS.index("turn_in_round")])
        key = (r[0], r[1], r[2], r[oc.FIELDS.index("seat")])
        for t in range(1, horizon + 1):
            i = by_turn.get(key + (u + t - 1,))
            if i is None:
                break
            at_risk[cell + (t - 1,)] += 1
            if rows[i, oc.FIELDS.index("attempt")]:
                attempts[cell + (t - 1,)] += 1
                correct[cell + (t - 1,)] += int(rows[i, oc.FIELDS.index("correct")])
                break
    return at_risk, attempts, correct


def test_fitted_counts_equal_an_independent_recomputation(rows):
    for horizon in (16, 3):
        got = oc.fit_hazard_table(rows, horizon)
        want = _brute_force_counts(rows, horizon)
        for g, w in zip(got, want):
            assert g.shape == GREEDY_HAZARD_BINS + (horizon,) and np.array_equal(g, w)
    at_risk, attempts, _ = oc.fit_hazard_table(rows)
    assert at_risk[..., 0].sum() == len(rows) and attempts[..., 0].sum() == _c(rows, "attempt").sum()


def test_shrunk_rates_by_hand():
    """One count bin with data (bin 2), horizon 1. Cells (tier, flag): (0, 0) 10 turns 5 attempts,
    (1, 0) 30 turns 3 attempts, (0, 1) 0 turns. Bin rate 8/40 = 0.2; flag 0 over tiers (8 + 10 ·
    0.2) / (40 + 10) = 0.2; flag 1 (0 + 2) / (0 + 10) = 0.2; cell (0, 0) (5 + 2) / 20 = 0.35, cell
    (1, 0) (3 + 2) / 40 = 0.125, cell (0, 1) 0.2; k = 0: the raw rates, 0 where nothing was seen."""
    n = np.zeros(GREEDY_HAZARD_BINS + (1,), dtype=np.int64)
    e = n.copy()
    n[2, 0, 0, 0], e[2, 0, 0, 0] = 10, 5
    n[2, 1, 0, 0], e[2, 1, 0, 0] = 30, 3
    r = shrunk_rates(n, e, 10.0)
    assert r[2, 0, 0, 0] == pytest.approx(0.35) and r[2, 1, 0, 0] == pytest.approx(0.125)
    assert r[2, 0, 1, 0] == pytest.approx(0.2) and r[2, 2, 0, 0] == pytest.approx(0.2)
    assert r[0].sum() == 0.0
    r0 = shrunk_rates(n, e, 0.0)
    assert r0[2, 0, 0, 0] == 0.5 and r0[2, 1, 0, 0] == 0.1 and r0[2, 0, 1, 0] == 0.0


def test_greedy_turns_is_the_kaplan_meier_of_the_shipped_table():
    """greedy_turns for every cell: pmf_t = h_t · Π_{s<t} (1 − h_s) with h the shrunk rates of the
    shipped counts, recomputed here in a plain loop; correct = the shrunk correct rates;
    greedy_hazard is the first turn; no attempt without a consistent case."""
    at_risk, attempts, correct, meta = greedy_opponent_table()
    assert meta["seeds"] and all(4106 <= s <= 4109 for s in meta["seeds"])
    hz, cr = shrunk_rates(at_risk, attempts, SHRINK), shrunk_rates(attempts, correct, SHRINK)
    for count in (1, 2, 3, 5, 12, 20, 50, 1000):
        for rnd in (0, 1, 2, 3):
            for before in (False, True):
                c, r, a = (int(x) for x in hazard_bin(count, rnd, before))
                pmf, right = greedy_turns(count, rnd, before)
                alive, want = 1.0, []
                for h in hz[c, r, a]:
                    want.append(alive * h)
                    alive *= 1.0 - h
                assert pmf == pytest.approx(want, abs=1e-15) and right == pytest.approx(cr[c, r, a])
                assert pmf.sum() <= 1.0 + 1e-12
                assert greedy_hazard(count, rnd, before) == pytest.approx((want[0], cr[c, r, a, 0]))
    assert greedy_hazard(0, 1, False) == (0.0, 0.0)
    assert hazard_bin(4, 7, True) == (2, 2, 1) and hazard_bin(5, 0, False)[0] == 3


def test_next_turn_with_wrong_attempts_exact():
    """Seats 2 and 3 act after the agent with attempt probabilities 0.5 and 0.2, correct with 0.8
    and 0.5. The tier advances only on a correct solve: P(none) = (1 − 0.4)(1 − 0.1) = 0.54, so
    waiting with a sure solve is worth 0.54 · 7 + 0.46 · 5 (against 0.4 · 7 + 0.6 · 5 when every
    attempt counts as a solve). Only seat 3 open: the round ends iff it attempts, right or wrong
    (0.8 on), and then the tier advances iff seat 2 solves (0.4): 0.8 · (0.6 · 7 + 0.4 · 5). First
    edition: attempts close no seat, only correct solves, so with three others unsolved the round
    goes on whatever happens."""
    o = _outlook(order=(1, 0, 2, 3))
    correct = np.array([1.0, 1.0, 0.8, 0.5])
    assert o.wait_value(1.0, None, correct) == pytest.approx(0.54 * 7 + 0.46 * 5)
    assert o.wait_value(1.0, None, np.ones(4)) == pytest.approx(o.wait_value(1.0)) == pytest.approx(5.8)
    assert sum(p for p, _, _ in o.next_turn(None, correct)) == pytest.approx(1.0)
    o = _outlook(attempted=(False, True, True, False))
    assert o.wait_value(1.0, None, correct) == pytest.approx(0.8 * (0.6 * 7 + 0.4 * 5))
    o = _outlook(attempted=(False, True, True, False), edition="first")
    # first edition: seats 1, 2 have not solved (attempted flags do not close them): the round goes on
    assert sum(p for p, on, _ in o.next_turn(None, correct) if on) == pytest.approx(1.0)


def test_outlook_greedy_hazard_per_seat():
    """Outlook.greedy_hazard gives each open seat greedy_hazard(count, round, attempted) and the
    agent, solved and idle seats no attempt."""
    o = _outlook(tier=1, attempted=(False, True, False, False))
    o.counts[:] = (5, 1, 40, 3)
    o.solved[3] = True
    attempt, correct = o.greedy_hazard()
    assert attempt[0] == 0.0 and attempt[3] == 0.0
    assert (attempt[1], correct[1]) == greedy_hazard(1, 1, True)
    assert (attempt[2], correct[2]) == greedy_hazard(40, 1, False)


def test_tuned_greedy_opponent_model_option():
    """opponent_model="greedy" passes the calibrated hazard and correctness to greedy's rule; a bad
    name is refused; the screen's command line takes the name."""
    from test_greedy import two_case_position

    obs, mask, board, m, x = two_case_position(False, players=4)
    s = assess(obs, mask, 4, board)
    from pi_env.agents.greedy import greedy_decision

    agent = TunedGreedy(opponent_model="greedy")
    agent.reset(4, board, seed=0)
    attempt, correct = s.outlook.greedy_hazard()
    assert agent.act(obs, mask) == greedy_decision(s, hazard=attempt, correct=correct)
    with pytest.raises(ValueError, match="opponent_model"):
        TunedGreedy(opponent_model="smart")
    with pytest.raises(ValueError, match="opponent_model"):
        WinProbAgent(opponent_model="smart")
    with pytest.raises(SystemExit):
        main(["--seed", "4199", "--games", "2", "--option", "opponent_model=smart", "--quiet"])
    from pi_env.experiments.greedy_screen import make_variant

    assert make_variant("winprob", {"opponent_model": "greedy"}).opponent_model == "greedy"
    assert make_variant("greedy-tuned", {"opponent_model": "greedy"}).opponent_model == "greedy"


def test_plan_win_shares_with_wrong_attempts_by_hand():
    """Round 3 (tier 0: 9 points). Two players, the opponent acts after the agent and attempts on its
    coming turn, always wrongly (−2): solving now and right wins (9 : −2), wrongly ties at −2 (equal
    tiles: 1/2); waiting, the round ends at this rotation (only the agent has not attempted) at
    0 : −2, a win. Three players (seat 2 never attempts): seat 1 is wrong on its coming turn and
    right on the next (tier 0, as the agent's sure solve then: 9 each); from 0 : 3 : 0 waiting ends
    9 : 10 : 0, a loss, and solving now wrongly ends the round at −2 : 1 : 0 (seat 2 never
    attempted), a loss too."""
    H = 16
    one = np.zeros((2, H))
    one[1, 0] = 1.0
    zero = np.zeros((2, H))
    o = _last_round_outlook((0, 1), [None, 1])

    def shares(o, scores, p, opponents, P):
        return plan_win_shares(o, np.array(scores), np.full(P, 5), p, np.array([1.0]), np.array([1.0]), 200,
                               np.random.default_rng(0), None, opponents=opponents)[:2]

    assert shares(o, [0, 0], 1.0, (one, zero, zero, zero), 2) == (1.0, 1.0)
    assert shares(o, [0, 0], 0.0, (one, zero, zero, zero), 2) == (0.5, 1.0)
    assert shares(o, [0, 0], 1.0, (one, one, zero, zero), 2) == (0.5, 0.0)  # right: as the fitted model
    o3 = _last_round_outlook((0, 1, 2), [None, 1, None])
    first, again = np.zeros((3, H)), np.zeros((3, H))
    first[1, 0] = again[1, 0] = 1.0
    model = (first, np.zeros((3, H)), again, again.copy())
    assert shares(o3, [0, 3, 0], 1.0, model, 3) == (1.0, 0.0)
    assert shares(o3, [0, 3, 0], 0.0, model, 3) == (0.0, 0.0)
    assert shares(o3, [0, 0, 0], 1.0, model, 3) == (1.0, 1.0)  # 9 : -2 : 0 now, 9 : 7 : 0 waiting


def test_greedy_opponents_rows():
    o = _outlook(attempted=(False, True, False, False))
    o.counts[:] = (5, 1, 40, 3)
    o.solved[3] = True
    pmf, cor, pmf2, cor2 = greedy_opponents(o)
    assert not pmf[0].any() and not pmf[3].any() and not pmf2[3].any()
    assert np.array_equal(pmf[1], greedy_turns(1, 0, True)[0]) and np.array_equal(pmf2[2], greedy_turns(40, 0, True)[0])
    assert np.array_equal(cor[2], greedy_turns(40, 0, False)[1])


def test_calibration_refuses_an_existing_json_or_out_before_playing(tmp_path, monkeypatch, capsys):
    """``opponent_calibration --json``/``--out`` replace an existing file only with ``--force`` (as
    every command that writes, pi_env.core.files.check_output_path), and say so before any game is
    played; before, an existing file (the shipped table, say) was overwritten silently after the run,
    and a missing folder failed only then. Bad ``--games``/``--players`` give one line, not a traceback."""
    played = []
    monkeypatch.setattr(oc, "collect_turns", lambda *a, **k: played.append(a) or np.zeros((0, len(oc.FIELDS))))
    target = tmp_path / "table.json"
    target.write_text("keep\n")
    for option in ("--json", "--out"):
        with pytest.raises(SystemExit) as info:
            oc.main(["--seed", "1", "--games", "1", "--quiet", option, str(target)])
        assert info.value.code == 2
        assert capsys.readouterr().err.splitlines()[-1] == (
            f"python -m pi_env.experiments.opponent_calibration: error: {target} exists; use --force to "
            "overwrite it")
        with pytest.raises(SystemExit):
            oc.main(["--seed", "1", "--quiet", option, str(tmp_path / "no" / "t.json")])
        assert capsys.readouterr().err.splitlines()[-1].endswith(
            f"error: {tmp_path / 'no' / 't.json'}: the folder {str(tmp_path / 'no')!r} does not exist")
    assert target.read_text() == "keep\n" and played == []
    monkeypatch.undo()
    for args, message in ((["--games", "0"], "games must be at least 1 and start at least 0, got 0 and 0"),
                          (["--games", "1", "--players", "9"], "num_players must be 2..5, got 9")):
        with pytest.raises(SystemExit) as info:
            oc.main(["--seed", "1", "--quiet", *args])
        assert info.value.code == 2
        assert capsys.readouterr().err.splitlines()[-1] == (
            f"python -m pi_env.experiments.opponent_calibration: error: {message}")


def test_calibration_force_replaces_and_out_writes_the_name_given(tmp_path, rows):
    """With ``--force`` the files are replaced; ``--out`` writes the very name given (numpy's savez
    added ``.npz`` to a name without it, so ``--out rows`` then ``--load rows`` failed), and
    ``--load`` reads the rows back."""
    saved = tmp_path / "rows"
    np.savez_compressed(tmp_path / "src.npz", rows=rows, fields=np.array(oc.FIELDS))
    table = tmp_path / "table.json"
    table.write_text("old\n")
    saved.write_text("old\n")
    assert oc.main(["--seed", "4199", "--load", str(tmp_path / "src.npz"), "--json", str(table), "--force"]) == 0
    assert json.loads(table.read_text())["turns"] == len(rows)
    import pi_env.experiments.opponent_calibration as module
    orig = module.collect_turns
    try:
        module.collect_turns = lambda seed, games, players=4, progress=True: rows
        assert oc.main(["--seed", "4199", "--games", "2", "--quiet", "--out", str(saved), "--force"]) == 0
    finally:
        module.collect_turns = orig
    assert not (tmp_path / "rows.npz").exists()
    with np.load(saved) as z:
        assert np.array_equal(z["rows"], rows)
    assert oc.main(["--seed", "4199", "--load", str(saved)]) == 0


def test_greedy_turns_refuses_a_negative_tier_or_horizon():
    """Tiers are 0, 1, 2, ... (docs/rules.md §5; higher ones share the table's last cell, as
    documented): a negative tier was silently read as tier 0, and a negative horizon ended in
    numpy's 'negative dimensions are not allowed'."""
    with pytest.raises(ValueError, match=r"^tier must be at least 0 \(docs/rules.md §5\), got -1$"):
        greedy_turns(5, -1, False)
    with pytest.raises(ValueError, match=r"^tier must be at least 0 \(docs/rules.md §5\), got -2$"):
        greedy_hazard(5, -2, False)
    with pytest.raises(ValueError, match=r"^horizon must be at least 0 own turns, got -1$"):
        greedy_turns(5, 0, False, -1)
    assert greedy_turns(5, 7, False, 3)[0].tolist() == greedy_turns(5, 2, False, 3)[0].tolist()
    assert greedy_turns(5, 0, False, 0)[0].shape == (0,)
