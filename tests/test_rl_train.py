"""Training at engine speed (issue #12): batched opponents, the compact action space and its
encodings, the learner batch, the opponent pool, the MaskablePPO trainer end to end (a few thousand
steps), ``learned:NAME`` agents and their one-line errors, and information hygiene (docs/rules.md §9).

Tests that need torch / stable-baselines3 / sb3-contrib (the ``rl`` extra, which CI installs) skip
without it."""

from __future__ import annotations

import json

import numpy as np
import pytest

from pi_env.agents import make_agent
from pi_env.agents.deducer import consistent_cases
from pi_env.agents.learned import (POLICY_ACTIONS, SOLVE_ACTION, ZOO, best_cases, encode_observations, encode_state,
                                   encoding_size, policy_mask, to_engine_actions)
from pi_env.core.constants import CASE_TRIPLES, NUM_CASES, SOLVE_BASE
from pi_env.core.errors import PIError, UnknownNameError
from pi_env.engine import GameConfig, init, legal_action_mask, observe, sample_actions, step_inplace
from pi_env.envs.encoders import encode_flat, flat_layout
from pi_env.envs.selfplay import RandomBatchOpponent, SelfPlayVecEnv
from helpers import need_extra, paired_games, step_pair


def _rl():
    need_extra("rl", "torch", "stable_baselines3", "sb3_contrib")


def _played(num_players: int, batch: int, seed: int, steps: int):
    cfg = GameConfig(num_players=num_players)
    st = init(cfg, batch, seed=seed)
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        a = sample_actions(st, rng)
        solve = a >= SOLVE_BASE
        a[solve] = rng.integers(0, 36, size=int(solve.sum()))  # mostly queries (legal or not: fix below)
        m = legal_action_mask(st)
        bad = m[np.arange(batch), a] == 0
        a[bad] = sample_actions(st, rng)[bad]
        step_inplace(st, a, cfg)
    return cfg, st


# --- the compact action space and the encodings ----------------------------------------------

def test_policy_mask_is_the_engine_queries_plus_always_solve():
    cfg, st = _played(2, 6, 1, 9)
    legal = legal_action_mask(st)
    m = policy_mask(legal)
    assert m.shape == (6, POLICY_ACTIONS) and m.dtype == bool
    assert np.array_equal(m[:, :SOLVE_BASE], legal[:, :SOLVE_BASE] == 1)
    assert m[:, SOLVE_ACTION].all()


@pytest.mark.parametrize("num_players", [2, 4])
def test_flat_v1_is_the_flat_encoding_without_the_failed_blocks(num_players):
    cfg, st = _played(num_players, 3, 2, 12)
    flat = encode_flat(st, cfg, 1)
    x = encode_state("flat-v1", st, cfg, np.full(3, 1), flat=flat)
    assert np.array_equal(x, encode_observations("flat-v1", observe(st, 1), cfg))
    assert x.shape == (3, 618 + 232 * num_players) == (3, encoding_size("flat-v1", num_players))
    start, shape = flat_layout(num_players)["failed"]
    expect = np.concatenate([flat[:, :start], flat[:, start + int(np.prod(shape)):]], axis=1)
    assert np.array_equal(x, expect)
    with pytest.raises(PIError, match="unknown encoding 'nope'"):
        encoding_size("nope", num_players)


@pytest.mark.parametrize("num_players,seed", [(2, 5), (3, 6), (4, 7), (5, 8)])
def test_compact_from_observations_equals_compact_from_the_state(num_players, seed):
    """What an agent computes from its observation is what the training path computes from the
    engine state, entry by entry, in every seat of played positions."""
    cfg, st = _played(num_players, 6, seed, 25)
    for p in range(num_players):
        from_state = encode_state("compact-v1", st, cfg, np.full(6, p))
        from_obs = encode_observations("compact-v1", observe(st, p), cfg)
        assert np.array_equal(from_state, from_obs)
    assert from_state.shape == (6, encoding_size("compact-v1", num_players)) == (6, 216 + 8 * num_players)


