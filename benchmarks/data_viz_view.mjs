/**
 * The data-viz view's fetching and decoding, run in node against a replica, for
 * benchmarks/data_viz.py: the tool call as a host makes it, then the view's own
 * code (widgets/data_viz/pages.js, widgets/core/envelope.js) fetches the data:
 * the plan from the result's _meta and its pages a few at a time, or, from a
 * server of the release before pages, the envelope by offset; every page is
 * decoded by the view's decoder. Prints one JSON line: milliseconds until the
 * tool result, until the last page was decoded, pages, features, characters.
 *
 *   node benchmarks/data_viz_view.mjs <mcp url> '<tool arguments as JSON>'
 */
import envelope from "../widgets/core/envelope.js";
import * as pages from "../widgets/data_viz/pages.js";

const [url, argsJson] = process.argv.slice(2);
const input = JSON.parse(argsJson);
let id = 0;
let chars = 0;

/** One stateless tools/call, as a host sends a view's call (protocol 2025-11-25). */
async function callTool(name, args) {
  const response = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-protocol-version": "2025-11-25" },
    body: JSON.stringify({ jsonrpc: "2.0", id: ++id, method: "tools/call", params: { name, arguments: args } }),
  });
  const text = await response.text();
  chars += text.length;
  const message = JSON.parse(text);
  if (message.error) throw new Error(`JSON-RPC error ${message.error.code}: ${message.error.message}`);
  return message.result;
}

const started = performance.now();
const result = await callTool("tomtom-data-viz", input);
const resulted = performance.now();
if (result.isError) throw new Error(envelope.resultText(result));
let features;
let count = 0;
try {
  const env = await envelope.fromResult(result);
  features = env.data.geojson.features;
} catch (err) {
  if (err.reason !== "too_large") throw err;
  try {
    const plan = pages.planOf(result._meta) ?? (await pages.askPlan(callTool, input));
    features = await pages.fetchPages(callTool, input, plan, () => count++);
  } catch (err) {
    if (err.reason !== pages.LEGACY) throw err;
    const env = await envelope.fetchPaged(callTool, input, () => count++);
    features = env.data.geojson.features;
  }
}
const done = performance.now();
process.stdout.write(
  JSON.stringify({ result_ms: resulted - started, drawn_ms: done - started, pages: count, features: features.length, chars }) + "\n",
);
