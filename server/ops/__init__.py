"""Operations: what a replica tells the people who run it, and its housekeeping.

One small public module each, imported by name (`from server.ops import metrics`);
nothing is re-exported here, so a fitting worker that needs `heap` or `metrics`
never imports the MCP middleware of `call_log`.

- `metrics`: the Prometheus registry served at `GET /metrics`;
- `logs`: text or JSON log lines, with structured `extra` fields;
- `call_log`: the MCP middleware that logs and counts every tool call;
- `loop_lag`: the event loop's lag, measured from inside;
- `heap`: the start-up heap frozen out of the collector's full passes.
"""
