import test from "node:test";
import assert from "node:assert/strict";
import { partialFeatures } from "./partial.js";

test("streamed routing locations become waypoints, and two of them mean a route is computing", () => {
  assert.equal(partialFeatures({ locations: [[4.89, 52.37]] }).routing, false);
  const { features, routing } = partialFeatures({ locations: [[4.89, 52.37], [13.4, 52.52]] });
  assert.equal(routing, true);
  assert.deepEqual(features.map((f) => f.properties.kind), ["waypoint", "waypoint"]);
});

test("half-written values are skipped, never guessed", () => {
  const { features } = partialFeatures({ locations: [[4.89, 52.37], [13.4]], markers: [{ label: "a" }], bbox: [4.8, 52.3, 4.9] });
  assert.equal(features.length, 1);
});

test("dynamic-map markers, route stops and polygon circles, and a traffic bbox, are drawn from the arguments", () => {
  const { features } = partialFeatures({
    markers: [{ position: [4.9, 52.4], label: "Start" }],
    routes: [{ locations: [[4.9, 52.4], [4.48, 51.92]] }],
    polygons: [{ center: [4.9, 52.4], radius: 3000 }],
    bbox: "4.82,52.33,4.96,52.41",
  });
  assert.deepEqual(features.map((f) => f.properties.kind).sort(), ["area", "bbox", "marker", "waypoint", "waypoint"]);
  const ring = features.find((f) => f.properties.kind === "area").geometry.coordinates[0];
  assert.deepEqual(ring[0], ring.at(-1));
});
