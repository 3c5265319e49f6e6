"""P.I. as an OpenSpiel game (needs ``pip install '.[openspiel]'``).

Importing this module registers :data:`GAME_NAME` with :func:`pyspiel.register_game`, so
``pyspiel.load_game("python_pi", {"players": 4})`` builds it and OpenSpiel's algorithms run on it
unchanged — its information-set MCTS bot (``open_spiel.python.algorithms.ismcts.ISMCTSBot``) among
them, through :meth:`PiState.resample_from_infostate`.

**Game.** Parameters: ``players`` (2..5, default 2), ``seed`` (default 0), ``edition``
(``"second"`` / ``"first"``). A state wraps one engine game (:class:`pi_env.engine.State`, ``B = 1``)
and plays the engine's rules (docs/rules.md §3–§5): player actions are the engine's 1,730 action ids
(:data:`pi_env.core.constants.NUM_ACTIONS`), legal as the engine's mask says.

**Chance nodes** (``EXPLICIT_STOCHASTIC``), every outcome uniform, in this order each round:

1. **the deal** (docs/rules.md §3.2): one node per player ``i = 0..P−1`` whose outcomes are the case
   ids (``0..1679``) sharing no suspect, evidence or location with the cases dealt before it this
   round — together the engine's draw without replacement from each case deck;
2. **the display** (§3.3): 9 nodes, each turning up one clue card (outcome: its element id ``0..35``)
   among the cards not yet turned up;
3. **every draw** during the round (§4.1: a clue card taken from the display is replaced from the
   deck, reshuffling the discard pile when the deck is empty): one node whose outcomes are the cards
   the deck held at that moment. (The engine draws the top card of a uniformly shuffled deck; the
   chance node replaces that card by the outcome, which has the same distribution.)

The tile layouts (§3.1) and the first player of round 1 (§3.4) come from the engine's generator,
seeded by the ``seed`` parameter: public, and a fixed function of the seed and the history, so they
are not chance nodes.

**Returns** (``CONSTANT_SUM``, terminal): each player's share of the win (1/k to each of k tied
winners after the edition's tiebreaks, docs/rules.md §5; 0 to the others).

**Information.** Player ``p`` sees every public event (cards turned up, every action with its answer:
docs/rules.md §9) and the case it holds (player ``p + 1``'s, dealt by the chance node of that player).
:meth:`PiState.information_state_string` is the sequence of these events (perfect recall);
:meth:`PiState.observation_string` / the tensors are the engine observation
(:func:`pi_env.engine.observe`, ``618 + 1912·P`` entries, relative seats), which holds the current
round's public answers, the held case and the scores; the information-state tensor is the same
vector (it does not record the order of events).

**Resampling.** :meth:`PiState.resample_from_infostate` draws the other players' cases of the current
round exactly from the joint posterior of the acting player's information
(:func:`pi_env.solvers.worlds.world_sampler`); the rest of the state (public, or irrelevant: the deck
order, since every draw is a chance node) is copied.

:class:`RulesRolloutEvaluator` is an OpenSpiel evaluator (``open_spiel.python.algorithms.mcts.Evaluator``)
that plays a state to its end with the engine's fused rules-of-thumb rollout
(:func:`pi_env.engine.rollout`), for the MCTS bots.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from pi_env.core.constants import (IN_DECK, NUM_ACTIONS, NUM_CASES, NUM_ELEMENTS, ON_DISPLAY, SOLVE_BASE,
                                   DISPLAY_SIZE)
from pi_env.core.errors import PIError
from pi_env.engine import GameConfig, init, legal_action_mask, observe, outcome, step_inplace
from pi_env.engine.observe import observation_layout, observation_size
from pi_env.engine.play import rollout

__all__ = ["GAME_NAME", "OPENSPIEL_INSTALL_HINT", "RulesRolloutEvaluator", "require_openspiel", "case_triple"]
# with OpenSpiel installed also PiGame, PiState and PiObserver (defined below)

GAME_NAME = "python_pi"
"""The name the game is registered under (``pyspiel.load_game(GAME_NAME, {...})``)."""
OPENSPIEL_INSTALL_HINT = "install the OpenSpiel extra: pip install '.[openspiel]'"

try:
    import pyspiel
except ImportError as _exc:  # the module documents itself; using it needs pyspiel
    pyspiel = None
    _IMPORT_ERROR: "ImportError | None" = _exc
else:
    _IMPORT_ERROR = None


def require_openspiel() -> None:
    """Raise a one-line :class:`~pi_env.core.errors.PIError` unless ``pyspiel`` imports."""
    if pyspiel is None:
        raise PIError(f"OpenSpiel is not installed ({_IMPORT_ERROR}); {OPENSPIEL_INSTALL_HINT}")


def case_triple(case_id: int) -> tuple[int, int, int]:
    """Type-local ``(suspect, evidence, location)`` of a case id (``s·140 + e·14 + l``)."""
    return case_id // 140, (case_id // 14) % 10, case_id % 14


class _Log(tuple):
    """The event log (``(who sees it, text)`` pairs): an immutable tuple that OpenSpiel's clone (a
    deep copy) shares instead of copying."""

    def __deepcopy__(self, memo: dict) -> "_Log":
        return self

    def plus(self, *items: tuple[int, str]) -> "_Log":
        return _Log(tuple(self) + items)


_SAMPLERS: dict = {}
_SAMPLER_CACHE = 256


def _sampler(knowledge: Any, key: Any) -> Any:
    """:func:`pi_env.solvers.worlds.world_sampler` of ``knowledge``, cached by ``key`` (the
    information state), so that repeated resampling from one information set builds it once."""
    from pi_env.solvers.worlds import world_sampler

    ws = _SAMPLERS.get(key)
    if ws is None:
        if len(_SAMPLERS) >= _SAMPLER_CACHE:
            _SAMPLERS.clear()
        ws = _SAMPLERS[key] = world_sampler(knowledge)
    return ws


_CASE_PARTS = np.array([case_triple(c) for c in range(NUM_CASES)], dtype=np.int64)  # [1680, 3]
_DEFAULTS = {"players": 2, "seed": 0, "edition": "second"}
_CONFIGS: dict[tuple[int, str], GameConfig] = {}


def _config(players: int, edition: str) -> GameConfig:
    key = (int(players), str(edition))
    if key not in _CONFIGS:
        _CONFIGS[key] = GameConfig(num_players=key[0], edition=key[1])
    return _CONFIGS[key]


if pyspiel is not None:
    _GAME_TYPE = pyspiel.GameType(
        short_name=GAME_NAME, long_name="P.I. (pi-env engine)",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.CONSTANT_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=5, min_num_players=2,
        provides_information_state_string=True, provides_information_state_tensor=True,
        provides_observation_string=True, provides_observation_tensor=True,
        parameter_specification=dict(_DEFAULTS))

    class PiGame(pyspiel.Game):
        """The OpenSpiel game (module docstring). ``params``: ``players``, ``seed``, ``edition``.

        Raises:
            PIError: a player count outside 2..5, an unknown edition or a negative seed.
        """

        def __init__(self, params: "dict[str, Any] | None" = None):
            p = dict(_DEFAULTS)
            p.update(params or {})
            P, edition, seed = int(p["players"]), str(p["edition"]), int(p["seed"])
            if seed < 0:
                raise PIError(f"seed must be non-negative, got {seed}")
            cfg = _config(P, edition)  # checks players and edition
            player_moves = cfg.round_limit * (cfg.max_rotations + 1) * P
            chance = cfg.round_limit * (P + DISPLAY_SIZE) + player_moves
            info = pyspiel.GameInfo(num_distinct_actions=NUM_ACTIONS, max_chance_outcomes=NUM_CASES,
                                    num_players=P, min_utility=0.0, max_utility=1.0, utility_sum=1.0,
                                    max_game_length=player_moves + chance)
            super().__init__(_GAME_TYPE, info, p)
            self.players, self.edition, self.seed = P, edition, seed

        def new_initial_state(self) -> "PiState":
            """The start of a game: the deal's first chance node."""
            return PiState(self)

        def make_py_observer(self, iig_obs_type=None, params=None) -> "PiObserver":
            """The observer of the tensors and strings (perfect recall: the information state)."""
            if params:
                raise ValueError(f"observation parameters are not supported, got {params}")
            return PiObserver(self.players, iig_obs_type)

    class PiState(pyspiel.State):
        """One game (module docstring). Attributes are plain values and arrays (OpenSpiel clones a
        Python state by deep-copying them)."""

        def __init__(self, game: PiGame):
            super().__init__(game)
            self._P = game.players
            self._edition = game.edition
            self._st = init(_config(self._P, self._edition), 1, seed=game.seed)
            self._log = _Log()  # (who sees it: -1 everyone, else a player, text)
            self._new_round()

        # -- chance bookkeeping ------------------------------------------------------------------

        def _new_round(self) -> None:
            """Queue the round's deal and display chance nodes; nothing is dealt or shown yet."""
            st = self._st
            st.card_place[0] = IN_DECK
            st.deck[0] = np.arange(NUM_ELEMENTS)
            st.deck_size[0] = NUM_ELEMENTS
            self._dealt: list[int] = []
            self._pending: list[tuple[str, int]] = [("deal", i) for i in range(self._P)]
            self._pending += [("show", -1)] * DISPLAY_SIZE
            self._log = self._log.plus((-1, f"round {int(st.round[0]) + 1}"))

        def _deal_outcomes(self) -> np.ndarray:
            ok = np.ones(NUM_CASES, dtype=bool)
            for c in self._dealt:
                ok &= (_CASE_PARTS != _CASE_PARTS[c]).all(axis=1)
            return np.flatnonzero(ok)

        def _card_outcomes(self) -> np.ndarray:
            kind, drawn = self._pending[0]
            pool = self._st.card_place[0] == IN_DECK
            if kind == "draw":
                pool = pool.copy()
                pool[drawn] = True
            return np.flatnonzero(pool)

        def _sync_deck(self) -> None:
            st = self._st
            cards = np.flatnonzero(st.card_place[0] == IN_DECK)
            st.deck[0] = 0
            st.deck[0, :cards.size] = cards
            st.deck_size[0] = cards.size

        # -- OpenSpiel API -----------------------------------------------------------------------

        def current_player(self) -> int:
            if self._st.done[0]:
                return pyspiel.PlayerId.TERMINAL
            if self._pending:
                return pyspiel.PlayerId.CHANCE
            return int(self._st.current_player[0])

        def _legal_actions(self, player: int) -> list[int]:
            return np.flatnonzero(legal_action_mask(self._st)[0]).tolist()

        def chance_outcomes(self) -> list[tuple[int, float]]:
            kind = self._pending[0][0]
            outs = self._deal_outcomes() if kind == "deal" else self._card_outcomes()
            p = 1.0 / outs.size
            return [(int(o), p) for o in outs]

        def _apply_action(self, action: int) -> None:
            st = self._st
            if self._pending:
                kind, arg = self._pending.pop(0)
                if kind == "deal":
                    if action not in set(self._deal_outcomes().tolist()):
                        raise PIError(f"chance: case {action} cannot be dealt to player {arg}")
                    self._dealt.append(int(action))
                    st.case[0, arg] = _CASE_PARTS[action]
                    holder = (arg - 1) % self._P
                    self._log = self._log.plus((holder, f"case of player {arg}: {action}"),
                                               (-1, f"case of player {arg} dealt"))
                    return
                if st.card_place[0, action] != IN_DECK and not (kind == "draw" and action == arg):
                    raise PIError(f"chance: card {action} is not in the deck")
                if kind == "draw" and action != arg:  # the drawn card goes back, the outcome comes up
                    st.card_place[0, arg] = IN_DECK
                st.card_place[0, action] = ON_DISPLAY
                self._sync_deck()
                self._log = self._log.plus((-1, f"card {action} turned up"))
                return
            before_round = int(st.round[0])
            shown = st.card_place[0] == ON_DISPLAY
            p = int(st.current_player[0])
            step_inplace(st, np.array([action], dtype=np.int64), _config(self._P, self._edition))
            ans = st.last_answer[0].tolist()
            self._log = self._log.plus((-1, f"player {p}: action {action} answered {ans}"))
            if st.done[0]:
                return
            if int(st.round[0]) != before_round:
                self._new_round()
                return
            new = np.flatnonzero((st.card_place[0] == ON_DISPLAY) & ~shown)
            if new.size > 1:  # the engine refills one card per card taken (docs/rules.md §4.1)
                raise PIError(f"engine turned up {new.size} cards in one step; expected at most 1")
            for c in new.tolist():
                self._pending.append(("draw", int(c)))

        def _action_to_string(self, player: int, action: int) -> str:
            if player == pyspiel.PlayerId.CHANCE:
                kind = self._pending[0][0] if self._pending else "?"
                return f"deal case {action}" if kind == "deal" else f"turn up card {action}"
            if action < 36:
                return f"clue {action}"
            if action < SOLVE_BASE:
                return f"investigator {action - 36}"
            return f"solve {action - SOLVE_BASE}"

        def is_terminal(self) -> bool:
            return bool(self._st.done[0])

        def returns(self) -> list[float]:
            if not self._st.done[0]:
                return [0.0] * self._P
            res = outcome(self._st, _config(self._P, self._edition), 0)
            k = len(res.winners)
            return [1.0 / k if p in res.winners else 0.0 for p in range(self._P)]

        def __str__(self) -> str:
            st = self._st
            return (f"round {int(st.round[0]) + 1} rotation {int(st.rotation[0])} tier {int(st.tier[0])} "
                    f"to move {self.current_player()} scores {st.score[0].tolist()} "
                    f"cases {[int(c[0]) * 140 + int(c[1]) * 14 + int(c[2]) for c in st.case[0]]} "
                    f"display {np.flatnonzero(st.card_place[0] == ON_DISPLAY).tolist()} pending {len(self._pending)}")

        # -- information -------------------------------------------------------------------------

        def engine_observation(self, player: int) -> np.ndarray:
            """``int16[618 + 1912·P]``: the engine observation of ``player``
            (:func:`pi_env.engine.observe`), the held case blanked until it is dealt."""
            obs = observe(self._st, player)[0].copy()
            held = (player + 1) % self._P
            if held >= len(self._dealt):
                start, shape = observation_layout(self._P)["held_case"]
                obs[start:start + shape[0]] = 0
            return obs

        def history_string(self, player: int) -> str:
            """The perfect-recall view of ``player`` (module docstring, *Information*)."""
            return f"p{player}\n" + "\n".join(t for who, t in self._log if who in (-1, player))

        def resample_from_infostate(self, player_id: int, probability_sampler: Any) -> "PiState":
            """A state drawn from ``player_id``'s information set: the current round's cases of the
            other players drawn exactly from the joint posterior of ``player_id``'s information
            (module docstring, *Resampling*); ``probability_sampler()`` (a uniform in [0, 1),
            e.g. ``pyspiel.UniformProbabilitySampler``) seeds the draw.

            Raises:
                PIError: called at a chance node of the deal (the information set is not a round's).
            """
            from pi_env.solvers.observation import knowledge_from_observation

            if len(self._dealt) < self._P:
                raise PIError("resample_from_infostate: the round's deal is not complete")
            new = self.clone()
            cfg = _config(self._P, self._edition)
            k = knowledge_from_observation(self.engine_observation(player_id), self._P, cfg.board, player=player_id)
            seed = int(float(probability_sampler()) * 2 ** 53)
            world = _sampler(k, (player_id, self.history_string(player_id))).sample(1, seed)[0]
            new._st.case[0] = _CASE_PARTS[world]
            new._dealt = [int(c) for c in world]
            log = list(new._log)
            start = len(log) - 1 - next(i for i, (w, t) in enumerate(reversed(log))
                                        if w == -1 and t.startswith("round "))
            for i in range(start, len(log)):
                who, text = log[i]
                if who >= 0 and text.startswith("case of player "):
                    q = int(text.split()[3].rstrip(":"))
                    log[i] = (who, f"case of player {q}: {int(world[q])}")
            new._log = _Log(log)
            return new

        def information_state_string(self, player: "int | None" = None) -> str:  # type: ignore[override]
            return self.history_string(self.current_player() if player is None else player)

    class PiObserver:
        """OpenSpiel's Python observer: ``tensor`` (float32 engine observation) and the strings."""

        def __init__(self, num_players: int, iig_obs_type: Any = None):
            self.perfect_recall = bool(iig_obs_type is not None and iig_obs_type.perfect_recall)
            self.tensor = np.zeros(observation_size(num_players), np.float32)
            self.dict = {"observation": self.tensor}

        def set_from(self, state: PiState, player: int) -> None:
            self.tensor[:] = state.engine_observation(player)

        def string_from(self, state: PiState, player: int) -> str:
            if self.perfect_recall:
                return state.history_string(player)
            obs = state.engine_observation(player)
            nz = np.flatnonzero(obs)
            return f"p{player} " + " ".join(f"{i}:{int(obs[i])}" for i in nz)

    pyspiel.register_game(_GAME_TYPE, PiGame)
    __all__ += ["PiGame", "PiState", "PiObserver"]


