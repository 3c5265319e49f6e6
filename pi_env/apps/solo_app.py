"""The terminal game of Solo Time Attack (docs/rules.md §8): ``pi-env solo play``.

A plain line-by-line loop over an input and an output function, so that a person plays it in any
terminal and a test drives it with scripted lines and a fake clock::

    app = SoloApp(input_fn=input, output_fn=print, clock=time.monotonic)
    app.run(seed=7)

**Commands** (one per line; names are matched as in docs/record-format.md: case, spaces, apostrophes and
accents do not matter, first-edition words are accepted, a misspelt name gets suggestions):

==============================================  ============================================
``clue NAME``                                   ask about a suspect, evidence or location
                                                (``evidence card NAME`` also works)
``investigate DISTRICT``                        place an investigator tile there
``solve SUSPECT / EVIDENCE / LOCATION``         name the case (``/`` or ``,`` optional)
``hint``                                        ask the solver (not an action; counted apart)
``board``                                       show the board again
``map``                                         each district and the districts next to it
                                                (a trace means "next to"; docs/rules.md §2)
``help``                                        the commands
``quit``                                        save the game and leave (``--resume`` later)
==============================================  ============================================

Each query or solve is one action. Asking a clue again, or naming a case already found wrong,
would cost an action and tell nothing: the app says so and does not count it. An illegal query
(a second investigator in a district, none left) or a line it cannot read gets a one-line message;
the game goes on.

**Answers.** A clue on element ``x`` answers *spot* (``x`` is the case's element of that type),
*trace* (the case's element of that type has its tile in a district next to ``x``'s tile) or
*nothing* (docs/rules.md §4.1). An investigator in district ``d`` answers how many of the case's three
elements have their tile in ``d`` (spots) or next to it (traces), not which; a type whose tile in
``d`` already carries your marker is not counted again (§4.2).

**Clock.** The time is the wall-clock time spent in the app with the game open (from the first
prompt to the correct solve), summed over sessions when the game is resumed.

**Saving.** After every action the game in progress is written atomically (temporary file, then
``os.replace``) to :func:`default_save_path` (``solo-game.json`` in the data directory, see
:mod:`pi_env.apps.leaderboard`): the case's seed (or, for a case file without one, its layout and
case), the actions taken, the time and the hints. ``quit``, end of input and Ctrl-C save too, so
nothing is lost; ``pi-env solo play --resume`` continues, and a plain ``pi-env solo play`` offers
to (empty, ``y`` or ``yes`` resumes, only ``n`` or ``no`` discards it, anything else is asked
again, and end of input leaves the saved game untouched). A saved game that cannot be read is reported and moved aside (``.unreadable``), never
silently dropped or overwritten.

**The end.** A correct solve shows the result (actions, investigator tiles used, wrong solves,
time), stores it in the leaderboard (:class:`~pi_env.apps.leaderboard.Leaderboard`) and shows the rank
among the results of the same case (seed and number of tiles), ranked by docs/rules.md §8. If the
leaderboard file cannot be used, the message says why, the file is left alone, and the result is
appended to ``pending-results.jsonl`` beside the saved game instead. The finished game is also
written as a ``pi-record/1`` record (``games/`` in the data directory), which ``pi-env replay``
re-runs with the engine.
"""

from __future__ import annotations

import datetime as _dt
import json
import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

import numpy as np

from pi_env.core.actions import action_name, case_name, parse_action
from pi_env.core.board import DAYTIME, Board
from pi_env.core.constants import INVESTIGATE_BASE, NUM_DISTRICTS, SOLVE_BASE, SPOT, TRACE, TYPE_NAMES, TYPE_OFFSETS
from pi_env.engine import solo as S
from pi_env.core.errors import InvalidActionError, PIError, RecordError, UnknownNameError
from pi_env.core.files import write_text_atomic
from pi_env.apps.leaderboard import Entry, Leaderboard, LeaderboardError, data_dir
from pi_env.core.names import element_name, element_names
from pi_env.solvers.solo_rating import DIFFICULTIES
from pi_env.core.text import format_table, normalize, plural

__all__ = ["SoloApp", "SoloGame", "SoloHint", "solo_hint", "answer_phrase", "game_from_seed", "SaveError", "default_save_path", "SAVE_FORMAT", "format_time",
           "solo_report_lines", "solo_report_json", "HELP", "map_lines", "random_seed", "RANDOM_SEEDS",
           "RANDOM_CASE"]

RANDOM_SEEDS = range(10**9, 10**10)
"""Where a random case's seed is drawn from (``pi-env solo play`` and ``pi-env serve`` without a
seed or date): ten-digit seeds, apart from every daily case's (``YYYYMMDD`` below, and the daily
search blocks ``YYYYMMDD000..999`` above), and too many to find one's case by trying them all
against the layout on the board."""
RANDOM_CASE = "a random case"
"""How messages name a random case while it is played: its seed fixes the case, so it is shown
only once the case is solved (``pi-env solo generate --seed N`` would print the case)."""


def random_seed() -> int:
    """A seed from :data:`RANDOM_SEEDS`, drawn from the operating system's randomness."""
    import secrets

    return RANDOM_SEEDS.start + secrets.randbelow(len(RANDOM_SEEDS))

