"""A data-viz page of a `data_url` asks its host for its own bytes alone (`Range`), checks
them against the plan's span, and downloads the whole file only from a host that ignores
`Range` or for a plan without spans."""

from __future__ import annotations

import itertools
import re
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import orjson
import pytest
from isal import isal_zlib

from tests.server.harness import tool_client
from tests.server.tools.data_viz_data import BIG, BIG_SETTINGS
from tomtom_mcp_apps import fitting
from tomtom_mcp_apps.server.jobs import APP_DATA_KEY, PAGE_KEY, PAGES_KEY

_RANGE = re.compile(r"bytes=(\d+)-(\d+)")


@dataclass
class Host:
    """A file host on this machine: serves `files`, honouring `Range` when `ranges`; counts
    the body bytes it sends."""

    url: str
    files: dict[str, bytes]
    ranges: bool
    sent: int = 0
    asked: list[str | None] = field(default_factory=list)


@pytest.fixture
def host() -> Iterator[Host]:
    yield from _serve(ranges=True)


@pytest.fixture
def plain_host() -> Iterator[Host]:
    yield from _serve(ranges=False)


def _serve(ranges: bool) -> Iterator[Host]:
    state = Host("", {"/big.geojson": orjson.dumps(BIG)}, ranges)
    lock = threading.Lock()

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: object) -> None:
            pass

        def do_GET(self) -> None:
            body = state.files[self.path]
            asked = self.headers.get("range")
            match = _RANGE.fullmatch(asked or "") if state.ranges else None
            if match:
                first, last = int(match[1]), int(match[2])
                if first >= len(body):
                    self.send_response(416)
                    self.send_header("content-range", f"bytes */{len(body)}")
                    self.send_header("content-length", "0")
                    self.end_headers()
                    return
                last = min(last, len(body) - 1)
                part = body[first : last + 1]
                self.send_response(206)
                self.send_header("content-range", f"bytes {first}-{last}/{len(body)}")
            else:
                part = body
                self.send_response(200)
            self.send_header("content-type", "application/geo+json")
            self.send_header("content-length", str(len(part)))
            self.end_headers()
            with lock:  # counted before the bytes go out: the caller may read them at once
                state.sent += len(part)
                state.asked.append(asked)
            self.wfile.write(part)

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    state.url = f"http://127.0.0.1:{httpd.server_address[1]}"
    yield state
    httpd.shutdown()
    httpd.server_close()
    thread.join(timeout=5)


def page_call(arguments: dict, plan: dict, k: int, span: Any = None) -> dict[str, Any]:
    """`tomtom-get-app-data` for page `k` of `plan`, with `span` (the plan's by default)."""
    bounds = plan["bounds"]
    call = {
        "tool": "tomtom-data-viz",
        "arguments": arguments,
        "page": {"from": bounds[k], "to": bounds[k + 1], "digest": plan["digest"]},
    }
    call["span"] = plan["spans"][k] if span is None else span
    return call


async def planned(tools: Any, arguments: dict) -> dict[str, Any]:
    outcome = await tools.call("tomtom-data-viz", arguments)
    assert not outcome.is_error, outcome.text
    return outcome.meta[PAGES_KEY]


async def test_each_page_downloads_only_its_own_bytes_and_the_features_are_exactly_as_given(
    host: Host,
) -> None:
    arguments = {"data_url": f"{host.url}/big.geojson"}
    size = len(host.files["/big.geojson"])
    async with tool_client(**BIG_SETTINGS) as tools:
        plan = await planned(tools, arguments)
        assert host.sent == size
        spans = plan["spans"]
        pages = len(plan["bounds"]) - 1
        assert pages > 1 and len(spans) == pages
        features = []
        for k in range(pages):
            before = host.sent
            page = await tools.call("tomtom-get-app-data", page_call(arguments, plan, k))
            assert not page.is_error, page.text
            span = spans[k]
            assert host.sent - before == span["to"] - span["from"]
            assert host.asked[-1] == f"bytes={span['from']}-{span['to'] - 1}"
            assert page.meta[PAGE_KEY]["from"] == plan["bounds"][k]
            features += fitting.decode(page.meta[APP_DATA_KEY])["data"]["features"]
    assert features == BIG["features"]
    assert host.sent < 2 * size  # the plan's download, then each page's bytes once


async def test_a_page_without_a_span_downloads_the_whole_file_as_before(host: Host) -> None:
    arguments = {"data_url": f"{host.url}/big.geojson"}
    async with tool_client(**BIG_SETTINGS) as tools:
        plan = await planned(tools, arguments)
        before = host.sent
        call = page_call(arguments, plan, 1)
        del call["span"]
        page = await tools.call("tomtom-get-app-data", call)
    assert not page.is_error, page.text
    assert host.sent - before == len(host.files["/big.geojson"])
    assert host.asked[-1] is None


async def test_a_host_that_ignores_range_sends_the_whole_file_and_the_page_comes(
    plain_host: Host,
) -> None:
    arguments = {"data_url": f"{plain_host.url}/big.geojson"}
    size = len(plain_host.files["/big.geojson"])
    async with tool_client(**BIG_SETTINGS) as tools:
        plan = await planned(tools, arguments)
        pages = await tools.call("tomtom-get-app-data", page_call(arguments, plan, 1))
    assert not pages.is_error, pages.text
    assert plain_host.sent == 2 * size  # one request each, whole
    start, stop = plan["bounds"][1:3]
    features = fitting.decode(pages.meta[APP_DATA_KEY])["data"]["features"]
    assert features == BIG["features"][start:stop]


