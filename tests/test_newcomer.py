"""Defects a new user met on a fresh clone, each pinned by a test that failed before its fix."""

from __future__ import annotations

import os
import sys

import pytest

from pi_env.apps.cli import main
from pi_env.core.files import write_text_atomic

LINUX_PROC = sys.platform.startswith("linux") and os.path.isdir("/proc/self")


def run(capsys, *argv):
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.mark.skipif(not LINUX_PROC, reason="needs Linux's /proc, where no file can be created")
def test_a_failed_write_names_the_users_file_not_the_temporary_one(capsys, tmp_path):
    with pytest.raises(OSError) as exc:
        write_text_atomic("/proc/g.json", "{}")
    assert exc.value.filename == "/proc/g.json"
    code, _, err = run(capsys, "play", "--players", "2", "--seed", "1", "--agents", "random,random", "--quiet",
                       "--record", "/proc/g.json")
    assert code == 2 and err.startswith("pi-env: error: /proc/g.json: ") and ".tmp" not in err
    for argv in (["render", str(tmp_path / "g.json"), "--round", "1", "--event", "0", "--out", "/proc/b.png"],
                 ["solo", "generate", "--seed", "3", "--out", "/proc/c.json"]):
        if argv[0] == "render":
            assert run(capsys, "play", "--players", "2", "--seed", "1", "--agents", "random,random", "--quiet",
                       "--record", str(tmp_path / "g.json"))[0] == 0
        code, _, err = run(capsys, *argv)
        assert code == 2 and err.startswith(f"pi-env: error: {argv[argv.index('--out') + 1]}"), err
        assert ".tmp" not in err, err


def test_a_file_where_a_folder_is_needed_is_named(capsys, tmp_path):
    afile = tmp_path / "afile"
    afile.write_text("mine")
    code, _, err = run(capsys, "play", "--players", "2", "--seed", "1", "--agents", "random,random", "--quiet",
                       "--record", str(afile / "g.json"))
    assert (code, err) == (2, f"pi-env: error: {afile / 'g.json'}: {str(afile)!r} is a file, not a folder\n")
    code, _, err = run(capsys, "tournament", "--agents", "random,random", "--games", "2", "--out", str(afile))
    assert (code, err) == (2, f"pi-env: error: --out {str(afile)!r} is a file, not a folder\n")
    code, _, err = run(capsys, "tournament", "--agents", "random,random", "--games", "2", "--out",
                       str(afile / "t"))
    assert (code, err) == (2, f"pi-env: error: --out {str(afile / 't')!r}: {str(afile)!r} is a file, not a folder\n")
    assert afile.read_text() == "mine"


def test_one_daily_case_per_date_and_difficulty_everywhere(capsys, tmp_path):
    """``solo generate --daily D`` and ``--daily D --difficulty medium`` were two boards for "the daily
    medium case"; now the daily case of a date is of a difficulty (default medium), and the terminal
    game and the browser (both through ``game_from_seed``) get the same case as ``generate``."""
    from pi_env.apps.solo_app import game_from_seed
    from pi_env.apps.solo_cases import DAILY_DIFFICULTY, generate
    from pi_env.records.record_file import load_record

    assert DAILY_DIFFICULTY == "medium"
    boards = []
    for extra in ([], ["--difficulty", "medium"]):
        out = tmp_path / f"case{len(boards)}.json"
        assert run(capsys, "solo", "generate", "--daily", "2026-12-01", *extra, "--out", str(out))[0] == 0
        rnd = load_record(out).rounds[0]
        boards.append((rnd.tile_district, dict(rnd.cases)))
    assert boards[0] == boards[1]
    case = generate(date="2026-12-01", difficulty="medium")
    assert boards[0] == (case.tile_district, {0: case.case})
    for difficulty in (None, "medium"):
        game = game_from_seed(None, date="2026-12-01", difficulty=difficulty)
        assert (game.case, game.seed, game.source) == (case.case, case.seed, "daily case 2026-12-01, medium")
    assert generate(date="2026-12-01", difficulty="hard").case != case.case


def test_solo_resume_keeps_the_players_name(tmp_path):
    """``pi-env solo play --name Zed``, quit, then ``--resume`` without ``--name``: the result is
    ranked as Zed, without asking (the resumed game asked for a name again)."""
    from test_solo_app import in_order, play

    play(tmp_path, ["clue Doc", "quit"], name="Zed", seed=7)
    saved = (tmp_path / "save" / "solo-game.json").read_text()
    assert '"name": "Zed"' in saved
    out, person = play(tmp_path, ["solve shorty murder china town", "Nobody"], resume=True)
    in_order(out, ["Resuming after 1 action.", "Leaderboard for seed 7 (5 investigators): you are 1st of 1."])
    assert any(line.startswith("  1  Zed ") for line in out), "\n".join(out)
    assert not any("Name for the leaderboard" in line for line in out)


