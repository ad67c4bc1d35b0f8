"use strict";
import test from "node:test";
import assert from "node:assert/strict";
import e5 from "./e5.js";
const { decodeLine, decodeGeoJSON } = e5;

test("a line decodes from an absolute first pair and integer deltas", () => {
  assert.deepEqual(decodeLine([489000, 5237000, 100, -50, -1, 1]), [
    [4.89, 52.37],
    [4.891, 52.3695],
    [4.89099, 52.36951],
  ]);
});

test("a long line keeps exact positions because sums stay integers", () => {
  const flat = [0, 0];
  for (let i = 0; i < 100000; i++) flat.push(1, -1);
  const line = decodeLine(flat);
  assert.equal(line.length, 100001);
  assert.deepEqual(line.at(-1), [1, -1]);
});

test("an odd-length or non-integer e5 array is refused with a reason", () => {
  assert.throws(() => decodeLine([1, 2, 3]), /even length/);
  assert.throws(() => decodeLine([1, 2.5]), /integers/);
});

test("polygons and multi-polygons keep their ring nesting", () => {
  const fc = {
    type: "FeatureCollection",
    features: [
      { type: "Feature", properties: {}, geometry: { type: "Polygon", e5: [[0, 0, 10, 0, 0, 10, -10, -10]] } },
      {
        type: "Feature",
        properties: {},
        geometry: { type: "MultiPolygon", e5: [[[0, 0, 1, 0, 0, 1, -1, -1]], [[5, 5, 1, 0, 0, 1, -1, -1]]] },
      },
      { type: "Feature", properties: {}, geometry: { type: "Point", coordinates: [4.9, 52.4] } },
    ],
  };
  const out = decodeGeoJSON(fc);
  assert.deepEqual(out.features[0].geometry, {
    type: "Polygon",
    coordinates: [[[0, 0], [0.0001, 0], [0.0001, 0.0001], [0, 0]]],
  });
  assert.equal(out.features[1].geometry.coordinates[1][0][0][0], 0.00005);
  assert.deepEqual(out.features[2].geometry.coordinates, [4.9, 52.4]);
  assert.ok(!("e5" in out.features[0].geometry));
});
