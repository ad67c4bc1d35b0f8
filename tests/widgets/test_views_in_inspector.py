"""Every view in a host others wrote: the MCP Inspector's web UI (its Apps tab), pinned in
tests/conformance beside its CLI (tests/server/test_inspector.py), in Debian's chromium.

The Inspector mounts a view in its sandbox under the specification's restrictive policy
with `worker-src 'none'` (and `img-src 'none'` where no resource domain is declared), so
MapLibre cannot start: each view draws on its worker-free renderer, reports `ok` with the
reason to the server and logs it to the host, at the two inline sizes the views are laid
out for. The Inspector is driven as its own documentation says automated reviewers should:
one deep link (connect, Apps tab, the tool and its arguments), one click on "Open App".
"""

from __future__ import annotations

import base64
import contextlib
import json
import os
import secrets
import socket
import time
import urllib.parse
from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, Frame, Page, sync_playwright

from loadtest.topology import Service, free_port, serving, wait_listening
from tests.browser import ARTIFACTS, CHROMIUM, CHROMIUM_ARGS, INK, SETTLED, app_status_events, poll
from tests.processes import ROOT

pytestmark = pytest.mark.browser

BIN = ROOT / "tests" / "conformance" / "node_modules" / ".bin"
AMSTERDAM = [4.8897, 52.374]
VIEWS = [
    ("routing", "tomtom-routing", {"locations": [AMSTERDAM, [5.1214, 52.0907]]}),
    ("traffic", "tomtom-traffic", {"bbox": [4.82, 52.33, 4.96, 52.41]}),
    (
        "data-viz",
        "tomtom-data-viz",
        {
            "geojson": {
                "type": "FeatureCollection",
                "features": [
                    {
                        "type": "Feature",
                        "properties": {"name": "Canal walk"},
                        "geometry": {
                            "type": "LineString",
                            "coordinates": [[4.884, 52.367], [4.893, 52.376]],
                        },
                    },
                    {
                        "type": "Feature",
                        "properties": {"name": "Dam"},
                        "geometry": {"type": "Point", "coordinates": [4.8932, 52.3731]},
                    },
                ],
            }
        },
    ),
]
"""One tool of each view: the map, traffic and data-viz."""
START_S = 60
TOKEN = secrets.token_hex(16)
"""The Inspector's API token: its deep links connect only when they carry it."""
# The Inspector sends the view the size of the box around the app's frame, and resizes
# the frame with it: pinned here, before the app opens, to the size under test.
SIZED = """.mantine-Stack-root:has(> iframe),
.mantine-Stack-root:has(> .mantine-Stack-root > iframe) {
  width: %dpx !important; height: %dpx !important; max-height: none !important;
  flex: none !important; }"""


@pytest.fixture(scope="module")
def inspector(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Service]:
    """The Inspector's web UI on loopback ports of its own, its catalog in a fresh HOME, its
    secrets in memory, nothing opened in a browser of its own."""
    assert (BIN / "mcp-inspector").exists(), "run scripts/install (npm ci in tests/conformance)"
    port, sandbox, apps = free_port(), free_port(), free_port()
    env = {
        **os.environ,
        "HOME": str(tmp_path_factory.mktemp("inspector-home")),
        # The suite's Node (22) first on PATH, as tests/server/test_inspector.py runs it.
        "PATH": f"{BIN}{os.pathsep}{os.environ['PATH']}",
        "HOST": "127.0.0.1",
        "CLIENT_PORT": str(port),
        "MCP_SANDBOX_PORT": str(sandbox),
        "MCP_APP_ORIGIN_PORT": str(apps),
        "MCP_AUTO_OPEN_ENABLED": "false",
        "MCP_INSPECTOR_API_TOKEN": TOKEN,
        "MCP_INSPECTOR_SECRET_STORE": "memory",
    }
    command = [str(BIN / "mcp-inspector"), "--web"]
    with serving("mcp-inspector", command, port, env=env, ready=wait_listening) as service:
        deadline = time.monotonic() + START_S
        while True:  # the sandbox, where the Apps tab mounts views, listens on a port of its own
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", sandbox), 1):
                break
            assert time.monotonic() < deadline, service.log_tail()
            time.sleep(0.2)
        yield service


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            yield b
        finally:
            b.close()


