"""Information hygiene of the environment and the renderer (docs/rules.md §9).

A player never sees its own case: two games identical except for player ``p``'s own case must look
the same to ``p`` (observation, info, reward, rendering) until an answer to ``p`` differs, while the
player holding ``p``'s case does see the difference. Checked for both editions, the nick-of-time
variant (also with fast and per-player investigator counts) and the duel (docs/rules.md §6, §7). Renderings for ``viewer=p`` show only the case
``p`` holds; the spectator rendering shows no case.
"""

from __future__ import annotations

import numpy as np
import pytest

from pi_env.envs.aec import raw_env
from pi_env.core.constants import EVIDENCE_NAMES, SOLVE_BASE, SUSPECT_NAMES, TYPE_SIZES
from pi_env.engine import (GameConfig, decode_observation, init, legal_action_mask, observe,
                           step_inplace)
from pi_env.envs.render import render_text

from helpers import policy_action


def other_case(state, p: int, rng: np.random.Generator) -> np.ndarray:
    """A case for player ``p`` that differs in every type and is disjoint from all other cases."""
    used = state.case[0]
    new = np.empty(3, dtype=np.int8)
    for t in range(3):
        free = sorted(set(range(TYPE_SIZES[t])) - {int(v) for v in used[:, t]})
        new[t] = rng.choice(free)
    return new


def assert_disjoint(cases: np.ndarray) -> None:
    for t in range(3):
        assert len(set(cases[:, t].tolist())) == cases.shape[0]


def case_names(case, board) -> list[str]:
    s, e, l = (int(v) for v in case)
    return [SUSPECT_NAMES[s], EVIDENCE_NAMES[e], board.districts[l]]


def pick(state_a, rng: np.random.Generator, mask: np.ndarray, p: int) -> int:
    """Clues, investigators and solves (:func:`helpers.policy_action`); solves name game A's true
    case with probability 0.6 when ``p`` moves (right in game A and wrong in game B, so the answers
    to ``p`` diverge), 0.3 otherwise."""
    return policy_action(state_a, rng, mask, solve_true=0.6 if int(state_a.current_player[0]) == p else 0.3)


def view(e, agent: str, p: int) -> tuple:
    o = e.observe(agent)
    return (o["observation"].tobytes(), o["action_mask"].tobytes(), e.infos[agent], e.rewards[agent],
            e._cumulative_rewards[agent], e.terminations[agent], e.truncations[agent],
            render_text(e.game_state, e.config, viewer=p), e.render())


def run_pair(num_players: int, edition: str, seed: int, p: int, **options) -> str:
    """Play games A and B (B = A with ``p``'s own case replaced) with the same actions; check
    ``p``'s view is identical until an answer to ``p`` differs. Returns why the comparison ended.
    ``options`` go to the env (``mode``, ``variants``, ...)."""
    a = raw_env(num_players=num_players, edition=edition, render_mode="ansi", **options)
    b = raw_env(num_players=num_players, edition=edition, render_mode="ansi", **options)
    a.reset(seed=seed)
    b.reset(seed=seed)
    rng = np.random.default_rng(seed * 31 + p)
    b.game_state.case[0, p] = other_case(a.game_state, p, rng)
    assert_disjoint(b.game_state.case[0])
    assert (b.game_state.case[0, p] != a.game_state.case[0, p]).all()
    me, holder = f"player_{p}", f"player_{(p - 1) % num_players}"
    P = num_players
    steps = 0
    while True:
        assert view(a, me, p) == view(b, me, p)
        assert a.agent_selection == b.agent_selection
        # positive control: the holder of p's case does see it
        ha = decode_observation(a.observe(holder)["observation"], P)["held_case"]
        hb = decode_observation(b.observe(holder)["observation"], P)["held_case"]
        assert not np.array_equal(ha, hb) or int(a.game_state.round[0]) > 0
        if a.game_state.done[0]:
            return "game over"
        agent = a.agent_selection
        action = pick(a.game_state, rng, a.observe(agent)["action_mask"], p)
        a.step(action)
        b.step(action)
        steps += 1
        sa, sb = a.game_state, b.game_state
        if int(sa.last_player[0]) == p and sa.last_answer[0].tolist() != sb.last_answer[0].tolist():
            # the first differing answer to p: now p's view must differ
            assert view(a, me, p) != view(b, me, p)
            assert a.infos[me]["answer"] != b.infos[me]["answer"]
            return "answer differs"


@pytest.mark.parametrize("num_players,edition", [(2, "second"), (3, "second"), (4, "second"),
                                                 (5, "second"), (3, "first"), (5, "first")])