def test_best_cases_is_the_most_frequent_possible_case():
    cfg, st = _played(2, 8, 3, 14)
    players = st.current_player.astype(np.int64)
    obs = observe(st, players)
    got = best_cases(obs, 2, cfg.board)
    for b in range(8):
        cases = np.flatnonzero(consistent_cases(obs[b], 2, cfg.board))
        assert got[b] in cases and not st.failed[b, players[b], got[b]]
        best, best_score = None, -1  # brute force: product of the three marginal counts, lowest id on ties
        for c in cases:
            s, e, l = CASE_TRIPLES[c]
            score = (int((CASE_TRIPLES[cases, 0] == s).sum()) * int((CASE_TRIPLES[cases, 1] == e).sum())
                     * int((CASE_TRIPLES[cases, 2] == l).sum()))
            if score > best_score:
                best, best_score = c, score
        assert got[b] == best


def test_best_cases_names_the_only_possible_case():
    """One case left: an observation in which the player has named every other case wrongly."""
    cfg = GameConfig(num_players=2)
    st = init(cfg, 1, seed=4)
    obs = observe(st, 0)
    own = int(np.ravel_multi_index(tuple(st.case[0, 0]), (12, 10, 14)))
    start = flat_layout(2)["failed"][0]
    obs[0, start:start + NUM_CASES] = 1  # every case failed but the player's own
    obs[0, start + own] = 0
    obs[0, flat_layout(2)["attempted"][0]] = 1  # a failed solve is an attempt (docs/rules.md §4.3)
    assert best_cases(obs, 2, cfg.board).tolist() == [own]


def test_to_engine_actions_only_computes_solving_rows():
    asked = []

    def obs_of(rows):
        asked.append(rows.tolist())
        return np.zeros((rows.size, 4442), dtype=np.int16)  # empty view: any case is possible

    out = to_engine_actions(np.array([3, 50, 40, 50]), obs_of, 2)
    assert asked == [[1, 3]]
    assert out[[0, 2]].tolist() == [3, 40] and (out[[1, 3]] >= SOLVE_BASE).all()


def run_pair(num_players, seed, p, encoding):
    """Games A and B (= A with ``p``'s own case replaced), same actions: ``p``'s policy input,
    mask and named case are identical until an answer to ``p`` differs."""
    cfg = GameConfig(num_players=num_players)
    a, b, rng = paired_games(cfg, seed, p)

    def view(s):
        return (encode_state(encoding, s, cfg, np.array([p])), policy_mask(legal_action_mask(s)),
                best_cases(observe(s, p), num_players, cfg.board))

    while True:
        va, vb = view(a), view(b)
        assert all(np.array_equal(x, y) for x, y in zip(va, vb))
        if a.done[0]:
            return "game over"
        if step_pair(a, b, cfg, p, rng):
            return "answer differs"


@pytest.mark.parametrize("num_players,encoding", [(2, "flat-v1"), (2, "compact-v1"), (4, "compact-v1")])
def test_the_policy_input_never_shows_the_own_case(num_players, encoding):
    reasons = [run_pair(num_players, seed, p, encoding) for seed in (1, 2) for p in range(num_players)]
    assert "answer differs" in reasons


# --- batched opponents ----------------------------------------------------------------------------

def test_random_batch_opponent_plays_the_engine_sampler_and_only_learner_rows_come_back():
    env = SelfPlayVecEnv(8, num_players=3, opponents=[RandomBatchOpponent(), RandomBatchOpponent()], seed=3)
    obs, info = env.reset(seed=3)
    for _ in range(40):
        lm = env.learner_mask
        assert lm.sum(axis=1).tolist() == [1] * 8
        assert lm[np.arange(8), info["to_move"].astype(np.int64)].all()
        obs, r, te, tr, info = env.step(env.sample_actions())
    # same seed, same games: the opponents' draws follow the env's seeds
    runs = []
    for _ in range(2):
        e = SelfPlayVecEnv(4, num_players=2, opponents=[RandomBatchOpponent(seed=99)], seed=5)
        o, i = e.reset()
        seq = [o.copy()]
        for _ in range(20):
            o, r, te, tr, i = e.step(e.sample_actions())
            seq += [o.copy(), r.copy()]
        runs.append(seq)
    assert all(np.array_equal(x, y) for x, y in zip(*runs))


def test_random_batch_opponent_draws_uniformly_over_legal_actions():
    cfg = GameConfig(num_players=2)
    st = init(cfg, 1, seed=0)
    opp = RandomBatchOpponent(seed=1)
    legal = np.flatnonzero(legal_action_mask(st)[0])
    draws = np.array([opp.act_batch(st, np.array([0]), np.array([0]))[0] for _ in range(20000)])
    assert set(draws.tolist()) <= set(legal.tolist())
    solves = (draws >= SOLVE_BASE).mean()  # 1680 of the legal actions are solves
    assert abs(solves - NUM_CASES / legal.size) < 0.01


