import test from "node:test";
import assert from "node:assert/strict";
import { createScene } from "../core/map.js";
import { createLocale } from "../core/i18n.js";
import { fakeMap, fakeMarker } from "../testing/fakes.js";
import { drawMatrix, drawPlan, fastestLinks, LINKS, matrixItems, matrixRows, planGroups } from "./draw.js";

const l10n = createLocale("en-US", "UTC");
const place = (i, coordinates, kind = "place") => ({ type: "Feature", geometry: { type: "Point", coordinates }, properties: { kind, index: i } });

/** Three places; place 2 reaches nothing, and place 0 cannot reach place 1. */
const SQUARE = {
  type: "FeatureCollection",
  features: [place(0, [4.9, 52.37]), place(1, [5.12, 52.09]), place(2, [4.48, 51.92])],
  matrix: {
    same: true,
    travelTimes: [[0, null, 3600], [2400, 0, 1200], [null, null, 0]],
    lengths: [[0, null, 70000], [50000, 0, 40000], [null, null, 0]],
    statuses: [["OK", "NO_ROUTE_FOUND", "OK"], ["OK", "OK", "OK"], ["OUT_OF_REGION", "OUT_OF_REGION", "OK"]],
  },
};

test("an origin's nearest destination skips itself and the cells without a route", () => {
  const rows = matrixRows(SQUARE);
  assert.deepEqual(rows.map((r) => r.nearest?.j ?? null), [2, 2, null]);
  assert.equal(rows[0].cells[1].seconds, null);
  assert.equal(rows[0].cells[1].status, "NO_ROUTE_FOUND");
});

test("origins are listed nearest first, and a cell without a route says why, never zero", () => {
  const items = matrixItems(SQUARE, l10n);
  assert.deepEqual(items.map((i) => i.id), ["origin-1", "origin-0", "origin-2"]);
  assert.equal(items[0].sub, "Nearest: 3 · 20 min");
  assert.equal(items[0].name, "Origin 2");
  assert.equal(items[1].facts["→ 2"], "No route (NO_ROUTE_FOUND)");
  assert.equal(items[2].sub, "No route");
  assert.deepEqual(matrixItems(SQUARE, l10n, "index").map((i) => i.id), ["origin-0", "origin-1", "origin-2"]);
});

test("selecting an origin draws its fastest links, thickest first, none where there is no route", () => {
  const links = fastestLinks(SQUARE, 1);
  assert.equal(links.length, 2);
  assert.deepEqual(links[0].geometry.coordinates, [[5.12, 52.09], [4.48, 51.92]]);
  assert.deepEqual(links.map((l) => l.properties.rank), [0, 1]);
  assert.deepEqual(fastestLinks(SQUARE, 2), []);
  assert.ok(LINKS >= 1);
});

test("a matrix draws its places with their numbers and lists every origin", () => {
  const map = fakeMap();
  const drawn = drawMatrix(createScene(map, fakeMarker), SQUARE, { theme: "light", l10n, select: () => {} });
  assert.equal(drawn.items.length, 3);
  assert.equal(drawn.places, 3);
  const marks = map.sources.get("places").data.features;
  assert.deepEqual(marks.map((f) => f.properties.label), ["1", "2", "3"]);
  assert.ok(map.layers.has("links-line"));
});

const stop = (s, vehicle, order, coordinates, extra = {}) => ({
  type: "Feature",
  geometry: { type: "Point", coordinates },
  properties: { kind: "stop", stop: s, vehicle, order, arrival: "2026-06-24T07:30:00Z", color: vehicle ? "#d62728" : "#1f77b4", ...extra },
});
const PLAN = {
  type: "FeatureCollection",
  features: [
    { type: "Feature", geometry: { type: "LineString", coordinates: [[4.9, 52.37], [4.6, 52.38], [4.9, 52.37]] }, properties: { kind: "route", vehicle: 0, color: "#1f77b4" } },
    { type: "Feature", geometry: { type: "Point", coordinates: [4.9, 52.37] }, properties: { kind: "depot", vehicle: 0 } },
    stop(3, 0, 2, [4.5, 52.16]),
    stop(0, 0, 1, [4.6, 52.38], { window: ["2026-06-24T07:00:00Z", "2026-06-24T15:00:00Z"] }),
    stop(1, 1, 1, [5.1, 52.1]),
    { type: "Feature", geometry: { type: "Point", coordinates: [4.4, 51.9] }, properties: { kind: "unassigned", stop: 2, reason: "no vehicle can reach it" } },
  ],
};

test("a plan lists each vehicle's stops in visiting order with arrival and window, then those left out", () => {
  const groups = planGroups(PLAN, l10n);
  assert.deepEqual(groups.map((g) => g.title), ["Vehicle 1", "Vehicle 2", "Not served"]);
  assert.deepEqual(groups[0].items.map((i) => i.name), ["1. #1", "2. #4"]);
  assert.equal(groups[0].items[0].facts.Window.split(" – ").length, 2);
  assert.ok(groups[0].items[0].facts.Arrival);
  assert.equal(groups[2].items[0].sub, "no vehicle can reach it");
});

test("a plan draws routes in their vehicle's colour and numbers the stops", () => {
  const map = fakeMap();
  const drawn = drawPlan(createScene(map, fakeMarker), PLAN, { theme: "light", l10n, select: () => {} });
  assert.equal(drawn.routes, 1);
  const labels = map.sources.get("stops").data.features.map((f) => [f.properties.kind, f.properties.label]);
  assert.deepEqual(labels, [["depot", "D"], ["stop", "2"], ["stop", "1"], ["stop", "1"], ["unassigned", "×"]]);
  assert.deepEqual(drawn.legend.map((l) => l.label), ["Vehicle 1", "Not served"]);
});

test("the fleet words exist in every language English has, and follow the host's language", async () => {
  const { LANGUAGES, word } = await import("./words.js");
  const english = Object.keys(LANGUAGES.en).sort();
  for (const [lang, words] of Object.entries(LANGUAGES)) assert.deepEqual(Object.keys(words).sort(), english, lang);
  assert.equal(word(createLocale("de-DE", "UTC"), "vehicleN", { n: 2 }), "Fahrzeug 2");
  assert.equal(word(createLocale("pt-BR", "UTC"), "notServed"), "Not served");
});
