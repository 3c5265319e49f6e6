"""Solo Time Attack cases (docs/rules.md §8): a layout and a hidden case from a seed or a date, rated by
how many actions the solver's greedy policy needs, written as a record and a printable setup sheet.

* **Case from a seed.** ``generate(seed)`` is game 0 of ``pi_env.engine.solo.init(config, 1, seed)``
  (the same draw as ``SoloTimeAttack-v0``'s ``reset(seed=seed)``): the suspect and evidence tiles
  and the case. The same seed always gives the same case.
* **Daily case.** One case per date and difficulty, the same everywhere (``pi-env solo generate``,
  ``pi-env solo play``, the browser): a daily case is always of a difficulty (default
  :data:`DAILY_DIFFICULTY`, so "the daily case" and "the daily medium case" are one case) and
  searches its own block of :data:`DAILY_BLOCK` seeds, ``YYYYMMDD * 1000 .. YYYYMMDD * 1000 + 999``
  (:func:`daily_search_start`; ``date_seed("2024-05-01") == 20240501``), so no two dates share a
  seed.
* **Difficulty.** :func:`greedy_play` plays the case with the greedy policy of
  :mod:`pi_env.solvers.hints` (the policy of :func:`pi_env.solvers.hints.greedy_expected_actions`), in open mode
  (any of the 36 elements) with the given investigator tiles: with one consistent case left, name
  it; otherwise take the query (clue or investigator) with the highest information gain over the
  cases still consistent with the answers so far (uniform weights; ties within
  :data:`pi_env.solvers.hints.GAIN_TOLERANCE` to the lowest action id); if no query has a positive gain,
  name the consistent cases in ascending id order until one is right. The engine answers every
  action. The count includes the final solve. Its knowledge is the solver's own-information filter
  (:class:`pi_env.solvers.CaseFilter`) of a :class:`pi_env.solvers.Knowledge` with no held case and no other
  player's events — exactly the solo player's information (``Knowledge`` needs ``n_players >= 2``,
  so a second player that never acts stands in).
* **Buckets** (:data:`pi_env.solvers.solo_rating.THRESHOLDS`), on the greedy's number of actions ``n``: ``easy`` ``n <= 5``,
  ``medium`` ``6 <= n <= 7``, ``hard`` ``n >= 8``. Measured on seeds 0..4999 (5 investigators,
  daytime board, open mode), ``n`` is 2–9: ``n <= 4`` 2.9 %, 5 14.8 %, 6 34.8 %, 7 35.6 %,
  8 11.3 %, 9 0.6 %, so easy / medium / hard ≈ 18 / 70 / 12 % (a bell: *hard* is the rare tail;
  a target bucket is found within about 8 seeds on average). The greedy never needed a wrong
  solve there. It used 1–5 investigator tiles (3: 48 %, 4: 40 %); a case that needs more actions
  tends to need more tiles too (easy mostly 3, hard mostly 4–5), so the tiles are reported beside
  the bucket, not used to split it.
* **Target difficulty.** ``generate(seed, difficulty="hard")`` tries the seeds ``seed, seed + 1,
  ...`` (at most :data:`MAX_SEARCH`, never past :data:`MAX_SEED`) and returns the first whose case
  lands in the bucket (deterministic; the returned :attr:`SoloCase.seed` reproduces it directly).
* **Output.** :func:`write_case` writes ``case.json`` (a ``pi-record/1`` record, ``rules.mode``
  ``"solo"``, one player, the case as ``cases["0"]``, no events, ``engine.seed`` the seed) and
  ``case.txt`` beside it: the setup sheet (which suspect and evidence tile goes in which district),
  for playing with the physical components while the program answers. The sheet never shows the
  case; the record does.
"""

from __future__ import annotations

import datetime as _dt
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from pi_env.core.board import DAYTIME, Board, load_board
from pi_env.core.constants import EVIDENCE_NAMES, INVESTIGATE_BASE, NUM_DISTRICTS, SOLVE_BASE, SUSPECT_NAMES
from pi_env.engine import solo as S
from pi_env.core.errors import PIError
from pi_env.core.files import write_text_atomic
from pi_env.core.text import format_table
from pi_env.solvers.solo_rating import DIFFICULTIES, difficulty_of, greedy_play

__all__ = ["SoloCase", "DAILY_DIFFICULTY", "date_seed", "daily_search_start", "case_label", "generate", "case_record", "setup_sheet",
           "write_case", "MAX_SEARCH", "MAX_SEED", "DAILY_BLOCK"]

MAX_SEARCH = 100_000
"""Seeds tried for a target difficulty before giving up (far more than ever needed)."""
MAX_SEED = 2**63 - 1
"""The largest seed (``pi-env solo play --seed`` takes 0..2**63-1); a search never goes past it."""
DAILY_BLOCK = 1000
"""Seeds a daily case of a difficulty searches: ``YYYYMMDD * 1000`` upwards, this many."""


