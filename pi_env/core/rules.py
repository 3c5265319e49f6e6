"""The rules of P.I. that decide answers and points, each in one small function (docs/rules.md §4–§7).

This module is the one home of these rules: the engine's numba kernels, the record scorer
(:mod:`pi_env.records.scoring`), the record checks (:mod:`pi_env.records.record_file`), the
solver's turn values and hints (:mod:`pi_env.solvers.turns`) and the agents all call the functions
below, so a rule is changed here and nowhere else. (The plain-Python twin of the engine,
:mod:`pi_env.engine.reference`, spells the rules out again on purpose: the parity tests compare it
with the engine.)

* points (§5): :data:`TIER_POINTS`, :func:`last_tier`, :func:`tier_points`; the second edition's
  bounds :data:`SCORE_CAP` and :data:`SCORE_FLOOR` (:func:`bounded_score`,
  :func:`bounded_scores`, :func:`score_range`); the score after a solve, :func:`score_after`, with
  the first edition's :func:`first_edition_score` and the penalty points
  :data:`WRONG_SOLVE_PENALTY` (§4.3); what a correct solve gains and a wrong one loses, for
  valuing a decision: :func:`solve_gain`, :func:`wrong_solve_loss` (over arrays:
  :func:`solve_gains`, :func:`wrong_solve_losses`);
* the end of a rotation (§5, §6): the next tier, :func:`tier_after_rotation` (over arrays:
  :func:`tiers_after_rotation`); the end of a standard round, :func:`finished_for_round_end`,
  :func:`round_ends_after_rotation`, :func:`nick_of_time_ends_round`;
* the duel's investigator tiles (§7): :data:`DUEL_START_INVESTIGATORS`,
  :func:`duel_investigators_after_round`;
* legality (§4.1, §4.2): :func:`clue_card_takeable`, :func:`investigator_placeable`;
* answers (§4.1–§4.3): :func:`clue_answer`, :func:`investigator_suppressed`,
  :func:`investigate_answer`, :func:`is_case`, with :func:`element_type` and :func:`case_element`.

Every function except :func:`edition_code` is a numba function compiled by
:func:`pi_env.core._config.rule_step` (no reference counting; the points and round-end rules also
inlined into their callers at numba's level, ``inline=True``): a kernel calls it as any function,
and plain Python calls the same compiled function (numba's dispatcher, about 0.2 µs a call; it
returns Python ``int`` and ``bool``). Arguments are scalars (``int``, numpy integers) unless said
otherwise; editions are the codes of :mod:`pi_env.core.constants` (``SECOND_EDITION`` = 0,
``FIRST_EDITION`` = 1; :func:`edition_code` turns ``"second"`` / ``"first"`` into them).
:func:`bounded_scores`, :func:`solve_gains`, :func:`wrong_solve_losses` and
:func:`tiers_after_rotation` apply a rule to every entry of an array (numba kernels that call the
rule), for the agents' vectorized simulations. With ``NUMBA_DISABLE_JIT=1`` every function is the
plain Python function.

The compiled kernel cache is keyed by the files of ``pi_env/core`` among others
(:mod:`pi_env.core._config`), so a change here recompiles every kernel that uses it.
"""

from __future__ import annotations

import numpy as np

from pi_env.core._config import kernel, rule_step
from pi_env.core.constants import (EDITION_NAMES, MAX_INVESTIGATORS, NOTHING, ON_DISPLAY, SECOND_EDITION, SPOT, TRACE,
                                   TYPE_OFFSETS)

__all__ = ["TIER_POINTS", "WRONG_SOLVE_PENALTY", "SCORE_CAP", "SCORE_FLOOR", "edition_code", "last_tier",
           "tier_points", "bounded_score", "bounded_scores", "score_range", "first_edition_score", "score_after",
           "solve_gain", "wrong_solve_loss", "solve_gains", "wrong_solve_losses",
           "finished_for_round_end", "round_ends_after_rotation", "nick_of_time_ends_round", "tier_after_rotation",
           "tiers_after_rotation", "DUEL_START_INVESTIGATORS", "DUEL_NEW_INVESTIGATORS",
           "duel_investigators_after_round", "element_type",
           "case_element", "clue_answer", "investigator_suppressed", "investigate_answer", "is_case",
           "clue_card_takeable", "investigator_placeable"]

# --- points (docs/rules.md §5) ------------------------------------------------------------------

