import test from "node:test";
import assert from "node:assert/strict";
import zlib from "node:zlib";
import { GIVE_UP_MS, JOB_KEY, PAGE_KEY, PARALLEL, RESUME_TOOL, boundsOf, fetchPages, jobOf, untilDone } from "./jobs.js";

const KEY = "com.tomtom/app-data";
const running = (n) => ({ content: [], _meta: { [JOB_KEY]: { handle: "H", state: "running", rows: 500, submitted: n } } });
const done = { content: [], _meta: { [JOB_KEY]: { handle: "H", state: "done" }, [KEY]: "x" } };
const pageOf = (from, to) =>
  zlib.gzipSync(Buffer.from(JSON.stringify({ v: 2, tool: "tomtom-batch-geocode", data: { type: "FeatureCollection", features: [], batch: { rows: 10, from, to, q: "U".repeat(to - from), conf: Array(to - from).fill(-1) } }, fitted: null }))).toString("base64");

test("the job comes from the result's _meta, else from its text, where a host that dropped _meta leaves it", () => {
  assert.equal(jobOf(running(1)).state, "running");
  const text = { content: [{ type: "text", text: JSON.stringify({ job: "H2", state: "running", rows: 9 }) }], _meta: {} };
  assert.deepEqual(jobOf(text), { handle: "H2", state: "running", rows: 9 });
  assert.equal(jobOf({ content: [{ type: "text", text: "not json" }] }), null);
  assert.equal(jobOf({ content: [{ type: "text", text: '{"rows": 3}' }] }), null);
});

test("a running job is polled with its handle until the result comes, each state told", async () => {
  const answers = [running(1), running(1), done];
  const asked = [];
  const states = [];
  let clock = 0;
  const result = await untilDone(
    async (name, args) => {
      asked.push([name, args]);
      return answers.shift();
    },
    "H",
    (job) => states.push(job.state),
    { now: () => clock, sleep: async (ms) => (clock += ms) },
  );
  assert.equal(result, done);
  assert.deepEqual(asked, Array(3).fill([RESUME_TOOL, { job: "H" }]));
  assert.deepEqual(states, ["running", "running"]);
  assert.equal(clock, 2000, "a second between polls at least");
});

test("a job TomTom has not finished in half an hour, or a refusal, ends in words the user can act on", async () => {
  let clock = 0;
  const slow = untilDone(async () => running(1), "H", () => {}, { now: () => clock, sleep: async (ms) => (clock += ms * 1000) });
  await assert.rejects(slow, /still working on this job after 30 minutes/);
  assert.ok(clock > GIVE_UP_MS);
  const refused = untilDone(async () => ({ isError: true, content: [{ type: "text", text: "job: this job was started by another user" }] }), "H");
  await assert.rejects(refused, (err) => err.reason === "fetch_failed" && /another user/.test(err.message));
});

test("pages are fetched a few at a time, each checked against the rows asked for", async () => {
  let open = 0;
  let most = 0;
  const got = [];
  await fetchPages(
    async (name, { page }) => {
      open++;
      most = Math.max(most, open);
      await new Promise((r) => setTimeout(r, 5));
      open--;
      return { content: [], _meta: { [PAGE_KEY]: { from: page.from, to: page.to, rows: 10 }, [KEY]: pageOf(page.from, page.to) } };
    },
    "H",
    [0, 3, 6, 9, 10],
    (env) => got.push(env.data.batch.from),
  );
  assert.deepEqual(got.sort((a, b) => a - b), [0, 3, 6, 9]);
  assert.equal(most, PARALLEL);
  const crossed = fetchPages(async () => ({ content: [], _meta: { [PAGE_KEY]: { from: 0, to: 2 }, [KEY]: pageOf(0, 2) } }), "H", [0, 3]);
  await assert.rejects(crossed, /do not line up/);
});

test("page boundaries are taken only when they hold together", () => {
  assert.deepEqual(boundsOf({ rows: 10, pages: [0, 4, 10] }), [0, 4, 10]);
  assert.equal(boundsOf({ rows: 10, pages: [0, 4, 9] }), null);
  assert.equal(boundsOf({ rows: 10, pages: [0, 6, 4, 10] }), null);
  assert.equal(boundsOf({ rows: 10 }), null);
});
