import test from "node:test";
import assert from "node:assert/strict";
import { BASEMAP_MAX_ZOOM, ENGINE_WAIT_MS, TILE_WAIT_MS, addRaster, createMap, casingColor, contextBox, createScene, dashedLines, describe, fit, flyTo, markIdle, padFor, refreshRaster, restoreCamera, selectOnClick, trackCamera } from "./map.js";
import { createStatus } from "./status.js";
import { basemapStyle } from "../basemap/basemap.js";
import { createLocale } from "./i18n.js";
import { canvasPage, fakeBody, fakeDocument, fakeMap, fakeMarker } from "../testing/fakes.js";

const { t } = createLocale("en-US", "UTC");
const statusOf = () => createStatus(fakeBody());
const config = (tiles, more = {}) => ({ tiles, offline: false, reason: "", expiresIn: 0, ...more });

/** Run `fn` with `document` parsed from `html` (node has none; the helpers read panels from it). */
function withDocument(html, fn) {
  globalThis.document = fakeDocument(html).document;
  try {
    return fn(globalThis.document);
  } finally {
    delete globalThis.document;
  }
}

test("with no tile address the basemap stays alone and the view is told why", () => {
  const failed = [];
  const onFail = (...args) => failed.push(args);
  const status = statusOf();
  assert.equal(addRaster(fakeMap(), config({}, { offline: true }), ["basemap"], { onFail, t, status }), false);
  assert.equal(addRaster(fakeMap(), config({}, { offline: true }), ["traffic_flow"], { onFail, t, status }), false);
  assert.equal(addRaster(fakeMap(), { tiles: {}, error: "boom" }, ["basemap"], { onFail, t, status }), false);
  assert.deepEqual(failed, [
    ["Offline map (Natural Earth): no TomTom key, so no street tiles.", "none"],
    [t("noLiveTraffic"), "none"],
    ["No TomTom tiles: boom.", "none"],
  ]);
  assert.equal(status.state.tiles, undefined);
});

test("tiles the server serves become raster layers, requested; the first failing tile is reported with its HTTP status", () => {
  const map = fakeMap();
  const failed = [];
  const status = statusOf();
  const added = addRaster(map, config({ basemap: "https://x/tiles/basemap/{z}/{x}/{y}.png?t=1" }), ["basemap", "basemap_night"], { onFail: (...a) => failed.push(a), t, status });
  assert.equal(added, true);
  assert.deepEqual(map.sources.get("tiles-basemap").tiles, ["https://x/tiles/basemap/{z}/{x}/{y}.png?t=1"]);
  assert.deepEqual([...map.layers.keys()], ["tiles-basemap"]);
  assert.equal(status.state.tiles, "requested");
  map.emit("error", { sourceId: "data", error: { status: 500 } });
  map.emit("error", { sourceId: "tiles-basemap", error: { status: 429 } });
  map.emit("error", { sourceId: "tiles-basemap", error: { status: 500 } });
  assert.deepEqual(failed, [[`${t("tilesFailed")} (HTTP 429)`, "failed"]]);
});

test("the tile token is renewed at 80% of its life and the fresh addresses swapped in, counted", async (ctx) => {
  ctx.mock.timers.enable({ apis: ["setTimeout"] });
  const map = fakeMap();
  const status = statusOf();
  let asked = 0;
  const renew = async () => config({ basemap: `https://x/b?t=${++asked + 1}` }, { expiresIn: 100, renew });
  addRaster(map, config({ basemap: "https://x/b?t=1" }, { expiresIn: 100, renew }), ["basemap"], { onFail: () => {}, t, status });
  ctx.mock.timers.tick(79_999);
  assert.equal(asked, 0);
  ctx.mock.timers.tick(1);
  await new Promise(setImmediate);
  assert.deepEqual(map.sources.get("tiles-basemap").tiles, ["https://x/b?t=2"]);
  assert.equal(status.state.tilesRenewed, 1);
  ctx.mock.timers.tick(80_000);
  await new Promise(setImmediate);
  assert.equal(status.state.tilesRenewed, 2);
  map.emit("remove");
  ctx.mock.timers.tick(80_000);
  await new Promise(setImmediate);
  assert.equal(asked, 2, "a removed map renews nothing");
});

