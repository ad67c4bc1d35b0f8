"""The significance ranking against GEOS Douglas-Peucker, and degenerate lines."""

from __future__ import annotations

import functools
import itertools

import numpy as np
import pytest
import shapely
from hypothesis import example, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from tomtom_mcp_apps import fitting
from tomtom_mcp_apps.fitting import _kernels, _parts

from .support import envelope, line_feature, sent_features


def ranked(lonlat: np.ndarray, anchors: tuple[int, ...] = ()) -> tuple[np.ndarray, np.ndarray]:
    parts = _parts.collect(envelope(line_feature(lonlat))["data"])
    assert parts.e5.shape[0] == len(lonlat), "test lines carry no consecutive duplicates"
    anchor = parts.anchor.copy()
    anchor[list(anchors)] = True
    x, y = _kernels.project(parts.e5, parts.offsets)
    return np.column_stack([x, y]), _kernels.rank(x, y, parts.offsets, anchor, -1.0)


# GEOS measures a vertex's distance as |cross / len^2| * len (or the root of a squared end
# distance), the kernel compares squared distances: they round differently, so
# where two vertices are equally far up to rounding (zigzags, collinear runs), or the farthest
# is as far as the tolerance, each may decide otherwise. A micrometre is far above that
# rounding (coordinates below 1e7 m, ulps of 2e-9 m) and far below any distance that matters
# on the 1e-5 degree (~1 m) grid.
NEAR_TIE_M = 1e-6


def douglas_peucker_up_to_near_ties(
    xy: np.ndarray, keep: np.ndarray, a: int, b: int, tolerance: float
) -> bool:
    """Whether the vertices kept from a to b are DP's at `tolerance` with every comparison
    within NEAR_TIE_M allowed either way: which vertex is farthest, and whether it is beyond
    the tolerance. Distances are GEOS's."""

    @functools.cache
    def splits(i: int, j: int) -> bool:
        if j - i < 2:
            return True
        d = shapely.distance(shapely.points(xy[i + 1 : j]), shapely.linestrings(xy[[i, j]]))
        far = d.max()
        kept = np.flatnonzero(keep[i + 1 : j])
        if kept.size == 0:
            return bool(far <= tolerance + NEAR_TIE_M)
        return bool(far > tolerance - NEAR_TIE_M) and any(
            splits(i, i + 1 + k) and splits(i + 1 + k, j) for k in kept if d[k] >= far - NEAR_TIE_M
        )

    return splits(a, b)


def assert_geos_douglas_peucker(
    xy: np.ndarray, keep: np.ndarray, tolerance: float, cuts: list[int]
) -> None:
    """`keep` is GEOS's DP at `tolerance` on each run between consecutive `cuts` or, where it
    differs, DP's under another reading of near-ties (and nothing else)."""
    expected = [xy[cuts[0]]]
    for a, b in itertools.pairwise(cuts):
        run = shapely.simplify(
            shapely.linestrings(xy[a : b + 1]), tolerance, preserve_topology=False
        )
        expected.extend(shapely.get_coordinates(run)[1:])
    if np.array_equal(xy[keep], expected) or all(
        douglas_peucker_up_to_near_ties(xy, keep, a, b, tolerance)
        for a, b in itertools.pairwise(cuts)
    ):
        return
    np.testing.assert_array_equal(
        xy[keep], np.array(expected), err_msg="not GEOS's DP, nor DP's up to near-ties"
    )


steps = hnp.arrays(
    np.int64,
    st.tuples(st.integers(1, 120), st.just(2)),
    elements=st.integers(-400, 400),
)


def walk(step: np.ndarray, lat0: int = 52) -> np.ndarray:
    """A line on the 1e-5 degree grid with no consecutive duplicates and distinct ends."""
    step = step.copy()
    step[(step == 0).all(axis=1)] = [1, 0]
    e5 = np.vstack([[490_000, lat0 * 100_000], step]).cumsum(axis=0)
    if (e5[0] == e5[-1]).all():
        e5 = np.vstack([e5, e5[-1] + [7, 3]])
    return e5 / 1e5


