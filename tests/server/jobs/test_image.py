"""`image: true`: a PNG of the map for hosts that show images but no views."""

from __future__ import annotations

import base64
import io
import re
import time
import tomllib
from pathlib import Path

import httpx
import numpy as np
import pytest
from PIL import Image, ImageColor

from tests.server.harness import (
    AMSTERDAM,
    BERLIN,
    LISBON,
    UTRECHT,
    WARSAW,
    Outcome,
    assert_model_text,
    tool_client,
    wire_size,
)
from tomtom_mcp_apps import widgets
from tomtom_mcp_apps.fitting.geo import mercator
from tomtom_mcp_apps.server.jobs import IMAGE_MAX_BYTES, ImageRequest, render_map
from tomtom_mcp_apps.server.jobs._basemap import DATA, natural_earth, offline_background
from tomtom_mcp_apps.server.offline import build_upstream_app
from tomtom_mcp_apps.server.offline.roads import road_like_route
from tomtom_mcp_apps.server.pool import POOL_BYTES, Placement


def picture(outcome: Outcome) -> Image.Image:
    (image,) = [c for c in outcome.result.content if c.type == "image"]
    assert image.mime_type == "image/png"
    png = base64.b64decode(image.data)
    assert len(png) <= IMAGE_MAX_BYTES
    return Image.open(io.BytesIO(png))


async def test_routing_attaches_a_png_of_the_route_beside_the_app_data() -> None:
    async with tool_client() as tools:
        outcome = await tools.call(
            "tomtom-routing", {"locations": [AMSTERDAM, UTRECHT, BERLIN], "image": True}
        )
    answer = assert_model_text(outcome, "tomtom-routing")
    assert answer["image"] == {
        "attached": "800x500 PNG",
        "basemap": "offline basemap (offline mode)",
    }
    image = picture(outcome).convert("RGB")
    assert image.size == (800, 500)
    pixels = np.asarray(image).reshape(-1, 3).astype(int)
    route_blue = np.abs(pixels - [0x1F, 0x6F, 0xEB]).sum(axis=1) < 60
    assert route_blue.mean() > 0.005, "the route is drawn in the route colour"
    assert outcome.meta["com.tomtom/app-data"]  # the view still gets its data
    assert wire_size(outcome.result) <= 120_000


async def test_an_image_is_sent_even_without_a_view_and_the_app_data_is_not() -> None:
    async with tool_client() as tools:
        outcome = await tools.call(
            "tomtom-dynamic-map",
            {
                "title": "Deliveries",
                "markers": [{"position": AMSTERDAM, "label": "Depot"}],
                "polygons": [{"center": UTRECHT, "radius": 5000, "label": "Zone"}],
                "image": True,
                "show_ui": False,
            },
        )
    answer = assert_model_text(outcome, "tomtom-dynamic-map", show_ui=False)
    assert answer["image"]["attached"] == "800x500 PNG"
    assert "com.tomtom/app-data" not in outcome.meta
    image = np.asarray(picture(outcome).convert("RGB")).reshape(-1, 3).astype(int)
    zone = np.abs(image - [0x0F, 0x9D, 0x8A]).sum(axis=1) < 60  # the views' first area colour
    assert zone.mean() > 0.001, "the area's outline is drawn"


async def test_a_long_route_image_and_fitted_app_data_share_the_budget() -> None:
    async with tool_client() as tools:
        outcome = await tools.call("tomtom-routing", {"locations": [LISBON, WARSAW], "image": True})
    answer = assert_model_text(outcome, "tomtom-routing")
    assert answer["image"]["attached"] == "800x500 PNG"
    assert wire_size(outcome.result) <= 120_000
    envelope = outcome.envelope
    assert envelope["fitted"]["original_points"] > 30_000
    assert "map" not in answer  # the view's data fitted into the room the image left


