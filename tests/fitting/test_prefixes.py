"""Ranking prefixes: every threshold and byte count is the sorted ranking's and the encoder's."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from tomtom_mcp_apps.fitting import _kernels, _parts, _varint
from tomtom_mcp_apps.fitting._prefixes import Prefixes, Unranked

from .support import envelope, line_feature


def ranking(seed: int, m: int, levels: int, unranked: float) -> tuple[np.ndarray, ...]:
    """Units on a walk, 1-3 parts, significances with ties (few levels), NaN and inner anchors."""
    rng = np.random.default_rng(seed)
    inner = np.arange(2, m - 1)
    cuts = np.sort(rng.choice(inner, size=min(rng.integers(0, 3), m - 4), replace=False))
    offsets = np.concatenate([[0], cuts, [m]]).astype(np.int64)
    offsets = offsets[np.concatenate([[True], np.diff(offsets) >= 2])]
    offsets[-1] = m
    scale = int(rng.choice([2, 60, 9_000, 2_000_000]))
    units = np.cumsum(rng.integers(-scale, scale + 1, size=(m, 2)), axis=0)
    sig = rng.integers(0, levels, size=m).astype(np.float64) + (rng.random(m) if levels > 50 else 0)
    sig[rng.random(m) < unranked] = np.nan
    sig[rng.random(m) < 0.03] = np.inf
    sig[offsets[:-1]] = np.inf
    sig[offsets[1:] - 1] = np.inf
    return sig, units, offsets


def encoded_bytes(units: np.ndarray, sig: np.ndarray, offsets: np.ndarray, t: float) -> int:
    return int(_varint.encode(units, np.flatnonzero(sig >= t), offsets)[0].shape[0])


@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    m=st.integers(4, 6_000),
    levels=st.sampled_from([1, 3, 40, 10_000]),
    unranked=st.sampled_from([0.0, 0.3, 0.9]),
    asks=st.lists(st.floats(0.0, 1.0), min_size=1, max_size=6),
)
@example(seed=0, m=4, levels=1, unranked=0.0, asks=[0.0, 1.0])
def test_every_prefix_asked_for_has_the_sorted_rankings_threshold_and_the_encoders_bytes(
    seed: int, m: int, levels: int, unranked: float, asks: list[float]
) -> None:
    sig, units, offsets = ranking(seed, m, levels, unranked)
    complete = not np.isnan(sig).any()
    prefixes = Prefixes(sig, units, offsets, complete)
    descending = np.sort(sig[np.isfinite(sig)])[::-1]
    assert len(prefixes) == np.count_nonzero(~np.isinf(sig))
    assert prefixes.threshold(0) == np.inf
    assert prefixes.line_bytes(0) == encoded_bytes(units, sig, offsets, np.inf)
    for ask in asks:  # in any order, near or far from each other
        k = round(ask * descending.shape[0])
        if k == 0:
            continue
        assert prefixes.threshold(k) == descending[k - 1]
        assert prefixes.line_bytes(k) == encoded_bytes(units, sig, offsets, descending[k - 1])


def test_a_prefix_past_a_cut_off_rankings_ranked_vertices_raises_unranked() -> None:
    sig, units, offsets = ranking(3, 500, 10_000, 0.5)
    prefixes = Prefixes(sig, units, offsets, complete=False)
    ranked = np.count_nonzero(np.isfinite(sig))
    assert prefixes.threshold(ranked) == np.sort(sig[np.isfinite(sig)])[0]
    with pytest.raises(Unranked):
        prefixes.threshold(ranked + 1)


def test_the_prefixes_of_a_real_ranking_count_what_the_encoder_writes() -> None:
    rng = np.random.default_rng(8)
    lonlat = 4.9 + np.cumsum(rng.normal(0, 2e-4, size=(40_000, 2)), axis=0)
    parts = _parts.collect(envelope(line_feature(lonlat))["data"])
    x, y = _kernels.project(parts.e5, parts.offsets)
    for cutoff in (-1.0, 5.0):
        sig = _kernels.rank(x, y, parts.offsets, parts.anchor, cutoff)
        prefixes = Prefixes(sig, parts.e5, parts.offsets, complete=cutoff < 0.0)
        descending = np.sort(sig[np.isfinite(sig)])[::-1]
        for k in (9_000, 8_700, 9_400, 2_000, 20_000, len(descending)):
            t = prefixes.threshold(k)
            assert t == descending[k - 1]
            assert prefixes.line_bytes(k) == encoded_bytes(parts.e5, sig, parts.offsets, t)
