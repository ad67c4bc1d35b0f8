import test from "node:test";
import assert from "node:assert/strict";
import { createScene } from "../core/map.js";
import { createLocale } from "../core/i18n.js";
import { fakeMap, fakeMarker } from "../testing/fakes.js";
import { drawFeatures, drawPartial, highlight } from "./draw.js";

const l10n = createLocale("en-US", "UTC");
const line = (coordinates) => ({ type: "LineString", coordinates });
const point = (coordinates) => ({ type: "Point", coordinates });
const feature = (geometry, properties) => ({ type: "Feature", geometry, properties });
const ROUTE = [[4.9, 52.37], [5.0, 52.3], [5.5, 52.1], [6.0, 52.0]];

function drawn(features, options = {}) {
  const map = fakeMap();
  const selected = [];
  const scene = createScene(map, fakeMarker);
  const result = drawFeatures(scene, { type: "FeatureCollection", features }, { theme: "light", l10n, select: (id) => selected.push(id), ...options });
  return { map, scene, result, selected };
}

test("a route is drawn as casing and line, its sections cut from it, its instructions listed", () => {
  const route = feature(line(ROUTE), {
    kind: "route",
    summary: { lengthInMeters: 123400, travelTimeInSeconds: 5400, trafficDelayInSeconds: 120 },
    sections: [{ sectionType: "MOTORWAY", startPointIndex: 1, endPointIndex: 3 }],
    guidance: { instructions: [{ message: "Turn left", pointIndex: 1, routeOffsetInMeters: 900 }, { message: "off the line", pointIndex: 99 }] },
  });
  const { map, result } = drawn([route, feature(point([4.9, 52.37]), { kind: "waypoint" }), feature(point([6.0, 52.0]), { kind: "waypoint" })]);
  assert.deepEqual(map.sources.get("routes").data.features.map((f) => f.properties.item), ["route-0"]);
  assert.ok(map.layers.has("route-casing") && map.layers.has("route-line"));
  assert.deepEqual(map.sources.get("sections").data.features[0].geometry.coordinates, ROUTE.slice(1, 4));
  assert.deepEqual(result.counts, { features: 3, routes: 1, routePoints: 4, sections: 1, points: 2, places: 0, areas: 0 });
  const [routes, , stops, , instructions] = result.groups;
  assert.equal(routes.items[0].name, "Route");
  assert.equal(routes.items[0].sub, "77 mi · 1 hr 30 min · +2 min traffic");
  assert.deepEqual(instructions.items.map((i) => [i.name, i.position]), [["Turn left", ROUTE[1]]]);
  assert.deepEqual(stops.items.map((i) => i.name), ["A · Start", "B · End"]);
  assert.deepEqual(result.warnings, []);
});

test("a section outside its route is skipped with a warning, not drawn", () => {
  const route = feature(line(ROUTE), { kind: "route", sections: [{ sectionType: "TUNNEL", startPointIndex: 2, endPointIndex: 9 }] });
  const { map, result } = drawn([route]);
  assert.equal(map.sources.get("sections").data.features.length, 0);
  assert.match(result.warnings[0], /section 0 \(TUNNEL\) spans vertices 2\.\.9 of a 4-vertex route/);
});

test("search results are numbered pins listed in order, with one legend row per kind", () => {
  const places = [1, 2, 3].map((n) => feature(point([4.9 + n / 100, 52.37]), { kind: "result", name: `Café ${n}`, address: `Street ${n}` }));
  const { map, result } = drawn(places);
  assert.deepEqual(map.markers.map((m) => [m.description.className, m.description.text, m.options.group]), [
    ["tt-num", "1", "places"],
    ["tt-num", "2", "places"],
    ["tt-num", "3", "places"],
  ]);
  const [, found] = result.groups;
  assert.equal(found.title, "Results");
  assert.deepEqual(found.items.map((i) => [i.id, i.name, i.index, i.of]), [["place-0", "Café 1", 0, 3], ["place-1", "Café 2", 1, 3], ["place-2", "Café 3", 2, 3]]);
  assert.deepEqual(result.legend, [{ label: "Result (3)", color: "#d1242f", shape: "dot", group: "places" }]);
});

test("a click on a waypoint pin or a drawn feature selects its item", () => {
  const { map, selected } = drawn([feature(point([4.9, 52.37]), { kind: "waypoint" }), feature(point([5, 52]), { kind: "result", name: "x" })]);
  map.markers.find((m) => m.description.className === "tt-pin").description.onClick();
  map.emit("click", { features: [{ properties: { item: "place-0" } }] }, "points");
  assert.deepEqual(selected, ["stop-0", "place-0"]);
});

test("charging stations are counted by state in the legend, and only EV stops make the places 'charging stops'", () => {
  const stations = ["free", "free", "busy"].map((state, i) => feature(point([5 + i / 10, 52]), { kind: "station", state, color: state === "free" ? "#1a7f37" : "#c4520a" }));
  assert.deepEqual(drawn(stations).result.legend.map((r) => r.label), ["Charging: free (2)", "Charging: busy (1)"]);
  const stops = [feature(point([5, 52]), { kind: "charging_stop" })];
  assert.equal(drawn(stops).result.groups[1].title, "Charging stops");
});

