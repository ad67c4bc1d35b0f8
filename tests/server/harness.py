"""The tool-test harness, imported by the tool tests: the server in process, and checks.

`tool_client()` runs the real server object (`build_server`) in process against
the real offline upstream (`build_upstream_app`, through `httpx.ASGITransport`),
with an in-memory MCP client. The end-to-end file repeats the essentials over
real HTTP against separate processes.
"""

from __future__ import annotations

import dataclasses
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from typing import Any

import httpx
import orjson
import pytest
from mcp import Client
from mcp.server.auth.middleware.auth_context import auth_context_var
from mcp.server.auth.middleware.bearer_auth import AuthenticatedUser
from mcp.server.auth.provider import AccessToken
from mcp_types import CallToolResult

from tomtom_mcp_apps import fitting
from tomtom_mcp_apps.server.app import build_app, build_server
from tomtom_mcp_apps.server.auth import User
from tomtom_mcp_apps.server.config import OFFLINE_BASE_URL, Settings
from tomtom_mcp_apps.server.jobs import APP_DATA_KEY
from tomtom_mcp_apps.server.offline import build_upstream_app
from tomtom_mcp_apps.server.runtime import Runtime, build_runtime
from tomtom_mcp_apps.widgets import BATCH_URI, DATA_VIZ_URI, FLEET_URI, MAP_URI, TRAFFIC_URI

MODEL_TOOLS = {  # what the tests expect, written out independently of server.tool_names
    "tomtom-geocode": MAP_URI,
    "tomtom-reverse-geocode": MAP_URI,
    "tomtom-fuzzy-search": MAP_URI,
    "tomtom-poi-search": MAP_URI,
    "tomtom-nearby": MAP_URI,
    "tomtom-search-along-route": MAP_URI,
    "tomtom-routing": MAP_URI,
    "tomtom-reachable-range": MAP_URI,
    "tomtom-traffic": TRAFFIC_URI,
    "tomtom-dynamic-map": MAP_URI,
    "tomtom-data-viz": DATA_VIZ_URI,
    "tomtom-ev-search": MAP_URI,
    "tomtom-ev-routing": MAP_URI,
    "tomtom-area-search": MAP_URI,
    "tomtom-batch-geocode": BATCH_URI,
    "tomtom-snap-to-roads": BATCH_URI,
    "tomtom-job-result": BATCH_URI,
    "tomtom-matrix": FLEET_URI,
    "tomtom-plan-routes": FLEET_URI,
}
PLAIN_TOOLS = {"tomtom-poi-categories"}
"""Model tools without a view."""
APP_TOOLS = {
    "tomtom-get-app-data",
    "tomtom-report-app-status",
    "tomtom-get-map-config",
    "tomtom-refetch-app-data",
    "tomtom-resume-job",
}
AMSTERDAM = [4.8897, 52.3740]
UTRECHT = [5.1214, 52.0907]
BERLIN = [13.4050, 52.5200]
LISBON = [-9.1393, 38.7223]
WARSAW = [21.0122, 52.2297]
MADRID = [-3.7038, 40.4168]
ISSUER = "https://as.example.test"
TILE_SECRET = "tile-secret-for-the-in-process-tests-0123456789"
SIGNED_IN = {
    "oauth_issuer": ISSUER,
    "public_url": "https://maps.example.test/mcp",
    "tile_token_secrets": (TILE_SECRET,),
}
"""Settings of a server with sign-in on, for `tool_client(**SIGNED_IN)`."""


@contextmanager
def signed_in_as(subject: str) -> Iterator[User]:
    """Requests made inside the block carry a verified token of `subject`: the SDK keeps a
    request's verified token in a context variable (`AuthContextMiddleware` sets it over
    HTTP); set around `tool_client()`, each tool call runs as that user's would."""
    token = AccessToken(
        token="opaque-test-token",
        client_id="test-client",
        scopes=["maps"],
        subject=subject,
        claims={"iss": ISSUER},
    )
    reset = auth_context_var.set(AuthenticatedUser(token))
    try:
        yield User(ISSUER, subject)
    finally:
        auth_context_var.reset(reset)


