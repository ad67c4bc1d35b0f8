"""OpenTelemetry traces: off by default, on with the standard `OTEL_*` variables.

Spans are made through the OpenTelemetry API everywhere (a no-op until a provider is
installed). The MCP SDK makes one per tool call (`tools/call <tool>`, under the
Starlette instrumentation's `POST /mcp`); beneath it, this server adds one per TomTom
request (API family,
status, bytes; never the key or the URL, which carries it), the wait for the fitting
pool and the worker job, and inside the job its decode and fit. A job's context
travels to the fitting worker with the job (`carrier`, `continued`), so the worker's
spans join the call's trace. `configure` installs the SDK in the replica and in each
worker (the exporter reads its own `OTEL_EXPORTER_OTLP_*` variables; the resource
`OTEL_SERVICE_NAME` and `OTEL_RESOURCE_ATTRIBUTES`; the sampler `OTEL_TRACES_SAMPLER`).
With no provider installed, `span` costs next to nothing: the API's own no-op span took
tens of microseconds, several times per call (docs/adr/0091-per-call-overhead.md).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Mapping
from typing import Any

from opentelemetry import context as otel_context
from opentelemetry import propagate, trace
from opentelemetry.trace import Span, SpanKind

CLIENT = SpanKind.CLIENT
INTERNAL = SpanKind.INTERNAL
EXPORTERS = frozenset({"none", "otlp", "console"})
"""`OTEL_TRACES_EXPORTER` values this server supports (OTLP over HTTP/protobuf)."""
_NAME = "tomtom-mcp-apps"


_UNTRACED = contextlib.nullcontext(trace.INVALID_SPAN)
"""The block of a `span` when nothing records spans: no span, no context to attach."""


def span(
    name: str, *, kind: SpanKind = INTERNAL, attributes: Mapping[str, Any] | None = None
) -> contextlib.AbstractContextManager[Span]:
    """A span for the block, the current one's child; an exception marks it as an error."""
    provider = trace.get_tracer_provider()
    if isinstance(provider, trace.ProxyTracerProvider):  # none installed: spans record nothing
        return _UNTRACED
    tracer = provider.get_tracer(_NAME)
    return tracer.start_as_current_span(name, kind=kind, attributes=attributes)


def current_span() -> Span:
    """The span the caller runs in (a no-op span when nothing is traced)."""
    return trace.get_current_span()


def carrier() -> dict[str, str]:
    """The current trace context as W3C headers, to send with a job to a worker ({} when
    nothing is traced)."""
    headers: dict[str, str] = {}
    propagate.inject(headers)
    return headers


@contextlib.contextmanager
def continued(headers: Mapping[str, str]) -> Iterator[None]:
    """Run the block in the trace context `headers` carried (from `carrier`)."""
    if not headers:
        yield
        return
    token = otel_context.attach(propagate.extract(dict(headers)))
    try:
        yield
    finally:
        otel_context.detach(token)


def configure(exporter: str) -> bool:
    """Install the SDK's tracer provider exporting to `exporter`; False for "none"."""
    if exporter == "none":
        return False
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import BatchSpanProcessor, ConsoleSpanExporter

    if exporter == "otlp":
        from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter

        span_exporter: Any = OTLPSpanExporter()
    else:
        span_exporter = ConsoleSpanExporter()
    resource = Resource.create()  # OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES
    if str(resource.attributes.get("service.name", "")).startswith("unknown_service"):
        resource = resource.merge(Resource({"service.name": _NAME}))
    provider = TracerProvider(resource=resource)
    provider.add_span_processor(BatchSpanProcessor(span_exporter))
    trace.set_tracer_provider(provider)
    return True


def shutdown() -> None:
    """Export what is buffered (at exit of a replica or a worker)."""
    provider = trace.get_tracer_provider()
    if hasattr(provider, "shutdown"):
        provider.shutdown()
