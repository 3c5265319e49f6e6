"""One scenario per rule of docs/rules.md §4–§5, on hand-built layouts, with values worked by hand.

Every scenario is stepped through the engine and, in lockstep, through the plain-Python
:class:`~pi_env.engine.reference.ReferenceGame` (all fields compared after every step).

Layout S (daytime board, docs/rules.md §2): suspect ``i`` lies in district ``i`` (Shorty Lakeside, Doc
Forest Park, Rusty Little Italy, Bubbles Trocadero, Frenchy Ocean Drive, Maurice China Town, Pop
Central Station, Dutch Main Street, Knuckles Road House, Pinky Union Square, Queenie Downtown, Earl
Rick's Café; Waterfront and Skid Row blank) and evidence ``j`` in district ``j + 4`` (Murder Ocean
Drive, Mob Killing China Town, Bank Job Central Station, Blackmail Main Street, Police Corruption Road
House, Forgery Union Square, Kidnapping Downtown, Jewellery Heist Rick's Café, Smuggling Waterfront,
Protection Racket Skid Row; Lakeside .. Trocadero blank).

Neighbours on the daytime board (district ids): Lakeside 0 {1,2,3}, Forest Park 1 {0,3,4},
Little Italy 2 {0,3,5,6}, Trocadero 3 {0,1,2,4,6,7}, Ocean Drive 4 {1,3,7,8}, China Town 5 {2,6,9},
Central Station 6 {2,3,5,7,9,10}, Main Street 7 {3,4,6,8,10,11}, Road House 8 {4,7,11},
Union Square 9 {5,6,10,12}, Downtown 10 {6,7,9,11,12,13}, Rick's Café 11 {7,8,10,13},
Waterfront 12 {9,10,13}, Skid Row 13 {10,11,12}.

Cases (3 players): player 0 (Doc, Forgery, Waterfront): tiles in Forest Park, Union Square,
Waterfront; player 1 (Pinky, Murder, Lakeside): Union Square, Ocean Drive, Lakeside; player 2
(Shorty, Smuggling, Downtown): Lakeside, Waterfront, Downtown. Players 3 and 4, when present:
(Dutch, Blackmail, Road House) and (Earl, Kidnapping, Main Street).

The default display of ``from_layout`` is Shorty, Doc, Rusty, Murder, Mob Killing, Bank Job,
Lakeside, Forest Park, Little Italy; the default deck is the other 27 cards ascending, top first
(Bubbles is drawn first, then Frenchy, Maurice, ...).
"""

from __future__ import annotations

import numpy as np
import pytest

from pi_env.core.board import DAYTIME
from pi_env.core.constants import (EVIDENCE_NAMES, IN_DECK, IN_DISCARD, IN_FRONT, NOTHING, ON_DISPLAY,
                              SOLVE_BASE, SPOT, SUSPECT_NAMES, TRACE, case_index)
from pi_env.engine import GameConfig, init, legal_action_mask, outcome, step_inplace
from pi_env.engine.reference import ReferenceGame
from pi_env.engine.setup import DEFAULT_DISPLAY, from_layout
from pi_env.core.errors import IllegalActionError, InvalidActionError, PIError
from test_parity import assert_same

D = {name: i for i, name in enumerate(DAYTIME.districts)}  # district ids
S = {name: i for i, name in enumerate(SUSPECT_NAMES)}  # suspect element ids 0..11
E = {name: 12 + i for i, name in enumerate(EVIDENCE_NAMES)}  # evidence element ids 12..21
L = {name: 22 + i for i, name in enumerate(DAYTIME.districts)}  # location element ids 22..35

LAYOUT_S = list(range(12)) + [j + 4 for j in range(10)] + list(range(14))
CASES_S = [
    (S["Doc"], E["Forgery"] - 12, D["Waterfront"]),
    (S["Pinky"], E["Murder"] - 12, D["Lakeside"]),
    (S["Shorty"], E["Smuggling"] - 12, D["Downtown"]),
    (S["Dutch"], E["Blackmail"] - 12, D["Road House"]),
    (S["Earl"], E["Kidnapping"] - 12, D["Main Street"]),
]


def inv(district: str) -> int:
    return 36 + D[district]


def solve(suspect: str, evidence: str, location: str) -> int:
    return SOLVE_BASE + case_index(S[suspect], E[evidence] - 12, D[location])


