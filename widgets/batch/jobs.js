/**
 * A long TomTom job from the view: its state polled with `tomtom-resume-job`
 * until TomTom is done (any replica answers: the job handle is sealed, not
 * stored), and a finished batch's rows fetched in pages, a few at a time
 * (docs/result.md). The handle comes from the result's `_meta` or, from a
 * host that dropped `_meta`, from the result's text, where the model reads it.
 */
import envelope from "../core/envelope.js";

const { ViewError, KEY, resultText } = envelope;
export const JOB_KEY = "com.tomtom/job";
export const PAGE_KEY = "com.tomtom/batch-page";
export const RESUME_TOOL = "tomtom-resume-job";
/** Pages asked for at once (each downloads TomTom's answer again on its replica). */
export const PARALLEL = 2;
/** A view stops waiting for TomTom after this long, and says how to ask later. */
export const GIVE_UP_MS = 30 * 60 * 1000;
/** The least time between two polls (each already waits on the server while TomTom works). */
const MIN_POLL_MS = 1000;

/** The job a result names: `{handle, state, rows, submitted}` from `_meta`, else from the text; null when none. */
export function jobOf(result) {
  const meta = result?._meta || {};
  const job = meta[JOB_KEY];
  if (job && typeof job.handle === "string") return job;
  try {
    const text = JSON.parse(resultText(result) || "{}");
    if (typeof text.job === "string") return { handle: text.job, state: text.state || "done", rows: text.rows };
  } catch {
    // not JSON: no job
  }
  return null;
}

async function call(callTool, args) {
  let lastError = null;
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const result = await callTool(RESUME_TOOL, args);
      if (result.isError) throw new ViewError("fetch_failed", resultText(result).slice(0, 300) || "the server refused");
      return result;
    } catch (err) {
      if (err instanceof ViewError) throw err;
      lastError = err;
    }
  }
  throw new ViewError("fetch_failed", `Asking the server about the job failed: ${lastError.message}`);
}

/**
 * Poll the job `handle` until TomTom is done; `onState(job)` with each answer
 * while it runs. Resolves to the finished result (with its app data).
 */
export async function untilDone(callTool, handle, onState = () => {}, { now = Date.now, sleep = wait } = {}) {
  const started = now();
  for (;;) {
    const asked = now();
    const result = await call(callTool, { job: handle });
    const job = result._meta?.[JOB_KEY];
    if (!job || job.state !== "running") return result;
    onState(job);
    if (now() - started > GIVE_UP_MS) {
      throw new ViewError("fetch_failed", "TomTom is still working on this job after 30 minutes; ask for its result later (tomtom-job-result).");
    }
    await sleep(Math.max(0, MIN_POLL_MS - (now() - asked)));
  }
}

function wait(ms) {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Rows `[start, stop)` of the finished batch `handle`: the decoded page envelope. */
async function fetchPage(callTool, handle, start, stop) {
  const result = await call(callTool, { job: handle, page: { from: start, to: stop } });
  const meta = result._meta || {};
  const place = meta[PAGE_KEY];
  if (!place || place.from !== start || place.to !== stop || typeof meta[KEY] !== "string") {
    throw new ViewError("fetch_failed", `The rows do not line up (asked for ${start} to ${stop}).`);
  }
  return envelope.decode(meta[KEY]);
}

/**
 * Every page of `bounds` (row boundaries 0, ..., rows) of the batch `handle`,
 * `PARALLEL` at a time; `onPage(env)` as each arrives, in any order. The
 * first failure stops it.
 */
export async function fetchPages(callTool, handle, bounds, onPage = () => {}) {
  const ranges = bounds.slice(1).map((stop, i) => [bounds[i], stop]);
  let next = 0;
  async function worker() {
    while (next < ranges.length) {
      const [start, stop] = ranges[next++];
      onPage(await fetchPage(callTool, handle, start, stop));
    }
  }
  await Promise.all(Array.from({ length: Math.min(PARALLEL, ranges.length) }, worker));
}

/** Page boundaries that hold together (0 first, the rows last, increasing), or null. */
export function boundsOf(batch) {
  const b = batch?.pages;
  const ok =
    Array.isArray(b) && b.length >= 2 && b[0] === 0 && b[b.length - 1] === batch.rows && b.every((v, i) => Number.isInteger(v) && (i === 0 || v > b[i - 1]));
  return ok ? b : null;
}
