"""Every view, driven through the real `/preview` host against a keyless offline server.

Debian's chromium runs the page; the page speaks MCP to the server, mounts the
tool's `ui://` view in its sandbox proxy (the other loopback name, so another
origin) with AppBridge, and the view reports its outcome back to the server,
whose JSON log the tests read. Screenshots of each view land in test-artifacts/.
"""

from __future__ import annotations

import functools
import json
import math
import subprocess
import sys
import time
import urllib.parse
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.sync_api import (
    Browser,
    BrowserContext,
    Frame,
    Page,
    Playwright,
    Route,
    sync_playwright,
)

from loadtest.geojson_site import lines_geojson, serve_geojson
from loadtest.topology import Service, free_port, serving
from tests.browser import (
    ARTIFACTS,
    CHROMIUM,
    CHROMIUM_ARGS,
    INK,
    SETTLED,
    WAIT_MS,
    app_status_events,
    poll,
)
from tests.processes import ROOT, TILE_SECRET, running
from tests.standin import forget, recorded
from tomtom_mcp_apps import fitting
from tomtom_mcp_apps.fitting.geo import mercator
from tomtom_mcp_apps.server.tomtom._errors import key_forms

pytestmark = pytest.mark.browser

AMSTERDAM = [4.8897, 52.374]


@pytest.fixture(scope="module")
def playwright() -> Iterator[Playwright]:
    with sync_playwright() as p:
        yield p


@pytest.fixture(scope="module")
def browser(playwright: Playwright) -> Iterator[Browser]:
    b = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
    try:
        yield b
    finally:
        b.close()


@pytest.fixture
def storage_page(playwright: Playwright, tmp_path: Path) -> Iterator[Page]:
    """A page in a browser profile that allows third-party storage, as desktop browsers do
    outside private windows: the view's sandbox origin is third-party to the host page.
    (Playwright's own contexts are private windows, which deny it.)"""
    (tmp_path / "Default").mkdir()
    prefs = {"profile": {"cookie_controls_mode": 0, "block_third_party_cookies": False}}
    (tmp_path / "Default" / "Preferences").write_text(json.dumps(prefs))
    context = playwright.chromium.launch_persistent_context(
        tmp_path,
        executable_path=CHROMIUM,
        args=CHROMIUM_ARGS,
        viewport={"width": 1100, "height": 760},
    )
    yield from watched(context, context.pages[0] if context.pages else context.new_page())


@pytest.fixture
def page(browser: Browser) -> Iterator[Page]:
    context = browser.new_context(viewport={"width": 1100, "height": 760})
    yield from watched(context, context.new_page())


def watched(context: BrowserContext, p: Page) -> Iterator[Page]:
    """`p` for one test, then its context closed; an uncaught error in the page fails it."""
    p.set_default_timeout(WAIT_MS)
    errors: list[str] = []
    p.on("pageerror", lambda e: errors.append(str(e)))
    try:
        yield p
    finally:
        context.close()
    assert not errors, f"uncaught errors in the page: {errors}"


KEY = "Pr3viewKeyOfTheServer0123456789ab"


@contextmanager
def keyed_preview(base_url: str, **settings: str) -> Iterator[Service]:
    """A preview replica with the tests' key and TomTom at `base_url` (tiles through its
    own route), one fitting worker, and `settings` besides."""
    env = {"TOMTOM_API_KEY": KEY, "TOMTOM_API_BASE_URL": base_url, "TILE_TOKEN_SECRET": TILE_SECRET}
    with running(["serve", "--preview", "--fit-workers", "1"], {**env, **settings}) as process:
        yield process


@pytest.fixture(scope="module")
def keyed_preview_server(upstream: Service) -> Iterator[Service]:
    """A replica with a TomTom key, TomTom played by the offline upstream (tiles included),
    serving tiles through its own route, and the smallest app-data budget and pages, so
    that data-viz pages its data."""
    with keyed_preview(
        upstream.url,
        APP_DATA_BUDGET="10000",
        APP_DATA_PAGE_CHARS="10000",
    ) as process:
        yield process


@pytest.fixture(scope="module")
def throttled_preview_server(upstream: Service) -> Iterator[Service]:
    """As `keyed_preview_server`, but a tile token may load one tile, then waits minutes."""
    with keyed_preview(upstream.url, TILE_BURST="1", TILE_RATE_PER_S="0.01") as process:
        yield process


def holds_no_key(page: Page, frame: Frame, requested: list[str]) -> list[str]:
    """Every spelling of the server's key found in the host page, the view's DOM or any URL
    either of them requested."""
    texts = {
        "host page": page.content(),
        "view DOM": frame.evaluate("document.documentElement.outerHTML"),
        "view resources": " ".join(
            frame.evaluate("performance.getEntriesByType('resource').map(e => e.name)")
        ),
        "requests": " ".join(requested),
    }
    return [
        f"{where}: {form}" for form in key_forms(KEY) for where, t in texts.items() if form in t
    ]


def open_view(
    page: Page, base: str, tool: str, args: dict[str, Any], **query: str
) -> tuple[Frame, dict[str, str]]:
    """Run `tool` in the preview host and wait until its view has drawn or failed."""
    qs = urllib.parse.urlencode({"tool": tool, **query})
    fragment = urllib.parse.urlencode({"args": json.dumps(args)})
    page.goto(f"{base}/preview?{qs}#{fragment}")
    page.wait_for_function(
        "window.previewHost && ['done', 'error'].includes(window.previewHost.status)"
    )
    host = page.evaluate("({status: previewHost.status, error: previewHost.error})")
    assert host["status"] == "done", host
    frame = view_frame(page)
    poll(frame, f"({SETTLED})()")
    return frame, frame.evaluate("({...document.body.dataset})")


def view_frame(page: Page) -> Frame:
    """The view's document: inside the sandbox proxy's frame, which is on the other origin."""
    proxy = page.wait_for_selector("iframe#view").content_frame()
    assert proxy is not None
    inner = proxy.wait_for_selector("iframe").content_frame()
    assert inner is not None
    poll(inner, "Boolean(document.body && document.body.dataset.view)")
    return inner


def share(frame: Frame, rgb: tuple[int, int, int], tolerance: int = 12) -> float:
    """The share of canvas pixels within `tolerance` of `rgb`."""
    return frame.evaluate(
        """([rgb, tol]) => {
  const c = document.querySelector("#map canvas");
  const g = document.createElement("canvas");
  g.width = c.width; g.height = c.height;
  const x = g.getContext("2d");
  x.drawImage(c, 0, 0);
  const d = x.getImageData(0, 0, g.width, g.height).data;
  let n = 0;
  for (let i = 0; i < d.length; i += 16) {
    const off = Math.abs(d[i] - rgb[0]) + Math.abs(d[i + 1] - rgb[1]) + Math.abs(d[i + 2] - rgb[2]);
    if (off <= tol) n++;
  }
  return n / (d.length / 16);
}""",
        [list(rgb), tolerance],
    )


def shoot(page: Page, name: str) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    page.locator("#stage").screenshot(path=str(ARTIFACTS / f"view-{name}.png"))


def test_routing_draws_the_route_its_sections_and_waypoints(
    page: Page, preview_server: Service
) -> None:
    args = {"locations": [AMSTERDAM, [6.5665, 53.2194], [13.405, 52.52]]}
    frame, drawn = open_view(page, preview_server.url, "tomtom-routing", args)
    assert drawn["status"] == "ok", drawn
    assert drawn["view"] == "map"
    assert drawn["engine"] == "maplibre", "where the host allows its worker, MapLibre draws"
    assert int(drawn["routePoints"]) > 1000
    assert int(drawn["sections"]) > 0
    assert int(drawn["points"]) == 3  # the three waypoints
    assert frame.evaluate(INK) > 0.002, "the route should put ink on the canvas"
    assert " mi" in frame.inner_text("#title"), "the preview's chromium says en-US: miles"
    legend = frame.inner_text("#legend")
    assert "Route" in legend and "Stops (3)" in legend
    notes = frame.inner_text("#notes")
    assert "Offline map (Natural Earth): no TomTom key, so no street tiles." in notes
    assert drawn["dataSource"] == "offline"
    assert "Offline demo data: not real TomTom results." in notes
    offline_notes = frame.locator("#notes > *", has_text="Offline")
    assert offline_notes.count() == 1, "no key: the demo data and the offline map share one note"
    shoot(page, "routing")


def test_the_view_reports_its_outcome_to_the_server(page: Page, preview_server: Service) -> None:
    args = {"query": "Damrak 1, Amsterdam"}
    _, drawn = open_view(page, preview_server.url, "tomtom-geocode", args)
    assert drawn["reported"] == "ok"
    events = app_status_events(preview_server, "tomtom-geocode")
    assert events, "the server logged no app_status event for tomtom-geocode"
    assert events[-1]["status"] == "ok"
    assert events[-1]["reason"] in ("drawn", "empty")
    assert (events[-1]["host"], events[-1]["platform"]) == ("tomtom-preview-host", "web")
    assert events[-1]["host_version"] == "1.0.0"
    counted = httpx.get(f"{preview_server.url}/metrics", timeout=5).text
    assert 'host="preview",platform="web",reason="drawn",status="ok",tool="tomtom-geocode"' in (
        counted
    )


