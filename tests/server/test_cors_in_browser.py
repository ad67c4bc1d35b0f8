"""A page on another loopback origin, in a real browser, speaks MCP to a replica with
`fetch`: chromium sends the CORS preflight itself and reads the answer only if the
server allows that origin (as the MCP Apps reference host, `basic-host`, does)."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from playwright.sync_api import Page, sync_playwright

from tests.browser import CHROMIUM, CHROMIUM_ARGS

pytestmark = pytest.mark.browser

CONNECT = """async (url) => {
  const call = (id, method, params) => fetch(url, {
    method: "POST",
    headers: {"content-type": "application/json", "accept": "application/json, text/event-stream",
              "mcp-protocol-version": "2025-11-25"},
    body: JSON.stringify({jsonrpc: "2.0", id, method, params}),
  }).then((r) => r.json());
  const init = await call(1, "initialize", {protocolVersion: "2025-11-25", capabilities: {},
                                            clientInfo: {name: "page", version: "1"}});
  const tools = await call(2, "tools/list", {});
  return {server: init.result.serverInfo.name, tools: tools.result.tools.length};
}"""


class HostPage(BaseHTTPRequestHandler):
    """A host's page: served from loopback, as the reference host serves its own."""

    def do_GET(self) -> None:
        self.send_response(200)
        self.send_header("content-type", "text/html")
        self.end_headers()
        self.wfile.write(b"<!doctype html><p>host")

    def log_message(self, *args: object) -> None:
        return


@contextmanager
def host_page(address: str, name: str) -> Iterator[str]:
    """The origin `http://<name>:<port>` of a page served on the loopback `address`."""
    served = ThreadingHTTPServer((address, 0), HostPage)
    thread = threading.Thread(target=served.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://{name}:{served.server_address[1]}"
    finally:
        served.shutdown()
        served.server_close()
        thread.join(timeout=5)


@pytest.fixture
def page() -> Iterator[Page]:
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            yield browser.new_page()
        finally:
            browser.close()


def test_a_page_on_another_loopback_origin_connects_with_fetch(page: Page, mcp_url: str) -> None:
    # The replica is on 127.0.0.1; the page on localhost at a port of its own.
    with host_page("127.0.0.1", "localhost") as origin:
        page.goto(f"{origin}/", timeout=10_000)
        answer = page.evaluate(CONNECT, mcp_url)
    assert answer["server"] == "tomtom-mcp-apps" and answer["tools"] > 10


def test_a_page_on_an_origin_not_allowed_cannot_read_the_answer(page: Page, mcp_url: str) -> None:
    # 127.0.0.2 is loopback too, so only CORS stands between the page and the answer.
    refusals: list[str] = []
    page.on("console", lambda message: refusals.append(message.text))
    with host_page("127.0.0.2", "127.0.0.2") as origin:
        page.goto(f"{origin}/", timeout=10_000)
        failed = page.evaluate(f"(url) => ({CONNECT})(url).then(() => null, String)", mcp_url)
    assert failed is not None and "Failed to fetch" in failed
    assert any(
        "blocked by CORS policy" in text and "address space" not in text for text in refusals
    )
