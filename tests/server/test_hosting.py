"""A hosted deployment, with real processes: two replicas with no key of their own, the
callers' keys in the `tomtom-api-key` header, and a stand-in TomTom that records the
path, key and User-Agent of every request it receives.

One replica serves keyless demo callers (offline data, flagged) and keyed callers
(TomTom, with their key) at once; a tile token minted on one replica serves the tile
on the other; no key leaves the server in any form.
"""

from __future__ import annotations

import asyncio
import base64
import time
import tomllib
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from datetime import UTC, datetime
from typing import Any

import httpx
import httpx2
import orjson
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp_types import CallToolResult

from loadtest.topology import Service
from tests.processes import ROOT, TILE_SECRET, running
from tests.server.calls import CALLS
from tests.server.harness import BERLIN
from tests.standin import forget, recorded
from tomtom_mcp_apps.server.jobs import DATA_SOURCE_KEY, MAX_RESULT_CHARS_KEY, OFFLINE_NOTE
from tomtom_mcp_apps.server.tiles import TileTokens
from tomtom_mcp_apps.server.tomtom._errors import key_forms
from tomtom_mcp_apps.server.tools.app_only import MAP_CONFIG_KEY

CALLER_KEY = "Cu5t0merKey0123456789abcdefABCDEF"
OTHER_KEY = "An0therCust0merKey9876543210zyxw"
AMSTERDAM = [4.8897, 52.374]
UTRECHT = [5.1214, 52.0907]


@pytest.fixture(scope="module")
def replicas(standin: Service) -> Iterator[list[Service]]:
    """Two replicas as a hosted deployment runs them: no TOMTOM_API_KEY, TomTom's base URL
    (the stand-in), one tile secret shared by both."""
    env = {
        "TOMTOM_API_BASE_URL": standin.url,
        "TILE_TOKEN_SECRET": TILE_SECRET,
        "FIT_WORKERS": "1",
        "TOMTOM_TIMEOUT_S": "2",
    }
    with running(["serve"], env) as one, running(["serve"], env) as two:
        yield [one, two]