test("refreshing live tiles busts the cache of raster sources only, replacing its own earlier buster", () => {
  const map = fakeMap();
  map.addSource("tiles-traffic_flow", { type: "raster", tiles: ["https://x/f/{z}?t=1&_=5"] });
  map.addSource("data", { type: "geojson" });
  assert.equal(refreshRaster(map), 1);
  assert.match(map.sources.get("tiles-traffic_flow").tiles[0], /^https:\/\/x\/f\/\{z\}\?t=1&_=\d{13}$/);
});

test("a scene shows, hides and clears what was drawn through it, leaving the rest of the map", () => {
  const map = fakeMap();
  map.addSource("tiles-basemap", { type: "raster" });
  const scene = createScene(map, fakeMarker);
  scene.source("routes", []);
  scene.layer({ id: "route-line", type: "line", source: "routes" }, "routes");
  map.addLayer({ id: "caller", type: "circle", source: "routes" });
  scene.adopt("caller", "layer-0");
  scene.marker({ className: "tt-pin", text: "A" }, [1, 2], { group: "routes" });
  scene.on("click", "route-line", () => {});
  scene.setVisible("routes", false);
  assert.equal(map.layers.get("route-line").layout.visibility, "none");
  assert.equal(map.layers.get("caller").layout.visibility, undefined);
  assert.equal(map.markers[0].element.style.display, "none");
  scene.setVisible("routes", true);
  assert.equal(map.markers[0].element.style.display, "");
  scene.clear();
  assert.deepEqual([...map.sources.keys()], ["tiles-basemap"]);
  assert.deepEqual([...map.layers.keys()], []);
  assert.equal(map.handlers.length, 0);
  assert.ok(map.markers[0].removed);
});

test("markers and circles are obstacles the basemap's city labels step aside from", async () => {
  const map = fakeMap();
  const placed = (m, d, lngLat) => ({ getElement: () => ({ style: {}, offsetWidth: d.text.length * 10, offsetHeight: 20 }), remove() {}, lngLat });
  const scene = createScene(map, placed);
  scene.source("points", [{ type: "Feature", properties: { kind: "result" }, geometry: { type: "Point", coordinates: [4.9, 52.37] } }]);
  scene.layer({ id: "points", type: "circle", source: "points", paint: { "circle-radius": ["case", ["==", ["get", "kind"], "result"], 10, 7], "circle-stroke-width": 2 } });
  scene.marker({ className: "tt-marker", text: "Start" }, [4.3, 52.1], { anchor: "left", offset: [-8, 0] });
  await Promise.resolve();
  const layer = map.layers.get("tt-obstacles");
  assert.equal(layer.type, "symbol");
  assert.equal(layer.layout["icon-allow-overlap"], true);
  assert.equal(layer.paint["icon-opacity"], 0);
  const squares = map.sources.get("tt-obstacles").data.features.map((f) => [f.geometry.coordinates, f.properties.s, f.properties.o]);
  assert.deepEqual(squares, [
    [[4.9, 52.37], 24, [0, 0]], // the result's circle, its stroke included
    [[4.3, 52.1], 20, [0.1, 0]], // "Start": a 50 x 20 chip from 8 px left of its position, in three squares
    [[4.3, 52.1], 20, [1.1, 0]],
    [[4.3, 52.1], 20, [1.6, 0]],
  ]);
  scene.clear();
  assert.equal(map.sources.has("tt-obstacles"), false);
  const labels = basemapStyle("light").layers.find((l) => l.id === "ne-city-labels").layout;
  assert.ok(labels["text-variable-anchor-offset"].length > 2, "a city label has other places to go than under its dot");
});

