"""Board pictures (issue #7 item 5): ``board_image``, the AEC env's ``rgb_array`` render mode
(PettingZoo's ``render_test``) and ``pi-env render``."""

from __future__ import annotations

import json

import numpy as np
import pytest
from pettingzoo.test import render_test

from pi_env.envs.aec import env as make_env
from pi_env.envs.board_image import abbreviate, board_image, record_position
from pi_env.apps.cli import main
from pi_env.engine import GameConfig, init, step_inplace
from pi_env.core.errors import PIError
from pi_env.records.recorder import replay_with_engine
from pi_env.records.record_file import load_record
from test_encoders import mixed_policy
from test_hygiene import other_case

SIZE = (640, 480)


def test_image_shape_dtype_and_that_states_differ():
    cfg = GameConfig(num_players=3)
    st = init(cfg, 2, seed=1)
    a = board_image(st, cfg, 0, size=SIZE)
    assert a.shape == (480, 640, 3) and a.dtype == np.uint8
    assert np.array_equal(a, board_image(st, cfg, 0, size=SIZE))  # deterministic
    assert not np.array_equal(a, board_image(st, cfg, 1, size=SIZE))  # another layout
    before = a
    rng = np.random.default_rng(0)
    step_inplace(st, np.array([mixed_policy(st, rng, 0, 0), mixed_policy(st, rng, 1, 0)]), cfg)
    assert not np.array_equal(before, board_image(st, cfg, 0, size=SIZE))  # one action later
    assert (a.reshape(-1, 3) != 255).any(axis=1).mean() > 0.05  # something is drawn
    big = board_image(st, cfg)
    assert big.shape == (1000, 1400, 3)


def test_spectator_picture_shows_no_case_and_viewer_adds_the_held_one():
    cfg = GameConfig(num_players=2)
    a = init(cfg, 1, seed=5)
    b = a.copy()
    b.case[0, 0] = other_case(a, 0, np.random.default_rng(0))
    assert np.array_equal(board_image(a, cfg, size=SIZE), board_image(b, cfg, size=SIZE))
    # player 1 holds player 0's case: its picture differs; player 0's own view does not
    def views(viewer):
        return board_image(a, cfg, viewer=viewer, size=SIZE), board_image(b, cfg, viewer=viewer, size=SIZE)

    assert not np.array_equal(*views(1))
    assert np.array_equal(*views(0))
    with pytest.raises(PIError, match="viewer"):
        board_image(a, cfg, viewer=2)
    with pytest.raises(PIError, match="game must be"):
        board_image(a, cfg, game=1)


def test_abbreviate():
    assert abbreviate("Pinky") == "Pinky"
    assert abbreviate("Police Corruption") == "Pol. Corr."
    assert abbreviate("Protection Racket") == "Prot. Rack."
    assert abbreviate("Some Long Name") == "Some Lo."
    assert all(len(abbreviate(n)) <= 11 for n in ("Jewellery Heist", "Mob Killing", "Knuckles"))


def test_aec_render_test_with_rgb_array():
    assert "rgb_array" in make_env().metadata["render_modes"]
    render_test(lambda render_mode=None: make_env(num_players=2, render_mode=render_mode),
                custom_tests={"rgb_array": lambda img: img.shape == (1000, 1400, 3)})


def test_aec_rgb_array_is_the_board_image():
    e = make_env(num_players=3, render_mode="rgb_array")
    e.reset(seed=2)
    img = e.render()
    u = e.unwrapped
    assert np.array_equal(img, board_image(u.game_state, u.config))


@pytest.fixture(scope="module")
def record_path(tmp_path_factory):
    path = tmp_path_factory.mktemp("render") / "game.json"
    assert main(["play", "--players", "3", "--seed", "4", "--agents", "deducer,heuristic,random",
                 "--record", str(path), "--quiet"]) == 0
    return path


