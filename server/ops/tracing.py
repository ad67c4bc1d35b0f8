"""OpenTelemetry traces: off by default, on with the standard `OTEL_*` variables.

Under the SDK's span per tool call, this server adds one per TomTom request (never the key
or the URL), the wait for the fitting pool, and the job with its decode and fit; a job's
context travels with it (`carrier`, `continued`), so the worker's spans join the call's
trace. With no provider installed, `span` costs next to nothing.
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
