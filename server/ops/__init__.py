"""Operations: what a replica tells the people who run it, and its housekeeping.

One small public module each, imported by name (`from server.ops import metrics`);
nothing is re-exported here, so a fitting worker that needs `heap` or `metrics`
never imports the MCP middleware of `call_log`.

- `metrics`: the Prometheus registry served at `GET /metrics`;
- `logs`: text or JSON log lines, with structured `extra` fields, written by a thread;
- `call_log`: the MCP middleware that logs and counts every tool call;
- `call_scope`: the tool call a piece of work belongs to, and its deadline;
- `tracing`: OpenTelemetry spans, off unless `OTEL_*` variables turn them on;
- `drain`: a replica's stopping without losing a call (health 503, closing connections);
- `loop_lag`: the event loop's lag, measured from inside;
- `heap`: the start-up heap frozen out of the collector's full passes; the collector
  paused while a job parses a large document.
"""
