"""Deduction solver for P.I. (RULES.md §9): exact case probabilities for one player.

High level::

    from solvers import analyze
    a = analyze(record, player=2, round_index=0, after_event=17)
    a.own_count, a.count, a.cases, a.probabilities, a.suspect, a.certain

Modules (lowest level first):

* :mod:`solvers.tables` — per-layout answer tables, case bitsets (``uint64[27]``);
* :mod:`solvers.knowledge` — :class:`Knowledge`, the array form of what one player knows;
* :mod:`solvers.case_sets` — per-player consistent case sets; the incremental own-information
  filter (:class:`CaseFilter`, numba) and its numpy reference;
* :mod:`solvers.joint` — exact counts of joint deals (:func:`count_joint`);
* :mod:`solvers.sat_model` — python-sat model: consistency cross-check, smallest conflicting event
  sets;
* :mod:`solvers.analysis` — :func:`analyze`, :class:`Analysis`, :class:`ContradictionError`;
* :mod:`solvers.observation` — :func:`knowledge_from_observation`: a :class:`Knowledge` from one
  player's engine observation;
* :mod:`solvers.hints` — :func:`hint`, :class:`Hint`: certain elements, P(correct) and expected
  points of solving now, the most informative query, expected remaining actions.

This package does not import pettingzoo or gymnasium.
"""

from .analysis import Analysis, ContradictionError, analyze, analyze_knowledge, knowledge_of
from .case_sets import CaseFilter, case_bits, case_mask_reference
from .hints import Hint, hint
from .joint import count_joint
from .knowledge import Knowledge, event_row, event_rows, knowledge_from_round
from .observation import knowledge_from_observation
from .sat_model import is_consistent, minimal_conflict, sat_consistent_cases

__all__ = [
    "Analysis", "CaseFilter", "ContradictionError", "Knowledge", "analyze", "analyze_knowledge",
    "case_bits", "case_mask_reference", "count_joint", "event_row", "event_rows", "is_consistent",
    "knowledge_from_round", "knowledge_of", "minimal_conflict", "sat_consistent_cases",
    "Hint", "hint", "knowledge_from_observation",
]
