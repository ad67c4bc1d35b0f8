"use strict";
import test from "node:test";
import assert from "node:assert/strict";
import e5 from "./e5.js";
import { varints } from "../bench/varints.js";
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

test("a v2 varint line decodes to the same positions as its v1 integer deltas", () => {
  const flat = [-17999999, 8999999, 100, -50, -1, 1, 36000000, 0, 0, 0];
  assert.deepEqual(decodeLine(varints(flat)), decodeLine(flat));
  assert.deepEqual(decodeLine(varints([489000, 5237000, 100, -50])), [[4.89, 52.37], [4.891, 52.3695]]);
});

test("a step q multiplies every unit, so coarser vertices decode to e5 multiples", () => {
  assert.deepEqual(decodeLine(varints([48900, 523700, 10, -5]), 10), [[4.89, 52.37], [4.891, 52.3695]]);
  const fc = { type: "Feature", properties: {}, geometry: { type: "LineString", q: 10, e5: varints([48900, 523700, 10, -5]) } };
  assert.deepEqual(decodeGeoJSON(fc).geometry, { type: "LineString", coordinates: [[4.89, 52.37], [4.891, 52.3695]] });
});

test("a cut-off, over-long or unpaired varint line is refused with a reason", () => {
  assert.throws(() => decodeLine(Uint8Array.from([2, 4, 0x81])), /whole \[lon, lat\] pair/);
  assert.throws(() => decodeLine(Uint8Array.from([2, 4, 6])), /whole \[lon, lat\] pair/);
  assert.throws(() => decodeLine(Uint8Array.from([0x80, 0x80, 0x80, 0x80, 1, 2])), /longer than 4 bytes/);
  const bad = { type: "LineString", q: 0, e5: varints([1, 2, 3, 4]) };
  assert.throws(() => decodeGeoJSON(bad), /positive integer/);
});