@pytest.mark.parametrize(
    ("tool", "args", "kind_count"),
    [
        ("tomtom-geocode", {"query": "Damrak 1, Amsterdam"}, "points"),
        ("tomtom-reverse-geocode", {"position": AMSTERDAM}, "points"),
        ("tomtom-fuzzy-search", {"query": "coffee", "position": AMSTERDAM}, "points"),
        ("tomtom-poi-search", {"query": "museum", "position": AMSTERDAM}, "points"),
        ("tomtom-nearby", {"position": AMSTERDAM, "radius": 1500}, "points"),
        (
            "tomtom-search-along-route",
            {"locations": [AMSTERDAM, [5.1214, 52.0907]], "query": "fuel"},
            "routePoints",
        ),
        ("tomtom-reachable-range", {"origin": AMSTERDAM, "timeBudgetInSec": 1800}, "areas"),
        (
            "tomtom-dynamic-map",
            {
                "markers": [{"position": AMSTERDAM, "label": "Start"}],
                "routes": [{"locations": [AMSTERDAM, [4.4777, 51.9244]], "label": "Rotterdam"}],
                "polygons": [{"center": AMSTERDAM, "radius": 3000, "label": "Zone"}],
            },
            "areas",
        ),
        ("tomtom-ev-search", {"position": AMSTERDAM, "radius": 3000}, "points"),
        (
            "tomtom-area-search",
            {"query": "pharmacy", "polygons": [{"center": AMSTERDAM, "radius": 1500}]},
            "areas",
        ),
    ],
)
def test_every_map_tool_draws_in_the_map_view(
    page: Page, preview_server: Service, tool: str, args: dict, kind_count: str
) -> None:
    frame, drawn = open_view(page, preview_server.url, tool, args)
    assert drawn["status"] == "ok", drawn
    assert drawn["reason"] == "drawn", drawn
    assert int(drawn[kind_count]) >= 1, drawn
    assert frame.evaluate(INK) > 0.0005, f"{tool} left the canvas blank"
    shoot(page, tool.removeprefix("tomtom-"))


def test_a_route_too_long_to_send_whole_is_drawn_simplified_with_a_note(
    page: Page, preview_server: Service
) -> None:
    args = {"locations": [[-9.14, 38.72], [21.01, 52.23]]}
    frame, drawn = open_view(page, preview_server.url, "tomtom-routing", args)
    assert drawn["status"] == "ok", drawn
    assert drawn["fitted"] == drawn["routePoints"], "the note counts the points actually drawn"
    note = frame.inner_text("#notes")
    assert f"Simplified to {int(drawn['fitted']):,} of" in note
    assert "→" in frame.inner_text("#map"), "border crossings are marked"
    shoot(page, "routing-fitted")


@pytest.fixture(scope="module")
def tight_preview_server() -> Iterator[Service]:
    """A keyless replica whose budget forces long routes onto a grid coarser than 1e-5 degrees."""
    with running(["serve", "--preview", "--fit-workers", "1"], {"APP_DATA_BUDGET": "50000"}) as p:
        yield p


def test_a_long_route_fitted_onto_a_coarse_grid_is_drawn_whole_with_a_note(
    page: Page, tight_preview_server: Service
) -> None:
    # Lisbon to Warsaw in 50,000 characters: varint lines on a grid of q e5 steps.
    args = {"locations": [[-9.14, 38.72], [21.01, 52.23]]}
    frame, drawn = open_view(page, tight_preview_server.url, "tomtom-routing", args)
    assert drawn["status"] == "ok" and drawn["reason"] == "drawn", drawn
    assert drawn["fitted"] == drawn["routePoints"], "the note counts the points actually drawn"
    assert f"Simplified to {int(drawn['fitted']):,} of" in frame.inner_text("#notes")
    assert frame.evaluate(INK) > 0.0005, "the fitted route left the canvas blank"
    shoot(page, "routing-fitted-coarse-grid")


def test_data_viz_draws_the_callers_layers_from_inline_app_data(
    page: Page, preview_server: Service
) -> None:
    args = {
        "title": "Parks",
        "geojson": {
            "type": "FeatureCollection",
            "features": [
                {
                    "type": "Feature",
                    "properties": {"name": "Vondelpark"},
                    "geometry": {
                        "type": "Polygon",
                        "coordinates": [
                            [[4.857, 52.356], [4.881, 52.362], [4.884, 52.359], [4.857, 52.356]]
                        ],
                    },
                },
                {
                    "type": "Feature",
                    "properties": {"name": "Dam"},
                    "geometry": {"type": "Point", "coordinates": [4.8932, 52.3731]},
                },
            ],
        },
        "layers": [
            {"type": "fill", "paint": {"fill-color": "#2f9e44", "fill-opacity": 0.5}},
            {"type": "circle", "paint": {"circle-color": "#e33", "circle-radius": 8}},
            {"type": "symbol", "label": "name"},
        ],
    }
    frame, drawn = open_view(page, preview_server.url, "tomtom-data-viz", args)
    assert drawn["status"] == "ok", drawn
    assert drawn["view"] == "data-viz"
    assert drawn["features"] == "2"
    assert drawn["layers"] == "3"
    assert drawn["labels"] == "2"
    assert "fetched" not in drawn, "inline app data needs no second request"
    assert frame.inner_text("#title").startswith("Parks")
    assert frame.evaluate(INK) > 0.002
    shoot(page, "data-viz")


def test_data_viz_without_meta_fetches_its_data_with_its_own_tool_input(
    page: Page, preview_server: Service
) -> None:
    points = [
        {
            "type": "Feature",
            "properties": {"i": i},
            "geometry": {"type": "Point", "coordinates": [4.8 + i * 0.01, 52.3 + (i % 7) * 0.01]},
        }
        for i in range(40)
    ]
    args = {"geojson": {"type": "FeatureCollection", "features": points}, "title": "Fetched"}
    frame, drawn = open_view(page, preview_server.url, "tomtom-data-viz", args, strip_meta="1")
    assert drawn["status"] == "ok", drawn
    assert drawn["fetched"] == "1"
    assert drawn["features"] == "40"
    calls = page.evaluate("previewHost.viewCalls")
    assert "tomtom-get-app-data" in calls
    assert frame.evaluate(INK) > 0.0005


def test_traffic_draws_lists_and_counts_every_incident_of_the_area(
    page: Page, preview_server: Service
) -> None:
    frame, drawn = open_view(
        page, preview_server.url, "tomtom-traffic", {"bbox": [4.82, 52.33, 4.96, 52.41]}
    )
    assert drawn["status"] == "ok", drawn
    assert drawn["view"] == "traffic"
    count = page.evaluate("JSON.parse(previewHost.result.content[0].text).count")
    assert count >= 1
    assert int(drawn["incidents"]) == count == int(drawn["items"])
    assert f"{count} incident" in frame.inner_text("#title")
    assert frame.locator("#list [role=option]").count() == count
    assert drawn["trafficTiles"] == "0"
    assert "no live traffic tiles" in frame.inner_text("#notes")
    assert frame.evaluate(INK) > 0.002, "the incidents are drawn"
    frame.locator("#list [role=option]").first.click()
    popup = frame.locator(".maplibregl-popup-content")
    popup.wait_for()
    text = popup.inner_text()
    assert "From" in text and "delay" in text.lower(), text


def test_a_view_whose_host_dropped_meta_says_so_and_reports_the_error(
    page: Page, preview_server: Service
) -> None:
    args = {"locations": [AMSTERDAM, [5.1214, 52.0907]]}
    frame, drawn = open_view(page, preview_server.url, "tomtom-routing", args, strip_meta="1")
    assert drawn["status"] == "error"
    assert drawn["reason"] == "meta_dropped"
    message = frame.inner_text("#message")
    assert "tomtom-preview-host did not pass the tool result's _meta" in message
    assert "open this chat in another MCP Apps host" in message
    frame.wait_for_function("document.body.dataset.reported === 'error'")
    frame.wait_for_function("document.body.dataset.modelContext === 'degraded'")
    told = page.evaluate("previewHost.modelContext.at(-1)")
    assert 'status: "degraded"' in told and 'reason: "meta_dropped"' in told
    events = app_status_events(preview_server, "tomtom-routing")
    assert any(e["status"] == "error" and e["reason"] == "meta_dropped" for e in events), events
    shoot(page, "error-meta-dropped")


def test_a_tool_error_is_shown_in_the_view_not_an_empty_frame(
    page: Page, preview_server: Service
) -> None:
    frame, drawn = open_view(
        page, preview_server.url, "tomtom-traffic", {"bbox": [-10.0, 35.0, 30.0, 60.0]}
    )
    assert drawn["status"] == "error"
    assert drawn["reason"] == "tool_error"
    assert "km²" in frame.inner_text("#message")


def test_the_view_follows_the_host_dark_theme(page: Page, preview_server: Service) -> None:
    frame, drawn = open_view(
        page, preview_server.url, "tomtom-geocode", {"query": "Dam, Amsterdam"}, theme="dark"
    )
    assert drawn["status"] == "ok"
    assert frame.evaluate("document.documentElement.dataset.theme") == "dark"
    corner = frame.evaluate(
        """() => { const c = document.querySelector('#map canvas');
        const g = document.createElement('canvas'); g.width = 4; g.height = 4;
        g.getContext('2d').drawImage(c, 0, 0, 4, 4, 0, 0, 4, 4);
        return Array.from(g.getContext('2d').getImageData(0, 0, 1, 1).data).slice(0, 3); }"""
    )
    assert sum(corner) < 200, f"dark background expected, got {corner}"


def test_fullscreen_is_offered_and_granted_by_the_host(page: Page, preview_server: Service) -> None:
    frame, _ = open_view(page, preview_server.url, "tomtom-geocode", {"query": "Dam, Amsterdam"})
    button = frame.locator("#fullscreen")
    assert button.is_visible()
    button.click()
    frame.wait_for_function("document.body.dataset.display === 'fullscreen'")
    assert page.evaluate("document.getElementById('stage').classList.contains('fullscreen')")
    frame.wait_for_function(
        "getComputedStyle(document.getElementById('frame')).borderRadius === '0px'"
    )