def test_a_batch_opponent_that_plays_illegally_is_named():
    from pi_env.core.constants import ON_DISPLAY

    class Bad:
        def act_batch(self, state, games, players):  # a clue card that is not on the display
            return np.array([int(np.flatnonzero(state.card_place[b] != ON_DISPLAY)[0]) for b in games])

    env = SelfPlayVecEnv(2, num_players=2, opponents=[Bad()], seed=1, learner_seats=1)
    with pytest.raises(PIError, match=r"opponent agent Bad \(player 0\) chose the illegal action \d+$"):
        env.reset()
        for _ in range(3):
            env.step(env.sample_actions())


# --- the learner batch, the pool ------------------------------------------------------------------

@pytest.mark.parametrize("reward", ["score", "win"])
def test_learner_batch_rows_rewards_and_episodes(reward):
    from pi_env.rl.engine_env import LearnerBatch

    lb = LearnerBatch(16, 2, ["random"], seed=7, reward=reward, parallel=False)
    x, mask = lb.reset()
    rng = np.random.default_rng(0)
    total = np.zeros(16)
    finished = 0
    for _ in range(60):
        st = lb.venv.state
        seats = lb._seat.copy()
        assert np.array_equal(x, encode_state("compact-v1", st, lb.config, seats))  # the leak-free input
        assert np.array_equal(mask, policy_mask(legal_action_mask(st)))
        choice = np.where(rng.random(16) < 0.1, SOLVE_ACTION, (rng.random((16, 51)) * mask[:, :51]).argmax(1))
        x, mask, r, done, trunc, eps = lb.step(choice)
        total += r
        for b, ep in eps:
            finished += 1
            scores = st.score[b]
            expect = ep["win"] if reward == "win" else ep["score"]
            assert total[b] == pytest.approx(expect) and ep["r"] == pytest.approx(expect)
            assert ep["win"] in (0.0, 0.5, 1.0) and ep["score"] in scores.tolist()
            total[b] = 0
    assert finished >= 16


@pytest.mark.parametrize("edition,mode", [("second", "standard"), ("first", "standard"), ("second", "duel")])
def test_learner_batch_wins_are_the_standings_first_place_share(edition, mode):
    from pi_env.engine.ranking import rank_players
    from pi_env.rl.engine_env import LearnerBatch

    P = 2 if mode == "duel" else 3
    lb = LearnerBatch(4, P, ["random"] * (P - 1), seed=1, edition=edition, mode=mode, parallel=False)
    lb.reset()
    st = lb.venv.state
    rng = np.random.default_rng(3)
    games = np.repeat(np.arange(4), P)
    seats = np.tile(np.arange(P), 4)
    for _ in range(30):  # random standings, ties on score included
        st.score[:] = rng.integers(-2, 3, size=st.score.shape)
        st.inv_left[:] = rng.integers(0, 2, size=st.inv_left.shape)
        st.penalty[:] = rng.integers(0, 2, size=st.penalty.shape)
        got = lb._wins(st, games, seats)
        for g, s, w in zip(games, seats, got):
            ranks = rank_players(st.score[g], st.inv_left[g], st.penalty[g], edition, mode)
            assert w == (1.0 / ranks.count(1) if ranks[s] == 1 else 0.0)


def test_pool_draws_members_per_game_by_weight_and_keeps_running_games():
    from pi_env.rl.pool import PoolOpponent

    cfg = GameConfig(num_players=2)

    class Tag:
        def __init__(self, name, action):
            self.name, self.action = name, action

        def act_batch(self, state, games, players):
            return np.full(games.size, self.action, dtype=np.int64)

    a, b = Tag("a", 1), Tag("b", 2)
    pool = PoolOpponent([(a, 3.0), (b, 1.0)], cfg)
    games = np.arange(4000)
    pool.new_games(games, np.arange(4000) + 11)
    share = pool.share()
    assert abs(share["a"] - 0.75) < 0.03 and abs(share["b"] - 0.25) < 0.03
    acts = pool.act_batch(None, games, np.zeros(4000, dtype=np.int64))
    assert np.array_equal(acts == 1, pool._member[games] == pool._id(a))
    c = Tag("c", 3)
    pool.snapshot_weight = 4.0
    pool.add(c)  # running games keep their member; new games may draw the snapshot
    assert np.array_equal(pool.act_batch(None, games, np.zeros(4000, dtype=np.int64)), acts)
    pool.new_games(games[:1000], np.arange(1000))
    assert 0.4 < np.mean(pool.act_batch(None, games[:1000], np.zeros(1000, dtype=np.int64)) == 3) < 0.6
    with pytest.raises(PIError, match="positive weight"):
        PoolOpponent([("random", 0.0)], cfg)
    with pytest.raises(UnknownNameError):
        PoolOpponent([("randon", 1.0)], cfg)