def user_agent_of(replica: Service) -> str:
    """What every request of `replica` says it is: the product, the version in
    pyproject.toml, and its public URL (`serve`'s own address when PUBLIC_URL is unset)."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    return f"tomtom-mcp-apps/{project['version']} (+{replica.url}/mcp)"


@asynccontextmanager
async def connected(replica: Service, key: str | None = None) -> AsyncIterator[Client]:
    headers = {"tomtom-api-key": key} if key else {}
    async with httpx2.AsyncClient(headers=headers, timeout=30) as http:
        transport = streamable_http_client(f"{replica.url}/mcp", http_client=http)
        async with Client(transport, mode="auto", cache=None) as client:
            yield client


def answer_of(result: CallToolResult) -> dict[str, Any]:
    assert not result.is_error, result.content[0].text
    return orjson.loads(result.content[0].text)


async def test_one_replica_serves_keyless_callers_offline_and_keyed_callers_from_tomtom_at_once(
    replicas: list[Service], standin: Service
) -> None:
    forget(standin.url)
    route = {"locations": [AMSTERDAM, UTRECHT]}
    async with connected(replicas[0], CALLER_KEY) as keyed, connected(replicas[0]) as keyless:
        results = await asyncio.gather(
            keyed.call_tool("tomtom-routing", route),
            keyless.call_tool("tomtom-routing", route),
            keyed.call_tool("tomtom-geocode", {"query": "Damrak 1, Amsterdam"}),
            keyless.call_tool("tomtom-geocode", {"query": "Damrak 1, Amsterdam"}),
        )
    keyed_route, offline_route, keyed_geocode, offline_geocode = results
    seen = recorded(standin.url)
    assert sorted((r["path"].split("/")[3], r["key"]) for r in seen) == [
        ("calculateRoute", CALLER_KEY),
        ("geocode", CALLER_KEY),
    ], "exactly the keyed calls reached TomTom, each with the caller's key; answers: " + "; ".join(
        r.content[0].text[:300] for r in results
    )
    for result in (keyed_route, keyed_geocode):
        assert "data_source" not in answer_of(result)
        assert DATA_SOURCE_KEY not in result.meta
    for result in (offline_route, offline_geocode):
        assert answer_of(result)["data_source"] == OFFLINE_NOTE
        assert result.meta[DATA_SOURCE_KEY] == "offline"


EXTRA_CALLS: list[tuple[str, dict[str, Any]]] = [
    ("tomtom-poi-categories", {"filter": "parking"}),
    ("tomtom-routing", {"locations": [AMSTERDAM, UTRECHT], "image": True}),
    ("tomtom-routing", {"locations": [AMSTERDAM, BERLIN, UTRECHT], "computeBestOrder": True}),
    ("tomtom-routing", {"locations": [AMSTERDAM, UTRECHT], "maxAlternatives": 2}),
    (
        "tomtom-routing",
        {"locations": [AMSTERDAM, UTRECHT], "travelMode": "truck", "vehicleWeight": 40_000},
    ),
    (
        "tomtom-dynamic-map",
        {
            "markers": [{"position": AMSTERDAM}],
            "routes": [{"locations": [AMSTERDAM, UTRECHT]}],
            "image": True,
        },
    ),
    ("tomtom-ev-search", {"position": AMSTERDAM, "includeAvailability": True}),
]
"""Beyond `CALLS` (every tool once): the options that make further TomTom requests (the
static map of `image`, charging availability) or other answers (best order, alternatives)."""
UNFLAGGED = {"tomtom-data-viz"}
"""Tools whose answer is the caller's own data, not TomTom's: never flagged offline."""


def tomtom_calls() -> list[tuple[str, dict[str, Any]]]:
    return [*CALLS, ("tomtom-traffic", {"bbox": [4.8, 52.3, 5.0, 52.42]}), *EXTRA_CALLS]


@pytest.mark.parametrize(
    ("tool", "arguments"),
    tomtom_calls(),
    ids=[f"{t}-{i}" for i, (t, _) in enumerate(tomtom_calls())],
)
async def test_every_tool_goes_to_tomtom_with_a_key_and_is_flagged_offline_without(
    replicas: list[Service], standin: Service, tool: str, arguments: dict[str, Any]
) -> None:
    async with connected(replicas[0], CALLER_KEY) as keyed, connected(replicas[1]) as keyless:
        forget(standin.url)
        online = await keyed.call_tool(tool, arguments)
        seen = recorded(standin.url)
        forget(standin.url)
        offline = await keyless.call_tool(tool, arguments)
        assert recorded(standin.url) == [], f"{tool}: a keyless call reached TomTom"
    assert "data_source" not in answer_of(online) and DATA_SOURCE_KEY not in (online.meta or {})
    if tool in UNFLAGGED:
        assert seen == [] and "data_source" not in answer_of(offline)
        return
    assert seen and {r["key"] for r in seen} == {CALLER_KEY}, (tool, seen)
    assert {r["user_agent"] for r in seen} == {user_agent_of(replicas[0])}, seen
    assert answer_of(offline)["data_source"] == OFFLINE_NOTE, tool
    assert offline.meta[DATA_SOURCE_KEY] == "offline", tool
    assert online.meta[MAX_RESULT_CHARS_KEY] == offline.meta[MAX_RESULT_CHARS_KEY] > 0
    if arguments.get("image"):
        basemaps = [answer_of(r)["image"]["basemap"] for r in (online, offline)]
        assert basemaps == ["TomTom static map", "offline basemap (offline mode)"]
        assert any(r["path"] == "/map/1/staticimage" for r in seen)


async def test_offline_departures_are_now_not_a_fixed_date(replicas: list[Service]) -> None:
    async with connected(replicas[1]) as keyless:
        result = await keyless.call_tool("tomtom-routing", {"locations": [AMSTERDAM, UTRECHT]})
    departure = datetime.fromisoformat(answer_of(result)["routes"][0]["departure"])
    assert abs((departure - datetime.now(UTC)).total_seconds()) < 120


async def map_config(replica: Service, key: str | None, **arguments: Any) -> CallToolResult:
    async with connected(replica, key) as client:
        return await client.call_tool("tomtom-get-map-config", arguments)


def tile_url(template: str, replica: Service, z: int = 3, x: int = 4, y: int = 2) -> str:
    """The template's tile, on `replica` (whatever replica minted the token)."""
    path = template.split("/tiles/", 1)[1].format(z=z, x=x, y=y)
    return f"{replica.url}/tiles/{path}"