@settings(max_examples=80, deadline=None)
@given(step=steps, cut=st.floats(0.0, 1.0))
@example(step=np.array([[5, 0]]), cut=0.5)  # two points
@example(step=np.array([[5, 0]] * 20), cut=0.5)  # collinear
@example(step=np.array([[5, 0], [-5, 0]] * 6 + [[3, 1]]), cut=0.3)  # back and forth
@example(  # nearly collinear: two significances an ulp apart, the tolerance on one of them
    step=np.array(
        [[-1, -225]]
        + [[0, 299]] * 4
        + [[299, 299]] * 4
        + [[299, -1], [299, -349]]
        + [[299, 299]] * 36
        + [[299, 399]]
        + [[299, 299]] * 9
        + [[299, 338]]
        + [[299, 299]] * 11
    ),
    cut=0.125,
)
@example(step=np.array([[19, 383], [-192, 302]] * 6), cut=0.27)  # zigzag: equally far vertices
def test_every_threshold_prefix_is_geos_douglas_peucker_up_to_near_ties(
    step: np.ndarray, cut: float
) -> None:
    lonlat = walk(step)
    xy, sig = ranked(lonlat)
    levels = np.unique(sig[np.isfinite(sig)])
    bounds = np.concatenate([levels, [levels[-1] * 2 + 1 if levels.size else 1.0]])
    if levels.size:
        i = min(int(cut * levels.size), levels.size - 1)
        # Between two significances (on one, when they are an ulp apart).
        tolerance = (bounds[i] + bounds[i + 1]) / 2
    else:
        tolerance = 1.0
    assert_geos_douglas_peucker(xy, sig > tolerance, tolerance, [0, len(xy) - 1])


@settings(max_examples=40, deadline=None)
@given(step=steps, data=st.data())
def test_anchors_are_kept_and_split_the_line_into_independent_dp_runs(
    step: np.ndarray, data: st.DataObject
) -> None:
    lonlat = walk(step)
    n = len(lonlat)
    anchors = tuple(data.draw(st.sets(st.integers(0, n - 1), max_size=4)))
    xy, sig = ranked(lonlat, anchors)
    assert np.isinf(sig[[0, n - 1, *anchors]]).all()
    tolerance = data.draw(st.floats(0.01, 5_000.0))
    assert_geos_douglas_peucker(xy, sig > tolerance, tolerance, sorted({0, n - 1, *anchors}))


def test_significance_never_exceeds_the_parents_so_prefixes_are_nested() -> None:
    rng = np.random.default_rng(3)
    lonlat = walk(rng.integers(-300, 300, size=(3_000, 2)))
    _xy, sig = ranked(lonlat)
    kept_before = None
    for tolerance in np.quantile(sig[np.isfinite(sig)], [0.99, 0.9, 0.5, 0.1]):
        kept = set(np.flatnonzero(sig > tolerance))
        if kept_before is not None:
            assert kept_before <= kept
        kept_before = kept


def fit_line(coords: list | np.ndarray, budget: int = 400, **props: object) -> tuple[dict, dict]:
    result = fitting.fit(envelope(line_feature(coords, **props)), budget)
    return sent_features(result.app_data)[0], result.report


def test_a_two_point_line_comes_through_unchanged() -> None:
    feature, _ = fit_line([[4.9, 52.37], [4.91, 52.38]])
    assert feature["geometry"]["coordinates"] == [[4.9, 52.37], [4.91, 52.38]]


def test_a_line_whose_points_are_all_equal_becomes_two_equal_positions() -> None:
    feature, _ = fit_line([[4.9, 52.37]] * 50, progress=[{"pointIndex": 30}])
    assert feature["geometry"]["coordinates"] == [[4.9, 52.37], [4.9, 52.37]]
    assert feature["properties"]["progress"] == [{"pointIndex": 0}]


def test_zero_length_segments_are_dropped_and_indices_renumbered() -> None:
    coords = [[4.9, 52.37], [4.9, 52.37], [4.901, 52.37], [4.901000001, 52.37], [4.902, 52.371]]
    feature, report = fit_line(coords, sections=[{"startPointIndex": 3, "endPointIndex": 4}])
    assert report is None
    assert feature["geometry"]["coordinates"] == [[4.9, 52.37], [4.901, 52.37], [4.902, 52.371]]
    assert feature["properties"]["sections"] == [{"startPointIndex": 1, "endPointIndex": 2}]


def test_a_line_across_the_antimeridian_is_fitted_the_short_way_round() -> None:
    lon = np.linspace(179.0, 181.0, 4_000)
    lat = -17.0 + 0.01 * np.sin(np.linspace(0, 40, 4_000))
    coords = np.column_stack([(lon + 180.0) % 360.0 - 180.0, lat])
    feature, report = fit_line(coords, budget=1_500)
    assert report is not None
    sent = np.array(feature["geometry"]["coordinates"])
    assert (np.abs(np.diff(sent[:, 0])) > 1.0).sum() == 1  # one step across 180
    assert report["max_error_m"] < 200.0  # short way: ~220 km long, wiggles of ~1 km


