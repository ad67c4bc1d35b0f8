"""The test tiers, and session fixtures: real processes talking real HTTP on 127.0.0.1.

Three tiers (docs/testing.md): quick (no mark: what `pytest` alone runs),
`process` (tests that start services: replicas, the upstream, nginx, the replay, the
soak, benchmarks) and `browser`. A test that uses a fixture of `PROCESS_FIXTURES`,
directly or through another fixture, is marked `process` here; a test that starts
processes itself carries `@pytest.mark.process` (a whole module: `pytestmark`). A test
left in the quick tier that starts a service anyway fails, saying which mark it needs.
"""

from __future__ import annotations

import sys
from collections.abc import Generator, Iterator
from typing import Any

import pytest

import loadtest.topology
from loadtest.topology import Service, free_port, serving
from tests.processes import TEST_KEY, TILE_SECRET, redis_server, running

PROCESS_FIXTURES = frozenset({"upstream", "standin", "server", "preview_server", "redis"})
"""The fixtures below that start processes."""
TIER_MARKS = ("process", "browser")


@pytest.hookimpl(tryfirst=True)  # before `-m` deselects by mark
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        uses = set(getattr(item, "fixturenames", ()))
        if uses & PROCESS_FIXTURES and not item.get_closest_marker("browser"):
            item.add_marker(pytest.mark.process)


_now_running: list[pytest.Item] = []
"""The test being set up, run or torn down: the one a service would start for."""


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item: pytest.Item) -> Generator[None, object, object]:
    _now_running.append(item)
    try:
        return (yield)
    finally:
        _now_running.pop()


@pytest.fixture(scope="session", autouse=True)
def _services_only_in_their_tiers() -> Iterator[None]:
    """Every service a test starts goes through `loadtest.topology.start`: refuse it for a
    quick-tier test, which would otherwise slow the quick tier down unnoticed."""
    start = loadtest.topology.start

    def guarded(name: str, *args: Any, **kwargs: Any) -> Service:
        item = _now_running[-1] if _now_running else None
        if item is not None and not any(item.get_closest_marker(m) for m in TIER_MARKS):
            pytest.fail(
                f"{item.nodeid} starts a process ({name}) but is in the quick tier: use a "
                "process fixture of tests/conftest.py, or mark it `@pytest.mark.process` "
                "(a whole module: `pytestmark = pytest.mark.process`)",
                pytrace=False,
            )
        return start(name, *args, **kwargs)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(loadtest.topology, "start", guarded)
        yield


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


@pytest.fixture(scope="session")
def redis() -> Iterator[Service]:
    """Debian's redis-server, in memory, for budgets shared between replicas."""
    with redis_server() as process:
        yield process
