"""A replica told to stop (SIGTERM, as a rolling update sends) answers every call it accepted.

Real processes: the offline upstream and one replica with a single fitting worker, so
that long routes queue for it and are still being fitted when the signal comes.
"""

from __future__ import annotations

import asyncio
import signal
import time

import httpx
import pytest

from loadtest.topology import Service
from loadtest.wire import CallFailed, call_tool, result_text
from tests.processes import TEST_KEY, TILE_SECRET, running
from tests.server.harness import LISBON, WARSAW
from tomtom_mcp_apps import fitting
from tomtom_mcp_apps.server.jobs import APP_DATA_KEY

# Routes that need fitting (Madrid-Warsaw goes as is).
LONG_ROUTES = [[LISBON, WARSAW], [WARSAW, LISBON]] * 4
DRAIN = {"DRAIN_DELAY_S": "1.5", "DRAIN_TIMEOUT_S": "40"}
WAIT_S = 60.0


def queued_in_pool(base: str) -> float:
    text = httpx.get(f"{base}/metrics", timeout=5).text
    for line in text.splitlines():
        if line.startswith("tomtom_mcp_fit_pool_queued "):
            return float(line.split()[1])
    return 0.0


async def until(condition, what: str, timeout: float = WAIT_S) -> None:
    deadline = time.monotonic() + timeout
    while not await asyncio.to_thread(condition):
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        await asyncio.sleep(0.05)


async def test_sigterm_mid_flight_answers_every_accepted_call_then_exits(
    upstream: Service,
) -> None:
    env = {
        "TOMTOM_API_KEY": TEST_KEY,
        "TOMTOM_API_BASE_URL": upstream.url,
        "TILE_TOKEN_SECRET": TILE_SECRET,
        "FIT_WORKERS": "1",
        "TOMTOM_QPS": "routing=1000",
        **DRAIN,
    }
    with running(["serve"], env) as replica:
        mcp = f"{replica.url}/mcp"
        async with httpx.AsyncClient(timeout=WAIT_S) as client:
            calls = [
                asyncio.create_task(call_tool(client, mcp, "tomtom-routing", {"locations": stops}))
                for stops in LONG_ROUTES
            ]
            await until(lambda: queued_in_pool(replica.url) >= 3, "long routes in the pool")
            signalled = time.monotonic()
            replica.process.send_signal(signal.SIGTERM)

            async with httpx.AsyncClient(timeout=5) as probe:
                health = await probe.get(f"{replica.url}/health")
            assert health.status_code == 503
            assert health.json()["status"] == "draining"

            results = await asyncio.gather(*calls)
            for result in results:
                assert not result.get("isError"), result_text(result)
                envelope = fitting.decode(result["_meta"][APP_DATA_KEY])
                assert envelope["fitted"]["original_points"] > 30_000

            await until(lambda: replica.process.poll() is not None, "the replica to exit")
            assert replica.process.returncode == 0
            assert time.monotonic() - signalled < 40
            with pytest.raises(CallFailed):  # gone: a balancer would send elsewhere
                await call_tool(client, mcp, "tomtom-geocode", {"query": "Dam"})
        events = [e.get("event") for e in replica.log_events()]
        assert "drain" in events


async def test_while_draining_calls_on_open_connections_are_answered_and_closed(
    upstream: Service,
) -> None:
    env = {
        "TOMTOM_API_KEY": TEST_KEY,
        "TOMTOM_API_BASE_URL": upstream.url,
        "TILE_TOKEN_SECRET": TILE_SECRET,
        **DRAIN,
    }
    with running(["serve", "--fit-workers", "1"], env) as replica:
        mcp = f"{replica.url}/mcp"
        async with httpx.AsyncClient(timeout=WAIT_S) as client:
            assert not (await call_tool(client, mcp, "tomtom-geocode", {"query": "Dam"}))["isError"]
            replica.process.send_signal(signal.SIGTERM)
            await until(lambda: httpx.get(f"{replica.url}/health").status_code == 503, "503")
            response = await client.post(
                mcp,
                json={
                    "jsonrpc": "2.0",
                    "id": 1,
                    "method": "tools/call",
                    "params": {"name": "tomtom-geocode", "arguments": {"query": "Dam"}},
                },
                headers={
                    "accept": "application/json, text/event-stream",
                    "mcp-protocol-version": "2025-11-25",
                },
            )
            assert response.status_code == 200
            assert response.headers["connection"] == "close"
            assert not response.json()["result"]["isError"]
            await until(lambda: replica.process.poll() is not None, "the replica to exit")
        assert replica.process.returncode == 0