def test_gain_opponent_plays_legal_games_and_beats_random():
    from pi_env.rl.engine_env import LearnerBatch

    lb = LearnerBatch(64, 2, ["gain"], seed=3, parallel=False)  # the learner plays random choices
    x, mask = lb.reset()
    rng = np.random.default_rng(1)
    wins = []
    for _ in range(150):
        choice = (rng.random(mask.shape) * mask).argmax(1)
        x, mask, r, done, trunc, eps = lb.step(choice)
        wins += [ep["win"] for _, ep in eps]
    assert len(wins) >= 64 and np.mean(wins) < 0.1  # the learner guesses itself down; gain does not


def test_gain_opponent_solves_with_one_case_left_and_investigates_early():
    from pi_env.rl.pool import GainOpponent

    cfg = GameConfig(num_players=2)
    st = init(cfg, 2, seed=9)
    opp = GainOpponent(cfg)
    p = st.current_player.astype(np.int64)
    first = opp.act_batch(st, np.arange(2), p)  # many cases open, tiles left: an investigator
    assert ((first >= 36) & (first < SOLVE_BASE)).all()
    own = [int(np.ravel_multi_index(tuple(st.case[b, p[b]]), (12, 10, 14))) for b in range(2)]
    for b in range(2):  # every other case named wrongly: one case left
        st.failed[b, p[b]] = True
        st.failed[b, p[b], own[b]] = False
        st.attempted[b, p[b]] = True
    assert opp.act_batch(st, np.arange(2), p).tolist() == [SOLVE_BASE + c for c in own]


# --- training end to end, learned agents -----------------------------------------------------------

def _tiny_run(tmp_path, *extra, name="run", steps=4096):
    from pi_env.rl.cli import train_main as main

    out = tmp_path / name
    argv = ["2p", "--timesteps", str(steps), "--out", str(out), "--num-envs", "64", "--n-steps", "16",
            "--batch-size", "512", "--n-epochs", "1", "--trunk", "32", "--hidden", "16", "--no-progress",
            "--checkpoint-every", "2048", "--eval-games", "32", *extra]
    return main(argv), out


def test_training_end_to_end_resume_force_and_learned_agent(tmp_path, capsys):
    _rl()
    from pi_env.agents.learned import LearnedAgent, load_model
    from pi_env.apps.tournament import TournamentSettings, play_games

    code, out = _tiny_run(tmp_path, "--opponents", "random:1,heuristic:0.05", "--snapshot-weight", "1",
                          "--snapshot-every", "2")
    assert code == 0
    for f in ("policy.pt", "model.zip", "curve.csv", "curve.png", "run.json"):
        assert (out / f).is_file(), f
    assert sorted(p.name for p in (out / "checkpoints").glob("*.pt"))
    assert list((out / "pool").glob("step_*.pt")) and list((out / "logs").rglob("progress.csv"))
    run = json.loads((out / "run.json").read_text())
    assert run["sessions"][0]["timesteps"] >= 4096 and run["task"] == "2p"
    net, meta = load_model(str(out / "policy.pt"))
    assert meta["num_players"] == 2 and meta["encoding"] == "compact-v1" and meta["card"]["timesteps"] >= 4096
    # the policy plays by path, as every agent does
    agent = make_agent(f"learned:{out / 'policy.pt'}")
    assert isinstance(agent, LearnedAgent)
    settings = TournamentSettings(agents=(f"learned:{out / 'policy.pt'}", "random"), players=2, games=2, seed=3)
    rows = play_games(settings, [0, 1])
    assert len(rows) == 2
    # an existing run directory is refused; --resume continues it; --force starts again
    capsys.readouterr()
    with pytest.raises(SystemExit) as exc:
        _tiny_run(tmp_path)
    assert exc.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "exists and is not empty: --resume to continue it, --force" in err[0]
    code, _ = _tiny_run(tmp_path, "--resume", steps=6144)
    run = json.loads((out / "run.json").read_text())
    assert [s["started_at_step"] for s in run["sessions"]] == [0, run["sessions"][0]["timesteps"]]
    assert run["sessions"][1]["timesteps"] >= 6144
    code, _ = _tiny_run(tmp_path, "--force", steps=2048)
    assert len(json.loads((out / "run.json").read_text())["sessions"]) == 1