class Table:
    """A ``from_layout`` game stepped through the engine and the reference in lockstep."""

    def __init__(self, players: int = 3, tile_district=LAYOUT_S, cases=None, **kwargs):
        config_keys = {"edition", "variants", "investigators", "max_rotations", "board", "mode",
                       "max_rounds"}
        self.config = GameConfig(num_players=players,
                                 **{k: v for k, v in kwargs.items() if k in config_keys})
        layout_kwargs = {k: v for k, v in kwargs.items() if k not in config_keys}
        self.cases = [list(c) for c in (cases if cases is not None else CASES_S[:players])]
        self.state = from_layout(self.config, tile_district, self.cases, **layout_kwargs)
        self.ref = ReferenceGame.from_state(self.config, self.state)

    @property
    def s(self):
        return self.state

    @property
    def player(self) -> int:
        return int(self.state.current_player[0])

    def act(self, action: int) -> tuple[int, int]:
        step_inplace(self.state, np.array([action]), self.config)
        answer = self.ref.step(action)
        assert_same(self.state, 0, self.ref, f"after action {action}")
        assert answer == tuple(int(v) for v in self.state.last_answer[0]) or answer is None
        return tuple(int(v) for v in self.state.last_answer[0])

    def display(self) -> list[int]:
        return [int(x) for x in np.nonzero(self.state.card_place[0] == ON_DISPLAY)[0]]

    def correct(self, p: int | None = None) -> int:
        p = self.player if p is None else p
        return SOLVE_BASE + case_index(*(int(v) for v in self.state.case[0, p]))

    def wrong(self, p: int | None = None) -> int:
        """A wrong triple for player p: its case with the suspect changed."""
        p = self.player if p is None else p
        s, e, l = (int(v) for v in self.state.case[0, p])
        return SOLVE_BASE + case_index((s + 1) % 12, e, l)

    def filler(self) -> tuple[int, int]:
        """A clue that changes no score: the lowest card on the display."""
        return self.act(self.display()[0])


# --------------------------------------------------------------------------- §4.1 clue cards

def test_clue_spot_trace_nothing():
    t = Table()
    # player 0 (Doc): Doc is its own suspect -> spot; the card is discarded, Bubbles drawn
    assert t.player == 0
    assert t.act(S["Doc"]) == (SPOT, -1)
    assert t.s.spot[0, 0, S["Doc"]] and not t.s.trace[0, 0].any()
    assert t.s.card_place[0, S["Doc"]] == IN_DISCARD
    assert t.s.card_place[0, S["Bubbles"]] == ON_DISPLAY and t.s.deck_size[0] == 26
    # player 1 (Murder): Murder -> spot
    assert t.act(E["Murder"]) == (SPOT, -1)
    assert t.s.card_place[0, S["Frenchy"]] == ON_DISPLAY
    # player 2 (location Downtown): Lakeside is not Downtown nor next to it -> nothing
    assert t.act(L["Lakeside"]) == (NOTHING, -1)
    assert t.s.front[0, 2, L["Lakeside"]] and t.s.card_place[0, L["Lakeside"]] == IN_FRONT
    assert not t.s.spot[0, 2].any() and not t.s.trace[0, 2].any()
    assert t.s.card_place[0, S["Maurice"]] == ON_DISPLAY and len(t.display()) == 9
    assert int(t.s.rotation[0]) == 1 and t.player == 0
    # player 0: Shorty's tile is in Lakeside, next to Doc's (Forest Park) -> trace
    assert t.act(S["Shorty"]) == (TRACE, -1)
    assert t.s.trace[0, 0, S["Shorty"]]
    # player 1 (Murder in Ocean Drive): Bank Job lies in Central Station, not adjacent -> nothing
    assert t.act(E["Bank Job"]) == (NOTHING, -1)
    # player 2 (Shorty in Lakeside): Rusty lies in Little Italy, adjacent -> trace
    assert t.act(S["Rusty"]) == (TRACE, -1)
    # nobody scored, nobody attempted
    assert not t.s.score.any() and not t.s.attempted.any() and int(t.s.turn[0]) == 6


@pytest.mark.parametrize("rng_state,back,left", [(1, "Queenie", "Doc"), (2, "Doc", "Queenie")])
def test_reshuffle_when_deck_empty(rng_state, back, left):
    """Deck empty, discard = {Queenie}; player 0 takes Doc (spot): the discard pile {Doc, Queenie}
    (ascending: Doc=1, Queenie=10) is shuffled into a new deck. Fisher–Yates on 2 cards draws
    ``below(2)``: xorshift64 from state 1 gives 1082269761 (odd: j = 1, no swap, top = Queenie);
    from state 2 it gives 2164539522 (even: j = 0, swap, top = Doc)."""
    others = [x for x in range(36) if x not in DEFAULT_DISPLAY and x != S["Queenie"]]
    t = Table(deck=[], discard=[S["Queenie"]], front={1: others}, rng_state=rng_state)
    assert t.act(S["Doc"]) == (SPOT, -1)
    assert int(t.s.rng[0]) == {1: 1082269761, 2: 2164539522}[rng_state]
    assert t.s.card_place[0, S[back]] == ON_DISPLAY
    assert t.s.card_place[0, S[left]] == IN_DECK and int(t.s.deck_size[0]) == 1
    assert int(t.s.deck[0, 0]) == S[left]
    assert len(t.display()) == 9 and not (t.s.card_place[0] == IN_DISCARD).any()


