"""OpenTelemetry traces: a span per tool call, its TomTom requests and jobs under it, never a key.

In process, spans are read from the SDK's in-memory exporter. Over real processes a
replica exports OTLP/HTTP to a collector this test runs on 127.0.0.1, which shows that
the fitting worker's spans join the call's trace.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import httpx
import pytest
from opentelemetry import trace
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from loadtest.topology import Service
from loadtest.wire import call_tool, result_text
from tests.processes import TEST_KEY, TILE_SECRET, running
from tests.server.harness import AMSTERDAM, LISBON, UTRECHT, WARSAW, tool_client
from tomtom_mcp_apps.server.tools.app_only import MAP_CONFIG_KEY

WAIT_S = 60.0


@pytest.fixture(scope="module")
def exported() -> Iterator[InMemorySpanExporter]:
    """Spans of this process, kept in memory (the global provider can be set only once)."""
    exporter = InMemorySpanExporter()
    provider = trace.get_tracer_provider()
    if not isinstance(provider, TracerProvider):
        provider = TracerProvider()
        trace.set_tracer_provider(provider)
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    yield exporter
    exporter.shutdown()  # later tests' spans are dropped, not kept


def by_name(spans: tuple[ReadableSpan, ...], name: str) -> ReadableSpan:
    (span,) = [s for s in spans if s.name == name]
    return span


def values(spans: Any) -> str:
    return repr([dict(s.attributes or {}) for s in spans])


async def test_a_tool_call_is_a_span_with_its_tomtom_request_decode_and_fit_beneath(
    exported: InMemorySpanExporter,
) -> None:
    exported.clear()
    async with tool_client(key="caller-secret-key") as client:
        outcome = await client.call("tomtom-routing", {"locations": [AMSTERDAM, UTRECHT]})
    assert not outcome.is_error, outcome.text
    spans = exported.get_finished_spans()
    call = by_name(spans, "tools/call tomtom-routing")
    request = by_name(spans, "TomTom routing")
    assert request.parent is not None and request.parent.span_id == call.context.span_id
    assert request.attributes["tomtom.api_family"] == "routing"
    assert request.attributes["http.response.status_code"] == 200
    assert request.attributes["tomtom.response.bytes"] > 1000
    for name in ("decode", "fit"):
        span = by_name(spans, name)
        assert span.context.trace_id == call.context.trace_id
    assert call.attributes["mcp.tool.outcome"] == "ok"
    assert "caller-secret-key" not in values(spans)


async def test_a_failed_tool_call_is_an_error_span(exported: InMemorySpanExporter) -> None:
    exported.clear()
    async with tool_client(key="offline-403") as client:
        outcome = await client.call("tomtom-geocode", {"query": "Dam"})
    assert outcome.is_error
    spans = exported.get_finished_spans()
    call = by_name(spans, "tools/call tomtom-geocode")
    assert call.status.status_code == trace.StatusCode.ERROR
    assert call.attributes["mcp.tool.outcome"] == "tool_error"
    request = by_name(spans, "TomTom geocoding")
    assert request.attributes["http.response.status_code"] == 403
    assert request.status.status_code == trace.StatusCode.ERROR


class Collector:
    """An OTLP/HTTP trace receiver on 127.0.0.1: every span exported to it, decoded."""

    def __init__(self) -> None:
        self.spans: list[dict[str, Any]] = []
        collector = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                request = ExportTraceServiceRequest()
                request.ParseFromString(self.rfile.read(int(self.headers["content-length"])))
                for resource in request.resource_spans:
                    service = {a.key: a.value.string_value for a in resource.resource.attributes}
                    for scope in resource.scope_spans:
                        for span in scope.spans:
                            collector.spans.append(
                                {
                                    "name": span.name,
                                    "trace": span.trace_id.hex(),
                                    "id": span.span_id.hex(),
                                    "parent": span.parent_span_id.hex(),
                                    "attributes": {a.key: str(a.value) for a in span.attributes},
                                    "service": service.get("service.name"),
                                }
                            )
                self.send_response(200)
                self.send_header("content-type", "application/x-protobuf")
                self.send_header("content-length", "0")
                self.end_headers()

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def wait_for(self, name: str, timeout: float = WAIT_S) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            found = [s for s in self.spans if s["name"] == name]
            if found:
                return found[0]
            time.sleep(0.1)
        raise AssertionError(f"no span {name!r} in {[s['name'] for s in self.spans]}")


@pytest.fixture
def collector() -> Iterator[Collector]:
    collector = Collector()
    yield collector
    collector.server.shutdown()


async def test_spans_from_the_fitting_worker_join_the_calls_trace_over_otlp(
    upstream: Service, collector: Collector
) -> None:
    env = {
        "TOMTOM_API_KEY": TEST_KEY,
        "TOMTOM_API_BASE_URL": upstream.url,
        "TILE_TOKEN_SECRET": TILE_SECRET,
        "FIT_WORKERS": "1",
        "OTEL_EXPORTER_OTLP_ENDPOINT": collector.url,
        "OTEL_SERVICE_NAME": "replica-under-test",
        "OTEL_BSP_SCHEDULE_DELAY": "200",
    }
    with running(["serve"], env) as replica:
        async with httpx.AsyncClient(timeout=WAIT_S) as client:
            result = await call_tool(
                client, f"{replica.url}/mcp", "tomtom-routing", {"locations": [LISBON, WARSAW]}
            )
        assert not result.get("isError"), result_text(result)
        # A tile through the route: its URL holds a token sealing the key, so it is not traced.
        async with httpx.AsyncClient(timeout=WAIT_S) as client:
            config = await call_tool(
                client, f"{replica.url}/mcp", "tomtom-get-map-config", {"layers": ["basemap"]}
            )
            template = config["_meta"][MAP_CONFIG_KEY]["tiles"]["basemap"]
            tile = await client.get(template.format(z=3, x=4, y=2))
        assert tile.status_code == 200, tile.text
        token = template.rsplit("t=", 1)[1]
        fit = collector.wait_for("fit")  # made in the worker process
        job = collector.wait_for("worker job")
        call = collector.wait_for("tools/call tomtom-routing")
        http = collector.wait_for("POST /mcp")
        request = collector.wait_for("TomTom routing")
    assert fit["trace"] == job["trace"] == call["trace"] == http["trace"]
    ids = {s["id"]: s for s in collector.spans}
    chain, span = [], fit
    while span["parent"] in ids:
        span = ids[span["parent"]]
        chain.append(span["name"])
    assert chain[:2] == ["worker job", "tools/call tomtom-routing"]
    assert "POST /mcp" in chain
    assert request["parent"] == call["id"]
    assert {s["service"] for s in collector.spans} == {"replica-under-test"}
    collector.wait_for("tools/call tomtom-get-map-config")
    assert TEST_KEY not in repr(collector.spans)
    assert token not in repr(collector.spans)
    assert not [s for s in collector.spans if "/tiles" in s["name"]], "tile requests untraced"