def test_a_data_viz_layer_maplibre_refuses_is_noted_while_the_rest_draws(
    page: Page, preview_server: Service
) -> None:
    args = {
        "geojson": {
            "type": "Feature",
            "properties": {},
            "geometry": {"type": "LineString", "coordinates": [[4.88, 52.36], [4.9, 52.38]]},
        },
        "layers": [
            {"type": "line", "paint": {"line-width": "very wide"}},
            {"type": "line", "paint": {"line-color": "#e33", "line-width": 4}},
        ],
    }
    frame, drawn = open_view(page, preview_server.url, "tomtom-data-viz", args)
    assert drawn["status"] == "ok", drawn
    assert drawn["layers"] == "1"
    assert "layer 1 was refused" in frame.inner_text("#notes")
    assert frame.evaluate(INK) > 0.0005


@pytest.mark.parametrize("profile", ["preview", "strict-csp"])
def test_with_a_key_tiles_come_from_the_tile_route_and_the_page_holds_no_key(
    page: Page, keyed_preview_server: Service, upstream: Service, profile: str
) -> None:
    requested: list[str] = []
    page.on("request", lambda r: requested.append(r.url))
    args = {"locations": [AMSTERDAM, [5.1214, 52.0907]]}
    with page.expect_response(lambda r: "/tiles/basemap/" in r.url) as first_tile:
        frame, drawn = open_view(
            page, keyed_preview_server.url, "tomtom-routing", args, profile=profile
        )
    assert first_tile.value.status == 200
    assert first_tile.value.headers["content-type"] == "image/png"
    assert drawn["status"] == "ok", drawn
    # Under the specification's default policy the simple map fetches the same tiles.
    assert drawn["engine"] == ("canvas" if profile == "strict-csp" else "maplibre"), drawn
    assert drawn["tiles"] == "requested"
    tiles = [u for u in requested if u.startswith(f"{keyed_preview_server.url}/tiles/basemap/")]
    assert tiles, f"no basemap tile requested from the tile route: {requested[-5:]}"
    assert all("?t=" in u for u in tiles)
    assert not [u for u in requested if u.startswith(upstream.url)], "nothing from TomTom itself"
    assert "tiles_failed" not in {
        e["reason"] for e in app_status_events(keyed_preview_server, "tomtom-routing")
    }
    assert "dataSource" not in drawn, "TomTom's answer is not flagged offline"
    assert holds_no_key(page, frame, requested) == []
    shoot(page, f"routing-tiles-{profile}")


def test_tiles_refused_by_the_route_leave_the_data_drawn_and_are_reported(
    page: Page, throttled_preview_server: Service
) -> None:
    args = {"locations": [AMSTERDAM, [5.1214, 52.0907]]}
    frame, drawn = open_view(page, throttled_preview_server.url, "tomtom-routing", args)
    assert drawn["status"] == "ok", drawn
    frame.wait_for_function("document.body.dataset.tiles === 'failed'")
    assert "Map tiles could not load; showing the offline map. (HTTP 429)" in frame.inner_text(
        "#notes"
    )
    assert frame.evaluate(INK) > 0.002, "the route still draws without tiles"
    frame.wait_for_function("document.body.dataset.reported === 'ok'")
    events = app_status_events(throttled_preview_server, "tomtom-routing")
    assert any(e["reason"] == "tiles_failed" for e in events), events


def test_with_a_key_the_traffic_view_draws_its_incidents_over_flow_tiles_from_the_route(
    page: Page, keyed_preview_server: Service, upstream: Service
) -> None:
    requested: list[str] = []
    page.on("request", lambda r: requested.append(r.url))
    frame, drawn = open_view(
        page, keyed_preview_server.url, "tomtom-traffic", {"bbox": [4.82, 52.33, 4.96, 52.41]}
    )
    assert drawn["status"] == "ok", drawn
    assert drawn["trafficTiles"] == "1"
    for layer in ("basemap", "traffic_flow"):
        prefix = f"{keyed_preview_server.url}/tiles/{layer}/"
        frame.wait_for_function(
            "p => performance.getEntriesByType('resource').some(e => e.name.startsWith(p))",
            arg=prefix,
        )
    assert not any(u.startswith(upstream.url) for u in requested), "nothing from TomTom itself"
    assert not any("/tiles/traffic_incidents/" in u for u in requested), "incidents come as data"
    assert int(drawn["incidents"]) >= 1
    assert holds_no_key(page, frame, requested) == []


def test_a_theme_change_from_the_host_restyles_the_drawn_view(
    page: Page, preview_server: Service
) -> None:
    frame, _ = open_view(
        page, preview_server.url, "tomtom-traffic", {"bbox": [4.82, 52.33, 4.96, 52.41]}
    )
    assert frame.evaluate("document.documentElement.dataset.theme") == "light"
    page.select_option("#theme", "dark")
    frame.wait_for_function("document.documentElement.dataset.theme === 'dark'")
    frame.wait_for_function(
        """() => { const c = document.querySelector('#map canvas');
        const g = document.createElement('canvas'); g.width = 1; g.height = 1;
        g.getContext('2d').drawImage(c, 0, 0, 1, 1, 0, 0, 1, 1);
        const [r, gg, b] = g.getContext('2d').getImageData(0, 0, 1, 1).data;
        return r + gg + b < 200; }"""
    )


def test_data_viz_too_large_to_send_is_paged_in_with_its_own_tool_input(
    page: Page, keyed_preview_server: Service
) -> None:
    points = [
        {
            "type": "Feature",
            "properties": {"n": i},
            "geometry": {
                "type": "Point",
                "coordinates": [
                    4.7 + (i * 7919 % 3001) / 10000,
                    52.3 + (i * 104729 % 1999) / 10000,
                ],
            },
        }
        for i in range(1500)
    ]
    args = {"geojson": {"type": "FeatureCollection", "features": points}, "title": "Paged"}
    frame, drawn = open_view(page, keyed_preview_server.url, "tomtom-data-viz", args)
    assert drawn["status"] == "ok", drawn
    assert drawn["features"] == "1500"
    assert drawn["fetched"] == "1"
    assert int(drawn["pages"]) >= 2, drawn
    calls = page.evaluate("previewHost.viewCalls")
    assert calls.count("tomtom-get-app-data") == int(drawn["pages"])
    assert frame.evaluate(INK) > 0.002
    shoot(page, "data-viz-paged")


@pytest.fixture(scope="module")
def geojson_site() -> Iterator[str]:
    """The local GeoJSON site (`loadtest.geojson_site`), which counts its downloads."""
    with serve_geojson(timeout=60) as url:
        yield url


@pytest.fixture(scope="module")
def data_url_preview_server() -> Iterator[Service]:
    """A keyless replica that may fetch a `data_url` from this machine, with the default
    budget and pages and two fitting workers, as deployed."""
    env = {"DATA_VIZ_ALLOW_PRIVATE": "1"}
    with running(["serve", "--preview", "--fit-workers", "2"], env) as process:
        yield process


def downloads(site: str, path: str) -> int:
    return httpx.get(f"{site}/downloads", timeout=10).json().get(path, 0)


def bytes_sent(site: str, path: str) -> int:
    return httpx.get(f"{site}/bytes", timeout=10).json().get(path, 0)


def test_a_large_dataset_is_drawn_whole_from_pages_fetched_a_few_at_a_time(
    page: Page, data_url_preview_server: Service, geojson_site: str
) -> None:
    # The reference file: 3,700 GPS-like traces of 250 vertices, 20 MB of GeoJSON.
    path = "/lines/3700x250.geojson"
    before, sent_before = downloads(geojson_site, path), bytes_sent(geojson_site, path)
    args = {"data_url": f"{geojson_site}{path}", "title": "Traces"}
    started = time.perf_counter()
    frame, drawn = open_view(page, data_url_preview_server.url, "tomtom-data-viz", args)
    seconds = time.perf_counter() - started
    assert drawn["status"] == "ok" and drawn["reason"] == "drawn", drawn
    assert drawn["features"] == "3700" and drawn["fetched"] == "1"
    pages = int(drawn["pages"])
    calls = page.evaluate("previewHost.viewCalls")
    assert calls.count("tomtom-get-app-data") == pages > 1, "the plan came in the result's _meta"
    assert downloads(geojson_site, path) - before == 1 + pages <= 12
    # the tool's download, then each page's own bytes (the site honours Range)
    size = len(lines_geojson(3700, 250))
    assert size < bytes_sent(geojson_site, path) - sent_before < 2 * size
    assert frame.inner_text("#title").startswith("Traces")
    assert "3,700 features" in frame.inner_text("#title")
    assert int(drawn["items"]) == 300
    assert frame.evaluate(INK) > 0.002, "the traces should put ink on the canvas"
    shoot(page, "data-viz-large")
    ARTIFACTS.mkdir(exist_ok=True)
    (ARTIFACTS / "data-viz-large.json").write_text(
        json.dumps({"seconds_to_drawn": round(seconds, 2), "pages": pages})
    )