def test_display_stays_short_when_deck_and_discard_empty():
    others = [x for x in range(36) if x not in DEFAULT_DISPLAY]
    t = Table(deck=[], front={1: others})
    rng0 = int(t.s.rng[0])
    # player 0 (Doc in Forest Park): Rusty lies in Little Italy, not adjacent -> nothing
    assert t.act(S["Rusty"]) == (NOTHING, -1)
    assert len(t.display()) == 8 and int(t.s.deck_size[0]) == 0
    # player 1: Murder -> spot, the card is discarded and comes straight back (a 1-card reshuffle
    # draws nothing from the generator); the display stays at 8
    assert t.act(E["Murder"]) == (SPOT, -1)
    assert t.s.card_place[0, E["Murder"]] == ON_DISPLAY and len(t.display()) == 8
    assert int(t.s.rng[0]) == rng0
    # player 2 (Shorty): Shorty -> spot, also comes back
    assert t.act(S["Shorty"]) == (SPOT, -1)
    assert len(t.display()) == 8
    # player 0 takes Lakeside (Waterfront is not adjacent) -> nothing: 7 left
    assert t.act(L["Lakeside"]) == (NOTHING, -1)
    assert len(t.display()) == 7
    mask = legal_action_mask(t.s)[0]
    assert sorted(np.nonzero(mask[:36])[0].tolist()) == t.display()


def test_taking_a_card_again_gives_the_same_answer():
    """docs/rules.md §4.1: a card whose tile already carries the player's marker may be taken again."""
    others = [x for x in range(36) if x not in DEFAULT_DISPLAY]
    t = Table(deck=[], front={1: others})
    assert t.act(S["Shorty"]) == (TRACE, -1)  # player 0: Lakeside next to Forest Park
    t.act(inv("Skid Row"))
    t.act(inv("Skid Row"))
    assert S["Shorty"] in t.display()  # it came back from the 1-card reshuffle
    assert t.act(S["Shorty"]) == (TRACE, -1)
    assert t.s.trace[0, 0].sum() == 1


# --------------------------------------------------------------------------- §4.2 investigators

def test_investigator_counts():
    t = Table()
    # player 0 (Doc FP, Forgery US, Waterfront) in Union Square: Forgery there -> spot,
    # Waterfront adjacent -> trace, Doc far -> nothing
    assert t.act(inv("Union Square")) == (1, 1)
    # player 1 (Pinky US, Murder OD, Lakeside) in Downtown: Pinky adjacent -> 1 trace
    assert t.act(inv("Downtown")) == (0, 1)
    # player 2 (Shorty Lakeside, Smuggling WF, Downtown) in Waterfront: Smuggling there,
    # Downtown adjacent; the blank suspect tile there changes nothing
    assert t.act(inv("Waterfront")) == (1, 1)
    # player 0 in Downtown: Forgery (US) and Waterfront both adjacent -> 2 traces
    assert t.act(inv("Downtown")) == (0, 2)
    # player 1 in Lakeside: its location -> spot
    assert t.act(inv("Lakeside")) == (1, 0)
    # player 2 in Central Station: Downtown adjacent -> trace
    assert t.act(inv("Central Station")) == (0, 1)
    assert t.s.inv_left[0].tolist() == [3, 3, 3]
    assert t.s.inv_count[0].tolist() == [2, 2, 2]
    assert t.s.inv_district[0, 0, :2].tolist() == [D["Union Square"], D["Downtown"]]
    assert t.s.inv_answer[0, 0, :2].tolist() == [[1, 1], [0, 2]]
    assert t.s.inv_markers[0, 0, :2].tolist() == [[1, 1], [0, 2]]
    assert not t.s.inv_suppressed[0].any()
    assert not t.s.spot[0].any() and not t.s.trace[0].any()  # nothing goes on the tiles


def test_suppression_rule():
    display = [E["Forgery"], L["Union Square"], S["Pinky"], 0, 1, 2, 3, 4, 5]
    t = Table(display=display)
    # player 0: Forgery -> spot on the Forgery tile (in Union Square)
    assert t.act(E["Forgery"]) == (SPOT, -1)
    # player 1: Pinky -> spot on the Pinky tile (also in Union Square)
    assert t.act(S["Pinky"]) == (SPOT, -1)
    t.filler()
    # player 0 in Union Square: evidence skipped (its own spot is on that tile); player 1's spot on
    # Pinky does not suppress player 0's suspect type (Doc is not near anyway); Waterfront adjacent
    assert t.act(inv("Union Square")) == (0, 1)
    assert t.s.inv_suppressed[0, 0, 0].tolist() == [False, True, False]
    # player 1 in Union Square: its suspect type is skipped (spot on Pinky); without the rule it
    # would count 1 spot. Murder (Ocean Drive) and Lakeside are far -> (0, 0)
    assert t.act(inv("Union Square")) == (0, 0)
    assert t.s.inv_suppressed[0, 1, 0].tolist() == [True, False, False]
    t.filler()
    # markers placed after the investigator change nothing already answered
    assert t.act(L["Union Square"]) == (TRACE, -1)
    assert t.s.inv_answer[0, 0, 0].tolist() == [0, 1]