def test_record_position(record_path):
    record = load_record(record_path)
    states = []
    replay_with_engine(record, on_step=lambda s: states.append(s.copy()))
    sizes = [len(r.events) for r in record.rounds]
    # mid-round: the engine's state after that event
    st, cfg = record_position(record, 0, 3)
    assert st.equals(states[3])
    # a round's start (-1): after the previous round's last event
    st, _ = record_position(record, 1, -1)
    assert st.equals(states[sizes[0] - 1]) and int(st.round[0]) == 1 and int(st.turn[0]) == sizes[0]
    st, _ = record_position(record, 0, -1)
    assert st.equals(init(cfg, 1, seed=record.seed))
    # the round's last event: still round 1's board, the event applied; totals from the engine
    st, _ = record_position(record, 0)
    pre, post = states[sizes[0] - 2], states[sizes[0] - 1]
    assert int(st.round[0]) == 0 and not st.done[0] and int(st.turn[0]) == sizes[0]
    assert int(st.last_action[0]) == int(post.last_action[0])
    assert np.array_equal(st.tile_district, pre.tile_district)
    assert (st.spot | st.trace).sum() >= (pre.spot | pre.trace).sum()
    assert np.array_equal(st.score, post.score) and np.array_equal(st.inv_left, post.inv_left)
    # the last round of a finished game: the engine's final state
    st, _ = record_position(record)
    assert st.equals(states[-1]) and st.done[0]
    with pytest.raises(PIError, match="round must be 1..3"):
        record_position(record, 3)
    with pytest.raises(PIError, match=r"event must be -1\.\."):
        record_position(record, 0, sizes[0])


def run(capsys, *argv):
    try:
        code = main([str(a) for a in argv])
    except SystemExit as exc:  # argparse's own errors
        code = exc.code
    out, err = capsys.readouterr()
    return code, out, err


def test_cli_render_writes_png(capsys, tmp_path, record_path):
    out = tmp_path / "board.png"
    code, text, err = run(capsys, "render", record_path, "--round", 2, "--event", 5, "--out", out)
    assert code == 0 and err == "" and text == f"picture written to {out}\n"
    data = out.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    import matplotlib.image

    img = matplotlib.image.imread(out)
    assert img.shape[:2] == (1000, 1400)
    from pi_env.envs.board_image import record_panel

    st, cfg = record_position(record_path, 1, 5)
    expect = board_image(st, cfg, **record_panel(load_record(record_path), 1, 5))
    assert np.array_equal((img[:, :, :3] * 255).round().astype(np.uint8), expect)
    # refuses to overwrite, unless --force
    code, text, err = run(capsys, "render", record_path, "--out", out)
    assert code == 2 and err == f"pi-env: error: {out} exists; use --force to overwrite it\n"
    code, text, err = run(capsys, "render", record_path, "--out", out, "--force", "--viewer", 1)
    assert code == 0 and out.read_bytes() != data


@pytest.mark.parametrize("args,message", [
    (["--round", "4"], "round must be 1..3 (the record has 3 rounds), got 4"),
    (["--round", "1", "--event", "999"], "event must be -1.."),
    (["--viewer", "3"], "--viewer: player must be 0..2 in this 3-player record, got 3"),
    (["--viewer", "Zed"], "--viewer: player 'Zed': this record names no players; give a number 0..2 or a seat label P0..P2"),
    (["--round", "x"], "argument --round: expected an integer, got 'x'"),
])
def test_cli_render_errors(capsys, tmp_path, record_path, args, message):
    code, text, err = run(capsys, "render", record_path, "--out", tmp_path / "x.png", *args)
    assert code == 2 and message in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "x.png").exists()


def test_cli_render_checks_the_output_path_first(capsys, tmp_path, record_path):
    (tmp_path / "dir.png").mkdir()
    code, _, err = run(capsys, "render", record_path, "--out", tmp_path / "dir.png", "--force")
    assert code == 2 and err == f"pi-env: error: {tmp_path / 'dir.png'}: is a directory, not a file\n"
    code, _, err = run(capsys, "render", record_path, "--out", tmp_path / "no" / "x.png")
    assert code == 2 and err == f"pi-env: error: {tmp_path / 'no' / 'x.png'}: the folder {str(tmp_path / 'no')!r} does not exist\n"