SAVE_FORMAT = "pi-solo-save/1"
HELP = """Commands (one per line):
  clue NAME                        ask about a suspect, evidence or location (1 action)
  investigate DISTRICT             place an investigator tile in a district (1 action)
  solve SUSPECT / EVIDENCE / LOCATION   name the case (1 action; right ends the game)
  hint                             ask the solver what it would do (not an action)
  board                            show the board again
  map                              which districts are next to which (traces depend on it)
  help                             this list
  quit                             save the game and leave (continue with: pi-env solo play --resume)
Answers: spot = that is the case's; trace = the case's tile is in a district next to it; nothing.
An investigator counts the case's tiles in its district (spots) and next to it (traces)."""


class SaveError(PIError):
    """A saved game or a case file cannot be used (the message says why)."""


def default_save_path() -> Path:
    """``solo-game.json`` in the data directory (:func:`pi_env.apps.leaderboard.data_dir`)."""
    return data_dir() / "solo-game.json"


def format_time(seconds: float) -> str:
    """``"0:07"``, ``"12:34"``, ``"1:02:03"`` (whole seconds, rounded down)."""
    s = max(0, int(seconds))
    h, rem = divmod(s, 3600)
    m, s = divmod(rem, 60)
    return f"{h}:{m:02d}:{s:02d}" if h else f"{m}:{s:02d}"


def _ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def _sentence(text: str) -> str:
    """Capitalised, ending in a full stop (or the question mark it has)."""
    text = text.strip()
    text = text[:1].upper() + text[1:]
    return text if text.endswith((".", "?", "!")) else text + "."