test("dashed lines are one layer per dash pattern, filtered by the feature's dash", () => {
  const map = fakeMap();
  dashedLines(createScene(map, fakeMarker), "sections", "sections", "sections", 3, ["==", ["get", "route"], 0]);
  assert.deepEqual([...map.layers.keys()], ["sections-solid", "sections-dash", "sections-dot", "sections-long"]);
  assert.deepEqual(map.layers.get("sections-dot").filter, ["all", ["==", ["get", "dash"], "dot"], ["==", ["get", "route"], 0]]);
  assert.deepEqual(map.layers.get("sections-dash").paint["line-dasharray"], [2, 1.2]);
  assert.equal("line-dasharray" in map.layers.get("sections-solid").paint, false);
});

test("a click on a feature selects its item, and the pointer says so while over it", () => {
  const map = fakeMap();
  const picked = [];
  selectOnClick(createScene(map, fakeMarker), "points", (id) => picked.push(id));
  map.emit("mouseenter", {}, "points");
  assert.equal(map.getCanvas().style.cursor, "pointer");
  map.emit("click", { features: [{ properties: { item: "place-3" } }] }, "points");
  map.emit("click", { features: [] }, "points");
  map.emit("mouseleave", {}, "points");
  assert.deepEqual(picked, ["place-3"]);
  assert.equal(map.getCanvas().style.cursor, "");
});

test("a click selects by the property the view names: data-viz tags the caller's features apart from their own", () => {
  const map = fakeMap();
  const picked = [];
  selectOnClick(createScene(map, fakeMarker), "layer-0", (id) => picked.push(id), "__tt_item");
  map.emit("click", { features: [{ properties: { item: "the caller's own", __tt_item: "feature-7" } }] }, "layer-0");
  assert.deepEqual(picked, ["feature-7"]);
});

test("idle is marked once the data sources are loaded and the camera rests, not before", () => {
  const map = fakeMap();
  const status = statusOf();
  let loaded = false;
  map.isSourceLoaded = () => loaded;
  map.addSource("points", { type: "geojson" });
  status.set({ idle: true });
  markIdle(map, status);
  assert.equal(status.state.idle, false);
  map.emit("render");
  map.emit("render");
  assert.equal(status.state.idle, false);
  loaded = true;
  map.emit("render");
  map.emit("render");
  assert.equal(status.state.idle, true);
  assert.equal(map.handlers.filter((h) => h.type === "render").length, 0);
});

test("the camera is in the status from the start, moving while in flight, and saved where it lands", () => {
  const map = fakeMap();
  const status = statusOf();
  const saved = [];
  trackCamera(map, status, (camera) => saved.push(camera));
  assert.deepEqual(status.state.camera, { center: [0, 20], zoom: 1, bearing: 0 });
  map.emit("movestart");
  assert.equal(status.state.moving, true);
  Object.assign(map.camera, { center: [4.1234567, 52.7654321], zoom: 12.34567, bearing: 10.04 });
  map.emit("moveend");
  const landed = { center: [4.123457, 52.765432], zoom: 12.346, bearing: 10 };
  assert.equal(status.state.moving, false);
  assert.deepEqual(status.state.camera, landed);
  assert.deepEqual(saved, [landed]);
});

test("a stored camera is put back only when it is whole", () => {
  const map = fakeMap();
  assert.equal(restoreCamera(map, { center: [5, 52] }), false);
  assert.equal(restoreCamera(map, null), false);
  assert.equal(restoreCamera(map, { center: [5, 52], zoom: 9 }), true);
  assert.deepEqual(map.camera, { center: [5, 52], zoom: 9, bearing: 0 });
});

/** What `fit` asks of a map with tiles (`tiles`) or the offline basemap alone, for each box. */
function fitted(boxes, { tiles }) {
  const map = fakeMap();
  const out = [];
  if (tiles) map.addSource("tiles-basemap", { type: "raster" });
  map.getContainer = () => ({ clientWidth: 800, clientHeight: 400 });
  map.fitBounds = (box, options) => out.push([box, options]);
  withDocument('<div id="title" hidden></div>', () => boxes.forEach(([box, padding]) => fit(map, box, padding)));
  return out;
}

