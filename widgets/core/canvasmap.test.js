import test from "node:test";
import assert from "node:assert/strict";
import { createCanvasMap, labelBox, placeLabel, prepare, project, unproject } from "./canvasmap.js";
import { canvasPage } from "../testing/fakes.js";

const point = (coordinates, properties = {}) => ({ type: "Feature", properties, geometry: { type: "Point", coordinates } });
const collection = (...features) => ({ type: "FeatureCollection", features });

/** A canvas map on a fresh page, handed to `fn`; the page's globals are put back after. */
function onPage(style, fn, size) {
  const page = canvasPage(...(size || []));
  try {
    const map = createCanvasMap(page.el, style, { fallback: "map engine blocked by the host's CSP: worker-src", attribution: "Natural Earth" });
    return fn(map, page);
  } finally {
    page.restore();
  }
}

const calls = (map, name) => map.getCanvas().getContext("2d").calls.filter((c) => c[0] === name);

test("positions go where MapLibre's Web Mercator of 512 px tiles puts them", () => {
  assert.deepEqual(project([0, 0]), [0.5, 0.5]);
  assert.deepEqual(project([-180, 0]), [0, 0.5]);
  const [lon, lat] = unproject(project([4.8897, 52.374]));
  assert.ok(Math.abs(lon - 4.8897) < 1e-9 && Math.abs(lat - 52.374) < 1e-9);
  onPage({ sources: {}, layers: [] }, (map) => {
    map.jumpTo({ center: [4.8897, 52.374], zoom: 10 });
    const [x] = project([4.9897, 52.374]);
    const at = map.project([4.9897, 52.374]);
    assert.ok(Math.abs(at.x - (400 + (x - project([4.8897, 52.374])[0]) * 512 * 2 ** 10)) < 1e-6);
    assert.equal(at.y, 200);
    map.fitBounds([[4, 52], [5, 53]], { padding: 20, maxZoom: 16 });
    const [w, n] = [map.project([4, 53]), map.project([5, 52])];
    assert.ok(Math.abs(Math.min(w.x, 800 - n.x, w.y, 400 - n.y) - 20) < 1e-6, "the box just fits within the padding");
  });
});

test("geometries of every kind become world-unit parts with their box; collections are flattened", () => {
  const [line] = prepare({ type: "MultiLineString", coordinates: [[[0, 0], [90, 0]], [[-90, 0], [0, 0]]] });
  assert.equal(line.type, "LineString");
  assert.deepEqual(line.bbox, [0.25, 0.5, 0.75, 0.5]);
  const parts = prepare({ type: "GeometryCollection", geometries: [{ type: "Point", coordinates: [0, 0] }, { type: "Polygon", coordinates: [[[0, 0], [1, 0], [1, 1], [0, 0]]] }] });
  assert.deepEqual(parts.map((p) => p.type), ["Point", "Polygon"]);
  assert.deepEqual(prepare({ type: "Unknown" }), []);
});

test("a label takes the first of its places that keeps clear of what is already there", () => {
  const pin = labelBox(100, 100, 24, 24, "center");
  const candidates = [["top", [0, 5]], ["top", [0, 17]], ["left", [17, 0]]];
  const box = placeLabel(100, 100, 60, 14, candidates, [pin]);
  assert.deepEqual(box, { x0: 70, y0: 117, x1: 130, y1: 131 }, "under the pin, not under the dot it covers");
  assert.equal(placeLabel(100, 100, 60, 14, [["center", [0, 0]]], [pin]), null);
});

test("the style is drawn layer by layer: background, fills, lines, circles and text, with their paint", () => {
  const style = {
    sources: { land: { type: "geojson", data: { type: "Polygon", coordinates: [[[-10, 40], [10, 40], [10, 60], [-10, 60], [-10, 40]]] } }, cities: { type: "geojson", data: collection(point([2.35, 48.86], { name: "Paris" })) } },
    layers: [
      { id: "water", type: "background", paint: { "background-color": "#a9c8dc" } },
      { id: "land", type: "fill", source: "land", paint: { "fill-color": "#f2efe9" } },
      { id: "coast", type: "line", source: "land", paint: { "line-color": "#8fb0c6", "line-width": 2, "line-dasharray": [3, 2] } },
      { id: "dots", type: "circle", source: "cities", paint: { "circle-radius": 3, "circle-color": "#59636e" } },
      { id: "names", type: "symbol", source: "cities", layout: { "text-field": ["get", "name"], "text-size": 12 }, paint: { "text-color": "#333a44" } },
    ],
  };
  onPage(style, (map, page) => {
    let loaded = false;
    map.on("load", () => (loaded = true));
    map.jumpTo({ center: [2.35, 48.86], zoom: 4 });
    page.frames();
    assert.ok(loaded, "load fires after the first frame");
    assert.deepEqual(calls(map, "fillRect")[0].at(-1).fillStyle, "#a9c8dc");
    assert.ok(calls(map, "fill").some((c) => c[1] === "evenodd" && c.at(-1).fillStyle === "#f2efe9"));
    assert.deepEqual(calls(map, "setLineDash").map((c) => c[1]).find((d) => d.length), [6, 4], "dashes in line widths");
    assert.equal(calls(map, "arc").length, 1);
    assert.deepEqual(calls(map, "fillText").map((c) => [c[1], c.at(-1).fillStyle]), [["Paris", "#333a44"]]);
    assert.match(page.el.querySelector(".maplibregl-ctrl-attrib").textContent, /Natural Earth/);
    assert.equal(map.fallback, "map engine blocked by the host's CSP: worker-src");
  });
});

