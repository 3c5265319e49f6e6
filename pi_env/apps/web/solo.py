"""Solo Time Attack in the browser (docs/rules.md §8): the terminal app's game, hints and leaderboard.

A solo game is a :class:`pi_env.apps.solo_app.SoloGame` (daily or generated case of a difficulty,
:func:`pi_env.apps.solo_app.game_from_seed`), stored after every action in the web app's database
(its ``to_json`` document plus the player's name and the wall-clock start), so it survives a
restart. The clock runs from the game's creation to the correct solve. Hints come from
:func:`pi_env.apps.solo_app.solo_hint` (the same as the terminal's ``hint``) and are counted apart.
The result goes to the same leaderboard as ``pi-env solo play``
(:class:`pi_env.apps.leaderboard.Leaderboard`), ranked by docs/rules.md §8.

A solo game's id is its private link (144 random bits); the view never contains the case until
the case is solved, nor its seed (which fixes the case: ``pi-env solo generate --seed N`` prints it),
as in the terminal app. A game started without a seed or date is a random case
(:func:`pi_env.apps.solo_app.random_seed`), named "a random case" until it is solved; a daily case
is the same for everyone on that date and reproducible from the date by design.
"""

from __future__ import annotations

import datetime as _dt
import secrets
import threading
import time
from typing import Any

import numpy as np

from pi_env.agents.human import case_doc
from pi_env.apps.leaderboard import Entry, Leaderboard, LeaderboardError
from pi_env.apps.solo_app import RANDOM_CASE, SoloGame, answer_phrase, game_from_seed, solo_hint
from pi_env.core.actions import action_name, case_name
from pi_env.core.constants import INVESTIGATE_BASE, NUM_ACTIONS, SOLVE_BASE
from pi_env.core.errors import PIError
from pi_env.core.names import element_name, element_names
from pi_env.engine import solo as S
from pi_env.solvers.solo_rating import DIFFICULTIES

from pi_env.apps.web.errors import Conflict, NotFound, Unprocessable
from pi_env.apps.web.games import board_doc, player_name
from pi_env.apps.web.store import Store

__all__ = ["SoloManager"]


def _case_doc(case: int, board) -> dict[str, Any]:
    return case_doc(case, element_names(board))