test("fitting pads the frame and caps the zoom, at street level for a single point over tiles", () => {
  assert.deepEqual(fitted([[[4, 52, 5, 53]], [[4.9, 52.37, 4.9, 52.37], 24], [null]], { tiles: true }), [
    [[[4, 52], [5, 53]], { padding: { top: 48, right: 48, bottom: 48, left: 48 }, maxZoom: 16, duration: 0 }],
    [[[4.9, 52.37], [4.9, 52.37]], { padding: { top: 24, right: 24, bottom: 24, left: 24 }, maxZoom: 14, duration: 0 }],
  ]);
});

test("a single point on the offline basemap is shown amid the nearest city beyond it, not on empty land", () => {
  const [[[[w, s], [e, n]], { maxZoom }]] = fitted([[[4.9, 52.37, 4.9, 52.37]]], { tiles: false });
  assert.equal(maxZoom, BASEMAP_MAX_ZOOM);
  const hague = [4.27, 52.08];
  assert.ok(w <= hague[0] + 1e-9 && s <= hague[1] + 1e-9, "reaching The Hague, the nearest city beyond Amsterdam");
  assert.ok(Math.abs((w + e) / 2 - 4.9) < 1e-9 && Math.abs((s + n) / 2 - 52.37) < 1e-9, "the point stays in the middle");
  // In the South Pacific the nearest city is thousands of kilometres away: the reach is capped.
  assert.deepEqual(contextBox([-130, -40]), [-138, -48, -122, -32]);
});

test("the data is fitted clear of every panel, each on the side that costs the least room", () => {
  // 800 x 400: a title top left, a tall legend bottom left, notes top right, the attribution bottom right.
  const title = { left: 10, top: 10, right: 260, bottom: 54 };
  const legend = { left: 10, top: 200, right: 150, bottom: 390 };
  const notes = { left: 500, top: 84, right: 790, bottom: 130 };
  const attribution = { left: 700, top: 370, right: 790, bottom: 392 };
  const pad = padFor(800, 400, [title, legend, notes, attribution], 48);
  assert.deepEqual(pad, { top: 144, right: 48, bottom: 48, left: 164 });
  const gap = 14; // half a pin, and a little
  for (const b of [title, legend, notes, attribution]) {
    const clear = b.right + gap <= pad.left || b.left - gap >= 800 - pad.right || b.bottom + gap <= pad.top || b.top - gap >= 400 - pad.bottom;
    assert.ok(clear, JSON.stringify(b));
  }
});

test("a panel that would leave the data less than a third of the frame is left where it is", () => {
  const huge = { left: 0, top: 0, right: 700, bottom: 350 };
  assert.deepEqual(padFor(800, 400, [huge], 24), { top: 24, right: 24, bottom: 24, left: 24 });
});

test("flying to an item fits its box, or eases to its position no further out than street level", () => {
  const map = fakeMap();
  const moves = [];
  map.fitBounds = (box, o) => moves.push(["fit", box, o.maxZoom]);
  map.easeTo = (o) => moves.push(["ease", o.center, o.zoom]);
  withDocument("", () => {
    flyTo(map, { bbox: [4, 52, 5, 53] });
    flyTo(map, { position: [4.9, 52.37] });
    map.camera.zoom = 15;
    flyTo(map, { position: [4.9, 52.37] });
  });
  assert.deepEqual(moves, [
    ["fit", [[4, 52], [5, 53]], 15],
    ["ease", [4.9, 52.37], 13],
    ["ease", [4.9, 52.37], 15],
  ]);
});

test("the canvas says in words what is drawn, for screen readers too", () => {
  const map = fakeMap();
  const summary = withDocument('<p id="map-summary"></p>', (document) => {
    describe(map, "A map showing 3 results.");
    return document.getElementById("map-summary").textContent;
  });
  assert.deepEqual(map.getCanvas().attributes, { "aria-label": "A map showing 3 results.", role: "img" });
  assert.equal(summary, "A map showing 3 results.");
});