@dataclass
class SoloGame:
    """One solo game: the case, the engine state and what the player did.

    Attributes:
        seed: the case seed (``None`` for a case file without one).
        date: ``YYYY-MM-DD`` of a daily case.
        tile_district, case: the layout and the hidden case.
        config: the engine options (open queries).
        state: the engine state (``B == 1``).
        actions: the actions taken, in order.
        elapsed: seconds played before this session.
        hints: hints asked.
        greedy_actions: the reference greedy solver's actions on this case (``None`` if unknown).
        difficulty: its bucket (``None`` if unknown).
        source: where the case came from, for messages (``"seed 7"``, ``"daily case 2024-05-01"``,
            ``"daily case 2024-05-01, hard"``, ``"case file case.json"``).
        target: the difficulty asked for when the case was generated (``None``: none).
        unranked: why the game is not ranked (``None``: it is ranked, or the default reason).
        random: the seed was drawn at random, not chosen by the player: ``source`` is
            :data:`RANDOM_CASE` and the seed is shown only once the case is solved (it fixes the
            case; a player who chose a seed knows it already). A daily case is reproducible from
            its date by design.
    """

    seed: int | None
    date: str | None
    tile_district: tuple[int, ...]
    case: int
    config: S.SoloConfig
    state: S.SoloState
    actions: list[int]
    elapsed: float = 0.0
    hints: int = 0
    greedy_actions: int | None = None
    difficulty: str | None = None
    source: str = ""
    target: str | None = None
    unranked: str | None = None
    random: bool = False
    player_name: str | None = None

    @classmethod
    def new(cls, tile_district, case: int, *, seed: int | None, date: str | None = None,
            investigators: int = 5, board: Board = DAYTIME, greedy_actions: int | None = None,
            difficulty: str | None = None, source: str = "", target: str | None = None) -> "SoloGame":
        config = S.SoloConfig(investigators=investigators, max_actions=S.MAX_SOLO_ACTIONS, board=board)
        state = S.from_layout(config, tile_district, case)
        return cls(seed=seed, date=date, tile_district=tuple(int(d) for d in tile_district), case=int(case),
                   config=config, state=state, actions=[], greedy_actions=greedy_actions,
                   difficulty=difficulty, source=source, target=target)

    @property
    def board(self) -> Board:
        return self.config.board

    @property
    def done(self) -> bool:
        return bool(self.state.done[0])

    def step(self, action: int) -> None:
        """Apply a legal action (the caller checked it)."""
        S.step_inplace(self.state, np.array([action], dtype=np.int64), self.config)
        self.actions.append(int(action))

    # -- saving ---------------------------------------------------------------------------
    def to_json(self) -> dict[str, Any]:
        doc: dict[str, Any] = {"format": SAVE_FORMAT, "seed": self.seed, "date": self.date,
                               "investigators": self.config.investigators,
                               "actions": [action_name(a, self.board) for a in self.actions],
                               "elapsed": round(float(self.elapsed), 3), "hints": self.hints,
                               "source": self.source}
        if self.target is not None:
            doc["difficulty"] = self.target
        if self.unranked is not None:
            doc["unranked"] = self.unranked
        if self.random:
            doc["random"] = True
        if self.player_name is not None:
            doc["name"] = self.player_name
        if self.seed is None or self.board != DAYTIME:
            doc["tile_district"] = list(self.tile_district)
            doc["case"] = self.case
            doc["board"] = "daytime" if self.board == DAYTIME else self.board.to_dict()
        return doc

    @classmethod
    def from_json(cls, doc: Any) -> "SoloGame":
        """Rebuild a saved game (re-running its actions through the engine).

        Raises:
            SaveError: not a saved game, or one that does not replay.
        """
        if not isinstance(doc, dict) or doc.get("format") != SAVE_FORMAT:
            raise SaveError(f"not a saved solo game (format must be {SAVE_FORMAT!r})")
        try:
            inv = doc.get("investigators", 5)
            seed, date = doc.get("seed"), doc.get("date")
            if "tile_district" in doc:
                from pi_env.core.board import load_board

                board = load_board(doc.get("board", "daytime"))
                td, case = doc["tile_district"], doc["case"]
                if not isinstance(case, int) or not isinstance(td, list):
                    raise SaveError("tile_district must be a list and case an integer")
                game = cls.new(td, case, seed=seed, date=date, investigators=inv, board=board,
                               source=str(doc.get("source", "")))
                unranked = doc.get("unranked")
                game.unranked = unranked if isinstance(unranked, str) else None
            else:
                if not isinstance(seed, int) or isinstance(seed, bool) or seed < 0:
                    raise SaveError(f"seed must be a non-negative integer, got {seed!r}")
                target = doc.get("difficulty")
                if date is not None and not isinstance(date, str) or target not in (None, *DIFFICULTIES):
                    raise SaveError("date must be text and difficulty one of easy, medium, hard")
                from pi_env.apps.solo_cases import generate

                # the saved seed is the case's own (a daily of a difficulty is not its date's seed)
                game = _game_of_case(generate(seed, investigators=inv), date, target,
                                     random=doc.get("random") is True and date is None)
            elapsed, hints = doc.get("elapsed", 0.0), doc.get("hints", 0)
            if not isinstance(elapsed, (int, float)) or elapsed < 0 or not isinstance(hints, int) or hints < 0:
                raise SaveError("elapsed and hints must be non-negative numbers")
            game.elapsed, game.hints = float(elapsed), int(hints)
            name = doc.get("name")
            if name is not None and not isinstance(name, str):
                raise SaveError(f"name must be text, got {name!r}")
            game.player_name = name
            acts = doc.get("actions", [])
            if not isinstance(acts, list):
                raise SaveError("actions must be a list")
            for i, text in enumerate(acts):
                if not isinstance(text, str):
                    raise SaveError(f"action {i + 1} is not text: {text!r}")
                a = parse_action(text, game.board)
                if game.done or not S.is_legal(game.state, np.array([a]))[0]:
                    raise SaveError(f"action {i + 1} ({text!r}) is not legal at that point")
                game.step(a)
            if game.done:
                raise SaveError("the saved game is already finished")
        except SaveError:
            raise
        except PIError as exc:
            raise SaveError(str(exc)) from None
        except (KeyError, TypeError, IndexError, AttributeError) as exc:
            raise SaveError(f"malformed saved game ({type(exc).__name__}: {exc})") from None
        return game

    # -- the record -----------------------------------------------------------------------
    def record(self):
        """The game as a ``pi-record/1`` :class:`~pi_env.records.types.GameRecord`."""
        from pi_env.records.recorder import solo_event
        from pi_env.records.types import GameRecord, RoundRecord, Rules

        replay = S.from_layout(self.config, self.tile_district, self.case)
        events = []
        for i, a in enumerate(self.actions):
            S.step_inplace(replay, np.array([a], dtype=np.int64), self.config)
            events.append(solo_event(replay, 0, i))
        rules = Rules(edition="second", mode="solo", players=1, rounds=1, variants=(),
                      investigators=(self.config.investigators,))
        rnd = RoundRecord(first_player=0, tile_district=self.tile_district, cases={0: self.case},
                          display=None, events=tuple(events))
        return GameRecord(rules=rules, board=self.board, rounds=(rnd,), seed=self.seed)


def game_from_seed(seed: int | None, *, date: str | None = None, difficulty: str | None = None,
                   investigators: int = 5) -> SoloGame:
    """A new game of the case :func:`pi_env.apps.solo_cases.generate` draws (from ``seed`` or ``date``;
    neither: a random case, :func:`random_seed`, whose seed is kept from the messages until it is
    solved, :attr:`SoloGame.random`)."""
    from pi_env.apps.solo_cases import generate

    random = seed is None and date is None
    if random:
        seed = random_seed()
    c = generate(None if date else seed, date=date, difficulty=difficulty, investigators=investigators)
    return _game_of_case(c, c.date, c.target, random=random)


def _game_of_case(c, date: str | None, target: str | None, random: bool = False) -> SoloGame:
    """A new game of a generated :class:`~pi_env.apps.solo_cases.SoloCase` (labelled by date and target)."""
    from pi_env.apps.solo_cases import case_label

    game = SoloGame.new(c.tile_district, c.case, seed=c.seed, date=date, investigators=c.investigators,
                        greedy_actions=c.greedy.actions, difficulty=c.difficulty,
                        source=RANDOM_CASE if random else case_label(date, target, c.seed), target=target)
    game.random = random
    return game