async def test_a_tile_token_minted_on_one_replica_serves_the_tile_on_the_other(
    replicas: list[Service], standin: Service
) -> None:
    minted = await map_config(replicas[0], CALLER_KEY)
    config = minted.meta[MAP_CONFIG_KEY]
    assert set(config["tiles"]) == {"basemap", "basemap_night", "traffic_flow", "traffic_incidents"}
    assert config["tiles"]["basemap"].startswith(f"{replicas[0].url}/tiles/basemap/{{z}}/{{x}}/")
    assert config["expires_in"] == 3600 and config["expires_at"] > time.time() + 3500
    forget(standin.url)
    tile = httpx.get(tile_url(config["tiles"]["basemap"], replicas[1]), timeout=10)
    assert tile.status_code == 200, tile.text
    assert tile.headers["content-type"] == "image/png"
    assert tile.content.startswith(b"\x89PNG")
    assert tile.headers["cache-control"] == "public, max-age=86400"  # TomTom's, passed back
    assert tile.headers["access-control-allow-origin"] == "*"
    (fetched,) = recorded(standin.url)
    assert fetched == {
        "method": "GET",
        "path": "/map/1/tile/basic/main/3/4/2.png",
        "key": CALLER_KEY,
        "user_agent": user_agent_of(replicas[1]),
    }
    cached = httpx.get(
        tile_url(config["tiles"]["basemap"], replicas[1]),
        headers={"if-none-match": tile.headers["etag"]},
        timeout=10,
    )
    assert cached.status_code == 304 and cached.content == b""


async def test_forged_altered_expired_and_wrong_layer_tokens_are_refused_with_403(
    replicas: list[Service], standin: Service
) -> None:
    config = (await map_config(replicas[0], CALLER_KEY, layers=["basemap"])).meta[MAP_CONFIG_KEY]
    assert set(config["tiles"]) == {"basemap"}
    good = config["tiles"]["basemap"]
    token = good.rsplit("t=", 1)[1]
    altered = token[:20] + ("A" if token[20] != "A" else "B") + token[21:]
    other_secret = TileTokens(["another-secret-of-another-deployment-0123456789"], 3600)
    expired = TileTokens([TILE_SECRET], 60, clock=lambda: time.time() - 3600)
    base = f"{replicas[1].url}/tiles/basemap/3/4/2.png"
    cases = {
        "no tile token": base,
        "malformed tile token": f"{base}?t=%%%",
        "invalid tile token": f"{base}?t={altered}",
        "sealed under another secret": f"{base}?t={other_secret.seal(CALLER_KEY, ['basemap'])[0]}",
        "tile token expired": f"{base}?t={expired.seal(CALLER_KEY, ['basemap'])[0]}",
        "not valid for layer traffic_flow": tile_url(good, replicas[1]).replace(
            "/basemap/", "/traffic_flow/"
        ),
    }
    forget(standin.url)
    for reason, url in cases.items():
        refused = httpx.get(url, timeout=10)
        assert refused.status_code == 403, (reason, refused.status_code)
        assert reason in refused.text, (reason, refused.text)
        assert refused.headers["access-control-allow-origin"] == "*"
    assert recorded(standin.url) == [], "no refused tile cost a TomTom request"