test("areas take the palette, a reachable range its kind's colour, and the dark theme its own colours", () => {
  const ring = { type: "Polygon", coordinates: [[[4, 52], [5, 52], [5, 53], [4, 52]]] };
  const light = drawn([feature(ring, { kind: "area" }), feature(ring, { kind: "range" })]);
  assert.deepEqual(light.result.groups[3].items.map((i) => i.kind), ["area", "reachable range"]);
  assert.deepEqual(light.map.sources.get("areas").data.features.map((f) => f.properties.color), ["#0a7d6e", "#0b57d0"]);
  const dark = drawn([feature(ring, { kind: "area" })], { theme: "dark" });
  assert.equal(dark.map.sources.get("areas").data.features[0].properties.color, "#39c5bb");
  assert.equal(dark.map.layers.get("route-casing").paint["line-color"], "#0d1117");
});

test("a dynamic map's markers keep their colours and labels, in the legend too, and sit beside a stop they share a place with", () => {
  const start = [4.8897, 52.374];
  const { map, result, selected } = drawn([
    feature(point(start), { kind: "waypoint", index: 0 }),
    feature(point([4.4777, 51.9244]), { kind: "waypoint", index: 1 }),
    feature(point(start), { kind: "marker", label: "Start", color: "#e33" }),
    feature(point([5.1214, 52.0907]), { kind: "marker", label: "Utrecht", color: "#8250df" }),
  ]);
  const markers = map.markers.filter((m) => m.description.className === "tt-marker");
  assert.deepEqual(markers.map((m) => [m.description.text, m.description.dot, m.options.offset, m.options.anchor]), [
    ["Start", "#e33", [12, 0], "left"],
    ["Utrecht", "#8250df", [-8, 0], "left"],
  ]);
  assert.deepEqual(result.legend.filter((r) => r.group === "places").map((r) => [r.label, r.color]), [
    ["Start", "#e33"],
    ["Utrecht", "#8250df"],
    ["Stops (2)", "#0b57d0"],
  ]);
  markers[1].description.onClick();
  assert.deepEqual(selected, ["place-1"]);
});

test("past eight markers the legend has one row per marker colour", () => {
  const colours = ["#e33", "#e33", "#e33", "#8250df", "#8250df", "#8250df", "#0a7d6e", "#0a7d6e", "#0a7d6e"];
  const { result } = drawn(colours.map((color, i) => feature(point([5 + i / 10, 52]), { kind: "marker", label: `m${i}`, color })));
  assert.deepEqual(result.legend.map((r) => [r.label, r.color]), [["Marker (3)", "#e33"], ["Marker (3)", "#8250df"], ["Marker (3)", "#0a7d6e"]]);
});

test("drawing again after clear() leaves only the new drawing", () => {
  const { map, scene } = drawn([feature(point([5, 52]), { kind: "marker", name: "Here" })]);
  assert.equal(map.markers[0].description.text, "Here");
  scene.clear();
  assert.equal(map.sources.size, 0);
  assert.equal(map.layers.size, 0);
  assert.ok(map.markers.every((m) => m.removed));
  assert.equal(map.handlers.length, 0);
});

test("the partial sketch pins waypoints A, B... and markers with a bullet, pending, and outlines areas", () => {
  const map = fakeMap();
  const features = [
    feature(point([4.9, 52.37]), { kind: "waypoint", index: 0 }),
    feature(point([5.1, 52.1]), { kind: "waypoint", index: 1 }),
    feature(point([5.2, 52.2]), { kind: "marker", label: "" }),
    feature({ type: "Polygon", coordinates: [[[4, 52], [5, 52], [5, 53], [4, 52]]] }, { kind: "area" }),
  ];
  drawPartial(createScene(map, fakeMarker), features, { theme: "light", t: l10n.t });
  assert.deepEqual(map.markers.map((m) => [m.description.className, m.description.text]), [
    ["tt-pin tt-pending", "A"],
    ["tt-pin tt-pending", "B"],
    ["tt-pin tt-pending", "•"],
  ]);
  assert.equal(map.sources.get("partial-areas").data.features.length, 1);
  assert.deepEqual(map.layers.get("partial-area").paint["line-dasharray"], [2, 1]);
});

test("selecting a route fades the other routes; selecting a place rings it", () => {
  const { map, scene } = drawn([feature(line(ROUTE), { kind: "route" }), feature(line(ROUTE.slice(1)), { kind: "route", alternative: true })]);
  highlight(scene, { id: "route-1", kind: "route" });
  assert.deepEqual(map.layers.get("route-line").paint["line-opacity"], ["case", ["==", ["get", "item"], "route-1"], 1, 0.4]);
  highlight(scene, { id: "place-0", kind: "search result", position: [5, 52], mark: { color: "#d1242f" } });
  assert.equal(map.layers.get("route-line").paint["line-opacity"], 1);
  assert.deepEqual(map.sources.get("selection").data.features[0], { type: "Feature", properties: { color: "#d1242f" }, geometry: point([5, 52]) });
});
