"""Operations: what a replica tells the people who run it, and its housekeeping.

One public module each, imported by name; nothing is re-exported, so a fitting worker
that needs `heap` or `metrics` never imports `call_log`'s MCP middleware.

- `metrics`: the Prometheus registry served at `GET /metrics`;
- `logs`: text or JSON log lines, written by a thread;
- `call_log`: every tool call logged and counted; `call_scope`: the call work is for;
- `tracing`: OpenTelemetry spans, off unless `OTEL_*` variables turn them on;
- `drain`: a replica's stopping without losing a call;
- `loop_lag`, `heap`: the event loop's lag; the collector kept off its critical path.
"""