TIER_POINTS: tuple[int, ...] = (7, 5, 3, 1)
"""Points of a correct solve at tier ``k`` = ``TIER_POINTS[k]`` (second edition: plus the round
bonus, :func:`tier_points`); docs/rules.md §5."""
WRONG_SOLVE_PENALTY: int = 2
"""Points a wrong solve costs (docs/rules.md §4.3): the penalty points the engine and the records
count in both editions (the first edition's score is solve points minus penalty points, its
tiebreak reads them; §5); the second edition's loss is bounded by :data:`SCORE_FLOOR`."""
SCORE_CAP: int = 21
"""Second edition: a score never rises above this (docs/rules.md §5)."""
SCORE_FLOOR: int = -5
"""Second edition: a score never falls below this (docs/rules.md §5)."""


def edition_code(edition: str) -> int:
    """The code of an edition's name (docs/rules.md §5): ``"second"`` 0, ``"first"`` 1
    (``pi_env.core.constants.EDITION_NAMES``), as the functions of this module take it.

    Raises:
        ValueError: an unknown edition name.
    """
    try:
        return EDITION_NAMES.index(edition)
    except ValueError:
        raise ValueError(f"unknown edition {edition!r} (known: {', '.join(EDITION_NAMES)})") from None


@rule_step(inline=True)
def last_tier(num_players):
    """The last tier that exists with ``num_players`` players (docs/rules.md §5: tier ``k`` needs at
    least ``k + 2`` players; §6: nick of time stops there): ``min(len(TIER_POINTS) - 1,
    num_players - 2)``, 3 with five players.

    Args:
        num_players: 2..5.

    Returns:
        int: 0..3.
    """
    return min(len(TIER_POINTS) - 1, num_players - 2)


@rule_step(inline=True)
def tier_points(tier, round_index, num_players, edition):
    """Points of a correct solve at ``tier`` in round ``round_index`` (docs/rules.md §5).

    ``TIER_POINTS[tier]``, plus ``round_index`` (0-based: the round bonus ``r − 1``) in the second
    edition; 0 for a tier that does not exist with ``num_players`` players (beyond
    :func:`last_tier`; §5: it cannot be reached).

    Args:
        tier: the tier, 0-based.
        round_index: the round, 0-based.
        num_players: 2..5.
        edition: ``SECOND_EDITION`` (0) or ``FIRST_EDITION`` (1).

    Returns:
        int: the points (before :func:`solve_gain`'s cap).
    """
    if tier < 0 or tier > last_tier(num_players):
        return 0
    points = TIER_POINTS[tier]
    if edition == SECOND_EDITION:
        points += round_index
    return points


@rule_step(inline=True)
def bounded_score(score, edition):
    """A score brought within the edition's bounds (docs/rules.md §5): second edition never above
    :data:`SCORE_CAP` (21) nor below :data:`SCORE_FLOOR` (−5); first edition unbounded (the score
    is solve points minus penalty points).

    Args:
        score: the score a change would give.
        edition: ``SECOND_EDITION`` (0) or ``FIRST_EDITION`` (1).

    Returns:
        int: the score the rules allow.
    """
    if edition == SECOND_EDITION:
        return min(max(score, SCORE_FLOOR), SCORE_CAP)
    return score


@kernel
def bounded_scores(scores, edition):
    """:func:`bounded_score` of every entry of an integer array (docs/rules.md §5).

    Args:
        scores: ``int[...]``, any shape.
        edition: ``SECOND_EDITION`` (0) or ``FIRST_EDITION`` (1).

    Returns:
        ``int64[...]``, the shape of ``scores`` (a new array).
    """
    flat = scores.ravel()
    out = np.empty(flat.size, dtype=np.int64)
    for i in range(flat.size):
        out[i] = bounded_score(flat[i], edition)
    return out.reshape(scores.shape)


@rule_step(inline=True)
def score_range(edition, num_rounds, max_rotations):
    """The lowest and highest score a player can have in a standard game (docs/rules.md §5):
    second edition ``(SCORE_FLOOR, SCORE_CAP)``; first edition from a wrong solve in every rotation
    of every round (``−WRONG_SOLVE_PENALTY · max_rotations · num_rounds``) to tier 0 in every round
    (``TIER_POINTS[0] · num_rounds``).

    Args:
        edition: ``SECOND_EDITION`` (0) or ``FIRST_EDITION`` (1).
        num_rounds: the rounds of the game.
        max_rotations: the safeguard's rotations per round (§5).

    Returns:
        ``(low, high)`` ints.
    """
    if edition == SECOND_EDITION:
        return SCORE_FLOOR, SCORE_CAP
    return -WRONG_SOLVE_PENALTY * max_rotations * num_rounds, TIER_POINTS[0] * num_rounds


