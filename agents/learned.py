"""Learned policies as agents: the model zoo (``learned:2p``, ``learned:3p``, ``learned:4p``, ``learned:5p``,
``learned:solo``) and any checkpoint written by :mod:`pi_env.experiments.train_rl` (``learned:PATH``).

A learned policy sees only its player's view (docs/rules.md §9): the engine observation
``int16[618 + 1912·P]`` (:func:`pi_env.engine.observe`) and the legal-action mask, the same as every
agent. It acts in a **compact action space** of :data:`POLICY_ACTIONS` = 51 choices:

==========  =====================================================================================
choice      engine action
==========  =====================================================================================
0 .. 35     clue card of element ``a`` (legal while the card is on the display), as the engine's
36 .. 49    investigator in district ``a − 36``, as the engine's
50          **solve**: name the case :func:`best_cases` picks (2 players: from the player's own
            information, its exact posterior; 3–5 players: the most likely case of the joint
            posterior over every player's public answers)
==========  =====================================================================================

so the policy decides *what to ask* and *when to solve*; *which* case to name is the solver's
(:func:`best_cases`: a case still possible from the player's information, never one it already
named wrongly this round). The 1680 solve logits of the engine's action space are not needed.

**Solo models** (``num_players`` 0 in the file, ``learned:solo``) play Solo Time Attack
(docs/rules.md §8) on the ``"solo-compact-v1"`` encoding. They take a solo observation
``int16[2452]`` (:func:`pi_env.engine.solo.observe`, the Gymnasium env :mod:`pi_env.envs.solo`) or
its 2-player :func:`~pi_env.engine.solo.standard_view` (how
:mod:`pi_env.experiments.strategy_benchmark` and :func:`pi_env.agents.runner.play_solo_cases` show
a solo game to every agent; :func:`solo_observation_of_view` turns it back), are reset with 2
players, and are made for the default solo options (5 investigators, open mode). Their choices are
restricted by :func:`useful_queries`: a query whose answer is already certain (information gain 0:
a repeated clue, an investigator that cannot split the cases left) is never chosen, so a solo
policy cannot spend actions on queries that tell it nothing; the solve choice names
:func:`best_cases_from_mask` of the solo own-information set.

**Input encodings** (:data:`ENCODINGS`), each computed in batch from the engine state (training,
:func:`encode_state`) and from engine observations (agents, :func:`encode_observations`), equal
entry by entry (tested). Their names, layouts and sizes are registered in :mod:`pi_env.encodings`
(:func:`pi_env.encodings.learned_names`, :func:`pi_env.encodings.get`):

* ``"compact-v1"`` (the default for training): :func:`pi_env.solvers.compact.encode_compact`, what a
  player deduces from its answers (own-information marginals, the gain of every query, what the
  next player would learn from each clue card, every seat's public progress): ``216 + 8·P`` entries
  (2 players: 232). From observations it is computed on :func:`state_from_observations`.
* ``"compact-v2"``: ``"compact-v1"`` followed by the joint block
  (:func:`pi_env.solvers.compact.encode_joint_block`, 38 entries: the marginals, case count and
  largest case probability of the **joint** posterior over every player's public answers, what
  ``greedy`` decides on): ``254 + 8·P`` entries (4 players: 286). Its joint count is one numba
  call for the batch at 2–5 players (5 players: the triples of seats 2, 3 and 4,
  :func:`pi_env.solvers.own_info.joint_case_counts`), for models that play 3–5 players.
* ``"compact-v3"``: ``"compact-v2"`` followed by 100 entries derived from its query gains
  (:func:`_query_extra`, the solo models' ``rel_gain`` and ``best_gain`` for the standard game):
  ``rel_gain`` [50] ``exp(-10 · (best gain − gain))`` per query (bits; the 36 clue cards then the
  14 districts, as in ``clue_gain`` / ``district_gain``), 0 for a query that is not available
  (a clue card not on the display; a district where the observer has an investigator, or every
  district once it has none left) or cannot split its own-information set (gain 0); ``best_gain``
  [50] 1 for the available queries of the best gain (ties: all). The best is over the available
  queries, so the network reads which query ``deducer(joint=False)`` would ask instead of computing
  an argmax over 50 gains. Own-information gains only (public information and the observer's own
  answers, :func:`pi_env.solvers.own_info.query_gains`): ``354 + 8·P`` entries (4 players: 386).
* ``"compact-v4"``: ``"compact-v3"`` followed by the **decision block** (67 entries,
  :data:`pi_env.encodings.layouts.DECISION_BLOCK_LAYOUT`): the figures the ``greedy`` agent decides
  on, written by greedy's own batch kernel (:func:`pi_env.agents.greedy_batch.decision_block`, the
  kernel of :func:`~pi_env.agents.greedy_batch.greedy_actions`; equal to the per-game
  :func:`pi_env.agents.greedy.assess` / :func:`~pi_env.agents.greedy.greedy_decision` figures,
  tested) without agent memory (greedy's ``previous=None``: a tier rise is ``pending`` only when
  rotation 0 shows it), so that the engine state and the observations give equal rows.
  ``421 + 8·P`` entries (4 players: 453). Points are scaled by 1/10:

  ================  =====  ===========  ==========================================================
  name              shape  range        meaning
  ================  =====  ===========  ==========================================================
  p_correct         [1]    0..1         probability of the most likely case of the exact joint
                                        posterior (greedy's ``p_best``; 2 players: ``1 / n``)
  e_now             [1]    −0.2..0.9    ``E_now / 10``: expected points of solving now,
                                        ``p·points − (1 − p)·penalty``
  e_wait            [1]    0..0.9       ``E_wait / 10``: expected points of greedy's query then
                                        solving next turn (``Outlook.wait_value`` of ``q_after``);
                                        with no query greedy would ask (none splits the cases,
                                        or the posterior is certain) the value of waiting a turn
                                        without learning (``wait_value(p_correct)``)
  solve_now         [1]    0/1          greedy solves now (certain, or ``E_now > 0`` and
                                        ``E_now ≥ E_wait``, or no query worth waiting for)
  solve_points      [1]    0..0.9       points of a correct solve now / 10 (tier, round, cap)
  wrong_penalty     [1]    0..0.2       points a wrong solve loses now / 10 (floor applied)
  inv_allowed       [1]    0..1         investigators greedy's ration allows this round / 5
  pending           [1]    0/1          a seat before the player solved in this rotation (the
                                        tier rises at its end; rotation 0 only, see above)
  hazard            [4]    0..1         relative seats 1..4: chance the seat solves on its
                                        coming turn (``turns_to_solve_pmf(n_public)[0]``) for
                                        the seats acting after the player in this rotation that
                                        may solve; 0 otherwise and beyond ``P − 1``
  idle              [4]    0/1          relative seats 1..4: the seat has not acted once its
                                        turn passed (greedy's ``idle``); 0 beyond ``P − 1``
  greedy_choice     [51]   0/1          one-hot over the compact action space: greedy's choice
                                        (0..49 the query, 50 solve)
  ================  =====  ===========  ==========================================================

  The other figures greedy reads are in ``"compact-v1"`` already (``public_log2_count``: every
  seat's public case count; ``attempted``, ``solved``; ``round``, ``tier``, ``rotation``). 2–5
  players, as greedy's batch kernel plays them (:data:`pi_env.agents.greedy_batch.DECISION_BLOCK_PLAYERS`);
  at 3–5 players the joint block comes from the counts the kernel makes for greedy's posterior
  (5 players: the triples of seats 2, 3 and 4, :func:`pi_env.solvers.own_info.disjoint_triple_counts`),
  equal to :func:`pi_env.solvers.compact.encode_joint_block` bit for bit (tested), so the joint
  posterior is counted once per row.
  The kernel (:mod:`pi_env.agents.greedy_batch`) is imported when a ``"compact-v4"`` row is
  first encoded (:func:`_decision_block`).
* ``"solo-compact-v1"`` (solo models), 250 entries: :func:`pi_env.solvers.compact.encode_solo_compact`
  (142: own-information marginals, case count, the gain of every query, display, investigators
  placed and left, actions and wrong solves) followed by 108 entries derived from it
  (:func:`_solo_extra`): ``rel_gain`` [50] ``exp(-10 · (best gain − gain))`` per query (bits; 0 if
  it cannot split), ``best_gain`` [50] 1 for the queries of the best gain, ``small_count`` [8] the
  number of consistent cases one-hot for 1..8. From a :class:`~pi_env.engine.solo.SoloState` or
  from solo observations (:func:`solo_state_from_observations`); the player count is ignored.
* ``"flat-v1"``: the flat encoding (:mod:`pi_env.envs.encoders`) without the per-seat failed-solve
  blocks (``1680·P`` entries that only the solve choice needs, and :func:`best_cases` applies
  them): ``618 + 232·P`` entries (2 players: 1082).

**Model files** (``.pt``, written with ``torch.save``, read with ``weights_only=True``: tensors and
plain values only) hold a dict: ``format`` (:data:`MODEL_FORMAT`), ``encoding``, ``num_players``
(``0`` for solo), ``input_size``, ``fingerprint`` (:func:`encoding_fingerprint` when trained: a
model is refused when its encoding now computes something else), ``trunk`` and ``hidden`` (layer
widths), ``activation``, ``state_dict`` (the policy network,
:class:`pi_env.agents._policy_net.PolicyNet`), and ``card`` (how it was trained: a dict).
The zoo's files are package data in ``pi_env/models/`` (:data:`ZOO`), so they load from a
checkout and from an installed wheel alike.

Errors (one line, :class:`~pi_env.core.errors.PIError`, naming the file): an unknown model name,
a missing, corrupt or foreign file, a model for another player count or encoding; without torch,
:data:`pi_env.agents.sb3_policy.RL_INSTALL_HINT`.
"""

