import test from "node:test";
import assert from "node:assert/strict";
import { directionsLink, placeLink } from "./links.js";

test("links go to TomTom's planner over https, with the position rounded and the language encoded", () => {
  assert.equal(placeLink([4.8932123, 52.3731456], "de"), "https://plan.tomtom.com/de/?p=52.37315,4.89321,16z");
  assert.equal(directionsLink([4.8932, 52.3731], "nl"), "https://plan.tomtom.com/nl/route/plan?destination=52.3731,4.8932");
  assert.ok(placeLink([4.9, 52.4], "x/../y").startsWith("https://plan.tomtom.com/x%2F..%2Fy/"));
});

test("no link for a position that is not one", () => {
  for (const p of [undefined, [], [200, 10], [4.9, NaN], ["4.9", "52"]]) {
    assert.equal(placeLink(p), null);
    assert.equal(directionsLink(p), null);
  }
});
