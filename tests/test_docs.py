"""The specification lives in the repository (issue #13): every rules citation points at a section
of ``docs/rules.md`` that exists, and nothing refers to the old external copies."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
RULES = REPO / "docs" / "rules.md"
_TEXT_SUFFIXES = (".py", ".md", ".json", ".toml", ".txt", ".cfg", ".yml", ".yaml", ".sh", ".cff", ".js", ".html",
                  ".css", "")  # "": LICENSE, .ci/run, .gitignore


def _tracked_text_files() -> list[Path]:
    """The repository's text files (git's list, so that a venv or a build folder is never read)."""
    try:
        out = subprocess.run(["git", "ls-files"], cwd=REPO, capture_output=True, text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("not a git checkout")
    paths = [REPO / f for f in out.split()]
    return [p for p in paths if p.suffix in _TEXT_SUFFIXES and p.is_file() and not p.is_symlink()
            and p.name != "CHANGELOG.md"]


def _sections() -> set[str]:
    """Section numbers of docs/rules.md: ``## 4. ...`` gives "4", ``### 4.1 ...`` gives "4.1"."""
    return set(re.findall(r"^#{2,3} (\d+(?:\.\d+)?)\.? ", RULES.read_text(encoding="utf-8"), flags=re.M))


def test_rules_has_the_nine_sections_and_the_subsections_cited():
    assert _sections() == {"1", "2", "3", "3.1", "3.2", "3.3", "3.4", "4", "4.1", "4.2", "4.3", "4.4",
                           "5", "6", "7", "8", "9"}


def test_every_section_cited_exists():
    """Every ``§n`` in the code and docs names a section of docs/rules.md (the conventions of
    docs/contributing.md are cited as ``§Cn``, another numbering: :func:`test_every_convention_cited_exists`)."""
    sections = _sections()
    bad = []
    for path in _tracked_text_files():
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            for m in re.finditer(r"§(\d+(?:\.\d+)?)", line):
                if m.group(1) not in sections:
                    bad.append(f"{path.relative_to(REPO)}:{number}: §{m.group(1)}")
    assert not bad, "citations of sections docs/rules.md does not have:\n" + "\n".join(bad)


def test_nothing_points_outside_the_repository():
    """No file reads or cites ../shared or the rules and record-format files kept there (a clone has
    neither): citations go to docs/rules.md and docs/record-format.md."""
    pattern = re.compile(r"\.\./shared|/work/shared|(?<![\w/])(RULES|RECORD)\.md|parents\[2\]")
    bad = [f"{p.relative_to(REPO)}:{i}: {line.strip()}"
           for p in _tracked_text_files() if p != Path(__file__).resolve()
           for i, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1) if pattern.search(line)]
    assert not bad, "references to files outside the repository:\n" + "\n".join(bad)


def test_the_record_format_example_loads():
    """The example of docs/record-format.md is a valid record, with the values its text describes."""
    from pi_env.records.record_file import load_record

    text = (REPO / "docs" / "record-format.md").read_text(encoding="utf-8")
    example = json.loads(re.search(r"```json\n(.*?)```", text, flags=re.S).group(1))
    record = load_record(example)
    assert record.player_names == ("Ann", "Ben", "Cleo")
    rnd = record.rounds[0]
    assert list(rnd.cases) == [1] and len(rnd.events) == 5
    assert [e.kind for e in rnd.events] == ["clue", "clue", "investigate", "solve", "investigate"]


def test_every_figure_the_docs_name_exists():
    """A ``docs/figures/NAME`` named in a tracked text file is in the repository (a removed figure
    leaves no dangling reference)."""
    missing = sorted({(f.relative_to(REPO).as_posix(), m) for f in _tracked_text_files()
                      for m in re.findall(r"docs/figures/[\w.-]+\.(?:png|csv|txt)", f.read_text(encoding="utf-8"))
                      if not (REPO / m).is_file()})
    assert missing == []


