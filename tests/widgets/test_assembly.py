"""Each view is one self-contained document, with a CSP that names only the tiles origin,
under a `ui://` URI versioned by its content."""

from __future__ import annotations

import json
import re

import pytest

import widgets
from widgets import _document


def test_there_are_three_views_with_the_uris_the_tools_link_to() -> None:
    views = widgets.views()
    assert [v.uri for v in views] == [widgets.MAP_URI, widgets.DATA_VIZ_URI, widgets.TRAFFIC_URI]
    assert len({v.name for v in views}) == 3
    assert all(v.title and v.description for v in views)


@pytest.mark.parametrize("view", widgets.views(), ids=lambda v: v.name)
def test_a_view_loads_nothing_from_outside_its_document(view: widgets.View) -> None:
    html = view.html
    assert html.startswith("<!doctype html>")
    assert not re.search(r"<script[^>]+src=", html), "scripts must be inline"
    assert not re.search(r"<link[^>]+stylesheet", html), "styles must be inline"
    assert "{{" not in html, "every template slot is filled"
    for needle in ("maplibregl", "McpApps", "widgets/core/envelope.js", "widgets/core/e5.js"):
        assert needle in html


def test_the_csp_names_exactly_the_tiles_origin_given_or_nothing() -> None:
    for view in widgets.views(tiles_origin="https://tiles.example.test"):
        assert view.connect_domains == ("https://tiles.example.test",)
        assert view.resource_domains == ("https://tiles.example.test",)
    assert all(v.connect_domains == v.resource_domains == () for v in widgets.views())


def test_an_earlier_uri_of_a_view_finds_its_current_build_and_others_find_none() -> None:
    assert widgets.view_for_uri("ui://tomtom/map.html").uri == widgets.MAP_URI
    assert widgets.view_for_uri("ui://tomtom/data-viz-00ff.html").uri == widgets.DATA_VIZ_URI
    for uri in ("ui://tomtom/map-XYZ.html", "ui://other/map.html", "ui://tomtom/map.html?x"):
        assert widgets.view_for_uri(uri) is None


def test_the_preview_page_inlines_the_host_bundle_and_its_script() -> None:
    page = widgets.preview_html()
    assert "McpHost" in page and "AppBridge" in page
    assert "widgets/preview/preview.js" in page
    assert not re.search(r"<script[^>]+src=", page)
    assert "{{" not in page


def test_a_source_that_would_close_its_inline_tag_is_refused(tmp_path, monkeypatch) -> None:
    (tmp_path / "bad.js").write_text('const s = "</script>";')
    monkeypatch.setattr(_document, "_ROOT", tmp_path)
    with pytest.raises(_document.AssemblyError, match=r"widgets/bad.js contains </script"):
        _document._inline("script", "bad.js")


def test_the_vendored_versions_match_the_pins_of_the_refresh_script() -> None:
    script = (_document._ROOT / "vendor" / "refresh.sh").read_text()
    pins = dict(re.findall(r"^([A-Z_]+)=([0-9.]+)", script, re.MULTILINE))
    versions = widgets.pinned_versions()
    assert versions["@modelcontextprotocol/ext-apps"] == pins["EXT_APPS"]
    assert versions["@modelcontextprotocol/client"] == pins["MCP_CLIENT"]
    assert versions["maplibre-gl"] == pins["MAPLIBRE"]
    bundle = (_document._ROOT / "vendor" / "maplibre-gl.js").read_text()[:400]
    assert f"v{pins['MAPLIBRE']}" in bundle, json.dumps(bundle[:200])