def test_the_view_renews_its_tile_token_before_it_expires(
    page: Page, keyed_preview_server: Service
) -> None:
    tokens: list[str] = []
    page.on("request", lambda r: "/tiles/" in r.url and tokens.append(r.url.split("t=")[1]))
    page.clock.install()
    args = {"locations": [AMSTERDAM, [5.1214, 52.0907]]}
    frame, drawn = open_view(page, keyed_preview_server.url, "tomtom-routing", args)
    assert drawn["status"] == "ok", drawn
    assert page.evaluate("previewHost.viewCalls").count("tomtom-get-map-config") == 1
    if not tokens:
        page.wait_for_event("request", lambda r: "/tiles/" in r.url)
    first = tokens[0]
    page.clock.fast_forward("50:00")  # past 80% of the token's hour
    frame.wait_for_function("document.body.dataset.tilesRenewed === '1'")
    assert page.evaluate("previewHost.viewCalls").count("tomtom-get-map-config") == 2
    if all(token == first for token in tokens):  # the tiles reload with the new token
        page.wait_for_event("request", lambda r: "/tiles/" in r.url and first not in r.url)
    assert len(set(tokens)) == 2


ROUTE_ARGS = {"locations": [AMSTERDAM, [6.5665, 53.2194], [13.405, 52.52]]}
# A data-viz layer: a canal walk and the Dam.
CANAL_WALK = {
    "type": "FeatureCollection",
    "features": [
        {
            "type": "Feature",
            "properties": {"name": "Canal walk"},
            "geometry": {"type": "LineString", "coordinates": [[4.884, 52.367], [4.893, 52.376]]},
        },
        {
            "type": "Feature",
            "properties": {"name": "Dam"},
            "geometry": {"type": "Point", "coordinates": [4.8932, 52.3731]},
        },
    ],
}
SEARCH_ARGS = {"query": "coffee", "position": AMSTERDAM}
LAND = {"light": (242, 239, 233), "dark": (43, 48, 54)}
WATER = {"light": (169, 200, 220), "dark": (15, 26, 38)}


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_the_offline_basemap_draws_land_and_water_without_any_tiles(
    page: Page, preview_server: Service, theme: str
) -> None:
    frame, drawn = open_view(page, preview_server.url, "tomtom-routing", ROUTE_ARGS, theme=theme)
    assert drawn["status"] == "ok" and drawn["tiles"] == "none", drawn
    assert share(frame, LAND[theme]) > 0.3, "Natural Earth land fills most of the Netherlands"
    assert share(frame, WATER[theme]) > 0.02, "and the North Sea is water"
    assert "Natural Earth" in frame.inner_text(".maplibregl-ctrl-attrib")


def test_clicking_a_result_tells_the_model_what_was_selected(
    page: Page, preview_server: Service
) -> None:
    frame, drawn = open_view(page, preview_server.url, "tomtom-fuzzy-search", SEARCH_ARGS)
    assert drawn["status"] == "ok", drawn
    option = frame.locator("#list [role=option]").nth(1)
    name = option.locator(".tt-name").inner_text()
    option.click()
    frame.wait_for_function("document.body.dataset.modelContext === 'selection'")
    told = page.evaluate("previewHost.modelContext.at(-1)")
    assert told.startswith("---\n")
    assert 'selected: "search result"' in told
    assert f"name: {json.dumps(name, ensure_ascii=False)}" in told
    assert "position: [" in told and 'rank: "2 of' in told
    assert option.get_attribute("aria-selected") == "true"
    assert name in page.inner_text("#model-context"), "the preview host shows it to a person"


def test_a_click_on_the_map_selects_the_same_thing_the_list_does(
    page: Page, preview_server: Service
) -> None:
    frame, _ = open_view(page, preview_server.url, "tomtom-geocode", {"query": "Dam, Amsterdam"})
    box = frame.locator(".tt-num").first.bounding_box()
    assert box is not None
    page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    frame.wait_for_function("document.body.dataset.selected === 'place-0'")
    frame.wait_for_function("document.body.dataset.modelContext === 'selection'")
    assert frame.locator("#list [aria-selected=true]").count() == 1


def test_keyboard_alone_reaches_the_list_selects_and_flies_the_map_there(
    page: Page, preview_server: Service
) -> None:
    frame, _ = open_view(page, preview_server.url, "tomtom-fuzzy-search", SEARCH_ARGS)
    listbox = frame.locator("#list")
    assert listbox.get_attribute("role") == "listbox" and listbox.get_attribute("aria-label")
    assert frame.locator("#list [role=group]").count() >= 1
    before = frame.evaluate("document.body.dataset.camera")
    listbox.focus()
    for key in ("ArrowDown", "ArrowDown", "End", "Home", "ArrowDown", "Enter"):
        page.keyboard.press(key)
    frame.wait_for_function("document.body.dataset.selected === 'place-1'")
    active = listbox.get_attribute("aria-activedescendant")
    assert frame.locator(f"#{active}").get_attribute("aria-selected") == "true"
    frame.wait_for_function(f"document.body.dataset.camera !== {json.dumps(before)}")
    frame.wait_for_function("document.body.dataset.popup === 'place-1'")
    assert frame.locator("#details").is_visible()
    summary = frame.locator("#map canvas").get_attribute("aria-label")
    assert summary and "results" in summary.lower(), summary


def test_links_go_through_the_host_and_never_open_a_window_themselves(
    page: Page, preview_server: Service
) -> None:
    frame, _ = open_view(page, preview_server.url, "tomtom-fuzzy-search", SEARCH_ARGS)
    frame.locator("#list [role=option]").first.click()
    frame.locator("#details button[data-link=place]").click()
    page.wait_for_function("previewHost.openedLinks.length === 1")
    url = page.evaluate("previewHost.openedLinks[0]")
    assert url.startswith("https://plan.tomtom.com/en/?p=52.")
    assert len(page.context.pages) == 1, "the view opened no window of its own"
    assert frame.locator("a[target=_blank]").count() == 0


def open_partial_route(page: Page, base: str) -> Frame:
    """The routing view given ROUTE_ARGS as partial input, its result held back by the host:
    the three waypoints drawn pending."""
    qs = urllib.parse.urlencode({"tool": "tomtom-routing", "partial": "1", "hold": "1"})
    page.goto(f"{base}/preview?{qs}#" + urllib.parse.urlencode({"args": json.dumps(ROUTE_ARGS)}))
    page.wait_for_function("window.previewHost && previewHost.status === 'held'")
    frame = view_frame(page)
    frame.wait_for_function("document.body.dataset.partial === '3'")
    return frame


def test_partial_input_draws_the_waypoints_before_the_route_arrives(
    page: Page, preview_server: Service
) -> None:
    frame = open_partial_route(page, preview_server.url)
    assert frame.locator(".tt-pin.tt-pending").count() == 3
    assert "Computing route" in frame.inner_text("#title")
    assert "routePoints" not in frame.evaluate("({...document.body.dataset})")
    page.evaluate("previewHost.release()")
    frame.wait_for_function(SETTLED)
    drawn = frame.evaluate("({...document.body.dataset})")
    assert drawn["status"] == "ok" and "partial" not in drawn
    assert frame.locator(".tt-pending").count() == 0, "the result replaced the sketch"
    assert int(drawn["routePoints"]) > 1000


def test_the_camera_and_selection_come_back_when_the_same_result_is_shown_again(
    storage_page: Page, preview_server: Service
) -> None:
    page = storage_page
    frame, drawn = open_view(page, preview_server.url, "tomtom-fuzzy-search", SEARCH_ARGS)
    assert drawn["stored"] == ""
    frame.locator("#list [role=option]").nth(2).click()
    frame.wait_for_function("document.body.dataset.popup === 'place-2'")
    frame.wait_for_function("!document.body.dataset.moving")  # the flight to it has landed
    frame.locator("#map canvas").focus()
    zoom = json.loads(frame.evaluate("document.body.dataset.camera"))["zoom"]
    page.keyboard.press("Minus")
    frame.wait_for_function(f"JSON.parse(document.body.dataset.camera).zoom < {zoom - 0.5}")
    camera = json.loads(frame.evaluate("document.body.dataset.camera"))
    page.evaluate("previewHost.reloadView()")
    again = view_frame(page)
    again.wait_for_function(SETTLED)
    restored = again.evaluate("({...document.body.dataset})")
    assert restored["stored"] == "1" and restored["restored"] == "1", restored
    assert json.loads(restored["camera"]) == camera
    assert restored["selected"] == "place-2"
    again.wait_for_function("document.body.dataset.popup === 'place-2'")


def test_a_german_host_gets_kilometres_and_german_words_an_american_one_miles(
    page: Page, preview_server: Service
) -> None:
    frame, _ = open_view(page, preview_server.url, "tomtom-routing", ROUTE_ARGS, locale="de-DE")
    title = frame.inner_text("#title")
    assert " km" in title and "Std." in title and " mi" not in title
    assert "Stopps" in frame.inner_text("#legend") and "ROUTEN" in frame.inner_text("#list").upper()
    assert frame.evaluate("document.documentElement.lang") == "de-DE"
    page.fill("#locale", "en-US")
    page.dispatch_event("#locale", "change")
    frame.wait_for_function("document.getElementById('title').innerText.includes(' mi')")
    assert "Stops" in frame.inner_text("#legend")
    assert '"locale": "en-US"' in (page.text_content("#host-context") or "")


def test_at_320_pixels_wide_nothing_overflows_sideways(page: Page, preview_server: Service) -> None:
    frame, drawn = open_view(
        page, preview_server.url, "tomtom-fuzzy-search", SEARCH_ARGS, width="320"
    )
    assert drawn["status"] == "ok"
    sizes = frame.evaluate(
        """() => ({ scroll: document.documentElement.scrollWidth, width: innerWidth,
        side: document.getElementById('side').getBoundingClientRect().width,
        map: document.getElementById('map').getBoundingClientRect().height })"""
    )
    assert sizes["width"] == 320 and sizes["scroll"] <= 320, sizes
    assert sizes["side"] == 320, "the list goes under the map, not beside it"
    assert sizes["map"] > 200, "and leaves the map most of the height"
    assert frame.evaluate("getComputedStyle(document.getElementById('map')).touchAction") == "none"
    shoot(page, "search-320px")