async def test_inline_geojson_plans_no_spans() -> None:
    async with tool_client(**BIG_SETTINGS) as tools:
        plan = await planned(tools, {"geojson": BIG})
    assert "spans" not in plan and len(plan["bounds"]) > 2


def changed(body: bytes, at: int) -> bytes:
    """`body` with one coordinate digit at or after `at` changed, its length kept."""
    digit = re.compile(rb"\d").search(body, at).start()
    return body[:digit] + (b"1" if body[digit : digit + 1] != b"1" else b"2") + body[digit + 1 :]


async def test_a_file_changed_since_the_plan_is_refused_in_plain_words(host: Host) -> None:
    arguments = {"data_url": f"{host.url}/big.geojson"}
    async with tool_client(**BIG_SETTINGS) as tools:
        plan = await planned(tools, arguments)
        original = host.files["/big.geojson"]
        span = plan["spans"][1]
        host.files["/big.geojson"] = changed(original, span["from"] + 40)
        same_length = await tools.call("tomtom-get-app-data", page_call(arguments, plan, 1))
        host.files["/big.geojson"] = original + b" "
        longer = await tools.call("tomtom-get-app-data", page_call(arguments, plan, 1))
        host.files["/big.geojson"] = original[: span["from"]]
        shorter = await tools.call("tomtom-get-app-data", page_call(arguments, plan, 1))
    for outcome in (same_length, longer, shorter):
        assert outcome.is_error
        assert "the file at data_url changed since the map's pages were planned" in outcome.text
        assert "run tomtom-data-viz again" in outcome.text
    assert f"have checksum {isal_zlib.crc32(b''):08x}" not in same_length.text
    assert f"is {len(original) + 1:,} bytes now, not {len(original):,}" in longer.text


async def test_a_span_that_does_not_checksum_or_hold_the_page_is_refused(host: Host) -> None:
    arguments = {"data_url": f"{host.url}/big.geojson"}
    body = host.files["/big.geojson"]

    def span(low: int, high: int, crc: str | None = None) -> dict[str, Any]:
        return {"from": low, "to": high, "crc32": crc or f"{isal_zlib.crc32(body[low:high]):08x}"}

    async with tool_client(**BIG_SETTINGS) as tools:
        plan = await planned(tools, arguments)
        first, second = plan["spans"][0], plan["spans"][1]
        forged = span(first["from"], first["to"], "00000000")
        calls = {
            "forged": page_call(arguments, plan, 0, forged),
            "another page's bytes": page_call(arguments, plan, 0, second),
            "half a feature": page_call(arguments, plan, 0, span(first["from"], first["to"] - 5)),
            "the whole file": page_call(arguments, plan, 0, span(0, len(body))),
            "past the end": page_call(arguments, plan, 0, span(first["from"], len(body) + 10)),
        }
        outcomes, requests = {}, {}
        for name, call in calls.items():
            before = len(host.asked)
            outcomes[name] = await tools.call("tomtom-get-app-data", call)
            requests[name] = len(host.asked) - before
    for outcome in outcomes.values():
        assert outcome.is_error
    assert "have checksum" in outcomes["forged"].text and "not 00000000" in outcomes["forged"].text
    wanted = plan["bounds"][1]
    assert "hold" in outcomes["another page's bytes"].text
    assert f"not the page's {wanted:,}" in outcomes["another page's bytes"].text
    assert "are not features 0 to" in outcomes["half a feature"].text
    assert "are not features 0 to" in outcomes["the whole file"].text
    assert "not inside the planned file" in outcomes["past the end"].text
    assert requests["past the end"] == 0
    assert all(requests[name] == 1 for name in calls if name != "past the end")


async def test_a_span_larger_than_the_download_limit_is_refused_before_asking(host: Host) -> None:
    arguments = {"data_url": f"{host.url}/big.geojson"}
    async with tool_client(**BIG_SETTINGS) as tools:
        plan = await planned(tools, arguments)
    size = len(host.files["/big.geojson"])
    limited = {**BIG_SETTINGS, "data_viz_max_bytes": size}
    async with tool_client(**limited) as tools:
        whole = {"from": 0, "to": size, "crc32": "00000000"}
        fine = await tools.call("tomtom-get-app-data", page_call(arguments, plan, 0, whole))
    assert "have checksum" in fine.text  # the limit itself is allowed
    small = {**BIG_SETTINGS, "data_viz_max_bytes": 1000}
    async with tool_client(**small) as tools:
        before = len(host.asked)
        span = {**plan["spans"][0]}
        span["to"] = span["from"] + 1001
        refused = await tools.call("tomtom-get-app-data", page_call(arguments, plan, 0, span))
        assert len(host.asked) == before
    assert refused.is_error and "more than the 1,000-byte limit" in refused.text


async def test_spans_line_up_with_the_bounds(host: Host) -> None:
    arguments = {"data_url": f"{host.url}/big.geojson"}
    async with tool_client(**BIG_SETTINGS) as tools:
        plan = await planned(tools, arguments)
    body = host.files["/big.geojson"]
    for (start, stop), span in zip(itertools.pairwise(plan["bounds"]), plan["spans"], strict=True):
        features = orjson.loads(b"[" + body[span["from"] : span["to"]] + b"]")
        assert features == BIG["features"][start:stop]