def test_own_case_never_visible_until_an_answer_differs(num_players, edition):
    reasons = [run_pair(num_players, edition, seed, p) for seed in (1, 2) for p in range(num_players)]
    # with these seeds every pair reaches a differing answer inside round 1
    assert reasons == ["answer differs"] * len(reasons)


@pytest.mark.parametrize("num_players,options", [
    (3, dict(variants=("nick-of-time",))), (4, dict(variants=("nick-of-time",))),
    (5, dict(variants=("nick-of-time", "fast"))),
    (4, dict(variants=("nick-of-time",), investigators=(5, 5, 3, 3)))])
@pytest.mark.parametrize("edition", ["second", "first"])
def test_own_case_never_visible_nick_of_time(num_players, options, edition):
    reasons = [run_pair(num_players, edition, seed, p, **options)
               for seed in (1, 2) for p in range(num_players)]
    assert reasons == ["answer differs"] * len(reasons)


@pytest.mark.parametrize("options,differ", [(dict(), 10), (dict(variants=("fast",)), 10),
                                            (dict(max_rotations=1, max_rounds=3), 3)])
def test_own_case_never_visible_duel(options, differ):
    """Duel (docs/rules.md §7): the first solve attempt decides a round. When the opponent decides round
    1 before any answer to ``p`` differs (or the rotation-limit safeguard draws it), later rounds
    are dealt alike in both games and ``p``'s view stays identical to the end of the duel."""
    reasons = [run_pair(2, "second", seed, p, mode="duel", **options)
               for seed in range(1, 7) for p in range(2)]
    assert set(reasons) <= {"answer differs", "game over"}
    assert reasons.count("answer differs") == differ  # with these seeds


@pytest.mark.parametrize("num_players,options", [(2, {}), (3, {}), (4, {}), (5, {}),
                                                 (2, dict(mode="duel")),
                                                 (4, dict(variants=("nick-of-time",)))])
def test_render_shows_only_the_held_case(num_players, options):
    config = GameConfig(num_players=num_players, **options)
    board = config.board
    state = init(config, 1, seed=77)
    rng = np.random.default_rng(num_players)
    buf = np.zeros(1, dtype=np.int64)
    checked = 0
    while not state.done[0] and checked < 60:
        spectator = render_text(state, config)
        assert not any(line.startswith("Held case") for line in spectator.splitlines())
        assert "case):" not in spectator
        for p in range(num_players):
            h = (p + 1) % num_players
            text = render_text(state, config, viewer=p)
            held = [line for line in text.splitlines() if line.startswith("Held case")]
            assert len(held) == 1
            part = held[0].split(": ", 1)[1]
            assert part == " / ".join(case_names(state.case[0, h], board))
            assert held[0].startswith(f"Held case (P{p} holds P{h}'s case): ")
            for name in case_names(state.case[0, p], board):
                assert name not in part
            # the observation's held_case is exactly player p+1's case
            obs = decode_observation(observe(state, p)[0], num_players)
            s, e, l = (int(v) for v in state.case[0, h])
            assert np.flatnonzero(obs["held_case"]).tolist() == [s, 12 + e, 22 + l]
            # ... and the rendering is otherwise the spectator's
            assert text.splitlines()[:-2] == spectator.splitlines()
        queries = np.flatnonzero(legal_action_mask(state)[0, :SOLVE_BASE])
        buf[0] = int(rng.choice(queries)) if rng.random() < 0.85 else SOLVE_BASE + int(rng.integers(1680))
        step_inplace(state, buf, config)
        checked += 1
    assert checked >= 10


def test_the_solver_raises_the_projects_errors():
    """Bad input to the solver raises a :class:`pi_env.core.errors.PIError` (a ``ValueError``, so
    callers catching ``ValueError`` still do), as the rest of the library does: no bare ``raise
    ValueError`` in ``solvers/``."""
    import ast
    from pathlib import Path

    bare = []
    for path in sorted((Path(__file__).resolve().parents[1] / "solvers").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call)
                    and getattr(node.exc.func, "id", None) == "ValueError"):
                bare.append(f"{path.name}:{node.lineno}")
    assert bare == []


