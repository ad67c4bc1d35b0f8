import test from "node:test";
import assert from "node:assert/strict";
import { keepIslands } from "./topology.mjs";

const island = () => [[0, 0, Infinity], [1, 0, 0.002], [1, 1, 0.004], [0.5, 1.2, 0.001], [0, 1, 0.003], [0, 0, Infinity]];

test("an island at least the given area keeps its three heaviest inner vertices", () => {
  const topology = keepIslands({ arcs: [island()] }, 1);
  assert.deepEqual(topology.arcs[0].map((p) => p[2]), [Infinity, Infinity, Infinity, 0.001, Infinity, Infinity]);
});

test("a smaller island and an open arc (a border) keep their weights", () => {
  const open = island().slice(0, -1);
  const topology = keepIslands({ arcs: [island(), open] }, 1.2);
  assert.deepEqual(topology.arcs[0], island());
  assert.deepEqual(topology.arcs[1], open);
});