def game_from_case_file(path: "str | os.PathLike[str]") -> SoloGame:
    """A new game of the case in a solo record (``pi-env solo generate`` writes one).

    Raises:
        SaveError: the file cannot be read, is not a valid record, or not a solo case.
    """
    from pi_env.records.record_file import load_record

    try:
        record = load_record(path)
    except (RecordError, OSError) as exc:
        why = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        if why.startswith(f"{path}: "):
            why = why[len(f"{path}: "):]
        raise SaveError(f"case file {path}: {why}") from None
    if record.rules.mode != "solo":
        raise SaveError(f"case file {path}: not a solo case (rules.mode is {record.rules.mode!r}; "
                        "make one with: pi-env solo generate)")
    rnd = record.rounds[0]
    if 0 not in rnd.cases:
        raise SaveError(f"case file {path}: it does not hold the case (cases[\"0\"] is missing)")
    inv = record.rules.investigators[0]
    seed = record.seed
    name = Path(path).name
    unranked = None if seed is not None else f"The case file {name} has no seed, so the game is not ranked."
    if seed is not None:  # use the seed only if it gives this very case
        try:
            probe = S.init(S.SoloConfig(investigators=inv, board=record.board), 1, seed=seed)
            if tuple(int(d) for d in probe.tile_district[0]) != rnd.tile_district or S.case_of(probe) != rnd.cases[0]:
                unranked = (f"The case file {name} does not hold the case of its seed {seed} (its layout or "
                            f"case was changed), so the game is not ranked.")
                seed = None
        except PIError:
            unranked = f"The seed {seed} of the case file {name} cannot be used, so the game is not ranked."
            seed = None
    if seed is not None and record.board != DAYTIME:
        unranked = (f"The case file {name} is on the {record.board.name} board; only daytime-board cases "
                    f"are ranked.")
    try:
        game = SoloGame.new(rnd.tile_district, rnd.cases[0], seed=seed, investigators=inv, board=record.board,
                            source=f"case file {name}")
    except PIError as exc:
        raise SaveError(f"case file {path}: {exc}") from None
    game.unranked = unranked
    if seed is not None and record.board == DAYTIME:
        from pi_env.solvers.solo_rating import greedy_play, difficulty_of

        g = greedy_play(rnd.tile_district, rnd.cases[0], record.board, inv)
        game.greedy_actions, game.difficulty = g.actions, difficulty_of(g.actions)
    return game


