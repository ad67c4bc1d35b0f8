import test from "node:test";
import assert from "node:assert/strict";
import { viewState } from "./viewstate.js";
import { memoryStorage } from "../testing/fakes.js";

const UUID = "3f0c9b1e-8d5a-4c2e-9f47-6a1b2c3d4e5f";

test("the camera and selection saved under a viewUUID come back for the same UUID only", () => {
  const storage = memoryStorage();
  viewState(UUID, storage).save({ camera: { center: [4.9, 52.37], zoom: 12.5, bearing: 0 }, selected: "place-2" });
  assert.deepEqual(viewState(UUID, storage).load().camera, { center: [4.9, 52.37], zoom: 12.5, bearing: 0 });
  assert.equal(viewState(UUID, storage).load().selected, "place-2");
  assert.equal(viewState("aaaaaaaa-0000-0000-0000-000000000000", storage).load(), null);
});

test("without a usable UUID or storage nothing is stored and nothing throws", () => {
  for (const uuid of [undefined, "", "../../etc", "x".repeat(100)]) {
    const s = viewState(uuid, memoryStorage());
    assert.equal(s.enabled, false);
    assert.equal(s.save({ selected: "a" }), false);
    assert.equal(s.load(), null);
  }
  const full = { ...memoryStorage(), setItem: () => { throw new Error("QuotaExceededError"); } };
  assert.equal(viewState(UUID, full).save({ selected: "a" }), false);
  assert.equal(viewState(UUID, null).load(), null);
});

test("unreadable stored state is ignored rather than restored", () => {
  const storage = memoryStorage();
  storage.setItem(`tomtom-view:${UUID}`, "{not json");
  assert.equal(viewState(UUID, storage).load(), null);
});

test("only the most recent views are kept", () => {
  const storage = memoryStorage();
  for (let i = 0; i < 205; i++) viewState(`view-${String(i).padStart(8, "0")}`, storage).save({ selected: "x", savedAt: i });
  assert.equal(storage.length, 200);
});
