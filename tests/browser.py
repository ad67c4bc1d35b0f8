"""Debian's chromium as the browser tests start it (headless, no network of its own), and
what they read of a view: when it has settled, the ink its data put on the canvas, its
reports in the server's log."""

from __future__ import annotations

import time

from playwright.sync_api import Frame

from loadtest.topology import Service
from tests.processes import ROOT

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]

ARTIFACTS = ROOT / "test-artifacts"
WAIT_MS = 45_000
SETTLED = """() => {
  const d = document.body && document.body.dataset;
  return d && d.status !== "loading" && (d.reported || d.status === "error")
    && (d.status === "error" || d.reason === "empty" || d.idle === "1");
}"""
# Pixels that are none of the offline basemap's colours (water, land, borders, labels), light
# and dark: what the data put on the canvas.
INK = """() => {
  const c = document.querySelector("#map canvas");
  const g = document.createElement("canvas");
  g.width = c.width; g.height = c.height;
  const x = g.getContext("2d");
  x.drawImage(c, 0, 0);
  const d = x.getImageData(0, 0, g.width, g.height).data;
  const plain = [[169, 200, 220], [242, 239, 233], [140, 127, 168], [51, 58, 68], [143, 176, 198],
    [15, 26, 38], [43, 48, 54], [139, 143, 184], [213, 219, 226], [27, 31, 36], [31, 58, 82]];
  let ink = 0;
  for (let i = 0; i < d.length; i += 16) {
    const off = ([r, gg, b]) =>
      Math.abs(d[i] - r) + Math.abs(d[i + 1] - gg) + Math.abs(d[i + 2] - b) > 40;
    if (plain.every(off)) ink++;
  }
  return ink / (d.length / 16);
}"""


def poll(frame: Frame, expression: str, timeout_ms: int = WAIT_MS) -> None:
    """Wait until `expression` is truthy in `frame`, asking from outside: a view under a policy
    without 'unsafe-eval' refuses the functions Playwright's own waits compile in the page."""
    deadline = time.monotonic() + timeout_ms / 1000
    while not frame.evaluate(expression):
        assert time.monotonic() < deadline, f"still not true after {timeout_ms} ms: {expression}"
        time.sleep(0.1)


def app_status_events(server: Service, tool: str) -> list[dict]:
    """The status reports of `tool`'s views the server logged, oldest first."""
    return [
        e for e in server.log_events() if e.get("event") == "app_status" and e.get("tool") == tool
    ]
