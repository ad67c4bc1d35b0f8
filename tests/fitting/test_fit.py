"""fit(): as-is delivery, fitting under the budget, anchors, renumbering, the report."""

from __future__ import annotations

import pickle

import numpy as np
import pytest
import shapely
from hypothesis import given, settings
from hypothesis import strategies as st

from tomtom_mcp_apps import fitting
from tomtom_mcp_apps.fitting import _fit, _kernels, _parts
from tomtom_mcp_apps.fitting.geo import M_PER_DEG
from tomtom_mcp_apps.server.offline.roads import road_like_route

from .support import as_sent, envelope, line_feature, metres, sent_features, step, synthetic_route

AMSTERDAM_BERLIN = [(4.90, 52.37), (6.57, 52.26), (10.0, 52.4), (13.40, 52.52)]


def route_envelope(points: int, seed: int = 0) -> tuple[dict, np.ndarray]:
    route = synthetic_route(points, seed=seed)
    n = len(route)
    rng = np.random.default_rng(seed)
    marks = np.sort(rng.choice(np.arange(1, n - 1), size=12, replace=False)).tolist()
    props = {
        "legs": [
            {"startPointIndex": 0, "endPointIndex": marks[5], "summary": {"lengthInMeters": 1}},
            {"startPointIndex": marks[5], "endPointIndex": n - 1},
        ],
        "sections": [
            {"sectionType": "TRAFFIC", "startPointIndex": marks[1], "endPointIndex": marks[3]},
            {"sectionType": "TOLL", "startPointIndex": marks[6], "endPointIndex": marks[9]},
        ],
        "progress": [{"pointIndex": i, "distanceInMeters": i * 10} for i in marks[::3]],
        "guidance": {
            "instructions": [{"pointIndex": i, "message": f"turn {i}"} for i in marks],
            "instructionGroups": [],
        },
    }
    waypoint = {
        "type": "Feature",
        "properties": {"kind": "waypoint", "index": 0},
        "geometry": {"type": "Point", "coordinates": [4.9000049, 52.3700001]},
    }
    return envelope(line_feature(route, **props), waypoint), route


def index_pairs(props: dict) -> list[tuple[str, int]]:
    pairs = []
    for name in ("legs", "sections"):
        for i, item in enumerate(props[name]):
            pairs += [(f"{name}[{i}].start", item["startPointIndex"])]
            pairs += [(f"{name}[{i}].end", item["endPointIndex"])]
    pairs += [(f"progress[{i}]", p["pointIndex"]) for i, p in enumerate(props["progress"])]
    instructions = props["guidance"]["instructions"]
    pairs += [(f"instructions[{i}]", p["pointIndex"]) for i, p in enumerate(instructions)]
    return pairs


def test_small_data_goes_as_is_with_no_report_and_fitted_null() -> None:
    route = road_like_route(AMSTERDAM_BERLIN[:2], seed=1)
    result = fitting.fit(envelope(line_feature(route)), 120_000)
    assert result.report is None
    decoded = fitting.decode(result.app_data)
    assert decoded["fitted"] is None
    assert decoded["v"] == 2 and decoded["tool"] == "tomtom-routing"
    sent = np.array(sent_features(result.app_data)[0]["geometry"]["coordinates"])
    np.testing.assert_array_equal(sent, np.round(route, 5))


def test_data_larger_than_one_compression_chunk_still_goes_as_is_when_it_fits() -> None:
    route = synthetic_route(12_000, seed=3)
    result = fitting.fit(envelope(line_feature(route)), 120_000)
    assert result.report is None
    sent = np.array(sent_features(result.app_data)[0]["geometry"]["coordinates"])
    np.testing.assert_array_equal(sent, np.round(route, 5))


def test_as_is_lines_are_e5_deltas_with_an_absolute_first_pair() -> None:
    coords = [[4.9, 52.37], [4.90001, 52.37002], [4.90011, 52.36999]]
    result = fitting.fit(envelope(line_feature(coords)), 10_000)
    geometry = fitting.decode(result.app_data)["data"]["features"][0]["geometry"]
    assert geometry == {"type": "LineString", "e5": [490000, 5237000, 1, 2, 10, -3]}