def test_suppression_by_a_trace_marker():
    display = [L["Union Square"], 0, 1, 2, 3, 4, 5, 6, 7]
    t = Table(display=display)
    assert t.act(L["Union Square"]) == (TRACE, -1)  # player 0: Waterfront next to Union Square
    t.filler()
    t.filler()
    # player 0 in Union Square: location skipped (trace on that tile); Forgery there -> spot
    assert t.act(inv("Union Square")) == (1, 0)
    assert t.s.inv_suppressed[0, 0, 0].tolist() == [False, False, True]


def test_marker_moves_from_investigator_to_tile():
    """Player 0's investigator in Downtown answers 2 traces (Forgery in Union Square and the
    Waterfront location are both adjacent). Taking Kidnapping (its tile is in Downtown) answers
    trace: the trace marker moves from the investigator to the tile (2 -> 1). Taking Kidnapping again
    (it returns from the discard pile at once: deck and discard are otherwise empty) puts no new
    marker on the tile, so nothing moves (still 1). Taking the Downtown card moves the last one
    (0). A spot elsewhere (Forgery, Union Square: no investigator there) moves nothing."""
    display = [E["Kidnapping"], L["Downtown"], E["Forgery"], 2, 3, 4, 5, 6, 7]
    others = [x for x in range(36) if x not in display]
    t = Table(display=display, deck=[], front={1: others})
    assert t.act(inv("Downtown")) == (0, 2)
    t.act(inv("Lakeside")), t.act(inv("Lakeside"))
    assert t.act(E["Kidnapping"]) == (TRACE, -1)
    assert t.s.inv_markers[0, 0, 0].tolist() == [0, 1]
    assert t.s.trace[0, 0, E["Kidnapping"]] and E["Kidnapping"] in t.display()
    t.act(inv("Forest Park")), t.act(inv("Forest Park"))
    assert t.act(E["Kidnapping"]) == (TRACE, -1)
    assert t.s.inv_markers[0, 0, 0].tolist() == [0, 1]
    t.act(inv("Trocadero")), t.act(inv("Trocadero"))
    assert t.act(L["Downtown"]) == (TRACE, -1)
    assert t.s.inv_markers[0, 0, 0].tolist() == [0, 0]
    assert t.s.inv_answer[0, 0, 0].tolist() == [0, 2]  # the answer itself is kept
    t.act(inv("Skid Row")), t.act(inv("Skid Row"))
    assert t.act(E["Forgery"]) == (SPOT, -1)
    assert t.s.inv_markers[0, 0, 0].tolist() == [0, 0]


def test_no_second_investigator_in_a_district():
    t = Table()
    t.act(inv("Union Square"))
    # another player may still go there
    assert legal_action_mask(t.s)[0, inv("Union Square")] == 1
    t.act(inv("Union Square"))
    t.filler()
    assert t.player == 0
    mask = legal_action_mask(t.s)[0]
    assert mask[inv("Union Square")] == 0 and mask[inv("Downtown")] == 1
    with pytest.raises(IllegalActionError, match=r"game 0: action 45 \(investigate Union Square\)"):
        step_inplace(t.s, np.array([inv("Union Square")]), t.config)


def test_out_of_investigators():
    t = Table(investigators=(1, 5, 0))
    t.act(inv("Union Square"))
    t.filler()
    assert not legal_action_mask(t.s)[0, 36:50].any()  # player 2 starts with none
    with pytest.raises(IllegalActionError, match="game 0"):
        step_inplace(t.s, np.array([inv("Lakeside")]), t.config)
    t.filler()
    assert t.player == 0 and int(t.s.inv_left[0, 0]) == 0
    assert not legal_action_mask(t.s)[0, 36:50].any()
    with pytest.raises(IllegalActionError, match="game 0"):
        step_inplace(t.s, np.array([inv("Downtown")]), t.config)


# --------------------------------------------------------------------------- §4.3 solving, §5 scores

def test_wrong_solve_costs_two_and_floor_minus_five():
    t = Table()
    expected = [(-2, -2), (-4, -2), (-5, -1), (-5, 0)]
    for score, reward in expected:
        assert t.player == 0
        assert t.act(solve("Pinky", "Murder", "Lakeside")) == (0, -1)  # player 1's case
        assert int(t.s.score[0, 0]) == score and int(t.s.rewards[0, 0]) == reward
        t.filler(), t.filler()
    assert t.s.attempted[0].tolist() == [True, False, False] and not t.s.solved[0].any()
    assert int(t.s.penalty[0, 0]) == 8 and int(t.s.solved_case[0, 0]) == -1
    assert t.s.failed[0, 0].nonzero()[0].tolist() == [case_index(S["Pinky"], 0, 0)]


