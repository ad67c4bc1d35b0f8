"""`tomtom-mcp-apps stdio` through the Python SDK's stdio client, as a local host starts it:
from this checkout, and from the built wheel run with `uvx` in a fresh environment (the
views inside, no Node). Every tool is listed, a route is calculated and its app data
decoded; with `FIT_INLINE_POINTS=0` the fitting workers make the results, so a byte they
wrote to stdout would break the protocol. The kernels compile once into the user's cache
directory, and a host that closes the server's stdin sees it gone at once, workers and
all, warming or not."""

from __future__ import annotations

import contextlib
import json
import os
import selectors
import signal
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import anyio
import pytest
from mcp import Client, StdioServerParameters

from tests.processes import ROOT
from tests.server.harness import AMSTERDAM, APP_TOOLS, MODEL_TOOLS, PLAIN_TOOLS, UTRECHT
from tomtom_mcp_apps import fitting
from tomtom_mcp_apps.server.jobs import APP_DATA_KEY
from tomtom_mcp_apps.server.product import VERSION

pytestmark = pytest.mark.process

START_S = 120
"""A first start compiles the fitting kernels in each worker."""
WHEEL_START_S = 420
"""`uvx` also builds a fresh environment (packages from its cache, else from PyPI)."""
EXIT_S = 5.0
"""How soon a server whose stdin closed must be gone. The SDK's client waits 2 s before it
kills the server; this is generous beside that, and far below a worker's warm-up on an
empty kernel cache (tens of seconds), which the server used to wait for."""
VIEWS = {f"tomtom_mcp_apps/widgets/dist/{name}.html" for name in ("map", "traffic", "data-viz")}
LEAKED = "leaked semaphore"


def cache_env(cache_home: Path) -> dict[str, str]:
    """The environment with `cache_home` as the user's cache directory (uv's own cache
    kept where it is: no download) and no kernel cache set by the operator."""
    env = {**os.environ, "XDG_CACHE_HOME": str(cache_home)}
    env.pop("NUMBA_CACHE_DIR", None)
    env.pop("NUMBA_CACHE_LOCATOR_CLASSES", None)
    uv = Path(sys.executable).with_name("uv")
    env["UV_CACHE_DIR"] = (
        os.environ.get("UV_CACHE_DIR")
        or subprocess.run(
            [str(uv), "cache", "dir"], capture_output=True, text=True, check=True, timeout=60
        ).stdout.strip()
    )
    return env


def kernel_cache(cache_home: Path) -> dict[str, tuple[int, int]]:
    """Every file of the kernel cache under `cache_home`, with its size and mtime."""
    root = cache_home / "tomtom-mcp-apps" / VERSION / "numba"
    return {
        str(path.relative_to(root)): (path.stat().st_size, path.stat().st_mtime_ns)
        for path in root.rglob("*")
        if path.is_file()
    }


async def speak_mcp(
    command: str, args: list[str], timeout_s: float, env: dict[str, str] | None = None
) -> None:
    """Start the server with `command args`, list its tools, route and decode the map data,
    and search (made in a fitting worker), within `timeout_s`."""
    env = {**(env or os.environ), "FIT_INLINE_POINTS": "0", "TOMTOM_API_KEY": ""}
    env["LOG_LEVEL"] = "INFO"
    params = StdioServerParameters(command=command, args=args, env=env)
    with anyio.fail_after(timeout_s):
        async with Client(params, mode="legacy") as client:
            assert client.server_info is not None and client.server_info.version == VERSION
            listed = {tool.name for tool in (await client.list_tools()).tools}
            routed = await client.call_tool("tomtom-routing", {"locations": [AMSTERDAM, UTRECHT]})
            found = await client.call_tool("tomtom-fuzzy-search", {"query": "cafe"})
    assert listed == set(MODEL_TOOLS) | APP_TOOLS | PLAIN_TOOLS
    assert not routed.is_error, routed.content
    envelope = fitting.decode((routed.meta or {})[APP_DATA_KEY])
    assert envelope["tool"] == "tomtom-routing"
    kinds = {feature["properties"]["kind"] for feature in envelope["data"]["features"]}
    assert {"route", "waypoint"} <= kinds
    assert not found.is_error and APP_DATA_KEY in (found.meta or {})


async def test_the_stdio_server_serves_every_tool_and_its_map_data() -> None:
    await speak_mcp(
        sys.executable, ["-m", "tomtom_mcp_apps", "stdio", "--fit-workers", "1"], START_S
    )


