import test from "node:test";
import assert from "node:assert/strict";
import * as style from "./style.js";
import { THEMES } from "../basemap/themes.js";
import { createLocale } from "./i18n.js";

/** WCAG 2.x contrast ratio of two #rrggbb colours. */
function contrast(a, b) {
  const lum = (hex) => {
    const [r, g, b2] = [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16) / 255).map((c) => (c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4));
    return 0.2126 * r + 0.7152 * g + 0.0722 * b2;
  };
  const [hi, lo] = [lum(a), lum(b)].sort((x, y) => y - x);
  return (hi + 0.05) / (lo + 0.05);
}

const line = Array.from({ length: 10 }, (_, i) => [i, 0]);

test("a traffic section is cut at its start and end vertices and coloured by delay", () => {
  const { features, skipped } = style.sectionSegments(line, [
    { sectionType: "TRAFFIC", startPointIndex: 2, endPointIndex: 5, magnitudeOfDelay: 3 },
  ]);
  assert.deepEqual(skipped, []);
  assert.equal(features.length, 1);
  assert.deepEqual(features[0].geometry.coordinates, [[2, 0], [3, 0], [4, 0], [5, 0]]);
  assert.equal(features[0].properties.label, "Traffic: Major delay");
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
  assert.deepEqual(style.sectionLegend(features).map((r) => r.label), ["Traffic: Minor delay"]);
});

test("the fitted note counts points and the error in the host's units", () => {
  const fitted = { original_points: 39414, points: 9646, max_error_m: 8.04, chars: 108000 };
  assert.equal(style.fittedNote(fitted, createLocale("en-GB")), "Simplified to 9,646 of 39,414 points, within 26 ft");
  assert.equal(style.fittedNote(fitted, createLocale("de-DE")), "Vereinfacht auf 9.646 von 39.414 Punkten, auf 8 m genau");
  assert.equal(style.fittedNote(null), null);
});

test("every line and dot colour stands out 3:1 from the land of its basemap theme", () => {
  const colours = (theme) => [
    ...style.PALETTE[theme],
    ...[0, 1, 2, 3, 4].map((m) => style.delayColor(m, theme)),
    ...["result", "waypoint", "marker", "area", "feature"].map((k) => style.kindStyle(k, undefined, theme).color),
    ...["TOLL_ROAD", "TUNNEL", "FERRY", "PEDESTRIAN"].map((t) => style.sectionStyle({ sectionType: t }, undefined, theme).color),
  ];
  for (const theme of ["light", "dark"]) {
    for (const c of colours(theme)) {
      assert.ok(contrast(c, THEMES[theme].land) >= 3, `${c} on ${theme} land ${THEMES[theme].land}: ${contrast(c, THEMES[theme].land).toFixed(2)}`);
    }
  }
});

test("basemap labels meet WCAG AA text contrast on land and on their halo", () => {
  for (const theme of ["light", "dark"]) {
    const c = THEMES[theme];
    assert.ok(contrast(c.label, c.land) >= 4.5, `${theme} label on land`);
    assert.ok(contrast(c.label, c.halo) >= 4.5, `${theme} label on halo`);
  }
});

test("no two delay magnitudes share a dash pattern and width, so colour is not the only difference", () => {
  const looks = style.DELAY.map((d) => `${d.dash}/${d.width}`);
  assert.equal(new Set(looks).size, looks.length);
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
    "Traffic: Minor delay",
    "Traffic: Moderate delay",
    "Traffic: Major delay",
  ]);
});