from __future__ import annotations

import functools
from importlib import resources
from pathlib import Path
from typing import Any, Callable

import numpy as np

from pi_env.agents.base import Agent
from pi_env.agents.sb3_policy import RL_INSTALL_HINT
from pi_env.core.board import DAYTIME, Board
from pi_env.core.constants import CASE_TRIPLES, NUM_ACTIONS, SOLVE_BASE
from pi_env.core.errors import PIError, UnknownNameError
from pi_env import encodings as _encodings
from pi_env.encodings import registry as _registry
from pi_env.encodings.layouts import QUERY_EXTRA as _QUERY_EXTRA, SOLO_EXTRA as _SOLO_EXTRA

__all__ = ["LearnedAgent", "state_from_observations", "load_model", "model_path", "best_cases", "best_cases_from_mask", "best_cases_from_counts", "best_cases_of_state", "encode_state", "encoding_fingerprint",
           "encode_observations", "encoding_size", "policy_mask",
           "to_engine_actions", "useful_queries", "save_model", "solo_state_from_observations",
           "solo_observation_of_view", "SOLO_ENCODING", "ENCODINGS", "PLAYER_ENCODINGS", "ENCODING_PLAYERS", "check_player_encoding", "ZOO", "ZOO_AGENTS", "ZOO_PLAYER_AGENTS", "model_name", "POLICY_ACTIONS", "SOLVE_ACTION", "MODEL_FORMAT",
           "PREFIX", "TORCH_HINT"]

SOLO_ENCODING = _encodings.SOLO_ENCODING
"""The encoding of solo models (``"solo-compact-v1"``)."""
POLICY_ACTIONS = SOLVE_BASE + 1
"""Choices of the compact action space (module docstring): 50 queries and one solve."""
SOLVE_ACTION = SOLVE_BASE
"""The compact solve choice (50)."""
MODEL_FORMAT = "pi-env-policy/1"
PREFIX = "learned:"
ZOO: dict[str, str] = {"2p": "learned_2p.pt", "3p": "learned_3p.pt", "4p": "learned_4p.pt", "5p": "learned_5p.pt",
                       "solo": "learned_solo.pt"}
"""Model names of the zoo and their files in ``pi_env/models/``."""
ZOO_AGENTS: tuple[str, ...] = tuple(PREFIX + name for name in ZOO)
"""The zoo's agent names (``learned:2p``, ...), the one list that help texts and errors print."""
ZOO_PLAYER_AGENTS: tuple[str, ...] = tuple(PREFIX + name for name in ZOO if name != "solo")
"""The zoo's agents for 2–5-player games (all but the Solo Time Attack model ``learned:solo``)."""
TORCH_HINT = RL_INSTALL_HINT
"""The install hint for the ``rl`` extra (one string for the project: :data:`pi_env.agents.sb3_policy.RL_INSTALL_HINT`)."""


_keep_columns = _encodings.flat_v1_columns  # the flat-encoding columns of "flat-v1" (all but failed)


class _FlatV1:
    """``"flat-v1"`` (module docstring): from the flat encoding."""

    def size(self, num_players: int) -> int:
        return _encodings.get("flat-v1").size(num_players)

    def from_flat(self, flat: np.ndarray, num_players: int) -> np.ndarray:
        return np.ascontiguousarray(np.atleast_2d(flat)[:, _keep_columns(num_players)])

    def from_state(self, state: Any, config: Any, players: np.ndarray, flat: "np.ndarray | None" = None,
                   out: "np.ndarray | None" = None, parallel: "bool | None" = False) -> np.ndarray:
        from pi_env.envs.encoders import encode_flat  # (no kernel of rows here: ``parallel`` is not used)

        x = self.from_flat(encode_flat(state, config, players) if flat is None else flat, config.num_players)
        if out is None:
            return x
        out[:] = x
        return out

    def from_observations(self, observations: np.ndarray, config: Any) -> np.ndarray:
        from pi_env.envs.encoders import flat_scales

        return self.from_flat(np.atleast_2d(observations).astype(np.float32) * flat_scales(config), config.num_players)


