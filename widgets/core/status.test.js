import test from "node:test";
import assert from "node:assert/strict";
import { createStatus, datasetOf, classesOf, render } from "./status.js";
import { fakeBody } from "../testing/fakes.js";

test("a view starts loading, which the page already says", () => {
  const body = fakeBody({ view: "map", status: "loading" });
  const status = createStatus(body);
  assert.equal(status.state.status, "loading");
  assert.deepEqual(body.dataset, { view: "map", status: "loading" });
});

test("every change is rendered at once, as the strings the browser tests read", () => {
  const body = fakeBody({ view: "map" });
  const status = createStatus(body);
  status.set({ status: "ok", reason: "drawn", items: 3, selected: "place-1", camera: { center: [4.9, 52.37], zoom: 12, bearing: 0 } });
  status.set((s) => ({ counts: { ...s.counts, features: 3, fitted: "" } }));
  assert.deepEqual(body.dataset, {
    view: "map",
    status: "ok",
    reason: "drawn",
    items: "3",
    selected: "place-1",
    camera: '{"center":[4.9,52.37],"zoom":12,"bearing":0}',
    features: "3",
    fitted: "",
  });
});

test("flags read '1' or '' once known, while idle, moving and fetched are there only when true", () => {
  assert.deepEqual(datasetOf({ stored: false, restored: true, paused: false }), { stored: "", restored: "1", paused: "" });
  assert.deepEqual(datasetOf({ idle: false, moving: false, fetched: false }), {});
  assert.deepEqual(datasetOf({ idle: true, moving: true, fetched: true }), { idle: "1", moving: "1", fetched: "1" });
  assert.deepEqual(datasetOf({ stored: undefined, paused: null }), {});
});

test("a key whose value goes is removed from the dataset, and only that key", () => {
  const body = fakeBody({ view: "traffic" });
  const status = createStatus(body);
  status.set({ partial: 1, moving: true, popup: "incident-0" });
  status.set({ partial: null, moving: false });
  assert.deepEqual(body.dataset, { view: "traffic", status: "loading", popup: "incident-0" });
  status.set({ popup: null });
  assert.deepEqual(body.dataset, { view: "traffic", status: "loading" });
});

test("what the view keeps for itself is not rendered", () => {
  const body = fakeBody();
  createStatus(body).set({ connected: true, resulted: true, tilesProblem: "No tiles.", hidden: ["routes"], lastReport: "ok:drawn:x" });
  assert.deepEqual(body.dataset, { status: "loading" });
});

test("counts add to each other and never overwrite a status key", () => {
  const body = fakeBody();
  const status = createStatus(body);
  status.set({ counts: { features: 2 } });
  status.set((s) => ({ counts: { ...s.counts, layers: 1 } }));
  assert.equal(body.dataset.features, "2");
  assert.equal(body.dataset.layers, "1");
  assert.throws(() => status.set({ counts: { status: 1 } }), /status key/);
});

test("the body's classes show the list when it has items and pause animations while scrolled away", () => {
  assert.deepEqual(classesOf({ items: 0 }), { "tt-has-list": false, "tt-paused": false });
  assert.deepEqual(classesOf({ items: 4, paused: true }), { "tt-has-list": true, "tt-paused": true });
  const body = fakeBody();
  const status = createStatus(body);
  status.set({ items: 2, paused: true });
  assert.ok(body.classList.contains("tt-has-list") && body.classList.contains("tt-paused"));
  status.set({ items: 0, paused: false });
  assert.ok(!body.classList.contains("tt-has-list") && !body.classList.contains("tt-paused"));
});

test("render writes only what changed", () => {
  const writes = [];
  const dataset = new Proxy({}, { set: (target, key, value) => (writes.push(key), (target[key] = value), true) });
  const body = fakeBody(dataset);
  const first = render({ status: "ok", reason: "drawn" }, body);
  render({ status: "ok", reason: "empty" }, body, first);
  assert.deepEqual(writes, ["status", "reason", "reason"]);
});
