import test from "node:test";
import assert from "node:assert/strict";
import { evaluate, matches } from "./expr.js";

const point = (properties = {}) => ({ type: "Feature", properties, geometry: { type: "Point", coordinates: [4.9, 52.4] } });
const multi = { type: "Feature", properties: {}, geometry: { type: "MultiPolygon", coordinates: [] } };

test("the views' own paint expressions evaluate per feature as MapLibre's do", () => {
  const f = point({ color: "#e33", kind: "result", alternative: true, width: 4 });
  assert.equal(evaluate("#0b57d0", f), "#0b57d0");
  assert.equal(evaluate(["get", "color"], f), "#e33");
  assert.equal(evaluate(["get", "missing"], f), null);
  assert.equal(evaluate(["case", ["==", ["get", "kind"], "result"], 10, 7], f), 10);
  assert.equal(evaluate(["case", ["get", "alternative"], 3.5, 5.5], f), 3.5);
  assert.equal(evaluate(["+", ["get", "width"], 3], f), 7);
  assert.equal(evaluate(["interpolate", ["linear"], ["zoom"], 2, 0.6, 8, 1.4], f, 5), 1);
  assert.equal(evaluate(["interpolate", ["linear"], ["zoom"], 2, 10, 8, 13], f, 12), 13);
  assert.equal(evaluate(["interpolate", ["exponential", 2], ["zoom"], 0, 0, 2, 3], f, 1), 1);
});

test("a caller's data-driven colours come out as the map draws them", () => {
  const f = point({ kind: "cafe", rank: 7 });
  assert.equal(evaluate(["match", ["get", "kind"], ["bar", "cafe"], "#8250df", "park", "#1a7f37", "#888"], f), "#8250df");
  assert.equal(evaluate(["match", ["get", "kind"], "park", "#1a7f37", "#888"], f), "#888");
  assert.equal(evaluate(["step", ["get", "rank"], "#aaa", 5, "#bbb", 10, "#ccc"], f), "#bbb");
  assert.equal(evaluate(["coalesce", ["get", "colour"], "#0a7d6e"], f), "#0a7d6e");
  assert.equal(evaluate(["rgb", 10, 20, 30], f), "rgba(10,20,30,1)");
  assert.equal(evaluate(["heatmap-density"], f), null, "outside the subset: null, so the default applies");
});

test("filters in expression syntax, the geometry type singular as MapLibre gives it", () => {
  assert.equal(matches(["in", ["geometry-type"], ["literal", ["Polygon", "MultiPolygon"]]], multi), true);
  assert.equal(matches(["==", ["geometry-type"], "Polygon"], multi), true);
  assert.equal(matches(["!=", ["geometry-type"], "Point"], point()), false);
  assert.equal(matches(["all", ["==", ["get", "dash"], "dot"], [">=", ["get", "n"], 2]], point({ dash: "dot", n: 3 })), true);
  assert.equal(matches(undefined, point()), true);
});

test("filters in the legacy syntax callers still write", () => {
  const f = point({ kind: "bar", n: 3 });
  assert.equal(matches(["==", "kind", "bar"], f), true);
  assert.equal(matches(["==", "$type", "Point"], f), true);
  assert.equal(matches(["in", "kind", "cafe", "bar"], f), true);
  assert.equal(matches(["!in", "kind", "cafe", "bar"], f), false);
  assert.equal(matches(["all", [">", "n", 2], ["has", "kind"], ["!has", "name"]], f), true);
  assert.equal(matches(["none", ["==", "kind", "bar"]], f), false);
});