class _CompactV1:
    """``"compact-v1"`` (module docstring): :func:`pi_env.solvers.compact.encode_compact`."""

    def size(self, num_players: int) -> int:
        return _encodings.get("compact-v1").size(num_players)

    def from_state(self, state: Any, config: Any, players: np.ndarray, flat: "np.ndarray | None" = None,
                   out: "np.ndarray | None" = None, parallel: "bool | None" = False) -> np.ndarray:
        from pi_env.solvers.compact import encode_compact

        return encode_compact(state, config, np.asarray(players, dtype=np.int64), out=out, parallel=parallel)

    def from_observations(self, observations: np.ndarray, config: Any) -> np.ndarray:
        from pi_env.solvers.compact import encode_compact

        obs = np.atleast_2d(observations)
        return encode_compact(state_from_observations(obs, config.num_players), config, 0, parallel=False)


class _CompactV2:
    """``"compact-v2"`` (module docstring): ``"compact-v1"`` then the joint block
    (:func:`pi_env.solvers.compact.encode_joint_block`)."""

    def size(self, num_players: int) -> int:
        return _encodings.get("compact-v2").size(num_players)

    def from_state(self, state: Any, config: Any, players: np.ndarray, flat: "np.ndarray | None" = None,
                   out: "np.ndarray | None" = None, parallel: "bool | None" = False) -> np.ndarray:
        from pi_env.solvers.compact import compact_size, encode_compact, encode_joint_block

        players = np.asarray(players, dtype=np.int64)
        if out is None:
            out = np.empty((state.batch_size, self.size(config.num_players)), dtype=np.float32)
        n = compact_size(config.num_players)
        encode_compact(state, config, players, out=out[:, :n], parallel=parallel)
        encode_joint_block(state, config, players, out=out[:, n:])
        return out

    def from_observations(self, observations: np.ndarray, config: Any) -> np.ndarray:
        obs = np.atleast_2d(observations)
        return self.from_state(state_from_observations(obs, config.num_players), config,
                               np.zeros(len(obs), dtype=np.int64))




def _query_extra(gains: np.ndarray, available: np.ndarray) -> np.ndarray:
    """``float32[B, 100]``: ``rel_gain`` [50] and ``best_gain`` [50] (module docstring) of the query gains
    ``gains`` (``float[B, 50]``, bits: 36 clue cards then 14 districts) among the queries
    ``available`` (``bool[B, 50]``); a query that is not available or has gain 0 gets 0 in both."""
    useful = available & (gains > 0)
    best = np.where(useful, gains, 0.0).max(axis=1, keepdims=True)
    out = np.zeros((gains.shape[0], _QUERY_EXTRA), dtype=np.float32)
    out[:, :50] = np.where(useful, np.exp(-10.0 * (best - gains)), 0.0)
    out[:, 50:] = useful & (gains >= best - 1e-6)
    return out


def _compact_extra(x: np.ndarray, num_players: int) -> np.ndarray:
    """The derived entries of ``"compact-v3"`` (module docstring) from the ``"compact-v1"`` part of
    ``x`` (``float32[B, >= 216 + 8·P]``): :func:`_query_extra` of ``clue_gain`` / ``district_gain``
    with the queries available to the observer read off ``display``, ``own_inv_placed`` and its
    ``inv_left`` (docs/rules.md §5-§6: a clue card on the display; an investigator in a district
    without one of its own)."""
    from pi_env.encodings import GAIN_SCALE, compact_layout

    lay = compact_layout(num_players)
    c0, d0 = lay["clue_gain"][0], lay["district_gain"][0]
    gains = np.concatenate([x[:, c0:c0 + 36], x[:, d0:d0 + 14]], axis=1).astype(np.float64) / GAIN_SCALE
    s0, p0, i0 = lay["display"][0], lay["own_inv_placed"][0], lay["inv_left"][0]
    available = np.concatenate([x[:, s0:s0 + 36] > 0.5, (x[:, p0:p0 + 14] < 0.5) & (x[:, i0:i0 + 1] > 0)], axis=1)
    return _query_extra(gains, available)


def _solo_extra(x: np.ndarray) -> np.ndarray:
    """The derived entries of ``"solo-compact-v1"`` from :func:`encode_solo_compact`'s ``float32[B, 142]``
    (module docstring): per query ``exp(-10 · (best gain − its gain))`` (bits; 0 for a query that
    cannot split), whether it has the best gain (ties: all), and the case count one-hot for 1..8."""
    from pi_env.encodings import GAIN_SCALE, solo_compact_layout

    lay = solo_compact_layout()
    c0 = lay["clue_gain"][0]
    g = x[:, c0:c0 + 50].astype(np.float64) / GAIN_SCALE  # clue_gain [36] then district_gain [14]
    out = np.zeros((x.shape[0], _SOLO_EXTRA), dtype=np.float32)
    out[:, :_QUERY_EXTRA] = _query_extra(g, np.ones(g.shape, dtype=bool))
    n = np.rint(1.0 / np.maximum(x[:, lay["own_p_best"][0]].astype(np.float64), 1e-9)).astype(np.int64)
    small = (n >= 1) & (n <= 8)
    out[np.flatnonzero(small), 100 + n[small] - 1] = 1.0
    return out


class _SoloCompactV1:
    """``"solo-compact-v1"`` (module docstring): :func:`pi_env.solvers.compact.encode_solo_compact` and
    :func:`_solo_extra`."""

    def size(self, num_players: int = 0) -> int:
        return _encodings.get(SOLO_ENCODING).size(0)

    def from_state(self, state: Any, config: Any, players: Any = None, flat: "np.ndarray | None" = None,
                   out: "np.ndarray | None" = None, mask: "np.ndarray | None" = None,
                   parallel: "bool | None" = False) -> np.ndarray:
        from pi_env.solvers.compact import encode_solo_compact

        x = encode_solo_compact(state, config, mask=mask, parallel=parallel)
        full = np.concatenate([x, _solo_extra(x)], axis=1)
        if out is None:
            return full
        out[:] = full
        return out

    def from_observations(self, observations: np.ndarray, config: Any) -> np.ndarray:
        return self.from_state(solo_state_from_observations(np.atleast_2d(observations)), config)


class _CompactV3:
    """``"compact-v3"`` (module docstring): ``"compact-v2"`` then :func:`_compact_extra`."""

    def size(self, num_players: int) -> int:
        return _encodings.get("compact-v3").size(num_players)

    def from_state(self, state: Any, config: Any, players: np.ndarray, flat: "np.ndarray | None" = None,
                   out: "np.ndarray | None" = None, parallel: "bool | None" = False) -> np.ndarray:
        if out is None:
            out = np.empty((state.batch_size, self.size(config.num_players)), dtype=np.float32)
        n = out.shape[1] - _QUERY_EXTRA
        _CompactV2().from_state(state, config, players, out=out[:, :n], parallel=parallel)
        out[:, n:] = _compact_extra(out[:, :n], config.num_players)
        return out

    def from_observations(self, observations: np.ndarray, config: Any) -> np.ndarray:
        obs = np.atleast_2d(observations)
        return self.from_state(state_from_observations(obs, config.num_players), config,
                               np.zeros(len(obs), dtype=np.int64))