def test_lines_near_the_poles_are_fitted_with_an_honest_finite_error() -> None:
    t = np.linspace(0.0, 1.0, 3_000)
    coords = np.column_stack([-180.0 + 359.9 * t, 89.99 - 0.005 * np.sin(60 * t)])
    feature, report = fit_line(coords, budget=1_500)
    assert report is not None and np.isfinite(report["max_error_m"])
    assert report["max_error_m"] < 600.0  # the whole line is a ~2 km circle around the pole
    assert len(feature["geometry"]["coordinates"]) >= 2


def test_a_line_through_the_pole_with_equal_latitudes_stays_valid() -> None:
    coords = [[0.0, 90.0], [90.0, 90.0], [180.0, 90.0], [-90.0, 89.9]]
    feature, _ = fit_line(coords, budget=1_000)
    assert feature["geometry"]["coordinates"][0] == [0.0, 90.0]


@pytest.mark.parametrize("budget", [350, 500, 800])
def test_a_fitted_line_always_fits_its_budget(budget: int) -> None:
    rng = np.random.default_rng(budget)
    coords = 4.9 + np.cumsum(rng.normal(0, 1e-4, size=(2_000, 2)), axis=0)
    result = fitting.fit(envelope(line_feature(coords)), budget)
    assert len(result.app_data) <= budget


def test_a_ranking_stack_too_small_is_reported_so_it_can_be_retried_larger() -> None:
    rng = np.random.default_rng(5)
    lonlat = walk(rng.integers(-300, 300, size=(2_000, 2)))
    parts = _parts.collect(envelope(line_feature(lonlat))["data"])
    x, y = _kernels.project(parts.e5, parts.offsets)
    sig = np.empty_like(x)
    assert not _kernels._rank_into(sig, x, y, parts.offsets, parts.anchor, 3, -1.0)
    assert _kernels._rank_into(sig, x, y, parts.offsets, parts.anchor, len(x) + 1, -1.0)
    np.testing.assert_array_equal(sig, _kernels.rank(x, y, parts.offsets, parts.anchor, -1.0))


def test_a_long_line_ranks_exactly_as_geos_through_every_search_regime() -> None:
    """Long enough for the blocked and the bound-pruned farthest searches."""
    rng = np.random.default_rng(11)
    xy, sig = ranked(walk(rng.integers(-300, 300, size=(11_999, 2))))
    levels = np.unique(sig[np.isfinite(sig)])
    for q in (0.05, 0.5, 0.95):
        i = min(int(q * levels.size), levels.size - 2)
        tolerance = (levels[i] + levels[i + 1]) / 2
        geos = shapely.get_coordinates(
            shapely.simplify(shapely.linestrings(xy), tolerance, preserve_topology=False)
        )
        np.testing.assert_array_equal(xy[sig > tolerance], geos)


@pytest.mark.parametrize(
    ("n", "first"), [(21, 1), (1_001, 1), (5_001, 513)], ids=["scalar", "blocks", "pruned"]
)
def test_of_equally_far_vertices_the_first_splits_in_every_search_regime(
    n: int, first: int
) -> None:
    """Exact ties (integers, one cross product for all): what GEOS comparisons leave open.

    A flat start then a zigzag on the chord's side; wider steps in the second half give
    its blocks the higher bounds, so the pruned search finds a later tie first.
    """
    i = np.arange(n)
    x = np.cumsum(np.where(i > n // 2, 2.0, 1.0))
    y = np.where(i >= first, i % 2, 0).astype(np.float64)
    sig = _kernels.rank(x, y, np.array([0, n]), np.zeros(n, dtype=bool), -1.0)
    assert sig[first] == 1.0
    assert np.argmax(np.where(np.isfinite(sig), sig, -1.0)) == first


@settings(max_examples=40, deadline=None)
@given(step=steps, data=st.data())
def test_a_cut_off_ranking_taken_deeper_is_the_ranking_cut_off_there(
    step: np.ndarray, data: st.DataObject
) -> None:
    lonlat = walk(step)
    n = len(lonlat)
    parts = _parts.collect(envelope(line_feature(lonlat))["data"])
    anchor = parts.anchor.copy()
    anchor[list(data.draw(st.sets(st.integers(0, n - 1), max_size=3)))] = True
    x, y = _kernels.project(parts.e5, parts.offsets)
    full = _kernels.rank(x, y, parts.offsets, anchor, -1.0)
    levels = np.unique(full[np.isfinite(full)])
    first, second = sorted(
        data.draw(st.lists(st.sampled_from([-1.0, *levels]), min_size=2, max_size=2))
    )
    sig = _kernels.rank(x, y, parts.offsets, anchor, max(second, 0.0))
    _kernels.rank_deeper(x, y, sig, first)
    expected = _kernels.rank(x, y, parts.offsets, anchor, first) if first >= 0 else full
    np.testing.assert_array_equal(sig, expected)