def test_a_long_route_is_fitted_under_the_budget_with_an_honest_report() -> None:
    env, route = route_envelope(80_000)
    result = fitting.fit(env, 120_000)
    report = result.report
    assert report is not None
    assert len(result.app_data) == report["chars"] <= 120_000
    assert report["original_points"] == len(route)
    assert fitting.decode(result.app_data)["fitted"] == report
    sent = np.array(sent_features(result.app_data)[0]["geometry"]["coordinates"])
    assert len(sent) == report["points"] < len(route)
    assert 0.0 < report["max_error_m"] < 50.0


def test_the_report_is_written_wherever_the_envelope_keeps_its_fitted_key() -> None:
    env, _ = route_envelope(6_000, seed=3)
    reordered = {"fitted": None, **{k: v for k, v in env.items() if k != "fitted"}}
    result = fitting.fit(reordered, 12_000)
    decoded = fitting.decode(result.app_data)
    assert list(decoded) == ["fitted", "v", "tool", "data"]
    assert decoded["fitted"] == result.report
    assert result.report["chars"] == len(result.app_data) <= 12_000


def test_the_fitted_result_fills_the_budget_closely() -> None:
    env, _ = route_envelope(40_000, seed=2)
    result = fitting.fit(env, 60_000)
    assert 0.99 * 60_000 <= len(result.app_data) <= 60_000


@settings(max_examples=12, deadline=None)
@given(seed=st.integers(0, 10_000), budget=st.integers(8_000, 60_000))
def test_every_index_still_points_at_the_same_vertex_after_fitting(seed: int, budget: int) -> None:
    env, route = route_envelope(6_000, seed=seed)
    result = fitting.fit(env, budget)
    assert len(result.app_data) <= budget
    route_feature, waypoint = sent_features(result.app_data)
    sent = np.array(route_feature["geometry"]["coordinates"])
    grid = as_sent(route, step(result.app_data))
    before = index_pairs(env["data"]["features"][0]["properties"])
    after = index_pairs(route_feature["properties"])
    assert [name for name, _ in after] == [name for name, _ in before]
    for (name, old), (_, new) in zip(before, after, strict=True):
        np.testing.assert_allclose(sent[new], grid[old], rtol=0, atol=1e-9, err_msg=name)
    np.testing.assert_allclose(sent[[0, -1]], grid[[0, -1]], rtol=0, atol=1e-9)
    assert waypoint["geometry"]["coordinates"] == [4.9, 52.37]


def test_other_properties_and_keys_come_through_unchanged() -> None:
    env, _ = route_envelope(3_000)
    env["data"]["title"] = "Amsterdam to Berlin"
    env["data"]["features"].append({"type": "Feature", "properties": {"x": 1}, "geometry": None})
    result = fitting.fit(env, 9_000)
    decoded = fitting.decode(result.app_data)
    assert decoded["data"]["title"] == "Amsterdam to Berlin"
    props = decoded["data"]["features"][0]["properties"]
    assert props["legs"][0]["summary"] == {"lengthInMeters": 1}
    assert props["guidance"]["instructionGroups"] == []
    assert props["sections"][1]["sectionType"] == "TOLL"
    assert decoded["data"]["features"][2] == {
        "type": "Feature",
        "properties": {"x": 1},
        "geometry": None,
    }


def test_fitting_leaves_the_callers_envelope_untouched() -> None:
    env, _ = route_envelope(3_000)
    before = pickle.dumps(env)
    fitting.fit(env, 9_000)
    assert pickle.dumps(env) == before


