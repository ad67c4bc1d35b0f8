"use strict";
const test = require("node:test");
const assert = require("node:assert/strict");
const style = require("./style.js");

const line = Array.from({ length: 10 }, (_, i) => [i, 0]);

test("a traffic section is cut at its start and end vertices and coloured by delay", () => {
  const { features, skipped } = style.sectionSegments(line, [
    { sectionType: "TRAFFIC", startPointIndex: 2, endPointIndex: 5, magnitudeOfDelay: 3 },
  ]);
  assert.deepEqual(skipped, []);
  assert.equal(features.length, 1);
  assert.deepEqual(features[0].geometry.coordinates, [[2, 0], [3, 0], [4, 0], [5, 0]]);
  assert.equal(features[0].properties.label, "Traffic: major delay");
  assert.notEqual(
    style.sectionStyle({ sectionType: "TRAFFIC", magnitudeOfDelay: 1 }).color,
    features[0].properties.color,
  );
});

test("traffic draws above toll and motorway overlays", () => {
  const { features } = style.sectionSegments(line, [
    { sectionType: "TRAFFIC", startPointIndex: 1, endPointIndex: 3, magnitudeOfDelay: 2 },
    { sectionType: "TOLL_ROAD", startPointIndex: 0, endPointIndex: 9 },
    { sectionType: "MOTORWAY", startPointIndex: 0, endPointIndex: 4 },
  ]);
  assert.deepEqual(
    features.map((f) => f.properties.sectionType),
    ["TOLL_ROAD", "MOTORWAY", "TRAFFIC"],
  );
});

test("sections outside the route are skipped with a reason instead of drawn wrongly", () => {
  const { features, skipped } = style.sectionSegments(line, [
    { sectionType: "TOLL_ROAD", startPointIndex: 4, endPointIndex: 12 },
    { sectionType: "TUNNEL", startPointIndex: 3, endPointIndex: 4 },
  ]);
  assert.equal(features.length, 1);
  assert.match(skipped[0], /section 0 \(TOLL_ROAD\) spans vertices 4\.\.12 of a 10-vertex route/);
});

test("country sections become border crossings at the next country's first vertex", () => {
  const crossings = style.countryCrossings(line, [
    { sectionType: "COUNTRY", startPointIndex: 6, endPointIndex: 9, countryCode: "DEU" },
    { sectionType: "COUNTRY", startPointIndex: 0, endPointIndex: 6, countryCode: "NLD" },
  ]);
  assert.deepEqual(crossings, [{ coordinates: [6, 0], label: "NLD → DEU" }]);
});

test("section types without a line style are not drawn", () => {
  assert.equal(style.sectionStyle({ sectionType: "COUNTRY" }), null);
  assert.equal(style.sectionStyle({ sectionType: "URBAN" }), null);
});

test("the legend lists each section style once", () => {
  const { features } = style.sectionSegments(line, [
    { sectionType: "TRAFFIC", startPointIndex: 1, endPointIndex: 2, magnitudeOfDelay: 1 },
    { sectionType: "TRAFFIC", startPointIndex: 5, endPointIndex: 7, magnitudeOfDelay: 1 },
  ]);
  assert.deepEqual(style.sectionLegend(features).map((r) => r.label), ["Traffic: minor delay"]);
});

test("distances, durations and the fitted note read naturally", () => {
  assert.equal(style.formatDistance(850), "850 m");
  assert.equal(style.formatDistance(4321), "4.3 km");
  assert.equal(style.formatDistance(657_400), "657 km");
  assert.equal(style.formatDuration(59 * 60), "59 min");
  assert.equal(style.formatDuration(6 * 3600 + 5 * 60), "6 h 5 min");
  assert.equal(
    style.fittedNote({ original_points: 39414, points: 9646, max_error_m: 8.04, chars: 108000 }),
    "Simplified to 9,646 of 39,414 points, within 8.0 m",
  );
  assert.equal(style.fittedNote(null), null);
});

test("the legend lists traffic from minor to major delay whatever the route order", () => {
  const { features } = style.sectionSegments(line, [
    { sectionType: "TRAFFIC", startPointIndex: 1, endPointIndex: 2, magnitudeOfDelay: 3 },
    { sectionType: "TRAFFIC", startPointIndex: 3, endPointIndex: 4, magnitudeOfDelay: 1 },
    { sectionType: "TUNNEL", startPointIndex: 5, endPointIndex: 6 },
    { sectionType: "TRAFFIC", startPointIndex: 6, endPointIndex: 8, magnitudeOfDelay: 2 },
  ]);
  assert.deepEqual(style.sectionLegend(features).map((r) => r.label), [
    "Tunnel",
    "Traffic: minor delay",
    "Traffic: moderate delay",
    "Traffic: major delay",
  ]);
});
