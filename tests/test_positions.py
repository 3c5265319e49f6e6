"""Saved positions (issue #17 items 2, 4): pi-position/1 round trips, batches of positions, refusals."""

from __future__ import annotations

import copy
import json

import numpy as np
import pytest

from pi_env.core.errors import PositionError
from pi_env.engine import GameConfig, init, legal_action_mask, step_inplace
from pi_env.engine import solo as S
from pi_env.engine.position import (POSITION_FORMAT, load_position, load_positions, load_solo_position,
                                    position_config, save_position, save_solo_position)

CONFIGS = [GameConfig(num_players=2), GameConfig(num_players=3),
           GameConfig(num_players=5, edition="first", variants=("fast", "nick-of-time")),
           GameConfig(num_players=4, investigators=(5, 5, 3, 3), variants=("nick-of-time",)),
           GameConfig(mode="duel"), GameConfig(mode="duel", variants=("fast",), max_rounds=4)]


def _policy(state, rng, p_solve=0.07):
    """Mostly clues and investigations (long games, rounds ending by solves now and then)."""
    mask = legal_action_mask(state)
    out = np.empty(state.batch_size, dtype=np.int64)
    for b in range(state.batch_size):
        legal = np.flatnonzero(mask[b])
        small = legal[legal < 50]
        out[b] = rng.choice(small) if small.size and rng.random() > p_solve else rng.choice(legal)
    return out


def _json(obj):
    return json.loads(json.dumps(obj))


@pytest.mark.parametrize("cfg", CONFIGS, ids=lambda c: f"{c.mode}-{c.num_players}-{c.edition}-{'+'.join(c.variants)}")
def test_round_trip_is_exact_and_continues_identically(cfg):
    """Every game of a batch, saved through JSON text at many points (mid-round, right after a round's
    end, after the game's end), loads as exactly the same state; stepped with the same actions the
    loaded batch stays equal to the original to the end, every later chance draw included."""
    rng = np.random.default_rng(1)
    st = init(cfg, 6, seed=7)
    seen_new_round = seen_done = False
    for t in range(600):
        if t % 23 == 0 or (st.rotation == 0).any():
            for b in range(6):
                assert load_position(_json(save_position(st, cfg, b)), cfg).equals(st.take(b))
        if t == 40:
            copy_ = load_positions([_json(save_position(st, cfg, b)) for b in range(6)], cfg)
            assert copy_.equals(st) and copy_ == st
        acts = _policy(st, rng)
        step_inplace(st, acts, cfg)
        if t >= 40:
            step_inplace(copy_, acts, cfg)
            assert copy_.equals(st)
        seen_new_round |= bool((st.round > 0).any())
        seen_done |= bool(st.done.any())
        if st.done.all():
            break
    assert seen_new_round and seen_done
    assert load_position(_json(save_position(st, cfg, 0)), cfg).equals(st.take(0))


def test_position_shape_and_size():
    cfg = GameConfig(num_players=3)
    st = init(cfg, 1, seed=0)
    pos = save_position(st, cfg)
    assert pos["format"] == POSITION_FORMAT == "pi-position/1"
    assert pos["rules"] == {"mode": "standard", "players": 3, "edition": "second", "variants": [],
                            "investigators": [5, 5, 5], "max_rotations": 60, "max_rounds": 9, "board": "daytime"}
    s = pos["state"]
    assert s["rng"] == f"0x{int(st.rng[0]):016x}" and len(s["rng"]) == 18
    assert s["case"] == st.case[0].tolist() and s["failed"] == [[], [], []]
    assert s["front"] == [[], [], []] and s["deck_size"] == 27 and s["turn"] == 0
    assert "district_tile" not in s
    assert len(json.dumps(pos)) < 3000
    assert position_config(pos) == cfg