def test_a_fixed_host_height_is_used_and_never_more_than_500_pixels_inline(
    page: Page, preview_server: Service
) -> None:
    frame, _ = open_view(
        page, preview_server.url, "tomtom-geocode", {"query": "Dam, Amsterdam"}, height="300"
    )
    assert frame.evaluate("document.getElementById('frame').offsetHeight") == 300
    page.select_option("#height", "500")
    frame.wait_for_function("document.getElementById('frame').offsetHeight === 500")


def test_scrolled_out_of_sight_the_view_pauses(page: Page, preview_server: Service) -> None:
    frame, _ = open_view(page, preview_server.url, "tomtom-geocode", {"query": "Dam, Amsterdam"})
    page.evaluate(
        """() => { const s = document.createElement('div'); s.id = 'spacer';
        s.style.height = '4000px'; document.getElementById('stage').before(s); scrollTo(0, 0); }"""
    )
    # An offscreen cross-origin frame gets no animation frames: poll on a timer instead.
    frame.wait_for_function("document.body.dataset.paused === '1'", polling=100)
    page.evaluate("document.getElementById('stage').scrollIntoView()")
    frame.wait_for_function("document.body.dataset.paused === ''", polling=100)


@pytest.mark.parametrize("theme", ["light", "dark"])
@pytest.mark.parametrize(
    ("name", "tool", "args"),
    [
        ("routing", "tomtom-routing", ROUTE_ARGS),
        ("search", "tomtom-fuzzy-search", SEARCH_ARGS),
        ("traffic", "tomtom-traffic", {"bbox": [4.82, 52.33, 4.96, 52.41]}),
        ("data-viz", "tomtom-data-viz", {"title": "Dam and a canal walk", "geojson": CANAL_WALK}),
    ],
)
def test_every_view_is_shot_in_both_themes(
    page: Page, preview_server: Service, theme: str, name: str, tool: str, args: dict
) -> None:
    frame, drawn = open_view(page, preview_server.url, tool, args, theme=theme)
    assert drawn["status"] == "ok", drawn
    assert frame.evaluate("document.documentElement.dataset.theme") == theme
    shoot(page, f"{name}-{theme}")


FIND_COLOUR = """([r, g, b]) => {
  const c = document.querySelector("#map canvas");
  const x = document.createElement("canvas").getContext("2d");
  x.canvas.width = c.width; x.canvas.height = c.height;
  x.drawImage(c, 0, 0);
  const d = x.getImageData(0, 0, c.width, c.height).data;
  const scale = c.width / c.clientWidth;
  for (let i = 0; i < d.length; i += 4) {
    if (Math.abs(d[i] - r) + Math.abs(d[i + 1] - g) + Math.abs(d[i + 2] - b) < 12) {
      const p = i / 4;
      return {x: (p % c.width) / scale + 2, y: Math.floor(p / c.width) / scale + 2};
    }
  }
  return null;
}"""


def test_ev_stations_are_coloured_by_availability_and_listed_with_it(
    page: Page, preview_server: Service
) -> None:
    args = {"position": AMSTERDAM, "radius": 3000, "limit": 12}
    frame, drawn = open_view(page, preview_server.url, "tomtom-ev-search", args)
    assert drawn["status"] == "ok", drawn
    assert int(drawn["points"]) == 13  # twelve stations and the search centre
    assert "Charging: free" in frame.inner_text("#legend")
    subs = frame.locator("#list .tt-sub").all_inner_texts()
    assert sum(" free" in s and "kW" in s for s in subs) >= 6, subs
    free = frame.evaluate(FIND_COLOUR, [0x2F, 0x9E, 0x44])
    assert free is not None, "a free station is drawn green"
    frame.locator("#map canvas").click(position=free)
    frame.wait_for_function("(document.body.dataset.selected || '').startsWith('place-')")
    assert_panels_apart(frame)
    assert frame.evaluate(POPUP_ON_TOP), "a floating panel covers the open popup"
    shoot(page, "ev-search-selected")


def test_an_ev_route_is_drawn_with_its_charging_stops(page: Page, preview_server: Service) -> None:
    args = {
        "locations": [AMSTERDAM, [13.405, 52.52]],
        "maxChargeInkWh": 60,
        "currentChargePercent": 80,
    }
    frame, drawn = open_view(page, preview_server.url, "tomtom-ev-routing", args)
    assert drawn["status"] == "ok", drawn
    assert int(drawn["routePoints"]) > 1000
    assert int(drawn["points"]) >= 3  # the two ends and at least one charging stop
    assert "Charging stop" in frame.inner_text("#legend")
    assert "Arrive" in frame.inner_text("#list")  # each stop's charge and minutes
    assert "CHARGING STOPS" in frame.inner_text("#list").upper(), (
        "the stops are listed under their own name"
    )
    assert frame.evaluate(INK) > 0.002
    shoot(page, "ev-routing")


OVERLAPS = """() => {
  const box = (el) => el.getBoundingClientRect();
  const panels = [document.getElementById("legend"), document.getElementById("title"),
    ...document.querySelectorAll("#notes > *")].filter((el) => el && !el.hidden && el.offsetHeight);
  const hits = [];
  for (const [i, a] of panels.entries()) for (const b of panels.slice(i + 1)) {
    const p = box(a), q = box(b);
    if (p.left < q.right && q.left < p.right && p.top < q.bottom && q.top < p.bottom)
      hits.push(`${a.id || a.textContent.slice(0, 30)} / ${b.id || b.textContent.slice(0, 30)}`);
  }
  return hits;
}"""


POPUP_ON_TOP = """() => {
  const popup = document.querySelector(".maplibregl-popup-content");
  const r = popup.getBoundingClientRect();
  const points = [[0.1, 0.1], [0.9, 0.1], [0.5, 0.5], [0.1, 0.9], [0.9, 0.9]];
  return points.every(([fx, fy]) =>
    popup.contains(document.elementFromPoint(r.left + fx * r.width, r.top + fy * r.height)));
}"""


def assert_panels_apart(frame: Frame) -> None:
    """The legend, the title and every note are read side by side, never one over another."""
    assert frame.locator("#notes > *").count() >= 1, "the offline note is shown"
    assert frame.evaluate(OVERLAPS) == []


def test_alternatives_are_drawn_as_secondary_lines(page: Page, preview_server: Service) -> None:
    args = {"locations": [AMSTERDAM, [13.405, 52.52]], "maxAlternatives": 2}
    frame, drawn = open_view(page, preview_server.url, "tomtom-routing", args)
    assert drawn["status"] == "ok", drawn
    legend = frame.inner_text("#legend")
    assert "Alternative 1" in legend and "Alternative 2" in legend
    assert legend.index("Route") < legend.index("Alternative 1"), "the route leads the legend"
    assert_panels_apart(frame)
    shoot(page, "routing-alternatives")


# --- host profiles: hosts that keep, drop or replace `_meta`, and one on another origin -------

PROFILE_VIEWS = [
    ("routing", "tomtom-routing", {"locations": [AMSTERDAM, [5.1214, 52.0907]]}),
    ("traffic", "tomtom-traffic", {"bbox": [4.82, 52.33, 4.96, 52.41]}),
    ("data-viz", "tomtom-data-viz", {"geojson": CANAL_WALK}),
    ("fleet", "tomtom-matrix", {"origins": [AMSTERDAM, [5.1214, 52.0907], [4.4777, 51.9244]]}),
    (
        "batch",
        "tomtom-batch-geocode",
        {"addresses": ["Damrak 1, Amsterdam", "Coolsingel 40, Rotterdam", "Hoofdstraat 12"]},
    ),
]


@pytest.mark.parametrize(("name", "tool", "args"), PROFILE_VIEWS, ids=[v[0] for v in PROFILE_VIEWS])
def test_in_a_host_shaped_like_chatgpt_on_the_web_every_view_draws_from_window_openai(
    page: Page, preview_server: Service, name: str, tool: str, args: dict
) -> None:
    frame, drawn = open_view(page, preview_server.url, tool, args, profile="chatgpt")
    assert drawn["status"] == "ok" and drawn["reason"] == "drawn", drawn
    assert "fetched" not in drawn and "refetched" not in drawn, "no second request"
    assert frame.evaluate("Boolean(window.openai && window.openai.toolResponseMetadata)")
    assert "tomtom-get-app-data" not in page.evaluate("previewHost.viewCalls")
    assert frame.evaluate(INK) > 0.0005
    events = app_status_events(preview_server, tool)
    assert (events[-1]["status"], events[-1]["platform"]) == ("ok", "web")
    shoot(page, f"profile-chatgpt-{name}")


@pytest.mark.parametrize(("name", "tool", "args"), PROFILE_VIEWS, ids=[v[0] for v in PROFILE_VIEWS])
def test_in_a_host_that_drops_meta_tomtom_views_say_why_and_data_viz_fetches_its_data(
    page: Page, preview_server: Service, name: str, tool: str, args: dict
) -> None:
    frame, drawn = open_view(page, preview_server.url, tool, args, profile="drop-meta")
    calls = page.evaluate("previewHost.viewCalls")
    assert "tomtom-refetch-app-data" not in calls, "VIEW_REFETCH is off: no TomTom tool again"
    if tool == "tomtom-data-viz":
        assert drawn["status"] == "ok" and drawn["fetched"] == "1", drawn
        assert "tomtom-get-app-data" in calls
    else:
        assert (drawn["status"], drawn["reason"]) == ("error", "meta_dropped"), drawn
        assert "tomtom-preview-host did not pass the tool result's _meta" in frame.inner_text(
            "#message"
        )
        frame.wait_for_function("document.body.dataset.reported === 'error'")
    shoot(page, f"profile-drop-meta-{name}")


