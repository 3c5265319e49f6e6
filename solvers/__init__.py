"""Deduction solver for P.I. (docs/rules.md §9): exact case probabilities for one player.

High level::

    from pi_env.solvers import analyze
    a = analyze(record, player=2, round_index=0, after_event=17)
    a.own_count, a.count, a.cases, a.probabilities, a.suspect, a.certain

Modules (lowest level first):

* :mod:`pi_env.solvers.tables` — per-layout answer tables, case bitsets (``uint64[27]``);
* :mod:`pi_env.solvers.knowledge` — :class:`Knowledge`, the array form of what one player knows;
* :mod:`pi_env.solvers.case_sets` — per-player consistent case sets; the incremental own-information
  filter (:class:`CaseFilter`, numba) and its numpy reference;
* :mod:`pi_env.solvers.own_info` — the own-information filter of a whole batch of engine states or
  observations (standard and solo) in one numba call: case sets, marginals, query gains, and the
  exact joint posterior in batch (:func:`own_features`, :func:`observation_features`,
  :func:`solo_features`, :func:`query_gains`, :func:`joint_features`, :func:`joint_case_counts`);
* :mod:`pi_env.solvers.compact` — the compact observation encoding for learning
  (:func:`~pi_env.solvers.compact.encode_compact`, :func:`~pi_env.solvers.compact.encode_solo_compact`);
* :mod:`pi_env.solvers.joint` — exact counts of joint deals (:func:`count_joint`, :func:`joint_table`);
  :mod:`pi_env.solvers.joint_holes` the same for sets with many failed solves (inclusion–exclusion over
  the named cases);
* :mod:`pi_env.solvers.sat_model` — python-sat model: consistency cross-check, smallest conflicting event
  sets;
* :mod:`pi_env.solvers.analysis` — :func:`analyze`, :class:`Analysis`, :class:`ContradictionError`;
* :mod:`pi_env.solvers.worlds` — :func:`sample_worlds`: complete worlds drawn exactly from the joint
  posterior; :func:`complete_cases`: a typed-in record's missing cases drawn that way (the
  ``complete_cases`` of a record start, docs/positions.md);
* :mod:`pi_env.solvers.observation` — :func:`knowledge_from_observation`: a :class:`Knowledge` from one
  player's engine observation;
* :mod:`pi_env.solvers.turns` — the rules facts of a player's turn (:class:`TurnContext`,
  :func:`turn_context`) and what solving now or waiting is worth;
* :mod:`pi_env.solvers.hints` — :func:`hint`, :class:`Hint`: certain elements, P(correct) and expected
  points of solving now against waiting, the most informative query, expected remaining actions;
* :mod:`pi_env.solvers.solve_report` — what ``pi-env solve`` prints (:func:`solve_report`), and
  :func:`record_hint`, the hint at a position of a record.

Answers print the game's names: cases, elements and actions are ``int`` ids that print
``Doc / Forgery / Downtown``, ``Doc``, ``clue Pinky`` (:mod:`pi_env.core.named`).

This package does not import pettingzoo or gymnasium.
"""

from pi_env.solvers.analysis import Analysis, ContradictionError, analyze, analyze_knowledge, knowledge_of
from pi_env.solvers.case_sets import CaseFilter, case_bits, case_mask_reference
from pi_env.solvers.hints import Hint, hint
from pi_env.solvers.joint import JointTable, count_joint, joint_table
from pi_env.solvers.knowledge import Knowledge, event_row, event_rows, knowledge_from_round
from pi_env.solvers.observation import knowledge_from_observation
from pi_env.solvers.own_info import (joint_case_counts, joint_features, observation_case_mask, observation_features, own_case_mask,
                                     own_features, query_gains, solo_features, solo_observation_features)
from pi_env.solvers.sat_model import is_consistent, minimal_conflict, sat_consistent_cases
from pi_env.solvers.solve_report import record_hint, solve_report
from pi_env.solvers.turns import TurnContext, turn_context
from pi_env.solvers.worlds import WorldSampler, complete_cases, sample_worlds, world_sampler

__all__ = [
    "Analysis", "CaseFilter", "ContradictionError", "Knowledge", "analyze", "analyze_knowledge",
    "case_bits", "case_mask_reference", "count_joint", "event_row", "event_rows", "is_consistent",
    "knowledge_from_round", "knowledge_of", "minimal_conflict", "sat_consistent_cases",
    "Hint", "hint", "knowledge_from_observation", "record_hint", "solve_report", "TurnContext",
    "turn_context", "own_features", "own_case_mask", "observation_features",
    "observation_case_mask", "solo_features", "solo_observation_features", "query_gains", "joint_features", "joint_case_counts",
    "JointTable", "joint_table", "WorldSampler", "sample_worlds", "complete_cases",
    "world_sampler",
]