def test_load_positions_builds_a_batch_from_chosen_positions():
    """Thousands of games from a few chosen positions in one call: game b is positions[b]."""
    cfg = GameConfig(num_players=4)
    st = init(cfg, 3, seed=2)
    rng = np.random.default_rng(0)
    for _ in range(20):
        step_inplace(st, _policy(st, rng), cfg)
    chosen = [_json(save_position(st, cfg, b)) for b in range(3)]
    batch = load_positions([chosen[b % 3] for b in range(3000)], cfg)
    assert batch.batch_size == 3000
    for b in (0, 1, 2, 1234, 2999):
        assert batch.take(b).equals(st.take(b % 3))
    with pytest.raises(PositionError, match="non-empty list"):
        load_positions([], cfg)
    bad = copy.deepcopy(chosen[1])
    bad["state"]["deck_size"] = 99
    with pytest.raises(PositionError, match=r"positions\[1\]: saved position: state.deck_size holds 99, outside 0..36"):
        load_positions([chosen[0], bad], cfg)
    with pytest.raises(PositionError, match=r"positions\[2\]: saved position: state.deck_size"):
        load_positions([chosen[0], chosen[0], bad, bad], cfg)  # the first index of a repeated object


def test_load_positions_repeated_objects_are_separate_games():
    """A position object listed many times is decoded once, yet gives separate games: the batch
    equals the batch of distinct copies, and a game stepped or changed leaves its twins alone."""
    cfg = GameConfig(num_players=3)
    st = init(cfg, 2, seed=5)
    rng = np.random.default_rng(1)
    for _ in range(9):
        step_inplace(st, _policy(st, rng), cfg)
    chosen = [save_position(st, cfg, b) for b in range(2)]
    order = [1, 0, 1, 1, 0]
    shared = load_positions([chosen[b] for b in order], cfg)
    distinct = load_positions([_json(chosen[b]) for b in order], cfg)
    assert shared == distinct and shared == st.take(order)
    shared.score[2, 0] += 3
    step_inplace(shared, np.full(5, 50 + 7), cfg)  # everyone names case 7
    step_inplace(distinct, np.full(5, 50 + 7), cfg)
    assert shared.take([0, 3]) == distinct.take([0, 3]) and not shared.take(2) == distinct.take(2)


@pytest.mark.parametrize("change, message", [
    (lambda p: p.update(format="pi-position/2"), "saved position has format 'pi-position/2'; this pi-env reads 'pi-position/1'"),
    (lambda p: p.update(format="pi-record/1"), "not a saved position: 'format' must be 'pi-position/1'"),
    (lambda p: p["rules"].update(players=4), r"is a 4-player standard game .*; this game plays a 3-player standard game .* \(player count 4, not 3\)"),
    (lambda p: p["rules"].update(mode="duel"), r"mode 'duel' is not 'standard'"),
    (lambda p: p["rules"].update(edition="first"), r"\(edition 'first', not 'second'\)"),
    (lambda p: p["rules"].update(variants=["fast"]), r"\(variants \['fast'\], not \[\]\)"),
    (lambda p: p["rules"].update(max_rotations=30), r"\(max rotations 30, not 60\)"),
    (lambda p: p["state"].pop("tier"), r"state.tier is missing"),
    (lambda p: p["state"].update(colour=1), r"unknown state field 'colour'"),
    (lambda p: p["state"].update(current_player=3), r"state.current_player holds 3, outside 0..2"),
    (lambda p: p["state"].update(rng="0x0"), r"state.rng must be a non-zero 64-bit value"),
    (lambda p: p["state"].update(case=[[0, 0, 0], [0, 1, 1], [2, 2, 2]]), r"state.case gives two players the same suspect"),
    (lambda p: p["state"]["tile_district"].__setitem__(22, 5), r"puts location 0 in district 5"),
    (lambda p: p["state"]["failed"][0].append(1680), r"state.failed must list ids 0..1679"),
    (lambda p: p["state"].update(deck_size=26), r"deck\[:deck_size\] must hold exactly the cards"),
    (lambda p: p["state"]["front"][0].append(p["state"]["deck"][0]), r"front must list exactly the cards whose card_place is 3"),
    (lambda p: p["state"].update(inv_left=[5, 5, 6]), r"state.inv_left holds 6, outside 0..5"),
    (lambda p: p["state"].update(score=[1.5, 0, 0]), r"state.score must hold integers"),
    (lambda p: p["state"].update(done=[True]), r"state.done must have shape \[\], got \[1\]"),
    (lambda p: p["state"].update(score=[30, 0, 0]), r"state.score holds 30, outside -5..21"),
    (lambda p: p["state"].update(solved=[False, True, False]),
     r"state.solved has player 1 solved without having attempted a solve"),
    (lambda p: p["state"].update(solved=[p["state"]["current_player"] == i for i in range(3)], attempted=[True] * 3),
     r"state.current_player is player \d, who has solved this round and takes no more turns in it"),
])
def test_refusals_name_what_is_wrong(change, message):
    cfg = GameConfig(num_players=3)
    pos = save_position(init(cfg, 1, seed=4), cfg)
    change(pos)
    with pytest.raises(PositionError, match=message):
        load_position(pos, cfg)


