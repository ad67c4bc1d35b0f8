/**
 * The data-viz view's data in pages of features (docs/result.md): the plan
 * comes in the tool result's `_meta` (or, from a host that dropped it, from
 * `tomtom-get-app-data` with `plan`), and the pages from `tomtom-get-app-data`
 * with `page` (and the plan's `span` of the page's bytes, where it has one),
 * `PARALLEL` at a time, so that several replicas make them at once; each page
 * is handed on as it arrives, to be drawn.
 */
import envelope from "../core/envelope.js";

const { ViewError, KEY, resultText } = envelope;
export const PAGES_KEY = "com.tomtom/app-data-pages";
export const PAGE_KEY = "com.tomtom/app-data-page";
/** Pages asked for at once. */
export const PARALLEL = 3;
/** A page call that failed (not a tool error) is tried this many times in all. */
const TRIES = 2;

/** The plan in `meta` (a result's `_meta`), or null when there is none that holds together. */
export function planOf(meta) {
  const plan = meta && meta[PAGES_KEY];
  if (!plan || typeof plan !== "object") return null;
  const { features, bounds, digest } = plan;
  const ordered =
    Array.isArray(bounds) &&
    bounds.length >= 2 &&
    bounds[0] === 0 &&
    bounds[bounds.length - 1] === features &&
    bounds.every((b, i) => Number.isInteger(b) && (i === 0 || b > bounds[i - 1]));
  return Number.isInteger(features) && ordered && typeof digest === "string" ? plan : null;
}

async function call(callTool, args) {
  let lastError = null;
  for (let attempt = 0; attempt < TRIES; attempt++) {
    try {
      return await callTool("tomtom-get-app-data", { tool: "tomtom-data-viz", ...args });
    } catch (err) {
      lastError = err;
    }
  }
  throw new ViewError("fetch_failed", `Fetching the data failed: ${lastError.message}`);
}

/** The plan, asked of the server for the data-viz of `input` (its tool input). */
export async function askPlan(callTool, input) {
  const result = await call(callTool, { arguments: input, plan: true });
  if (result.isError) throw new ViewError("fetch_failed", `Fetching the data failed: ${resultText(result).slice(0, 300)}`);
  const meta = result._meta || {};
  const plan = planOf(meta);
  if (plan) return plan;
  throw new ViewError("fetch_failed", "The server sent no plan of the data's pages.");
}

/** Page `[start, stop)` of `plan`, decoded and checked: its features. `span`, the page's bytes
 * in the file (a plan of this release's replicas), goes with it as given. */
async function fetchPage(callTool, input, plan, start, stop, span) {
  const page = { from: start, to: stop, digest: plan.digest };
  const result = await call(callTool, span ? { arguments: input, page, span } : { arguments: input, page });
  if (result.isError) throw new ViewError("fetch_failed", `Fetching the data failed: ${resultText(result).slice(0, 300)}`);
  const meta = result._meta || {};
  const place = meta[PAGE_KEY];
  if (!place) throw new ViewError("fetch_failed", "The data answer carried no page.");
  if (place.from !== start || place.to !== stop || place.digest !== plan.digest || typeof meta[KEY] !== "string") {
    throw new ViewError("fetch_failed", `The data pages do not line up (asked for ${start} to ${stop}, got ${place.from} to ${place.to}).`);
  }
  const env = await envelope.decode(meta[KEY]);
  const features = env.data.features;
  if (env.v !== 3 || !Array.isArray(features) || env.data.from !== start || features.length !== stop - start) {
    throw new ViewError("fetch_failed", `The page of features ${start} to ${stop} holds something else.`);
  }
  return features;
}

/**
 * Every page of `plan` for the data-viz of `input`, `PARALLEL` at a time;
 * `onPage(features, start)` as each arrives (in any order). Resolves to every
 * feature, in order. The first failure stops it (the others are not awaited).
 */
export async function fetchPages(callTool, input, plan, onPage = () => {}) {
  const ranges = plan.bounds.slice(1).map((stop, i) => [plan.bounds[i], stop]);
  const spans = Array.isArray(plan.spans) && plan.spans.length === ranges.length ? plan.spans : [];
  const pages = new Array(ranges.length);
  let next = 0;
  async function worker() {
    while (next < ranges.length) {
      const k = next++;
      const [start, stop] = ranges[k];
      pages[k] = await fetchPage(callTool, input, plan, start, stop, spans[k]);
      onPage(pages[k], start);
    }
  }
  await Promise.all(Array.from({ length: Math.min(PARALLEL, ranges.length) }, worker));
  return pages.flat();
}