BUDGET = 120_000


@dataclasses.dataclass
class Outcome:
    """One tool result, taken apart."""

    result: CallToolResult
    text: str
    answer: dict[str, Any] | None

    @property
    def is_error(self) -> bool:
        return bool(self.result.is_error)

    @property
    def meta(self) -> dict[str, Any]:
        return dict(self.result.meta or {})

    @property
    def envelope(self) -> dict[str, Any]:
        return fitting.decode(self.meta[APP_DATA_KEY])


class ToolClient:
    def __init__(self, client: Client, runtime: Runtime) -> None:
        self.client = client
        self.runtime = runtime

    async def call(self, name: str, arguments: dict[str, Any]) -> Outcome:
        result = await self.client.call_tool(name, arguments)
        text = result.content[0].text if result.content else ""
        try:
            answer = orjson.loads(text)
        except orjson.JSONDecodeError:
            answer = None
        return Outcome(result, text, answer if isinstance(answer, dict) else None)


@asynccontextmanager
async def tool_client(
    *,
    key: str | None = None,
    transport: httpx.AsyncBaseTransport | None = None,
    **settings: Any,
) -> AsyncIterator[ToolClient]:
    """The server's tools in process, over the offline upstream (or `transport`, standing in
    for TomTom); `key` is the configured key. Keyed requests reach the same upstream at
    the TomTom base URL, with the key. The runtime is the server's own (`build_runtime`),
    kept alive by the server's lifespan, with no fitting pool started: every job runs
    on the loop (`fit_inline`)."""
    settings.setdefault("fit_inline", True)  # no process pool needed in process
    transport = transport or httpx.ASGITransport(app=build_upstream_app(slow_answer_s=2.0))
    config = Settings(api_key=key, api_base_url=OFFLINE_BASE_URL, **settings)
    runtime = build_runtime(config, upstream=transport)
    async with Client(build_server(runtime, start_pool=False), cache=None) as client:
        yield ToolClient(client, runtime)


@asynccontextmanager
async def app_client(**settings: Any) -> AsyncIterator[httpx.AsyncClient]:
    """The whole HTTP app (`build_app`: front door, `/mcp`, `/tiles`, `/metrics`...) in
    process, its lifespan entered, every job on the loop; keyless calls answered by the
    offline upstream, tiles served (a token secret and a public URL are set)."""
    settings.setdefault("fit_inline", True)
    settings.setdefault("api_base_url", OFFLINE_BASE_URL)  # keyed calls stay in process too
    settings.setdefault("tile_token_secrets", (TILE_SECRET,))
    settings.setdefault("public_url", "http://127.0.0.1:8000/mcp")
    app = build_app(Settings(**settings), start_pool=False)
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app, client=("203.0.113.7", 50000))
        async with httpx.AsyncClient(
            transport=transport, base_url="http://127.0.0.1:8000", timeout=60
        ) as client:
            yield client


def coordinate_lists(value: Any, path: str = "") -> list[str]:
    """Paths in a JSON value holding a list of positions (a single position is allowed)."""
    found: list[str] = []
    if isinstance(value, dict):
        for k, v in value.items():
            found += coordinate_lists(v, f"{path}.{k}")
    elif isinstance(value, list):
        if len(value) > 1 and all(_is_position(v) for v in value):
            found.append(path)
        elif len(value) > 4 and all(isinstance(v, int | float) for v in value):
            found.append(path)  # a flat coordinate array
        else:
            for i, v in enumerate(value):
                found += coordinate_lists(v, f"{path}[{i}]")
    return found


def _is_position(value: Any) -> bool:
    return (
        isinstance(value, list)
        and len(value) in (2, 3)
        and all(isinstance(v, int | float) and not isinstance(v, bool) for v in value)
    )


