"""Snapping a trace: split at Snap to Roads' limits, the answers (as TomTom documents them)
joined, and read for the model (distance, roads, speeding) and the view (sections)."""

from __future__ import annotations

import numpy as np
import orjson

from tests.fixtures.tomtom import documented
from tests.server.harness import coordinate_lists
from tomtom_mcp_apps import fitting
from tomtom_mcp_apps.server.bodies import RawBody
from tomtom_mcp_apps.server.jobs import APP_DATA_KEY, Chunk, chunks_of, snap_result
from tomtom_mcp_apps.server.jobs._snap import CHUNK_M, CHUNK_POINTS, join, speeding
from tomtom_mcp_apps.server.jobs._traces import Trace


def line(n: int, step_m: float, start: float = 4.0) -> np.ndarray:
    """`n` points `step_m` apart along the 52nd parallel."""
    per_degree = 111_320 * np.cos(np.radians(52.0))
    return np.column_stack((start + np.arange(n) * step_m / per_degree, np.full(n, 52.0)))


def test_a_long_trace_is_split_at_5000_points_each_request_starting_where_the_last_ended() -> None:
    chunks, gaps = chunks_of(line(12_000, 5.0))
    assert [(c.start, c.stop) for c in chunks] == [(0, 4999), (4999, 9998), (9998, 11_999)]
    assert gaps == [] and all(c.stop - c.start + 1 <= CHUNK_POINTS for c in chunks)


def test_a_sparse_trace_is_split_by_its_length_so_no_request_passes_100_km_of_road() -> None:
    chunks, _ = chunks_of(line(400, 1000.0))  # 399 km, a fix every kilometre
    for c in chunks:
        assert (c.stop - c.start) * 1000.0 <= CHUNK_M
    assert chunks[0].start == 0 and chunks[-1].stop == 399 and len(chunks) == 6


def test_a_gap_between_fixes_splits_the_trace_into_parts_snapped_on_their_own() -> None:
    points = np.concatenate((line(100, 20.0), line(100, 20.0, start=4.2)))  # 13 km apart
    chunks, gaps = chunks_of(points)
    assert gaps == [99]
    assert [(c.start, c.stop, c.part) for c in chunks] == [(0, 99, 0), (100, 199, 1)]


def trace(times: list[float] | None = None) -> Trace:
    lonlat = np.array(
        [
            [4.61049, 52.37577],
            [4.61163, 52.37803],
            [4.61343, 52.38185],
            [4.6201, 52.3821],
            [4.6141, 52.38341],
        ]
    )
    stamps = np.array(times if times is not None else [np.nan] * 5, dtype=float)
    return Trace(lonlat, stamps, np.full(5, np.nan))


def answer(body: dict | None = None) -> RawBody:
    return RawBody(orjson.dumps(body or documented("snap_to_roads")))


def test_the_documented_answer_reads_as_matched_points_on_their_road_elements() -> None:
    joined = join(trace(), [Chunk(0, 4, 0)], [answer()])
    assert joined.element_of.tolist() == [0, 0, 1, -1, 1]
    assert [e.road for e in joined.all_elements] == ["Kleine Houtweg", "N208 Randweg"]
    assert [e.limit_kmh for e in joined.all_elements] == [50, 80]
    assert joined.road_m == 918.4


def test_the_model_reads_distance_share_roads_and_no_coordinates() -> None:
    result = snap_result(trace(), [Chunk(0, 4, 0)], [], [answer()], True, 120_000)
    text = result.text
    assert text["distance_km"] == 0.92 and text["matched_share"] == 0.8
    assert [r["road"] for r in text["roads"]] == ["Kleine Houtweg", "N208 Randweg"]
    assert text["tomtom_requests"] == 1 and "speeding" not in text, "no timestamps: no speeds"
    assert coordinate_lists(text) == []


def test_with_timestamps_the_time_over_the_limit_is_found_and_drawn_as_a_section() -> None:
    # 263 m in 10 s (95 km/h) on the 50 km/h element, then 60 km/h on the 80 km/h one.
    times = [0.0, 10.0, 40.0, 45.0, 50.0]
    stretches, over_s, driven_s = speeding(
        trace(times), join(trace(times), [Chunk(0, 4, 0)], [answer()])
    )
    assert [(s.first, s.last, s.road, s.limit_kmh) for s in stretches] == [
        (0, 1, "Kleine Houtweg", 50)
    ]
    assert over_s == 10.0 and driven_s == 40.0, "steps to or from the unmatched point give no speed"
    result = snap_result(trace(times), [Chunk(0, 4, 0)], [], [answer()], True, 120_000)
    assert result.text["speeding"]["stretches"][0]["max_kmh"] == 95
    data = fitting.decode(result.meta[APP_DATA_KEY])["data"]
    snapped = next(f for f in data["features"] if f["properties"]["kind"] == "snapped")
    types = [s["sectionType"] for s in snapped["properties"]["sections"]]
    assert types == ["SPEED_LIMIT", "SPEED_LIMIT", "SPEEDING"]
    first = snapped["properties"]["sections"][0]
    assert (first["limit"], first["road"], first["startPointIndex"]) == (50, "Kleine Houtweg", 0)


def test_answers_of_consecutive_requests_join_at_their_shared_point_into_one_road() -> None:
    first = documented("snap_to_roads")
    first["route"] = first["route"][:1]
    first["projectedPoints"] = first["projectedPoints"][:2]
    second = documented("snap_to_roads")
    second["route"] = [documented("snap_to_roads")["route"][0], second["route"][1]]
    second["route"][0]["geometry"]["coordinates"] = [[4.61163, 52.37803], [4.61276, 52.38029]]
    second["projectedPoints"] = second["projectedPoints"][1:]
    second["projectedPoints"][0]["properties"]["routeIndex"] = 0
    chunks = [Chunk(0, 1, 0), Chunk(1, 4, 0)]
    joined = join(trace(), chunks, [answer(first), answer(second)])
    assert len(joined.all_elements) == 2, "the element the seam cut is one element again"
    assert joined.all_elements[0].line.tolist()[-1] == [4.61276, 52.38029]
    assert joined.element_of.tolist() == [0, 0, 1, -1, 1]