@pytest.mark.parametrize("budget", [10_000, 30_000])
async def test_under_a_small_budget_the_text_says_what_gave_way(budget: int) -> None:
    async with tool_client(budget=budget) as tools:
        outcome = await tools.call(
            "tomtom-routing", {"locations": [AMSTERDAM, BERLIN], "image": True}
        )
    answer = assert_model_text(outcome, "tomtom-routing")
    assert wire_size(outcome.result) <= budget
    images = [c for c in outcome.result.content if c.type == "image"]
    if images:
        width, _ = picture(outcome).size
        assert answer["image"]["attached"].startswith(f"{width}x")
        if "com.tomtom/app-data" not in outcome.meta:
            assert "with the image attached" in answer["map"]
    else:
        assert answer["image"].startswith("not attached: ")
        assert "budget" in answer["image"]


def test_a_static_map_is_cropped_to_the_drawn_frame_and_credited() -> None:
    tint = (226, 239, 218)
    background = Image.new("RGB", (1200, 750), tint)
    out = io.BytesIO()
    background.save(out, format="PNG")
    line = road_like_route([AMSTERDAM, UTRECHT], seed=3)
    data = {
        "type": "FeatureCollection",
        "bbox": [*line.min(axis=0).tolist(), *line.max(axis=0).tolist()],
        "features": [
            {
                "type": "Feature",
                "geometry": {"type": "LineString", "coordinates": line},
                "properties": {"kind": "route", "sections": [], "legs": []},
            }
        ],
    }
    frame = (4.0, 51.5, 6.0, 52.8)
    keyed = render_map(data, ImageRequest(basemap=out.getvalue(), basemap_frame=frame))
    assert keyed.basemap == "TomTom static map"
    corner = Image.open(io.BytesIO(keyed.png)).convert("RGB").getpixel((790, 5))
    assert sum(abs(a - b) for a, b in zip(corner, tint, strict=True)) < 20
    beyond = render_map(
        data, ImageRequest(basemap=out.getvalue(), basemap_frame=(5, 52, 5.01, 52.01))
    )
    assert beyond.basemap.startswith("offline basemap (the answer reached beyond")


def test_an_image_job_always_runs_in_the_pool_however_small_its_data() -> None:
    placement = Placement(pool=object(), inline_points=12_000)  # type: ignore[arg-type]
    assert placement.for_image(None) == POOL_BYTES
    assert placement.in_pool(placement.for_image(None))
    assert placement.for_image(10 * POOL_BYTES) == 10 * POOL_BYTES


class _NoStaticMaps(httpx.AsyncBaseTransport):
    """The offline upstream, except that the key is not entitled to static maps (403)."""

    def __init__(self) -> None:
        self._upstream = httpx.ASGITransport(app=build_upstream_app())

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        if request.url.path == "/map/1/staticimage":
            body = b'{"detailedError": {"code": "Forbidden", "message": "Not entitled"}}'
            return httpx.Response(403, content=body, headers={"content-type": "application/json"})
        return await self._upstream.handle_async_request(request)


async def test_with_a_key_the_image_is_drawn_on_tomtoms_static_map() -> None:
    async with tool_client(key="a-key") as tools:
        outcome = await tools.call(
            "tomtom-routing", {"locations": [AMSTERDAM, UTRECHT], "image": True}
        )
    assert assert_model_text(outcome, "tomtom-routing")["image"]["basemap"] == "TomTom static map"
    corner = picture(outcome).convert("RGB").getpixel((790, 5))
    assert sum(abs(a - b) for a, b in zip(corner, (226, 239, 218), strict=True)) < 30


async def test_a_refused_static_map_leaves_the_image_on_the_offline_basemap_saying_why() -> None:
    async with tool_client(key="a-key", transport=_NoStaticMaps()) as tools:
        outcome = await tools.call(
            "tomtom-routing", {"locations": [AMSTERDAM, UTRECHT], "image": True}
        )
    answer = assert_model_text(outcome, "tomtom-routing")
    assert answer["image"]["attached"] == "800x500 PNG"
    assert answer["image"]["basemap"].startswith("offline basemap (TomTom refused the API key")
    assert picture(outcome).size == (800, 500)


