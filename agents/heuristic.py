"""The ``heuristic`` agent: rules of thumb from players' tips.

It knows only its observation (docs/rules.md §9). Its *open cases* are the cases still possible from
its own information, :func:`pi_env.agents.deducer.consistent_cases`. On its turn it

1. **solves when certain**: one open case left, it names that case;
2. **uses investigators where the most cases are still open**: while many cases are open
   (at least :data:`INVESTIGATE_MIN_OPEN`) and this round's share of its tiles is not used up
   (``ceil(tiles at the round's start / rounds left)``, assuming 3 rounds), it places one in the
   legal district holding a tile of the most open cases, among districts whose answer is not the
   same for every open case;
3. otherwise **takes a clue card** whose answer splits the open cases most evenly (highest
   information gain, :func:`pi_env.solvers.hints.information_gains` over its open cases). Among the
   clues it is indifferent between (within :data:`INDIFFERENCE` of the best gain) it prefers a card
   that is an element of the case it holds: those are the cards the player who must solve that
   case (the next player) most wants, so taking them keeps them away from that player;
4. when no action can split its open cases, it guesses one of them if at most :data:`GUESS_MAX`
   are open, else it waits (takes a card, preferably of the held case) while another player is
   still investigating and before rotation :data:`WAIT_ROTATIONS` — others' correct solves rule
   out cases — and guesses after that.

Ties are broken by the agent's seeded rng.
"""

from __future__ import annotations

import math

import numpy as np

from pi_env.core.constants import CASE_TRIPLES, INVESTIGATE_BASE, SOLVE_BASE, TYPE_OFFSETS
from pi_env.engine.observe import decode_observation
from pi_env.solvers.hints import (GAIN_TOLERANCE, answer_matrix, best_gain_ties, candidate_actions,
                                  information_gains)
from pi_env.solvers.observation import knowledge_from_observation
from pi_env.solvers.own_info import observation_case_mask

from pi_env.agents.base import Agent

INVESTIGATE_MIN_OPEN = 60
"""Investigate only while at least this many cases are open (tiles are scarce: 5 per game)."""
INDIFFERENCE = 0.05
"""Clues whose information gain is within this fraction of the best count as equally good."""
GUESS_MAX = 3
"""With nothing left to learn, guess when at most this many cases are open."""
WAIT_ROTATIONS = 20
"""With nothing left to learn and many cases open, wait for others' solves up to this rotation."""
ROUNDS = 3

_ELEMENTS = CASE_TRIPLES.astype(np.int64) + np.array(TYPE_OFFSETS)  # [1680, 3] element ids per case


class HeuristicAgent(Agent):
    """Rules-of-thumb player (see the module docstring)."""

    name = "heuristic"

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        k = knowledge_from_observation(observation, self.num_players, self.board)
        cases = np.flatnonzero(observation_case_mask(observation, self.num_players, self.board))  # own info
        if cases.size == 0:  # cannot happen with correct answers; any legal action
            return int(np.flatnonzero(action_mask)[-1])
        if cases.size == 1:
            return SOLVE_BASE + int(cases[0])
        o = decode_observation(observation, self.num_players)
        n = cases.size
        actions = candidate_actions(k, action_mask)
        gains = (information_gains(answer_matrix(k, actions, cases), np.ones(n)) if actions.size
                 else np.zeros(0))
        useful = gains > GAIN_TOLERANCE
        is_clue = actions < INVESTIGATE_BASE
        investigate = self._investigation(o, cases, actions[useful & ~is_clue])
        if investigate is not None:
            return investigate
        held = o["held_case"].astype(bool)
        of_held = np.zeros(actions.size, dtype=bool)  # clue cards of the case this agent holds
        of_held[is_clue] = held[actions[is_clue]]
        if (useful & is_clue).any():
            best = gains[useful & is_clue].max()
            near = useful & is_clue & (gains >= best * (1 - INDIFFERENCE))
            denial = near & of_held
            pool = denial if denial.any() else near
            return self._pick(actions[best_gain_ties(np.where(pool, gains, -np.inf))])
        if useful.any():  # no useful clue: an investigator beyond this round's share
            return self._pick(actions[best_gain_ties(np.where(useful, gains, -np.inf))])
        clues = actions[is_clue]
        others_playing = not o["solved"][1:].all()
        if n > GUESS_MAX and clues.size and others_playing and int(o["rotation"][0]) < WAIT_ROTATIONS:
            mine = actions[is_clue & of_held]
            return self._pick(mine if mine.size else clues)
        return SOLVE_BASE + int(cases[self.rng.integers(n)])

    def _investigation(self, o: dict, cases: np.ndarray, useful: np.ndarray) -> int | None:
        """The investigator rule (2 of the module docstring), or ``None``.

        Args:
            useful: investigator actions whose answer is not the same for every open case.
        """
        n = cases.size
        if n < INVESTIGATE_MIN_OPEN or useful.size == 0:
            return None
        placed = int(o["inv_placed"][0].sum())
        left = int(o["inv_left"][0])
        rounds_left = max(1, ROUNDS - int(o["round"][0]))
        if placed >= math.ceil((left + placed) / rounds_left):
            return None
        tile_district = np.argmax(o["tiles"], axis=1)  # [36]
        where = tile_district[_ELEMENTS[cases]]  # [n, 3] district of each open case's elements
        counts = np.array([(where == a - INVESTIGATE_BASE).any(axis=1).sum() for a in useful])
        return self._pick(useful[counts == counts.max()])

    def _pick(self, choices: np.ndarray) -> int:
        return int(choices[self.rng.integers(choices.size)]) if choices.size > 1 else int(choices[0])


__all__ = ["HeuristicAgent", "INVESTIGATE_MIN_OPEN", "INDIFFERENCE", "GUESS_MAX", "WAIT_ROTATIONS"]