def test_same_seed_same_policy(tmp_path):
    _rl()
    import torch

    _, a = _tiny_run(tmp_path, name="a", steps=2048)
    _, b = _tiny_run(tmp_path, name="b", steps=2048)
    sa = torch.load(a / "policy.pt", weights_only=True)["state_dict"]
    sb = torch.load(b / "policy.pt", weights_only=True)["state_dict"]
    assert sa.keys() == sb.keys() and all(torch.equal(sa[k], sb[k]) for k in sa)


def test_learned_agent_errors_are_one_line_and_name_the_file(tmp_path, monkeypatch):
    with pytest.raises(UnknownNameError, match=r"^unknown learned model 'nope': not a zoo name \(2p, 3p, 4p, 5p, solo\)"):
        make_agent("learned:nope")
    bad = tmp_path / "bad.pt"
    bad.write_bytes(b"not a model")
    _rl()
    import torch

    with pytest.raises(PIError, match=rf"^learned model '{bad}' is not a readable model file"):
        make_agent(f"learned:{bad}")
    foreign = tmp_path / "foreign.pt"
    torch.save({"weights": torch.zeros(3)}, foreign)
    with pytest.raises(PIError, match=rf"^learned model '{foreign}' is not a pi-env-policy/1 file$"):
        make_agent(f"learned:{foreign}")
    _, out = _tiny_run(tmp_path, steps=1024)
    saved = torch.load(out / "policy.pt", weights_only=True)
    other = tmp_path / "other_encoding.pt"
    torch.save({**saved, "input_size": 99}, other)
    with pytest.raises(PIError, match=r"its input has 99 entries, the 'compact-v1' encoding 232"):
        make_agent(f"learned:{other}")
    stale = tmp_path / "stale.pt"
    torch.save({**saved, "fingerprint": "0123456789abcdef"}, stale)
    with pytest.raises(PIError, match=rf"^learned model '{stale}': it was trained on another version of the "
                                      r"'compact-v1' encoding \(its fingerprint differs\)$"):
        make_agent(f"learned:{stale}")
    broken = tmp_path / "broken.pt"
    torch.save({**saved, "state_dict": {"trunk.0.weight": torch.zeros(2, 2)}}, broken)
    with pytest.raises(PIError, match=rf"^learned model '{broken}' does not hold a policy of this version"):
        make_agent(f"learned:{broken}")
    agent = make_agent(f"learned:{out / 'policy.pt'}")
    with pytest.raises(PIError, match=rf"was trained for 2 players, not 4$"):
        agent.reset(4)


def test_learned_agent_without_torch_says_how_to_install(monkeypatch, tmp_path):
    import builtins

    from pi_env.agents import learned

    real = builtins.__import__

    def fake(name, *args, **kwargs):
        if name.split(".")[0] == "torch":
            raise ImportError(f"No module named {name!r}", name="torch")
        return real(name, *args, **kwargs)

    f = tmp_path / "m.pt"
    f.write_bytes(b"x")
    learned._load.cache_clear()
    monkeypatch.setattr(builtins, "__import__", fake)
    with pytest.raises(PIError, match=r"^learned policies need the 'rl' extra \(torch is missing\); install") as exc:
        make_agent(f"learned:{f}")
    assert "\n" not in str(exc.value) and "pip install '.[rl]'" in str(exc.value)


def test_a_learned_agent_is_named_by_its_model_once_prefixed():
    """The agent's name is ``learned:`` and the zoo name or path, however the prefix was given."""
    _rl()
    from pi_env.agents.learned import LearnedAgent

    for spec in ("5p", "learned:5p", " Learned:5p "):
        assert LearnedAgent(spec).name == "learned:5p"
    assert make_agent("learned:5p").name == "learned:5p"
    with pytest.raises(UnknownNameError, match=r"^unknown learned model 'learned:5p': not a zoo name"):
        make_agent("learned:learned:5p")


