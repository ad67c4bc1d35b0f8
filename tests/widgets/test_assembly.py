"""Each view is one self-contained document built from the current sources; CSP: tiles only."""

from __future__ import annotations

import json
import re
import shutil
import subprocess

import pytest

from tests.processes import ROOT
from tomtom_mcp_apps import widgets
from tomtom_mcp_apps.widgets import _document

WIDGETS = ROOT / "widgets"


def test_there_are_five_views_with_the_uris_the_tools_link_to() -> None:
    views = widgets.views()
    assert [v.uri for v in views] == [
        widgets.MAP_URI,
        widgets.DATA_VIZ_URI,
        widgets.TRAFFIC_URI,
        widgets.FLEET_URI,
        widgets.BATCH_URI,
    ]
    assert len({v.name for v in views}) == 5
    assert all(v.title and v.description for v in views)


@pytest.mark.parametrize("view", widgets.views(), ids=lambda v: v.name)
def test_a_view_loads_nothing_from_outside_its_document(view: widgets.View) -> None:
    html = view.html
    assert html.startswith("<!doctype html>")
    assert not re.search(r"<script[^>]+src=", html), "scripts must be inline"
    assert not re.search(r"<link[^>]+stylesheet", html), "styles must be inline"
    assert not re.search(r"https?://[^\"'\s]*\.(js|css|woff2?|pbf)\b", html), "no asset from a CDN"
    assert "{{" not in html, "every template slot is filled"
    assert html.count("<script>") == 1 and html.count("</script>") == 1, "one inline bundle"


def test_the_csp_names_exactly_the_tiles_origin_given_or_nothing() -> None:
    for view in widgets.views(tiles_origin="https://tiles.example.test"):
        assert view.connect_domains == ("https://tiles.example.test",)
        assert view.resource_domains == (), "views fetch their tiles; they load nothing by URL"
    assert all(v.connect_domains == v.resource_domains == () for v in widgets.views())


def test_an_earlier_uri_of_a_view_finds_its_current_build_and_others_find_none() -> None:
    assert widgets.view_for_uri("ui://tomtom/map.html").uri == widgets.MAP_URI
    assert widgets.view_for_uri("ui://tomtom/data-viz-00ff.html").uri == widgets.DATA_VIZ_URI
    for uri in ("ui://tomtom/map-XYZ.html", "ui://other/map.html", "ui://tomtom/map.html?x"):
        assert widgets.view_for_uri(uri) is None


def test_the_preview_page_and_its_sandbox_are_built_documents_too() -> None:
    page = widgets.preview_html()
    assert "AppBridge" in page or "sandbox-resource-ready" in page
    assert not re.search(r"<script[^>]+src=", page)
    assert "{{" not in page
    assert "sandbox-proxy-ready" in widgets.preview_sandbox_html()


def test_a_missing_build_says_how_to_make_it(tmp_path, monkeypatch) -> None:
    monkeypatch.setattr(_document, "DIST", tmp_path)
    _document.built.cache_clear()
    try:
        with pytest.raises(widgets.MissingBuild, match=r"npm ci && npm run build"):
            _document.built("map.html")
    finally:
        _document.built.cache_clear()


def test_every_npm_dependency_is_pinned_exactly_and_locked() -> None:
    versions = widgets.pinned_versions()
    assert all(re.fullmatch(r"\d+\.\d+\.\d+", v) for v in versions.values()), versions
    lock = json.loads((WIDGETS / "package-lock.json").read_text())
    for name, version in versions.items():
        assert lock["packages"][f"node_modules/{name}"]["version"] == version, name
    assert versions["@modelcontextprotocol/ext-apps"] == "2.0.4"


def test_the_committed_views_are_the_build_of_the_current_sources() -> None:
    node = shutil.which("node")
    assert node, "Node.js 20+ must be on PATH to check the built views"
    if not (WIDGETS / "node_modules" / "esbuild").is_dir():
        pytest.fail("widgets/node_modules is missing: scripts/install runs `npm ci` in widgets/")
    done = subprocess.run(
        [node, "build.mjs", "--check"],
        cwd=WIDGETS,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:] + done.stdout[-1000:]