def _decision_block() -> Callable[..., np.ndarray]:
    """:func:`pi_env.agents.greedy_batch.decision_block`, the greedy kernel that writes the decision
    block, imported when a ``"compact-v4"`` row is first encoded (importing this module does not
    load greedy's batch kernels)."""
    from pi_env.agents.greedy_batch import decision_block

    return decision_block


class _CompactV4:
    """``"compact-v4"`` (module docstring): ``"compact-v3"`` then greedy's decision block
    (:func:`pi_env.agents.greedy_batch.decision_block`); 2–5 players. At 3 to 5 players the joint block
    comes from the decision kernel's counts (the joint posterior counted once; equal to
    ``"compact-v3"``'s entries bit for bit, tested)."""

    def size(self, num_players: int) -> int:
        return _encodings.get("compact-v4").size(num_players)

    def from_state(self, state: Any, config: Any, players: np.ndarray, flat: "np.ndarray | None" = None,
                   out: "np.ndarray | None" = None, parallel: "bool | None" = False) -> np.ndarray:
        from pi_env.encodings.layouts import DECISION_BLOCK_SIZE

        _registry.check_players("compact-v4", config.num_players)
        from pi_env.solvers.compact import compact_size, encode_compact, encode_joint_block

        P = config.num_players
        if out is None:
            out = np.empty((state.batch_size, self.size(P)), dtype=np.float32)
        n1, n4 = compact_size(P), out.shape[1] - DECISION_BLOCK_SIZE
        n2 = n4 - _QUERY_EXTRA
        players = np.asarray(players, dtype=np.int64)
        encode_compact(state, config, players, out=out[:, :n1], parallel=parallel)
        if P == 2:  # the joint block is the own set's (3 to 5 players: from the decision kernel's counts)
            encode_joint_block(state, config, players, out=out[:, n1:n2])
        _decision_block()(state, config.board, players, config.edition, out=out[:, n4:],
                          joint=None if P == 2 else out[:, n1:n2], parallel=parallel)
        out[:, n2:n4] = _compact_extra(out[:, :n2], P)
        return out

    def from_observations(self, observations: np.ndarray, config: Any) -> np.ndarray:
        obs = np.atleast_2d(observations)
        return self.from_state(state_from_observations(obs, config.num_players), config,
                               np.zeros(len(obs), dtype=np.int64))


_IMPLEMENTATIONS: dict[str, Any] = {"flat-v1": _FlatV1(), "compact-v1": _CompactV1(), "compact-v2": _CompactV2(),
                                    "compact-v3": _CompactV3(), "compact-v4": _CompactV4(),
                                    "solo-compact-v1": _SoloCompactV1()}
ENCODINGS: dict[str, Any] = {name: _IMPLEMENTATIONS[name] for name in _encodings.learned_names()}
"""Encoding name -> encoder with ``size(P)``, ``from_state(state, config, players, flat=None)`` (the
batched training path) and ``from_observations(observations, config)`` (agents): the same
``float32[n, size(P)]`` from both. The names, sizes and layouts are the registry's
(:func:`pi_env.encodings.learned_names`, :func:`pi_env.encodings.get`)."""
PLAYER_ENCODINGS: tuple[str, ...] = tuple(n for n in ENCODINGS if n != SOLO_ENCODING)
"""The encodings of 2- to 5-player models (every one but the solo encoding)."""


ENCODING_PLAYERS: dict[str, tuple[int, ...]] = _registry.ENCODING_PLAYERS
"""The player counts of the learned encodings computed for only some of 2–5 players (the others:
all; none today): the registry's :data:`pi_env.encodings.registry.ENCODING_PLAYERS`, whose
:func:`~pi_env.encodings.registry.check_players` holds the rule."""


def check_player_encoding(name: str, num_players: "int | None" = None) -> None:
    """Refuse an encoding a 2- to 5-player model cannot take (before anything is written).

    Args:
        name: the encoding. num_players: the games' players; ``None``: any of 2–5.

    Raises:
        PIError: one line: the solo encoding (Solo Time Attack models only) or an unknown name,
            listing :data:`PLAYER_ENCODINGS`; an encoding not computed for ``num_players``
            (a count outside 2–5, or outside an entry of :data:`ENCODING_PLAYERS`).
    """
    if name == SOLO_ENCODING:
        raise PIError(f"encoding {name!r} is for Solo Time Attack models, not player games "
                      f"(one of: {', '.join(PLAYER_ENCODINGS)})")
    if name not in ENCODINGS:
        raise PIError(f"unknown encoding {name!r} (one of: {', '.join(PLAYER_ENCODINGS)})")
    if num_players is not None:
        _registry.check_players(name, num_players)


def _encoding(name: str):
    try:
        return ENCODINGS[name]
    except KeyError:
        raise PIError(f"unknown encoding {name!r} (known: {', '.join(ENCODINGS)})") from None


def encoding_size(name: str, num_players: int) -> int:
    """Length of encoding ``name`` for ``num_players`` players."""
    return _encoding(name).size(num_players)


def encode_state(name: str, state: Any, config: Any, players: np.ndarray, flat: "np.ndarray | None" = None,
                 out: "np.ndarray | None" = None, parallel: "bool | None" = False) -> np.ndarray:
    """Encoding ``name`` of ``players[b]`` in game ``b`` of the engine ``state`` (``flat``: their flat
    encodings when the caller has them; ``out``: a ``float32[B, encoding_size(name, P)]`` buffer to
    fill): ``float32[B, encoding_size(name, P)]`` (``out`` when given). ``parallel``: the numba
    kernels over rows on one thread (``False``, the default: what one training worker spends), on
    all cores (``True``), or threaded from their family's
    :data:`pi_env.core._config.PARALLEL_MIN_BATCH` rows on (``None``); the same values either way
    (``"flat-v1"`` has no such kernel and ignores it).

    Raises:
        PIError: an unknown encoding, ``out`` not a writable ``float32[B, encoding_size(name, P)]``
            with contiguous rows, ``players`` out of range, or a player count the encoding is not
            computed for."""
    enc = _encoding(name)
    if out is not None:
        from pi_env.solvers.own_info import float32_rows_ok

        width = enc.size(state.num_players)
        if not float32_rows_ok(out, state.batch_size, width):
            raise PIError(f"out must be float32[{state.batch_size}, {width}] ({name} at {state.num_players} "
                          f"players) with contiguous rows, writable, got "
                          f"{getattr(out, 'dtype', type(out).__name__)}{list(getattr(out, 'shape', ()))}")
    return enc.from_state(state, config, players, flat, out, parallel=parallel)