def test_the_model_zoo_loads_by_name():
    """Every zoo model ships as package data and carries its model card."""
    _rl()
    from pi_env.agents.learned import model_path

    shipped = [n for n in ZOO if model_path(n).is_file()]
    if not shipped:
        pytest.skip("no zoo model shipped yet")
    for name in shipped:
        agent = make_agent(f"learned:{name}")
        card = agent.meta["card"]
        assert card["timesteps"] > 0 and card["seconds"] > 0
        assert model_path(name).with_suffix(".md").is_file()


@pytest.mark.parametrize("spec, config, message", [
    ("2p", dict(num_players=2, mode="duel"), "was trained for other games: mode duel (trained: standard)"),
    ("2p", dict(num_players=2, edition="first"), "was trained for other games: edition first (trained: second)"),
    ("2p", dict(num_players=2, variants=("fast", "nick-of-time")),
     "was trained for other games: variants fast,nick-of-time (trained: none)"),
    ("4p", dict(num_players=4, edition="first", investigators=(1, 1, 1, 1)),
     "was trained for other games: edition first (trained: second); investigators 1,1,1,1 (trained: 5,5,5,5)"),
    ("3p", dict(num_players=2), "was trained for 3 players, not 2"),
    ("3p", dict(num_players=3, edition="first"), "was trained for other games: edition first (trained: second)"),
    ("5p", dict(num_players=4), "was trained for 5 players, not 4"),
    ("5p", dict(num_players=5, variants=("fast",)), "was trained for other games: variants fast (trained: none)"),
    ("solo", dict(num_players=2, mode="duel"), "is a Solo Time Attack model, not for a duel game"),
    ("solo", dict(num_players=4), "is a Solo Time Attack model (it plays the solo game's 2-player view), "
                                  "not a 4-player game"),
    ("solo", dict(num_players=2), "is a Solo Time Attack model (it plays the solo game's 2-player view), "
                                  "not a 2-player game"),
])
def test_a_learned_model_refuses_games_it_was_not_trained_for(spec, config, message):
    """At reset for a game (``reset_for_game``: play, tournaments, the web app) a zoo model names
    what differs from the standard second-edition game it was trained on; that game is accepted
    (a Solo Time Attack model refuses every player game, also a standard 2-player one)."""
    _rl()
    from pi_env.agents.base import reset_for_game
    from pi_env.engine import GameConfig

    agent = make_agent(f"learned:{spec}")
    import re

    # named as the agent is (learned:4p), never by the installation's path (the web app sends errors to browsers)
    with pytest.raises(PIError, match=rf"^learned model 'learned:{spec}' {re.escape(message)}$"):
        reset_for_game(agent, GameConfig(**config))
    if spec != "solo":  # a solo model plays no player game at all (its solo use: test_solo_learned.py)
        reset_for_game(agent, GameConfig(num_players=int(spec[0])))  # the game it was trained for


def test_an_empty_learned_name_says_so():
    with pytest.raises(UnknownNameError, match=r"^learned model name is empty: give a zoo name \(2p, 3p, 4p, 5p, solo\)"):
        make_agent("learned:")


def test_max_minutes_alone_runs_until_the_time_is_up(tmp_path, monkeypatch):
    """``--max-minutes`` without ``--timesteps`` trains until the time runs out: a 15-minute run had
    stopped after 6 minutes at the default 10M steps. With the default made 1,024 steps, a 0.15-minute
    run goes past it and its saved target is UNTIL_TIME_RUNS_OUT (failed before: it stopped at 1,024)."""
    _rl()
    from pi_env.rl.settings import DEFAULTS, UNTIL_TIME_RUNS_OUT
    from pi_env.rl.cli import train_main as main

    monkeypatch.setitem(DEFAULTS, "timesteps", 1024)
    out = tmp_path / "timed"
    argv = ["2p", "--max-minutes", "0.15", "--out", str(out), "--num-envs", "64", "--n-steps", "16",
            "--batch-size", "512", "--n-epochs", "1", "--trunk", "32", "--hidden", "16", "--no-progress",
            "--checkpoint-every", "1000000"]
    assert main(argv) == 0
    run = json.loads((out / "run.json").read_text())
    assert run["settings"]["timesteps"] == UNTIL_TIME_RUNS_OUT
    assert run["sessions"][0]["timesteps"] > 4 * 1024
    assert 0.0 < run["sessions"][0]["seconds"] < 60.0  # the clock stopped it (recorded time excludes set-up)