@pytest.mark.parametrize("round_index", [0, 1, 2])
def test_correct_solve_points_by_tier_and_round(round_index):
    """5 players, second edition: one solve in each of rotations 1..4 -> tiers 0..3 ->
    [7, 5, 3, 1] + (r - 1); then only player 4 has not attempted and the round ends."""
    t = Table(players=5, round_index=round_index)
    r = round_index
    for k in range(4):
        for p in range(5):
            if t.s.solved[0, p]:
                continue
            assert t.player == p
            if p == k:
                assert t.act(t.correct()) == (1, -1)
                assert int(t.s.rewards[0, p]) == [7, 5, 3, 1][k] + r
                assert int(t.s.solved_case[0, p]) == case_index(*CASES_S[p])
            else:
                t.filler()
        if k < 3:
            assert int(t.s.tier[0]) == k + 1 and int(t.s.rotation[0]) == k + 1
    assert int(t.s.round[0]) == r + 1
    assert [int(v) for v in t.s.score[0]] == [7 + r, 5 + r, 3 + r, 1 + r, 0]
    assert [int(v) for v in t.s.solve_points[0]] == [7 + r, 5 + r, 3 + r, 1 + r, 0]
    assert bool(t.s.done[0]) == (r == 2)


def test_shared_tier_in_the_same_rotation():
    t = Table(players=4)
    assert t.act(t.correct()) == (1, -1)  # player 0, tier 0: 7
    assert t.act(t.correct()) == (1, -1)  # player 1, same rotation: 7
    t.filler(), t.filler()
    assert int(t.s.tier[0]) == 1 and t.player == 2  # solved players 0 and 1 are skipped
    assert t.act(t.correct()) == (1, -1)  # player 2, tier 1: 5
    assert t.player == 3
    t.filler()  # end of rotation 2: only player 3 has not attempted -> round over
    assert [int(v) for v in t.s.score[0]] == [7, 7, 5, 0]
    assert int(t.s.round[0]) == 1 and int(t.s.first_player[0]) == 1


def test_score_cap_21():
    t = Table(round_index=2, score=[19, 0, 0])
    assert t.act(t.correct()) == (1, -1)  # 7 + 2 = 9 -> 28, capped at 21
    assert int(t.s.score[0, 0]) == 21 and int(t.s.rewards[0, 0]) == 2


def test_score_floor_from_carried_score():
    t = Table(score=[-4, 0, 0])
    t.act(t.wrong())
    assert int(t.s.score[0, 0]) == -5 and int(t.s.rewards[0, 0]) == -1


@pytest.mark.parametrize("first_player", [0, 2])
def test_solved_player_skipped_but_rotation_still_ends(first_player):
    """The last seat solves in rotation 1; in rotation 2 it is skipped and the rotation still ends
    when the seat before it has played."""
    t = Table(players=4, edition="first", first_player=first_player)
    seats = [(first_player + j) % 4 for j in range(4)]
    for p in seats[:3]:
        assert t.player == p
        t.filler()
    assert t.player == seats[3]
    assert t.act(t.correct()) == (1, -1)
    assert int(t.s.rotation[0]) == 1 and int(t.s.tier[0]) == 1 and t.player == seats[0]
    for p in seats[:3]:
        assert t.player == p
        t.filler()
    assert int(t.s.rotation[0]) == 2 and t.player == seats[0] and int(t.s.turn[0]) == 7
    assert int(t.s.tier[0]) == 1  # no solve in rotation 2


def test_round_end_second_edition_at_most_one_not_attempted():
    t = Table(first_player=2)
    t.act(t.wrong())  # player 2
    t.act(t.wrong())  # player 0
    assert int(t.s.round[0]) == 0
    t.filler()  # player 1, last seat: only player 1 has not attempted -> round ends
    assert int(t.s.round[0]) == 1 and int(t.s.rotation[0]) == 0
    assert int(t.s.first_player[0]) == 0 and t.player == 0  # passed left, wrapping 2 -> 0
    assert [int(v) for v in t.s.score[0]] == [-2, 0, -2]
    assert not t.s.attempted[0].any() and not t.s.truncated[0]
    assert not t.s.spot[0].any() and not t.s.front[0].any() and not t.s.inv_count[0].any()


def test_round_does_not_end_first_edition_on_wrong_attempts():
    t = Table(edition="first")
    t.act(t.wrong()), t.act(t.wrong()), t.filler()
    assert int(t.s.round[0]) == 0 and int(t.s.rotation[0]) == 1 and t.player == 0


def test_round_end_first_edition_at_most_one_unsolved():
    t = Table(edition="first")
    t.act(t.correct())  # player 0: 7
    t.act(t.wrong())  # player 1: -2
    t.filler()
    assert int(t.s.round[0]) == 0  # players 1 and 2 unsolved
    t.act(t.correct())  # player 1, tier 1: 5 -> 5 - 2 = 3
    t.filler()  # end of rotation 2: only player 2 unsolved
    assert int(t.s.round[0]) == 1
    assert [int(v) for v in t.s.score[0]] == [7, 3, 0]
    assert [int(v) for v in t.s.solve_points[0]] == [7, 5, 0]
    assert [int(v) for v in t.s.penalty[0]] == [0, 2, 0]