DAILY_DIFFICULTY = "medium"
"""The difficulty of a daily case when none is asked for (the common bucket, about 70 % of cases)."""


def date_seed(date: "str | _dt.date") -> int:
    """The seed of a daily case: ``YYYYMMDD`` as an integer (``"2024-05-01"`` → ``20240501``).

    Raises:
        PIError: not a valid ``YYYY-MM-DD`` date.
    """
    if isinstance(date, _dt.date):
        day = date
    else:
        text = str(date).strip()
        if not re.fullmatch(r"\d{4}-\d{2}-\d{2}", text):
            raise PIError(f"date must be YYYY-MM-DD, got {date!r}")
        try:
            day = _dt.date.fromisoformat(text)
        except ValueError:
            raise PIError(f"date must be a valid YYYY-MM-DD date, got {date!r}") from None
    return day.year * 10000 + day.month * 100 + day.day


def daily_search_start(date: "str | _dt.date") -> int:
    """First seed a daily case of a target difficulty tries: ``date_seed(date) * 1000``
    (``"2026-12-01"`` → ``20261201000``); the search stays within :data:`DAILY_BLOCK` seeds.

    Raises:
        PIError: not a valid ``YYYY-MM-DD`` date.
    """
    return date_seed(date) * DAILY_BLOCK


def case_label(date: str | None, target: str | None, seed: int) -> str:
    """How messages name a case: ``"daily case 2026-12-01"``, ``"daily case 2026-12-01, hard"``
    (a daily case of a target difficulty), else ``"seed 7"``."""
    if date is None:
        return f"seed {seed}"
    return f"daily case {date}" + (f", {target}" if target else "")


@dataclass(frozen=True)
class SoloCase:
    """A generated solo case.

    Attributes:
        seed: the seed it was drawn from (``pi_env.engine.solo.init(config, 1, seed)``).
        tile_district: ``int[36]`` layout (as in :class:`~pi_env.records.types.RoundRecord`).
        case: the hidden case id.
        greedy: how the greedy policy solved it.
        investigators: investigator tiles of the game.
        board: the board.
        date: the date of a daily case (``YYYY-MM-DD``), else ``None``.
        base_seed: the seed the search started from (``seed`` unless a difficulty was targeted).
        target: the difficulty asked for (``None``: none).
    """

    seed: int
    tile_district: tuple[int, ...]
    case: int
    greedy: GreedyResult
    investigators: int = 5
    board: Board = field(default=DAYTIME, repr=False)
    date: str | None = None
    base_seed: int | None = None
    target: str | None = None

    @property
    def difficulty(self) -> str:
        """``"easy"``, ``"medium"`` or ``"hard"`` by the greedy's actions."""
        return difficulty_of(self.greedy.actions)


def _draw(seed: int, config: S.SoloConfig) -> tuple[tuple[int, ...], int]:
    state = S.init(config, 1, seed=seed)
    return tuple(int(v) for v in state.tile_district[0]), S.case_of(state)


def generate(seed: int | None = None, *, date: "str | _dt.date | None" = None,
             difficulty: str | None = None, investigators: int = 5,
             board: "str | Board | dict[str, Any]" = "daytime") -> SoloCase:
    """A solo case from a seed or a date, optionally of a target difficulty.

    Args:
        seed: non-negative integer (exclusive with ``date``; default 0 when neither is given).
        date: ``YYYY-MM-DD``: the daily case of that date and difficulty (``difficulty`` default
            :data:`DAILY_DIFFICULTY`): the search starts at :func:`daily_search_start` and tries
            :data:`DAILY_BLOCK` seeds.
        difficulty: ``"easy"``, ``"medium"`` or ``"hard"``: try ``seed, seed + 1, ...`` until the
            greedy rating lands in that bucket (at most :data:`MAX_SEARCH` seeds, none above
            :data:`MAX_SEED`).
        investigators: investigator tiles (0..14; also used by the greedy rating).
        board: the board.

    Raises:
        PIError: both or a bad seed/date (negative, above :data:`MAX_SEED`), an unknown
            difficulty, bad options, or no case of the difficulty among the seeds searched.

    >>> generate(7).seed, generate(7) == generate(7)
    (7, True)
    """
    if seed is not None and date is not None:
        raise PIError("give a seed or a date, not both")
    if difficulty is not None and difficulty not in DIFFICULTIES:
        raise PIError(f"difficulty must be one of {', '.join(DIFFICULTIES)}, got {difficulty!r}")
    day = None
    if date is not None:
        seed = date_seed(date)
        day = f"{seed // 10000:04d}-{seed // 100 % 100:02d}-{seed % 100:02d}"
        difficulty = difficulty or DAILY_DIFFICULTY
        seed = seed * DAILY_BLOCK
    if seed is None:
        seed = 0
    if not isinstance(seed, (int, np.integer)) or isinstance(seed, bool) or not 0 <= seed <= MAX_SEED:
        raise PIError(f"seed must be an integer 0..2**63-1, got {seed!r}")
    seed = int(seed)
    board_obj = board if isinstance(board, Board) else load_board(board)
    config = S.SoloConfig(investigators=investigators, board=board_obj)
    stop = min(seed + (DAILY_BLOCK if day is not None else MAX_SEARCH), MAX_SEED + 1)
    for s in range(seed, stop):
        td, case = _draw(s, config)
        greedy = greedy_play(td, case, board_obj, investigators)
        if difficulty is None or difficulty_of(greedy.actions) == difficulty:
            return SoloCase(seed=s, tile_district=td, case=case, greedy=greedy,
                            investigators=investigators, board=board_obj, date=day,
                            base_seed=seed, target=difficulty)
    where = f"for {day} " if day is not None else ""
    why = " (seeds end at 2**63-1; try a lower seed)" if stop == MAX_SEED + 1 else ""
    raise PIError(f"no {difficulty} case {where}among seeds {seed}..{stop - 1}{why}")