# --- the offline basemap: the views' Natural Earth data, drawn by Pillow ----------------------


def _light_theme() -> dict[str, str]:
    """The views' light basemap colours, read from widgets/basemap/themes.js."""
    source = (Path(widgets.__file__).parent / "basemap" / "themes.js").read_text()
    light = re.search(r"light: \{([^}]*)\}", source)
    assert light is not None
    return dict(re.findall(r'(\w+): "(#[0-9a-f]{6})"', light.group(1)))


def _pixel_at(image: Image.Image, frame: tuple[float, ...], lon: float, lat: float) -> tuple:
    x0, y0 = mercator(frame[0], frame[3])
    x1, y1 = mercator(frame[2], frame[1])
    x, y = mercator(lon, lat)
    return image.getpixel(
        (int((x - x0) / (x1 - x0) * image.width), int((y - y0) / (y1 - y0) * image.height))
    )


def test_the_offline_basemap_is_natural_earth_in_the_views_light_colours() -> None:
    theme = _light_theme()
    basemap = natural_earth()
    assert basemap is natural_earth()  # read once per process
    for name in ("water", "land", "coast", "border"):
        assert ImageColor.getrgb(theme[name]) == getattr(basemap, name), name
    frame = (-12.0, 35.0, 26.0, 56.0)
    image = offline_background(800, 500, frame)
    water, land = ImageColor.getrgb(theme["water"]), ImageColor.getrgb(theme["land"])
    assert _pixel_at(image, frame, 3.0, 55.0) == water  # North Sea
    assert _pixel_at(image, frame, 5.0, 40.0) == water  # Mediterranean
    assert _pixel_at(image, frame, 2.35, 47.0) == land  # France
    assert _pixel_at(image, frame, 10.0, 51.0) == land  # Germany
    colours = dict((rgb, n) for n, rgb in image.getcolors(64) or [])
    assert colours.get(ImageColor.getrgb(theme["border"]), 0) > 500  # country borders
    assert colours.get(ImageColor.getrgb(theme["coast"]), 0) > 500


def test_no_basemap_edge_spans_the_world_and_each_side_of_the_antimeridian_has_its_land() -> None:
    world = (-180.0, -80.0, 180.0, 80.0)
    image = offline_background(800, 500, world)
    water = ImageColor.getrgb(_light_theme()["water"])
    for lon, lat in ((0, 69), (-20, 69), (-170, 69.5), (-150, -16.5), (60, -16.5)):
        assert _pixel_at(image, world, lon, lat) == water, (lon, lat)
    east = (177.0, -19.5, 179.99, -15.5)  # Fiji, west of the antimeridian...
    west = (-180.0, -19.5, -178.0, -15.5)  # ...and its islands east of it
    land = ImageColor.getrgb(_light_theme()["land"])
    for frame in (east, west):
        counts = dict((rgb, n) for n, rgb in offline_background(400, 400, frame).getcolors(64))
        assert counts.get(land, 0) > 100, frame


@pytest.mark.parametrize(
    "frame",
    [(4.889, 52.372, 4.8905, 52.3728), (4.8, 52.33, 4.98, 52.42), (-180.0, -85.0, 180.0, 85.0)],
)
def test_the_offline_basemap_draws_any_zoom_quickly(frame: tuple[float, ...]) -> None:
    offline_background(800, 500, frame)  # the first call reads the file
    started = time.perf_counter()
    image = offline_background(800, 500, frame)
    assert time.perf_counter() - started < 1.0  # about 10 ms on a quiet machine
    assert image.size == (800, 500)


def test_the_basemap_file_is_packaged_with_the_server() -> None:
    project = tomllib.loads((Path(widgets.__file__).parents[1] / "pyproject.toml").read_text())
    assert (
        "jobs/basemap.json"
        in project["tool"]["setuptools"]["package-data"]["tomtom_mcp_apps.server"]
    )
    assert DATA.is_file() and DATA.stat().st_size < 500_000
