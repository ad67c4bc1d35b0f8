import test from "node:test";
import assert from "node:assert/strict";
import { createScene } from "../core/map.js";
import { createLocale } from "../core/i18n.js";
import { fakeMap, fakeMarker } from "../testing/fakes.js";
import { drawArea, drawIncidents, highlight, incidentItem, midpoint } from "./draw.js";

const l10n = createLocale("en-US", "UTC");
const incident = (geometry, properties) => ({ type: "Feature", geometry, properties: { kind: "incident", ...properties } });
const JAM = incident(
  { type: "LineString", coordinates: [[4.8, 52.3], [4.85, 52.32], [4.9, 52.35]] },
  { magnitude: 3, category: 6, roads: ["A10"], delay_s: 540, length_m: 2300, from: "Amstel", to: "Coenplein", start: "2026-12-01T08:00:00Z", id: "x1" },
);
const CLOSURE = incident({ type: "Point", coordinates: [4.95, 52.4] }, { magnitude: 4, category: 8 });

function drawn(features, area = null, theme = "light") {
  const map = fakeMap();
  const selected = [];
  const result = drawIncidents(createScene(map, fakeMarker), { type: "FeatureCollection", features }, area, { theme, l10n, select: (id) => selected.push(id) });
  return { map, result, selected };
}

test("an incident's mark sits on its point or the middle vertex of its line", () => {
  assert.deepEqual(midpoint(JAM.geometry), [4.85, 52.32]);
  assert.deepEqual(midpoint(CLOSURE.geometry), [4.95, 52.4]);
  assert.deepEqual(midpoint({ type: "MultiLineString", coordinates: [[[0, 0], [1, 1]], [[2, 2], [3, 3]]] }), [2, 2]);
});

test("a jam is listed by category and road with its delay, facts and model details", () => {
  const item = incidentItem(JAM, 0, l10n, "light");
  assert.equal(item.id, "incident-0");
  assert.equal(item.name, "Jam · A10");
  assert.equal(item.sub, "Major delay · +9 min");
  assert.deepEqual(item.mark, { color: "#c21b1b", shape: "line", dash: "solid", text: "" });
  assert.deepEqual(item.bbox, [4.8, 52.3, 4.9, 52.35]);
  assert.equal(item.facts.From, "Amstel");
  assert.equal(item.facts.Delay, "9 min");
  assert.deepEqual(item.details, { category: "Jam", magnitude: "Major delay", delay_s: 540, from: "Amstel", to: "Coenplein", road: "A10", description: undefined, id: "x1" });
  assert.equal(incidentItem(incident(CLOSURE.geometry, { category: 99 }), 1, l10n, "light").name, "Unknown");
});

test("lines go to the line source, every incident gets a mark with its glyph, and the legend has one row per magnitude present", () => {
  const { map, result } = drawn([CLOSURE, JAM, incident(null, {}), { type: "Feature", geometry: JAM.geometry, properties: { kind: "other" } }]);
  assert.equal(result.incidents, 2, "only incidents with a geometry are drawn");
  assert.deepEqual(map.sources.get("incident-lines").data.features.map((f) => f.properties.item), ["incident-1"]);
  assert.deepEqual(map.sources.get("incident-marks").data.features.map((f) => f.properties.glyph), ["×", "!!!"]);
  assert.deepEqual(result.legend.map((r) => [r.label, r.dash, r.group]), [
    ["Major delay", "solid", "incidents"],
    ["Closed or stopped", "dot", "incidents"],
    ["Requested area", "dash", undefined],
  ]);
  assert.ok(["solid", "dash", "dot", "long"].every((d) => map.layers.has(`incident-line-${d}`)));
});

test("the requested area is outlined only when the result has one", () => {
  assert.equal(drawn([JAM]).map.sources.has("area"), false);
  const { map } = drawn([JAM], [4.7, 52.2, 5.0, 52.5]);
  assert.deepEqual(map.sources.get("area").data.features[0].geometry.coordinates[0][2], [5.0, 52.5]);
  const sketch = fakeMap();
  drawArea(createScene(sketch, fakeMarker), [{ type: "Feature", properties: { kind: "bbox" }, geometry: { type: "Polygon", coordinates: [] } }], { theme: "dark", t: l10n.t });
  assert.equal(sketch.layers.get("area-line").paint["line-color"], "#58a6ff");
});

test("a click on an incident's mark or line selects it", () => {
  const { map, selected } = drawn([JAM]);
  map.emit("click", { features: [{ properties: { item: "incident-0" } }] }, "incident-mark");
  map.emit("click", { features: [{ properties: { item: "incident-0" } }] }, "incident-line-solid");
  assert.deepEqual(selected, ["incident-0", "incident-0"]);
});

test("the dark theme draws the casing and colours of the dark basemap", () => {
  const { map, result } = drawn([JAM], null, "dark");
  assert.equal(map.layers.get("incident-casing").paint["line-color"], "#0d1117");
  assert.equal(result.items[0].mark.color, "#ff7b72");
});

test("the selected incident is ringed at its mark", () => {
  const { map } = drawn([JAM]);
  highlight({ map }, { position: [4.85, 52.32], mark: { color: "#c21b1b" } });
  assert.deepEqual(map.sources.get("selection").data.features[0].geometry.coordinates, [4.85, 52.32]);
  highlight({ map }, { mark: { color: "#c21b1b" } });
  assert.deepEqual(map.sources.get("selection").data.features, []);
});