def test_max_error_is_the_true_distance_of_every_vertex_to_its_spanning_segment() -> None:
    # A 50 km wiggly line: small enough that one equirectangular frame is exact to 0.05%.
    route = road_like_route([(4.90, 52.37), (5.60, 52.50)], seed=4)
    result = fitting.fit(envelope(line_feature(route)), 700)
    assert result.report["max_error_m"] > 5.0
    reported = result.report["max_error_m"]
    sent = np.array(sent_features(result.app_data)[0]["geometry"]["coordinates"])
    lat0 = float(route[:, 1].mean())
    original, kept = metres(route, lat0), metres(sent, lat0)

    # Kept vertices are a subsequence of the route as sent (rounded, on its grid): locate each.
    rounded = as_sent(route, step(result.app_data))
    at, j = [], 0
    for vertex in sent:
        while not np.allclose(rounded[j], vertex, rtol=0, atol=1e-9):
            j += 1
        at.append(j)
    span = np.searchsorted(np.array(at), np.arange(len(route)), side="right") - 1
    span = np.minimum(span, len(at) - 2)
    segments = shapely.linestrings(np.stack([kept[span], kept[span + 1]], axis=1))
    spanning = shapely.distance(shapely.points(original), segments)
    whole_line = shapely.distance(shapely.points(original), shapely.linestrings(kept))

    assert reported >= whole_line.max() - 0.01
    assert reported == pytest.approx(spanning.max(), rel=2e-3, abs=0.11)
    assert reported >= spanning.max() - 0.01


def test_a_route_that_fits_only_simplified_is_still_dp_shaped_within_its_error() -> None:
    route = road_like_route(AMSTERDAM_BERLIN, seed=5)
    result = fitting.fit(envelope(line_feature(route)), 20_000)
    sent = np.array(sent_features(result.app_data)[0]["geometry"]["coordinates"])
    lat0 = float(route[:, 1].mean())
    hausdorff = shapely.hausdorff_distance(
        shapely.linestrings(metres(route, lat0)), shapely.linestrings(metres(sent, lat0))
    )
    # One frame for 600 km of longitude is only good to a few percent: compare loosely.
    assert hausdorff <= result.report["max_error_m"] * 1.05 + 1.0


def test_anchors_that_alone_exceed_the_budget_raise_does_not_fit_saying_by_how_much() -> None:
    env, _ = route_envelope(3_000)
    with pytest.raises(fitting.DoesNotFit, match=r"budget is 300 \(\d+ over\)"):
        fitting.fit(env, 300)


def test_points_alone_over_the_budget_raise_does_not_fit_saying_nothing_can_shrink() -> None:
    point = {"type": "Point", "coordinates": [4.9, 52.37]}
    results = [
        {"type": "Feature", "properties": {"name": f"place {i}"}, "geometry": point}
        for i in range(200)
    ]
    with pytest.raises(fitting.DoesNotFit, match=r"budget is 500 \(\d+ over\); it has no lines"):
        fitting.fit(envelope(*results, tool="tomtom-poi-search"), 500)


def test_data_viz_data_is_sent_exactly_as_given() -> None:
    geojson = {
        "type": "FeatureCollection",
        "features": [
            {
                "type": "Feature",
                "properties": {"v": 1.123456789},
                "geometry": {"type": "LineString", "coordinates": [[4.123456789, 52.0], [5, 53]]},
            }
        ],
    }
    data = {"geojson": geojson, "layers": [{"type": "line"}], "title": "t"}
    env = fitting.envelope("tomtom-data-viz", data)
    result = fitting.fit(env, 10_000)
    assert result.report is None
    assert fitting.decode(result.app_data) == env


def test_data_viz_data_too_large_raises_does_not_fit() -> None:
    rng = np.random.default_rng(0)
    coords = rng.uniform(-50, 50, size=(5_000, 2)).tolist()
    geojson = {
        "type": "Feature",
        "properties": {},
        "geometry": {"type": "LineString", "coordinates": coords},
    }
    env = {"v": 1, "tool": "tomtom-data-viz", "data": {"geojson": geojson}, "fitted": None}
    with pytest.raises(fitting.DoesNotFit, match="never altered"):
        fitting.fit(env, 20_000)


def test_results_and_errors_survive_pickling_for_the_process_pool() -> None:
    env, _ = route_envelope(3_000)
    result = fitting.fit(env, 9_000)
    assert pickle.loads(pickle.dumps(result)) == result
    error = fitting.DoesNotFit("too big by 3")
    assert str(pickle.loads(pickle.dumps(error))) == "too big by 3"