def test_first_edition_penalty_apart_no_floor_no_cap():
    t = Table(edition="first")
    for score in (-2, -4, -6):
        t.act(t.wrong())
        assert int(t.s.score[0, 0]) == score
        t.filler(), t.filler()
    t.act(t.correct())  # tier 0, no round bonus in the first edition
    assert int(t.s.score[0, 0]) == 1 and int(t.s.solve_points[0, 0]) == 7
    assert int(t.s.penalty[0, 0]) == 6
    t2 = Table(edition="first", round_index=2, solve_points=[20, 0, 0], score=[20, 0, 0])
    t2.act(t2.correct())
    assert int(t2.s.score[0, 0]) == 27


@pytest.mark.parametrize("variants,rounds", [(("fast",), 2), ((), 3)])
def test_number_of_rounds(variants, rounds):
    t = Table(players=2, variants=variants)
    for r in range(rounds):
        assert int(t.s.round[0]) == r and not t.s.done[0]
        assert int(t.s.first_player[0]) == r % 2
        t.act(t.wrong()), t.act(t.wrong())  # both attempted: the round ends
    assert t.s.done[0] and int(t.s.round[0]) == rounds
    assert [int(v) for v in t.s.score[0]] == [max(-5, -2 * rounds)] * 2  # floor -5


def test_safeguard_truncation():
    t = Table(max_rotations=2)
    for _ in range(5):
        t.filler()
    assert int(t.s.round[0]) == 0 and int(t.s.rotation[0]) == 1
    t.filler()
    assert int(t.s.round[0]) == 1 and t.s.truncated[0] and int(t.s.rotation[0]) == 0


def test_natural_end_at_the_limit_is_not_truncation():
    t = Table(max_rotations=1)
    t.act(t.wrong()), t.act(t.wrong()), t.filler()
    assert int(t.s.round[0]) == 1 and not t.s.truncated[0]


def _finish(t: Table):
    """Play the last round out with clues (max_rotations=1: the safeguard ends it)."""
    while not t.s.done[0]:
        t.filler()
    return outcome(t.s, t.config)


@pytest.mark.parametrize("edition,score,inv_left,penalty,ranks,winners", [
    ("second", [10, 10, 9], [2, 3, 5], None, (2, 1, 3), (1,)),
    ("second", [10, 10, 9], [3, 3, 5], None, (1, 1, 3), (0, 1)),
    ("second", [12, 12, 12], [3, 3, 3], [2, 0, 0], (1, 1, 1), (0, 1, 2)),  # no penalty tiebreak
    ("first", [12, 12, 12], [3, 3, 3], [2, 0, 0], (3, 1, 1), (1, 2)),
    ("first", [12, 12, 11], [4, 3, 5], [4, 0, 0], (1, 2, 3), (0,)),  # tiles before penalty
])
def test_tiebreaks(edition, score, inv_left, penalty, ranks, winners):
    pen = penalty or [0, 0, 0]
    t = Table(edition=edition, max_rotations=1, round_index=2, score=score, inv_left=inv_left,
              penalty=pen, solve_points=[s + p for s, p in zip(score, pen)])
    with pytest.raises(PIError, match="not finished"):
        outcome(t.s, t.config)
    out = _finish(t)
    assert out.scores == tuple(score) and out.ranks == ranks and out.winners == winners
    assert out.truncated


def test_illegal_and_invalid_actions_name_the_game():
    config = GameConfig(num_players=3)
    state = init(config, 3, seed=7)
    hidden = int(np.nonzero(state.card_place[2] != ON_DISPLAY)[0][0])
    actions = np.array([SOLVE_BASE, SOLVE_BASE, hidden])
    with pytest.raises(IllegalActionError, match=rf"game 2: action {hidden} "):
        step_inplace(state, actions, config)
    with pytest.raises(InvalidActionError, match=r"game 1: action 1730 is outside 0\.\.1729"):
        step_inplace(state, np.array([SOLVE_BASE, 1730, SOLVE_BASE]), config)
    with pytest.raises(InvalidActionError, match="game 0: action -1"):
        step_inplace(state, np.array([-1, SOLVE_BASE, SOLVE_BASE]), config)
    with pytest.raises(InvalidActionError, match="shape"):
        step_inplace(state, np.array([SOLVE_BASE]), config)
    with pytest.raises(InvalidActionError, match="integer"):
        step_inplace(state, np.array([50.0, 50.0, 50.0]), config)
    assert int(state.turn.sum()) == 0  # nothing was applied


# --------------------------------------------------------------------------- the seeds' examples

def _clue_answer(tile_district, case, x: int) -> int:
    """Hand rule of §4.1 for the filler below (not the code under test)."""
    t = 0 if x < 12 else (1 if x < 22 else 2)
    y = (0, 12, 22)[t] + case[t]
    if x == y:
        return SPOT
    return TRACE if DAYTIME.adjacency[tile_district[x], tile_district[y]] else NOTHING