# --- the strictest policy a host may send: the specification's default, no worker source -------


@pytest.mark.parametrize(("width", "height"), [(320, 450), (800, 450)], ids=lambda v: str(v))
@pytest.mark.parametrize(("name", "tool", "args"), PROFILE_VIEWS, ids=[v[0] for v in PROFILE_VIEWS])
def test_under_the_specifications_default_policy_every_view_draws_without_a_worker_and_says_why(
    wide_page: Page,
    preview_server: Service,
    name: str,
    tool: str,
    args: dict,
    width: int,
    height: int,
) -> None:
    page = wide_page
    query = {"profile": "strict-csp", "width": str(width), "height": str(height)}
    frame, drawn = open_view(page, preview_server.url, tool, args, **query)
    assert (drawn["status"], drawn["reason"], drawn["engine"]) == ("ok", "fallback", "canvas"), (
        drawn
    )
    assert frame.evaluate("[innerWidth, innerHeight]") == [width, height]
    assert frame.evaluate(INK) > 0.0005, "the data is on the canvas"
    assert share(frame, (242, 239, 233)) > 0.2, "over the Natural Earth land"
    assert covered(frame, data_positions(page, tool, args)) == [], "and clear of every panel"
    assert "Simple map: the full map engine cannot run here." in frame.inner_text("#frame")
    assert int(drawn["items"]) > 0, "the list is as usual"
    frame.wait_for_function("document.body.dataset.reported === 'ok'", polling=100)
    (event,) = [e for e in app_status_events(preview_server, tool) if e["reason"] == "fallback"][
        -1:
    ]
    assert "map engine blocked by the host's CSP: worker-src" in event["detail"], event
    ARTIFACTS.mkdir(exist_ok=True)
    page.locator("#stage").screenshot(
        path=str(ARTIFACTS / f"view-strict-csp-{name}-{width}x{height}.png")
    )


def test_under_the_strict_policy_the_simple_map_pans_zooms_and_selects_as_maplibre_does(
    page: Page, preview_server: Service
) -> None:
    frame, drawn = open_view(
        page, preview_server.url, "tomtom-fuzzy-search", SEARCH_ARGS, profile="strict-csp"
    )
    assert (drawn["status"], drawn["engine"]) == ("ok", "canvas"), drawn
    origin = frame.evaluate(MAP_ORIGIN)
    frame_box = page.locator("iframe#view").bounding_box()
    assert frame_box is not None
    x, y = on_screen(frame, data_positions(page, "tomtom-fuzzy-search", SEARCH_ARGS)[1])
    page.mouse.click(frame_box["x"] + origin[0] + x, frame_box["y"] + origin[1] + y)
    poll(frame, "document.body.dataset.selected === 'place-1'")
    poll(frame, "document.body.dataset.popup === 'place-1'")
    assert frame.locator(".maplibregl-popup").is_visible()
    poll(frame, "!document.body.dataset.moving")  # the map flew to the selection
    before = json.loads(frame.evaluate("document.body.dataset.camera"))
    frame.locator(".maplibregl-ctrl-zoom-out").click()
    poll(frame, f"JSON.parse(document.body.dataset.camera).zoom < {before['zoom'] - 0.9}")
    page.mouse.move(frame_box["x"] + origin[0] + 60, frame_box["y"] + origin[1] + 200)
    page.mouse.down()
    page.mouse.move(frame_box["x"] + origin[0] + 160, frame_box["y"] + origin[1] + 200, steps=5)
    page.mouse.up()
    poll(frame, f"JSON.parse(document.body.dataset.camera).center[0] < {before['center'][0]}")


@pytest.fixture(scope="module")
def browser_without_webgl(playwright: Playwright) -> Iterator[Browser]:
    b = playwright.chromium.launch(
        executable_path=CHROMIUM, args=[*CHROMIUM_ARGS, "--disable-3d-apis"]
    )
    try:
        yield b
    finally:
        b.close()


def test_without_webgl_the_view_draws_on_the_simple_map_and_reports_why(
    browser_without_webgl: Browser, preview_server: Service
) -> None:
    context = browser_without_webgl.new_context(viewport={"width": 1100, "height": 760})
    page = context.new_page()
    try:
        frame, drawn = open_view(page, preview_server.url, "tomtom-routing", ROUTE_ARGS)
        assert (drawn["status"], drawn["reason"], drawn["engine"]) == ("ok", "fallback", "canvas")
        assert frame.evaluate(INK) > 0.002
        events = app_status_events(preview_server, "tomtom-routing")
        assert "map engine cannot start" in events[-1]["detail"] and "WebGL" in events[-1]["detail"]
    finally:
        context.close()


# --- a single place shown with context, its city's label clear of its marker ------------------

CITY_LABEL = (51, 58, 68)  # the light basemap's label colour (basemap/themes.js)
LABEL_PIXELS = """([x0, y0, x1, y1, rgb]) => {
  const c = document.querySelector("#map canvas");
  const g = document.createElement("canvas");
  g.width = c.width; g.height = c.height;
  const x = g.getContext("2d");
  x.drawImage(c, 0, 0);
  const k = c.width / c.clientWidth;
  const [l, t, w, h] = [x0, y0, x1 - x0, y1 - y0].map((v) => Math.round(v * k));
  const d = x.getImageData(l, t, w, h).data;
  let n = 0;
  for (let i = 0; i < d.length; i += 4) {
    const off = Math.abs(d[i] - rgb[0]) + Math.abs(d[i + 1] - rgb[1]) + Math.abs(d[i + 2] - rgb[2]);
    if (off < 60) n++;
  }
  return n;
}"""


@pytest.mark.parametrize("profile", ["preview", "strict-csp"])
def test_a_single_geocoded_place_is_shown_amid_its_region_its_citys_label_clear_of_the_marker(
    page: Page, preview_server: Service, profile: str
) -> None:
    frame, drawn = open_view(
        page, preview_server.url, "tomtom-geocode", {"query": "Amsterdam"}, profile=profile
    )
    assert drawn["status"] == "ok" and drawn["points"] == "1", drawn
    zoom = json.loads(drawn["camera"])["zoom"]
    assert 5 <= zoom <= 10, f"the offline basemap has no detail at zoom {zoom}: show the region"
    width, height = frame.evaluate(MAP_SIZE)
    x, y = on_screen(frame, (4.27, 52.08))  # The Hague, the basemap's nearest other city
    assert 0 <= x <= width and 0 <= y <= height, "the nearest city is in sight"
    px, py = frame.evaluate(
        """() => { const m = document.getElementById("map").getBoundingClientRect();
      const r = document.querySelector(".tt-num").getBoundingClientRect();
      return [r.left - m.left + r.width / 2, r.top - m.top + r.height / 2]; }"""
    )
    # The marker covers its point and 12 px around it; the city's label goes below that, not
    # half under it, and it is drawn (Amsterdam's dot is within a few px of the result).
    under = frame.evaluate(LABEL_PIXELS, [px - 40, py + 6, px + 40, py + 15, list(CITY_LABEL)])
    below = frame.evaluate(LABEL_PIXELS, [px - 40, py + 15, px + 40, py + 40, list(CITY_LABEL)])
    assert under == 0 and below > 20, (under, below)
    shoot(page, f"geocode-single-{profile}")


MCP_UI_HOST = ROOT / "tests" / "widgets" / "mcp_ui_host"


@pytest.fixture(scope="module")
def mcp_ui_host_page(tmp_path_factory: pytest.TempPathFactory) -> str:
    """The host page built on @mcp-ui/client's AppRenderer (tests/widgets/mcp_ui_host/),
    bundled from its locked packages."""
    assert (MCP_UI_HOST / "node_modules").is_dir(), "run scripts/install (npm ci there)"
    out = tmp_path_factory.mktemp("mcp-ui-host") / "host.html"
    subprocess.run(["node", "build.mjs", str(out)], cwd=MCP_UI_HOST, check=True, timeout=120)
    return out.read_text()


def answer_html(body: str, route: Route) -> None:
    route.fulfill(body=body, content_type="text/html")


@pytest.mark.parametrize(("name", "tool", "args"), PROFILE_VIEWS, ids=[v[0] for v in PROFILE_VIEWS])
def test_in_mcp_uis_app_renderer_a_host_library_others_wrote_every_view_draws(
    page: Page, preview_server: Service, mcp_ui_host_page: str, name: str, tool: str, args: dict
) -> None:
    # The page is answered on the server's own origin (Playwright answers its one URL), so it
    # calls /mcp as a host page does. Chromium counts a page Playwright answers as public and
    # blocks its frames on loopback (Local Network Access), so the sandbox proxy, on the other
    # loopback name, is answered too: with the body the server serves there.
    host_url = f"{preview_server.url}/mcp-ui-host"
    sandbox_url = f"{preview_server.url.replace('127.0.0.1', 'localhost')}/preview/sandbox"
    sandbox = httpx.get(f"{preview_server.url}/preview/sandbox", timeout=10).text
    for url, body in ((host_url, mcp_ui_host_page), (sandbox_url, sandbox)):
        page.route(url, functools.partial(answer_html, body))
    fragment = urllib.parse.urlencode({"tool": tool, "args": json.dumps(args)})
    page.goto(f"{host_url}#{fragment}")
    proxy = page.wait_for_selector("#app iframe").content_frame()
    assert proxy is not None
    inner = proxy.wait_for_selector("iframe").content_frame()
    assert inner is not None
    inner.wait_for_function("document.body && document.body.dataset.view")
    inner.wait_for_function(SETTLED)
    drawn = inner.evaluate("({...document.body.dataset})")
    assert drawn["status"] == "ok" and drawn["reason"] == "drawn", drawn
    assert inner.evaluate(INK) > 0.0005
    assert page.evaluate("mcpUiHost.errors") == []
    events = app_status_events(preview_server, tool)
    assert events[-1]["status"] == "ok", events[-1]
    ARTIFACTS.mkdir(exist_ok=True)
    page.locator("#app").screenshot(path=str(ARTIFACTS / f"view-mcp-ui-{name}.png"))


