"""The official MCP conformance suite (`@modelcontextprotocol/conformance`, pinned in
tests/conformance/package-lock.json, on the Node 22 it pins beside it) against a replica
with its default settings, for what the 2025-11-25 and the 2026-07-28 revisions require,
one run after the other as a strict client makes them. The only failures allowed are
those tests/conformance/expected-failures.yml lists: scenarios that need the suite's own
fixture tools, prompts and resources."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from loadtest.topology import Service
from tests.processes import ROOT, running

SUITE = ROOT / "tests" / "conformance"
BIN = SUITE / "node_modules" / ".bin"
RUN_S = 600
REVISIONS = ("2025-11-25", "2026-07-28")

pytestmark = pytest.mark.process


@pytest.fixture(scope="module")
def default_server() -> Iterator[Service]:
    """A keyless replica with the front door's defaults, which the test topology otherwise
    turns off (every test there is one client, 127.0.0.1): an empty variable is unset."""
    with running(["serve"], {"CLIENT_RATE_PER_S": "", "CLIENT_MAX_IN_FLIGHT": ""}) as server:
        yield server


def conformance(url: str, revision: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    command = [
        str(BIN / "conformance"),
        "server",
        "--url",
        url,
        "--requirements",
        revision,
        "--expected-failures",
        str(SUITE / "expected-failures.yml"),
    ]
    # The suite's Node (22) first on PATH for this one command; the machine's stays.
    env = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ['PATH']}"}
    return subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, timeout=RUN_S)


def test_both_revisions_pass_back_to_back_on_a_default_server_but_for_the_fixture_scenarios(
    default_server: Service, tmp_path: Path
) -> None:
    assert (BIN / "conformance").exists(), "run scripts/install (npm ci in tests/conformance)"
    for revision in REVISIONS:
        done = conformance(default_server.url + "/mcp", revision, tmp_path)
        summary = done.stdout[done.stdout.find("=== SUMMARY ===") :]
        print(revision, summary)
        assert done.returncode == 0, f"{revision}: {summary}{done.stderr[-2000:]}"
    scrape = httpx.get(default_server.url + "/metrics", timeout=10).text
    refused = [
        line
        for line in scrape.splitlines()
        if line.startswith("tomtom_mcp_refusals_total") and float(line.split()[-1]) > 0
    ]
    assert refused == [], "the front door refused none of the suite's requests"