class SoloManager:
    """Solo games of the server (module docstring).

    Args:
        store: the database.
        leaderboard: the leaderboard file (shared with the terminal app).
        clock: wall-clock seconds (``time.time``).
    """

    def __init__(self, store: Store, leaderboard: Leaderboard, clock=time.time):
        self.store, self.leaderboard, self.clock = store, leaderboard, clock
        self._games: dict[str, tuple[SoloGame, dict[str, Any]]] = {}
        self._lock = threading.RLock()  # hints run in a worker thread: one request at a time

    def create(self, doc: Any) -> str:
        """A new solo game from ``{"daily": "YYYY-MM-DD" | null, "seed": int | null,
        "difficulty": "easy" | "medium" | "hard" | null, "investigators": 5, "name": "..."}``.

        Raises:
            Unprocessable: a malformed body, a bad date, seed, difficulty or name, or a daily case of
                a date after today (UTC).
        """
        if not isinstance(doc, dict):
            raise Unprocessable("the body must be a JSON object")
        unknown = set(doc) - {"daily", "seed", "difficulty", "investigators", "name"}
        if unknown:
            raise Unprocessable(f"unknown setting {sorted(unknown)[0]!r}")
        daily, seed, difficulty = doc.get("daily"), doc.get("seed"), doc.get("difficulty") or None
        if difficulty is not None and difficulty not in DIFFICULTIES:
            raise Unprocessable(f"'difficulty' must be one of {', '.join(DIFFICULTIES)} or null, got {difficulty!r}")
        if daily is not None and seed is not None:
            raise Unprocessable("give 'daily' or 'seed', not both")
        if daily is not None and not isinstance(daily, str):
            raise Unprocessable("'daily' must be a date YYYY-MM-DD")
        if daily is not None:  # a daily case from its date on (by UTC, as the page's default date)
            today = _dt.datetime.fromtimestamp(self.clock(), _dt.timezone.utc).date()
            try:
                day = _dt.date.fromisoformat(daily.strip())
            except ValueError:  # not a date: game_from_seed says so
                day = today
            if day > today:
                raise Unprocessable(f"the daily case of {daily.strip()} cannot be played before that date "
                                    f"(today is {today.isoformat()}, UTC, on this server)")
        if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**63):
            raise Unprocessable(f"'seed' must be an integer 0..2**63-1 or null, got {seed!r}")
        inv = doc.get("investigators", 5)
        if isinstance(inv, bool) or not isinstance(inv, int) or not 0 <= inv <= 14:
            raise Unprocessable(f"'investigators' must be 0..14, got {inv!r}")
        name = doc.get("name")
        name = player_name("player" if name is None or name == "" else name, "'name'")  # no name: "player"
        try:  # neither seed nor date: a random case (its seed is shown once it is solved)
            game = game_from_seed(seed, date=daily, difficulty=difficulty, investigators=inv)
        except PIError as exc:
            raise Unprocessable(str(exc)) from None
        sid = secrets.token_urlsafe(18)
        meta = {"name": name.strip(), "started": self.clock(), "finished": None, "result": None}
        self._games[sid] = (game, meta)
        self._save(sid)
        return sid

    def _save(self, sid: str) -> None:
        game, meta = self._games[sid]
        doc = dict(meta)
        doc["game"] = game.to_json()
        doc["game"]["seed"] = game.seed
        doc["date"] = game.date
        doc["random"] = game.random
        self.store.put_solo(sid, doc)

    def get(self, sid: str) -> tuple[SoloGame, dict[str, Any]]:
        """Raises NotFound for an unknown id; loads a stored game after a restart."""
        if sid not in self._games:
            doc = self.store.solo(sid)
            if doc is None:
                raise NotFound("no solo game with this link on this server")
            gdoc = dict(doc["game"])
            finished = doc.get("finished") is not None
            actions = gdoc.pop("actions", [])
            gdoc["actions"] = []
            game = SoloGame.from_json(gdoc)
            from pi_env.core.actions import parse_action
            for text in actions:
                game.step(parse_action(text, game.board))
            game.date = doc.get("date")
            game.random = bool(doc.get("random", False))
            if game.random:
                game.source = RANDOM_CASE
            meta = {k: doc.get(k) for k in ("name", "started", "finished", "result")}
            if not finished and game.done:  # pragma: no cover - saved before the result was stored
                meta["finished"] = self.clock()
            self._games[sid] = (game, meta)
        return self._games[sid]

    def view(self, sid: str) -> dict[str, Any]:
        """The board, the answers so far, counters, the clock, and (once solved) result and rank."""
        with self._lock:
            return self._view(sid)

    def _view(self, sid: str) -> dict[str, Any]:
        game, meta = self.get(sid)
        st = game.state
        board = game.board
        tiles = [{"suspect": None, "evidence": None} for _ in board.districts]
        for x in range(22):
            tiles[int(game.tile_district[x])]["suspect" if x < 12 else "evidence"] = x
        answers = {}
        for x in range(36):
            for arr, word in ((st.spot, "spot"), (st.trace, "trace"), (st.nothing, "nothing")):
                if arr[0, x]:
                    answers[x] = word
        investigators = [{"player": 0, "district": int(d), "spots": int(st.inv_answer[0, d, 0]),
                          "traces": int(st.inv_answer[0, d, 1]),
                          "suppressed": [bool(v) for v in st.inv_suppressed[0, d]]}
                         for d in np.flatnonzero(st.inv_placed[0])]
        mask = S.legal_action_mask(st)[0]
        log = []
        replay_answers = []
        if game.actions:
            replay = S.from_layout(game.config, game.tile_district, game.case)
            for a in game.actions:
                S.step_inplace(replay, np.array([a], dtype=np.int64), game.config)
                replay_answers.append(_short_answer(replay, a))
        for i, a in enumerate(game.actions):
            log.append({"index": i, "action": action_name(a, board), "action_id": int(a),
                        "answer": replay_answers[i]})
        now = meta["finished"] if meta["finished"] is not None else self.clock()
        view = {
            "id": sid, "version": len(game.actions), "done": game.done, "source": game.source,
            "difficulty": game.difficulty, "greedy_actions": game.greedy_actions, "name": meta["name"],
            "seed": game.seed if game.done else None, "date": game.date, "investigators": game.config.investigators,
            "board": board_doc(board), "tiles": tiles, "answers": {str(k): v for k, v in answers.items()},
            "spots": [[x for x, w in answers.items() if w == "spot"]],
            "traces": [[x for x, w in answers.items() if w == "trace"]],
            "investigators_list": investigators,
            "failed": [_case_doc(int(c), board) for c in np.flatnonzero(st.failed[0])],
            "actions": int(st.actions[0]), "investigators_left": int(st.inv_left[0]),
            "investigators_used": int(st.investigators_used[0]), "wrong_solves": int(st.wrong_solves[0]),
            "hints": game.hints, "seconds": round(max(0.0, now - meta["started"]) + game.elapsed, 1),
            "legal": None if game.done else {
                "clues": [x for x in np.flatnonzero(mask[:INVESTIGATE_BASE]).tolist() if x not in answers],
                "districts": np.flatnonzero(mask[INVESTIGATE_BASE:SOLVE_BASE]).tolist()},
            "last": answer_phrase(game, game.actions[-1]) if game.actions else None,
            "log": log, "result": meta["result"],
        }
        if game.done:
            view["case"] = _case_doc(game.case, board)
        return view

    def move(self, sid: str, version: Any, action: Any) -> None:
        """One action (clue, investigator, solve); the correct solve stores the result.

        Raises:
            Unprocessable: a malformed version or action.
            Conflict: stale version, the game is over, an illegal or pointless action.
        """
        with self._lock:
            self._move(sid, version, action)

    def _move(self, sid: str, version: Any, action: Any) -> None:
        game, meta = self.get(sid)
        if isinstance(version, bool) or not isinstance(version, int):
            raise Unprocessable(f"'version' must be an integer, got {version!r}")
        if isinstance(action, bool) or not isinstance(action, int) or not 0 <= action < NUM_ACTIONS:
            raise Unprocessable(f"'action' must be an action id 0..{NUM_ACTIONS - 1}, got {action!r}")
        if version != len(game.actions):
            raise Conflict(f"stale request: the game is at action {len(game.actions)}, this request was made "
                           f"at action {version}; nothing was played")
        if game.done:
            raise Conflict("the case is already solved; nothing was played")
        st = game.state
        board = game.board
        if action < INVESTIGATE_BASE:
            for arr, word in ((st.spot, "spot"), (st.trace, "trace"), (st.nothing, "nothing")):
                if arr[0, action]:
                    raise Conflict(f"you already asked about {element_name(action, board)} ({word}); "
                                   f"nothing was played")
        elif action >= SOLVE_BASE and st.failed[0, action - SOLVE_BASE]:
            raise Conflict(f"{case_name(action - SOLVE_BASE, board)} is already known to be wrong; "
                           f"nothing was played")
        if not S.is_legal(st, np.array([action]))[0]:
            raise Conflict(f"{action_name(action, board)} is not legal now; nothing was played")
        game.step(action)
        if game.done:
            meta["finished"] = self.clock()
            meta["result"] = self._rank(game, meta)
        self._save(sid)

    def _rank(self, game: SoloGame, meta: dict[str, Any]) -> dict[str, Any]:
        st = game.state
        seconds = round(meta["finished"] - meta["started"] + game.elapsed, 3)
        if game.seed is None:  # pragma: no cover - web games always have a seed
            return {"ranked": False, "why": "this case has no seed"}
        entry = Entry(seed=game.seed, investigators=game.config.investigators, name=meta["name"][:40],
                      actions=int(st.actions[0]), used=int(st.investigators_used[0]),
                      wrong=int(st.wrong_solves[0]), seconds=seconds, hints=game.hints, daily=game.date,
                      finished_at=_dt.datetime.now().astimezone().isoformat(timespec="seconds"))
        try:
            self.leaderboard.add(entry)
            rank, total = self.leaderboard.rank(entry)
        except (LeaderboardError, OSError) as exc:
            return {"ranked": False, "why": f"leaderboard unavailable: {exc}"}
        return {"ranked": True, "rank": rank, "of": total}

    def hint(self, sid: str) -> dict[str, Any]:
        """The solver's advice from the player's answers (counted in ``hints``)."""
        with self._lock:
            return self._hint(sid)

    def _hint(self, sid: str) -> dict[str, Any]:
        game, meta = self.get(sid)
        if game.done:
            raise Conflict("the case is already solved")
        advice = solo_hint(game)
        game.hints += 1
        self._save(sid)
        h = advice.hint
        board = game.board
        n = int(advice.cases.size)
        return {"count": n, "cases": [_case_doc(int(c), board) for c in advice.cases[:8]],
                "certain": [element_name(int(x), board) for x in h.certain],
                "best_action": None if h.best_action is None else action_name(h.best_action, board),
                "best_action_id": h.best_action, "best_gain_bits": h.best_gain,
                "expected_remaining_actions": h.expected_remaining_actions, "hints": game.hints}

    def leaderboard_rows(self, seed: int, investigators: int) -> list[dict[str, Any]]:
        """The results of a case, best first, with competition ranks (1, 2, 2, 4); ``daily`` is the
        date of a result played as that date's daily case (``None``: played from its seed)."""
        rows = []
        prev_key, prev_rank = None, 0
        for i, e in enumerate(self.leaderboard.results(seed, investigators)[:20]):
            r = prev_rank if e.key() == prev_key else i + 1
            prev_key, prev_rank = e.key(), r
            rows.append({"rank": r, "name": e.name, "actions": e.actions, "investigators": e.used,
                         "wrong": e.wrong, "seconds": e.seconds, "hints": e.hints, "finished": e.finished_at,
                         "daily": e.daily})  # played as that date's daily case, else None
        return rows

    def forget(self, sids: "list[str]") -> None:
        """Drop solo games from memory (they expired: the store deleted them)."""
        with self._lock:
            for sid in sids:
                self._games.pop(sid, None)

    def record(self, sid: str):
        """The finished game's record (it holds the case: only after the solve)."""
        game, _ = self.get(sid)
        if not game.done:
            raise Conflict("the record holds the case; it can be downloaded once the case is solved")
        return game.record()


def _short_answer(state, action: int) -> str:
    ans = state.last_answer[0]
    if action < INVESTIGATE_BASE:
        return ("nothing", "trace", "spot")[int(ans[0])]
    if action < SOLVE_BASE:
        s, t = int(ans[0]), int(ans[1])
        return f"{s} spot{'s' * (s != 1)}, {t} trace{'s' * (t != 1)}"
    return "correct" if int(ans[0]) == 1 else "wrong"
