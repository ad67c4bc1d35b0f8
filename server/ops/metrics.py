"""Prometheus metrics served at `GET /metrics`: what operators watch for misses and slow fits.

Every label takes its values from a closed set: a name a caller chose is counted under
its own value only when it is a known one, else under `OTHER` (`bounded`), so no caller
can add series.
"""

from __future__ import annotations

from collections.abc import Collection

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram

REGISTRY = CollectorRegistry()
OTHER = "other"


def bounded(value: str, known: Collection[str]) -> str:
    """`value` as a label value when it is one of `known`, else `OTHER`."""
    return value if value in known else OTHER


TOOL_CALLS = Counter(
    "tomtom_mcp_tool_calls_total",
    "Tool calls by tool (other: a name no tool has) and outcome (ok, tool_error, crash).",
    ["tool", "outcome"],
    registry=REGISTRY,
)
UPSTREAM_SECONDS = Histogram(
    "tomtom_mcp_upstream_seconds",
    "TomTom request latency by endpoint and outcome.",
    ["endpoint", "outcome"],
    registry=REGISTRY,
    buckets=(0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30),
)
APP_DATA_CHARS = Histogram(
    "tomtom_mcp_app_data_chars",
    "Characters of inline app data per tool result, by tool.",
    ["tool"],
    registry=REGISTRY,
    buckets=(1_000, 5_000, 20_000, 50_000, 80_000, 100_000, 120_000, 150_000),
)
APP_DATA_OUTCOMES = Counter(
    "tomtom_mcp_app_data_total",
    "App data delivery by tool and outcome (as_is, fitted, omitted_too_large, "
    "omitted_invalid, omitted_show_ui_false, none; data-viz: paged, plan, page).",
    ["tool", "outcome"],
    registry=REGISTRY,
)
FIT_SECONDS = Histogram(
    "tomtom_mcp_fit_seconds",
    "Wall time of fits (encode and, when needed, simplification) by where they ran.",
    ["where"],
    registry=REGISTRY,
    buckets=(0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5),
)
POOL_QUEUE = Gauge(
    "tomtom_mcp_fit_pool_queued",
    "Fits waiting for or running in the process pool.",
    registry=REGISTRY,
)
POOL_RESTARTS = Counter(
    "tomtom_mcp_fit_pool_restarts_total",
    "Times the fitting pool was rebuilt after a worker died.",
    registry=REGISTRY,
)
OFFLINE_REQUESTS = Counter(
    "tomtom_mcp_offline_requests_total",
    "TomTom requests answered by the built-in offline upstream (the request had no key, "
    "or OFFLINE=always), by endpoint.",
    ["endpoint"],
    registry=REGISTRY,
)
WIDGET_STATUS = Counter(
    "tomtom_mcp_widget_status_total",
    "View outcome reports by tool, status (ok, error), reason (drawn, meta_dropped...), "
    "host (claude, chatgpt, ...) and platform (web, desktop, mobile); unknown values are "
    "counted as other.",
    ["tool", "status", "reason", "host", "platform"],
    registry=REGISTRY,
)
TILE_REQUESTS = Counter(
    "tomtom_mcp_tile_requests_total",
    "Requests to /tiles by layer and outcome (ok, not_modified, forbidden, rate_limited, "
    "quota, over_budget, bad_request, not_found, upstream_refused, too_large, unavailable).",
    ["layer", "outcome"],
    registry=REGISTRY,
)
LOOP_LAG = Histogram(
    "tomtom_mcp_event_loop_lag_seconds",
    "How late the event loop runs a timer due every 50 ms: time lost to other work, "
    "to collection pauses or to a CPU shared with fitting workers.",
    registry=REGISTRY,
    buckets=(0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1),
)
UPSTREAM_DROPPED = Counter(
    "tomtom_mcp_upstream_entries_dropped_total",
    "Malformed entries of TomTom answers left out of tool results (null or mistyped "
    "results, sections, progress points, incidents...), by tool.",
    ["tool"],
    registry=REGISTRY,
)
RATE_WAIT_SECONDS = Histogram(
    "tomtom_mcp_rate_limit_wait_seconds",
    "Time a keyed TomTom request waited for its turn under the key's rate, by API family.",
    ["family"],
    registry=REGISTRY,
    buckets=(0.001, 0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30),
)
RATE_LIMIT_REFUSALS = Counter(
    "tomtom_mcp_rate_limit_refusals_total",
    "TomTom requests refused by API family and reason: pacing (the wait for the key's turn "
    "would be too long), quota (the key's requests per minute on this replica are used up), "
    "tomtom (TomTom answered 429 and no retry fitted).",
    ["family", "reason"],
    registry=REGISTRY,
)
UPSTREAM_RETRIES = Counter(
    "tomtom_mcp_upstream_retries_total",
    "TomTom requests sent again after a 429 (not billed) whose Retry-After fitted the call.",
    ["family"],
    registry=REGISTRY,
)
DRAINING = Gauge(
    "tomtom_mcp_draining",
    "1 while the replica drains after SIGTERM: /health answers 503, accepted calls finish.",
    registry=REGISTRY,
)
VIEW_REFETCHES = Counter(
    "tomtom_mcp_view_refetches_total",
    "TomTom tools run again for a view whose host dropped the result's data (VIEW_REFETCH), "
    "by tool and outcome (ok, tool_error, off, refused_tool, capped); each ok is billed again.",
    ["tool", "outcome"],
    registry=REGISTRY,
)
SIGN_IN = Counter(
    "tomtom_mcp_sign_in_total",
    "Requests to POST /mcp when sign-in is on, by outcome (ok, no_token, invalid_token, "
    "insufficient_scope, unavailable) and, for invalid tokens, reason (expired, audience, "
    "issuer, signature, unknown_key, algorithm, claims, malformed, inactive, not_yet_valid).",
    ["outcome", "reason"],
    registry=REGISTRY,
)
USER_QUOTA_REFUSALS = Counter(
    "tomtom_mcp_user_quota_refusals_total",
    "TomTom requests (tiles included) refused because a signed-in user's budget is used up, "
    "by window (minute, day) or store_down (QUOTA_STORE_DOWN=refuse while the store fails); "
    "no per-user label.",
    ["window"],
    registry=REGISTRY,
)
QUOTA_STORE_FAILURES = Counter(
    "tomtom_mcp_quota_store_failures_total",
    "Times the shared budget store (QUOTA_STORE) failed or did not answer in time; the "
    "replica then keeps budgets on its own or refuses, as QUOTA_STORE_DOWN says.",
    registry=REGISTRY,
)
REFUSALS = Counter(
    "tomtom_mcp_refusals_total",
    "Requests and calls refused before or instead of being served, by reason: client_rate "
    "(a client past its rate: 429), client_in_flight (a client past its calls at once: 429), "
    "calls_in_flight (the replica's ceiling: 503), "
    "body_too_large (413), body_timeout (408), header_timeout (408), headers_too_large "
    "(431), pool_queue (the fitting pool's queue is full: a tool error).",
    ["reason"],
    registry=REGISTRY,
)
CALLS_IN_FLIGHT = Gauge(
    "tomtom_mcp_calls_in_flight",
    "POST /mcp requests this replica is serving (MAX_CALLS_IN_FLIGHT bounds it).",
    registry=REGISTRY,
)