def _curve_script():
    """``docs/make_imitation_curve.py`` loaded as a module (it is a script, not part of the package)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("make_imitation_curve", REPO / "docs" / "make_imitation_curve.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_learned_4p_loss_curve_matches_its_model_card():
    """``docs/figures/rl_4p_imitation_loss.csv`` (parsed from the fit's ``--verbose`` lines by
    ``docs/make_imitation_curve.py``) has the 20 epochs of the card, the last loss being the card's
    ``imitation_loss``; the parser reads the training command's own line format."""
    mod = _curve_script()
    assert mod.read_epochs("x\nimitation epoch 1/2: loss 2.4783 (3 s)\nimitation epoch 2/2: loss 0.25 (8 s)\n") == [
        (1, 2.4783, 3), (2, 0.25, 8)]
    rows = (REPO / "docs" / "figures" / "rl_4p_imitation_loss.csv").read_text().splitlines()
    assert rows[0] == "epoch,loss,seconds" and [int(r.split(",")[0]) for r in rows[1:]] == list(range(1, 21))
    assert rows[1].split(",")[1] == "2.4783" and round(float(rows[-1].split(",")[1]), 2) == 0.24


def test_learned_2p_loss_curve_matches_its_run():
    """``docs/figures/rl_2p_imitation_loss.csv`` (parsed from the ``--verbose`` output of the run that
    trained ``learned:2p``) has the two fits of that run, 25 epochs each: round 0 (behaviour
    cloning) and round 1 (after one DAgger round), each ending at the ``imitation_loss`` the run
    recorded for that round (0.709 and 0.4717 nats, the model card's table); the parser cuts a log
    into rounds where the epoch counter restarts at 1."""
    mod = _curve_script()
    text = ("imitation epoch 1/2: loss 2.6784 (14 s)\nimitation epoch 2/2: loss 2.2416 (28 s)\n{'round': 0}\n"
            "demonstrations: 15043row [12:40]imitation epoch 1/2: loss 0.7668 (16 s)\n"
            "imitation epoch 2/2: loss 0.7314 (29 s)\n")
    assert mod.split_rounds(mod.read_epochs(text)) == [[(1, 2.6784, 14), (2, 2.2416, 28)],
                                                       [(1, 0.7668, 16), (2, 0.7314, 29)]]
    assert mod.split_rounds([(1, 2.0, 1), (2, 1.0, 2)]) == [[(1, 2.0, 1), (2, 1.0, 2)]]
    rows = [r.split(",") for r in (REPO / "docs" / "figures" / "rl_2p_imitation_loss.csv").read_text().splitlines()]
    assert rows[0] == ["round", "epoch", "loss", "seconds"]
    assert [(int(r[0]), int(r[1])) for r in rows[1:]] == [(k, e) for k in (0, 1) for e in range(1, 26)]
    assert [r[2] for r in rows[1:2] + rows[25:27] + rows[-1:]] == ["2.6784", "0.709", "0.7668", "0.4717"]
    card = (REPO / "pi_env" / "models" / "learned_2p.md").read_text()
    assert "rl_2p_imitation_loss" in card and "0.709" in card and "0.4717" in card


def test_learned_solo_loss_curve_matches_its_model_file():
    """``docs/figures/rl_solo_imitation_loss.csv`` (parsed from ``python -m pi_env.rl.solo_imitate``'s
    ``epoch N/M: loss ...`` lines) has the 40 epochs of the model card's command, and its last loss is
    the ``loss`` recorded in the card inside ``pi_env/models/learned_solo.pt`` (0.172; CI's docs tests
    do not load torch, so the value is written here)."""
    mod = _curve_script()
    assert mod.read_epochs("layouts\n  epoch 1/40: loss 1.4001 (2 s)\n  epoch 2/40: loss 0.6392 (3 s)\n") == [
        (1, 1.4001, 2), (2, 0.6392, 3)]
    rows = (REPO / "docs" / "figures" / "rl_solo_imitation_loss.csv").read_text().splitlines()
    assert rows[0] == "epoch,loss,seconds" and [int(r.split(",")[0]) for r in rows[1:]] == list(range(1, 41))
    assert rows[-1].split(",")[1] == "0.172"


def _python_blocks(path: str, section: str | None = None) -> list[str]:
    """The ```python blocks of a Markdown file (of one ``## `` section of it), in order."""
    text = (REPO / path).read_text(encoding="utf-8")
    if section is not None:
        text = text[text.index(f"\n## {section}\n"):]
        text = text[:text.index("\n## ", 1)]
    return re.findall(r"```python\n(.*?)```", text, flags=re.S)


