"""A plain-Python reference implementation of one game of P.I. (docs/rules.md §3–§5).

This module is the slow, readable second path of the engine (docs/contributing.md §C5). It is written from
docs/rules.md with Python lists, sets and ints, one game per object, and shares no code with the numba
kernels of :mod:`pi_env.engine._kernels`; ``tests/test_parity.py`` steps both in lockstep and checks
that every field agrees.

Chance uses the engine's documented draw order (the contract in :mod:`pi_env.engine._kernels`), so
the same generator state gives the same game:

* xorshift64 (shifts 13, 7, 17) over 64-bit words, ``below(n) = next() % n``;
* a shuffle is Fisher–Yates from the end: ``for i = n-1 .. 1: swap(a[i], a[below(i + 1)])``;
* a new game draws the first player ``below(P)`` (docs/rules.md §3.4), then sets up round 1;
* a round (docs/rules.md §3): shuffle the suspect tiles ``[0..11, blank, blank]`` and put the ``d``-th on
  district ``d``; the same for the evidence tiles ``[12..21, 4 blanks]``; deal cases by shuffling
  ``0..11`` (suspects), ``0..9`` (evidence), ``0..13`` (locations), player ``i`` getting entry ``i``
  of each (pairwise disjoint); shuffle the clue cards ``0..35`` into the deck (its top is the *end*
  of the list) and turn up 9;
* when a card must be drawn from an empty deck, the discard pile, sorted ascending, is shuffled into
  the new deck (docs/rules.md §4.1); with both empty the display stays short.

Rules implemented (section numbers of docs/rules.md):

* §4: turn order from the round's first player; a *rotation* ends when the last seat (the first
  player's right-hand neighbour) has played or been skipped; solved players are skipped.
* §4.1 clue: spot / trace / nothing; spot and trace put the card on the discard pile, nothing puts it
  in front of the player; a new marker on a tile is taken from the player's investigator in that
  district when that investigator carries one of that kind; refill one card.
* §4.2 investigator: one per district per player per round, spent for the game; spots and traces
  counted over the three types, except a type whose tile in the district already carries the
  player's marker (the suppression rule).
* §4.3 solve: marks *attempted*; wrong costs 2 (second edition: floor −5; first edition: penalty
  points kept apart); right scores the tier and ends the player's round.
* §5 scoring: tier ``k`` = earlier rotations of the round with a solve; points
  ``[7, 5, 3, 1][k] + (r − 1)`` capped at 21 (second edition) or ``[7, 5, 3, 1][k]`` (first edition);
  a tier ``k`` with fewer than ``k + 2`` players gives nothing (it cannot be reached anyway).
  The round ends at the end of a rotation when at most one player has not attempted (second) / is
  unsolved (first), or when the safeguard of ``max_rotations`` rotations is reached (truncation).
  Between rounds the first player passes left; the game ends after ``num_rounds`` rounds.
* §6 fast game: 2 rounds. Beginner friendly: per-player investigator counts. Nick of time: once a
  player has solved this round, every end of rotation advances the tier; an end of rotation at the
  last tier ``min(3, P − 2)`` (the rotation at that tier has been played out) ends the round, and
  the tier stays there.
* §7 duel (2 players): no points; ``score`` counts rounds won. The first solve attempt of a round
  decides it: wrong → the opponent wins; right by the round's second player → it wins; right by
  the round's first player → the opponent takes one more turn (``extra_turn``), a correct solve in
  it draws, anything else loses. The round ends right after the deciding step (no end-of-rotation
  bookkeeping for it). A round ended by the safeguard is a draw. Rewards: ±1 to the round's winner
  and loser at the deciding step, and ±1 to the game's winner and loser at the last step. After
  ``num_rounds`` rounds the duel ends as soon as one player has more wins; a duel still tied after
  ``max_rounds`` rounds ends (truncated). Before each later round each player gets 2 investigator
  tiles (the last round's winner 1: it gives one back), holding at most 5.

Bookkeeping conventions shared with the engine (they are not rules, but the parity test compares
them): ``solve_points`` adds the points of each correct solve as scored (with the round bonus in the
second edition, before the cap); ``penalty`` adds 2 per wrong attempt (also in the second edition,
whatever the floor); when the game ends ``current_player`` stays the last player who moved;
stepping a finished game changes nothing and gives zero rewards. In a duel ``solve_points`` and
``penalty`` stay 0, and ``round_winner`` is the result of the last finished round (winner, ``-1``
draw, ``-2`` none yet; always ``-2`` in standard games).
"""