def encode_observations(name: str, observations: np.ndarray, config: Any) -> np.ndarray:
    """Encoding ``name`` of engine observations ``int16[n, 618 + 1912·P]`` (seat 0 = the observer),
    equal to :func:`encode_state` of the same players: ``float32[n, encoding_size(name, P)]``.

    Raises:
        PIError: an unknown encoding, or observations that are not ``[n, 618 + 1912·P]`` (or one
            row ``[618 + 1912·P]``) for ``config.num_players`` players."""
    enc = _encoding(name)
    if name != SOLO_ENCODING:
        from pi_env.encodings.layouts import observation_size

        obs = np.asarray(observations)
        width = observation_size(config.num_players)
        if obs.ndim not in (1, 2) or obs.shape[-1] != width:
            raise PIError(f"observations must be int16[n, {width}] (engine observations at {config.num_players} "
                          f"players), got {obs.dtype}[{', '.join(map(str, obs.shape))}]")
    return enc.from_observations(observations, config)


@functools.lru_cache(maxsize=32)
def encoding_fingerprint(name: str, num_players: int) -> str:
    """A short hash of encoding ``name`` on fixed positions (16 games of seed 20261201 after 12
    steps of the engine's seeded random play, every seat): a model records it when trained and is
    refused when the encoding computes something else now (another version of it)."""
    import hashlib

    from pi_env.engine import GameConfig, init, sample_actions, step_inplace

    if name == SOLO_ENCODING:  # solo positions: 16 games of that seed after 4 random queries each
        from pi_env.engine import solo

        scfg = solo.SoloConfig()
        sst = solo.init(scfg, 16, seed=20261201)
        rng = np.random.default_rng(20261201)
        for _ in range(4):
            legal = solo.legal_action_mask(sst)[:, :SOLVE_BASE].astype(np.float64)
            a = np.array([rng.choice(SOLVE_BASE, p=row / row.sum()) for row in legal])
            solo.step_inplace(sst, a, scfg)
        return hashlib.sha1(np.round(encode_state(name, sst, scfg, np.zeros(16, dtype=np.int64)).astype(
            np.float64), 5).tobytes()).hexdigest()[:16]

    cfg = GameConfig(num_players=num_players)
    st = init(cfg, 16, seed=20261201)
    rng = np.random.default_rng(20261201)
    for _ in range(12):
        a = sample_actions(st, rng)
        a[a >= SOLVE_BASE] = SOLVE_BASE + (a[a >= SOLVE_BASE] - SOLVE_BASE) % 7  # few solves: games go on
        step_inplace(st, a, cfg)
    h = hashlib.sha1()
    for p in range(num_players):
        x = encode_state(name, st, cfg, np.full(16, p))
        h.update(np.round(x.astype(np.float64), 5).tobytes())
    return h.hexdigest()[:16]


def policy_mask(legal: np.ndarray) -> np.ndarray:
    """``bool[B, 51]``: the compact mask from engine legal-action masks ``int8[B, 1730]``: the 50
    queries as the engine allows them, the solve choice always (a solve is always legal)."""
    legal = np.atleast_2d(legal)
    out = np.empty((legal.shape[0], POLICY_ACTIONS), dtype=bool)
    out[:, :SOLVE_BASE] = legal[:, :SOLVE_BASE] != 0
    out[:, SOLVE_BASE] = True
    return out


def useful_queries(x: np.ndarray) -> np.ndarray:
    """``bool[B, 51]``: the choices a solo model may take given its encodings ``float32[B, 250]``
    (``"solo-compact-v1"``): the queries whose expected information gain in the encoding
    (``clue_gain``, ``district_gain``, :mod:`pi_env.solvers.compact`) is positive — those whose
    answer is not yet certain — and the solve choice. AND it with :func:`policy_mask`."""
    from pi_env.encodings import solo_compact_layout

    lay = solo_compact_layout()
    x = np.atleast_2d(x)
    out = np.ones((x.shape[0], POLICY_ACTIONS), dtype=bool)
    (c0, (nc,)), (d0, (nd,)) = lay["clue_gain"], lay["district_gain"]
    out[:, :nc] = x[:, c0:c0 + nc] > 0
    out[:, nc:nc + nd] = x[:, d0:d0 + nd] > 0
    return out


def _copy_layout(o: "dict[str, np.ndarray]", st: "Any", b: int) -> np.ndarray:
    """Copy the layout that a decoded observation ``o`` shows (``o["tiles"]``: ``[36, 14]`` one-hot)
    into game ``b`` of ``st`` (``tile_district``, ``district_tile``) and return the clue cards'
    places it shows, ``int8[36]``: on the display, in the discard pile, else in the deck (the
    caller adds what else it knows). Shared by :func:`solo_state_from_observations` and
    :func:`state_from_observations` (engine and solo observations agree on these components)."""
    from pi_env.core.constants import IN_DECK, IN_DISCARD, ON_DISPLAY

    st.tile_district[b] = o["tiles"].argmax(axis=1)
    for d in range(14):
        for x in np.flatnonzero(o["tiles"][:, d]):
            st.district_tile[b, d, 0 if x < 12 else 1 if x < 22 else 2] = x
    place = np.full(36, IN_DECK, dtype=np.int8)
    place[o["display"] > 0] = ON_DISPLAY
    place[o["discard"] > 0] = IN_DISCARD
    return place


def solo_state_from_observations(observations: np.ndarray) -> "Any":
    """A :class:`~pi_env.engine.solo.SoloState` holding exactly what solo observations
    ``int16[n, 2452]`` show (layout, card places, answers, investigators with their answers and
    suppressions, failed solves, investigators left, actions, wrong solves, deck size); the hidden
    case (zeros), the deck order and the generator are left empty. The solo encoders read only what
    the observation shows, so they compute from it what they compute from the real state (tested)."""
    from pi_env.engine import solo

    obs = np.atleast_2d(observations)
    st = solo.empty_solo_state(obs.shape[0])
    for b in range(obs.shape[0]):
        o = solo.decode_observation(obs[b])
        st.card_place[b] = _copy_layout(o, st, b)
        st.spot[b], st.trace[b], st.nothing[b] = o["spot"] > 0, o["trace"] > 0, o["nothing"] > 0
        st.inv_placed[b] = o["inv_placed"] > 0
        st.inv_answer[b, :, 0], st.inv_answer[b, :, 1] = o["inv_spots"], o["inv_traces"]
        st.inv_suppressed[b] = o["inv_suppressed"] > 0
        st.failed[b] = o["failed"] > 0
        st.inv_left[b] = o["inv_left"][0]
        st.actions[b] = o["actions"][0]
        st.wrong_solves[b] = o["wrong_solves"][0]
        st.deck_size[b] = o["deck_size"][0]
    return st


def solo_observation_of_view(view: np.ndarray) -> np.ndarray:
    """The solo observation ``int16[2452]`` that :func:`pi_env.engine.solo.standard_view` showed as
    ``view`` (``int16[618 + 1912·2]``): its inverse (``wrong_solves`` is the number of failed
    solves, which it equals in solo)."""
    from pi_env.engine import solo

    layout = _encodings.observation_layout(solo.VIEW_PLAYERS)
    v = np.asarray(view)

    def get(name: str, seat: "int | None" = None) -> np.ndarray:
        start, shape = layout[name]
        size = int(np.prod(shape[1:] if seat is not None else shape)) if shape else 1
        if seat is not None:
            start += seat * size
        return v[start:start + size]

    out = np.zeros(solo.OBSERVATION_SIZE, dtype=np.int16)
    for name, (start, shape) in solo.observation_layout().items():
        size = int(np.prod(shape))
        if name in ("tiles", "display", "discard", "deck_size"):
            value = get(name)
        elif name == "nothing":
            value = get("front", 0)
        elif name == "actions":
            value = get("rotation")
        elif name == "wrong_solves":
            value = np.array([int(get("failed", 0).sum())])
        else:
            value = get(name, 0)
        out[start:start + size] = value.reshape(-1)[:size]
    return out


