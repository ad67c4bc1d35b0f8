"""Fuzzing the surface a stranger reaches: `POST /mcp` and `/tiles`.

Whatever arrives (malformed JSON-RPC, wrong types, deep nesting, huge strings and
numbers, invalid UTF-8, odd headers), the answer is a JSON-RPC error, a tool error or a
4xx status: never a 500, never a traceback, and the server answers a plain call right
after. In process (the whole app of `build_app`, its front door included, through
`httpx.ASGITransport`) for the bulk of the examples; a shorter run over real HTTP against
a replica process also checks that its memory stays bounded and that it keeps serving.

No example names a `data_url` (a drawn URL could leave 127.0.0.1); keyed calls reach
the offline upstream (in process, or the test upstream process).
"""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Awaitable, Iterator
from typing import Any, TypeVar
from urllib.parse import quote

import httpx
import orjson
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from loadtest.topology import Service
from tests.server.harness import app_client
from tomtom_mcp_apps.server.tools import TOOLS

T = TypeVar("T")
CALL_TIMEOUT_S = 60.0
MIB = 1024 * 1024
MAX_RSS_GROWTH = 300 * MIB
HEADERS = {
    "accept": "application/json, text/event-stream",
    "content-type": "application/json",
    "mcp-protocol-version": "2025-11-25",
}
TOOL_NAMES = [tool.name for tool in TOOLS]
ARGUMENT_NAMES = [
    "query",
    "locations",
    "position",
    "origin",
    "radius",
    "bbox",
    "layers",
    "show_ui",
    "limit",
    "geojson",
    "timeBudgetInSec",
    "markers",
    "lat",
    "lon",
]
"""Arguments the tools take (and a few they don't); never `data_url`."""
METHODS = [
    "initialize",
    "ping",
    "tools/list",
    "tools/call",
    "resources/list",
    "resources/read",
    "resources/templates/list",
    "prompts/list",
    "notifications/initialized",
    "notifications/cancelled",
]


# --- what a stranger sends -------------------------------------------------------------------


def huge_text() -> st.SearchStrategy[str]:
    return st.builds(lambda c, n: c * n, st.characters(), st.integers(0, 300_000))


scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.integers(min_value=-(10**300), max_value=10**300),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=40),
    huge_text(),
)
values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=12), inner),
    max_leaves=25,
)
arguments = st.one_of(
    st.dictionaries(st.sampled_from(ARGUMENT_NAMES) | st.text(max_size=12), values, max_size=6),
    values,
)
tool_params = st.fixed_dictionaries(
    {"name": st.sampled_from(TOOL_NAMES) | st.text(max_size=30)},
    optional={"arguments": arguments, "_meta": values},
)
messages = st.fixed_dictionaries(
    {},
    optional={
        "jsonrpc": st.sampled_from(["2.0", "1.0", 2, None]) | st.text(max_size=5),
        "id": st.one_of(st.integers(), st.text(max_size=20), st.none(), values),
        "method": st.sampled_from(METHODS) | st.text(max_size=30),
        "params": tool_params | values,
        "result": values,
        "error": values,
    },
)


def dumps(value: Any) -> bytes:
    """JSON as a stranger may write it: integers of any size (orjson stops at 64 bits)."""
    return json.dumps(value).encode()


def deep(n: int) -> bytes:
    return b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":' + b"[" * n + b"]" * n + b"}"


def with_invalid_utf8(body: bytes, at: int, junk: bytes) -> bytes:
    at %= len(body) + 1
    return body[:at] + junk + body[at:]


bodies = st.one_of(
    messages.map(dumps),
    st.lists(messages, max_size=4).map(dumps),  # a batch
    st.binary(max_size=2000),
    st.integers(1, 200_000).map(deep),
    st.builds(
        with_invalid_utf8,
        messages.map(dumps),
        st.integers(0),
        st.sampled_from([b"\xff", b"\xc3\x28", b"\xed\xa0\x80", b"\xf8\x88\x80\x80\x80", b"\x00"]),
    ),
    st.integers(300, 100_000).map(  # numbers past every float and int parser's range
        lambda n: (
            b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":'
            b'"tomtom-geocode","arguments":{"query":"x","limit":' + b"9" * n + b"}}}"
        )
    ),
)
# Spaces around a field value are not part of it (RFC 9110 5.5): parsers strip them and
# h11, the client of the replica-process test, refuses to send them.
header_text = st.text(
    st.characters(min_codepoint=0x20, max_codepoint=0xFF, blacklist_characters="\x7f"),
    max_size=200,
).map(lambda value: value.strip(" "))
odd_headers = st.dictionaries(
    st.sampled_from(
        [
            "content-type",
            "accept",
            "mcp-protocol-version",
            "mcp-session-id",
            "content-encoding",
            "x-forwarded-for",
            "tomtom-api-key",
            "last-event-id",
            "origin",
            "x-odd",
        ]
    ),
    header_text,
    max_size=4,
)


def latin1(headers: dict[str, str]) -> dict[str, bytes]:
    return {k: v.encode("latin-1") for k, v in headers.items()}


segment = st.one_of(
    st.text(max_size=20),
    st.integers(min_value=-(10**30), max_value=10**30).map(str),
    st.sampled_from(["basemap", "traffic-flow", "traffic-incidents", "hillshade", "..", "%00"]),
)
tile_paths = st.builds(
    lambda layer, z, x, y, ext: (
        f"/tiles/{quote(layer, safe='')}/{quote(z, safe='')}"
        f"/{quote(x, safe='')}/{quote(y, safe='')}{ext}"
    ),
    segment,
    segment,
    segment,
    segment,
    st.sampled_from([".png", ".pbf", ".jpg", "", ".png.gz"])
    | st.text(max_size=6).map(lambda ext: quote(ext, safe=".")),
)
tokens = st.one_of(
    st.text(max_size=300),
    st.binary(max_size=200).map(lambda b: b.hex()),
    st.integers(0, 50_000).map(lambda n: "A" * n),
)