def test_point_count_counts_line_and_ring_vertices_only() -> None:
    ring = [[0, 0], [1, 0], [1, 1], [0, 0]]
    env = envelope(
        line_feature(np.zeros((7, 2))),
        {
            "type": "Feature",
            "properties": {},
            "geometry": {"type": "Polygon", "coordinates": [ring, ring]},
        },
        {"type": "Feature", "properties": {}, "geometry": {"type": "Point", "coordinates": [0, 0]}},
    )
    assert fitting.point_count(env) == 15


def test_several_lines_share_one_budget_through_one_global_ranking() -> None:
    busy = road_like_route([(4.9, 52.37), (6.9, 52.0)], seed=7)
    straight = np.column_stack([np.linspace(5, 9, 3_000), np.full(3_000, 50.0)])
    result = fitting.fit(envelope(line_feature(busy), line_feature(straight)), 3_000)
    assert result.report is not None
    a, b = sent_features(result.app_data)
    # The straight line carries no information beyond its ends: the budget goes to the busy one.
    assert len(b["geometry"]["coordinates"]) == 2
    assert len(a["geometry"]["coordinates"]) > 100


def test_multilinestring_parts_keep_their_ends_and_indices_count_parts_concatenated() -> None:
    first = road_like_route([(4.9, 52.37), (5.9, 52.0)], seed=8)
    second = road_like_route([(6.0, 52.0), (7.0, 52.3)], seed=9)
    n1 = len(first)
    feature = {
        "type": "Feature",
        "properties": {"kind": "route", "progress": [{"pointIndex": n1 + 5}]},
        "geometry": {"type": "MultiLineString", "coordinates": [first, second]},
    }
    result = fitting.fit(envelope(feature), 6_000)
    (sent,) = sent_features(result.app_data)
    q = step(result.app_data)
    parts = [np.array(p) for p in sent["geometry"]["coordinates"]]
    for part, original in zip(parts, (first, second), strict=True):
        np.testing.assert_allclose(part[[0, -1]], as_sent(original[[0, -1]], q), rtol=0, atol=1e-9)
    index = sent["properties"]["progress"][0]["pointIndex"]
    np.testing.assert_allclose(np.concatenate(parts)[index], as_sent(second[5], q), atol=1e-9)