class RulesRolloutEvaluator:
    """An OpenSpiel MCTS evaluator (``evaluate``/``prior``, the interface of
    ``open_spiel.python.algorithms.mcts.Evaluator``): ``n_rollouts`` plays of the state to its end by
    the engine's fused rules-of-thumb policy (:func:`pi_env.engine.rollout`, one call), pending
    chance nodes first drawn uniformly; the value is the mean share of the win per player. The
    prior is uniform over the legal actions (chance: the chance outcomes).

    Args:
        n_rollouts: plays per evaluation.
        seed: seeds the chance draws and the policy streams.
    """

    def __init__(self, n_rollouts: int = 16, seed: int = 0):
        require_openspiel()
        self.n_rollouts = int(n_rollouts)
        self._rng = np.random.default_rng(seed)

    def evaluate(self, state: Any) -> np.ndarray:
        """``float64[P]``: the mean win share of every player."""
        if state.is_terminal():
            return np.asarray(state.returns(), dtype=np.float64)
        s = state.clone()
        while s.is_chance_node():
            outs = s.chance_outcomes()
            s.apply_action(outs[int(self._rng.integers(len(outs)))][0])
        if s.is_terminal():
            return np.asarray(s.returns(), dtype=np.float64)
        cfg = _config(s._P, s._edition)
        batch = s._st.take(np.zeros(self.n_rollouts, dtype=np.int64))
        for b in range(self.n_rollouts):  # each play its own deck order and generator
            n = int(batch.deck_size[b])
            batch.deck[b, :n] = self._rng.permutation(batch.deck[b, :n])
        batch.rng[:] = self._rng.integers(1, 2 ** 63, size=self.n_rollouts, dtype=np.int64).astype(np.uint64)
        streams = self._rng.integers(1, 2 ** 63, size=self.n_rollouts, dtype=np.int64).astype(np.uint64)
        res = rollout(batch, cfg, "rules", seed=streams, copy=False, parallel=False)
        share = res.winners / np.maximum(res.winners.sum(axis=1, keepdims=True), 1)
        return share.mean(axis=0)

    def prior(self, state: Any) -> list[tuple[int, float]]:
        """Uniform over the legal actions; at a chance node its outcomes."""
        if state.is_chance_node():
            return state.chance_outcomes()
        legal = state.legal_actions()
        return [(a, 1.0 / len(legal)) for a in legal]
