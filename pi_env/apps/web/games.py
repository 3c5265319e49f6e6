"""Live games of the web app: human seats with private links, built-in agents, versions.

A :class:`LiveGame` is one standard game or duel (B == 1 engine state, docs/rules.md §3–§7) with a
:class:`~pi_env.records.recorder.Recorder`. Each seat is a person (``"human"``, with a random
token of 144 bits whose SHA-256 digest is stored) or a built-in agent (:func:`pi_env.agents.make_agent`).

**What a seat receives** (docs/rules.md §9) is built by :meth:`LiveGame.view` from the engine's
observation of that seat (:func:`pi_env.engine.observe` through :func:`pi_env.agents.human.seat_view`)
and the public log of moves and answers; never from the full state. A spectator gets the same
without any case. Every case of the game becomes available only once the game is over, as the
downloadable ``pi-record/1`` record.

**Versions.** ``version`` is the number of moves played. A move request names the version it was
made at; any other version (a stale page, a repeated click) is refused with 409 and changes nothing.

**Agents** move by themselves: after every change, :class:`GameManager` starts a driver task that,
while an agent is to move, waits ``agent_delay`` seconds (so a person sees each move), asks the
agent in a worker thread with the agent's observation and mask only, and applies its move like a
person's.

**Off the event loop.** Building a view, the list of games, a record and applying a move take
time in proportion to the game: they run in the manager's worker threads (:meth:`GameManager.run`),
so pages and static files are answered while games are played. Each game's state is read and
changed under its own lock (:attr:`LiveGame.mutex`); its asyncio lock orders the moves.

**Playing with friends.** A game created with ``"lobby": true`` and several people waits (no
move, agents included) until each person has joined (:meth:`GameManager.join`) or its creator, the
first person's seat, starts it (:meth:`GameManager.begin`: agents take the seats not joined). The
creator may hand a seat whose person left (said so, never joined, or no connection for
``seat_timeout`` seconds) to an agent (:meth:`GameManager.hand`). Every change (a move, a join, a
hand-over) wakes the game's long polls and event streams and gets a new revision, the event id of
the views pushed (:meth:`GameManager.event_id`).

**Expiry.** A finished game is deleted ``finished_ttl`` seconds after its last move, one left
unfinished ``idle_ttl`` seconds after its last move (or its creation): from memory and from the
database (:meth:`GameManager.purge`, run every minute and at a restart).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import dataclasses
import datetime as _dt
import functools
import hashlib
import hmac
import itertools
import logging
import secrets
import threading
import time
import unicodedata
from dataclasses import dataclass, field
from typing import Any, Callable, TypeVar

import numpy as np

from pi_env.agents import AGENTS, make_agent
from pi_env.agents.base import Agent, reset_for_game
from pi_env.agents.human import case_doc, seat_view
from pi_env.agents.learned import ZOO_PLAYER_AGENTS
from pi_env.core.actions import action_name
from pi_env.core.constants import NUM_ACTIONS
from pi_env.core.errors import PIError
from pi_env.core.names import element_names
from pi_env.engine.ranking import tier_points
from pi_env.engine import GameConfig, State, init, legal_action_mask, observe, outcome, step_inplace
from pi_env.envs.render import rules_text
from pi_env.records.record_file import check_player_names
from pi_env.records.recorder import Recorder
from pi_env.records.report import event_text
from pi_env.records.types import CLUE, INVESTIGATE, SOLVE, Event, GameRecord, seat_label

from pi_env.apps.web.errors import Conflict, Forbidden, NotFound, Unprocessable
from pi_env.apps.web.store import Store

__all__ = ["LiveGame", "GameManager", "HUMAN", "SEAT_KINDS", "START_PAGE_AGENTS", "seat_choices", "NAME_LIMIT",
           "player_name", "token_digest", "event_doc"]

log = logging.getLogger("pi_env.web")

HUMAN = "human"
SEAT_KINDS = (HUMAN, *AGENTS, *ZOO_PLAYER_AGENTS)
"""What a seat of a new game may be: a person, a built-in agent or a learned model of the zoo
(whether the model fits the game's number of players is checked when it is built)."""
START_PAGE_AGENTS = ("random", "deducer", "heuristic", "greedy", "search", "winrollout")
"""The built-in agents the start page offers for a seat (the others stay reachable through the API)."""


def seat_choices() -> list[dict[str, str]]:
    """The start page's seat choices (``GET /api/seat-kinds``), in order: a person, the built-in
    agents of :data:`START_PAGE_AGENTS`, then every learned model of the zoo for player games
    (:data:`pi_env.agents.learned.ZOO_PLAYER_AGENTS`, named ``learned:Np``), each
    ``{"name": seat kind, "label": what the page shows}``. Every name is one of :data:`SEAT_KINDS`."""
    labels = {HUMAN: "a person (private link)", "winrollout": "winrollout (strongest search, slower)"}
    for name in ZOO_PLAYER_AGENTS:
        players = name.rsplit(":", 1)[-1].removesuffix("p")
        labels[name] = f"{name} (trained model, {players} players)" if players.isdigit() else f"{name} (trained model)"
    return [{"name": n, "label": labels.get(n, n)} for n in (HUMAN, *START_PAGE_AGENTS, *ZOO_PLAYER_AGENTS)]


FINISHED_TTL = 24 * 3600.0
"""Seconds a finished game is kept after its last move (``pi-env serve --finished-ttl``)."""
IDLE_TTL = 7 * 24 * 3600.0
"""Seconds an unfinished game is kept after its last move (``pi-env serve --idle-ttl``)."""
SEAT_TIMEOUT = 120.0
"""Seconds without a connection after which a person's seat counts as left (``pi-env serve
--seat-timeout``): the game's creator may then hand it to an agent."""
WORKERS = 4
"""Worker threads that build views and apply moves (few: each holds the interpreter while it works)."""
T = TypeVar("T")


NAME_LIMIT = 40
"""The longest player name, in characters (that of the terminal app's leaderboard)."""


def player_name(value: Any, what: str) -> str:
    """A player's name from a request: text without the spaces around it, 1..:data:`NAME_LIMIT`
    printable characters (no line break, tab, NUL or other control or format character; a zero-width
    joiner or non-joiner only between two visible characters), at least one of them visible.

    Args:
        value: the name as the request gave it.
        what: how a refusal names it (``"'name'"``, ``"'names'[2]"``).

    Returns:
        The name, stripped.

    Raises:
        Unprocessable: not text, empty, too long, or not printable (naming the character).
    """
    if not isinstance(value, str):
        raise Unprocessable(f"{what} must be a name (text), got {type(value).__name__}")
    name = value.strip()
    if not 1 <= len(name) <= NAME_LIMIT:
        raise Unprocessable(f"{what} must be 1..{NAME_LIMIT} characters (spaces around it not counted), "
                            f"got {len(name)}")
    for i, ch in enumerate(name):
        if ch.isprintable() or (ch in _JOINERS and 0 < i < len(name) - 1 and _visible(name[i - 1])
                                and _visible(name[i + 1])):
            continue  # a joiner between two visible characters: emoji sequences, Persian and Indic names
        kind = ("a line break, tab or control character" if unicodedata.category(ch) in ("Cc", "Zl", "Zp")
                else unicodedata.name(ch, "an unassigned or private character").lower())
        raise Unprocessable(f"{what} must be printable text on one line: it holds {ascii(ch)} ({kind})")
    if not any(_visible(ch) for ch in name):
        raise Unprocessable(f"{what} must show at least one letter, digit or symbol, got {ascii(name)}")
    return name


_JOINERS = frozenset("\u200c\u200d")  # zero-width non-joiner and joiner
_BLANKS = frozenset("\u115f\u1160\u2800\u3164\uffa0")  # printable, yet they show nothing


def _visible(ch: str) -> bool:
    """Whether ``ch`` shows as a mark of its own (not a space, a combining mark or a blank filler)."""
    return ch.isprintable() and not ch.isspace() and ch not in _BLANKS and unicodedata.category(ch) not in (
        "Mn", "Me", "Cf")


def token_digest(token: str) -> str:
    """SHA-256 hex digest of a seat token (what the database keeps)."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def event_doc(ev: Event, record: GameRecord, round_index: int) -> dict[str, Any]:
    """A public event (docs/rules.md §9: actions and answers are public) as a JSON-ready dict; its
    ``action`` and ``answer`` texts are those of ``pi-env replay``
    (:func:`pi_env.records.report.event_text`)."""
    action, answer = event_text(ev, record)
    doc: dict[str, Any] = {"round": round_index + 1, "index": ev.index, "player": ev.player, "kind": ev.kind,
                           "action": action, "answer": answer}
    if ev.kind == CLUE:
        doc["element"] = ev.element
    elif ev.kind == INVESTIGATE:
        doc["district"] = ev.district
    elif ev.kind == SOLVE:
        doc["case"] = ev.case
    return doc


@dataclass
class LiveGame:
    """One game being played (module docstring).

    Attributes:
        id: the game's id (part of every link).
        config: the rules.
        seed: the engine seed (hidden: it determines every case).
        seats: per seat ``"human"`` or an agent name.
        names: per seat a display name.
        digests: per seat the SHA-256 of its token (``None`` for agents).
        hints: whether a person's seat may ask the solver for a hint (:meth:`hint`; off by default,
            written to the record as ``engine.hints``).
        state: the engine state (``B == 1``); read only through :func:`observe` for views.
        recorder: the game record so far.
        actions: the moves played, in order.
        moves: per move ``{"round", "rotation", "tier", "seconds"}`` (1-based round and rotation,
            the tier before the move, an agent's decision time in seconds or ``None``: a person's
            move, or a move replayed at a restart, whose time was not measured).
        round_ends: per finished round ``{"round", "scores", "tier"}``: the scores after it and the
            tier it was at when it ended.
        active: the time of the last move or the creation (the store's clock, seconds).
        finished: the time the game ended (``None``: not over).
        mutex: held while the state is read or changed (views are built in worker threads).
        purged: the game expired and was deleted: no move is stored any more.
        lobby: the game waits for its people (no move yet; agents wait too).
        joined: per seat, whether its person has opened the link (a lobby's seats).
        left: per seat, whether its person said they left.
        handed: digests of tokens whose seats were handed to an agent (their links say so).
    """

    id: str
    config: GameConfig
    seed: int
    seats: list[str]
    names: list[str]
    digests: list[str | None]
    created: str = ""
    hints: bool = False
    state: State = field(init=False, repr=False)
    recorder: Recorder = field(init=False, repr=False)
    actions: list[int] = field(default_factory=list)
    moves: list[dict[str, Any]] = field(default_factory=list)
    round_ends: list[dict[str, Any]] = field(default_factory=list)
    agents: list[Agent | None] = field(init=False, repr=False)
    active: float = 0.0
    finished: float | None = None
    lobby: bool = False
    joined: list[bool] = field(default_factory=list)
    left: list[bool] = field(default_factory=list)
    handed: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        P = len(self.seats)
        self.joined = list(self.joined) or [False] * P
        self.left = list(self.left) or [False] * P
        self.connections = [0] * P  # open event streams per seat
        self.seen = [0.0] * P  # monotonic time of each seat's last request or stream
        self.seat_timeout = SEAT_TIMEOUT  # the manager's (GameManager.add, restore)
        self.revision = 0  # changes so far (moves, joins, leaves, seats handed); events are numbered by it
        self.mutex = threading.RLock()
        self.purged = False
        self.state = init(self.config, 1, seed=self.seed)
        self.recorder = Recorder(self.config, self.state, self.seed, player_names=tuple(self.names))
        self.agents = []
        for i, kind in enumerate(self.seats):
            if kind == HUMAN:
                self.agents.append(None)
            else:
                agent = make_agent(kind, edition=self.config.edition)
                reset_for_game(agent, self.config, seed=self.seed * 10 + i)
                self.agents.append(agent)
        self.lock = asyncio.Lock()
        self.changed = asyncio.Event()
        self.driver: asyncio.Task | None = None
        self.agent_error: str | None = None

    # -- the game ---------------------------------------------------------------------------
    @property
    def version(self) -> int:
        return len(self.actions)

    @property
    def done(self) -> bool:
        return bool(self.state.done[0])

    @property
    def to_move(self) -> int:
        return int(self.state.current_player[0])

    def seat_of(self, token: str | None) -> int | None:
        """The seat whose token this is; ``None`` for no token (a spectator).

        Raises:
            Forbidden: a token that is no seat's of this game.
        """
        if token is None or token == "":
            return None
        digest = token_digest(token)
        for i, d in enumerate(self.digests):
            if d is not None and hmac.compare_digest(d, digest):
                return i
        if any(hmac.compare_digest(d, digest) for d in self.handed):
            raise Forbidden(f"this seat of game {self.id} was handed to an agent after its person left; "
                            f"the game can still be watched at /game/{self.id}")
        raise Forbidden(f"this seat token is not valid for game {self.id}")

    # -- the lobby and the people ------------------------------------------------------------
    @property
    def creator(self) -> int | None:
        """The seat of the game's creator: its first person's seat (``None``: agents only)."""
        return next((i for i, k in enumerate(self.seats) if k == HUMAN and self.digests[i] is not None), None)

    def present(self, seat: int, now: float, timeout: float) -> bool:
        """Whether the person of ``seat`` is connected (an open event stream, or a request in the
        last ``timeout`` seconds) and did not leave."""
        if self.left[seat] or not self.joined[seat]:
            return False
        return self.connections[seat] > 0 or now - self.seen[seat] < timeout

    def next_away(self, now: float, timeout: float) -> float | None:
        """Seconds until the next person at the table without a connection counts as away
        (:meth:`present` turns false), ``None`` when no one will."""
        waits = [self.seen[i] + timeout - now for i, k in enumerate(self.seats)
                 if k == HUMAN and self.connections[i] == 0 and self.present(i, now, timeout)]
        return max(0.0, min(waits)) if waits else None

    def people(self, now: float, timeout: float) -> list[dict[str, Any]]:
        """Per seat ``{"person", "joined", "connected", "present", "left"}`` (public: who is at the
        table; ``connected``: an event stream is open now)."""
        return [{"person": k == HUMAN, "joined": k == HUMAN and self.joined[i],
                 "connected": k == HUMAN and self.connections[i] > 0,
                 "present": k == HUMAN and self.present(i, now, timeout), "left": k == HUMAN and self.left[i]}
                for i, k in enumerate(self.seats)]

    def apply(self, action: int, seconds: float | None = None) -> None:
        """Apply a legal move of the player to move (the caller checked and stored it).

        Args:
            action: the action id.
            seconds: an agent's decision time (``None``: not measured), kept in :attr:`moves`.
        """
        with self.mutex:
            st = self.state
            r0, tier0 = int(st.round[0]), int(st.tier[0])
            self.moves.append({"round": r0 + 1, "rotation": int(st.rotation[0]) + 1, "tier": tier0,
                               "seconds": None if seconds is None else round(float(seconds), 3)})
            step_inplace(st, np.array([action], dtype=np.int64), self.config, check=False)
            self.recorder.after_step(st)
            self.actions.append(int(action))
            if bool(st.done[0]) or int(st.round[0]) != r0:
                self.round_ends.append({"round": r0 + 1, "scores": [int(v) for v in st.score[0]], "tier": tier0})

    def check_move(self, seat: int | None, version: Any, action: Any) -> int:
        """The action id of a move request, after every check (nothing is changed).

        Raises:
            Unprocessable: a malformed version or action.
            Forbidden: a spectator (no seat) tries to move.
            Conflict: a stale version, the game is over, not this seat's turn, an illegal move.
        """
        if isinstance(version, bool) or not isinstance(version, int):
            raise Unprocessable(f"'version' must be an integer (the move number shown), got {version!r}")
        if isinstance(action, bool) or not isinstance(action, int) or not 0 <= action < NUM_ACTIONS:
            raise Unprocessable(f"'action' must be an action id 0..{NUM_ACTIONS - 1}, got {action!r}")
        if seat is None:
            raise Forbidden("a spectator cannot move; open your seat's private link")
        if self.lobby:
            raise Conflict("the game has not started: it waits in its lobby until every person has joined "
                           "or its creator starts it; nothing was played")
        if version != self.version:
            raise Conflict(f"stale request: the game is at move {self.version}, this request was made at "
                           f"move {version} (it was already answered or the page is out of date); nothing "
                           f"was played")
        if self.done:
            raise Conflict("the game is over; nothing was played")
        if seat != self.to_move:
            raise Conflict(f"it is {self.names[self.to_move]}'s turn, not yours; nothing was played")
        if not legal_action_mask(self.state)[0, action]:
            raise Conflict(f"{action_name(action, self.config.board)} is not legal now; nothing was played")
        return int(action)

    # -- what is sent ------------------------------------------------------------------------
    def log(self) -> list[dict[str, Any]]:
        """Every move so far with its answer (public), oldest first."""
        out = []
        with self.mutex:
            record = self.recorder.record()
        for r, rnd in enumerate(record.rounds):
            out.extend(event_doc(ev, record, r) for ev in rnd.events)
        return out

    def record(self) -> GameRecord:
        """The game's record so far (every case: send it only once the game is over), with
        ``hints`` set when the game allowed them."""
        with self.mutex:
            record = self.recorder.record()
        return dataclasses.replace(record, hints=True) if self.hints else record

    def hint_position(self, seat: int | None) -> "tuple[int, GameRecord]":
        """What a hint to ``seat`` is computed from: ``(version, record)`` now. The server computes
        it in a worker process with a time limit (:func:`pi_env.apps.web.replay.hint_job`).

        Args:
            seat: the asking seat (``None``: a spectator).

        Returns:
            the game's version and its record so far.

        Raises:
            Forbidden: the game was created without hints, or a spectator asks.
            Conflict: the game is over.
        """
        if not self.hints:
            raise Forbidden("this game was created without hints (the 'hints' option)")
        if seat is None:
            raise Forbidden("a spectator cannot ask for a hint; open your seat's private link")
        with self.mutex:
            if self.done:
                raise Conflict("the game is over: every case is in the record")
            return self.version, self.recorder.record()

    def hint(self, seat: int | None) -> dict[str, Any]:
        """The solver's advice to ``seat`` now, from only what it knows (docs/rules.md §9; the
        report of ``pi-env solve``, :func:`pi_env.solvers.solve_report.solve_report`), computed in
        this thread without a time limit (the server uses :meth:`hint_position` and a worker).

        Args:
            seat: the asking seat (``None``: a spectator).

        Returns:
            :func:`hint_answer` of the report.

        Raises:
            Forbidden: the game was created without hints, or a spectator asks.
            Conflict: the game is over.
        """
        from pi_env.solvers.solve_report import solve_report

        version, record = self.hint_position(seat)
        return hint_answer(version, solve_report(record, seat, top=5, strict=False))

    def view(self, seat: int | None) -> dict[str, Any]:
        """What ``seat`` (``None``: a spectator) receives (module docstring). Blocking: call it in
        a worker thread (:meth:`GameManager.run`)."""
        with self.mutex:
            return self._view(seat)

    def _view(self, seat: int | None) -> dict[str, Any]:
        cfg = self.config
        P = cfg.num_players
        viewer = 0 if seat is None else seat
        obs = observe(self.state, viewer)[0]
        mine = (seat is not None and not self.done and not self.lobby and self.to_move == seat
                and self.agents[seat] is None)
        view = seat_view(obs, P, viewer, cfg.board, edition=cfg.edition, duel=cfg.is_duel,
                         action_mask=legal_action_mask(self.state)[0] if mine else None,
                         spectator=seat is None)
        record = self.recorder.record()
        if self.done:
            res = outcome(self.state, cfg)
            view["round"] = min(view["round"] - 1, cfg.round_limit) or 1
            view["result"] = {"scores": [int(v) for v in res.scores], "ranks": [int(v) for v in res.ranks],
                              "winners": [int(v) for v in res.winners], "truncated": bool(res.truncated),
                              "penalty": [int(v) for v in self.state.penalty[0]],
                              "cases": [self._cases(record, r) for r in range(len(record.rounds))]}
            if self.round_ends and view["tier_points"]:  # the last round's track, not the next one's
                last = self.round_ends[-1]
                rnd = last["round"] - 1
                view["tier_points"] = [tier_points(k, rnd, P, cfg.edition) for k in range(len(view["tier_points"]))]
                view["tier"] = last["tier"]
        view.update(
            game=self.id, version=self.version, done=self.done, rules=rules_text(cfg),
            mode=cfg.mode, edition=cfg.edition, rounds=cfg.num_rounds,
            names=list(self.names), seats=list(self.seats), your_turn=mine, hints=self.hints,
            board=board_doc(cfg.board), log=self.log(), agent_error=self.agent_error,
            round_summaries=[self._round_summary(record, r, seat) for r in range(len(self.round_ends))],
            decision=self._decision_times(record),
            lobby=self.lobby, people=self.people(time.monotonic(), self.seat_timeout), creator=self.creator,
            you_create=seat is not None and seat == self.creator)
        for doc, meta in zip(view["log"], self.moves):
            doc["rotation"], doc["seconds"] = meta["rotation"], meta["seconds"]
        return view

    def _cases(self, record: GameRecord, r: int) -> list[dict[str, Any] | None]:
        """Every player's case of round ``r`` (all of them: only for a finished game)."""
        names = element_names(self.config.board)
        cases = record.rounds[r].cases
        return [case_doc(cases[p], names) if p in cases else None for p in range(self.config.num_players)]

    def _round_summary(self, record: GameRecord, r: int, seat: int | None) -> dict[str, Any]:
        """What a finished round shows ``seat`` (docs/rules.md §9): who solved what and when, each
        player's points of the round, and the cases the rules reveal now: those solved correctly
        (public) and the one ``seat`` held (its own knowledge); every case only once the game is over."""
        P = self.config.num_players
        names = element_names(self.config.board)
        end = self.round_ends[r]
        before = self.round_ends[r - 1]["scores"] if r > 0 else [0] * P
        offset = sum(len(rr.events) for rr in record.rounds[:r])
        rnd = record.rounds[r]
        solves = []
        for k, ev in enumerate(rnd.events):
            if ev.kind != SOLVE:
                continue
            meta = self.moves[offset + k] if offset + k < len(self.moves) else {"rotation": None}
            solves.append({"player": ev.player, "case": case_doc(ev.case, names), "correct": bool(ev.correct),
                           "move": offset + k + 1, "rotation": meta["rotation"]})
        revealed: dict[int, dict[str, Any]] = {}
        for sv in solves:
            if sv["correct"]:
                revealed[sv["player"]] = {"player": sv["player"], "case": sv["case"], "why": "solved"}
        if self.done:
            for p in range(P):
                if p not in revealed and p in rnd.cases:
                    revealed[p] = {"player": p, "case": case_doc(rnd.cases[p], names), "why": "game over"}
        elif seat is not None:
            held = (seat + 1) % P
            if held not in revealed and held in rnd.cases:
                revealed[held] = {"player": held, "case": case_doc(rnd.cases[held], names), "why": "you held it"}
        return {"round": end["round"], "scores": list(end["scores"]),
                "points": [a - b for a, b in zip(end["scores"], before)], "solves": solves,
                "revealed": [revealed[p] for p in sorted(revealed)]}

    def _decision_times(self, record: GameRecord) -> list[dict[str, Any] | None]:
        """Per seat: an agent's measured decision times ``{"moves", "mean", "max", "last"}`` in
        seconds (``None`` for a person or before its first measured move)."""
        out: list[dict[str, Any] | None] = []
        per: dict[int, list[float]] = {}
        players = [ev.player for rnd in record.rounds for ev in rnd.events]
        for a, meta in zip(players, self.moves):
            if meta["seconds"] is not None:
                per.setdefault(a, []).append(meta["seconds"])
        for p in range(self.config.num_players):
            t = per.get(p)
            out.append(None if not t else {"moves": len(t), "mean": round(sum(t) / len(t), 3),
                                           "max": max(t), "last": t[-1]})
        return out

    def summary(self) -> dict[str, Any]:
        """Public facts for the list of games."""
        with self.mutex:
            return self._summary()

    def _summary(self) -> dict[str, Any]:
        return {"id": self.id, "created": self.created, "rules": rules_text(self.config),
                "seats": list(self.seats), "names": list(self.names), "moves": self.version,
                "done": self.done, "lobby": self.lobby}

    def spec(self) -> dict[str, Any]:
        """What the store keeps to rebuild the game: its rules (:meth:`GameConfig.to_json`), seed,
        seats, names, the seats' token digests, hints, and the lobby's state."""
        return {"rules": self.config.to_json(), "seed": self.seed, "seats": self.seats,
                "names": self.names, "digests": self.digests, "hints": self.hints, "lobby": self.lobby,
                "joined": self.joined, "left": self.left, "handed": self.handed}


def _timed_act(agent: Agent, obs: np.ndarray, mask: np.ndarray) -> tuple[int, float]:
    """``(action, seconds)``: the agent's move and its decision time (wall clock, this thread)."""
    t0 = time.perf_counter()
    action = int(agent.act(obs, mask))
    return action, time.perf_counter() - t0


_BOARD_DOCS: dict[tuple, dict[str, Any]] = {}


def hint_answer(version: int, doc: dict[str, Any]) -> dict[str, Any]:
    """A game hint's answer from :func:`~pi_env.solvers.solve_report.solve_report`'s report.

    Args:
        version: the game's version the report is about.
        doc: the report.

    Returns:
        ``{"version", "count", "certain", "cases" (at most 5, most likely first, with
        ``probability``), "best_action", "best_gain_bits", "solve_now", "p_correct",
        "expected_points", "best_case"}``; the advice fields are ``None`` when it is not the seat's
        turn.
    """
    h = doc["hint"] or {}
    return {"version": version, "count": doc["count"], "certain": doc["certain"], "cases": doc["cases"][:5],
            "best_action": h.get("best_action"), "best_gain_bits": h.get("best_gain_bits"),
            "solve_now": h.get("solve_now"), "p_correct": h.get("p_correct"),
            "expected_points": h.get("expected_points"), "best_case": h.get("best_case")}


def board_doc(board) -> dict[str, Any]:
    """The board as the pages draw it: district names and positions, edges, element names."""
    key = (board.districts, board.positions.tobytes(), board.adjacency.tobytes())
    if key not in _BOARD_DOCS:
        _BOARD_DOCS[key] = {"districts": list(board.districts),
                            "positions": [[float(x), float(y)] for x, y in board.positions],
                            "edges": [[int(a), int(b)] for a, b in board.edges],
                            "elements": list(element_names(board))}
    return _BOARD_DOCS[key]


_SPEC_RULES = ("players", "edition", "mode", "variants", "investigators", "max_rotations")
"""The rules keys of a stored game written before the spec held ``rules`` (they were its own keys,
named as in :meth:`GameConfig.to_json`)."""


def _config_of(spec: dict[str, Any]) -> GameConfig:
    """The rules of a stored game (:meth:`LiveGame.spec`, or a spec of an earlier version)."""
    rules = spec["rules"] if "rules" in spec else {k: spec[k] for k in _SPEC_RULES if k in spec}
    return GameConfig.from_json(rules)


def _text(value: Any, what: str, choices: tuple[str, ...]) -> str:
    if value not in choices:
        raise Unprocessable(f"'{what}' must be one of {', '.join(choices)}, got {value!r}")
    return value


class GameManager:
    """Every live game of the server, their persistence, their agents and their expiry.

    Args:
        store: the database (its clock is the one games expire by).
        agent_delay: seconds an agent waits before moving (so a person can follow).
        finished_ttl: seconds a finished game is kept after its last move.
        idle_ttl: seconds an unfinished game is kept after its last move (or its creation).
        workers: worker threads for views, lists, records and moves (:meth:`run`).
        seat_timeout: seconds without a connection after which a person's seat counts as left.
    """

    def __init__(self, store: Store, agent_delay: float = 0.8, *, finished_ttl: float = FINISHED_TTL,
                 idle_ttl: float = IDLE_TTL, workers: int = WORKERS, seat_timeout: float = SEAT_TIMEOUT):
        self.store = store
        self.seat_timeout = float(seat_timeout)
        self.agent_delay = float(agent_delay)
        self.finished_ttl, self.idle_ttl = float(finished_ttl), float(idle_ttl)
        self.games: dict[str, LiveGame] = {}  # changed only on the event loop (and before it runs)
        self.boot = secrets.token_hex(3)  # this run's part of event ids (event_id)
        self.closing = asyncio.Event()
        self.pool = concurrent.futures.ThreadPoolExecutor(workers, thread_name_prefix="pi-env-web")

    async def run(self, fn: Callable[..., T], *args: Any) -> T:
        """``fn(*args)`` in one of the manager's worker threads (module docstring)."""
        return await asyncio.get_running_loop().run_in_executor(self.pool, functools.partial(fn, *args))

    # -- creating and restoring ----------------------------------------------------------------
    def create(self, doc: Any) -> tuple[LiveGame, list[str | None]]:
        """A new game from a request body, stored; returns it and each human seat's token. Blocking
        (a worker thread); then :meth:`add` it on the event loop.

        ``{"seats": ["human", "greedy", ...], "edition": "second", "mode": "standard",
        "variants": [], "investigators": null, "names": null, "seed": null, "hints": false}``

        Raises:
            Unprocessable: a malformed body or settings the rules refuse (the engine's message).
        """
        config, seed, seats, names = self._settings(doc)
        hints = doc.get("hints", False)
        if not isinstance(hints, bool):
            raise Unprocessable(f"'hints' must be true or false, got {hints!r}")
        lobby = doc.get("lobby", False)
        if not isinstance(lobby, bool):
            raise Unprocessable(f"'lobby' must be true or false, got {lobby!r}")
        tokens = [secrets.token_urlsafe(18) if s == HUMAN else None for s in seats]
        game_id = secrets.token_urlsafe(6)
        while game_id in self.games:
            game_id = secrets.token_urlsafe(6)
        game = LiveGame(id=game_id, config=config, seed=int(seed), seats=seats,
                        names=[n.strip() for n in names], hints=hints,
                        digests=[None if t is None else token_digest(t) for t in tokens],
                        lobby=lobby and seats.count(HUMAN) >= 2)
        game.created = _dt.datetime.now().astimezone().isoformat(timespec="seconds")
        game.active = self.store.add_game(game_id, game.spec())
        return game, tokens

    def add(self, game: LiveGame) -> None:
        """Make a created game live (on the event loop) and let its agents play."""
        game.seat_timeout = self.seat_timeout
        self.games[game.id] = game
        self.kick(game)

    def _settings(self, doc: Any) -> tuple[GameConfig, int, list[str], list[str]]:
        """``(config, seed, seats, names)`` of a new game's request body (:meth:`create`)."""
        if not isinstance(doc, dict):
            raise Unprocessable("the body must be a JSON object with 'seats'")
        unknown = set(doc) - {"seats", "edition", "mode", "variants", "investigators", "names", "seed", "hints",
                              "lobby"}
        if unknown:
            raise Unprocessable(f"unknown setting {sorted(unknown)[0]!r}")
        seats = doc.get("seats")
        if not isinstance(seats, list) or not 2 <= len(seats) <= 5:
            raise Unprocessable("'seats' must list 2..5 seats, each 'human' or an agent name")
        seats = [_text(s.strip().lower() if isinstance(s, str) else s, "seats[]", SEAT_KINDS) for s in seats]
        seed = doc.get("seed")
        if seed is None:
            seed = secrets.randbelow(2**62)
        elif isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**62:
            raise Unprocessable(f"'seed' must be an integer 0..2**62-1 or null, got {seed!r}")
        names = doc.get("names")
        if names is None:
            names = [f"{seat_label(i)} ({'you' if s == HUMAN and seats.count(HUMAN) == 1 else s})"
                     for i, s in enumerate(seats)]
        elif not isinstance(names, list) or len(names) != len(seats):
            raise Unprocessable(f"'names' must list one name (1..{NAME_LIMIT} characters) per seat")
        else:
            names = [player_name(n, f"'names'[{i}]") for i, n in enumerate(names)]
        try:  # the record of the game must be readable: names that tell the players apart
            check_player_names([n.strip() for n in names])
        except PIError as exc:
            raise Unprocessable(f"'names': {str(exc).removeprefix('players: ')}") from None
        rules = {k: doc[k] for k in ("edition", "mode", "variants", "investigators") if doc.get(k) is not None}
        try:  # the rules as GameConfig reads them (null: the default); its message names the setting
            config = GameConfig.from_json({"players": len(seats), **rules})
        except PIError as exc:
            raise Unprocessable(str(exc)) from None
        return config, int(seed), seats, names

    def restore(self) -> int:
        """Delete the expired games, then rebuild every other stored game by replaying its moves;
        returns how many."""
        self.store.expire(self.finished_ttl, self.idle_ttl)
        for game_id, created, spec, moves, active, finished in self.store.games():
            try:
                game = LiveGame(id=game_id, config=_config_of(spec), seed=int(spec["seed"]),
                                seats=list(spec["seats"]), names=list(spec["names"]),
                                digests=list(spec["digests"]), created=created, active=active, finished=finished,
                                hints=bool(spec.get("hints", False)),
                                lobby=bool(spec.get("lobby", False)), joined=list(spec.get("joined", [])),
                                left=list(spec.get("left", [])), handed=list(spec.get("handed", [])))
                game.seat_timeout = self.seat_timeout
                for a in moves:
                    if game.done or not legal_action_mask(game.state)[0, a]:
                        raise PIError(f"stored move {game.version} ({a}) is not legal")
                    game.apply(a)
            except (PIError, KeyError, TypeError) as exc:
                log.error("game %s cannot be restored: %s", game_id, exc)
                continue
            if game.done and game.finished is None:  # stopped between its last move and noting the end
                game.finished = game.active
                self.store.finish_game(game_id, game.finished)
            self.games[game_id] = game
        return len(self.games)

    def get(self, game_id: str) -> LiveGame:
        """Raises NotFound for an unknown id."""
        game = self.games.get(game_id)
        if game is None:
            raise NotFound(f"no game {game_id!r} on this server")
        return game

    def recent(self, n: int = 50) -> list[LiveGame]:
        """The ``n`` newest games, newest first (on the event loop; their summaries in a thread)."""
        return list(itertools.islice(reversed(self.games.values()), n))

    # -- expiry --------------------------------------------------------------------------------
    def expired(self, game: LiveGame, now: float) -> bool:
        """Whether ``game`` expired at ``now`` (module docstring)."""
        if game.finished is not None:
            return now - game.finished > self.finished_ttl
        return now - game.active > self.idle_ttl

    def purge(self) -> tuple[list[str], list[str]]:
        """Delete every expired game from memory and the database (on the event loop: its drivers
        stop, its long polls return), and the expired solo games from the database
        (:meth:`Store.expire`); returns their ids, ``(games, solo games)``. A request still holding
        one of the games gets "no game" for a move."""
        now = self.store.clock()
        gone = [g for g in self.games.values() if self.expired(g, now)]
        for game in gone:
            with game.mutex:
                game.purged = True
            del self.games[game.id]
            if game.driver is not None and not game.driver.done():
                game.driver.cancel()
            self._changed(game)
        stored, solos = self.store.expire(self.finished_ttl, self.idle_ttl, now)  # the same moment
        return sorted({g.id for g in gone} | set(stored)), solos

    # -- moving ------------------------------------------------------------------------------
    async def move(self, game: LiveGame, seat: int | None, version: Any, action: Any) -> None:
        """Check, store and apply a person's move (in a worker thread), then let the agents play."""
        def check_and_commit() -> None:
            with game.mutex:
                a = game.check_move(seat, version, action)
                if game.agents[seat] is not None:  # pragma: no cover - agents have no token
                    raise Forbidden("an agent's seat cannot be played from a link")
                self._commit(game, a)

        async with game.lock:
            await self.run(check_and_commit)
            self._changed(game)
        self.kick(game)

    def _commit(self, game: LiveGame, action: int, seconds: float | None = None) -> None:
        """Store and apply a checked move (a worker thread, holding the game's mutex)."""
        if game.purged:
            raise NotFound(f"game {game.id} expired and was deleted; nothing was played")
        game.active = self.store.add_move(game.id, game.version, action)  # stored first: never lost
        game.apply(action, seconds)
        if game.done:
            game.finished = game.active
            self.store.finish_game(game.id, game.finished)

    @staticmethod
    def _changed(game: LiveGame) -> None:
        """Wake the long polls and event streams of a game that changed (on the event loop)."""
        game.revision += 1
        old, game.changed = game.changed, asyncio.Event()
        old.set()

    # -- the lobby and the people ----------------------------------------------------------------
    def event_id(self, game: LiveGame) -> str:
        """The id of a game's latest event (server-sent events): this server run's and the game's
        revision, so a stream resumed after a restart is sent the game again."""
        return f"{self.boot}.{game.revision}"

    def touch(self, game: LiveGame, seat: int | None) -> None:
        """A request of ``seat``'s person arrived: it is connected (on the event loop)."""
        if seat is not None:
            game.seen[seat] = time.monotonic()

    def connect(self, game: LiveGame, seat: int | None, delta: int) -> None:
        """An event stream of ``seat`` opened (``delta`` 1) or closed (-1); the other streams are woken
        to send the people at the table (:meth:`LiveGame.people`) when that changes."""
        if seat is None:
            return
        game.connections[seat] += delta
        game.seen[seat] = time.monotonic()
        if game.connections[seat] == (1 if delta > 0 else 0):  # connected, or no longer: wake the streams
            old, game.changed = game.changed, asyncio.Event()  # (no new revision: the views are the same)
            old.set()

    async def _save(self, game: LiveGame) -> None:
        """Store the game's lobby and seats, then tell everyone (on the event loop, holding its lock)."""
        await self.run(lambda: self.store.set_spec(game.id, game.spec()))
        self._changed(game)

    async def join(self, game: LiveGame, seat: int | None) -> None:
        """The person of ``seat`` opened their link: joined (and back, if they had left). The game
        leaves its lobby once every person's seat has joined.

        Raises:
            Forbidden: a spectator (no seat).
        """
        if seat is None:
            raise Forbidden("a spectator cannot join; open your seat's private link")
        self.touch(game, seat)
        async with game.lock:
            if game.joined[seat] and not game.left[seat]:
                return
            game.joined[seat], game.left[seat] = True, False
            if game.lobby and all(game.joined[i] for i, k in enumerate(game.seats) if k == HUMAN):
                game.lobby = False
            await self._save(game)
        self.kick(game)

    async def leave(self, game: LiveGame, seat: int | None) -> None:
        """The person of ``seat`` leaves: the creator may hand the seat to an agent (:meth:`hand`).

        Raises:
            Forbidden: a spectator (no seat).
        """
        if seat is None:
            raise Forbidden("a spectator has no seat to leave")
        async with game.lock:
            game.left[seat] = True
            await self._save(game)

    async def begin(self, game: LiveGame, seat: int | None, agent: Any = "greedy") -> None:
        """The creator starts a game from its lobby: every seat whose person has not joined is played
        by ``agent``.

        Raises:
            Forbidden: not the creator.
            Conflict: the game already started.
            Unprocessable: not an agent name.
        """
        agent = self._agent_name(agent)
        if seat is None or seat != game.creator:
            raise Forbidden("only the game's creator (its first person's seat) can start it")
        async with game.lock:
            if not game.lobby:
                raise Conflict("the game has already started")
            game.joined[seat] = True  # the creator is here: their own seat is never handed
            for i, k in enumerate(game.seats):
                if k == HUMAN and not game.joined[i]:
                    self._hand_locked(game, i, agent)
            game.lobby = False
            await self._save(game)
        self.kick(game)

    async def hand(self, game: LiveGame, seat: int | None, target: Any, agent: Any = "greedy") -> None:
        """The creator hands the seat ``target``, whose person left (said so, never joined, or had no
        connection for ``seat_timeout`` seconds), to ``agent``; the agent plays it from its next turn.

        Raises:
            Forbidden: not the creator.
            Unprocessable: not a seat of a person, or not an agent name.
            Conflict: the game is over, or the seat's person is still there.
        """
        agent = self._agent_name(agent)
        if seat is None or seat != game.creator:
            raise Forbidden("only the game's creator (its first person's seat) can hand a seat to an agent")
        if isinstance(target, bool) or not isinstance(target, int) or not 0 <= target < len(game.seats) \
                or game.seats[target] != HUMAN or target == seat:
            raise Unprocessable(f"'seat' must be the number of another person's seat, got {target!r}")
        async with game.lock:
            if game.done:
                raise Conflict("the game is over")
            now = time.monotonic()
            if game.present(target, now, self.seat_timeout):
                raise Conflict(f"{game.names[target]} is still at the table; a seat can be handed to an agent once "
                               f"its person left or has had no connection for {self.seat_timeout:g} s")
            self._hand_locked(game, target, agent)
            if game.lobby and all(game.joined[i] for i, k in enumerate(game.seats) if k == HUMAN):
                game.lobby = False  # the seat handed was the last one the lobby waited for
            await self._save(game)
        self.kick(game)

    def _hand_locked(self, game: LiveGame, seat: int, agent: str) -> None:
        new = make_agent(agent, edition=game.config.edition)
        reset_for_game(new, game.config, seed=game.seed * 10 + seat)
        with game.mutex:
            game.handed.append(game.digests[seat])
            game.seats[seat], game.digests[seat], game.agents[seat] = agent, None, new
            game.left[seat] = True
            if game.names[seat].endswith(f"({HUMAN})"):  # "P2 (human)" is now "P2 (human → greedy)"
                game.names[seat] = f"{game.names[seat][:-1]} → {agent})"

    @staticmethod
    def _agent_name(agent: Any) -> str:
        if agent not in AGENTS or agent == HUMAN:
            raise Unprocessable(f"'agent' must be one of {', '.join(a for a in AGENTS if a != HUMAN)}, got {agent!r}")
        return agent

    def kick(self, game: LiveGame) -> None:
        """Start the agents' driver if an agent is to move."""
        if game.done or game.purged or game.lobby or game.agents[game.to_move] is None:
            return
        if game.driver is None or game.driver.done():
            game.driver = asyncio.get_running_loop().create_task(self._drive(game))

    @staticmethod
    def _agent_turn(game: LiveGame) -> "tuple[int, int, np.ndarray, np.ndarray] | None":
        """``(player, version, observation, mask)`` when an agent is to move, else ``None``."""
        with game.mutex:
            if game.done or game.purged or game.lobby or game.agents[game.to_move] is None:
                return None
            p = game.to_move
            return p, game.version, observe(game.state, p)[0].copy(), legal_action_mask(game.state)[0].copy()

    async def _drive(self, game: LiveGame) -> None:
        while True:
            async with game.lock:
                turn = await self.run(self._agent_turn, game)
            if turn is None:
                return
            p, version, obs, mask = turn
            if self.agent_delay > 0:
                await asyncio.sleep(self.agent_delay)
            agent = game.agents[p]
            seconds: float | None = None
            try:
                action, seconds = await asyncio.to_thread(_timed_act, agent, obs, mask)
                if not mask[action]:
                    raise PIError(f"agent {agent.name} chose the illegal action {action}")
            except Exception as exc:  # an agent's failure must not stop the game
                log.exception("game %s: agent %s failed", game.id, agent.name)
                game.agent_error = (f"{game.names[p]} ({agent.name}) failed ({type(exc).__name__}); it played "
                                    f"a random legal move (details in the server's log)")
                legal = np.flatnonzero(mask)
                action = int(legal[np.random.default_rng(version).integers(legal.size)])
            async with game.lock:
                if game.version != version:  # pragma: no cover - only this driver moves agents
                    continue
                await self.run(lambda: self._commit_locked(game, action, seconds))
                self._changed(game)

    def _commit_locked(self, game: LiveGame, action: int, seconds: float | None = None) -> None:
        with game.mutex:
            self._commit(game, action, seconds)

    def start(self) -> None:
        """Let the agents of every restored game play on (call inside the running loop)."""
        self.closing = asyncio.Event()
        for game in self.games.values():
            game.lock = asyncio.Lock()
            game.changed = asyncio.Event()
            self.kick(game)

    def close(self) -> None:
        """The server is stopping: every waiting :meth:`wait` returns now, new ones at once (call
        inside the running loop)."""
        self.closing.set()

    def stop(self) -> None:
        """Stop the agents' drivers and the worker threads (after :meth:`close`, when no request
        runs any more)."""
        self.close()
        for game in self.games.values():
            if game.driver is not None and not game.driver.done():
                game.driver.cancel()
        self.pool.shutdown(wait=False, cancel_futures=True)

    async def wait(self, game: LiveGame, since: int, timeout: float) -> None:
        """Return when the game's version differs from ``since``, after ``timeout`` seconds, or
        when the server stops (:meth:`close`)."""
        if game.version != since or self.closing.is_set() or game.purged:
            return
        waiters = [asyncio.ensure_future(game.changed.wait()), asyncio.ensure_future(self.closing.wait())]
        try:
            await asyncio.wait(waiters, timeout=timeout, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for w in waiters:
                w.cancel()
