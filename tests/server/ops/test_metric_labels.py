"""Every metric label takes its values from a closed set: random names sent to every
labelled path add no series to `/metrics`."""

from __future__ import annotations

import random
from collections.abc import Awaitable, Callable
from typing import Any
from urllib.parse import quote

import httpx
import orjson

from tests.server.harness import app_client

HEADERS = {
    "accept": "application/json, text/event-stream",
    "content-type": "application/json",
    "mcp-protocol-version": "2025-11-25",
}
ALPHABET = "abcdefghijklmnopqrstuvwxyz-_0123456789éß中🙂 ./%"


def name(rng: random.Random, longest: int = 40) -> str:
    return "".join(rng.choice(ALPHABET) for _ in range(rng.randint(1, longest)))


async def rpc(client: httpx.AsyncClient, method: str, params: dict[str, Any]) -> None:
    body = {"jsonrpc": "2.0", "id": 1, "method": method, "params": params}
    response = await client.post("/mcp", content=orjson.dumps(body), headers=HEADERS)
    assert response.status_code < 500, response.text


async def call(client: httpx.AsyncClient, tool: str, arguments: dict[str, Any]) -> None:
    await rpc(client, "tools/call", {"name": tool, "arguments": arguments})


async def made_up_tool(client: httpx.AsyncClient, rng: random.Random) -> None:
    await call(client, name(rng), {"query": name(rng)})


async def made_up_method(client: httpx.AsyncClient, rng: random.Random) -> None:
    await rpc(client, name(rng), {})


async def view_report(client: httpx.AsyncClient, rng: random.Random) -> None:
    arguments = {
        "tool": name(rng),
        "status": "error",
        "reason": name(rng),
        "host": {"name": name(rng), "version": name(rng, 20)},
    }
    await call(client, "tomtom-report-app-status", arguments)


async def app_data_for_another_tool(client: httpx.AsyncClient, rng: random.Random) -> None:
    await call(client, "tomtom-get-app-data", {"tool": name(rng), "arguments": {}})


async def map_config_layers(client: httpx.AsyncClient, rng: random.Random) -> None:
    await call(client, "tomtom-get-map-config", {"layers": [name(rng)]})


async def keyed_call(client: httpx.AsyncClient, rng: random.Random) -> None:
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/call"}
    params = {"name": "tomtom-geocode", "arguments": {"query": "Damrak", "show_ui": False}}
    headers = {**HEADERS, "tomtom-api-key": name(rng).encode("utf-8").hex()}
    await client.post("/mcp", content=orjson.dumps({**body, "params": params}), headers=headers)


async def tile_layer(client: httpx.AsyncClient, rng: random.Random) -> None:
    layer = quote(name(rng).replace("/", "") or "x", safe="")
    ext = quote(name(rng, 6).replace("/", "") or "x", safe="")
    response = await client.get(f"/tiles/{layer}/1/0/0.{ext}", params={"t": name(rng, 100)})
    assert response.status_code == 404, response.text


async def tile_token(client: httpx.AsyncClient, rng: random.Random) -> None:
    response = await client.get("/tiles/basemap/1/0/0.png", params={"t": name(rng, 100)})
    assert response.status_code == 403, response.text


async def anywhere(client: httpx.AsyncClient, rng: random.Random) -> None:
    response = await client.get("/" + quote(name(rng), safe=""))
    assert response.status_code < 500


PATHS: list[Callable[[httpx.AsyncClient, random.Random], Awaitable[None]]] = [
    made_up_tool,
    made_up_method,
    view_report,
    app_data_for_another_tool,
    map_config_layers,
    keyed_call,
    tile_layer,
    tile_token,
    anywhere,
]


async def series(client: httpx.AsyncClient) -> set[str]:
    """Each sample's name and labels on `/metrics` (its value left out)."""
    text = (await client.get("/metrics")).text
    return {line.rsplit(" ", 1)[0] for line in text.splitlines() if line and line[0] != "#"}


async def test_random_names_on_every_labelled_path_add_no_metric_series() -> None:
    rng = random.Random(21)
    async with app_client(client_rate_per_s=0) as client:  # hundreds of calls from one address
        for path in PATHS:  # the series random names reach: their "other" values
            for _ in range(3):
                await path(client, rng)
        before = await series(client)
        for path in PATHS:
            for _ in range(40):
                await path(client, rng)
        after = await series(client)
    assert after - before == set()