@rule_step(inline=True)
def first_edition_score(solve_points, penalty):
    """The first edition's score (docs/rules.md §5): solve points minus penalty points (2 per wrong
    solve, :data:`WRONG_SOLVE_PENALTY`), no floor and no cap.

    Args:
        solve_points: the points of the player's correct solves.
        penalty: its penalty points.

    Returns:
        int.
    """
    return solve_points - penalty


@rule_step(inline=True)
def score_after(score, change, solve_points, penalty, edition):
    """A player's score after a solve (docs/rules.md §4.3, §5), its solve points and penalty points
    already updated: second edition ``score + change`` within the bounds (:func:`bounded_score`);
    first edition :func:`first_edition_score` of ``solve_points`` and ``penalty`` (``change``
    unused). A correct solve changes by its :func:`tier_points`, a wrong one by
    ``−WRONG_SOLVE_PENALTY`` (the penalty points grow by as much in either edition).

    Args:
        score: the score before.
        change: the points won (``> 0``) or lost (``< 0``).
        solve_points, penalty: the player's solve and penalty points after the solve.
        edition: ``SECOND_EDITION`` (0) or ``FIRST_EDITION`` (1).

    Returns:
        int: the new score.
    """
    if edition == SECOND_EDITION:
        return bounded_score(score + change, edition)
    return first_edition_score(solve_points, penalty)


@rule_step(inline=True)
def solve_gain(score, points, edition):
    """The score change of a correct solve worth ``points`` (:func:`tier_points`) for a player at
    ``score`` (docs/rules.md §5): ``points`` in the first edition; in the second at most up to
    :data:`SCORE_CAP` (``bounded_score(score + points) − score``).

    Args:
        score: the player's score before the solve (within the edition's bounds).
        points: the solve's points, ``>= 0``.
        edition: ``SECOND_EDITION`` (0) or ``FIRST_EDITION`` (1).

    Returns:
        int: ``>= 0``.
    """
    return bounded_score(score + points, edition) - score


@rule_step(inline=True)
def wrong_solve_loss(score, edition):
    """How much a wrong solve lowers the score of a player at ``score`` (docs/rules.md §4.3, §5):
    :data:`WRONG_SOLVE_PENALTY` (2) in the first edition; in the second at most down to
    :data:`SCORE_FLOOR` (``score − bounded_score(score − 2)``). The penalty points counted for the
    first edition's score and tiebreak are :data:`WRONG_SOLVE_PENALTY` in either edition.

    Args:
        score: the player's score before the solve (within the edition's bounds).
        edition: ``SECOND_EDITION`` (0) or ``FIRST_EDITION`` (1).

    Returns:
        int: 0..2.
    """
    return score - bounded_score(score - WRONG_SOLVE_PENALTY, edition)


@kernel
def solve_gains(scores, points, edition):
    """:func:`solve_gain` of every entry: ``scores[i]`` with ``points[i]`` (docs/rules.md §5).

    Args:
        scores: ``int[N]``.
        points: ``int[N]``.
        edition: ``SECOND_EDITION`` (0) or ``FIRST_EDITION`` (1).

    Returns:
        ``int64[N]`` (a new array).
    """
    out = np.empty(scores.size, dtype=np.int64)
    for i in range(scores.size):
        out[i] = solve_gain(scores[i], points[i], edition)
    return out


@kernel
def wrong_solve_losses(scores, edition):
    """:func:`wrong_solve_loss` of every entry of ``scores`` (docs/rules.md §4.3, §5).

    Args:
        scores: ``int[N]``.
        edition: ``SECOND_EDITION`` (0) or ``FIRST_EDITION`` (1).

    Returns:
        ``int64[N]`` (a new array).
    """
    out = np.empty(scores.size, dtype=np.int64)
    for i in range(scores.size):
        out[i] = wrong_solve_loss(scores[i], edition)
    return out


# --- the end of a standard round (docs/rules.md §5, §6) ------------------------------------------


