"""The MCP Inspector's CLI (`@modelcontextprotocol/inspector`, pinned in
tests/conformance beside the conformance suite, on the same Node 22) as a local host
would use this server: it starts `tomtom-mcp-apps stdio` itself and speaks to it with
the TypeScript SDK's client, in both protocol eras. It checks what the conformance
suite, which speaks only HTTP and only to its own fixtures, does not: stdio, the
portability of every tool's input schema (`--strict`), the Apps metadata of every tool
as a host reads it (`--app-info`), and a tool result through another SDK's validation.
The Inspector passes a stdio server no environment of its own beyond HOME and PATH, so
the server runs without a key, on the offline upstream."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import orjson
import platformdirs
import pytest

from tests.processes import ROOT
from tests.server.harness import AMSTERDAM, MODEL_TOOLS, PLAIN_TOOLS, UTRECHT
from tomtom_mcp_apps import fitting
from tomtom_mcp_apps.server.jobs import APP_DATA_KEY
from tomtom_mcp_apps.server.product import NAME

pytestmark = pytest.mark.process

BIN = ROOT / "tests" / "conformance" / "node_modules" / ".bin"
RUN_S = 300
CONNECT_MS = 120_000
"""A first start compiles the fitting kernels; the Inspector's default is 15 s."""
ERAS = {"2025-11-25": "legacy", "2026-07-28": "modern"}
SERVER = [sys.executable, "-m", "tomtom_mcp_apps", "stdio", "--fit-workers", "1"]


def inspect(home: Path, era: str, *options: str) -> subprocess.CompletedProcess[str]:
    """Run the Inspector's CLI against a fresh stdio server, with its catalog under `home`."""
    assert (BIN / "mcp-inspector").exists(), "run scripts/install (npm ci in tests/conformance)"
    command = [
        str(BIN / "mcp-inspector"),
        "--cli",
        "--protocol-era",
        ERAS[era],
        "--connect-timeout",
        str(CONNECT_MS),
        *options,
        *SERVER,
    ]
    # The suite's Node (22) first on PATH for this one command; the machine's stays.
    env = {**os.environ, "HOME": str(home), "PATH": f"{BIN}{os.pathsep}{os.environ['PATH']}"}
    share_kernel_cache(home)
    return subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=RUN_S)


def share_kernel_cache(home: Path) -> None:
    """The server under `home` finds the kernels the test run compiled already in the
    user's cache directory (docs/runtime.md, Kernel cache), as a host's server finds them
    in its user's: a fresh home would compile them again within a call's timeout."""
    ours = Path(platformdirs.user_cache_dir(NAME, appauthor=False))
    ours.mkdir(parents=True, exist_ok=True)
    (home / ".cache").mkdir(parents=True, exist_ok=True)
    link = home / ".cache" / NAME
    if not link.exists():
        link.symlink_to(ours, target_is_directory=True)


@pytest.mark.parametrize("era", ERAS)
def test_every_tool_schema_is_portable_to_strict_clients(era: str, tmp_path: Path) -> None:
    done = inspect(tmp_path, era, "--format", "json", "--method", "tools/list", "--strict")
    assert done.returncode == 0, done.stderr[-3000:]
    assert "0 errors" in done.stderr, done.stderr[-3000:]
    listed = {tool["name"] for tool in orjson.loads(done.stdout)["result"]["tools"]}
    assert listed >= set(MODEL_TOOLS) | PLAIN_TOOLS


def test_every_tool_with_a_view_names_it_as_a_host_reads_it(tmp_path: Path) -> None:
    done = inspect(
        tmp_path, "2026-07-28", "-q", "--advertise-apps", "--method", "tools/list", "--app-info"
    )
    assert done.returncode == 0, done.stderr[-3000:]
    apps: dict[str, dict[str, Any]] = {}
    for line in done.stdout.splitlines():
        app = orjson.loads(line)
        apps[app["toolName"]] = app
    for tool, uri in MODEL_TOOLS.items():
        assert apps[tool]["hasApp"] and apps[tool]["resourceUri"] == uri, apps[tool]
        assert apps[tool]["resourceMimeType"] == "text/html;profile=mcp-app"
        assert "visibility" not in apps[tool] or "model" in apps[tool]["visibility"]
    assert not apps["tomtom-poi-categories"]["hasApp"]
    for tool in ("tomtom-get-app-data", "tomtom-get-map-config", "tomtom-refetch-app-data"):
        assert apps[tool]["visibility"] == ["app"], apps[tool]


@pytest.mark.parametrize("era", ERAS)
def test_a_route_reaches_another_sdk_with_its_map_data(era: str, tmp_path: Path) -> None:
    arguments = orjson.dumps({"locations": [AMSTERDAM, UTRECHT]}).decode()
    done = inspect(
        tmp_path,
        era,
        "-q",
        "--format",
        "json",
        "--method",
        "tools/call",
        "--tool-name",
        "tomtom-routing",
        "--tool-args-json",
        arguments,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    result = orjson.loads(done.stdout)["result"]
    assert not result.get("isError"), result["content"]
    envelope = fitting.decode(result["_meta"][APP_DATA_KEY])
    assert envelope["tool"] == "tomtom-routing"
    kinds = {feature["properties"]["kind"] for feature in envelope["data"]["features"]}
    assert {"route", "waypoint"} <= kinds
