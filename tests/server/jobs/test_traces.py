"""GPS traces read from points, GPX and GeoJSON, and refused in plain words."""

from __future__ import annotations

import math

import numpy as np
import orjson
import pytest

from tomtom_mcp_apps.server.errors import JobError
from tomtom_mcp_apps.server.jobs import MAX_TRACE_POINTS, trace_of_points, trace_of_text

GPX = b"""<?xml version="1.0" encoding="UTF-8"?>
<gpx version="1.1" creator="test" xmlns="http://www.topografix.com/GPX/1/1">
  <rte><rtept lat="1" lon="1"/><rtept lat="2" lon="2"/></rte>
  <trk><name>Ride</name><trkseg>
    <trkpt lat="52.3700" lon="4.8900">
      <ele>2</ele><time>2024-05-01T08:30:00Z</time><course>45</course>
    </trkpt>
    <trkpt lat="52.3705" lon="4.8910"><time>2024-05-01T08:30:05Z</time></trkpt>
  </trkseg><trkseg>
    <trkpt lat="52.3710" lon="4.8920"><time>2024-05-01T08:30:10Z</time></trkpt>
  </trkseg></trk>
</gpx>"""


def test_a_gpx_track_is_read_in_order_with_its_times_and_courses_its_route_left_aside() -> None:
    trace = trace_of_text(GPX, "gpx")
    assert trace.lonlat.tolist() == [[4.89, 52.37], [4.891, 52.3705], [4.892, 52.371]]
    assert np.diff(trace.times).tolist() == [5.0, 5.0]
    assert trace.headings[0] == 45 and math.isnan(trace.headings[1])


def test_a_gpx_route_is_read_when_there_is_no_track() -> None:
    only_route = b'<gpx><rte><rtept lat="52.1" lon="4.1"/><rtept lat="52.2" lon="4.2"/></rte></gpx>'
    assert trace_of_text(only_route, "gpx").lonlat.tolist() == [[4.1, 52.1], [4.2, 52.2]]
    assert not trace_of_text(only_route, "gpx").timed


def test_gpx_with_a_document_type_is_refused_unread() -> None:
    bomb = b'<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol">]><gpx>&lol;</gpx>'
    with pytest.raises(JobError, match="document type declaration is refused"):
        trace_of_text(bomb, "data_url")


def test_geojson_points_and_a_line_with_coord_times_are_traces() -> None:
    points = {
        "type": "FeatureCollection",
        "features": [
            {"type": "Feature", "geometry": {"type": "Point", "coordinates": [4.89, 52.37]},
             "properties": {"time": "2024-05-01T08:30:00Z", "course": 90}},
            {"type": "Feature", "geometry": {"type": "Point", "coordinates": [4.891, 52.37]},
             "properties": {"timestamp": 1714552205}},
        ],
    }  # fmt: skip
    trace = trace_of_text(orjson.dumps(points), "geojson")
    assert trace.times.tolist() == [1714552200.0, 1714552205.0] and trace.headings[0] == 90
    coordinates = [[4.89, 52.37], [4.891, 52.37], [4.892, 52.37]]
    times = ["2024-05-01T08:30:00Z", "2024-05-01T08:30:01Z", "2024-05-01T08:30:03Z"]
    line = {
        "type": "Feature",
        "geometry": {"type": "LineString", "coordinates": coordinates},
        "properties": {"coordTimes": times},
    }
    assert np.diff(trace_of_text(orjson.dumps(line), "geojson").times).tolist() == [1.0, 2.0]


def test_timestamps_may_be_iso_seconds_or_milliseconds() -> None:
    trace = trace_of_points([(4.89, 52.37, "2024-05-01T08:30:00Z", None),
                             (4.891, 52.37, 1714552201, None),
                             (4.892, 52.37, 1714552202500, None)])  # fmt: skip
    assert trace.times.tolist() == [1714552200.0, 1714552201.0, 1714552202.5]


@pytest.mark.parametrize(
    ("points", "said"),
    [
        ([(4.89, 52.37, None, None)], "needs at least 2 points"),
        ([(4.89, 52.37, 100, None), (4.9, 52.37, 99, None)], "timestamps out of order: point 2"),
        ([(4.89, 52.37, "yesterday", None), (4.9, 52.37, None, None)], "is not ISO 8601"),
        ([(52.37, 200.0, None, None), (4.9, 52.37, None, None)], "trace point 1 is outside"),
    ],
)
def test_a_trace_that_cannot_be_followed_is_refused_in_plain_words(points: list, said: str) -> None:
    with pytest.raises(JobError, match=said):
        trace_of_points(points)


def test_a_trace_of_more_points_than_one_call_snaps_is_refused_saying_how_to_split_it() -> None:
    many = [(4.0 + i * 1e-6, 52.0, None, None) for i in range(MAX_TRACE_POINTS + 1)]
    with pytest.raises(JobError, match="split it"):
        trace_of_points(many)


def test_text_that_is_neither_gpx_nor_geojson_is_refused() -> None:
    with pytest.raises(JobError, match="neither GPX"):
        trace_of_text(b"lat,lon\n52,4\n", "data_url")
