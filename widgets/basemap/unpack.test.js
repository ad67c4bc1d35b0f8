import test from "node:test";
import assert from "node:assert/strict";
import { packParts } from "./parts.mjs";
import { readVarints, unpackBasemap } from "./unpack.js";

const grid = { scale: [0.5, 0.25], translate: [-180, -90] };

test("zigzag varints read back as the signed numbers written", () => {
  const bytes = Buffer.from([0, 1, 2, 3, 0x80, 0x01, 0xff, 0x7f]).toString("base64");
  assert.deepEqual(readVarints(bytes), [0, -1, 1, -2, 64, -8192]);
  assert.throws(() => readVarints(Buffer.from([0x80]).toString("base64")), /inside a value/);
});

test("land polygons with holes and border lines come back where the grid puts them", () => {
  const ring = [360, 360, 4, 0, 0, 4, -4, 0, 0, -4];
  const hole = [361, 361, 1, 0, 0, 1, -1, -1];
  const island = [10, 20, 2, 0, 0, 2, -2, -2];
  const border = [362, 358, 0, 8];
  const { land, borders } = unpackBasemap(packParts({ ...grid, land: [[ring, hole], [island]], borders: [border] }));
  assert.equal(land.type, "MultiPolygon");
  assert.deepEqual(land.coordinates[0][0], [[0, 0], [2, 0], [2, 1], [0, 1], [0, 0]]);
  assert.deepEqual(land.coordinates[0][1], [[0.5, 0.25], [1, 0.25], [1, 0.5], [0.5, 0.25]]);
  assert.deepEqual(land.coordinates[1][0], [[-175, -85], [-174, -85], [-174, -84.5], [-175, -85]]);
  assert.deepEqual(borders, { type: "MultiLineString", coordinates: [[[1, -0.5], [1, 1.5]]] });
});

test("a ring across the antimeridian goes on past 180 degrees instead of spanning the world", () => {
  // From 179 to -179 (a step of -716 on a 720-wide grid) and back.
  const ring = [718, 300, 4, 0, -716, 0, 0, 4, 716, 0, -4, -4];
  const { land } = unpackBasemap(packParts({ ...grid, land: [[ring]], borders: [] }));
  const lons = land.coordinates[0][0].map(([lon]) => lon);
  assert.deepEqual(lons, [179, 181, 183, 183, 181, 179]);
});

test("a packed basemap that ends early or runs on is refused", () => {
  const packed = packParts({ ...grid, land: [[[0, 0, 1, 0, 0, 1, -1, -1]]], borders: [] });
  const bytes = Buffer.from(packed.parts, "base64");
  assert.throws(() => unpackBasemap({ ...packed, parts: bytes.subarray(0, 5).toString("base64") }), /end early/);
  assert.throws(() => unpackBasemap({ ...packed, parts: Buffer.concat([bytes, Buffer.from([0])]).toString("base64") }), /past its parts/);
});