def test_position_of_another_board_or_a_solo_game_is_refused():
    cfg = GameConfig(num_players=3)
    pos = save_position(init(cfg, 1, seed=4), cfg)
    solo = save_solo_position(S.init(S.SoloConfig(), 1, seed=0), S.SoloConfig())
    with pytest.raises(PositionError, match="is a solo game; this game plays a 3-player standard game"):
        load_position(solo, cfg)
    with pytest.raises(PositionError, match="is a 3-player standard game .*; this solo env plays a solo game"):
        load_solo_position(pos, S.SoloConfig())
    with pytest.raises(PositionError, match=r"\(max actions 200, not 50\)"):
        load_solo_position(solo, S.SoloConfig(max_actions=50))
    other = dict(pos, rules=dict(pos["rules"], board={
        "districts": [f"D{i}" for i in range(14)],
        "adjacency": [[f"D{i}", f"D{i + 1}"] for i in range(13)]}))
    with pytest.raises(PositionError, match="another board"):
        load_position(other, cfg)


@pytest.mark.parametrize("use_display", [False, True])
def test_solo_positions_round_trip_and_continue(use_display):
    cfg = S.SoloConfig(use_display=use_display, max_actions=60)
    st = S.init(cfg, 4, seed=3)
    rng = np.random.default_rng(2)
    for t in range(70):
        if t % 9 == 0:
            loaded = [load_solo_position(_json(save_solo_position(st, cfg, b)), cfg) for b in range(4)]
            for b in range(4):
                assert loaded[b].equals(st.take(b))
            twin = S.SoloState(*(np.concatenate(a) for a in zip(*(x.arrays() for x in loaded))))
        mask = S.legal_action_mask(st)
        acts = np.array([rng.choice(np.flatnonzero(mask[b][:50])) for b in range(4)])
        S.step_inplace(st, acts, cfg)
        S.step_inplace(twin, acts, cfg)
        assert twin.equals(st)
        S.reset_done(st, cfg)
        S.reset_done(twin, cfg)
        assert twin.equals(st)  # the next game of the stream too: the generator is in the position


def test_state_sub_batches_concatenation_and_equality():
    """take / concatenate / == are exact inverses of each other on a batch."""
    from pi_env.core.errors import PIError
    from pi_env.engine import State

    cfg = GameConfig(num_players=3)
    st = init(cfg, 5, seed=3)
    rng = np.random.default_rng(0)
    for _ in range(9):
        step_inplace(st, _policy(st, rng), cfg)
    parts = [st.take([0, 1]), st.take(2), st.take(slice(3, 5))]
    assert State.concatenate(parts) == st and State.concatenate(parts) is not st
    assert st.take([4, 4]).batch_size == 2 and st.take([4, 4]).take(1) == st.take(4)
    assert st.take(0) != st.take(1) and st != st.take([0, 1, 2, 3])
    assert (st == "a state") is False
    other = init(GameConfig(num_players=4), 1, seed=0)
    with pytest.raises(PIError, match=r"batches\[1\] has per-game shape \(4, 3\), batches\[0\] \(3, 3\)"):
        State.concatenate([st.take(0), other])
    with pytest.raises(PIError, match="at least one batch"):
        State.concatenate([])
    with pytest.raises(TypeError):
        hash(st)


