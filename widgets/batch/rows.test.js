import test from "node:test";
import assert from "node:assert/strict";
import { attention, createRows, csvOf, rowsOf } from "./rows.js";

/** The data of rows `from + 1` to `to`: qualities, confidences, positions of the located ones, details. */
function data(from, q, conf, positions, details) {
  const features = positions.length
    ? [{ type: "Feature", properties: { kind: "batch_points" }, geometry: positions.length === 1 ? { type: "Point", coordinates: positions[0] } : { type: "LineString", coordinates: positions } }]
    : [];
  return { type: "FeatureCollection", features, batch: { rows: 10, from, to: from + q.length, q, conf, ...(details ? { details } : {}) } };
}

test("each row gets its quality, confidence and, when located, the next position in row order", () => {
  const rows = rowsOf(data(0, "MUALE", [100, -1, 62, 55, -1], [[4.9, 52.4], [6.8, 52.3], [4.8, 52.3]]));
  assert.deepEqual(
    rows.map((r) => [r.row, r.q, r.confidence, r.position]),
    [
      [1, "M", 1, [4.9, 52.4]],
      [2, "U", undefined, undefined],
      [3, "A", 0.62, [6.8, 52.3]],
      [4, "L", 0.55, [4.8, 52.3]],
      [5, "E", undefined, undefined],
    ],
  );
  assert.deepEqual(rowsOf(data(5, "UM", [-1, 90], [[1, 2]]))[1], { row: 7, q: "M", confidence: 0.9, position: [1, 2] });
});

test("rows whose positions or qualities do not line up are refused, saying how", () => {
  assert.throws(() => rowsOf(data(0, "MM", [1, 1], [[1, 2]])), /only 1 positions/);
  assert.throws(() => rowsOf(data(0, "MU", [1, 1], [[1, 2], [3, 4]])), /2 positions for 1 located rows/);
  assert.throws(() => rowsOf(data(0, "MX", [1, 1], [[1, 2]])), /unknown quality "X"/);
  assert.throws(() => rowsOf({ batch: { q: "M", conf: [], from: 0, to: 1 } }), /do not line up/);
});

test("pages fill the batch in; a row keeps the details a later page brings", () => {
  const rows = createRows(4);
  rows.add(rowsOf({ ...data(0, "MUMA", [100, -1, 90, 60], [[1, 1], [2, 2], [3, 3]]), batch: { rows: 4, from: 0, to: 4, q: "MUMA", conf: [100, -1, 90, 60] } }));
  assert.equal(rows.filled, 4);
  assert.equal(rows.complete(), false, "no addresses yet");
  rows.add(rowsOf(data(0, "MU", [100, -1], [[1, 1]], [{ address: "A 1" }, { why: "no match", input: "??" }])));
  rows.add(rowsOf(data(2, "MA", [90, 60], [[2, 2], [3, 3]], [{ address: "B 2" }, { candidates: [{ address: "C" }, { address: "D" }] }])));
  assert.equal(rows.complete(), true);
  assert.deepEqual(rows.counts(), { matched: 2, low: 0, ambiguous: 1, unmatched: 1, empty: 0 });
  assert.deepEqual(attention(rows.list()).map((r) => r.row), [2, 4]);
});

test("the CSV has a line per row, quoted where needed, and runs no formula in a spreadsheet", () => {
  const rows = [
    { row: 1, q: "M", confidence: 1, position: [4.89649, 52.37588], details: { input: 'Damrak 1, "centre"', address: "Damrak 1, 1012 LG Amsterdam", match: "Point Address" } },
    { row: 2, q: "U", details: { input: "=HYPERLINK(\"http://x\")", why: "no match" } },
    { row: 3, q: "A", position: [6.8, 52.3], confidence: 0.62, details: { input: "Hengelo", address: "Hengelo, Overijssel", candidates: [{ address: "Hengelo, Overijssel" }, { address: "Hengelo, Bronckhorst" }] } },
  ];
  assert.equal(
    csvOf(rows),
    "row,input,status,confidence,address,match,longitude,latitude,why\r\n" +
      '1,"Damrak 1, ""centre""",matched,1.00,"Damrak 1, 1012 LG Amsterdam",Point Address,4.89649,52.37588,\r\n' +
      "2,\"'=HYPERLINK(\"\"http://x\"\")\",unmatched,,,,,,no match\r\n" +
      '3,Hengelo,ambiguous,0.62,"Hengelo, Overijssel",,6.8,52.3,"ambiguous: Hengelo, Overijssel | Hengelo, Bronckhorst"\r\n',
  );
});