# --- what it must get back -------------------------------------------------------------------


def assert_answered_not_crashed(response: httpx.Response) -> None:
    """A 4xx, or a 2xx carrying JSON-RPC (a result, a tool error or an error): never a
    5xx, never a traceback."""
    text = response.text
    assert response.status_code < 500, (response.status_code, text[:500])
    assert "Traceback" not in text and "Internal Server Error" not in text, text[:500]
    kind = response.headers.get("content-type", "")
    if response.status_code == 200 and kind.startswith("application/json"):
        answers = response.json()
        for answer in answers if isinstance(answers, list) else [answers]:
            assert answer.get("jsonrpc") == "2.0" and ("result" in answer or "error" in answer)


class InProcess:
    """The whole app in process on an event loop of its own thread, for the module: every
    example is answered by the same app, so a crash or a leak would show in the next."""

    def __init__(self) -> None:
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True)
        self._thread.start()
        self._ready = threading.Event()
        self._closing: asyncio.Event | None = None
        self._serving = asyncio.run_coroutine_threadsafe(self._serve(), self._loop)
        if not self._ready.wait(CALL_TIMEOUT_S):
            raise TimeoutError("the in-process app did not start")

    async def _serve(self) -> None:
        self._closing = asyncio.Event()
        async with app_client(client_rate_per_s=0) as client:  # one peer sends everything
            self.client = client
            self._ready.set()
            await self._closing.wait()

    def run(self, work: Awaitable[T]) -> T:
        return asyncio.run_coroutine_threadsafe(work, self._loop).result(CALL_TIMEOUT_S)  # type: ignore[arg-type]

    def close(self) -> None:
        assert self._closing is not None
        self._loop.call_soon_threadsafe(self._closing.set)
        self._serving.result(CALL_TIMEOUT_S)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(CALL_TIMEOUT_S)


@pytest.fixture(scope="module")
def app() -> Iterator[InProcess]:
    served = InProcess()
    yield served
    served.close()


def still_serving(send: Any) -> None:
    """A plain `tools/list` after the examples: the server still answers it."""
    body = orjson.dumps({"jsonrpc": "2.0", "id": 7, "method": "tools/list", "params": {}})
    response = send(body, HEADERS)
    assert response.status_code == 200, response.text[:300]
    assert len(response.json()["result"]["tools"]) == len(TOOL_NAMES)


FUZZ = settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


@FUZZ
@given(body=bodies, headers=odd_headers)
@example(body=b"\xff\xfe\xfd", headers={})
@example(body=deep(100_000), headers={})
@example(body=b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x"}}', headers={})
def test_anything_posted_to_mcp_gets_a_json_rpc_error_or_a_4xx_never_a_500(
    app: InProcess, body: bytes, headers: dict[str, str]
) -> None:
    response = app.run(
        app.client.post("/mcp", content=body, headers={**HEADERS, **latin1(headers)})
    )
    assert_answered_not_crashed(response)


@FUZZ
@given(params=tool_params, headers=odd_headers)
def test_any_tool_call_with_any_arguments_is_answered_or_refused_never_crashes(
    app: InProcess, params: dict[str, Any], headers: dict[str, str]
) -> None:
    body = dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params})
    response = app.run(
        app.client.post("/mcp", content=body, headers={**HEADERS, **latin1(headers)})
    )
    assert_answered_not_crashed(response)


@FUZZ
@given(path=tile_paths, token=tokens, headers=odd_headers)
def test_any_tile_request_gets_a_4xx_never_a_500(
    app: InProcess, path: str, token: str, headers: dict[str, str]
) -> None:
    response = app.run(app.client.get(path, params={"t": token}, headers=latin1(headers)))
    assert_answered_not_crashed(response)
    assert 400 <= response.status_code < 500


def test_the_app_still_serves_after_the_fuzzing(app: InProcess) -> None:
    still_serving(
        lambda body, headers: app.run(app.client.post("/mcp", content=body, headers=headers))
    )


# --- over real HTTP, against a replica process -----------------------------------------------


@pytest.fixture(scope="module")
def replica_client(server: Service) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=server.url, timeout=CALL_TIMEOUT_S) as client:
        yield client


@pytest.fixture(scope="module")
def rss_before(server: Service) -> int:
    return server.rss_bytes()


@settings(FUZZ, max_examples=60)
@given(body=bodies, headers=odd_headers, path=tile_paths, token=tokens)
def test_a_replica_process_answers_fuzzed_calls_and_tiles_without_a_500(
    replica_client: httpx.Client,
    rss_before: int,
    body: bytes,
    headers: dict[str, str],
    path: str,
    token: str,
) -> None:
    sent = {**HEADERS, **latin1(headers)}
    assert_answered_not_crashed(replica_client.post("/mcp", content=body, headers=sent))
    assert_answered_not_crashed(replica_client.get(path, params={"t": token}))


def test_the_replica_kept_its_memory_bounded_and_still_serves(
    server: Service, replica_client: httpx.Client, rss_before: int
) -> None:
    growth = server.rss_bytes() - rss_before
    assert growth < MAX_RSS_GROWTH, f"the replica grew by {growth / MIB:.0f} MiB"
    assert replica_client.get("/health").status_code == 200
    still_serving(lambda body, headers: replica_client.post("/mcp", content=body, headers=headers))