from __future__ import annotations

from dataclasses import dataclass

from pi_env.core.constants import (DISPLAY_SIZE, IN_DECK, IN_DISCARD, IN_FRONT, INVESTIGATE_BASE,
                         MAX_INVESTIGATORS, NOTHING, NUM_ACTIONS, NUM_CASES, NUM_DISTRICTS,
                         NUM_ELEMENTS, ON_DISPLAY, SOLVE_BASE, SPOT, TRACE, TYPE_OFFSETS)
from pi_env.core.errors import IllegalActionError, InvalidActionError, PIError
from pi_env.engine.state import GameConfig

MASK64 = 0xFFFFFFFFFFFFFFFF
# The scoring numbers of docs/rules.md §5, written here again on purpose: the reference is the
# independent twin of pi_env.core.rules, so a rule changed there alone shows up as a parity failure.
TIER_POINTS = (7, 5, 3, 1)
WRONG_SOLVE_PENALTY = 2
SCORE_CAP = 21
SCORE_FLOOR = -5
BLANK = -1


class XorShift64:
    """The per-game generator: xorshift64 with shifts (13, 7, 17) on Python ints."""

    def __init__(self, state: int) -> None:
        self.state = state & MASK64

    def next(self) -> int:
        x = self.state
        x ^= (x << 13) & MASK64
        x ^= x >> 7
        x ^= (x << 17) & MASK64
        self.state = x
        return x

    def below(self, n: int) -> int:
        """A number in ``0..n-1``: ``next() % n``."""
        return self.next() % n

    def shuffle(self, items: list) -> None:
        """Fisher–Yates from the end, in place."""
        for i in range(len(items) - 1, 0, -1):
            j = self.below(i + 1)
            items[i], items[j] = items[j], items[i]


def _triple(flags) -> tuple[bool, bool, bool]:
    """Three flags (suspect, evidence, location) as a tuple of bools."""
    return (bool(flags[0]), bool(flags[1]), bool(flags[2]))


def element_type(x: int) -> int:
    """0 suspect, 1 evidence, 2 location."""
    return 0 if x < 12 else (1 if x < 22 else 2)


@dataclass
class Investigator:
    """One investigator tile placed this round (docs/rules.md §4.2).

    ``answer`` is (spots, traces) as answered; ``markers`` what is still on the tile after markers
    moved to board tiles (§4.1); ``suppressed[t]`` whether type ``t`` was skipped by suppression.
    """

    district: int
    answer: tuple[int, int]
    markers: list[int]
    suppressed: tuple[bool, bool, bool]


