"""`tomtom-mcp-apps fit FILE [--budget CHARS] [-o OUT]`."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np
import pytest

from tomtom_mcp_apps.server.cli import fit as fit_command
from tomtom_mcp_apps.server.offline.roads import road_like_route


def run_fit(*argv: str) -> int:
    parser = argparse.ArgumentParser(prog="tomtom-mcp-apps")
    fit_command.add_parser(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(["fit", *argv])
    return args.run(args)


@pytest.fixture
def route_file(tmp_path: Path) -> tuple[Path, np.ndarray]:
    route = road_like_route([(4.90, 52.37), (6.57, 52.26), (8.0, 52.5)], seed=11)
    feature = {
        "type": "Feature",
        "properties": {"sections": [{"startPointIndex": 10, "endPointIndex": 200}]},
        "geometry": {"type": "LineString", "coordinates": route.tolist()},
    }
    path = tmp_path / "route.geojson"
    path.write_text(json.dumps(feature))
    return path, route


def test_fit_prints_one_json_line_with_the_figures(
    route_file: tuple[Path, np.ndarray], capsys: pytest.CaptureFixture[str]
) -> None:
    path, route = route_file
    assert run_fit(str(path), "--budget", "5000") == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 1
    figures = json.loads(lines[0])
    assert set(figures) == {"fitted", "original_points", "points", "max_error_m", "chars", "ms"}
    assert figures["fitted"] is True
    assert figures["original_points"] == len(route)
    assert 2 < figures["points"] < len(route)
    assert figures["chars"] <= 5000 and figures["max_error_m"] > 0 and figures["ms"] > 0


def test_fit_writes_the_decoded_envelope_with_renumbered_indices(
    route_file: tuple[Path, np.ndarray], tmp_path: Path
) -> None:
    path, route = route_file
    out = tmp_path / "out.json"
    assert run_fit(str(path), "--budget", "5000", "-o", str(out)) == 0
    envelope = json.loads(out.read_text())
    assert envelope["tool"] == "fit" and envelope["fitted"]["chars"] <= 5000
    (feature,) = envelope["data"]["features"]
    e5 = np.cumsum(np.array(feature["geometry"]["e5"]).reshape(-1, 2), axis=0)
    section = feature["properties"]["sections"][0]
    np.testing.assert_array_equal(e5[section["endPointIndex"]], np.rint(route[200] * 1e5))


def test_a_feature_collection_that_fits_is_reported_as_sent_as_is(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "small.geojson"
    line = {"type": "LineString", "coordinates": [[4.9, 52.37], [4.91, 52.38]]}
    path.write_text(
        json.dumps(
            {
                "type": "FeatureCollection",
                "features": [{"type": "Feature", "properties": {}, "geometry": line}],
            }
        )
    )
    assert run_fit(str(path)) == 0
    figures = json.loads(capsys.readouterr().out)
    assert figures["fitted"] is False and figures["points"] == 2
    assert figures["max_error_m"] is None


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("{not json", "is not JSON"),
        (
            '{"type": "Point", "coordinates": [0, 0]}',
            "is not a GeoJSON Feature or FeatureCollection",
        ),
        (
            '{"type": "Feature", "properties": {}, "geometry": '
            '{"type": "LineString", "coordinates": [[0, 0], [0, 91]]}}',
            r"features[0].geometry.coordinates[1] = [0.0, 91.0]: latitude",
        ),
        (
            '{"type": "Feature", "properties": {"progress": [{"pointIndex": 9}]}, "geometry": '
            '{"type": "LineString", "coordinates": [[0, 0], [0, 1]]}}',
            "features[0].properties.progress[0].pointIndex = 9 is out of range",
        ),
        (
            '{"type": "Feature", "properties": {}, "geometry": '
            '{"type": "LineString", "coordinates": []}}',
            "features[0].geometry.coordinates is empty",
        ),
    ],
)
def test_bad_input_exits_non_zero_with_one_clear_message(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: str, message: str
) -> None:
    path = tmp_path / "bad.geojson"
    path.write_text(content)
    assert run_fit(str(path)) == 1
    captured = capsys.readouterr()
    assert captured.out == ""
    assert len(captured.err.splitlines()) == 1
    assert message in captured.err


def test_a_missing_file_and_an_impossible_budget_are_reported(
    route_file: tuple[Path, np.ndarray], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run_fit(str(tmp_path / "missing.geojson")) == 1
    assert "cannot read" in capsys.readouterr().err
    path, _ = route_file
    assert run_fit(str(path), "--budget", "100") == 1
    assert "over" in capsys.readouterr().err