def test_a_host_page_on_another_origin_speaks_mcp_through_cors_and_its_view_draws(
    page: Page, preview_server: Service
) -> None:
    # The page on localhost, /mcp on 127.0.0.1: another origin, as the reference host's port is.
    other = preview_server.url.replace("127.0.0.1", "localhost")
    args = {"locations": [AMSTERDAM, [5.1214, 52.0907]]}
    _, drawn = open_view(page, other, "tomtom-routing", args, profile="cross-origin")
    assert drawn["status"] == "ok" and drawn["reason"] == "drawn", drawn


@pytest.fixture(scope="module")
def refetching_preview_server(standin: Service) -> Iterator[Service]:
    """A replica with a key, TomTom played by the recording stand-in, that runs a TomTom tool
    again for a view whose host dropped `_meta` (VIEW_REFETCH=on)."""
    with keyed_preview(standin.url, VIEW_REFETCH="on") as process:
        yield process


@pytest.mark.parametrize(
    ("name", "tool", "args", "path"),
    [
        ("routing", "tomtom-routing", {"locations": [AMSTERDAM, [5.1214, 52.0907]]}, "/routing/"),
        ("traffic", "tomtom-traffic", {"bbox": [4.82, 52.33, 4.96, 52.41]}, "/traffic/services/"),
        ("search", "tomtom-fuzzy-search", SEARCH_ARGS, "/search/"),
    ],
)
def test_with_view_refetch_on_a_view_whose_host_dropped_meta_draws_and_the_second_request_says_so(
    page: Page,
    refetching_preview_server: Service,
    standin: Service,
    name: str,
    tool: str,
    args: dict,
    path: str,
) -> None:
    forget(standin.url)
    frame, drawn = open_view(page, refetching_preview_server.url, tool, args, profile="drop-meta")
    assert drawn["status"] == "ok" and drawn["reason"] == "drawn", drawn
    assert drawn["refetched"] == "1"
    assert "the server fetched it again" in frame.inner_text("#notes")
    assert page.evaluate("previewHost.viewCalls").count("tomtom-refetch-app-data") == 1
    answers = [r for r in recorded(standin.url) if r["path"].startswith(path)]
    assert len(answers) == 2, answers
    first, again = (r["user_agent"] for r in answers)
    assert "view-refetch" not in first and "view-refetch" in again, (first, again)
    shoot(page, f"profile-drop-meta-refetched-{name}")


# --- the data stays visible: markers and route ends clear of every panel ----------------------

INLINE_SIZES = [(320, 450), (800, 450)]
LAYOUT_VIEWS = [
    ("routing", "tomtom-routing", ROUTE_ARGS),
    ("search", "tomtom-fuzzy-search", SEARCH_ARGS),
    (
        "dynamic-map",
        "tomtom-dynamic-map",
        {
            "markers": [{"position": AMSTERDAM, "label": "Start", "color": "#e33"}],
            "routes": [
                {"locations": [AMSTERDAM, [4.4777, 51.9244]], "label": "To Rotterdam"},
                {"locations": [AMSTERDAM, [5.1214, 52.0907]], "label": "To Utrecht"},
            ],
            "polygons": [{"center": AMSTERDAM, "radius": 4000, "label": "Centre zone"}],
        },
    ),
    ("traffic", "tomtom-traffic", {"bbox": [4.82, 52.33, 4.96, 52.41]}),
    ("data-viz", "tomtom-data-viz", PROFILE_VIEWS[2][2]),
]
# What floats over the map, as the view lays it out (the notes only while they are over it).
PANEL_BOXES = """() => {
  const origin = document.getElementById("map").getBoundingClientRect();
  const over = [...document.querySelectorAll("#stage #title, #stage #legend, #stage #legend-fold, "
    + "#stage #notes > *, #stage #fullscreen, .maplibregl-ctrl-top-right .maplibregl-ctrl, "
    + ".maplibregl-ctrl-bottom-right .maplibregl-ctrl")];
  return over.filter((el) => !el.hidden && el.offsetWidth && el.offsetHeight).map((el) => {
    const r = el.getBoundingClientRect();
    return {name: el.id || el.className, left: r.left - origin.left, top: r.top - origin.top,
      right: r.right - origin.left, bottom: r.bottom - origin.top};
  });
}"""
MAP_SIZE = "(m => [m.clientWidth, m.clientHeight])(document.getElementById('map'))"
MAP_ORIGIN = "(r => [r.left, r.top])(document.getElementById('map').getBoundingClientRect())"
MARK_RADIUS = 6  # px around a position that must stay in sight (a pin's middle, a line's end)


@pytest.fixture
def wide_page(browser: Browser) -> Iterator[Page]:
    """A page wide enough for the preview host to give a view 800 px."""
    context = browser.new_context(viewport={"width": 1400, "height": 900})
    yield from watched(context, context.new_page())


def data_positions(page: Page, tool: str, args: dict) -> list[tuple[float, float]]:
    """The positions that must stay in sight: every point, and both ends of every line, of
    the app data the view drew (data-viz: of the caller's GeoJSON)."""
    if tool == "tomtom-data-viz":
        features = args["geojson"]["features"]
    else:
        app_data = page.evaluate("previewHost.result._meta['com.tomtom/app-data']")
        features = fitting.decode(app_data)["data"]["features"]
    positions: list[tuple[float, float]] = []
    for feature in features:
        geometry = fitting.to_geojson(feature["geometry"])
        if geometry["type"] == "Point":
            positions.append(tuple(geometry["coordinates"][:2]))
        elif geometry["type"] == "LineString":
            ends = geometry["coordinates"][0], geometry["coordinates"][-1]
            positions.extend(tuple(p[:2]) for p in ends)
    return positions


def on_screen(frame: Frame, lonlat: tuple[float, float]) -> tuple[float, float]:
    """Where the view's map puts `lonlat`, in px from its top left (MapLibre's Web Mercator of
    512 px tiles, from the camera the view reports; bearing 0)."""
    camera = json.loads(frame.evaluate("document.body.dataset.camera"))
    width, height = frame.evaluate(MAP_SIZE)
    world = 512 * 2 ** camera["zoom"]
    x, y = mercator(*lonlat)
    cx, cy = mercator(*camera["center"])
    return (x - cx) * world + width / 2, (y - cy) * world + height / 2


def covered(frame: Frame, positions: list[tuple[float, float]]) -> list[str]:
    """Every position out of the map or under a panel, in words."""
    width, height = frame.evaluate(MAP_SIZE)
    panels = frame.evaluate(PANEL_BOXES)
    problems = []
    for lonlat in positions:
        x, y = on_screen(frame, lonlat)
        r = MARK_RADIUS
        if not (r <= x <= width - r and r <= y <= height - r):
            problems.append(f"{lonlat} at ({x:.0f}, {y:.0f}) is off the {width}x{height} map")
        for p in panels:
            beside = p["right"] <= x - r or x + r <= p["left"]
            if not (beside or p["bottom"] <= y - r or y + r <= p["top"]):
                problems.append(f"{lonlat} at ({x:.0f}, {y:.0f}) is under {p['name']}")
    return problems


@pytest.mark.parametrize(("width", "height"), INLINE_SIZES, ids=lambda v: str(v))
@pytest.mark.parametrize(("name", "tool", "args"), LAYOUT_VIEWS, ids=[v[0] for v in LAYOUT_VIEWS])
def test_at_inline_sizes_no_panel_covers_a_marker_or_an_end_of_a_route(
    wide_page: Page,
    preview_server: Service,
    name: str,
    tool: str,
    args: dict,
    width: int,
    height: int,
) -> None:
    page = wide_page
    frame, drawn = open_view(
        page, preview_server.url, tool, args, width=str(width), height=str(height)
    )
    assert drawn["status"] == "ok", drawn
    assert frame.evaluate("[innerWidth, innerHeight]") == [width, height]
    if drawn.get("legend"):
        assert drawn["legend"] == "folded", "at an inline height the legend folds away"
    positions = data_positions(page, tool, args)
    assert positions, "the data has positions to check"
    assert covered(frame, positions) == []
    ARTIFACTS.mkdir(exist_ok=True)
    page.locator("#stage").screenshot(path=str(ARTIFACTS / f"view-{name}-{width}x{height}.png"))


def test_a_dynamic_maps_marker_keeps_its_colour_and_label_beside_the_stop_pin_it_shares(
    page: Page, preview_server: Service
) -> None:
    frame, drawn = open_view(page, preview_server.url, *LAYOUT_VIEWS[2][1:])
    assert drawn["status"] == "ok", drawn
    marker = frame.locator(".tt-marker")
    assert marker.inner_text() == "Start"
    dot = marker.locator(".tt-dot").evaluate("el => getComputedStyle(el).backgroundColor")
    assert dot == "rgb(238, 51, 51)"
    beside = frame.evaluate(
        """() => {
      const marker = document.querySelector(".tt-marker").getBoundingClientRect();
      const pin = [...document.querySelectorAll(".tt-pin")].find((p) => p.textContent === "A");
      const dot = document.querySelector(".tt-marker .tt-dot").getBoundingClientRect();
      const top = document.elementFromPoint(dot.left + dot.width / 2, dot.top + dot.height / 2);
      return { apart: marker.left >= pin.getBoundingClientRect().right - 2,
        dotOnTop: top.closest(".tt-marker") !== null };
    }"""
    )
    assert beside == {"apart": True, "dotOnTop": True}, "beside the pin, its dot under nothing"
    assert "Start" in frame.text_content("#legend")
    legend_dot = frame.locator("#legend .row", has_text="Start").locator(".tt-mark")
    assert "238, 51, 51" in legend_dot.evaluate("el => getComputedStyle(el).backgroundColor")


