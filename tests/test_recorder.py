"""Engine-written records replay exactly; scores derived from events equal the engine's
(docs/record-format.md, docs/rules.md §5)."""

import json

import numpy as np
import pytest

from pi_env.engine import GameConfig, outcome
from pi_env.core.errors import RecordError
from pi_env.records.recorder import replay_with_engine
from pi_env.records.record_file import load_record, record_to_dict
from pi_env.records.scoring import score_record
from helpers import play_game


@pytest.mark.parametrize("players,edition,seed", [(2, "second", 1), (3, "first", 2), (4, "second", 7),
                                                  (5, "first", 4), (5, "second", 5)])
def test_replay_reproduces_every_state(players, edition, seed):
    config = GameConfig(num_players=players, edition=edition)
    states = []
    final, rec = play_game(config, ["deducer", "random"] * 3, seed,
                           on_step=lambda s, p, o, a: states.append(s.copy()))
    states.append(final.copy())
    record = load_record(json.loads(json.dumps(record_to_dict(rec.record()))))
    seen = []
    replay_with_engine(record, on_step=lambda s: seen.append(s.copy()))
    assert len(seen) == len(states) - 1
    for i, s in enumerate(seen):
        assert s.equals(states[i + 1]), f"state after step {i} differs"


@pytest.mark.parametrize("seed", range(6))
def test_scores_from_events_equal_engine(seed):
    for edition in ("second", "first"):
        config = GameConfig(num_players=2 + seed % 4, edition=edition)
        final, rec = play_game(config, ["deducer", "random", "random", "deducer", "random"], seed)
        scores = score_record(rec.record())
        assert scores.scores == tuple(int(s) for s in final.score[0])
        assert scores.ranks == outcome(final, config).ranks
        assert scores.investigators_left == tuple(int(v) for v in final.inv_left[0])


def test_tampered_answer_is_rejected_with_event_index():
    config = GameConfig(num_players=3)
    _, rec = play_game(config, ["deducer"] * 3, 11)
    doc = record_to_dict(rec.record())
    # change the first clue answer of round 1 to another answer
    for i, ev in enumerate(doc["rounds"][0]["events"]):
        if "clue" in ev:
            ev["answer"] = {"nothing": "spot", "trace": "nothing", "spot": "nothing"}[ev["answer"]]
            break
    with pytest.raises(RecordError, match=rf"round 1, event {i}: "):
        load_record(doc)


def test_wrong_seed_is_rejected():
    config = GameConfig(num_players=3)
    _, rec = play_game(config, ["deducer"] * 3, 11)
    doc = record_to_dict(rec.record())
    doc["engine"]["seed"] = 12
    with pytest.raises(RecordError, match=r"round 1: (tiles|first player) differ"):
        replay_with_engine(load_record(doc))


def test_event_after_round_end_is_rejected():
    config = GameConfig(num_players=2)
    _, rec = play_game(config, ["random", "random"], 3)
    doc = record_to_dict(rec.record())
    doc.pop("engine")
    events = doc["rounds"][0]["events"]
    # random players attempt at once: the round ends after rotation 1; add a turn after that
    extra = dict(events[0])
    events.append(extra)
    with pytest.raises(RecordError, match=r"round 1, event \d+: the round ended at the end of rotation"):
        score_record(load_record(doc))


@pytest.mark.parametrize("seed", range(8))
def test_in_memory_record_equals_loaded_record(seed):
    """Recorder.record() derives the suppression flags exactly as load_record does (docs/rules.md §4.2),
    so the solver may read an in-memory record directly."""
    config = GameConfig(num_players=4)
    _, rec = play_game(config, ["random", "deducer", "random", "deducer"], seed)
    record = rec.record()
    assert record == load_record(record_to_dict(record))
