"""The batch geocoding and trace snapping benchmarks: their inputs are what they say, and
their quick modes run the whole flow on real processes (the batch resumed through nginx
and on the other replica; the trace split into TomTom's requests) and print it."""

from __future__ import annotations

import asyncio

import numpy as np
import pytest

from benchmarks import batch_geocode, snap_trace
from tomtom_mcp_apps.fitting.geo import haversine_m
from tomtom_mcp_apps.server import jobs


def test_the_addresses_mix_streets_in_towns_with_rows_a_person_must_look_at() -> None:
    rows = batch_geocode.addresses(2_000)
    assert rows == batch_geocode.addresses(2_000)  # seeded: every run sends the same file
    assert rows.count("") == batch_geocode.EMPTY_ROWS
    in_towns = sum(1 for row in rows if ", " in row)
    assert 0.9 < in_towns / len(rows) < 0.96
    csv = batch_geocode.csv_of(rows).decode().splitlines()
    assert csv[0] == "id,address" and len(csv) == len(rows) + 1


def test_the_drive_is_a_phone_log_of_one_fix_a_second_that_snap_reads() -> None:
    lonlat, course = snap_trace.drive(600)
    trace = jobs.trace_of_text(snap_trace.gpx_of(lonlat, course), "data_url")
    assert len(trace) == 600 and trace.timed
    assert np.all(np.diff(trace.times) == 1.0)
    steps = haversine_m(*trace.lonlat[:-1].T, *trace.lonlat[1:].T)
    assert 3 < float(np.median(steps)) < 40  # town to motorway speeds, with GPS noise
    chunks, gaps = jobs.chunks_of(trace.lonlat)
    assert chunks and not gaps


@pytest.mark.process
def test_a_batch_outlasting_its_call_is_drawn_through_nginx_and_resumed_on_the_other_replica() -> (
    None
):
    run = asyncio.run(batch_geocode.measure(300, 6.0, 100.0, {"TOOL_CALL_DEADLINE_S": "14"}))
    assert run.first_state == "running"  # TomTom took longer than the call
    assert run.resumes >= 1 and run.first_point_s is not None
    assert run.other_replica_same
    assert sum(run.qualities.values()) == 300
    assert run.qualities["empty"] == 300 // 50
    assert run.tomtom["batch submitted"] == 1 and "synchronous batch" not in run.tomtom
    assert run.file_downloads == 1
    assert run.model_chars["running state"] < 1_000
    printed = batch_geocode.report(run)
    assert "the other replica's tomtom-job-result draws the same rows and points" in printed
    assert f"after {run.resumes} resumes through nginx" in printed


@pytest.mark.process
def test_a_long_trace_is_snapped_in_parts_in_one_call() -> None:
    run = asyncio.run(snap_trace.measure(12_000))
    assert run.requests == {"POST /snapToRoads/1": run.answer["tomtom_requests"]}
    assert run.answer["tomtom_requests"] >= 3  # 5,000 points a request at most
    assert run.answer["points"] == 12_000 and run.answer["matched_share"] > 0.9
    assert run.app_data_chars <= run.budget
    printed = snap_trace.report(run)
    assert f"POST /snapToRoads/1: {run.answer['tomtom_requests']}" in printed
