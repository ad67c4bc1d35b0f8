import test from "node:test";
import assert from "node:assert/strict";
import { createScene } from "../core/map.js";
import { createLocale, STRINGS } from "../core/i18n.js";
import { fakeMap, fakeMarker } from "../testing/fakes.js";
import { LIST_ROWS, drawRows, drawTrace, limitColor, rowItem, sectionLines } from "./draw.js";
import { addWords } from "./words.js";

addWords();
const l10n = createLocale("en-US", "UTC");
const ROWS = [
  { row: 1, q: "M", confidence: 1, position: [4.9, 52.4], details: { input: "Damrak 1", address: "Damrak 1, Amsterdam" } },
  { row: 2, q: "U", details: { input: "??", why: "no match" } },
  { row: 3, q: "A", confidence: 0.62, position: [6.8, 52.3], details: { input: "Hengelo", address: "Hengelo, Overijssel", candidates: [{ address: "Hengelo, Overijssel" }, { address: "Hengelo, Bronckhorst" }] } },
  { row: 4, q: "L", confidence: 0.55, position: [4.8, 52.3], details: { input: "Kerkstraat 12", address: "Kerkstraat 12, Amsterdam" } },
];

test("every language of the views has every word of the batch view", () => {
  const keys = Object.keys(STRINGS.en.batch).sort();
  for (const lang of ["de", "fr", "nl", "es"]) assert.deepEqual(Object.keys(STRINGS[lang].batch).sort(), keys, lang);
});

test("located rows are one clustered source, coloured by quality, the rows to look at listed", () => {
  const map = fakeMap();
  const selected = [];
  const drawn = drawRows(createScene(map, fakeMarker), ROWS, { theme: "light", l10n, select: (id) => selected.push(id) });
  const source = map.sources.get("rows");
  assert.equal(source.cluster, true);
  assert.deepEqual(source.clusterProperties, { check: ["+", ["get", "check"]] });
  assert.deepEqual(source.data.features.map((f) => [f.properties.item, f.properties.q, f.properties.check]), [["row-1", "M", 0], ["row-3", "A", 1], ["row-4", "L", 1]]);
  assert.deepEqual([...map.layers.keys()], ["rows-cluster", "rows-count", "rows-point", "selection-point"]);
  assert.equal(drawn.located, 3);
  assert.deepEqual(drawn.legend.map((r) => r.label), ["Matched", "Low confidence", "Ambiguous"]);
  assert.equal(drawn.groups[0].title, "3 rows need attention");
  assert.deepEqual(drawn.groups[0].items.map((i) => i.name), ["2. ??", "3. Hengelo", "4. Kerkstraat 12"]);
  map.emit("click", { features: [{ properties: { item: "row-3" } }] }, "rows-point");
  assert.deepEqual(selected, ["row-3"]);
});

test("a row's item says its status, what was found or why not, and its candidates", () => {
  const ambiguous = rowItem(ROWS[2], l10n);
  assert.equal(ambiguous.sub, "Ambiguous · Hengelo, Overijssel");
  assert.equal(ambiguous.facts.Candidates, "Hengelo, Overijssel | Hengelo, Bronckhorst");
  assert.equal(ambiguous.facts.Confidence, "62 %");
  assert.equal(rowItem(ROWS[1], l10n).sub, "Not found · no match");
  assert.equal(rowItem({ row: 1234, q: "U", details: {} }, l10n).name, "1,234. Row 1,234");
});

test("the list holds at most LIST_ROWS rows", () => {
  const many = Array.from({ length: LIST_ROWS + 10 }, (_, i) => ({ row: i + 1, q: "U", details: {} }));
  const drawn = drawRows(createScene(fakeMap(), fakeMarker), many, { theme: "dark", l10n, select() {} });
  assert.equal(drawn.groups[0].items.length, LIST_ROWS);
  assert.equal(drawn.groups[0].title, `${(LIST_ROWS + 10).toLocaleString("en-US")} rows need attention`);
});

const LINE = [[4.0, 52.0], [4.1, 52.0], [4.2, 52.0], [4.3, 52.0], [4.4, 52.0]];
const TRACE = {
  type: "FeatureCollection",
  features: [
    { type: "Feature", properties: { kind: "trace" }, geometry: { type: "LineString", coordinates: LINE } },
    {
      type: "Feature",
      properties: {
        kind: "snapped",
        sections: [
          { startPointIndex: 0, endPointIndex: 2, sectionType: "SPEED_LIMIT", limit: 50, road: "Kleine Houtweg" },
          { startPointIndex: 2, endPointIndex: 4, sectionType: "SPEED_LIMIT", limit: null, road: "N208 Randweg" },
          { startPointIndex: 1, endPointIndex: 2, sectionType: "SPEEDING", limit: 50, max: 71, seconds: 35, road: "Kleine Houtweg" },
          { startPointIndex: 3, endPointIndex: 9, sectionType: "SPEEDING", limit: 50, max: 60, seconds: 5, road: "out of range" },
        ],
      },
      geometry: { type: "LineString", coordinates: LINE },
    },
  ],
};

test("the snapped road is drawn by speed limit, the stretches over it dashed and listed", () => {
  const map = fakeMap();
  const hovered = [];
  const drawn = drawTrace(createScene(map, fakeMarker), TRACE, { theme: "light", l10n, select() {}, hover: (text) => hovered.push(text) });
  const limits = map.sources.get("snapped").data.features;
  assert.deepEqual(limits.map((f) => [f.geometry.coordinates.length, f.properties.color]), [[3, limitColor(50)], [3, limitColor(null)]]);
  assert.deepEqual(limits.map((f) => f.properties.label), ["Kleine Houtweg · Limit 50 km/h", "N208 Randweg · Limit unknown"]);
  assert.equal(map.sources.get("over").data.features.length, 1, "a section past the line's end is not drawn");
  assert.deepEqual(map.layers.get("over-line").paint["line-dasharray"], [1.5, 1]);
  assert.equal(drawn.stretches, 1);
  assert.deepEqual(drawn.groups[0].items.map((i) => i.sub), ["71 km/h where the limit is 50 km/h, 35 s"]);
  assert.deepEqual(drawn.legend.map((r) => r.label), ["GPS trace", "Limit unknown", "Limit 31–50 km/h", "Over the speed limit"]);
  map.emit("mousemove", { features: [{ properties: { label: "Kleine Houtweg · Limit 50 km/h" } }] }, "snapped-line");
  map.emit("mouseleave", {}, "snapped-line");
  assert.deepEqual(hovered, ["Kleine Houtweg · Limit 50 km/h", null]);
});

test("a section cut from a line keeps its ends, and limits take a colour band", () => {
  const [only] = sectionLines(LINE, [{ startPointIndex: 1, endPointIndex: 3, sectionType: "SPEED_LIMIT" }], "SPEED_LIMIT");
  assert.deepEqual(only.geometry.coordinates, LINE.slice(1, 4));
  assert.notEqual(limitColor(30), limitColor(130));
  assert.equal(limitColor(45), limitColor(50));
});
