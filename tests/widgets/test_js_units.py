"""The views' JavaScript unit tests under `node --test` (core's helpers, status, shell, map and
session; each view's drawing), and the views' decoder against what fitting sends."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

from loadtest import recorded
from tests.processes import ROOT
from tomtom_mcp_apps import fitting

WIDGETS = ROOT / "widgets"
# The shared code, the basemap, the bundling and every view's folder (one with a main.js): each
# has unit tests beside it.
UNIT_FOLDERS = (
    "core",
    "basemap",
    "bundle",
    *sorted(p.parent.name for p in WIDGETS.glob("*/main.js")),
)

# Decodes app data (argv[2]) the way every view does: envelope.decode, then e5.decodeGeoJSON.
_DECODE = """
const fs = require("node:fs");
const { pathToFileURL } = require("node:url");
const load = async (name) => (await import(pathToFileURL(process.argv[1] + name))).default;
(async () => {
  const envelope = await load("/envelope.js");
  const e5 = await load("/e5.js");
  const env = await envelope.decode(fs.readFileSync(process.argv[2], "utf8"));
  const fc = e5.decodeGeoJSON(env.data);
  process.stdout.write(JSON.stringify({ v: env.v, fitted: env.fitted, features: fc.features }));
})().catch((err) => { console.error(err.message); process.exit(1); });
"""


def node() -> str:
    found = shutil.which("node")
    assert found, "Node.js 20+ must be on PATH to run the widgets' unit tests"
    return found


def test_the_javascript_helpers_pass_their_node_unit_tests() -> None:
    tests = sorted(
        str(p.relative_to(WIDGETS))
        for folder in UNIT_FOLDERS
        for p in (WIDGETS / folder).glob("*.test.js")
    )
    for folder in UNIT_FOLDERS:
        assert any(t.startswith(f"{folder}/") for t in tests), f"no unit tests beside {folder}/"
    assert len(tests) >= 14, f"expected the tests beside their files, found {tests}"
    script = json.loads((WIDGETS / "package.json").read_text())["scripts"]["test"]
    assert all(f" {folder}/" in script for folder in UNIT_FOLDERS), (
        f"npm test misses some: {script}"
    )
    done = subprocess.run(
        [node(), "--import", "./testing/register.mjs", "--test", *tests],
        cwd=WIDGETS,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, failures(done.stdout) + done.stderr[-2000:]
    assert "# fail 0" in done.stdout


def failures(tap: str) -> str:
    """Each failing subtest of a TAP report with its YAML details, so a failure names itself."""
    kept: list[str] = []
    inside = False
    for line in tap.splitlines():
        if line.lstrip().startswith("not ok"):
            inside = True
        if inside:
            kept.append(line)
            inside = line.strip() != "..."
    return "\n".join(kept)[-6000:] or tap[-4000:]


def test_the_views_decode_a_fitted_recorded_route_to_the_vertices_fitting_sent(
    tmp_path: Path,
) -> None:
    # The recorded trip (OpenStreetMap contributors, ODbL) fitted as the server sends it.
    env = recorded.route_envelope(recorded.legs())
    result = fitting.fit(env, 60_000)
    assert result.report is not None
    path = tmp_path / "app-data.txt"
    path.write_text(result.app_data)
    done = subprocess.run(
        [node(), "-e", _DECODE, str(WIDGETS / "core"), str(path)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    seen = json.loads(done.stdout)
    sent = fitting.decode(result.app_data)
    assert seen["v"] == 2 and seen["fitted"] == result.report
    (route,) = seen["features"]
    expected = fitting.to_geojson(sent["data"]["features"][0]["geometry"])["coordinates"]
    assert route["geometry"]["type"] == "LineString"
    assert route["geometry"]["coordinates"] == expected
    assert len(expected) == result.report["points"]
    assert route["properties"]["legs"] == sent["data"]["features"][0]["properties"]["legs"]
