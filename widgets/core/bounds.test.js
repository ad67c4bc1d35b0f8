import test from "node:test";
import assert from "node:assert/strict";
import { boundsOf, union, parseBbox } from "./bounds.js";

test("bounds cover points, lines and polygon rings of every feature", () => {
  const fc = {
    type: "FeatureCollection",
    features: [
      { type: "Feature", geometry: { type: "Point", coordinates: [4.9, 52.4] } },
      { type: "Feature", geometry: { type: "LineString", coordinates: [[4, 52], [13.4, 52.5]] } },
      { type: "Feature", geometry: { type: "Polygon", coordinates: [[[5, 51], [6, 51], [6, 53], [5, 51]]] } },
      { type: "Feature", geometry: null },
    ],
  };
  assert.deepEqual(boundsOf(fc), [4, 51, 13.4, 53]);
});

test("an empty collection has no bounds rather than infinite ones", () => {
  assert.equal(boundsOf({ type: "FeatureCollection", features: [] }), null);
});

test("union skips missing boxes", () => {
  assert.deepEqual(union(null, [0, 0, 1, 1], [-1, 0.5, 0.5, 2]), [-1, 0, 1, 2]);
  assert.equal(union(null, null), null);
});

test("a bbox is read from an array or a comma-separated string", () => {
  assert.deepEqual(parseBbox("4.8, 52.3,5.0,52.4"), [4.8, 52.3, 5, 52.4]);
  assert.deepEqual(parseBbox([4.8, 52.3, 5, 52.4]), [4.8, 52.3, 5, 52.4]);
});

test("a malformed bbox is refused with what was given", () => {
  assert.throws(() => parseBbox("4.8,52.3"), /\[west, south, east, north\], got "4.8,52.3"/);
  assert.throws(() => parseBbox([4.8, 53, 5, 52]), /is not \[west, south, east, north\]/);
});
