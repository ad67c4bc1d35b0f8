import test from "node:test";
import assert from "node:assert/strict";
import zlib from "node:zlib";
import envelope from "../core/envelope.js";
import { PAGES_KEY, PAGE_KEY, PARALLEL, askPlan, fetchPages, planOf } from "./pages.js";

const point = (i) => ({ type: "Feature", properties: { i }, geometry: { type: "Point", coordinates: [i, 2 * i] } });
const FEATURES = Array.from({ length: 10 }, (_, i) => point(i));
const PLAN = { features: 10, bounds: [0, 3, 6, 9, 10], digest: "abc-1", layers: [{ type: "circle" }], title: "T" };
const page = (start, stop) =>
  zlib.gzipSync(Buffer.from(JSON.stringify({ v: 3, tool: "tomtom-data-viz", data: { features: FEATURES.slice(start, stop), from: start, to: stop }, fitted: null }))).toString("base64");

/**
 * A server answering every page of PLAN, or `answer(args)`; the reply to the page from
 * `from` waits for `holds[from]` (a promise the test settles). Records what was asked and the most
 * calls open at once.
 */
function server({ holds = {}, answer = null } = {}) {
  const asked = [];
  let open = 0;
  let most = 0;
  const callTool = async (name, args) => {
    asked.push([name, args]);
    open++;
    most = Math.max(most, open);
    if (args.page && holds[args.page.from]) await holds[args.page.from];
    else await Promise.resolve();
    open--;
    if (answer) return answer(args);
    if (args.plan) return { content: [], _meta: { [PAGES_KEY]: PLAN } };
    const { from, to, digest } = args.page;
    return { content: [], _meta: { [envelope.KEY]: page(from, to), [PAGE_KEY]: { from, to, digest } } };
  };
  return { callTool, asked, most: () => most };
}

test("a plan holds together or is none", () => {
  assert.equal(planOf({ [PAGES_KEY]: PLAN }), PLAN);
  for (const bad of [{ ...PLAN, bounds: [0, 3, 3, 10] }, { ...PLAN, bounds: [1, 10] }, { ...PLAN, features: 11 }, { ...PLAN, digest: 3 }, null]) {
    assert.equal(planOf({ [PAGES_KEY]: bad }), null, JSON.stringify(bad));
  }
  assert.equal(planOf(undefined), null);
});

test("every page is fetched a few at a time, handed on as it arrives, and the features come back in order", async () => {
  // Each page answers once the one before it in this order was handed on (decoding is
  // asynchronous, so answers at once could be handed on in either order): 3, 6, 9, then
  // the first page, which answers only once the others are in.
  const release = {};
  const holds = Object.fromEntries([6, 9, 0].map((from) => [from, new Promise((r) => (release[from] = r))]));
  const next = { 3: 6, 6: 9, 9: 0 };
  const s = server({ holds });
  const seen = [];
  const features = await fetchPages(s.callTool, { data_url: "u" }, PLAN, (f, start) => {
    seen.push([start, f.length]);
    release[next[start]]?.();
  });
  assert.deepEqual(features, FEATURES);
  assert.equal(s.most(), PARALLEL);
  assert.deepEqual(seen, [[3, 3], [6, 3], [9, 1], [0, 3]], "handed on as they arrive");
  assert.deepEqual(
    s.asked.map(([name, a]) => [name, a.tool, a.arguments.data_url, a.page.from, a.page.to, a.page.digest]),
    [0, 3, 6, 9].map((from, k) => ["tomtom-get-app-data", "tomtom-data-viz", "u", from, PLAN.bounds[k + 1], "abc-1"]),
  );
});

test("each page's span of the plan goes with its page; a plan without spans sends none", async () => {
  const spans = [0, 1, 2, 3].map((k) => ({ from: 10 * k, to: 10 * k + 9, crc32: `0000000${k}` }));
  const s = server();
  assert.deepEqual(await fetchPages(s.callTool, { data_url: "u" }, { ...PLAN, spans }), FEATURES);
  assert.deepEqual(s.asked.map(([, a]) => [a.page.from, a.span]), [0, 3, 6, 9].map((from, k) => [from, spans[k]]));
  for (const plan of [PLAN, { ...PLAN, spans: spans.slice(1) }]) {
    const without = server();
    assert.deepEqual(await fetchPages(without.callTool, { data_url: "u" }, plan), FEATURES);
    assert.ok(without.asked.every(([, a]) => !("span" in a)));
  }
});

test("the plan is asked of the server when the result lost it", async () => {
  const s = server();
  assert.deepEqual(await askPlan(s.callTool, { geojson: {} }), PLAN);
  assert.deepEqual(s.asked[0][1], { tool: "tomtom-data-viz", arguments: { geojson: {} }, plan: true });
});

test("a tool error, a page out of line or of something else, and a call that keeps failing stop it with a reason", async () => {
  const refused = server({ answer: () => ({ isError: true, content: [{ type: "text", text: "the file at data_url changed" }] }) });
  await assert.rejects(fetchPages(refused.callTool, {}, PLAN), (e) => e.reason === "fetch_failed" && /changed/.test(e.message));
  const shifted = server({ answer: ({ page: p }) => ({ content: [], _meta: { [envelope.KEY]: page(p.from, p.to), [PAGE_KEY]: { ...p, from: p.from + 1 } } }) });
  await assert.rejects(fetchPages(shifted.callTool, {}, PLAN), /do not line up/);
  const short = server({ answer: ({ page: p }) => ({ content: [], _meta: { [envelope.KEY]: page(p.from, p.to - 1), [PAGE_KEY]: p } }) });
  await assert.rejects(fetchPages(short.callTool, {}, PLAN), /holds something else/);
  let calls = 0;
  const flaky = async () => {
    calls++;
    throw new Error("host gone");
  };
  await assert.rejects(fetchPages(flaky, {}, { ...PLAN, bounds: [0, 10] }), (e) => e.reason === "fetch_failed" && /host gone/.test(e.message));
  assert.equal(calls, 2, "tried once more");
});