def test_stdio_refuses_a_bad_setting_on_stderr_before_speaking() -> None:
    env = {**os.environ, "FIT_WORKERS": "none"}
    done = subprocess.run(
        [sys.executable, "-m", "tomtom_mcp_apps", "stdio"],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 2
    assert done.stdout == ""
    assert "FIT_WORKERS='none': expected a whole number" in done.stderr


def read_until(proc: subprocess.Popen[bytes], marker: bytes, timeout_s: float) -> bytes:
    """What `proc` wrote to stderr up to `marker`, within `timeout_s`."""
    assert proc.stderr is not None
    seen = b""
    deadline = time.monotonic() + timeout_s
    with selectors.DefaultSelector() as selector:
        selector.register(proc.stderr, selectors.EVENT_READ)
        while marker not in seen:
            left = deadline - time.monotonic()
            assert left > 0 and selector.select(left), seen.decode(errors="replace")[-2000:]
            chunk = os.read(proc.stderr.fileno(), 65536)
            assert chunk, seen.decode(errors="replace")[-2000:]
            seen += chunk
    return seen


def test_a_stdio_server_killed_outright_takes_its_fitting_workers_with_it() -> None:
    """A local host ends a server it started with SIGTERM, then SIGKILL, soon after
    closing its stdin; workers ignore SIGTERM, so without their parent they would wait
    forever, holding the host's pipes open (the host never sees the server close)."""
    env = {**os.environ, "TOMTOM_API_KEY": "", "LOG_LEVEL": "INFO"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "tomtom_mcp_apps", "stdio", "--fit-workers", "1"],
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    children: list[int] = []
    try:
        read_until(proc, b"fitting pool warm", START_S)
        children_file = Path(f"/proc/{proc.pid}/task/{proc.pid}/children")
        children = [int(pid) for pid in children_file.read_text().split()]
        assert children, "the fitting pool has its workers"
        proc.kill()
        # Every writer of the server's stdout and stderr gone: the streams end.
        proc.communicate(timeout=60)
    finally:
        proc.kill()
        for pid in children:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)  # only left over when the test fails


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", str(ROOT), "--no-deps", "-q", "-w", str(out)],
        check=True,
        timeout=300,
    )
    (built,) = out.glob("tomtom_mcp_apps-*.whl")
    return built


def test_the_wheel_carries_the_views_and_the_basemap(wheel: Path) -> None:
    names = set(zipfile.ZipFile(wheel).namelist())
    assert names >= VIEWS | {
        "tomtom_mcp_apps/server/jobs/basemap.json",
        "tomtom_mcp_apps/server/offline/places.json",
    }


async def test_the_wheel_runs_with_uvx_in_a_fresh_environment_compiling_its_kernels_once(
    wheel: Path, tmp_path: Path
) -> None:
    uvx = str(Path(sys.executable).with_name("uvx"))
    args = ["--isolated", "--from", str(wheel), "tomtom-mcp-apps", "stdio", "--fit-workers", "1"]
    env = cache_env(tmp_path)
    await speak_mcp(uvx, args, WHEEL_START_S, env)
    compiled = kernel_cache(tmp_path)
    assert any(name.endswith(".nbi") for name in compiled), "the kernels are in the user's cache"
    await speak_mcp(uvx, args, WHEEL_START_S, env)
    assert kernel_cache(tmp_path) == compiled, "the second start compiled nothing"


def test_a_server_whose_stdin_closes_while_its_workers_warm_is_gone_at_once(
    tmp_path: Path,
) -> None:
    """As a host ends a server, or gives up on one still starting: stdin closed right after
    the handshake, on an empty kernel cache, so both workers are compiling. The server
    exits on its own (a host would kill it after its grace, leaking its queues' semaphores),
    and its workers go with it."""
    env = {**os.environ, "TOMTOM_API_KEY": "", "LOG_LEVEL": "INFO"}
    env["NUMBA_CACHE_DIR"] = str(tmp_path / "numba")  # empty: the workers compile
    env.pop("NUMBA_CACHE_LOCATOR_CLASSES", None)
    stderr = tmp_path / "stderr.log"
    with stderr.open("wb") as errors:
        proc = subprocess.Popen(
            [sys.executable, "-m", "tomtom_mcp_apps", "stdio", "--fit-workers", "2"],
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=errors,
        )
    assert proc.stdin is not None and proc.stdout is not None
    children: list[int] = []
    try:
        hello = {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t"}}
        proc.stdin.write(
            json.dumps(
                {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": hello}
            ).encode()
            + b"\n"
        )
        proc.stdin.flush()
        assert b'"id":1' in proc.stdout.readline()
        children_file = Path(f"/proc/{proc.pid}/task/{proc.pid}/children")
        children = [int(pid) for pid in children_file.read_text().split()]
        assert children, "the fitting workers are starting"
        proc.stdin.close()
        try:
            returncode = proc.wait(timeout=EXIT_S)
        except subprocess.TimeoutExpired:
            pytest.fail(f"the server was still running {EXIT_S} s after its stdin closed")
        assert proc.stdout.read() == b"", "every writer of its stdout is gone"
        # Its workers killed, and its resource tracker, which would report what leaked, done.
        deadline = time.monotonic() + EXIT_S
        while any(_alive(pid) for pid in children) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert [pid for pid in children if _alive(pid)] == [], "a child is left"
        logged = stderr.read_text(errors="replace")
        assert returncode == 0, logged[-2000:]
        assert LEAKED not in logged
    finally:
        proc.kill()
        proc.wait()
        for pid in children:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)  # only left over when the test fails


def _alive(pid: int) -> bool:
    """`pid` runs (neither gone nor a zombie awaiting its parent's wait)."""
    try:
        return not Path(f"/proc/{pid}/stat").read_text().split(") ", 1)[1].startswith("Z")
    except OSError:
        return False