@pytest.fixture
def page(browser: Browser) -> Iterator[Page]:
    # Wide enough for the Inspector to lay an 800 px app out whole beside its other panels.
    context = browser.new_context(viewport={"width": 2400, "height": 1000})
    p = context.new_page()
    p.set_default_timeout(45_000)
    errors: list[str] = []
    p.on("pageerror", lambda e: errors.append(str(e)))
    try:
        yield p
    finally:
        context.close()
    assert not errors, f"uncaught errors in the page: {errors}"


def open_app(
    page: Page, inspector: Service, server: Service, tool: str, args: dict, size: tuple[int, int]
) -> Frame:
    """Open `tool` with `args` in the Inspector's Apps tab, its frame `size`; the view's frame
    once it has drawn or failed."""
    encoded = base64.urlsafe_b64encode(json.dumps(args).encode()).decode().rstrip("=")
    query = urllib.parse.urlencode(
        {
            "serverUrl": f"{server.url}/mcp",
            "transport": "http",
            "autoConnect": TOKEN,
            "openApp": tool,
            "appArgs": encoded,
        }
    )
    page.goto(f"{inspector.url}/?{query}")
    page.wait_for_selector('[data-testid="connection-status"][data-status="connected"]')
    page.add_style_tag(content=SIZED % size)
    page.click('[data-testid="open-app"]')
    deadline = time.monotonic() + 45
    while not (frames := [f for f in page.frames if is_view(f)]):
        assert time.monotonic() < deadline, "the Inspector mounted no view"
        time.sleep(0.2)
    poll(frames[0], f"({SETTLED})()")
    return frames[0]


def is_view(frame: Frame) -> bool:
    with contextlib.suppress(Exception):
        return bool(frame.evaluate("Boolean(document.body && document.body.dataset.view)"))
    return False


@pytest.mark.parametrize("size", [(320, 450), (800, 450)], ids=lambda v: f"{v[0]}x{v[1]}")
@pytest.mark.parametrize(("name", "tool", "args"), VIEWS, ids=[v[0] for v in VIEWS])
def test_in_the_inspectors_apps_tab_every_view_draws_reports_ok_and_says_why_it_draws_simply(
    page: Page,
    inspector: Service,
    preview_server: Service,
    name: str,
    tool: str,
    args: dict,
    size: tuple[int, int],
) -> None:
    frame = open_app(page, inspector, preview_server, tool, args, size)
    drawn = frame.evaluate("({...document.body.dataset})")
    assert (drawn["status"], drawn["reason"], drawn["engine"]) == ("ok", "fallback", "canvas"), (
        drawn
    )
    assert frame.evaluate("[innerWidth, innerHeight]") == list(size)
    assert frame.evaluate(INK) > 0.0005, "the data is on the canvas"
    assert int(drawn["items"]) > 0
    poll(frame, "document.body.dataset.reported === 'ok'")
    event = app_status_events(preview_server, tool)[-1]
    assert (event["reason"], event["host"]) == ("fallback", "MCP Inspector"), event
    assert "map engine blocked by the host's CSP: worker-src" in event["detail"]
    # The host heard it too: the Inspector lists the view's log message under "App logs".
    page.get_by_text("map engine blocked by the host's CSP: worker-src").first.wait_for()
    ARTIFACTS.mkdir(exist_ok=True)
    shot = ARTIFACTS / f"inspector-{name}-{size[0]}x{size[1]}.png"
    page.locator("iframe").first.screenshot(path=str(shot))