def test_engine_handle_copies_and_loads():
    """deepcopy / pickle of the engine handle keep its games and rebind its kernels to the copy's own
    arrays; load() copies games into the bound arrays (all of them, or chosen slots)."""
    import pickle

    from pi_env.core.errors import PIError
    from pi_env.engine import Engine

    cfg = GameConfig(num_players=3)
    eng = Engine(cfg, 4, seed=1)
    rng = np.random.default_rng(0)
    for _ in range(5):
        eng.step(_policy(eng.state, rng))
    twins = [copy.deepcopy(eng), pickle.loads(pickle.dumps(eng))]
    for t in twins:
        assert t.state == eng.state and t.state.rng is not eng.state.rng
    for _ in range(40):
        acts = _policy(eng.state, rng)
        eng.step(acts)
        for t in twins:
            t.step(acts)  # stepping the copy moves the copy's arrays only
            assert t.state == eng.state
            assert np.array_equal(t.observe(1), eng.observe(1))
    fresh = Engine(cfg, 4, seed=99)
    saved = [_json(save_position(eng.state, cfg, b)) for b in range(4)]
    bound = fresh.state.rng
    fresh.load(load_positions(saved, cfg))
    assert fresh.state == eng.state and fresh.state.rng is bound
    fresh.load(load_positions(saved[:1], cfg), games=np.array([3]))
    assert fresh.state.take(3) == eng.state.take(0) and fresh.state.take(2) == eng.state.take(2)
    with pytest.raises(PIError, match="state has 1 games, the handle 4"):
        fresh.load(load_positions(saved[:1], cfg))
    with pytest.raises(PIError, match="games must be 1 slot numbers 0..3"):
        fresh.load(load_positions(saved[:1], cfg), games=np.array([4]))


@pytest.mark.parametrize("cfg", CONFIGS, ids=lambda c: f"{c.mode}-{c.num_players}-{'+'.join(c.variants)}")
def test_one_rules_description_round_trips_through_json(cfg):
    """GameConfig.to_json is the position's ``rules`` object; from_json reads it back to the same value."""
    doc = json.loads(json.dumps(cfg.to_json()))
    assert GameConfig.from_json(doc) == cfg
    assert doc == save_position(init(cfg, 1, seed=0), cfg)["rules"]


def test_rules_json_fills_the_keys_left_out_with_the_defaults():
    assert GameConfig.from_json({}) == GameConfig()
    assert GameConfig.from_json({"mode": "duel"}) == GameConfig(mode="duel")  # 2 players, 2 investigators each
    assert GameConfig.from_json({"players": 3, "investigators": [5, 3, 3]}).investigators == (5, 3, 3)


@pytest.mark.parametrize("doc,message", [
    ({"players": "3"}, "players must be an integer, got '3'"),
    ({"players": True}, "players must be an integer, got True"),
    ({"variants": "fast"}, "variants must be a list of strings, got 'fast'"),
    ({"investigators": [5, 5, 5, 5.0]}, "investigators must be a list of integers, got [5, 5, 5, 5.0]"),
    ({"max_rounds": None}, "max_rounds must be an integer, got None"),
    ({"board": 3}, "board must be a bundled board's name or a board object, got 3"),
    ({"board": "night"}, "board: unknown board 'night'; bundled boards: daytime"),
    ({"rounds": 3}, "unknown rules key 'rounds'; known: mode, players, edition, variants, investigators, "
                    "max_rotations, max_rounds, board"),
    ({"players": 6}, "num_players must be 2..5, got 6"),
    ([], "rules must be a JSON object, got list"),
])
def test_rules_json_is_strict(doc, message):
    from pi_env.core.errors import ConfigError

    with pytest.raises(ConfigError) as exc:
        GameConfig.from_json(doc)
    assert str(exc.value) == message


def test_a_position_with_a_bad_rules_value_names_the_key():
    cfg = GameConfig(num_players=3)
    pos = save_position(init(cfg, 1, seed=0), cfg)
    pos["rules"]["max_rotations"] = "60"
    with pytest.raises(PositionError) as exc:
        position_config(pos)
    assert str(exc.value) == "saved position: rules: max_rotations must be an integer, got '60'"