def _import_graph() -> dict[str, set[str]]:
    """pi_env's modules and the pi_env modules each imports, anywhere in it (inside functions too);
    ``from package import submodule`` counts as importing the submodule."""
    import ast
    from pathlib import Path

    import os

    root = Path(__file__).resolve().parents[1] / "pi_env"
    files = {}
    paths = [Path(d) / f for d, _, names in os.walk(root, followlinks=True) for f in names if f.endswith(".py")]
    for path in paths:  # followlinks: pi_env/solvers, agents, experiments are links in a checkout
        parts = path.relative_to(root.parent).with_suffix("").parts
        files[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    graph: dict[str, set[str]] = {m: set() for m in files}
    for module, path in files.items():
        package = module if path.name == "__init__.py" else module.rsplit(".", 1)[0]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    base = ".".join(package.split(".")[:len(package.split(".")) - node.level + 1] + ([base] if base else []))
                subs = [f"{base}.{a.name}" for a in node.names if f"{base}.{a.name}" in files]
                targets = subs if len(subs) == len(node.names) else [base, *subs]
            else:
                continue
            graph[module] |= {t for t in targets if t in files and t != module}
    return graph


def test_no_module_cycles():
    """No two modules of pi_env import each other, directly or through others, even inside
    functions (a cycle hides in function-level imports until a refactor moves one to the top)."""
    graph = _import_graph()
    assert len(graph) > 100 and "pi_env.solvers.joint" in graph  # the scan sees every module (links too)
    assert "pi_env.rl.train" in graph["pi_env.rl.cli"]  # and imports inside functions
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    cycles = []

    def visit(v: str) -> None:  # Tarjan's strongly connected components
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                cycles.append(sorted(component))

    import sys

    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 10_000))
    try:
        for v in sorted(graph):
            if v not in index:
                visit(v)
    finally:
        sys.setrecursionlimit(limit)
    assert cycles == []


def test_one_play_game():
    """One function plays a game with agents, :func:`pi_env.agents.runner.play_game`; a tournament's
    game is ``tournament_game`` over it (there were two functions of that name)."""
    import ast

    graph = _import_graph()  # for the module list, links followed
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    found = []
    for module in graph:
        rel = Path(*module.split("."))
        path = root / (str(rel) + ".py") if (root / (str(rel) + ".py")).exists() else root / rel / "__init__.py"
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == "play_game":
                found.append(module)
    assert found == ["pi_env.agents.runner"]


def test_the_solver_imports_nothing_from_the_environments():
    """The solver stands below the environments in what it needs: it imports the engine, never
    ``pi_env.envs`` (which drags PettingZoo in), not even inside a function."""
    graph = _import_graph()
    bad = sorted((m, t) for m in graph if m.startswith("pi_env.solvers")
                 for t in graph[m] if t == "pi_env.envs" or t.startswith("pi_env.envs."))
    assert bad == []


def test_the_encodings_import_only_the_core():
    """The encodings package (layouts, bounds, scales, the registry) stands below the engine and
    everything above it: it imports only ``pi_env.core`` and itself, not even inside a function
    (nothing of ``pi_env.engine``, ``envs``, ``solvers``, ``agents`` or ``rl``)."""
    graph = _import_graph()
    mine = sorted(m for m in graph if m == "pi_env.encodings" or m.startswith("pi_env.encodings."))
    assert mine == ["pi_env.encodings", "pi_env.encodings.bounds", "pi_env.encodings.layouts",
                    "pi_env.encodings.registry"]
    bad = sorted((m, t) for m in mine for t in graph[m]
                 if not (t.startswith("pi_env.core") or t.startswith("pi_env.encodings")))
    assert bad == []


def test_no_library_function_is_longer_than_150_lines():
    """A function a reader can hold in view: none in pi_env (numba kernels, linked folders and nested
    functions included) is longer than 150 lines, docstring included."""
    import ast
    import os
    from pathlib import Path

    root = Path(__file__).resolve().parents[1] / "pi_env"
    long = []
    for folder, _, names in os.walk(root, followlinks=True):
        for name in names:
            if name.endswith(".py"):
                path = Path(folder) / name
                for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                        lines = node.end_lineno - node.lineno + 1
                        if lines > 150:
                            long.append(f"{path.relative_to(root.parent)}:{node.lineno} {node.name} ({lines} lines)")
    assert long == []


def test_no_engine_function_takes_more_than_16_parameters():
    """The engine's functions (numba kernels included, read with ast) take the game state as one value
    (``pi_env.engine.state.GameArrays``), not its arrays one by one: none takes more than 16
    parameters (``*args`` and ``**kwargs`` count one each)."""
    import ast
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    wide = {}
    for path in sorted((root / "pi_env" / "engine").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                a = node.args
                n = (len(a.posonlyargs) + len(a.args) + len(a.kwonlyargs) + (a.vararg is not None)
                     + (a.kwarg is not None))
                if n > 16:
                    wide[f"{path.relative_to(root).as_posix()} {node.name}"] = n
    assert wide == {}
