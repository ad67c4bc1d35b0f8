"""Polygon rings: closed, at least 4 positions, and never made self-intersecting."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
import shapely
from hypothesis import given, settings
from hypothesis import strategies as st

from tomtom_mcp_apps import fitting
from tomtom_mcp_apps.fitting import _rings

from .support import area, envelope, sent_features, spiral


def circle(lon: float, lat: float, radius: float, n: int, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    t = np.linspace(0, 2 * np.pi, n)
    r = radius * (1 + 0.05 * rng.standard_normal(n))
    ring = np.column_stack([lon + r * np.cos(t), lat + r * np.sin(t)])
    ring[-1] = ring[0]
    return ring


def test_without_the_guard_dp_would_break_the_spiral_so_the_ring_tests_can_fail(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    ring = spiral(0)
    assert shapely.Polygon(ring).is_valid
    line = shapely.simplify(shapely.LineString(ring), 0.004, preserve_topology=False)
    assert not shapely.LinearRing(shapely.get_coordinates(line)).is_simple

    def simple(budget: int) -> bool:
        result = fitting.fit(envelope(area("Polygon", [ring])), budget)
        (sent,) = sent_features(result.app_data)[0]["geometry"]["coordinates"]
        return shapely.LinearRing(sent).is_simple

    budgets = range(400, 1_000, 50)
    assert all(simple(b) for b in budgets)
    monkeypatch.setattr(_rings.RingGuard, "repair", lambda self, keep, sig: None)
    assert not all(simple(b) for b in budgets)


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 1_000), budget=st.integers(400, 1_500))
def test_a_simple_ring_stays_simple_closed_and_at_least_four_positions(
    seed: int, budget: int
) -> None:
    result = fitting.fit(envelope(area("Polygon", [spiral(seed)])), budget)
    assert len(result.app_data) <= budget
    (ring,) = sent_features(result.app_data)[0]["geometry"]["coordinates"]
    assert len(ring) >= 4
    assert ring[0] == ring[-1]
    assert shapely.Polygon(ring).is_valid


def test_holes_and_multipolygon_parts_keep_their_structure() -> None:
    shell = circle(5.0, 52.0, 0.2, 2_000, seed=1)
    hole = circle(5.0, 52.0, 0.05, 800, seed=2)[::-1]
    other = circle(6.0, 52.0, 0.1, 1_500, seed=3)
    env = envelope(area("MultiPolygon", [[shell, hole], [other]]))
    result = fitting.fit(env, 3_000)
    assert result.report is not None
    polygons = sent_features(result.app_data)[0]["geometry"]["coordinates"]
    assert [len(p) for p in polygons] == [2, 1]
    for rings in polygons:
        for ring in rings:
            assert len(ring) >= 4 and ring[0] == ring[-1]
            assert shapely.LinearRing(ring).is_simple
    assert shapely.Polygon(polygons[0][0], polygons[0][1:]).is_valid


def test_a_tiny_ring_that_rounds_to_fewer_than_four_positions_keeps_all_of_them() -> None:
    ring = [[5.0, 52.0], [5.000001, 52.0], [5.000001, 52.000001], [5.0, 52.0]]
    result = fitting.fit(envelope(area("Polygon", [ring])), 1_000)
    (sent,) = sent_features(result.app_data)[0]["geometry"]["coordinates"]
    assert len(sent) == 4 and sent[0] == sent[-1]


def test_a_ring_already_self_intersecting_is_fitted_without_endless_repair() -> None:
    bow_tie = np.array([[0, 0], [1, 1], [1, 0], [0, 1], [0, 0]], dtype=np.float64)
    dense = np.vstack(
        [np.linspace(a, b, 400, endpoint=False) for a, b in itertools.pairwise(bow_tie)]
        + [bow_tie[:1]]
    )
    dense[:, 1] += 0.001 * np.sin(np.arange(len(dense)))
    dense[-1] = dense[0]
    result = fitting.fit(envelope(area("Polygon", [dense])), 1_000)
    (ring,) = sent_features(result.app_data)[0]["geometry"]["coordinates"]
    assert len(ring) >= 4 and ring[0] == ring[-1]


def test_a_ring_across_the_antimeridian_is_fitted_the_short_way_round() -> None:
    ring = circle(180.0, -17.0, 0.5, 3_000, seed=4)
    ring[:, 0] = (ring[:, 0] + 180.0) % 360.0 - 180.0
    ring[-1] = ring[0]
    result = fitting.fit(envelope(area("Polygon", [ring])), 1_500)
    assert result.report is not None and result.report["max_error_m"] < 5_000
    (sent,) = sent_features(result.app_data)[0]["geometry"]["coordinates"]
    unwrapped = np.array(sent)
    unwrapped[unwrapped[:, 0] < 0, 0] += 360.0
    assert shapely.Polygon(unwrapped).is_valid
    assert 20 < len(sent) < 3_000
