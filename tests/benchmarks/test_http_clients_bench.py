"""The HTTP-client benchmark's quick mode: every client fetches both cases whole from the
stand-in, and the table gives each one's CPU beside the seam's from the same run."""

from __future__ import annotations

import asyncio
import sys

import pytest

from benchmarks import http_clients
from loadtest.topology import free_port, serving

pytestmark = pytest.mark.process
REQUESTS = 20


def test_every_client_fetches_both_cases_and_is_reported_beside_the_seam() -> None:
    port = free_port()
    command = [sys.executable, "-m", "tests.standin", "--clock", http_clients.CLOCK]
    with serving("standin", [*command, "--port", str(port)], port) as standin:
        cases = http_clients.cases(standin.url)
        results = asyncio.run(http_clients.measure(standin.url, REQUESTS))
    assert set(results) == {(client, case) for client in http_clients.CLIENTS for case in cases}
    for measured in results.values():
        assert len(measured.walls) == REQUESTS and all(ms > 0 for ms in measured.walls)
        assert measured.cpu_ms > 0
    header, _, *rows = http_clients.report(results).splitlines()
    assert header.split()[:2] == ["case", "client"]
    assert len(rows) == len(cases) * len(http_clients.CLIENTS)
    for row in rows:
        case = next(c for c in cases if row.startswith(c))
        client = next(c for c in http_clients.CLIENTS if c in row)
        seam = results["aiohttp (server.outbound)", case].cpu_ms
        ratio = results[client, case].cpu_ms / seam
        assert f"{results[client, case].cpu_ms:.3f}" in row
        assert row.rstrip().endswith(f"{ratio:.2f}x")