test("the casing follows the theme", () => {
  assert.equal(casingColor("dark"), "#0d1117");
  assert.equal(casingColor("sepia"), "#ffffff");
});

/** A stand-in for MapLibre whose Map's `behave(map)` decides whether it loads, fails or hangs. */
function engine(behave) {
  const Control = class {};
  const Map = class {
    constructor() {
      this.handlers = {};
      this.removed = false;
      behave(this);
    }
    on(type, fn) {
      this.handlers[type] = fn;
    }
    once(type, fn) {
      this.handlers[type] = fn;
    }
    addControl() {}
    remove() {
      this.removed = true;
    }
  };
  return { Map, NavigationControl: Control, AttributionControl: Control };
}

test("where MapLibre starts, it is the map; where it cannot, the worker-free renderer draws and says why", async (ctx) => {
  const page = canvasPage();
  ctx.after(() => page.restore());
  const loads = engine((m) => queueMicrotask(() => m.handlers.load()));
  const started = await createMap(page.el, "light", loads);
  assert.equal(started.fallback, undefined);

  const noWebgl = engine(() => {
    throw new Error("Failed to initialize WebGL");
  });
  const pending = createMap(page.el, "light", noWebgl);
  page.frames();
  const fallen = await pending;
  assert.equal(fallen.fallback, "map engine cannot start: Failed to initialize WebGL");
  assert.ok(page.el.querySelector("canvas.maplibregl-canvas"), "the renderer's canvas is in the frame");

  let failed = null;
  const blocked = createMap(page.el, "light", engine((m) => (failed = m)));
  const refused = new page.document.defaultView.Event("securitypolicyviolation");
  refused.effectiveDirective = "worker-src";
  page.document.dispatchEvent(refused);
  page.frames();
  assert.equal((await blocked).fallback, "map engine blocked by the host's CSP: worker-src");
  assert.ok(failed.removed, "the engine that could not start is removed");
});

test("a map engine that never loads gives way to the worker-free renderer after ENGINE_WAIT_MS", async (ctx) => {
  ctx.mock.timers.enable({ apis: ["setTimeout"] });
  const page = canvasPage();
  ctx.after(() => page.restore());
  const pending = createMap(page.el, "dark", engine(() => {}));
  ctx.mock.timers.tick(ENGINE_WAIT_MS - 1);
  let done = false;
  pending.then(() => (done = true));
  await Promise.resolve();
  assert.equal(done, false);
  ctx.mock.timers.tick(1);
  page.frames();
  assert.equal((await pending).fallback, `map engine did not start within ${ENGINE_WAIT_MS / 1000} s`);
});

test("requested tiles that show none on screen within TILE_WAIT_MS are a failure the view reports", (ctx) => {
  ctx.mock.timers.enable({ apis: ["setTimeout"] });
  const failed = [];
  const onFail = (...args) => failed.push(args);
  const map = fakeMap();
  const status = statusOf();
  addRaster(map, config({ basemap: "https://x/b/{z}/{x}/{y}" }), ["basemap"], { onFail, t, status });
  status.set({ paused: true });
  ctx.mock.timers.tick(TILE_WAIT_MS);
  assert.deepEqual(failed, [], "out of sight a view may load no tiles: it waits on");
  status.set({ paused: false });
  ctx.mock.timers.tick(TILE_WAIT_MS);
  assert.deepEqual(failed, [[`${t("tilesFailed")} (none within ${TILE_WAIT_MS / 1000} s)`, "failed"]]);

  const loaded = fakeMap();
  const quiet = [];
  addRaster(loaded, config({ basemap: "https://x/b/{z}/{x}/{y}" }), ["basemap"], { onFail: (...a) => quiet.push(a), t, status });
  loaded.emit("sourcedata", { sourceId: "tiles-basemap", tile: {} });
  ctx.mock.timers.tick(TILE_WAIT_MS);
  assert.deepEqual(quiet, [], "a tile arrived: no failure");
});