def test_czech_example_first_edition():
    """Seed 002: A solves on turn 15, B and C on 16, D on 20, E never -> 7, 5, 5, 3, 0.

    Five players A..E = 0..4, first edition, A first. Turns that are not solves are clues chosen to
    keep cards in circulation (a card answering spot or trace returns to the deck), or an
    investigator when no such card is shown."""
    t = Table(players=5, edition="first")
    solves = {0: 15, 1: 16, 2: 16, 3: 20}
    for rotation in range(1, 21):
        assert int(t.s.rotation[0]) == rotation - 1 and int(t.s.round[0]) == 0
        for p in range(5):
            if t.s.solved[0, p]:
                continue
            assert t.player == p
            if solves.get(p) == rotation:
                assert t.act(t.correct()) == (1, -1)
                continue
            useful = [x for x in t.display() if _clue_answer(LAYOUT_S, CASES_S[p], x) != NOTHING]
            if useful:
                t.act(useful[0])
            elif t.s.inv_left[0, p] > 0:
                used = set(t.s.inv_district[0, p, :t.s.inv_count[0, p]].tolist())
                t.act(36 + next(d for d in range(14) if d not in used))
            else:
                t.act(t.display()[0])
        if rotation == 15:
            assert int(t.s.tier[0]) == 1
        if rotation == 16:
            assert int(t.s.tier[0]) == 2
    assert int(t.s.round[0]) == 1 and not t.s.truncated[0]
    assert [int(v) for v in t.s.score[0]] == [7, 5, 5, 3, 0]
    assert not t.s.penalty[0].any()
    assert int(t.s.turn[0]) == 15 * 5 + 4 + 3 * 2 + 2


# Layout J, consistent with seed 004 (Japanese BGA guide): Pinky's tile in Lakeside with Shorty,
# Bubbles and Pop on its three neighbours (Forest Park, Trocadero, Little Italy); Dutch in
# Waterfront; Bank Job in Main Street.
J_SUSPECTS = {"Pinky": "Lakeside", "Shorty": "Forest Park", "Pop": "Little Italy",
              "Bubbles": "Trocadero", "Doc": "Ocean Drive", "Rusty": "China Town",
              "Frenchy": "Central Station", "Maurice": "Main Street", "Knuckles": "Road House",
              "Queenie": "Downtown", "Earl": "Rick's Café", "Dutch": "Waterfront"}
J_EVIDENCE = {"Smuggling": "Lakeside", "Blackmail": "Trocadero", "Murder": "Ocean Drive",
              "Mob Killing": "China Town", "Bank Job": "Main Street",
              "Police Corruption": "Road House", "Forgery": "Union Square",
              "Kidnapping": "Downtown", "Jewellery Heist": "Rick's Café",
              "Protection Racket": "Skid Row"}
LAYOUT_J = ([D[J_SUSPECTS[n]] for n in SUSPECT_NAMES] + [D[J_EVIDENCE[n]] for n in EVIDENCE_NAMES]
            + list(range(14)))
# red (Dutch, Murder, Downtown), blue (Bubbles, Blackmail, Road House), green (Earl, Bank Job,
# Lakeside)
CASES_J = [(S["Dutch"], E["Murder"] - 12, D["Downtown"]),
           (S["Bubbles"], E["Blackmail"] - 12, D["Road House"]),
           (S["Earl"], E["Bank Job"] - 12, D["Lakeside"])]


def test_japanese_examples_on_a_consistent_layout():
    """Seed 004: red takes Lakeside -> nothing (card kept in front of red); blue takes Pinky ->
    trace (a cube on Pinky's tile); green takes Bank Job -> spot (a disc); red's investigator in
    Waterfront gets one disc and one cube (Dutch is there, Downtown next to it); blue's in Union
    Square gets nothing."""
    display = [L["Lakeside"], S["Pinky"], E["Bank Job"], 0, 1, 2, 12, 13, 23]
    t = Table(tile_district=LAYOUT_J, cases=CASES_J, display=display)
    assert t.act(L["Lakeside"]) == (NOTHING, -1)
    assert t.s.front[0, 0, L["Lakeside"]]
    assert t.act(S["Pinky"]) == (TRACE, -1)
    assert t.s.trace[0, 1, S["Pinky"]] and t.s.card_place[0, S["Pinky"]] == IN_DISCARD
    assert t.act(E["Bank Job"]) == (SPOT, -1)
    assert t.s.spot[0, 2, E["Bank Job"]]
    assert t.act(inv("Waterfront")) == (1, 1)
    assert t.act(inv("Union Square")) == (0, 0)


def _answer_for_case(case, action: int) -> tuple[int, int]:
    """The answer player 0 gets for ``action`` on layout J with ``case`` (2-player game)."""
    other = [(s, e, l) for s in range(12) for e in range(10) for l in range(14)
             if s != case[0] and e != case[1] and l != case[2]][0]
    display = sorted({action, *range(8)}) if action < 36 else None
    t = Table(players=2, tile_district=LAYOUT_J, cases=[case, other],
              **({"display": display[:9]} if display else {}))
    return t.act(action)


def test_japanese_trace_on_pinky_means_shorty_bubbles_or_pop():
    for s, name in enumerate(SUSPECT_NAMES):
        answer = _answer_for_case((s, 0, 13), S["Pinky"])[0]
        if name == "Pinky":
            assert answer == SPOT
        elif name in ("Shorty", "Bubbles", "Pop"):
            assert answer == TRACE, name
        else:
            assert answer == NOTHING, name