def _python_api_blocks() -> list[str]:
    """The Python API pages' code blocks, in reading order: the engine and environments, then the
    solver (a later block uses ``state`` and ``config`` of the first)."""
    return _python_blocks("docs/environments.md") + _python_blocks("docs/solver.md")


def _printed_comments(block: str) -> list[str]:
    """What a block's comments say its ``print`` calls show: the comment after each ``print(`` line
    and the comment-only lines right below it (a loop's further lines)."""
    said, after_print = [], False
    for line in block.splitlines():
        code, _, comment = line.partition("#")
        if "print(" in code:
            said.append(comment.strip())
            after_print = True
        elif not code.strip() and comment and after_print:
            said.append(comment.strip())
        else:
            after_print = False
    return said


def test_the_python_api_pages_blocks_run_as_written(tmp_path, monkeypatch, capsys):
    """Every code block of docs/environments.md and docs/solver.md runs as written, in order in one
    namespace (a later block uses ``state`` and ``config`` of the first), in a folder holding the
    ``game.json`` its solver block names (made with the command in its first comment); the solver
    block prints exactly what its comments say. The integer-row block's conversion takes
    ``env.config`` (a fresh user called it with the rows alone) and gives the packed rows."""
    import shlex

    import numpy as np

    from pi_env.apps.cli import main

    blocks = _python_api_blocks()
    assert len(blocks) == 7
    assert any("float_from_packed_int(obs, env.config)" in b for b in blocks)
    monkeypatch.chdir(tmp_path)
    namespace: dict = {"__name__": "readme"}
    for block in blocks:
        first = block.splitlines()[0]
        if first.startswith("# game.json: pi-env "):
            assert main(shlex.split(first.split(": ", 1)[1])[1:]) == 0
        capsys.readouterr()
        exec(compile(block, "docs", "exec"), namespace)
        printed = capsys.readouterr().out.splitlines()
        if "record_hint" in block:
            assert printed == _printed_comments(block)
        if "Script.empty" in block:  # the scripted rollout: its last line as its comment says
            assert printed[-1] == _printed_comments(block)[-1] == "True True"
        if "float_from_packed_int" in block:
            from pi_env.envs.selfplay import SelfPlayVecEnv

            obs, x = namespace["obs"], namespace["x"]
            assert (obs.dtype, obs.shape, x.dtype, x.shape) == (np.int8, (256, 288), np.float32, (256, 688))
            packed, _ = SelfPlayVecEnv(256, num_players=2, observations="packed").reset(seed=0)
            assert np.array_equal(x, packed)


# --- the README is a front page ---------------------------------------------------------------

INTERNAL_WORDS = re.compile(r"(?i)issues? #\d|\bthe lead\b|\blead's\b|design card|this session")


def test_the_readme_is_a_front_page():
    """At most 300 lines, the two commands first, a table of contents, none of the words that mean
    something only inside the project."""
    text = (REPO / "README.md").read_text(encoding="utf-8")
    lines = text.splitlines()
    assert len(lines) <= 300, len(lines)
    assert lines[2] == "Play a complete 4-player game of P.I. with the built-in agents (install + run the main job):"
    assert lines[5].startswith("python3 -m venv .venv && . .venv/bin/activate && pip install . && pi-env play ")
    assert lines[8] == "Run the tests (install + test):"
    assert lines[11] == "python3 -m venv .venv && . .venv/bin/activate && pip install '.[test]' && pytest"
    assert "## Contents" in text and "@@" not in text
    for heading in re.findall(r"^- \[[^]]+\]\(#([\w-]+)\)$", text, flags=re.M):  # the contents resolve
        assert any(re.sub(r"[^\w -]", "", h).strip().lower().replace(" ", "-") == heading
                   for h in re.findall(r"^## (.+)$", text, flags=re.M)), heading
    bad = [f"README.md:{i}: {line}" for i, line in enumerate(lines, 1) if INTERNAL_WORDS.search(line)]
    assert not bad, "\n".join(bad)


ISSUE_NUMBER = re.compile(r"(?i)\bissues? #?\d|\(#\d+ item|pre-#\d")