_TRIPLES = CASE_TRIPLES.astype(np.int64)


def best_cases_from_mask(mask: np.ndarray) -> np.ndarray:
    """``int64[n]``: for each row of possible cases ``bool[n, 1680]`` (equally likely), the case whose
    suspect, evidence and location are the most frequent among them (the largest product of the
    three marginal counts; lowest case id on a tie); 0 for an empty row."""
    m = np.atleast_2d(mask)
    t = _TRIPLES
    cube = m.reshape(-1, 12, 10, 14)
    cs, ce, cl = cube.sum(axis=(2, 3)), cube.sum(axis=(1, 3)), cube.sum(axis=(1, 2))
    score = (cs[:, t[:, 0]] * ce[:, t[:, 1]] * cl[:, t[:, 2]]).astype(np.int64)
    score[~m] = -1
    return score.argmax(axis=1).astype(np.int64)


def best_cases_from_counts(counts: np.ndarray) -> np.ndarray:
    """``int64[n]``: for each row of joint-deal counts ``int64[n, 1680]``
    (:func:`pi_env.solvers.joint_case_counts`), the most likely case: the largest count, lowest
    case id on a tie (the case ``greedy`` names); 0 for an all-zero row."""
    c = np.atleast_2d(counts)
    return c.argmax(axis=1).astype(np.int64) if c.shape[0] else np.zeros(0, dtype=np.int64)


def best_cases(observations: np.ndarray, num_players: int, board: Board = DAYTIME) -> np.ndarray:
    """``int64[n]``: the case each observing player names when its policy chooses to solve.

    * 2 players: :func:`best_cases_from_mask` of its own-information case set
      (:func:`pi_env.solvers.own_info.observation_case_mask`, one batch call: its answers, the case
      it holds, other players' spots and correct solves, without the cases it already named
      wrongly this round), whose cases are equally likely under that information — there it is
      the exact posterior.
    * 3–5 players: the most likely case of the **joint** posterior, which also weighs every other
      player's public answers through disjointness (:func:`best_cases_from_counts` of
      :func:`pi_env.solvers.joint_case_counts` on :func:`state_from_observations`; the case
      ``greedy`` names); a row without a consistent deal (impossible in a real game) falls back
      to the own-information pick.

    Never empty in a real game: the player's case is always possible.

    Args:
        observations: ``int16[n, 618 + 1912·P]`` engine observations (seat 0 = the player).
        num_players: ``P``.
        board: the board.
    """
    from pi_env.solvers.own_info import observation_case_mask

    obs = np.atleast_2d(observations)
    if not len(obs):
        return np.zeros(0, dtype=np.int64)
    if num_players == 2:
        return best_cases_from_mask(observation_case_mask(obs, num_players, board))
    return best_cases_of_state(state_from_observations(obs, num_players), board, np.zeros(len(obs), dtype=np.int64))


def best_cases_of_state(state: Any, board: Board, players: np.ndarray) -> np.ndarray:
    """``int64[B]``: :func:`best_cases` of ``players[b]`` in game ``b`` of an engine ``state``, computed
    from the state in batch (:func:`pi_env.solvers.own_info.own_case_mask` for 2 players,
    :func:`pi_env.solvers.joint_case_counts` for more, which read only what each player may know:
    the same cases as from its observation)."""
    from pi_env.solvers.own_info import joint_case_counts, own_case_mask

    if state.batch_size == 0:
        return np.zeros(0, dtype=np.int64)
    players = np.asarray(players, dtype=np.int64)
    if state.num_players == 2:
        return best_cases_from_mask(own_case_mask(state, board, players))
    counts = joint_case_counts(state, board, players)
    out = best_cases_from_counts(counts)
    empty = ~counts.any(axis=1)
    if empty.any():
        rows = np.flatnonzero(empty)
        out[rows] = best_cases_from_mask(own_case_mask(state.take(rows), board, players[rows]))
    return out


def to_engine_actions(choices: np.ndarray, observations_of: Callable[[np.ndarray], np.ndarray],
                      num_players: int, board: Board = DAYTIME) -> np.ndarray:
    """``int64[B]`` engine actions for compact choices ``int[B]``: queries unchanged, the solve
    choice as ``50 + best case``; ``observations_of(rows)`` gives the engine observations of the
    rows that solve (only those are computed)."""
    out = np.asarray(choices, dtype=np.int64).copy()
    rows = np.flatnonzero(out == SOLVE_ACTION)
    if rows.size:
        out[rows] = SOLVE_BASE + best_cases(observations_of(rows), num_players, board)
    return out


def state_from_observations(observations: np.ndarray, num_players: int) -> "Any":
    """A batch :class:`~pi_env.engine.State` holding exactly what engine observations show
    (``int16[n, 618 + 1912·P]``, seat 0 = the observer): the observer is player 0 of each game and
    seat ``j`` player ``j``. Everything public is copied (layout, card places, markers, front
    cards, investigators with their answers and suppressions, solves, failed triples, scores,
    tiles left, round, tier, rotation, first player and player to move, deck size); the case the
    observer holds is player 1's case. What the observation does not show is left empty: the
    other players' cases (zeros), the deck order, the generator. So the encoders that read the
    hidden cases only for the case the observer holds compute from it, for player 0, what they
    compute from the real state — how a learned agent, which is given observations, encodes its
    view like the batched training path (tested entry by entry).
    """
    from pi_env.core.constants import IN_FRONT
    from pi_env.engine.observe import decode_observation
    from pi_env.engine.state import empty_state

    obs = np.atleast_2d(observations)
    n, P = obs.shape[0], int(num_players)
    st = empty_state(n, P)
    for b in range(n):
        o = decode_observation(obs[b], P)
        place = _copy_layout(o, st, b)
        place[(o["front"] > 0).any(axis=0)] = IN_FRONT
        st.card_place[b] = place
        st.front[b] = o["front"] > 0
        st.spot[b] = o["spot"] > 0
        st.trace[b] = o["trace"] > 0
        for j in range(P):
            ds = np.flatnonzero(o["inv_placed"][j])
            st.inv_count[b, j] = ds.size
            st.inv_district[b, j, :ds.size] = ds
            st.inv_answer[b, j, :ds.size, 0] = o["inv_spots"][j, ds]
            st.inv_answer[b, j, :ds.size, 1] = o["inv_traces"][j, ds]
            st.inv_suppressed[b, j, :ds.size] = o["inv_suppressed"][j, ds] > 0
            named = np.flatnonzero(o["solved_case"][j])
            if named.size == 3:
                st.solved_case[b, j] = named[0] * 140 + (named[1] - 12) * 14 + (named[2] - 22)
        held = np.flatnonzero(o["held_case"])
        if held.size == 3:
            st.case[b, 1 % P] = (held[0], held[1] - 12, held[2] - 22)
        st.failed[b] = o["failed"] > 0
        st.score[b] = o["score"]
        st.attempted[b] = o["attempted"] > 0
        st.solved[b] = o["solved"] > 0
        st.inv_left[b] = o["inv_left"]
        st.round[b] = o["round"][0]
        st.tier[b] = o["tier"][0]
        st.rotation[b] = o["rotation"][0]
        st.first_player[b] = o["first_seat"][0]
        st.current_player[b] = o["to_move"][0]
        st.deck_size[b] = o["deck_size"][0]
    return st