class ReferenceGame:
    """One game of P.I., plain Python (see the module docstring for the rules and the draw order).

    Usage::

        game = ReferenceGame(GameConfig(num_players=3))
        game.reset(seed_state=12345)
        while not game.done:
            answer = game.step(game.legal_actions()[0])

    Public attributes mirror :class:`~pi_env.engine.state.State` for one game (lists instead of
    arrays; sets where the engine has boolean masks): ``rng`` (the generator state, an int),
    ``round``, ``first_player``, ``current_player``, ``rotation``, ``tier``,
    ``solved_this_rotation``, ``done``, ``truncated``, ``turn``, ``tile_district``,
    ``district_tile``, ``case``, ``deck`` (bottom first, top last), ``display``, ``discard``,
    ``front``, ``spot``, ``trace`` (per player sets of element ids), ``investigators`` (per player
    list of :class:`Investigator`), ``inv_left``, ``attempted``, ``solved``, ``solved_case``,
    ``failed`` (per player set of case ids), ``score``, ``solve_points``, ``penalty``, ``rewards``,
    ``last_action``, ``last_answer``, ``last_player``, ``extra_turn``, ``round_winner``; plus the derived array-shaped views
    ``card_place``, ``deck_size``, ``inv_count``, ``inv_district``, ``inv_answer``, ``inv_markers``,
    ``inv_suppressed``.
    """

    def __init__(self, config: GameConfig, seed_state: int | None = None) -> None:
        self.config = config
        self.num_players = config.num_players
        self.duel = config.mode == "duel"
        self.nick_of_time = "nick-of-time" in config.variants
        adj = config.board.adjacency
        self.neighbours: list[set[int]] = [
            {e for e in range(NUM_DISTRICTS) if adj[d][e]} for d in range(NUM_DISTRICTS)]
        if seed_state is not None:
            self.reset(seed_state)

    # ------------------------------------------------------------------ setup (§3)

    def reset(self, seed_state: int) -> None:
        """Start a new game from the xorshift64 state ``seed_state | 1`` (as ``engine.init`` with
        explicit ``uint64`` states)."""
        P = self.num_players
        self._rng = XorShift64(int(seed_state) | 1)
        self.round = 0
        self.done = False
        self.truncated = False
        self.turn = 0
        self.first_player = self._rng.below(P)
        self.inv_left = list(self.config.investigators)
        self.score = [0] * P
        self.solve_points = [0] * P
        self.penalty = [0] * P
        self.rewards = [0] * P
        self.last_action = -1
        self.last_answer = (-1, -1)
        self.last_player = -1
        self.round_winner = -2
        self._setup_round()

    def _setup_round(self) -> None:
        P = self.num_players
        rng = self._rng
        # §3.1 tiles: one suspect and one evidence tile per district (blanks included)
        suspect_tiles = list(range(12)) + [BLANK] * 2
        rng.shuffle(suspect_tiles)
        evidence_tiles = [12 + k for k in range(10)] + [BLANK] * 4
        rng.shuffle(evidence_tiles)
        self.district_tile = [[suspect_tiles[d], evidence_tiles[d], 22 + d]
                              for d in range(NUM_DISTRICTS)]
        self.tile_district = [0] * NUM_ELEMENTS
        for d in range(NUM_DISTRICTS):
            for x in self.district_tile[d]:
                if x != BLANK:
                    self.tile_district[x] = d
        # §3.2 disjoint cases, dealt without replacement per type
        self.case = [[0, 0, 0] for _ in range(P)]
        for t, n in enumerate((12, 10, 14)):
            cards = list(range(n))
            rng.shuffle(cards)
            for i in range(P):
                self.case[i][t] = cards[i]
        # §3.3 clue deck and display
        self.deck = list(range(NUM_ELEMENTS))
        rng.shuffle(self.deck)
        self.display: set[int] = set()
        self.discard: set[int] = set()
        self.front: list[set[int]] = [set() for _ in range(P)]
        for _ in range(DISPLAY_SIZE):
            self._draw()
        # per-round markers, investigators and flags
        self.spot: list[set[int]] = [set() for _ in range(P)]
        self.trace: list[set[int]] = [set() for _ in range(P)]
        self.investigators: list[list[Investigator]] = [[] for _ in range(P)]
        self.attempted = [False] * P
        self.solved = [False] * P
        self.solved_case = [-1] * P
        self.failed: list[set[int]] = [set() for _ in range(P)]
        self.rotation = 0
        self.tier = 0
        self.solved_this_rotation = False
        self.extra_turn = False
        self.current_player = self.first_player

    def _draw(self) -> None:
        """Refill one display slot (§4.1): reshuffle the discard pile when the deck is empty."""
        if not self.deck:
            if not self.discard:
                return  # both empty: the display stays short
            self.deck = sorted(self.discard)
            self.discard = set()
            self._rng.shuffle(self.deck)
        self.display.add(self.deck.pop())

    # ------------------------------------------------------------------ queries

    @property
    def rng(self) -> int:
        return self._rng.state

    @property
    def last_seat(self) -> int:
        """The seat that closes a rotation: the first player's right-hand neighbour (§4)."""
        return (self.first_player - 1) % self.num_players

    def adjacent(self, d: int, e: int) -> bool:
        return e in self.neighbours[d]

    def case_element(self, player: int, t: int) -> int:
        """Element id of ``player``'s case element of type ``t``."""
        return TYPE_OFFSETS[t] + self.case[player][t]

    def investigator_in(self, player: int, district: int) -> Investigator | None:
        for inv in self.investigators[player]:
            if inv.district == district:
                return inv
        return None

    def legal_actions(self) -> list[int]:
        """Legal actions of the player to move, ascending (§4); empty once the game is done."""
        if self.done:
            return []
        p = self.current_player
        actions = sorted(self.display)
        if self.inv_left[p] > 0:
            used = {inv.district for inv in self.investigators[p]}
            actions += [INVESTIGATE_BASE + d for d in range(NUM_DISTRICTS) if d not in used]
        actions += list(range(SOLVE_BASE, SOLVE_BASE + NUM_CASES))
        return actions

    def is_legal(self, action: int) -> bool:
        if self.done:
            return True
        p = self.current_player
        if 0 <= action < INVESTIGATE_BASE:
            return action in self.display
        if INVESTIGATE_BASE <= action < SOLVE_BASE:
            return (self.inv_left[p] > 0
                    and self.investigator_in(p, action - INVESTIGATE_BASE) is None)
        return SOLVE_BASE <= action < NUM_ACTIONS

    # ------------------------------------------------------------------ a turn (§4)

    def step(self, action: int) -> tuple[int, int] | None:
        """Play ``action`` for the player to move.

        Returns:
            The answer, as the engine's ``last_answer``: clue ``(code, -1)`` with code
            ``NOTHING``/``TRACE``/``SPOT``; investigator ``(spots, traces)``; solve
            ``(1, -1)`` correct or ``(0, -1)`` wrong. ``None`` if the game was already over.

        Raises:
            InvalidActionError: not an int in ``0..1729``.
            IllegalActionError: not legal now.
        """
        if isinstance(action, bool) or not isinstance(action, int) or not 0 <= action < NUM_ACTIONS:
            raise InvalidActionError(f"action {action!r} is outside 0..{NUM_ACTIONS - 1}")
        P = self.num_players
        self.rewards = [0] * P
        if self.done:
            return None
        if not self.is_legal(action):
            raise IllegalActionError(
                f"action {action} is not legal for player {self.current_player} "
                f"(round {self.round + 1}, turn {self.turn})")
        before = list(self.score)
        p = self.current_player
        correct = False
        if action < INVESTIGATE_BASE:
            answer = (self._select_clue(p, action), -1)
        elif action < SOLVE_BASE:
            answer = self._place_investigator(p, action - INVESTIGATE_BASE)
        else:
            correct = self._solve(p, action - SOLVE_BASE)
            answer = (1 if correct else 0, -1)
        self.last_action = action
        self.last_player = p
        self.last_answer = answer
        self.turn += 1
        if self.duel:
            self.rewards = [0] * P
            result = self._duel_decision(p, action >= SOLVE_BASE, correct)
            if result is None:
                self._pass_turn(p)
            else:
                self._end_round(result)
        else:
            self._pass_turn(p)
            self.rewards = [self.score[i] - before[i] for i in range(P)]
        return answer

    def _duel_decision(self, p: int, is_solve: bool, correct: bool) -> int | None:
        """§7: the result of the round decided by this turn (winner, or -1 draw), else None."""
        if self.extra_turn:  # the opponent's one more turn after the first player's correct solve
            self.extra_turn = False
            return -1 if (is_solve and correct) else self.first_player
        if not is_solve:
            return None
        opponent = 1 - p
        if not correct:
            return opponent
        if p == self.first_player:
            self.extra_turn = True
            return None
        return p

    def _select_clue(self, p: int, x: int) -> int:
        """§4.1."""
        t = element_type(x)
        y = self.case_element(p, t)
        dx = self.tile_district[x]
        if x == y:
            answer = SPOT
        elif self.adjacent(self.tile_district[y], dx):
            answer = TRACE
        else:
            answer = NOTHING
        self.display.remove(x)
        if answer == NOTHING:
            self.front[p].add(x)
        else:
            markers, kind = (self.spot[p], 0) if answer == SPOT else (self.trace[p], 1)
            if x not in markers:  # a new marker goes on the tile ...
                markers.add(x)
                inv = self.investigator_in(p, dx)
                if inv is not None and inv.markers[kind] > 0:
                    inv.markers[kind] -= 1  # ... taken from the investigator in that district
            self.discard.add(x)
        self._draw()
        return answer

    def _place_investigator(self, p: int, d: int) -> tuple[int, int]:
        """§4.2."""
        spots = traces = 0
        suppressed = []
        for t in range(3):
            tile = self.district_tile[d][t]
            skip = tile != BLANK and (tile in self.spot[p] or tile in self.trace[p])
            suppressed.append(skip)
            if skip:
                continue
            dy = self.tile_district[self.case_element(p, t)]
            if dy == d:
                spots += 1
            elif self.adjacent(dy, d):
                traces += 1
        self.investigators[p].append(
            Investigator(d, (spots, traces), [spots, traces], (suppressed[0], suppressed[1], suppressed[2])))
        self.inv_left[p] -= 1
        return spots, traces

    def _solve(self, p: int, c: int) -> bool:
        """§4.3 and the scoring of §5 (a duel has no points, §7)."""
        named = [c // 140, (c // 14) % 10, c % 14]
        self.attempted[p] = True
        second = self.config.edition == "second"
        if named == self.case[p]:
            self.solved[p] = True
            self.solved_case[p] = c
            self.solved_this_rotation = True
            if self.duel:
                return True
            k = self.tier
            points = 0
            if k <= min(self.num_players - 2, len(TIER_POINTS) - 1):
                points = TIER_POINTS[k] + (self.round if second else 0)
            self.solve_points[p] += points
            if second:
                self.score[p] = min(SCORE_CAP, self.score[p] + points)
            else:
                self.score[p] = self.solve_points[p] - self.penalty[p]
            return True
        self.failed[p].add(c)
        if self.duel:
            return False
        self.penalty[p] += WRONG_SOLVE_PENALTY
        if second:
            self.score[p] = max(SCORE_FLOOR, self.score[p] - WRONG_SOLVE_PENALTY)
        else:
            self.score[p] = self.solve_points[p] - self.penalty[p]
        return False

    def _pass_turn(self, p: int) -> None:
        """Move to the next unsolved seat; passing the last seat ends a rotation (§4, §5)."""
        seat = p
        while True:
            if seat == self.last_seat and self._end_rotation():
                return
            seat = (seat + 1) % self.num_players
            if not self.solved[seat]:
                self.current_player = seat
                return

    def _end_rotation(self) -> bool:
        """End-of-rotation checks (§5, §6); True when the round ended."""
        last_tier = min(len(TIER_POINTS) - 1, self.num_players - 2)
        ends = False
        if self.nick_of_time and any(self.solved):
            if self.tier == last_tier:
                ends = True  # the rotation at the last tier has been played out
            else:
                self.tier += 1
        elif self.solved_this_rotation:
            self.tier += 1
        self.solved_this_rotation = False
        self.rotation += 1
        if not self.duel:  # a duel round ends only by a solve attempt (§7) or the safeguard
            if self.config.edition == "second":
                still_open = sum(not a for a in self.attempted)
            else:
                still_open = sum(not s for s in self.solved)
            ends = ends or still_open <= 1
        if not ends:
            if self.rotation < self.config.max_rotations:
                return False
            self.truncated = True  # the safeguard of §5; in a duel the round is a draw
        self._end_round(-1)
        return True

    def _end_round(self, result: int) -> None:
        """Close the round; ``result`` is the duel round's winner or -1 (ignored in standard games)."""
        if self.duel:
            self.round_winner = result
            self.extra_turn = False
            if result >= 0:
                self.score[result] += 1
                self.rewards[result] += 1
                self.rewards[1 - result] -= 1
        self.round += 1
        if self.duel:
            over = False
            if self.round >= self.config.num_rounds and self.score[0] != self.score[1]:
                over = True
                winner = 0 if self.score[0] > self.score[1] else 1
                self.rewards[winner] += 1
                self.rewards[1 - winner] -= 1
            elif self.round >= self.config.max_rounds:
                over = True
                self.truncated = True  # still tied at the duel safeguard
        else:
            over = self.round >= self.config.num_rounds
        if over:
            self.done = True
            return
        if self.duel:
            for i in range(self.num_players):
                new_tiles = 2 - (1 if i == result else 0)
                self.inv_left[i] = min(MAX_INVESTIGATORS, self.inv_left[i] + new_tiles)
        self.first_player = (self.first_player + 1) % self.num_players
        self._setup_round()

    # ------------------------------------------------------------------ engine-shaped views

    @property
    def card_place(self) -> list[int]:
        place = [IN_DECK] * NUM_ELEMENTS
        for x in self.display:
            place[x] = ON_DISPLAY
        for x in self.discard:
            place[x] = IN_DISCARD
        for cards in self.front:
            for x in cards:
                place[x] = IN_FRONT
        return place

    @property
    def deck_size(self) -> int:
        return len(self.deck)

    @property
    def inv_count(self) -> list[int]:
        return [len(invs) for invs in self.investigators]

    def _inv_table(self, get, empty) -> list[list]:
        return [[get(invs[k]) if k < len(invs) else empty for k in range(MAX_INVESTIGATORS)]
                for invs in self.investigators]

    @property
    def inv_district(self) -> list[list[int]]:
        return self._inv_table(lambda inv: inv.district, -1)

    @property
    def inv_answer(self) -> list[list[tuple[int, int]]]:
        return self._inv_table(lambda inv: tuple(inv.answer), (0, 0))

    @property
    def inv_markers(self) -> list[list[tuple[int, int]]]:
        return self._inv_table(lambda inv: tuple(inv.markers), (0, 0))

    @property
    def inv_suppressed(self) -> list[list[tuple[bool, bool, bool]]]:
        return self._inv_table(lambda inv: tuple(inv.suppressed), (False, False, False))

    # ------------------------------------------------------------------ loading an engine state

    @classmethod
    def from_state(cls, config: GameConfig, state, game: int = 0) -> "ReferenceGame":
        """A reference game continuing from game ``game`` of an engine :class:`State` (for
        example one built by :func:`pi_env.engine.setup.from_layout`).

        Raises:
            PIError: the state's player count differs from ``config``.
        """
        b = game
        P = config.num_players
        if state.num_players != P:
            raise PIError(f"state has {state.num_players} players, config {P}")
        g = cls(config)
        g._rng = XorShift64(int(state.rng[b]))
        for name in ("round", "first_player", "current_player", "rotation", "tier", "turn",
                     "last_action", "last_player"):
            setattr(g, name, int(getattr(state, name)[b]))
        for name in ("solved_this_rotation", "done", "truncated", "extra_turn"):
            setattr(g, name, bool(getattr(state, name)[b]))
        g.last_answer = (int(state.last_answer[b, 0]), int(state.last_answer[b, 1]))
        g.round_winner = int(state.round_winner[b])
        g.tile_district = [int(v) for v in state.tile_district[b]]
        g.district_tile = [[int(v) for v in row] for row in state.district_tile[b]]
        g.case = [[int(v) for v in row] for row in state.case[b]]
        g.deck = [int(v) for v in state.deck[b, :int(state.deck_size[b])]]
        place = state.card_place[b]
        g.display = {x for x in range(NUM_ELEMENTS) if place[x] == ON_DISPLAY}
        g.discard = {x for x in range(NUM_ELEMENTS) if place[x] == IN_DISCARD}
        g.front = [{x for x in range(NUM_ELEMENTS) if state.front[b, i, x]} for i in range(P)]
        g.spot = [{x for x in range(NUM_ELEMENTS) if state.spot[b, i, x]} for i in range(P)]
        g.trace = [{x for x in range(NUM_ELEMENTS) if state.trace[b, i, x]} for i in range(P)]
        g.investigators = [
            [Investigator(int(state.inv_district[b, i, k]),
                          (int(state.inv_answer[b, i, k, 0]), int(state.inv_answer[b, i, k, 1])),
                          [int(state.inv_markers[b, i, k, 0]), int(state.inv_markers[b, i, k, 1])],
                          _triple(state.inv_suppressed[b, i, k]))
             for k in range(int(state.inv_count[b, i]))]
            for i in range(P)]
        for name in ("inv_left", "score", "solve_points", "penalty", "rewards", "solved_case"):
            setattr(g, name, [int(v) for v in getattr(state, name)[b]])
        g.attempted = [bool(v) for v in state.attempted[b]]
        g.solved = [bool(v) for v in state.solved[b]]
        g.failed = [{int(c) for c in state.failed[b, i].nonzero()[0]} for i in range(P)]
        return g


__all__ = ["ReferenceGame", "Investigator", "XorShift64", "element_type"]