@rule_step(inline=True)
def finished_for_round_end(attempted, solved, edition):
    """Whether a player no longer keeps a standard round going (docs/rules.md §5): second edition,
    it has attempted a solve this round; first edition, it has solved this round.

    Args:
        attempted, solved: the player's flags this round.
        edition: ``SECOND_EDITION`` (0) or ``FIRST_EDITION`` (1).

    Returns:
        bool.
    """
    if edition == SECOND_EDITION:
        return bool(attempted)
    return bool(solved)


@rule_step(inline=True)
def round_ends_after_rotation(unfinished):
    """Whether a standard round ends at the end of a rotation with ``unfinished`` players not
    :func:`finished_for_round_end` (docs/rules.md §5: at most one left).

    Args:
        unfinished: the count of such players.

    Returns:
        bool.
    """
    return unfinished <= 1


@rule_step(inline=True)
def nick_of_time_ends_round(tier, num_players):
    """Nick of time (docs/rules.md §6), at the end of a rotation after the round's first correct
    solve: whether the rotation just played was at the last tier (:func:`last_tier`), which ends
    the round (otherwise the tier advances).

    Args:
        tier: the tier of the rotation just played.
        num_players: 2..5.

    Returns:
        bool.
    """
    return tier >= last_tier(num_players)


@rule_step(inline=True)
def tier_after_rotation(tier, solved_this_rotation, any_solved_this_round, nick, num_players):
    """The tier of the next rotation, at the end of a rotation of a round (docs/rules.md §5, §6).

    §5: the tier is one higher after a rotation in which at least one player solved correctly.
    §6, nick of time (``nick``): once anyone has solved correctly this round
    (``any_solved_this_round``, this rotation's solves included), the tier is one higher after
    every rotation, and stays at the last tier (:func:`last_tier`; the rotation played there ends
    the round, :func:`nick_of_time_ends_round`). A wrong attempt advances nothing.

    Args:
        tier: the tier of the rotation just played.
        solved_this_rotation: whether anyone solved correctly in that rotation.
        any_solved_this_round: whether anyone has solved correctly in the round so far.
        nick: whether the game plays the nick-of-time variant.
        num_players: 2..5.

    Returns:
        int: the tier of the next rotation.
    """
    if nick and any_solved_this_round:
        if nick_of_time_ends_round(tier, num_players):
            return tier
        return tier + 1
    if solved_this_rotation:
        return tier + 1
    return tier


@kernel
def tiers_after_rotation(tiers, solved_this_rotation, any_solved_this_round, nick, num_players):
    """:func:`tier_after_rotation` of every entry (docs/rules.md §5, §6): ``tiers[i]`` with
    ``solved_this_rotation[i]`` and ``any_solved_this_round[i]``.

    Args:
        tiers: ``int[N]``.
        solved_this_rotation: ``bool[N]``.
        any_solved_this_round: ``bool[N]``.
        nick: whether the game plays the nick-of-time variant.
        num_players: 2..5.

    Returns:
        ``int64[N]`` (a new array).
    """
    out = np.empty(tiers.size, dtype=np.int64)
    for i in range(tiers.size):
        out[i] = tier_after_rotation(tiers[i], solved_this_rotation[i], any_solved_this_round[i], nick,
                                     num_players)
    return out


# --- the duel's investigators (docs/rules.md §7) ------------------------------------------------

DUEL_START_INVESTIGATORS: int = 2
"""Investigator tiles each player starts a duel with (docs/rules.md §7)."""
DUEL_NEW_INVESTIGATORS: int = 2
"""Investigator tiles each player of a duel gets before each later round, the previous round's
winner one fewer (docs/rules.md §7; :func:`duel_investigators_after_round`)."""


@rule_step(inline=True)
def duel_investigators_after_round(left, won):
    """A duel player's investigator tiles for the next round (docs/rules.md §7): ``left`` plus
    :data:`DUEL_NEW_INVESTIGATORS` (2), one fewer for the winner of the round just played (it gives
    one back), holding at most ``MAX_INVESTIGATORS`` (5).

    Args:
        left: the player's unused tiles at the end of the round.
        won: whether the player won that round (a draw: neither player won).

    Returns:
        int: 0..5 for ``left`` in 0..5.
    """
    new = DUEL_NEW_INVESTIGATORS - 1 if won else DUEL_NEW_INVESTIGATORS
    return min(MAX_INVESTIGATORS, left + new)


# --- legality (docs/rules.md §4) ------------------------------------------------------------------


