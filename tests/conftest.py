"""Session fixtures: real processes talking real HTTP on 127.0.0.1."""

from __future__ import annotations

import sys
from collections.abc import Iterator

import pytest

from loadtest.topology import Service, free_port, serving
from tests.processes import TEST_KEY, TILE_SECRET, running


@pytest.fixture(scope="session")
def upstream() -> Iterator[Service]:
    """The offline TomTom upstream as its own process."""
    with running(["upstream"]) as process:
        yield process


@pytest.fixture(scope="session")
def standin() -> Iterator[Service]:
    """A stand-in TomTom (the offline upstream) that records the path and key of every
    request it receives (`tests.standin.recorded`)."""
    port = free_port()
    command = [sys.executable, "-m", "tests.standin", "--port", str(port)]
    with serving("standin", command, port) as process:
        yield process


@pytest.fixture(scope="session")
def server(upstream: Service) -> Iterator[Service]:
    """A server replica with a key, talking to the separate upstream process over HTTP."""
    env = {
        "TOMTOM_API_KEY": TEST_KEY,
        "TOMTOM_API_BASE_URL": upstream.url,
        "TILE_TOKEN_SECRET": TILE_SECRET,
        "TOMTOM_TIMEOUT_S": "2",
        "FIT_WORKERS": "1",
    }
    with running(["serve"], env) as process:
        yield process


@pytest.fixture(scope="session")
def server_url(server: Service) -> str:
    return server.url


@pytest.fixture(scope="session")
def mcp_url(server: Service) -> str:
    return server.url + "/mcp"


@pytest.fixture(scope="session")
def preview_server() -> Iterator[Service]:
    """A keyless replica (built-in offline upstream) that also serves `/preview`."""
    with running(["serve", "--preview", "--fit-workers", "1"]) as process:
        yield process