def _atomic_write(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` atomically, creating its folder; flushed to disk (a save)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    write_text_atomic(path, text, force=True, fsync=True)


@dataclass(frozen=True)
class SoloHint:
    """The solver's advice in a solo game (:func:`solo_hint`).

    Attributes:
        cases: ``int64[n]`` the case ids consistent with the answers so far, ascending.
        hint: the :class:`pi_env.solvers.hints.Hint` over them (uniform weights, the player's
            investigator tiles left): ``certain``, ``best_action``, ``best_gain``,
            ``expected_remaining_actions``.
    """

    cases: np.ndarray
    hint: Any


def solo_hint(game: SoloGame) -> SoloHint:
    """What the solver advises in ``game`` from the player's answers only (docs/rules.md §8, §9).

    Used by the terminal app's ``hint`` and by the web app (:mod:`pi_env.apps.web`).
    """
    from pi_env.solvers import CaseFilter, Knowledge
    from pi_env.solvers.hints import hint
    from pi_env.solvers.solo_rating import solo_event_row

    replay = S.from_layout(game.config, game.tile_district, game.case)
    knowledge = Knowledge(0, 2, np.asarray(game.tile_district, dtype=np.int8), game.board.adjacency,
                          names=element_names(game.board))
    for i, a in enumerate(game.actions):
        S.step_inplace(replay, np.array([a], dtype=np.int64), game.config)
        knowledge = knowledge.with_events(solo_event_row(i, replay, a))
    cases = CaseFilter(knowledge).cases
    k = int(game.state.inv_left[0])
    h = hint(knowledge, S.legal_action_mask(game.state)[0], joint=False, investigators_left=k)
    return SoloHint(cases=cases, hint=h)


# ---------------------------------------------------------------------------------------------
# rendering


def answer_phrase(game: SoloGame, action: int) -> str:
    """What the last answer means, in words."""
    st = game.state
    board = game.board
    ans = st.last_answer[0]
    if action < INVESTIGATE_BASE:
        x = action
        t = 0 if x < TYPE_OFFSETS[1] else 1 if x < TYPE_OFFSETS[2] else 2
        name = element_name(x, board)
        where = board.districts[int(st.tile_district[0, x])]
        kind = TYPE_NAMES[t]
        code = int(ans[0])
        if code == SPOT:
            return f"{name}: spot. {name} is the case's {kind}."
        near = where if t == 2 else f"{where} (where {name} is)"
        if code == TRACE:
            return f"{name}: trace. The case's {kind} has its tile in a district next to {near}."
        return f"{name}: nothing. The case's {kind} is not {name} and not next to {near}."
    if action < SOLVE_BASE:
        d = action - INVESTIGATE_BASE
        s, t = int(ans[0]), int(ans[1])
        text = f"Investigator in {board.districts[d]}: {plural(s, 'spot')}, {plural(t, 'trace')}."
        skipped = [TYPE_NAMES[ty] for ty in range(3) if st.inv_suppressed[0, d, ty]]
        if skipped:
            text += (f" ({' and '.join(skipped)} not counted: your marker is already on "
                     f"{'that tile' if len(skipped) == 1 else 'those tiles'} there.)")
        return text
    name = case_name(action - SOLVE_BASE, board)
    if int(ans[0]) == 1:
        return f"{name}: correct!"
    return f"{name}: wrong. At least one of the three is not the case's."


def board_lines(game: SoloGame) -> list[str]:
    """The board with the player's markers and investigators, row by row as printed."""
    st = game.state
    board = game.board
    names = element_names(board)

    def tile(x: int) -> str:
        if x < 0:
            return "-"
        mark = "[spot]" if st.spot[0, x] else "[trace]" if st.trace[0, x] else "[nothing]" if st.nothing[0, x] else ""
        return f"{names[x]} {mark}" if mark else names[x]

    pos = board.positions
    row_of = [int(round(float(pos[d, 1]))) for d in range(NUM_DISTRICTS)]
    order = sorted(range(NUM_DISTRICTS), key=lambda d: (row_of[d], float(pos[d, 0]), d))
    rows = [["District", "Suspect", "Evidence", "Location", "Investigator"]]
    for d in order:
        loc = TYPE_OFFSETS[2] + d
        inv = ""
        if st.inv_placed[0, d]:
            s, t = int(st.inv_answer[0, d, 0]), int(st.inv_answer[0, d, 1])
            inv = f"{s}S {t}T"
            skipped = [TYPE_NAMES[ty][0] for ty in range(3) if st.inv_suppressed[0, d, ty]]
            if skipped:
                inv += f" (not counted: {','.join(skipped)})"
        loc_text = tile(loc)[len(names[loc]):].strip() or "."
        rows.append([board.districts[d], tile(int(st.district_tile[0, d, 0])),
                     tile(int(st.district_tile[0, d, 1])), loc_text, inv])
    out = []
    prev = None
    for i, line in enumerate(format_table(rows, indent="  ")):
        if i and row_of[order[i - 1]] != prev and prev is not None:
            out.append("")  # a blank line between the board's rows of districts
        if i:
            prev = row_of[order[i - 1]]
        out.append(line)
    failed = [case_name(int(c), board) for c in np.flatnonzero(st.failed[0])]
    if failed:
        out.append("Wrong solves: " + "; ".join(failed))
    return out


def map_lines(board: Board) -> list[str]:
    """Each district and its neighbours (``board.adjacency``, docs/rules.md §2), in district-id order::

        Lakeside          next to: Forest Park, Little Italy, Trocadero
    """
    w = max(len(d) for d in board.districts) + 2
    lines = ["Districts next to each other (a trace answer means: in a district next to it):"]
    for d in range(NUM_DISTRICTS):
        near = ", ".join(board.districts[int(j)] for j in np.flatnonzero(board.adjacency[d]))
        lines.append(f"  {board.districts[d]:<{w}}next to: {near}")
    return lines


# ---------------------------------------------------------------------------------------------
# the app


class _Quit(Exception):
    """The player leaves (quit, end of input, Ctrl-C)."""


class SoloApp:
    """The terminal game (module docstring).

    Args:
        input_fn: reads one line; given the prompt; raises ``EOFError`` at end of input.
        output_fn: writes one line (no trailing newline).
        clock: seconds, monotonic (``time.monotonic``); only differences are used.
        db_path: the leaderboard file (``None``: :func:`pi_env.apps.leaderboard.default_db_path`).
        save_path: the saved game file (``None``: :func:`default_save_path`).
        games_dir: where finished games are written as records (``None``: ``games/`` beside the
            saved game; ``False``: not written).
        name: the player's name for the leaderboard (``None``: asked at the end, default
            ``$USER``).
        now: the current local time (for timestamps; default ``datetime.now().astimezone()``).
    """

    def __init__(self, input_fn: Callable[[str], str] = input, output_fn: Callable[[str], None] = print,
                 clock: Callable[[], float] = time.monotonic, db_path: "str | os.PathLike[str] | None" = None,
                 save_path: "str | os.PathLike[str] | None" = None, *, games_dir: "str | Path | bool | None" = None,
                 name: str | None = None, now: Callable[[], _dt.datetime] | None = None):
        self.input_fn, self.output_fn, self.clock = input_fn, output_fn, clock
        self.leaderboard = Leaderboard(db_path)
        self.save_path = Path(save_path).expanduser() if save_path is not None else default_save_path()
        if games_dir is None:
            self.games_dir: Path | None = self.save_path.parent / "games"
        elif games_dir is False:
            self.games_dir = None
        else:
            self.games_dir = Path(games_dir)  # type: ignore[arg-type]
        self.name = name
        self.now = now or (lambda: _dt.datetime.now().astimezone())
        self.game: SoloGame | None = None
        self._session_start = 0.0

    # -- small helpers --------------------------------------------------------------------
    def say(self, text: str = "") -> None:
        for line in text.split("\n"):
            self.output_fn(line)

    def ask(self, prompt: str) -> str:
        try:
            return self.input_fn(prompt)
        except (EOFError, KeyboardInterrupt):
            raise _Quit from None

    def elapsed(self) -> float:
        assert self.game is not None
        return self.game.elapsed + max(0.0, self.clock() - self._session_start)

    def status(self) -> str:
        g = self.game
        assert g is not None
        st = g.state
        return (f"Actions {int(st.actions[0])} | investigators left {int(st.inv_left[0])} of "
                f"{g.config.investigators} | wrong solves {int(st.wrong_solves[0])} | "
                f"time {format_time(self.elapsed())}")

    def save(self) -> None:
        """Write the game in progress (atomically)."""
        g = self.game
        if g is None or g.done:
            return
        doc = g.to_json()
        doc["elapsed"] = round(self.elapsed(), 3)
        _atomic_write(self.save_path, json.dumps(doc, indent=1, ensure_ascii=False) + "\n")

    def _discard_save(self) -> None:
        try:
            self.save_path.unlink()
        except FileNotFoundError:
            pass

    def _load_save(self) -> SoloGame | None:
        """The saved game, ``None`` if there is none; an unreadable one is reported and moved aside."""
        if not self.save_path.exists():
            return None
        try:
            doc = json.loads(self.save_path.read_text(encoding="utf-8"))
            return SoloGame.from_json(doc)
        except (ValueError, OSError) as exc:  # JSONDecodeError and SaveError are ValueErrors
            why = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
            aside = self.save_path.with_name(self.save_path.name + ".unreadable")
            n = 1
            while aside.exists():
                n += 1
                aside = self.save_path.with_name(f"{self.save_path.name}.unreadable{n}")
            try:
                os.replace(self.save_path, aside)
                where = f"it was kept as {aside}"
            except OSError:
                where = "it was left where it is"
            self.say(f"The saved game {self.save_path} cannot be read ({why}); {where}. Starting a new game.")
            return None

    # -- the game -------------------------------------------------------------------------
    def run(self, *, seed: int | None = None, date: str | None = None, difficulty: str | None = None,
            investigators: int = 5, case_file: "str | os.PathLike[str] | None" = None,
            resume: bool = False) -> int:
        """Play one game (resuming a saved one when asked or accepted). Returns 0.

        Raises:
            PIError: bad options (an unknown difficulty, a bad case file, ...) before the game starts.
            LeaderboardError: never; a bad leaderboard is reported and the result kept elsewhere.
        """
        try:
            try:
                self.leaderboard.check()
            except LeaderboardError as exc:
                self.say(f"Warning: {exc}. Your results will be kept in {self._pending_path()}.")
            saved = self._load_save()
            game, discard = None, False
            if saved is not None:
                acted = len(saved.actions)
                if resume:
                    game = saved
                else:
                    prompt = (f"You have a game in progress ({saved.source}, {plural(acted, 'action')}, "
                              f"{format_time(saved.elapsed)}). Resume it? [Y/n] ")
                    while True:  # only an explicit no discards it; end of input keeps it
                        try:
                            answer = normalize(self.input_fn(prompt))
                        except (EOFError, KeyboardInterrupt):
                            self.say("")
                            self.say(f"The game in progress ({saved.source}) was kept. Continue with: "
                                     f"pi-env solo play --resume")
                            return 0
                        if answer in ("", "y", "yes"):
                            game = saved
                            break
                        if answer in ("n", "no"):
                            discard = True
                            break
                        self.say("Please answer y (resume it) or n (discard it and start a new game).")
            elif resume:
                self.say("There is no game in progress to resume; starting a new game.")
            resumed = game is not None
            if game is None:
                game = self._new_game(seed, date, difficulty, investigators, case_file)
            if discard and saved is not None:  # only once the new game exists
                self.say(f"The game in progress ({saved.source}) was discarded.")
                self._discard_save()
            if self.name is None:  # a resumed game keeps the name it was started with
                self.name = game.player_name
            else:
                game.player_name = self.name
            self.game = game
            self._session_start = self.clock()
            self._intro(resumed)
            self.save()
            self._loop()
        except (_Quit, KeyboardInterrupt):
            if self.game is not None and not self.game.done:
                self.save()
                self.say("")
                self.say(f"Game saved ({self.status()}). Continue with: pi-env solo play --resume")
            return 0
        return 0

    def _new_game(self, seed, date, difficulty, investigators, case_file) -> SoloGame:
        if case_file is not None:
            return game_from_case_file(case_file)
        return game_from_seed(seed, date=date, difficulty=difficulty, investigators=investigators)

    def _intro(self, resumed: bool) -> None:
        g = self.game
        assert g is not None
        rating = ""
        if g.difficulty:
            bucket = "" if g.date and g.target else f", {g.difficulty}"  # else the label names it
            rating = f"{bucket} (the reference solver needs {g.greedy_actions} actions)"
        self.say(f"P.I. Solo Time Attack: {g.source}{rating}")
        if resumed:
            self.say(f"Resuming after {plural(len(g.actions), 'action')}.")
        else:
            self.say("Find the case: one suspect, one evidence, one location. Every query and every solve "
                     "is one action;")
            self.say("fewer actions win, then fewer investigator tiles, then fewer wrong solves, then less "
                     "time. Type 'help' for the commands,")
            self.say("'map' for which districts are next to which.")
        self.say("")
        for line in board_lines(g):
            self.say(line)
        self.say(self.status())

    def _loop(self) -> None:
        g = self.game
        assert g is not None
        while not g.done:
            line = self.ask("> ").strip()
            if not line:
                continue
            word = normalize(line.split()[0])
            rest = line.split(None, 1)[1].strip() if len(line.split()) > 1 else ""
            if word in ("help", "?", "h") and not rest:
                self.say(HELP)
            elif word == "board" and not rest:
                for b in board_lines(g):
                    self.say(b)
                self.say(self.status())
            elif word == "map" and not rest:
                for b in map_lines(g.board):
                    self.say(b)
            elif word == "hint" and not rest:
                self._hint()
            elif word in ("quit", "exit", "save", "q") and not rest:
                raise _Quit
            else:
                self._act(line)
        self._finish()

    def _parse(self, line: str) -> int | None:
        g = self.game
        assert g is not None
        text = line.strip()
        words = text.split()
        if len(words) >= 2 and normalize(words[0]) == "evidence" and normalize(words[1]) == "card":
            text = "clue " + " ".join(words[2:])
        verb = normalize(words[0]) if words else ""
        try:
            return parse_action(text, g.board)
        except UnknownNameError as exc:
            self.say(_sentence(str(exc)) + " Nothing was played.")
        except InvalidActionError as exc:
            if verb in ("clue", "card", "evidence", "investigate", "investigator", "inv", "solve"):
                self.say(_sentence(str(exc)) + " Nothing was played.")
            else:
                self.say(f"I cannot read {line.strip()!r}. Type 'help' for the commands.")
        return None

    def _act(self, line: str) -> None:
        g = self.game
        assert g is not None
        a = self._parse(line)
        if a is None:
            return
        st = g.state
        board = g.board
        if a < INVESTIGATE_BASE:
            for arr, word in ((st.spot, "spot"), (st.trace, "trace"), (st.nothing, "nothing")):
                if arr[0, a]:
                    self.say(f"You already asked about {element_name(a, board)}: {word}. Asking again would "
                             f"cost an action and tell nothing; not played.")
                    return
        elif a < SOLVE_BASE:
            d = a - INVESTIGATE_BASE
            if st.inv_left[0] <= 0:
                self.say(f"You have no investigator tiles left (you started with {g.config.investigators}). "
                         f"Nothing was played.")
                return
            if st.inv_placed[0, d]:
                self.say(f"You already have an investigator in {board.districts[d]}: one per district "
                         f"(docs/rules.md §4.2). Nothing was played.")
                return
        elif st.failed[0, a - SOLVE_BASE]:
            self.say(f"You already named {case_name(a - SOLVE_BASE, board)}: it is wrong. Not played.")
            return
        g.step(a)
        self.save()
        self.say("")
        for b in board_lines(g):
            self.say(b)
        self.say(answer_phrase(g, a))
        if not g.done:
            self.say(self.status())

    # -- hints ----------------------------------------------------------------------------
    def _hint(self) -> None:
        """The solver's advice: the cases that fit, what is certain, its next query."""
        g = self.game
        assert g is not None
        advice = solo_hint(g)
        g.hints += 1
        self.save()
        board = g.board
        cases, h = advice.cases, advice.hint
        n = int(cases.size)
        certain = [element_name(int(x), board) for x in h.certain]
        self.say(f"Hint: {plural(n, 'case')} {'fits' if n == 1 else 'fit'} what you know."
                 + (f" Certain: {', '.join(certain)}." if certain and n > 1 else ""))
        if n <= 4:
            self.say("  " + "; ".join(case_name(int(c), board) for c in cases))
        if n == 1:
            self.say(f"Solve it: solve {case_name(int(cases[0]), board)}")
        elif n == 2 or h.best_action is None:
            self.say(f"Name one of them: right with probability 1/{n}, and a wrong one is ruled out "
                     f"(solve {case_name(int(cases[0]), board)}).")
        else:
            self.say(f"Best next query: {action_name(h.best_action, board)} "
                     f"({h.best_gain:.2f} bits of information).")
            if h.expected_remaining_actions is not None:
                self.say(f"The reference solver expects {h.expected_remaining_actions:.1f} more actions "
                         f"from here.")

    # -- the end --------------------------------------------------------------------------
    def _pending_path(self) -> Path:
        return self.save_path.parent / "pending-results.jsonl"

    def _finish(self) -> None:
        g = self.game
        assert g is not None
        st = g.state
        seconds = self.elapsed()
        actions, used, wrong = int(st.actions[0]), int(st.investigators_used[0]), int(st.wrong_solves[0])
        self._discard_save()
        hints = f", {plural(g.hints, 'hint')}" if g.hints else ""
        self.say(f"Solved in {plural(actions, 'action')}: {plural(used, 'investigator tile')}, "
                 f"{plural(wrong, 'wrong solve')}, {format_time(seconds)}{hints}.")
        if g.greedy_actions is not None:
            self.say(f"The reference greedy solver needs {g.greedy_actions} actions on this case.")
        if g.random and g.seed is not None:
            self.say(f"It was the case of seed {g.seed} (play it again, or challenge someone: "
                     f"pi-env solo play --seed {g.seed}).")
        record_path = self._write_record()
        if g.seed is None or g.board != DAYTIME:
            self.say(g.unranked or ("This case has no seed, so it is not ranked." if g.seed is None else
                                    "Only cases on the daytime board are ranked."))
        else:
            name = self.name
            if name is None:
                default = os.environ.get("USER") or os.environ.get("USERNAME") or "player"
                try:
                    typed = self.input_fn(f"Name for the leaderboard [{default}]: ").strip()
                except (EOFError, KeyboardInterrupt):
                    typed = ""
                name = typed or default
            entry = Entry(seed=g.seed, investigators=g.config.investigators, name=name[:40], actions=actions,
                          used=used, wrong=wrong, seconds=round(seconds, 3), hints=g.hints, daily=g.date,
                          finished_at=self.now().isoformat(timespec="seconds"))
            self._rank(entry, g.source if g.date else f"seed {g.seed}")
        if record_path is not None:
            self.say(f"Game record: {record_path} (replay it with: pi-env replay {record_path})")

    def _write_record(self) -> Path | None:
        g = self.game
        assert g is not None
        if self.games_dir is None:
            return None
        from pi_env.records.record_file import write_record

        stamp = self.now().strftime("%Y%m%d-%H%M%S")
        label = f"seed{g.seed}" if g.seed is not None else "case"
        path = self.games_dir / f"solo-{label}-{stamp}.json"
        n = 1
        while path.exists():
            n += 1
            path = self.games_dir / f"solo-{label}-{stamp}-{n}.json"
        try:
            self.games_dir.mkdir(parents=True, exist_ok=True)
            return write_record(g.record(), path)
        except (OSError, PIError) as exc:
            self.say(f"The game record could not be written ({exc}).")
            return None

    def _rank(self, entry: Entry, case: str) -> None:
        try:
            self.leaderboard.add(entry)
            rank, total = self.leaderboard.rank(entry)
            results = self.leaderboard.results(entry.seed, entry.investigators)
        except (LeaderboardError, OSError) as exc:
            pending = self._pending_path()
            try:
                pending.parent.mkdir(parents=True, exist_ok=True)
                with pending.open("a", encoding="utf-8") as f:
                    f.write(json.dumps({k: v for k, v in entry.__dict__.items() if k != "id"}) + "\n")
                kept = f"your result was kept in {pending}"
            except OSError as exc2:
                kept = f"and your result could not be kept either ({exc2.strerror or exc2})"
            self.say(f"Leaderboard unavailable: {exc}; {kept}.")
            return
        self.say(f"Leaderboard for {case} ({plural(entry.investigators, 'investigator')}): you are "
                 f"{_ordinal(rank)} of {total}.")
        rows = [["#", "name", "actions", "investigators", "wrong", "time", "hints", "finished"]]
        prev_key, prev_rank = None, 0
        for i, e in enumerate(results[:10]):
            r = prev_rank if e.key() == prev_key else i + 1
            prev_key, prev_rank = e.key(), r
            rows.append([str(r), e.name, str(e.actions), str(e.used), str(e.wrong), format_time(e.seconds),
                         str(e.hints), e.finished_at[:16].replace("T", " ")])
        for line in format_table(rows, indent="  "):
            self.say(line)


# ---------------------------------------------------------------------------------------------
# replay reports of solo records (pi-env replay)


def _solo_result(record) -> dict[str, Any]:
    events = record.rounds[0].events
    solved = any(ev.kind == "solve" and ev.correct for ev in events)
    return {"actions": len(events), "investigators": sum(ev.kind == "investigate" for ev in events),
            "wrong_solves": sum(ev.kind == "solve" and not ev.correct for ev in events), "solved": solved}


def solo_report_lines(record, turns: bool = True) -> list[str]:
    """``pi-env replay`` text of a solo record: the actions with their answers and the result."""
    from pi_env.records.report import event_text

    rnd = record.rounds[0]
    inv = record.rules.investigators[0]
    origin = f", seed {record.seed}" if record.seed is not None else ""
    lines = [f"Solo Time Attack{origin} ({plural(inv, 'investigator tile')}, any clue)"]
    if turns:
        for i, ev in enumerate(rnd.events):
            action, answer = event_text(ev, record)
            lines.append(f"  {i + 1:>3}  {action:<48} -> {answer}")
    r = _solo_result(record)
    if not rnd.events:
        lines.append("Result: not played yet (no actions)")
    elif r["solved"]:
        lines.append(f"Result: solved in {plural(r['actions'], 'action')}, "
                     f"{plural(r['investigators'], 'investigator tile')}, {plural(r['wrong_solves'], 'wrong solve')}")
    else:
        lines.append(f"Result: not solved after {plural(r['actions'], 'action')}")
    return lines


def solo_report_json(record) -> dict[str, Any]:
    """The same for machines: ``{"mode": "solo", "events": [...], "result": {...}}``."""
    from pi_env.records.report import event_text

    events = []
    for i, ev in enumerate(record.rounds[0].events):
        action, answer = event_text(ev, record)
        events.append({"index": i, "action": action, "answer": answer})
    return {"mode": "solo", "seed": record.seed, "investigators": record.rules.investigators[0],
            "events": events, "result": _solo_result(record)}