# --- model files ---------------------------------------------------------------------------------

def _require_torch() -> None:
    try:
        import torch  # noqa: F401
    except ImportError as exc:
        raise PIError(f"learned policies need the 'rl' extra ({exc.name} is missing); {TORCH_HINT}") from None


def _show_setting(value: Any) -> str:
    if isinstance(value, tuple):
        return ",".join(str(v) for v in value) or "none"
    return str(value)


def model_name(spec: str) -> str:
    """``spec`` without surrounding spaces and without one agent prefix ``learned:`` (any case),
    unless ``spec`` as given is an existing file: ``"learned:4p"`` → ``"4p"``, ``"learned:learned:4p"``
    → ``"learned:4p"`` (no zoo name: refused by :func:`model_path`)."""
    spec = spec.strip()
    if spec.lower().startswith(PREFIX) and not Path(spec).expanduser().is_file():
        return spec[len(PREFIX):].strip()
    return spec


def model_path(spec: str) -> Path:
    """The file of a model: a zoo name (:data:`ZOO`) or a path to a ``.pt`` file, either with or
    without the agent prefix ``learned:`` (``"4p"`` and ``"learned:4p"`` name the same file).

    Raises:
        UnknownNameError: neither a zoo name nor an existing file (the message lists the names), or a
            directory (the message names its ``policy.pt`` if it holds one).
    """
    spec = model_name(spec)
    if not spec:
        raise UnknownNameError(f"learned model name is empty: give a zoo name ({', '.join(ZOO)}) or a .pt file, "
                               "e.g. learned:2p")
    if spec in ZOO:
        return Path(str(resources.files("pi_env.models").joinpath(ZOO[spec])))
    p = Path(spec).expanduser()
    if p.is_file():
        return p
    if p.is_dir():
        inside = p / "policy.pt"
        hint = f"; did you mean learned:{inside}?" if inside.is_file() else " (give a .pt model file)"
        raise UnknownNameError(f"learned model {spec!r} is a directory, not a model file{hint}")
    raise UnknownNameError(f"unknown learned model {spec!r}: not a zoo name ({', '.join(ZOO)}) and no such file")


@functools.lru_cache(maxsize=16)
def _load(path: str, mtime: float) -> tuple[Any, dict[str, Any]]:
    _require_torch()
    import torch

    from pi_env.agents._policy_net import PolicyNet

    try:
        saved = torch.load(path, map_location="cpu", weights_only=True)
    except Exception as exc:  # noqa: BLE001 - any unreadable file is reported in one line
        raise PIError(f"learned model {path!r} is not a readable model file ({type(exc).__name__})") from None
    if not isinstance(saved, dict) or saved.get("format") != MODEL_FORMAT:
        raise PIError(f"learned model {path!r} is not a {MODEL_FORMAT} file")
    try:
        meta = {k: saved[k] for k in ("encoding", "num_players", "hidden", "trunk", "activation", "input_size")}
        meta["card"] = dict(saved.get("card", {}))
        if (meta["encoding"] == SOLO_ENCODING) != (not int(meta["num_players"])):
            raise PIError(f"its encoding {meta['encoding']!r} is not for {int(meta['num_players']) or 'solo'} "
                          "games")
        want = encoding_size(meta["encoding"], int(meta["num_players"]) or 2)
        if int(meta["input_size"]) != want:
            raise PIError(f"its input has {meta['input_size']} entries, the {meta['encoding']!r} encoding "
                          f"{want}")
        meta["fingerprint"] = saved.get("fingerprint")
        if meta["fingerprint"] and meta["fingerprint"] != encoding_fingerprint(
                meta["encoding"], int(meta["num_players"]) or 2):  # solo models: the 2-player view
            raise PIError(f"it was trained on another version of the {meta['encoding']!r} encoding "
                          "(its fingerprint differs)")
        net = PolicyNet(int(meta["input_size"]), tuple(int(h) for h in meta["hidden"]), meta["activation"],
                        tuple(int(h) for h in meta["trunk"]))
        net.load_state_dict(saved["state_dict"])
        meta["solve_timing"] = _solve_timing_of(saved.get("solve_timing"), meta)
    except PIError as exc:
        raise PIError(f"learned model {path!r}: {exc}") from None
    except Exception as exc:  # noqa: BLE001
        first = str(exc).strip().splitlines()[0][:160] if str(exc).strip() else ""
        raise PIError(f"learned model {path!r} does not hold a policy of this version "
                      f"({type(exc).__name__}: {first})") from None
    net.eval()
    return net, meta


def _solve_timing_of(saved: Any, meta: dict[str, Any]) -> Any:
    """The :class:`~pi_env.agents.solve_timing.SolveTimingHead` of a model file's ``"solve_timing"``
    entry (``None`` without one); PIError unless the model is a ``"compact-v4"`` policy of the
    head's player count."""
    if saved is None:
        return None
    from pi_env.agents.solve_timing import ENCODING, SolveTimingHead

    head = SolveTimingHead.from_saved(saved)
    if meta["encoding"] != ENCODING or head.num_players != int(meta["num_players"]):
        raise PIError(f"its solve-timing head is for {ENCODING} at {head.num_players} players, the policy "
                      f"{meta['encoding']!r} at {int(meta['num_players'])}")
    return head