def case_record(case: SoloCase):
    """The ``pi-record/1`` :class:`~pi_env.records.types.GameRecord` of a solo case (no events)."""
    from pi_env.records.types import GameRecord, RoundRecord, Rules

    rules = Rules(edition="second", mode="solo", players=1, rounds=1, variants=(),
                  investigators=(case.investigators,))
    rnd = RoundRecord(first_player=0, tile_district=tuple(case.tile_district), cases={0: case.case},
                      display=None, events=())
    return GameRecord(rules=rules, board=case.board, rounds=(rnd,), seed=case.seed)


def setup_sheet(case: SoloCase) -> str:
    """The printable setup sheet: district → suspect tile, evidence tile (no case)."""
    board = case.board
    suspect = ["(blank)"] * NUM_DISTRICTS
    evidence = ["(blank)"] * NUM_DISTRICTS
    for x in range(12):
        suspect[case.tile_district[x]] = SUSPECT_NAMES[x]
    for x in range(10):
        evidence[case.tile_district[12 + x]] = EVIDENCE_NAMES[x]
    origin = case_label(case.date, case.target, case.seed) if case.date else "case"
    g = case.greedy
    lines = [
        f"P.I. Solo Time Attack: {origin}, seed {case.seed}",
        f"Difficulty: {case.difficulty} (reference greedy solver: {g.actions} actions, "
        f"{g.investigators} investigator tile{'s' * (g.investigators != 1)}"
        + (f", {g.wrong_solves} wrong solve{'s' * (g.wrong_solves != 1)}" if g.wrong_solves else "")
        + ")",
        f"Board: {board.name}; investigator tiles: {case.investigators}; clue queries: any of the "
        f"36 suspects, evidence and locations.",
        "",
        "Place one suspect tile and one evidence tile in each district:",
        "",
        *format_table([(board.districts[d], suspect[d], evidence[d]) for d in range(NUM_DISTRICTS)],
                      ("District", "Suspect", "Evidence"), style="rule"),
    ]
    lines += [
        "",
        "Locations are printed on the board. The case (one suspect, one evidence, one location) is",
        "hidden: the program answers each query. Keep the record file closed: it holds the case.",
        "Result: number of actions, then investigator tiles used, then wrong solves (docs/rules.md §8).",
    ]
    return "\n".join(lines) + "\n"


def write_case(case: SoloCase, out: "str | Path", force: bool = False) -> tuple[Path, Path]:
    """Write the record (``out``) and the setup sheet (``out`` with suffix ``.txt``).

    Raises:
        PIError: ``out`` is not a file name (``""``, ``"."``, ``"/"``, a directory), ends in ``.txt``
            (it would be the sheet), or a file exists and not ``force``.
        OSError: a file cannot be written.
    """
    from pi_env.core.errors import RecordError
    from pi_env.records.record_file import write_record

    record_path = Path(out)
    if not record_path.name or record_path.is_dir():
        raise PIError(f"{str(out)!r}: give a file name for the record (e.g. case.json), not a directory")
    sheet_path = record_path.with_suffix(".txt")
    if sheet_path == record_path:
        raise PIError(f"{record_path}: the record cannot be a .txt file (that name is the setup sheet's)")
    for p in (record_path, sheet_path):
        if p.exists() and not force:
            raise PIError(f"{p} exists; use --force to overwrite it")
    try:
        write_record(case_record(case), record_path, force=force)
    except RecordError as exc:  # pragma: no cover - a generated case is always a valid record
        raise PIError(f"internal error: generated case is not a valid record: {exc}") from None
    write_text_atomic(sheet_path, setup_sheet(case), force=True)  # checked above
    return record_path, sheet_path