@rule_step(inline=True)
def clue_card_takeable(place):
    """docs/rules.md §4.1: a clue card can be taken while it lies face up on the display (``place``,
    the card's place code of :mod:`pi_env.core.constants`, is ``ON_DISPLAY``)."""
    return place == ON_DISPLAY


@rule_step(inline=True)
def investigator_placeable(inv_left, own_in_district):
    """docs/rules.md §4.2: an investigator can be placed in a district while the player has one left
    (``inv_left > 0``) and none of its own stands there this round (``own_in_district`` false).
    (Naming a case, §4.3, is always legal: any of the 1,680 cases.)"""
    return inv_left > 0 and not own_in_district


# --- answers (docs/rules.md §4.1–§4.3) ----------------------------------------------------------


@rule_step
def element_type(x):
    """The type of element ``x`` (docs/rules.md §1): 0 suspect (0..11), 1 evidence (12..21),
    2 location (22..35)."""
    if x < TYPE_OFFSETS[1]:
        return 0
    if x < TYPE_OFFSETS[2]:
        return 1
    return 2


@rule_step
def case_element(case_row, t):
    """The element id of the type-``t`` part of a case given as type-local ``case_row`` (``int[3]``,
    a row of ``pi_env.core.constants.CASE_TRIPLES``), docs/rules.md §1."""
    return np.int64(TYPE_OFFSETS[t]) + np.int64(case_row[t])


@rule_step
def clue_answer(td, adjacency, case_row, x):
    """The answer to the clue card of element ``x`` (docs/rules.md §4.1).

    With *y* the case's element of ``x``'s type: ``SPOT`` if ``x`` is *y*, else ``TRACE`` if *y*'s
    tile lies in a district adjacent to ``x``'s tile, else ``NOTHING``.

    Args:
        td: ``int[36]``, the district of each element's tile (``tile_district``; locations: their own
            district).
        adjacency: ``bool[14, 14]``.
        case_row: ``int[3]``, the asking player's case as type-local indices (``CASE_TRIPLES[case]``).
        x: the card's element id 0..35.

    Returns:
        int: ``NOTHING`` (0), ``TRACE`` (1) or ``SPOT`` (2).
    """
    y = case_element(case_row, element_type(x))
    if x == y:
        return SPOT
    if adjacency[td[x], td[y]]:
        return TRACE
    return NOTHING


@rule_step
def investigator_suppressed(dtile, spot_row, trace_row, d, t):
    """Suppression (docs/rules.md §4.2): whether type ``t`` gives nothing to an investigator in
    district ``d`` because the type-``t`` tile there already carries the player's marker (a blank
    has no tile and is never suppressed).

    Args:
        dtile: ``int[14, 3]``, the element of each type in each district (``district_tile``; −1 a
            blank).
        spot_row, trace_row: ``bool[36]``, the player's spot and trace markers on tiles.
        d: the district 0..13.
        t: the type 0..2.

    Returns:
        bool.
    """
    e = dtile[d, t]
    return e >= 0 and (spot_row[e] or trace_row[e])


@rule_step
def investigate_answer(td, adjacency, case_row, d, suppressed):
    """The markers an investigator in district ``d`` receives (docs/rules.md §4.2).

    For each type *t* not ``suppressed[t]`` (:func:`investigator_suppressed`), with *y* the case's
    type-*t* element: one spot if *y*'s tile lies in ``d``, else one trace if it lies in a district
    adjacent to ``d``.

    Args:
        td: ``int[36]``, the district of each element's tile (as :func:`clue_answer`).
        adjacency: ``bool[14, 14]``.
        case_row: ``int[3]``, the investigating player's case as type-local indices.
        d: the district 0..13.
        suppressed: ``bool[3]``, the suppressed types (suspect, evidence, location).

    Returns:
        ``(spots, traces)`` ints, ``spots + traces <= 3``.
    """
    ns = 0
    nt = 0
    for t in range(3):
        if not suppressed[t]:
            dy = td[case_element(case_row, t)]
            if dy == d:
                ns += 1
            elif adjacency[dy, d]:
                nt += 1
    return ns, nt


@rule_step
def is_case(case_row, c):
    """Whether naming case id ``c`` (``s · 140 + e · 14 + l``) is correct for the case ``case_row``
    (``int[3]`` type-local), docs/rules.md §4.3."""
    return c // 140 == case_row[0] and (c // 14) % 10 == case_row[1] and c % 14 == case_row[2]