def test_cli_render_draws_a_typed_record(capsys, tmp_path, record_path):
    doc = json.loads(record_path.read_text(encoding="utf-8"))
    doc.pop("engine")
    plain = tmp_path / "plain.json"
    plain.write_text(json.dumps(doc), encoding="utf-8")
    out = tmp_path / "x.png"
    code, text, err = run(capsys, "render", plain, "--round", 1, "--event", 4, "--out", out)
    assert (code, err, text) == (0, "", f"picture written to {out}\n")
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    del doc["rounds"][0]["cases"]["2"]
    plain.write_text(json.dumps(doc), encoding="utf-8")
    code, text, err = run(capsys, "render", plain, "--round", 1, "--viewer", 1, "--out", out, "--force")
    assert (code, text) == (2, "")
    assert err == ("pi-env: error: --viewer: the record does not give the case player 1 holds (player 2's) in "
                   "round 1: draw without a viewer\n")
    code, text, err = run(capsys, "render", tmp_path / "missing.json", "--out", tmp_path / "y.png")
    assert code == 2 and "missing.json" in err and len(err.strip().splitlines()) == 1
    code, text, err = run(capsys, "render", record_path, "--out", tmp_path / "x.jpg")
    assert code == 2 and "give a .png file name" in err
    code, text, err = run(capsys, "render", record_path)
    assert code == 2 and "--out" in err


def test_typed_position_equals_the_engines(record_path):
    """Every public fact of the picture state drawn from the record alone equals the engine's, at
    every position that does not end a round (there the engine has set up the next round)."""
    from pi_env.envs.board_image import typed_record_position
    from pi_env.records.record_file import known_display

    record = load_record(record_path)
    for k, rnd in enumerate(record.rounds):
        for e in range(-1, len(rnd.events) - 1):
            eng, _ = record_position(record, k, e)
            typed, _ = typed_record_position(record, k, e)
            for name in ("round", "first_player", "tile_district", "district_tile", "case", "front", "spot",
                         "trace", "inv_count", "inv_district", "inv_answer", "inv_suppressed", "inv_left",
                         "attempted", "solved", "solved_case", "failed", "score", "penalty", "turn",
                         "current_player", "last_action", "last_answer", "last_player"):
                assert np.array_equal(getattr(typed, name), getattr(eng, name)), (k, e, name)
            shown = set(np.flatnonzero(typed.card_place[0] == 1).tolist())
            on_display = set(np.flatnonzero(eng.card_place[0] == 1).tolist())
            assert shown <= on_display and (e >= 0 or shown == on_display)
            assert shown == set(known_display(rnd, e)[0])


def test_render_replaces_a_link_and_never_writes_through_it(capsys, tmp_path, record_path):
    target = tmp_path / "precious.png"
    target.write_bytes(b"keep me")
    link = tmp_path / "board.png"
    link.symlink_to(target)
    code, _, err = run(capsys, "render", record_path, "--out", link)
    assert code == 2 and err == f"pi-env: error: {link} exists; use --force to overwrite it\n"
    code, _, err = run(capsys, "render", record_path, "--out", link, "--force")
    assert code == 0 and err == ""
    assert target.read_bytes() == b"keep me"
    assert not link.is_symlink() and link.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["board.png", "precious.png"]


# ------------------------------------------------------------- the tester's findings (issue #15)


def _typed_panel(doc, round_index=None, event=None, viewer=None):
    from pi_env.envs.board_image import _position_indices, panel_lines, record_panel, typed_record_position
    from pi_env.records.types import resolve_player

    record = load_record(doc)
    k, e = _position_indices(record, round_index, event)
    st, cfg = typed_record_position(record, k, e)
    v = None if viewer is None else resolve_player(record, viewer)
    return [ln.text for ln in panel_lines(st, cfg, 0, v, display_known=False, **record_panel(record, k, e))]


