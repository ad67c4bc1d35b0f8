"""The views' pure JavaScript helpers (e5, bounds, style, words, state...) under `node --test`."""

from __future__ import annotations

import shutil
import subprocess

from tests.processes import ROOT

WIDGETS = ROOT / "widgets"


def test_the_javascript_helpers_pass_their_node_unit_tests() -> None:
    node = shutil.which("node")
    assert node, "Node.js 20+ must be on PATH to run the widgets' unit tests"
    tests = sorted(str(p.relative_to(WIDGETS)) for p in (WIDGETS / "core").glob("*.test.js"))
    assert len(tests) >= 9, f"expected the helper tests beside their files, found {tests}"
    done = subprocess.run(
        [node, "--test", *tests],
        cwd=WIDGETS,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    assert "# fail 0" in done.stdout