def save_model(net: Any, path: "str | Path", *, encoding: str, num_players: int, card: dict[str, Any],
               solve_timing: Any = None) -> None:
    """Write a :class:`~pi_env.agents._policy_net.PolicyNet` as a :data:`MODEL_FORMAT` file
    (atomically; read back by :func:`load_model`): ``num_players`` 0 for a solo model, ``card``
    plain values (how it was trained), ``solve_timing`` an optional
    :class:`~pi_env.agents.solve_timing.SolveTimingHead` (``"compact-v4"`` policies). The fingerprint
    is the encoding's now (:func:`encoding_fingerprint`, of the 2-player view for a solo model)."""
    import json

    import torch

    def widths(seq: Any) -> list[int]:
        return [int(m.out_features) for m in seq if isinstance(m, torch.nn.Linear)]

    data = {"format": MODEL_FORMAT, "encoding": encoding, "num_players": int(num_players),
            "fingerprint": encoding_fingerprint(encoding, int(num_players) or 2),
            "trunk": widths(net.trunk), "hidden": widths(net.policy_net), "activation": "relu",
            "input_size": int(encoding_size(encoding, int(num_players) or 2)),
            "card": json.loads(json.dumps(card)),
            "state_dict": {k: v.detach().clone() for k, v in net.state_dict().items()}}
    if solve_timing is not None:
        head = solve_timing.saved()
        head = {k: ([torch.from_numpy(np.ascontiguousarray(a)) for a in v] if k in ("weights", "biases")
                    else torch.from_numpy(np.ascontiguousarray(v)) if isinstance(v, np.ndarray) else v)
                for k, v in head.items()}
        data["solve_timing"] = head
    path = Path(path)
    tmp = path.with_name(path.name + ".tmp")
    torch.save(data, tmp)
    tmp.replace(path)


def load_model(spec: str) -> tuple[Any, dict[str, Any]]:
    """``(net, meta)`` of a model (zoo name or path; cached per file): the torch policy network
    in evaluation mode and its metadata (``encoding``, ``num_players``, ``hidden``, ``card``).

    Raises:
        UnknownNameError: an unknown name.
        PIError: torch is missing, or the file is corrupt or not a policy (one line naming it).
    """
    p = model_path(spec)
    if not p.is_file():
        raise PIError(f"learned model {spec!r}: its file {str(p)!r} is missing from this installation")
    return _load(str(p), p.stat().st_mtime)


class LearnedAgent(Agent):
    """Plays a learned policy (module docstring): the masked argmax of its 51 choices.

    Args:
        spec: a zoo name (:data:`ZOO`: ``"2p"``, ``"3p"``, ``"4p"``, ``"5p"``, ``"solo"``) or a model file.

    Raises:
        PIError: as :func:`load_model`; at :meth:`reset`, a game with another player count than
            the model's (solo models play the solo view, 2 players).
    """

    def __init__(self, spec: str):
        self.net, self.meta = load_model(spec)  # the prefix "learned:", if given, is dropped once
        self.path = str(model_path(spec))
        self.spec = model_name(spec)
        self.name = f"{PREFIX}{self.spec}"
        self._players = 0

    def reset(self, num_players: int, board: Board = DAYTIME, seed: int | None = None) -> None:
        super().reset(num_players, board, seed)
        want = int(self.meta["num_players"]) or 2  # a solo model plays the 2-player solo view
        if num_players != want:
            if not int(self.meta["num_players"]):
                raise PIError(f"learned model {self.name!r} is a Solo Time Attack model (it plays the solo "
                              f"game's 2-player view), not a {num_players}-player game")
            raise PIError(f"learned model {self.name!r} was trained for {want} players, not {num_players}")
        from pi_env.engine import GameConfig

        self._config = GameConfig(num_players=num_players, board=board)
        self._players = num_players

    def check_game(self, config: Any) -> None:
        """Refuse a game the model was not trained for. A Solo Time Attack model refuses every player
        game (the solo game resets it with :meth:`reset` alone, never through this check). A player
        model refuses rules other than those it was trained on: the standard mode, the second
        edition, no variants, the default investigators (unless the model file's card names others
        under ``"game"``: ``mode``, ``edition``, ``variants``, ``investigators``).
        Called after :meth:`reset` (:func:`pi_env.agents.base.reset_for_game`).

        Raises:
            PIError: one line naming the model as the agent is named (``learned:3p``, or the file as
                given: never the installation's path) and what differs.
        """
        from pi_env.engine import GameConfig

        if not int(self.meta["num_players"]):  # a solo model: no player game at all
            if config.mode != "standard":
                raise PIError(f"learned model {self.name!r} is a Solo Time Attack model, not for a "
                              f"{config.mode} game")
            raise PIError(f"learned model {self.name!r} is a Solo Time Attack model (it plays the solo "
                          f"game's 2-player view), not a {config.num_players}-player game")
        card = self.meta.get("card") or {}
        game = card.get("game") if isinstance(card.get("game"), dict) else {}
        base = GameConfig(num_players=config.num_players, mode=game.get("mode", "standard"))
        trained = {"mode": base.mode, "edition": game.get("edition", base.edition),
                   "variants": tuple(game.get("variants", base.variants)),
                   "investigators": tuple(game.get("investigators", base.investigators))}
        given = {"mode": config.mode, "edition": config.edition, "variants": tuple(config.variants),
                 "investigators": tuple(config.investigators)}
        keys = ["mode"] if given["mode"] != trained["mode"] else list(trained)  # a duel's other defaults follow
        diff = [f"{k} {_show_setting(given[k])} (trained: {_show_setting(trained[k])})"
                for k in keys if given[k] != trained[k]]
        if diff:
            raise PIError(f"learned model {self.name!r} was trained for other games: {'; '.join(diff)}")

    def _solo(self, observation: np.ndarray) -> np.ndarray:
        """A solo model's input as a solo observation ``int16[2452]`` (module docstring)."""
        from pi_env.engine import solo

        if observation.shape[-1] == solo.OBSERVATION_SIZE:
            return observation
        return solo_observation_of_view(observation)

    def choice(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        """The compact choice (0..50) of the policy for one observation (a solo model: a solo
        observation or its standard view)."""
        import torch

        if not self._players:
            raise PIError("call reset() before act()")
        observation = np.asarray(observation)
        solo_model = not int(self.meta["num_players"])
        if solo_model:
            from pi_env.engine.solo import SoloConfig

            x = encode_observations(self.meta["encoding"], self._solo(observation)[None], SoloConfig(board=self.board))
        else:
            x = encode_observations(self.meta["encoding"], observation[None], self._config)
        with torch.no_grad():
            logits = self.net.logits(torch.from_numpy(x))[0].numpy()
        mask = policy_mask(action_mask[None])[0]
        if solo_model:  # never a query whose answer is certain
            mask &= useful_queries(x)[0]
        c = int(np.argmax(np.where(mask, logits, -np.inf)))
        head = self.meta.get("solve_timing")
        if head is not None:  # the learned solve timing (pi_env.agents.solve_timing)
            c = int(head.apply(x, np.array([c]), mask[None, :SOLVE_ACTION])[0])
        return c

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        observation = np.asarray(observation)
        c = self.choice(observation, action_mask)
        if c < SOLVE_ACTION:
            a = c
        elif not int(self.meta["num_players"]):
            from pi_env.solvers.own_info import solo_observation_case_mask

            a = SOLVE_BASE + int(best_cases_from_mask(solo_observation_case_mask(self._solo(observation)[None],
                                                                                 self.board))[0])
        else:
            a = SOLVE_BASE + int(best_cases(observation[None], self._players, self.board)[0])
        if not 0 <= a < NUM_ACTIONS or not action_mask[a]:  # cannot happen: the mask is the engine's
            raise PIError(f"learned model {self.name!r} chose the illegal action {a}")
        return a
