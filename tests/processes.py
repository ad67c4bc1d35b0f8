"""Real processes for integration tests: the offline upstream and server replicas.

Started by `loadtest.topology.serving`, as the load test and the benchmarks
start theirs: a free port on 127.0.0.1, output in a log file the test can
read (JSON log lines), readiness polled on `/health` with a bound, and the
process group always stopped.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator, Mapping
from pathlib import Path

from loadtest.topology import Service, cli, free_port, serving, wait_listening

ROOT = Path(__file__).resolve().parent.parent
START_TIMEOUT_S = 120.0
TEST_KEY = "test-key"
"""The TomTom key a test replica is started with (the separate upstream accepts any)."""
TILE_SECRET = "test-tile-secret-shared-by-every-replica-0123456789"
"""The tile-token secret every test replica shares, as a deployment's replicas do."""


@contextlib.contextmanager
def running(
    args: list[str], env: Mapping[str, str] | None = None, *, port: int | None = None
) -> Iterator[Service]:
    """Run `tomtom-mcp-apps <args>` (on `port`, default a free one) until the block ends,
    once its `/health` answers 200."""
    port = port or free_port()
    full_env = {
        **{k: v for k, v in os.environ.items() if not k.startswith("TOMTOM_")},
        "LOG_FORMAT": "json",
        "PYTHONUNBUFFERED": "1",
        # No balancer in front of a test's replica: stopping it need not wait for one
        # (the drain tests set their own).
        "DRAIN_DELAY_S": "0",
        # Every test reaches it from 127.0.0.1: one client for the whole suite (the front
        # door's tests set their own rate and share).
        "CLIENT_RATE_PER_S": "0",
        "CLIENT_MAX_IN_FLIGHT": "100000",
        **(env or {}),
    }
    with serving(args[0], cli(args, port), port, env=full_env, timeout=START_TIMEOUT_S) as service:
        yield service


@contextlib.contextmanager
def redis_server(port: int | None = None) -> Iterator[Service]:
    """Debian's `redis-server` on `port` (default: a free one) of 127.0.0.1, in memory only
    (no snapshot, no append-only file), until the block ends (`redis_url` is its URL)."""
    port = port or free_port()
    command = [
        "redis-server",
        "--port",
        str(port),
        "--bind",
        "127.0.0.1",
        "--save",
        "",
        "--appendonly",
        "no",
    ]
    with serving("redis", command, port, ready=wait_listening) as service:
        yield service


def redis_url(service: Service) -> str:
    """The `redis://` URL of a `redis_server()`."""
    return service.url.replace("http://", "redis://") + "/0"