@pytest.mark.parametrize(
    ("path", "status", "reason"),
    [
        ("basemap/23/0/0.png", 400, "zoom 23 is outside 0-22"),
        ("basemap/2/4/0.png", 400, "tile 4/0 is outside the 4x4 grid of zoom 2"),
        ("satellite/2/1/1.png", 404, "no tile layer 'satellite'"),
        ("traffic_flow/2/1/1.jpg", 404, "traffic_flow tiles come as png, not 'jpg'"),
        ("basemap/-1/0/0.png", 404, "Not Found"),
    ],
)
async def test_tiles_off_the_grid_are_refused_before_any_token_or_upstream_work(
    replicas: list[Service], standin: Service, path: str, status: int, reason: str
) -> None:
    forget(standin.url)
    refused = httpx.get(f"{replicas[0].url}/tiles/{path}?t=anything", timeout=10)
    assert (refused.status_code, reason in refused.text) == (status, True), refused.text
    assert recorded(standin.url) == []


async def test_a_keyless_caller_gets_no_tiles_and_no_token(replicas: list[Service]) -> None:
    result = await map_config(replicas[0], None)
    config = result.meta[MAP_CONFIG_KEY]
    assert config["tiles"] == {} and config["offline"] is True
    assert "offline demo data" in orjson.loads(result.content[0].text)["note"]


def search_for_keys(outputs: dict[str, str], keys: list[str]) -> list[str]:
    return [
        f"{name} holds {form!r}"
        for key in keys
        for form in sorted(key_forms(key))
        for name, text in outputs.items()
        if form in text
    ]


async def test_no_key_appears_in_any_tool_result_log_line_metric_or_tile_answer(
    replicas: list[Service],
) -> None:
    outputs: dict[str, str] = {}
    async with connected(replicas[0], CALLER_KEY) as client:
        for i, (tool, arguments) in enumerate(tomtom_calls()):
            result = await client.call_tool(tool, arguments)
            assert not result.is_error, (tool, result.content[0].text)
            outputs[f"{tool} {i}"] = result.model_dump_json()
            for image in [c for c in result.content if c.type == "image"]:  # the PNG's bytes
                outputs[f"{tool} {i} image"] = base64.b64decode(image.data).decode("latin-1")
        config = await client.call_tool("tomtom-get-map-config", {})
        outputs["map config"] = config.model_dump_json()
    async with connected(replicas[0], "offline-403") as refused:  # TomTom refuses this key
        refusable = [
            ("tomtom-routing", {"locations": [AMSTERDAM, UTRECHT]}),
            *[c for c in CALLS if c[0].startswith(("tomtom-ev", "tomtom-area"))],
            ("tomtom-poi-categories", {"filter": "parking"}),
        ]
        for tool, arguments in refusable:
            failed = await refused.call_tool(tool, arguments)
            assert failed.is_error, tool
            outputs[f"{tool} error"] = failed.model_dump_json()
        denied = await refused.call_tool("tomtom-get-map-config", {})
    denied_tile = httpx.get(
        tile_url(denied.meta[MAP_CONFIG_KEY]["tiles"]["basemap"], replicas[1]), timeout=10
    )
    assert denied_tile.status_code == 502 and "refused the key" in denied_tile.text
    tile = httpx.get(tile_url(config.meta[MAP_CONFIG_KEY]["tiles"]["basemap"], replicas[1]))
    assert tile.status_code == 200
    for name, response in (("tile", tile), ("refused tile", denied_tile)):
        outputs[name] = f"{response.headers}\n{response.content.decode('latin-1')}"
    for i, replica in enumerate(replicas):  # both are named "serve": told apart by index
        outputs[f"replica {i} metrics"] = httpx.get(f"{replica.url}/metrics", timeout=5).text
        outputs[f"replica {i} log"] = replica.log.read_text()
    assert "tomtom-get-map-config" in outputs["replica 0 log"]  # calls were logged
    assert "tile_refused" in outputs["replica 1 log"]
    assert search_for_keys(outputs, [CALLER_KEY, "offline-403"]) == []


def test_a_server_without_tiles_answers_the_tile_route_with_a_clean_404(
    preview_server: Service,
) -> None:
    refused = httpx.get(f"{preview_server.url}/tiles/basemap/1/0/0.png?t=anything", timeout=10)
    assert refused.status_code == 404
    assert refused.text == "this server serves no map tiles (no TILE_TOKEN_SECRET)\n"
    assert refused.headers["access-control-allow-origin"] == "*"