def _table_doc(events, **rules):
    from test_records import _doc

    doc = _doc(events)
    doc["players"] = ["Ann", "Ben", "Cleo"]
    doc["rules"].update(rules)
    return doc


def test_render_of_a_typed_record_says_the_round_is_over_and_shows_names():
    trace = {"player": 0, "clue": "Pinky", "answer": "trace"}  # wrong: Cleo, who answered, is out
    nothing = {"player": 1, "clue": "Doc", "answer": "nothing"}
    # the declaration ends the round (only Ben is left): not "To move"
    lines = _typed_panel(_table_doc([trace, nothing, {"incorrect": 0}]))
    assert lines[3] == "Round 1 is over"
    assert lines[4:8] == ["P0 (Ann): score 7, inv. left 5, out (incorrect information)",
                          "P1 (Ben): score 0, inv. left 5", "    in front: Doc",
                          "P2 (Cleo): score 0, inv. left 5, out (incorrect information)"]
    assert lines[-3:] == ["Last action:", "    P0 (Ann): declared incorrect: the answer at event 0",
                          "    -> Cleo eliminated from the round, Ann gets its top score"]
    # a declaration in the middle of a rotation: the next player to move skips the players out
    lines = _typed_panel(_table_doc([trace, {"incorrect": 0}]))
    assert lines[3] == "To move: P1 (Ben); first player P0 (Ann)"
    # an ordinary round end, with the next round recorded, and a finished game
    P1, P2 = ["Pinky", "Murder", "Lakeside"], ["Shorty", "Smuggling", "Downtown"]
    ended = [{"player": 0, "solve": P1, "correct": False}, {"player": 1, "solve": P1, "correct": True},
             {"player": 2, "solve": P2, "correct": True}]
    doc = _table_doc(ended)
    assert _typed_panel(doc)[3] == "Round 1 is over"
    doc["rounds"].append(dict(doc["rounds"][0], first_player=1, events=[]))
    assert _typed_panel(doc, 0)[3] == "Round 1 is over; round 2 begins with P1 (Ben)"
    assert _typed_panel(doc, 0, 1)[3] == "To move: P2 (Cleo); first player P0 (Ann)"
    assert _typed_panel(_table_doc(ended, rounds=1))[3] == "Game over"
    held = _typed_panel(_table_doc(ended), viewer="ben")
    assert held[held.index("Held case (P1 (Ben) holds P2 (Cleo)'s):") + 1] == "    Shorty / Smuggling / Downtown"


def test_render_viewer_takes_a_name(capsys, tmp_path):
    path = tmp_path / "named.json"
    path.write_text(json.dumps(_table_doc([{"player": 0, "clue": "Pinky", "answer": "nothing"}])))
    by_name, by_number = tmp_path / "a.png", tmp_path / "b.png"
    assert run(capsys, "render", path, "--viewer", "Ben", "--out", by_name) == (0, f"picture written to {by_name}\n", "")
    assert run(capsys, "render", path, "--viewer", 1, "--out", by_number)[0] == 0
    assert by_name.read_bytes() == by_number.read_bytes()
    code, _, err = run(capsys, "render", path, "--viewer", "Bne", "--out", tmp_path / "c.png")
    assert (code, err) == (2, "pi-env: error: --viewer: unknown player 'Bne' (did you mean 'Ben'?); the players "
                              "are 0 Ann, 1 Ben, 2 Cleo\n")


def test_render_force_keeps_a_read_only_files_mode(capsys, tmp_path, record_path):
    out = tmp_path / "board.png"
    out.write_bytes(b"old")
    out.chmod(0o444)
    assert run(capsys, "render", record_path, "--out", out, "--force")[0] == 0
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and oct(out.stat().st_mode & 0o777) == oct(0o444)


