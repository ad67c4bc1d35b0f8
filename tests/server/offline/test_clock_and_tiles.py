"""Offline answers move with the clock (a departure "now" is now), and the raster tile
endpoints answer like TomTom's: a PNG with cache headers, 304 for a matching ETag, 400
off the grid."""

from __future__ import annotations

import struct
import zlib
from datetime import UTC, datetime, timedelta

import httpx
import pytest

from tests.server.offline.support import BASE, NOW
from tomtom_mcp_apps.server.offline import build_upstream_app
from tomtom_mcp_apps.server.offline._query import Query

ROUTE = "/routing/1/calculateRoute/52.3676,4.9041:52.0907,5.1214/json"
INCIDENTS = "/traffic/services/5/incidentDetails"
FIELDS = "{incidents{properties{startTime,lastReportTime,timeValidity}}}"


async def test_a_departure_now_is_the_minute_the_request_is_answered_in(
    client: httpx.AsyncClient,
) -> None:
    summary = (await client.get(ROUTE)).json()["routes"][0]["summary"]
    assert summary["departureTime"] == "2026-12-01T14:37:00+00:00"
    assert summary["arrivalTime"] > summary["departureTime"]


async def test_the_same_route_asked_a_minute_later_departs_a_minute_later() -> None:
    now = [NOW]
    app = build_upstream_app(clock=lambda: now[0])
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app), base_url=BASE) as client:
        first = (await client.get(ROUTE)).json()["routes"][0]["summary"]
        now[0] += timedelta(seconds=30)
        same = (await client.get(ROUTE)).json()["routes"][0]["summary"]
        now[0] += timedelta(minutes=1)
        later = (await client.get(ROUTE)).json()["routes"][0]["summary"]
    assert same == first, "within a minute the answer is the cached one"
    moved = datetime.fromisoformat(later["departureTime"]) - datetime.fromisoformat(
        first["departureTime"]
    )
    assert moved == timedelta(minutes=1)
    assert later["lengthInMeters"] == first["lengthInMeters"], "only the clock moved"


async def test_incidents_started_before_now_and_planned_ones_start_after_it(
    client: httpx.AsyncClient,
) -> None:
    params = {"bbox": "4.8,52.3,5.0,52.42", "fields": FIELDS,
              "timeValidityFilter": "present,future"}  # fmt: skip
    incidents = (await client.get(INCIDENTS, params=params)).json()["incidents"]
    assert incidents
    now = NOW.replace(second=0)
    for incident in incidents:
        p = incident["properties"]
        start = datetime.fromisoformat(p["startTime"])
        assert (start > now) == (p["timeValidity"] == "future"), p
        assert datetime.fromisoformat(p["lastReportTime"]) <= now


def png_size(data: bytes) -> tuple[int, int]:
    assert data.startswith(b"\x89PNG\r\n\x1a\n")
    width, height = struct.unpack(">II", data[16:24])
    return width, height


@pytest.mark.parametrize(
    "path",
    [
        "/map/1/tile/basic/main/3/4/2.png",
        "/map/1/tile/basic/night/0/0/0.png",
        "/traffic/map/4/tile/flow/relative0/22/4194303/0.png",
        "/traffic/map/4/tile/incidents/s3/12/2100/1350.png",
    ],
)
async def test_a_tile_is_a_256_pixel_png_with_cache_headers(
    client: httpx.AsyncClient, path: str
) -> None:
    tile = await client.get(path, params={"key": "any", "tileSize": "256"})
    assert tile.status_code == 200 and tile.headers["content-type"] == "image/png"
    assert png_size(tile.content) == (256, 256)
    chunks, at = [], 8
    while at < len(tile.content):
        (length,) = struct.unpack(">I", tile.content[at : at + 4])
        kind = tile.content[at + 4 : at + 8]
        body = tile.content[at + 8 : at + 8 + length]
        assert struct.unpack(">I", tile.content[at + 8 + length : at + 12 + length])[0] == (
            zlib.crc32(kind + body)
        )
        chunks.append(kind)
        at += 12 + length
    assert chunks == [b"IHDR", b"IDAT", b"IEND"]
    assert tile.headers["cache-control"] == "public, max-age=86400"
    again = await client.get(path, headers={"if-none-match": tile.headers["etag"]})
    assert again.status_code == 304 and again.content == b""


@pytest.mark.parametrize(
    ("path", "message"),
    [
        ("/map/1/tile/basic/main/23/0/0.png", "Zoom level 23 is out of range [0, 22]"),
        ("/map/1/tile/basic/main/2/4/0.png", "Tile 4/0 does not exist at zoom 2"),
        ("/map/1/tile/satellite/main/2/1/1.png", "Unknown layer/style satellite/main"),
        ("/traffic/map/4/tile/flow/green/2/1/1.png", "Unknown traffic tile flow/green"),
        ("/map/1/tile/basic/main/2/1/1.gif", "serves png"),
    ],
)
async def test_a_tile_off_the_grid_or_of_no_layer_is_refused_with_400(
    client: httpx.AsyncClient, path: str, message: str
) -> None:
    refused = await client.get(path)
    assert refused.status_code == 400
    assert message in refused.json()["detailedError"]["message"]


async def test_a_failure_key_refuses_tiles_too(client: httpx.AsyncClient) -> None:
    refused = await client.get("/map/1/tile/basic/main/1/0/0.png", params={"key": "offline-403"})
    assert refused.status_code == 403


def test_the_default_clock_is_the_current_time() -> None:
    assert abs(Query([]).now - datetime.now(UTC)) < timedelta(minutes=1, seconds=5)