def test_ranking_cut_off_below_the_budgets_tolerance_gives_the_same_fit(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    env, _ = route_envelope(120_000, seed=6)
    cutoffs: list[float] = []
    rank = _fit._Fitter._rank
    monkeypatch.setattr(
        _fit._Fitter, "_rank", lambda self, cutoff: (cutoffs.append(cutoff), rank(self, cutoff))
    )
    for budget in (4_000, 9_000):
        cut = fitting.fit(env, budget)
        assert cutoffs.pop(0) > 0.0
        with monkeypatch.context() as patch:
            patch.setattr(_fit, "_CUTOFF_MIN_POINTS", 10**9)
            full = fitting.fit(env, budget)
        assert cutoffs.pop(0) < 0.0
        assert cut == full


def test_a_cut_off_ranking_that_proves_too_short_is_completed_with_the_same_fit(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    env, _ = route_envelope(60_000, seed=7)
    full = fitting.fit(env, 9_000)
    monkeypatch.setattr(_fit._Fitter, "_cutoff", lambda self, as_is: 1e9)
    assert fitting.fit(env, 9_000) == full


walks = st.lists(
    st.lists(st.tuples(st.integers(-300, 300), st.integers(-300, 300)), min_size=1, max_size=300),
    min_size=1,
    max_size=3,
)


@settings(max_examples=40, deadline=None)
@given(walks=walks, budget=st.integers(150, 4_000), data=st.data())
def test_any_lines_either_fit_the_budget_with_indices_intact_or_raise_does_not_fit(
    walks: list[list[tuple[int, int]]], budget: int, data: st.DataObject
) -> None:
    features, routes = [], []
    for steps in walks:
        # Zero steps make duplicates; the walk may cross the antimeridian.
        e5 = np.cumsum(np.array([(17_999_000, 6_000_000), *steps]), axis=0)
        route = np.column_stack([(e5[:, 0] / 1e5 + 180) % 360 - 180, e5[:, 1] / 1e5])
        marks = data.draw(st.lists(st.integers(0, len(route) - 1), max_size=5))
        features.append(line_feature(route, progress=[{"pointIndex": i} for i in marks]))
        routes.append(np.round(route, 5))
    try:
        result = fitting.fit(envelope(*features), budget)
    except fitting.DoesNotFit:
        return
    assert len(result.app_data) <= budget
    if result.report is not None:  # the report sent is the one returned, its chars exact
        assert fitting.decode(result.app_data)["fitted"] == result.report
        assert result.report["chars"] == len(result.app_data)
    q = step(result.app_data)
    for feature, route, sent in zip(features, routes, sent_features(result.app_data), strict=True):
        coords = np.array(sent["geometry"]["coordinates"])
        grid = as_sent(route, q)
        assert len(coords) >= 2
        np.testing.assert_allclose(coords[[0, -1]], grid[[0, -1]], rtol=0, atol=1e-9)
        before = [p["pointIndex"] for p in feature["properties"]["progress"]]
        after = [p["pointIndex"] for p in sent["properties"]["progress"]]
        np.testing.assert_allclose(coords[after], grid[before], rtol=0, atol=1e-9)


def reference_max_error(lonlat: np.ndarray, dedup_of: np.ndarray, sent: np.ndarray, keep) -> float:
    """max_error's definition, one vertex at a time: to the kept vertex, or its kept segment."""
    deg = sent / 1e5
    kept_at = np.flatnonzero(keep)
    worst = 0.0
    for j in range(lonlat.shape[0]):
        d = dedup_of[j]
        if keep[d]:
            kx = M_PER_DEG * np.cos(np.radians(deg[d, 1]))
            dist = np.hypot((lonlat[j, 0] - deg[d, 0]) * kx, (lonlat[j, 1] - deg[d, 1]) * M_PER_DEG)
        else:
            a, b = kept_at[np.searchsorted(kept_at, d) - 1], kept_at[np.searchsorted(kept_at, d)]
            kx = M_PER_DEG * np.cos(np.radians(0.5 * (deg[a, 1] + deg[b, 1])))
            o, e = deg[a], deg[b]
            frame = np.array([kx, M_PER_DEG])
            dist = shapely.LineString([(0, 0), (e - o) * frame]).distance(
                shapely.Point((lonlat[j] - o) * frame)
            )
        worst = max(worst, dist)
    return worst


@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    share=st.sampled_from([1.0, 0.97, 0.5, 0.05]),
    q=st.sampled_from([1, 2, 10, 100]),
    wiggle=st.sampled_from([1e-6, 1e-5, 1e-3]),
)
def test_max_error_matches_its_definition_whether_segments_or_rounding_dominate(
    seed: int, share: float, q: int, wiggle: float
) -> None:
    # Nearly straight lines with a tiny wiggle leave segments closer than rounding does,
    # so the originals of kept vertices decide (measured last, only then).
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 300))
    lonlat = np.column_stack([np.linspace(4.9, 4.95, n), np.linspace(52.3, 52.31, n)])
    lonlat += rng.normal(0.0, wiggle, lonlat.shape)
    parts = _parts.collect(
        {"type": "FeatureCollection", "features": [line_feature(lonlat.tolist())]}
    )
    sent = np.rint(parts.e5 / q).astype(np.int64) * q
    m = parts.e5.shape[0]
    keep = rng.random(m) < share
    keep[0] = keep[m - 1] = True
    error = _kernels.max_error(parts.lonlat, parts.dedup_of, sent, keep, q)
    expected = reference_max_error(parts.lonlat, parts.dedup_of, sent, keep)
    assert error == pytest.approx(expected, rel=1e-9, abs=1e-9)