test("a city label steps aside from an obstacle on its city, as MapLibre's collision does", () => {
  const style = {
    sources: { cities: { type: "geojson", data: collection(point([4.9, 52.37], { name: "Amsterdam" })) }, blocks: { type: "geojson", data: collection(point([4.9, 52.37], { s: 24, o: [0, 0] })) } },
    layers: [
      { id: "names", type: "symbol", source: "cities", layout: { "text-field": ["get", "name"], "text-size": 10, "text-variable-anchor-offset": ["top", [0, 0.4], "top", [0, 1.4]] } },
      { id: "blocks", type: "symbol", source: "blocks", layout: { "icon-image": "tt-box", "icon-size": ["get", "s"], "icon-offset": ["get", "o"], "icon-allow-overlap": true } },
    ],
  };
  onPage(style, (map, page) => {
    map.jumpTo({ center: [4.9, 52.37], zoom: 8 });
    page.frames();
    const [[, text, x, y]] = calls(map, "fillText");
    assert.equal(text, "Amsterdam");
    assert.equal(x, 400);
    assert.ok(y - 6 >= 200 + 12, `the label's top (${y - 6}) is below the 24 px obstacle on its dot`);
    map.removeLayer("blocks");
    page.frames();
    assert.ok(calls(map, "fillText").at(-1)[3] - 6 < 212, "without the obstacle it sits just under its dot");
  });
});

test("a click on a drawn feature reaches its layer's handler with the feature; a drag pans the camera", () => {
  const style = { sources: { pts: { type: "geojson", data: collection(point([0, 0], { item: "place-0" })) } }, layers: [{ id: "points", type: "circle", source: "pts", paint: { "circle-radius": 8 } }] };
  onPage(style, (map, page) => {
    map.jumpTo({ center: [0, 0], zoom: 3 });
    page.frames();
    const picked = [];
    map.on("click", "points", (e) => picked.push(e.features[0].properties.item));
    const canvas = map.getCanvas();
    const press = (type, x, y) => canvas.dispatchEvent(Object.assign(new page.document.defaultView.Event(type), { pointerId: 1, clientX: x, clientY: y }));
    press("pointerdown", 403, 198);
    press("pointerup", 403, 198);
    press("pointerdown", 600, 100);
    press("pointerup", 600, 100);
    assert.deepEqual(picked, ["place-0"], "one click on the point, none beside it");
    const landed = [];
    map.on("moveend", () => landed.push(map.getZoom()));
    map.on("click", "points", () => map.easeTo({ center: [0, 0], zoom: 5, duration: 100 }));
    press("pointerdown", 400, 200);
    press("pointerup", 400, 200);
    assert.deepEqual(landed, [], "a click that starts a flight does not end it");
    const t0 = performance.now();
    while (performance.now() - t0 < 120);
    page.frames();
    assert.deepEqual(landed, [5], "the flight ends where it was going, once");
    const moves = [];
    map.on("moveend", () => moves.push(map.getCenter()));
    press("pointerdown", 400, 200);
    press("pointermove", 300, 200);
    press("pointerup", 300, 200);
    assert.equal(moves.length, 1);
    assert.ok(moves[0].lng > 0, "dragging left moves the map east");
    assert.deepEqual(picked, ["place-0", "place-0"], "a drag is no click");
  });
});

test("a layer MapLibre would refuse is an error event and not drawn; a good one is taken", () => {
  onPage({ sources: { d: { type: "geojson", data: collection() } }, layers: [] }, (map) => {
    const errors = [];
    map.on("error", (e) => errors.push(e.error.message));
    map.addLayer({ id: "a", type: "line", source: "d", paint: { "line-width": "very wide" } });
    map.addLayer({ id: "b", type: "circle", source: "d", paint: { "line-color": "#000" } });
    map.addLayer({ id: "c", type: "raster-dem", source: "d" });
    map.addLayer({ id: "e", type: "line", source: "nowhere" });
    map.addLayer({ id: "f", type: "symbol", source: "d", paint: { "text-color": "#000" } });
    assert.deepEqual(errors, [
      'layers.a.paint.line-width: number expected, string found',
      'layers.b.paint.line-color: unknown property "line-color"',
      'layers.c: unknown type "raster-dem"',
      'layers.e: source "nowhere" not found',
    ]);
    assert.deepEqual(map.getStyle().layers.map((l) => l.id), ["f"]);
  });
});

test("markers and popups sit on their positions and move with the camera; a popup's close says so", () => {
  onPage({ sources: {}, layers: [] }, (map, page) => {
    map.jumpTo({ center: [0, 0], zoom: 2 });
    const pin = page.document.createElement("div");
    const marker = map.addMarker(pin, [0, 0], { anchor: "left", offset: [-8, 0] });
    assert.equal(pin.style.transform, "translate(392px,200px) translate(0%,-50%)");
    map.jumpTo({ center: [10, 0], zoom: 2 });
    page.frames();
    assert.match(pin.style.transform, /^translate\(3\d\d\.\d+px,200px\)/, "the map moved east, the marker west");
    const closed = [];
    const popup = map.addPopup(page.document.createElement("div"), [10, 0]).on("close", () => closed.push(1));
    popup.getElement().querySelector(".maplibregl-popup-close-button").dispatchEvent(new page.document.defaultView.Event("click"));
    assert.deepEqual(closed, [1]);
    marker.remove();
    assert.equal(page.el.contains(pin), false);
  });
});