def test_user_facing_text_names_no_issue_numbers():
    """The docstrings and ``--help`` of benchmarks/ and experiments/, the package's modules and model
    cards and the docs pages say what a measurement or feature is, not which project issue asked for
    it; only the history pages (the speed and tuning logs) and CHANGELOG.md may name issues."""
    files = [f for d in ("benchmarks", "experiments", "pi_env") for f in sorted((REPO / d).rglob("*"))
             if f.suffix in (".py", ".md")]
    files += [f for f in sorted((REPO / "docs").glob("*.md")) if f.name not in ("speed-log.md", "tuning-log.md")]
    bad = [f"{f.relative_to(REPO)}:{i}: {line.strip()}" for f in files
           for i, line in enumerate(f.read_text(encoding="utf-8").splitlines(), 1) if ISSUE_NUMBER.search(line)]
    assert not bad, "\n".join(bad)


def test_the_readme_quick_start_runs_as_written(tmp_path, monkeypatch, capsys):
    """The README's quick-start blocks run as written, in order in one folder (the solver block reads
    the record the second block writes), and print exactly what their comments say."""
    blocks = _python_blocks("README.md", "Quick start in Python")
    assert len(blocks) == 4
    monkeypatch.chdir(tmp_path)
    for block in blocks:
        capsys.readouterr()
        exec(compile(block, "README.md", "exec"), {"__name__": "readme"})
        assert capsys.readouterr().out.splitlines() == _printed_comments(block), block


# --- what the code and docs cite exists ---------------------------------------------------------

_MD_CITATION = re.compile(r"(?<![\w/.-])((?:[\w.-]+/)*[\w.-]+\.md)\b")


def test_every_markdown_file_cited_exists():
    """A ``*.md`` path named in a tracked file (code, docs, configuration) is in the repository:
    a path with a folder is taken from the repository's top (``docs/rules.md``) or, in a page of
    docs/, from that page's folder (``[rules](rules.md)``); a bare name is looked up beside the
    citing file, at the top, and in docs/. The changelog is history and is skipped."""
    bad = []
    tracked = _tracked_text_files()
    names = {p.name for p in tracked}
    for path in tracked:
        text = path.read_text(encoding="utf-8")
        for number, line in enumerate(text.splitlines(), 1):
            for m in _MD_CITATION.finditer(line):
                name = m.group(1)
                if "://" in line[max(0, m.start() - 60):m.start()] or name.startswith("."):
                    continue
                candidates = [REPO / name, path.parent / name]
                if "/" not in name or path.name == "mkdocs.yml":  # mkdocs.yml names pages inside docs/
                    candidates.append(REPO / "docs" / name)
                if not any(c.is_file() for c in candidates) and not ("/" not in name and name in names):
                    bad.append(f"{path.relative_to(REPO)}:{number}: {name}")
    assert not bad, "Markdown files cited but missing:\n" + "\n".join(bad)


def test_every_convention_cited_exists():
    """``docs/contributing.md §Cn`` (the conventions the code follows) names a ``### Cn.`` section."""
    sections = set(re.findall(r"^### (C\d+)\. ", (REPO / "docs" / "contributing.md").read_text(encoding="utf-8"),
                              flags=re.M))
    assert sections == {f"C{i}" for i in range(1, 15)}
    cited = {(f"{p.relative_to(REPO)}", c) for p in _tracked_text_files()
             for c in re.findall(r"§(C\d+)", p.read_text(encoding="utf-8"))}
    assert {c for _, c in cited} >= {"C2", "C3", "C5", "C6", "C10", "C11", "C12"}
    assert sorted(x for x in cited if x[1] not in sections) == []


API_PACKAGES = ("core", "encodings", "engine", "records", "envs", "solvers", "agents")


def test_the_api_reference_documents_every_public_module():
    """``docs/api/{package}.md`` renders the package (its docstring) and then every public module of it
    (``::: pi_env.PACKAGE.MODULE``, no private ``_module``, none missing, none twice), and the
    overview ``docs/api/index.md`` links every one of them."""
    index = (REPO / "docs" / "api" / "index.md").read_text(encoding="utf-8")
    for package in API_PACKAGES:
        page = (REPO / "docs" / "api" / f"{package}.md").read_text(encoding="utf-8")
        directives = re.findall(r"^::: (\S+)", page, flags=re.M)
        modules = sorted(f"pi_env.{package}.{p.stem}" for p in (REPO / "pi_env" / package).glob("*.py")
                         if not p.name.startswith("_"))
        assert directives[0] == f"pi_env.{package}"
        assert sorted(directives[1:]) == modules, package
        assert [m for m in modules if f"]({package}.md#{m})" not in index] == [], package
