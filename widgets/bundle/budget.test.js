import test from "node:test";
import assert from "node:assert/strict";
import { BUDGET, overBudget, sizeLine, sizeOf } from "./budget.mjs";

test("a document's size is its UTF-8 bytes and those gzipped", () => {
  const size = sizeOf("é".repeat(1000));
  assert.equal(size.bytes, 2000);
  assert.ok(size.gzipped > 0 && size.gzipped < 100, size.gzipped);
});

test("what is over the budget is named, gzipped or not; within it, nothing", () => {
  assert.deepEqual(overBudget({ bytes: BUDGET.bytes, gzipped: BUDGET.gzipped }), []);
  assert.deepEqual(overBudget({ bytes: BUDGET.bytes + 1, gzipped: 10 }), ["1,600,001 bytes > 1,600,000"]);
  assert.deepEqual(overBudget({ bytes: 10, gzipped: 420_001 }), ["gzipped 420,001 bytes > 420,000"]);
});

test("the build's line shows each size beside its budget, and the basemap's share", () => {
  assert.equal(
    sizeLine("dist/map.html", { bytes: 1_400_000, gzipped: 410_000 }, BUDGET, 50_000),
    "dist/map.html: 1,400,000 bytes of 1,600,000, gzipped 410,000 of 420,000; the offline basemap 50,000",
  );
  assert.equal(sizeLine("dist/preview.html", { bytes: 5, gzipped: 25 }, null), "dist/preview.html: 5 bytes, gzipped 25");
});