def test_render_panel_uses_the_seat_labels_of_play_and_solve(record_path):
    """The panel names the seats as ``pi-env play``/``replay``/``solve`` print them (``P0 (deducer)``,
    :func:`pi_env.records.types.seat_label` with the record's agent), not ``A player_0``: a record
    written by ``pi-env play`` (agents deducer,heuristic,random) and the same record without agents."""
    import dataclasses

    from pi_env.envs.board_image import panel_lines, record_panel

    record = load_record(record_path)
    assert record.agents == ("deducer", "heuristic", "random") and not record.player_names
    st, cfg = record_position(record, 0, 2)
    panel = record_panel(record, 0, 2)
    assert panel["labels"] == ["P0 (deducer)", "P1 (heuristic)", "P2 (random)"]
    lines = [ln.text for ln in panel_lines(st, cfg, 0, 1, **panel)]
    rows = [ln for ln in lines if ": score " in ln]
    assert [r.split(":")[0] for r in rows] == ["P0 (deducer)", "P1 (heuristic)", "P2 (random)"]
    cp, fp, lp = int(st.current_player[0]), int(st.first_player[0]), int(st.last_player[0])
    assert lines[3] == f"To move: {panel['labels'][cp]}; first player {panel['labels'][fp]}"
    assert lines[lines.index("Last action:") + 1].startswith(f"    {panel['labels'][lp]}: ")
    assert "Held case (P1 (heuristic) holds P2 (random)'s):" in lines
    assert not any(ln.startswith(("A ", "B ", "C ")) or "player_" in ln for ln in lines)
    bare = dataclasses.replace(record, agents=None)
    assert record_panel(bare, 0, 2)["labels"] == ["P0", "P1", "P2"]
    bare_rows = [ln.text.split(":")[0] for ln in panel_lines(st, cfg, 0, **record_panel(bare, 0, 2))
                 if ": score " in ln.text]
    assert bare_rows == ["P0", "P1", "P2"]
    # without a record (the environment's picture): the seat labels alone, as the text rendering
    env_lines = [ln.text for ln in panel_lines(st, cfg, 0)]
    assert [ln.split(":")[0] for ln in env_lines if ": score " in ln] == ["P0", "P1", "P2"]
    assert env_lines[3] == f"To move: P{cp}; first player P{fp}"
    assert env_lines[env_lines.index("Last action:") + 1].startswith(f"    P{lp}: ")
    seen = [ln.text for ln in panel_lines(st, cfg, 0, 1)]
    assert [ln.split(":")[0] for ln in seen if ": score " in ln] == ["P0", "P1", "P2"]
    assert "Held case (P1 holds P2's):" in seen
    assert not any(ln.startswith(("A ", "B ", "C ")) or "player_" in ln for ln in env_lines + seen)
    with pytest.raises(PIError, match=r"^labels: one per seat \(3\), got 2: \['x', 'y'\]$"):
        panel_lines(st, cfg, 0, labels=["x", "y"])


def test_render_panel_final_scores_with_seat_labels_fit_two_a_line(record_path):
    """At the game's end the panel lists the final scores with the seat labels two a line (on one
    line five labelled seats ran off the picture); the environment's picture keeps one line."""
    from pi_env.engine.api import outcome
    from pi_env.envs.board_image import panel_lines, record_panel

    record = load_record(record_path)
    k, e = len(record.rounds) - 1, len(record.rounds[-1].events) - 1
    st, cfg = record_position(record, k, e)
    assert bool(st.done[0])
    scores = outcome(st, cfg, 0).scores
    winners = outcome(st, cfg, 0).winners
    labels = ["P0 (deducer)", "P1 (heuristic)", "P2 (random)"]
    lines = [ln.text for ln in panel_lines(st, cfg, 0, **record_panel(record, k, e))]
    at = lines.index("Final:")
    assert lines[at + 1:] == [f"    P0 (deducer) {scores[0]}, P1 (heuristic) {scores[1]}",
                              f"    P2 (random) {scores[2]}",
                              ("Winners: " if len(winners) > 1 else "Winner: ") + ", ".join(labels[i] for i in winners)]
    env_lines = [ln.text for ln in panel_lines(st, cfg, 0)]
    assert env_lines[-2] == f"Final: P0 {scores[0]}, P1 {scores[1]}, P2 {scores[2]}"
