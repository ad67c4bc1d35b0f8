"""`deploy/run-topology`: the compose topology from one command, gone again on Ctrl-C."""

from __future__ import annotations

import asyncio
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from loadtest.topology import free_port
from loadtest.wire import call_tool

ROOT = Path(__file__).resolve().parents[2]
START_TIMEOUT_S = 240.0


def _process_groups() -> set[int]:
    """Process groups with a live (not zombie) member."""
    groups = set()
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if fields[0] != "Z":
            groups.add(int(fields[2]))
    return groups


async def _geocode_four_times(url: str) -> list[dict]:
    async with httpx.AsyncClient(timeout=30) as client:
        return [
            await call_tool(client, url, "tomtom-geocode", {"query": "Dam, Amsterdam"})
            for _ in range(4)
        ]


async def _map_config(url: str) -> dict:
    async with httpx.AsyncClient(timeout=30) as client:
        return await call_tool(client, url, "tomtom-get-map-config", {})


def test_without_a_virtualenv_run_topology_runs_the_python3_on_the_path(tmp_path: Path) -> None:
    # A copy of the script in a checkout with no .venv; `python3` on PATH is this interpreter
    # (which has the package installed), behind a wrapper that notes it was run.
    (tmp_path / "deploy").mkdir()
    (tmp_path / "loadtest").symlink_to(ROOT / "loadtest")  # the checkout's, never installed
    script = shutil.copy2(ROOT / "deploy" / "run-topology", tmp_path / "deploy")
    bin_dir, called = tmp_path / "bin", tmp_path / "called"
    bin_dir.mkdir()
    wrapper = bin_dir / "python3"
    wrapper.write_text(f'#!/bin/sh\necho "$@" > {called}\nexec {sys.executable} "$@"\n')
    wrapper.chmod(0o755)
    env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}"}
    done = subprocess.run([script, "--help"], env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert "usage: python -m loadtest.topology" in done.stdout
    assert called.read_text() == "-m loadtest.topology --help\n"


@pytest.mark.process
def test_run_topology_serves_mcp_through_nginx_and_ctrl_c_stops_every_process(
    tmp_path: Path,
) -> None:
    port = free_port()
    out = tmp_path / "out.txt"
    with out.open("wb") as sink:
        runner = subprocess.Popen(
            [str(ROOT / "deploy" / "run-topology"), "--port", str(port), "--fit-workers", "1"],
            stdout=sink,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
        )
    try:
        deadline = time.monotonic() + START_TIMEOUT_S
        while "Ctrl-C stops everything" not in out.read_text():
            assert runner.poll() is None, out.read_text()
            assert time.monotonic() < deadline, "the topology did not start in time"
            time.sleep(0.2)
        url = f"http://127.0.0.1:{port}/mcp"
        assert f"MCP endpoint: {url}" in out.read_text()
        results = asyncio.run(_geocode_four_times(url))
        assert not [r for r in results if r.get("isError")]
        assert httpx.get(f"http://127.0.0.1:{port}/health", timeout=10).json()["ready"] is True
        assert httpx.get(f"http://127.0.0.1:{port}/metrics", timeout=10).status_code == 404
        template = asyncio.run(_map_config(url))["_meta"]["com.tomtom/map-config"]["tiles"]
        basemap = template["basemap"]
        assert basemap.startswith(f"http://127.0.0.1:{port}/tiles/basemap/"), "through nginx"
        for z, x, y in ((1, 0, 0), (1, 1, 0), (1, 0, 1), (1, 1, 1)):
            tile = httpx.get(basemap.format(z=z, x=x, y=y), timeout=10)
            assert tile.status_code == 200 and tile.headers["content-type"] == "image/png"
        (log,) = re.findall(r"^balancer .*log (\S+)\)$", out.read_text(), re.MULTILINE)
        logged = Path(log).read_text()
        served_by = set(re.findall(r"upstream=(127\.0\.0\.1:\d+)", logged))
        assert len(served_by) == 2, "round robin reaches both replicas"
        assert '"GET /tiles/basemap/1/1/1.png"' in logged and "?t=" not in logged
    finally:
        runner.send_signal(signal.SIGINT)
        code = runner.wait(timeout=60)
    groups = {int(p) for p in re.findall(r"\(pid (\d+),", out.read_text())}
    assert code == 0
    assert len(groups) == 4
    assert not groups & _process_groups(), "a service or fitting worker outlived Ctrl-C"
