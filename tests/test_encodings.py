"""The encodings package (pi_env.encodings): one registry entry per encoding, layouts that cover
their sizes exactly, bounds and scales of the layouts' shapes, and the registry as the one source
of the sizes the environments and the learned agents use."""

from __future__ import annotations

import numpy as np
import pytest

from pi_env import encodings as E
from pi_env.core.errors import PIError
from pi_env.engine import GameConfig
from pi_env.engine.solo import SoloConfig

EXPECTED = ("observation", "flat", "packed", "packed-int8", "packed-int16", "solver", "solo-observation",
            "flat-v1", "compact-v1", "compact-v2", "compact-v3", "compact-v4", "solo-compact-v1")
# exact sizes for 2 and 4 players (docs of each encoding: 618 + 1912·P, 150 + 269·P, 78 + 105·P, ...)
SIZES = {"observation": (4442, 8266), "flat": (4442, 8266), "packed": (688, 1226), "packed-int8": (288, 498),
         "packed-int16": (288, 498), "solver": (4479, 8303), "solo-observation": (2452, 2452),
         "flat-v1": (1082, 1546), "compact-v1": (232, 248), "compact-v2": (270, 286), "compact-v3": (370, 386),
         "compact-v4": (437, 453), "solo-compact-v1": (250, 250)}


def _players(spec: E.EncodingSpec) -> tuple[int, ...]:
    return (0,) if spec.solo else E.registry.ENCODING_PLAYERS.get(spec.name, (2, 3, 4, 5))


def _config(spec: E.EncodingSpec, num_players: int, **options):
    return SoloConfig(**options) if spec.solo else GameConfig(num_players=num_players, **options)


def test_the_registry_lists_every_encoding_once():
    assert E.names() == EXPECTED
    assert len(set(E.names())) == len(E.names()) == len(E.REGISTRY)
    assert all(E.get(n).name == n for n in E.names())
    assert E.learned_names() == ("flat-v1", "compact-v1", "compact-v2", "compact-v3", "compact-v4",
                                 "solo-compact-v1")
    assert E.ENV_OBSERVATIONS == ("flat", "packed", "packed-int8", "packed-int16")
    assert E.SOLO_ENCODING == "solo-compact-v1" and E.get(E.SOLO_ENCODING).solo
    assert [n for n in E.names() if E.get(n).solo] == ["solo-observation", "solo-compact-v1"]
    assert (E.get("packed-int8").version, E.get("packed-int8").dtype) == (E.INT_LAYOUT_VERSION, "int8") == (2, "int8")
    assert [E.get(n).version for n in ("compact-v1", "compact-v2", "compact-v3", "compact-v4")] == [1, 2, 3, 4]


def test_an_unknown_encoding_is_refused_with_the_known_names():
    with pytest.raises(PIError, match=r"^unknown encoding 'compact-v9' \(known: observation, flat, packed, "):
        E.get("compact-v9")


@pytest.mark.parametrize("name", EXPECTED)
def test_the_sizes(name):
    spec = E.get(name)
    assert (spec.size(0 if spec.solo else 2), spec.size(0 if spec.solo else 4)) == SIZES[name]


@pytest.mark.parametrize("name", EXPECTED)
def test_each_layout_covers_its_size_with_no_gap_or_overlap(name):
    spec = E.get(name)
    for P in _players(spec):
        layout = spec.layout(P)
        pos = 0
        for component, (start, shape) in layout.items():
            assert start == pos, (name, P, component)  # no gap, no overlap, in order
            assert all(isinstance(d, int) and d > 0 for d in shape), (name, component, shape)
            pos += int(np.prod(shape)) if shape else 1
        assert pos == spec.size(P), (name, P)
        covered = np.zeros(spec.size(P), dtype=np.int64)
        for start, shape in layout.values():
            covered[start:start + (int(np.prod(shape)) if shape else 1)] += 1
        assert (covered == 1).all()


@pytest.mark.parametrize("name", EXPECTED)
def test_bounds_and_scales_have_the_layouts_size(name):
    spec = E.get(name)
    for P in _players(spec):
        config = _config(spec, P)
        n = spec.size(P)
        if spec.bounds is not None:
            low, high = spec.bounds(config)
            assert low.shape == high.shape == (n,), name
            assert (low <= high).all(), name
        if spec.scales is not None:
            s = spec.scales(config)
            assert s.shape == (n,) and s.dtype == np.float32 and (s > 0).all(), name


def test_which_encodings_have_bounds_and_scales():
    assert [n for n in EXPECTED if E.get(n).bounds is None] == ["compact-v2", "compact-v3", "compact-v4",
                                                                  "solo-compact-v1"]
    assert [n for n in EXPECTED if E.get(n).scales is not None] == ["flat", "flat-v1"]


def test_flat_bounds_are_the_observation_bounds_times_the_scales():
    cfg = GameConfig(num_players=3)
    low, high = E.observation_bounds(cfg)
    flow, fhigh = E.flat_bounds(cfg)
    assert np.array_equal(flow, low.astype(np.float32) * E.flat_scales(cfg))
    assert np.array_equal(fhigh, high.astype(np.float32) * E.flat_scales(cfg))
    s0 = E.observation_layout(3)["score"][0]
    assert (int(low[s0]), int(high[s0])) == (-5, 21)  # docs/rules.md §5, second edition
    assert fhigh[s0] == np.float32(21) * np.float32(1 / 21)
    assert E.component_scales(cfg).shape == (23,)


def test_flat_v1_is_the_flat_encoding_without_failed():
    cols = E.flat_v1_columns(2)
    assert cols.shape == (1082,) and cols[0] == 0
    f0 = E.observation_layout(2)["failed"][0]
    assert f0 not in cols and f0 - 1 in cols and f0 + 2 * 1680 in cols
    assert "failed" not in E.flat_v1_layout(2)
    assert np.array_equal(E.get("flat-v1").scales(GameConfig(num_players=2)), E.flat_scales(GameConfig(num_players=2))[cols])


def test_solo_observation_bounds_follow_the_config():
    low, high = E.solo_observation_bounds(SoloConfig(investigators=3, max_actions=77))
    lay = E.solo_observation_layout()
    assert (high[lay["inv_left"][0]], high[lay["actions"][0]], high[lay["wrong_solves"][0]]) == (3, 77, 77)
    assert low.dtype == high.dtype == np.int16 and int(low.max()) == 0


def test_the_environments_and_learned_agents_read_the_registry():
    from pi_env.agents import learned
    from pi_env.envs.encoders import flat_layout, flat_size, packed_bounds
    from pi_env.envs.selfplay import SelfPlayVecEnv

    assert tuple(learned.ENCODINGS) == E.learned_names()
    for name in learned.ENCODINGS:
        for P in _players(E.get(name)):
            assert learned.encoding_size(name, P) == E.get(name).size(P)
    assert flat_layout(4) == E.get("flat").layout(4) and flat_size(4) == 8266
    assert packed_bounds is E.packed_bounds
    env = SelfPlayVecEnv(2, 2, observations="packed-int8")
    space = env.single_observation_space
    low, high = E.get("packed-int8").bounds(env.config)
    assert space.dtype == np.int8 and np.array_equal(space.low, low) and np.array_equal(space.high, high)