def test_japanese_nothing_on_lakeside_rules_out_four_locations():
    for l, name in enumerate(DAYTIME.districts):
        answer = _answer_for_case((0, 0, l), L["Lakeside"])[0]
        expected = (SPOT if name == "Lakeside" else
                    TRACE if name in ("Forest Park", "Little Italy", "Trocadero") else NOTHING)
        assert answer == expected, name


# --------------------------------------------------------------------------- from_layout itself

def test_from_layout_fields():
    config = GameConfig(num_players=3)
    s = from_layout(config, LAYOUT_S, CASES_S[:3], first_player=1, rng_state=99)
    assert s.batch_size == 1 and int(s.current_player[0]) == 1 and int(s.first_player[0]) == 1
    assert int(s.rng[0]) == 99 and int(s.deck_size[0]) == 27
    assert int(s.deck[0, 26]) == S["Bubbles"]  # top of the deck
    assert int(s.district_tile[0, D["Waterfront"], 0]) == -1
    assert int(s.district_tile[0, D["Waterfront"], 1]) == E["Smuggling"]
    assert int(s.district_tile[0, D["Waterfront"], 2]) == L["Waterfront"]
    assert s.inv_left[0].tolist() == [5, 5, 5] and (s.inv_district == -1).all()
    assert sorted(np.nonzero(s.card_place[0] == ON_DISPLAY)[0].tolist()) == list(DEFAULT_DISPLAY)
    rest = [x for x in range(36) if x not in DEFAULT_DISPLAY]
    assert from_layout(config, LAYOUT_S, CASES_S[:3], deck=rest).equals(
        from_layout(config, LAYOUT_S, CASES_S[:3]))
    reversed_deck = from_layout(config, LAYOUT_S, CASES_S[:3], deck=rest[::-1])
    assert int(reversed_deck.deck[0, 26]) == 35  # deck[0] given is the top card


@pytest.mark.parametrize("kwargs,fragment", [
    (dict(tile_district=LAYOUT_S[:35]), "tile_district must be 36 integers"),
    (dict(tile_district=LAYOUT_S[:1] + [0] + LAYOUT_S[2:]),
     "district 0 would hold two suspect tiles (Shorty and Doc)"),
    (dict(tile_district=LAYOUT_S[:13] + [4] + LAYOUT_S[14:]),
     "district 4 would hold two evidence tiles (Murder and Mob Killing)"),
    (dict(tile_district=LAYOUT_S[:22] + [1] + LAYOUT_S[23:]), "printed in its own district"),
    (dict(tile_district=LAYOUT_S[:5] + [14] + LAYOUT_S[6:]), "is not a district"),
    (dict(cases=[(1, 5, 12), (1, 0, 0), (0, 8, 10)]), "players 0 and 1 share the suspect 1"),
    (dict(cases=[(1, 5, 12), (9, 0, 12), (0, 8, 10)]), "share the location 12"),
    (dict(cases=[(1, 10, 12), (9, 0, 0), (0, 8, 10)]), "evidence of a case must be 0..9"),
    (dict(cases=[(1, 5, 12), (9, 0, 0)]), "cases must be int[3, 3]"),
    (dict(display=[0, 1, 2, 3, 4, 5, 6, 7, 7]), "display holds the card 7 (Dutch) twice"),
    (dict(display=list(range(10))), "display holds 10 cards"),
    (dict(display=[0, 1, 2]), "is short only when"),
    (dict(deck=[3, 4]), "deck must hold exactly"),
    (dict(deck=[0] + [x for x in range(36) if x not in DEFAULT_DISPLAY]), "extra [0]"),
    (dict(front={1: [0]}), "both in display and in front of player 1"),
    (dict(front={3: [30]}), "front names player 3"),
    (dict(discard=[0]), "both in display and in the discard pile"),
    (dict(first_player=3), "first_player must be 0..2"),
    (dict(rng_state=0), "rng_state must be a non-zero"),
    (dict(round_index=3), "round_index must be 0..2"),
])
def test_from_layout_validation(kwargs, fragment):
    args = dict(tile_district=LAYOUT_S, cases=CASES_S[:3])
    args.update(kwargs)
    with pytest.raises(PIError, match=re_escape(fragment)):
        from_layout(GameConfig(num_players=3), **args)


def re_escape(s: str) -> str:
    import re
    return re.escape(s)


def test_legal_action_mask_rejects_a_bad_out_buffer():
    """A wrong second argument (e.g. the config) is a clear PIError, not a numba typing error."""
    import pytest as _pytest

    from pi_env.engine import GameConfig, init, legal_action_mask
    from pi_env.core.errors import PIError

    config = GameConfig(num_players=3)
    state = init(config, 2, seed=0)
    with _pytest.raises(PIError, match=r"out must be an int8 array of shape \(2, 1730\), got GameConfig"):
        legal_action_mask(state, config)
    assert legal_action_mask(state).sum(axis=1).tolist() == [9 + 14 + 1680] * 2