def _names_with_extras() -> list[str]:
    import importlib.util

    from pi_env.agents import AGENTS

    names = sorted(AGENTS)
    if importlib.util.find_spec("torch") is not None:
        names += ["learned:2p"]
    return names


@pytest.mark.parametrize("name", _names_with_extras())
def test_an_agent_used_without_reset_says_so(name):
    """Every built-in agent, ``act`` before ``reset``: one clear error (it was
    ``AttributeError: ... object has no attribute 'rng'`` deep inside)."""
    from pi_env.agents import make_agent
    from pi_env.core.errors import AgentNotResetError
    from pi_env.engine import GameConfig, init, legal_action_mask, observe

    players = 2
    state = init(GameConfig(num_players=players), 1, seed=0)
    observation, mask = observe(state, int(state.current_player[0]))[0], legal_action_mask(state)[0]
    agent = make_agent(name)
    with pytest.raises(AgentNotResetError) as exc:
        agent.act(observation, mask)
    assert str(exc.value) == (f"the {agent.name} agent was not reset: call agent.reset(num_players, board, "
                              f"seed) before agent.act(observation, action_mask), and again before every new game")
    agent.reset(players, seed=0)
    if name in ("random", "deducer", "heuristic"):  # the cheap ones: now it plays
        assert mask[agent.act(observation, mask)] == 1


def _help(capsys, *argv) -> str:
    with pytest.raises(SystemExit) as exc:
        main([*argv, "--help"])
    assert exc.value.code == 0
    return " ".join(capsys.readouterr().out.split())  # the words, whatever the terminal's width


def test_help_texts_name_the_agents_and_every_option(capsys):
    from pi_env.agents import AGENTS
    from pi_env.agents.learned import ZOO_PLAYER_AGENTS

    for command in (["play"], ["tournament"]):
        text = _help(capsys, *command)
        zoo = ", ".join(ZOO_PLAYER_AGENTS)
        assert "Agents: " + ", ".join(AGENTS) + f"; with the rl extra {zoo}, learned:MODEL.pt or sb3:MODEL.zip" in text
        assert ("--edition {second,first} rules edition: second (default) or first (the first edition and "
                "Board Game Arena scoring; docs/rules.md §5)") in text
    descriptions = {("play",): "Play a whole game with built-in agents and print it.",
                    ("replay",): "Check a game record and print its turns and standings.",
                    ("solve",): "What a player can deduce at a point of a record, and a hint.",
                    ("render",): "Draw the board at a point of a record as a PNG.",
                    ("solo",): "Solo Time Attack (docs/rules.md §8): generate cases, play."}
    for command, line in descriptions.items():
        assert line in _help(capsys, *command), command
    for command in (["tournament"], ["serve"], ["solo", "generate"], ["solo", "play"]):
        assert _help(capsys, *command).split(" options: ")[0].endswith("."), command  # a description line
    for command in ("solve", "render"):
        text = _help(capsys, command)
        assert "--after-event and --event are one option" in text and "as in pi-env" not in text


def test_argument_errors_name_the_command(capsys):
    for argv, prog in ((["play", "--bogus"], "pi-env play"), (["solo", "generate", "--nope", "1"], "pi-env solo generate"),
                       (["solve", "x.json", "--player", "0", "--extra"], "pi-env solve")):
        with pytest.raises(SystemExit) as exc:
            main(argv)
        extra = " ".join(a for a in argv[1:] if a.startswith("--") and a not in ("--player",)) + \
            (" 1" if argv[-1] == "1" else "")
        assert exc.value.code == 2
        assert capsys.readouterr().err == (f"{prog}: error: unrecognized arguments: {extra} "
                                           f"(see '{prog} --help')\n")


def test_render_of_a_solo_record_says_what_render_does(capsys, tmp_path):
    case = tmp_path / "case.json"
    assert run(capsys, "solo", "generate", "--seed", "3", "--out", str(case))[0] == 0
    code, _, err = run(capsys, "render", str(case), "--out", str(tmp_path / "b.png"))
    assert (code, err) == (2, f"pi-env: error: {case}: a Solo Time Attack record; render draws standard and "
                              f"duel games only (for a solo case: pi-env replay {case} prints it, pi-env solo "
                              f"play --case {case} plays it, and its setup sheet is the .txt beside it)\n")
    assert not (tmp_path / "b.png").exists()