PENDING_CENTRES = """() => [...document.querySelectorAll('.tt-pin.tt-pending')].map((el) => {
  const r = el.getBoundingClientRect();
  return [r.left + r.width / 2, r.top + r.height / 2];
})"""


def test_markers_drawn_from_partial_input_sit_on_their_positions_mid_pulse_and_after_a_resize(
    page: Page, preview_server: Service
) -> None:
    frame = open_partial_route(page, preview_server.url)
    frame.wait_for_function("!document.body.dataset.moving")

    def assert_on_their_positions() -> None:
        origin = frame.evaluate(MAP_ORIGIN)
        expected = [on_screen(frame, tuple(p)) for p in ROUTE_ARGS["locations"]]
        for at in (0, 300, 600, 900):  # through the pulse: its middle is at 600 ms
            frame.evaluate(
                "t => document.getAnimations().forEach((a) => { a.pause(); a.currentTime = t; })",
                at,
            )
            seen = [(x - origin[0], y - origin[1]) for x, y in frame.evaluate(PENDING_CENTRES)]
            for (x, y), (ex, ey) in zip(seen, expected, strict=True):
                assert abs(x - ex) < 2 and abs(y - ey) < 2, (at, (x, y), (ex, ey))

    assert_on_their_positions()
    width = frame.evaluate("document.getElementById('map').clientWidth")
    page.select_option("#width", "480")  # the host narrows the frame: the map resizes
    frame.wait_for_function(f"document.getElementById('map').clientWidth !== {width}")
    frame.evaluate("new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))")
    assert_on_their_positions()


CONTROLS = "#stage button, #stage a, #legend, .maplibregl-marker, .maplibregl-ctrl"


def test_every_control_on_the_map_surface_sets_touch_action(
    page: Page, preview_server: Service
) -> None:
    frame, drawn = open_view(page, preview_server.url, *LAYOUT_VIEWS[2][1:])
    assert drawn["status"] == "ok", drawn
    frame.locator("#list [role=option]").first.click()  # a popup with its buttons
    frame.locator(".maplibregl-popup").wait_for()
    actions = frame.evaluate(
        f"""() => [...document.querySelectorAll({json.dumps(CONTROLS)})].map((el) =>
        [el.id || el.className || el.tagName, getComputedStyle(el).touchAction])"""
    )
    assert len(actions) > 8, actions
    assert [a for a in actions if a[1] == "auto"] == []


FLEET_PLACES = [[4.8897, 52.3740], [5.1214, 52.0907], [4.4777, 51.9244], [4.6462, 52.3874]]


def test_a_matrix_lists_origins_nearest_first_and_selecting_one_draws_its_links(
    page: Page, preview_server: Service
) -> None:
    frame, drawn = open_view(page, preview_server.url, "tomtom-matrix", {"origins": FLEET_PLACES})
    assert drawn["status"] == "ok", drawn
    assert drawn["view"] == "fleet"
    assert int(drawn["places"]) == 4
    assert "Travel times" in frame.inner_text("#title")
    options = frame.locator("#list [role=option]")
    assert options.count() == 4
    structured = page.evaluate("previewHost.result.structuredContent")
    assert len(structured["travelTimes"]) == 4 and structured["billedCells"] == 16
    first = options.first.locator(".tt-name").inner_text()
    frame.locator("#fleet-sort").click()  # listed by number, then nearest first again
    assert options.first.locator(".tt-name").inner_text() == "Origin 1"
    frame.locator("#fleet-sort").click()
    assert options.first.locator(".tt-name").inner_text() == first
    before = frame.evaluate(INK)
    options.first.click()
    frame.wait_for_function("document.body.dataset.selected.startsWith('origin-')")
    frame.wait_for_function(f"({INK})() > {before}")  # the origin's fastest links
    shoot(page, "fleet-matrix")


def test_a_plan_draws_each_vehicles_route_and_lists_its_stops_with_arrivals(
    page: Page, preview_server: Service
) -> None:
    window = {"start": "2026-06-24T09:00:00+02:00", "end": "2026-06-24T17:00:00+02:00"}
    args = {
        "stops": [
            {"position": p, "serviceMinutes": 10, "timeWindow": window} for p in FLEET_PLACES[1:]
        ],
        "vehicleCount": 2,
        "depot": FLEET_PLACES[0],
        "timeLimitSeconds": 1,
    }
    frame, drawn = open_view(page, preview_server.url, "tomtom-plan-routes", args)
    assert drawn["status"] == "ok", drawn
    assert drawn["view"] == "fleet"
    assert "Route plan" in frame.inner_text("#title")
    plan = page.evaluate("previewHost.result.structuredContent")
    served = sorted(s for r in plan["routes"] for s in r["stops"])
    assert served == [0, 1, 2]
    assert frame.locator("#list [role=option]").count() == 3
    assert frame.evaluate(INK) > 0.002, "the routes are drawn"
    frame.locator("#list [role=option]").first.click()
    popup = frame.locator(".maplibregl-popup-content")
    popup.wait_for()
    assert "Arrival" in popup.inner_text() and "Window" in popup.inner_text()
    shoot(page, "fleet-plan")


MIXED_ADDRESSES = ["Damrak 1, Amsterdam", "??", "Springfield", "Hoofdstraat 12", "", "Lisbon"]


def test_batch_geocoding_draws_every_located_row_and_offers_the_rows_as_csv(
    page: Page, preview_server: Service
) -> None:
    frame, drawn = open_view(
        page, preview_server.url, "tomtom-batch-geocode", {"addresses": MIXED_ADDRESSES}
    )
    assert drawn["status"] == "ok" and drawn["reason"] == "drawn", drawn
    assert (drawn["rows"], drawn["located"], drawn["attention"]) == ("6", "3", "4")
    assert drawn["items"] == "4", "the rows to check are listed"
    assert "6 rows" in frame.inner_text("#title")
    assert frame.evaluate(INK) > 0.0005, "the rows should put ink on the canvas"
    assert drawn["csvOffered"] == "1", "the preview host takes downloads"
    frame.click("#download")
    page.wait_for_function("previewHost.downloads.length === 1")
    csv = page.evaluate("previewHost.downloads[0]")
    assert csv["mimeType"] == "text/csv" and csv["uri"].endswith(".csv")
    lines = csv["text"].strip().split("\r\n")
    assert lines[0].startswith("row,input,status") and len(lines) == 7
    assert lines[2].startswith("2,??,unmatched") and lines[5].startswith("5,,empty")
    shoot(page, "batch-geocode")


@pytest.fixture(scope="module")
def slow_batches() -> Iterator[Service]:
    """A stand-in TomTom whose asynchronous batches take 6 s before they are done."""
    port = free_port()
    command = [sys.executable, "-m", "tests.standin", "--port", str(port), "--batch-base-s", "6"]
    with serving("slow-standin", command, port) as process:
        yield process


@pytest.fixture(scope="module")
def short_calls_preview_server(slow_batches: Service) -> Iterator[Service]:
    """A keyed replica on the slow stand-in whose calls last 8 s: a batch outlasts them."""
    with keyed_preview(slow_batches.url, TOOL_CALL_DEADLINE_S="8") as process:
        yield process


def test_a_batch_tomtom_is_still_working_on_shows_progress_then_draws_when_done(
    page: Page, short_calls_preview_server: Service
) -> None:
    rows = [f"Kerkstraat {i}, Amsterdam" for i in range(150)]
    started = time.perf_counter()
    _, drawn = open_view(
        page, short_calls_preview_server.url, "tomtom-batch-geocode", {"addresses": rows}
    )
    answer = json.loads(page.evaluate("previewHost.result.content[0].text"))
    assert answer["state"] == "running" and answer["job"], "the call itself ended before TomTom"
    assert drawn["status"] == "ok", drawn
    assert drawn["jobState"] == "done" and int(drawn["jobPolls"]) >= 1
    assert (drawn["rows"], drawn["located"]) == ("150", "150")
    assert "tomtom-resume-job" in page.evaluate("previewHost.viewCalls")
    assert time.perf_counter() - started >= 5, "drawn once TomTom was done, not before"
    shoot(page, "batch-geocode-resumed")


def test_a_snapped_trace_is_drawn_by_speed_limit_over_the_recorded_trace(
    page: Page, preview_server: Service
) -> None:
    fixes = [
        {
            "position": [4.85 + i * 0.0006, 52.36 + math.sin(i / 15) * 0.002],
            "timestamp": 1_714_552_200 + i * 3,
        }
        for i in range(300)
    ]
    frame, drawn = open_view(page, preview_server.url, "tomtom-snap-to-roads", {"points": fixes})
    assert drawn["status"] == "ok" and drawn["reason"] == "drawn", drawn
    assert drawn["parts"] == "1"
    legend = frame.inner_text("#legend")
    assert "GPS trace" in legend and "Limit" in legend
    assert "driven" in frame.inner_text("#title") and "of the points on roads" in frame.inner_text(
        "#title"
    )
    assert frame.evaluate(INK) > 0.002, "the road should put ink on the canvas"
    shoot(page, "snap-to-roads")
