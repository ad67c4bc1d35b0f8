"""The official MCP conformance suite (`@modelcontextprotocol/conformance`, pinned in
tests/conformance/package-lock.json, on the Node 22 it pins beside it) against a replica,
for what the 2025-11-25 and the 2026-07-28 revisions require. The only failures allowed
are those tests/conformance/expected-failures.yml lists: scenarios that need the suite's
own fixture tools, prompts and resources."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from tests.processes import ROOT

SUITE = ROOT / "tests" / "conformance"
BIN = SUITE / "node_modules" / ".bin"
RUN_S = 600


@pytest.mark.parametrize("revision", ["2025-11-25", "2026-07-28"])
def test_the_conformance_suite_passes_but_for_the_fixture_scenarios(
    mcp_url: str, revision: str, tmp_path: Path
) -> None:
    assert (BIN / "conformance").exists(), "run scripts/install (npm ci in tests/conformance)"
    command = [
        str(BIN / "conformance"),
        "server",
        "--url",
        mcp_url,
        "--requirements",
        revision,
        "--expected-failures",
        str(SUITE / "expected-failures.yml"),
    ]
    # The suite's Node (22) first on PATH for this one command; the machine's stays.
    env = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ['PATH']}"}
    done = subprocess.run(
        command, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=RUN_S
    )
    summary = done.stdout[done.stdout.find("=== SUMMARY ===") :]
    print(summary)
    assert done.returncode == 0, summary + done.stderr[-2000:]
