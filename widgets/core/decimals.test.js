import test from "node:test";
import assert from "node:assert/strict";
import zlib from "node:zlib";
import decimals from "./decimals.js";
import envelope from "./envelope.js";

/** Unsigned LEB128 varints of `values` (non-negative safe integers), as fitting writes them. */
function varints(values) {
  const out = [];
  for (let u of values) {
    while (u >= 128) {
      out.push((u % 128) | 128);
      u = Math.floor(u / 128);
    }
    out.push(u);
  }
  return Uint8Array.from(out);
}
const zigzag = (v) => (v < 0 ? -2 * v - 1 : 2 * v);

/**
 * A geometry as the section holds it: `items` in the order a reader meets them, counts
 * (numbers) and positions (arrays of integers in units of 10^-d), each position's numbers
 * as zigzag differences to the previous position's on the same axis.
 */
function encode(items) {
  const prev = [0, 0, 0];
  return items.flatMap((item) =>
    Array.isArray(item)
      ? item.map((n, axis) => {
          const delta = n - prev[axis];
          prev[axis] = n;
          return zigzag(delta);
        })
      : [item],
  );
}

test("a line's positions come back as its integers divided by 10^d", () => {
  const read = decimals.reader(varints(encode([3, [4900000, 52370000], [4900001, 52369999], [-180000000, 90000000]])));
  assert.deepEqual(read.geometry("LineString", [6, 2]), [
    [4.9, 52.37],
    [4.900001, 52.369999],
    [-180, 90],
  ]);
  assert.equal(read.done, true);
});

test("every nesting is read as counted, and positions of three numbers too", () => {
  const rings = encode([2, 1, 4, [0, 0], [10, 0], [0, 10], [0, 0], 1, 4, [50, 50], [60, 50], [50, 60], [50, 50]]);
  const point = encode([[49, 5237, 25]]);
  const read = decimals.reader(varints([...rings, ...point]));
  assert.deepEqual(read.geometry("MultiPolygon", [1, 2]), [
    [[[0, 0], [1, 0], [0, 1], [0, 0]]],
    [[[5, 5], [6, 5], [5, 6], [5, 5]]],
  ]);
  assert.deepEqual(read.geometry("Point", [1, 3]), [4.9, 523.7, 2.5]);
  assert.equal(read.done, true);
});

test("integers up to 2^51 and 22 decimals read exactly, as JSON.parse reads their text", () => {
  const n = 2 ** 51 - 1;
  const read = decimals.reader(varints(encode([2, [n, 1], [-n, 123456789]])));
  const [[a, b], [c, d]] = read.geometry("MultiPoint", [22, 2]);
  assert.ok(Object.is(a, JSON.parse(`${n}e-22`)) && Object.is(c, JSON.parse(`-${n}e-22`)));
  assert.ok(Object.is(b, 1e-22) && Object.is(d, JSON.parse("1.23456789e-14")));
});

test("a cut-off, over-long or surplus section, and a bad dv, are errors", () => {
  assert.throws(() => decimals.reader(Uint8Array.from([200])).geometry("Point", [0, 2]), /cut off/);
  assert.throws(() => decimals.reader(Uint8Array.from(Array(9).fill(255))).geometry("Point", [0, 2]), /longer than 8 bytes/);
  assert.throws(() => decimals.reader(varints([5])).geometry("LineString", [0, 2]), /ends inside a geometry/);
  assert.throws(() => decimals.reader(varints([])).geometry("LineString", [23, 2]), /0-22 decimals/);
  assert.throws(() => decimals.reader(varints([])).geometry("Circle", [1, 2]), /dv on a Circle/);
  assert.throws(() => decimals.attach([], varints([1])), /more than its geometries/);
});

test("a v3 envelope gives every dv geometry its coordinates and leaves the others as given", async () => {
  const features = [
    { type: "Feature", properties: { n: 1 }, geometry: { type: "LineString", dv: [2, 2] } },
    { type: "Feature", properties: { "-0": -0 }, geometry: { type: "Point", coordinates: [-0, 1.5] } },
    { type: "Feature", properties: null, geometry: null },
    { type: "Feature", properties: {}, geometry: { type: "Point", dv: [0, 2] } },
  ];
  // As orjson writes it: a negative zero keeps its sign in the JSON (JSON.stringify drops it).
  const text = JSON.stringify({ v: 3, tool: "tomtom-data-viz", data: { features, from: 0, to: 4 }, fitted: null });
  const head = Buffer.from(text.replace('"coordinates":[0,1.5]', '"coordinates":[-0.0,1.5]'));
  const section = varints([...encode([2, [150, 225], [300, 400]]), ...encode([[7, -8]])]);
  const packed = zlib.gzipSync(Buffer.concat([head, Buffer.from([0]), section])).toString("base64");
  const env = await envelope.decode(packed);
  assert.deepEqual(
    env.data.features.map((f) => f.geometry),
    [{ type: "LineString", coordinates: [[1.5, 2.25], [3, 4]] }, { type: "Point", coordinates: [-0, 1.5] }, null, { type: "Point", coordinates: [7, -8] }],
  );
  const cut = zlib.gzipSync(Buffer.concat([head, Buffer.from([0]), section.subarray(0, 3)])).toString("base64");
  await assert.rejects(envelope.decode(cut), (err) => err.reason === "decode_failed" && /coordinates section is malformed/.test(err.message));
});
