"""Encodings: what every array a player's view is turned into looks like (docs/rules.md §9).

One place for each encoding's layout (component name -> ``(start, shape)``), size, bounds, scales
and version, and one registry of them (:data:`REGISTRY`, name -> :class:`EncodingSpec`) that the
environments, the learned agents and the training code read. This package holds descriptions only
(numpy, no numba) and imports nothing but :mod:`pi_env.core`: the engine's writers
(:mod:`pi_env.engine.observe`, :mod:`pi_env.engine.packed`, :mod:`pi_env.engine.writer`,
:mod:`pi_env.engine.solo`) take their offsets from it, the encoders of :mod:`pi_env.envs.encoders`
their scales, :mod:`pi_env.solvers.compact` its layouts.

Example:
    >>> from pi_env import encodings
    >>> spec = encodings.get("packed-int8")
    >>> spec.size(2), spec.version, spec.dtype
    (288, 2, 'int8')
    >>> encodings.get("compact-v3").size(4)
    386
"""

from pi_env.encodings.bounds import (FAILED_COUNT, GAIN_SCALE, TILE_SCALE, GameRules, SoloRules, compact_bounds,
                                     compact_scales, component_scales, flat_bounds, flat_scales, flat_v1_bounds,
                                     flat_v1_scales, observation_bounds,
                                     packed_bounds, packed_int_bounds, packed_int_scales, solo_compact_bounds,
                                     solo_observation_bounds, solver_bounds)
from pi_env.encodings.layouts import (INT_LAYOUT_VERSION, SOLO_COMPACT_SIZE, SOLO_OBSERVATION_SIZE, SOLVER_FEATURES,
                                      compact_layout, compact_size, flat_v1_columns, flat_v1_layout, flat_v1_size,
                                      observation_layout, observation_size,
                                      packed_int_layout, packed_int_size, packed_int_unpacking, packed_layout,
                                      packed_size, solo_compact_layout, solo_observation_layout, solver_layout,
                                      solver_size)
from pi_env.encodings.registry import ENV_OBSERVATIONS, REGISTRY, SOLO_ENCODING, EncodingSpec, get, learned_names, names

__all__ = ["EncodingSpec", "REGISTRY", "get", "names", "learned_names", "SOLO_ENCODING", "ENV_OBSERVATIONS",
           "GameRules", "SoloRules", "observation_layout", "observation_size", "observation_bounds", "flat_scales",
           "flat_bounds", "component_scales", "flat_v1_layout", "flat_v1_size", "flat_v1_columns",
           "flat_v1_bounds", "flat_v1_scales", "packed_layout", "packed_size", "packed_bounds", "TILE_SCALE",
           "FAILED_COUNT", "INT_LAYOUT_VERSION", "packed_int_layout", "packed_int_size", "packed_int_unpacking",
           "packed_int_bounds", "packed_int_scales", "solo_observation_layout", "SOLO_OBSERVATION_SIZE",
           "solo_observation_bounds", "SOLVER_FEATURES", "solver_layout", "solver_size", "solver_bounds",
           "GAIN_SCALE", "compact_layout", "compact_size", "compact_scales", "compact_bounds",
           "solo_compact_layout", "SOLO_COMPACT_SIZE", "solo_compact_bounds"]