def assert_model_text(outcome: Outcome, tool: str, *, show_ui: bool = True) -> dict[str, Any]:
    """The contract for the model's text: JSON, show_ui and tool, no coordinate lists."""
    assert not outcome.is_error, outcome.text
    answer = outcome.answer
    assert answer is not None, outcome.text
    assert answer["show_ui"] is show_ui
    if show_ui:
        assert answer["tool"] == tool
    assert coordinate_lists(answer) == [], coordinate_lists(answer)
    assert "_meta" not in answer
    return answer


KIND_GEOMETRIES = {
    "result": {"Point"},
    "waypoint": {"Point"},
    "route": {"LineString"},
    "range": {"Polygon", "MultiPolygon"},
    "origin": {"Point"},
    "marker": {"Point"},
    "area": {"Polygon", "MultiPolygon"},
    "station": {"Point"},
    "charging_stop": {"Point"},
}
ROUTE_PROPERTIES = {"route_index", "summary", "legs", "sections"}
"""Plus `guidance` and `progress` together, except on dynamic maps."""


def assert_map_data_shape(data: dict[str, Any]) -> None:
    """`data` is the FeatureCollection of docs/result.md: known kinds on their geometries,
    lines and rings as e5 integer deltas, points as 5-decimal coordinates."""
    assert data["type"] == "FeatureCollection"
    assert set(data) <= {"type", "features", "bbox", "title", "summary"}
    if "bbox" in data:
        west, south, east, north = data["bbox"]
        assert west <= east and south <= north
    for feature in data["features"]:
        assert feature["type"] == "Feature"
        kind = feature["properties"]["kind"]
        geometry = feature["geometry"]
        assert geometry["type"] in KIND_GEOMETRIES[kind], (kind, geometry["type"])
        if geometry["type"] == "Point":
            lon, lat = geometry["coordinates"]
            assert round(lon, 5) == lon and round(lat, 5) == lat
        else:
            assert "coordinates" not in geometry and "e5" in geometry
            parts = [geometry["e5"]] if geometry["type"] == "LineString" else geometry["e5"]
            for part in parts:
                assert len(part) >= 4 and len(part) % 2 == 0
                assert all(isinstance(v, int) for v in part)
        if kind == "route":
            properties = feature["properties"]
            assert set(properties) >= ROUTE_PROPERTIES
            assert ("guidance" in properties) == ("progress" in properties)
            if "guidance" in properties:
                assert "instructions" in properties["guidance"]


def line_of(feature: dict[str, Any]) -> list[list[float]]:
    return fitting.to_geojson(feature["geometry"])["coordinates"]


def wire_size(result: CallToolResult) -> int:
    """Characters of `result` inside a JSON-RPC response, as sent."""
    body = {
        "jsonrpc": "2.0",
        "id": 1,
        "result": result.model_dump(by_alias=True, exclude_none=True),
    }
    return len(orjson.dumps(body))


def assert_indices_hit_their_vertices(route: dict[str, Any]) -> None:
    """Every index-bearing property points inside the line, and each guidance instruction's
    pointIndex is the vertex at the instruction's own position."""
    line = line_of(route)
    props = route["properties"]
    last = len(line) - 1
    for leg in props["legs"]:
        assert 0 <= leg["startPointIndex"] < leg["endPointIndex"] <= last
    for section in props["sections"]:
        assert 0 <= section["startPointIndex"] <= section["endPointIndex"] <= last
    if "guidance" not in props:  # a dynamic map's routes carry no turn-by-turn
        return
    for progress in props["progress"]:
        assert 0 <= progress["pointIndex"] <= last
    instructions = props["guidance"]["instructions"]
    assert instructions
    for instruction in instructions:
        vertex = line[instruction["pointIndex"]]
        point = instruction["point"]
        assert vertex == pytest.approx([point["longitude"], point["latitude"]], abs=2e-5)


def features_of(envelope: dict[str, Any], kind: str) -> list[dict[str, Any]]:
    return [f for f in envelope["data"]["features"] if f["properties"]["kind"] == kind]
