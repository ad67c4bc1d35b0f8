/**
 * Batch view: many geocoded addresses, and GPS traces snapped to roads
 * (`tomtom-batch-geocode`, `tomtom-snap-to-roads`, `tomtom-job-result`).
 *
 * A batch TomTom has not finished within its call comes with a job handle
 * and `state: running`: the view shows how long TomTom has worked and polls
 * `tomtom-resume-job` (any replica answers) until the rows come. The rows
 * drawn at once are those inline; a large batch's other rows, and every
 * row's address, come in pages of `tomtom-resume-job`, drawn as they arrive;
 * once every row is in, the rows download as CSV where the host offers
 * downloads. A host that dropped `_meta` still gives the handle in the
 * result's text, and the view fetches the rest with it.
 */
import e5 from "../core/e5.js";
import envelope from "../core/envelope.js";
import { boundsOf as fcBounds } from "../core/bounds.js";
import * as mapCore from "../core/map.js";
import { mapSession, links } from "../core/session.js";
import { startView } from "../core/view.js";
import { drawRows, drawTrace, highlight } from "./draw.js";
import { boundsOf, fetchPages, jobOf, untilDone } from "./jobs.js";
import { createRows, csvOf, rowsOf } from "./rows.js";
import { addWords } from "./words.js";

addWords();

const session = mapSession(
  (theme, config) => (theme === "dark" && config.tiles.basemap_night ? ["basemap_night"] : ["basemap"]),
  ["basemap", "basemap_night"],
);
const RETRYABLE = new Set(["meta_dropped", "too_large", "no_app_data"]);

function count(ctx, patch) {
  ctx.status.set((s) => ({ counts: { ...s.counts, ...patch } }));
}

/** The seconds since `submitted` (unix seconds) as the view's locale says a duration. */
function working(ctx, job) {
  const seconds = Math.max(0, Date.now() / 1000 - (job.submitted || Date.now() / 1000));
  return seconds < 60 ? ctx.l10n.number(Math.round(seconds)) + " s" : ctx.l10n.duration(seconds);
}

function showRunning(ctx, job) {
  count(ctx, { jobState: "running", jobPolls: (Number(ctx.status.state.counts.jobPolls) || 0) + 1 });
  ctx.showMessage("loading", ctx.t("batch.running", { n: job.rows ?? "" }), ctx.t("batch.workingFor", { t: working(ctx, job) }), null);
}

/** The finished result of the job `result` names, polling while TomTom works. */
async function finished(ctx, result, job) {
  if (job.state !== "running") return result;
  await session.open(ctx);
  showRunning(ctx, job);
  const done = await untilDone(ctx.callTool, job.handle, (j) => showRunning(ctx, j));
  count(ctx, { jobState: "done" });
  return done;
}

async function onResult(received, ctx, stored) {
  let result = received;
  let job = received.isError ? null : jobOf(received);
  if (job) result = await finished(ctx, result, job);
  let env;
  try {
    env = await envelope.fromResult(result);
  } catch (err) {
    if (!job || !RETRYABLE.has(err.reason)) throw err;
    // The host dropped the data but the text names the job: its state has it all.
    const asked = await untilDone(ctx.callTool, job.handle, (j) => showRunning(ctx, j));
    env = await envelope.fromResult(asked);
    job = jobOf(asked) || job;
    ctx.status.set({ fetched: true });
  }
  ctx.tool = env.tool;
  let fc;
  try {
    fc = e5.decodeGeoJSON(env.data);
  } catch (err) {
    throw new envelope.ViewError("decode_failed", `The map data is malformed: ${err.message}`);
  }
  await session.open(ctx);
  if (fc.batch) return showBatch(ctx, fc, job, stored);
  return showTrace(ctx, fc, stored);
}

/** Geocoded rows: those inline drawn now, the rest (and every row's details) page by page. */
async function showBatch(ctx, fc, job, stored) {
  let rows;
  try {
    rows = createRows(fc.batch.rows);
    rows.add(rowsOf(fc));
  } catch (err) {
    throw new envelope.ViewError("decode_failed", `The rows are malformed: ${err.message}`);
  }
  const box = fc.bbox || fcBounds(fc);
  const draw = (first) => ctx.draw((ctx, stored) => drawBatch(ctx, rows, first ? stored : undefined, box), first ? stored : undefined);
  draw(true);
  const bounds = boundsOf(fc.batch);
  if (bounds && job && !rows.complete()) {
    let done = 0;
    const progress = () => ctx.setTitle(ctx.t("batch.title"), ctx.t("batch.loadingRows", { done: ctx.l10n.number(rows.filled), total: ctx.l10n.number(rows.total) }));
    progress();
    await fetchPages(ctx.callTool, job.handle, bounds, (page) => {
      rows.add(rowsOf(e5.decodeGeoJSON(page.data)));
      count(ctx, { rowPages: ++done });
      draw(false);
    });
  }
  const drawn = draw(false);
  offerCsv(ctx, rows);
  const c = rows.counts();
  const counts = { rows: rows.total, located: drawn.located, attention: rows.total - c.matched, matched: c.matched };
  if (drawn.located === 0 && rows.total) return ctx.empty(ctx.t("nothingFound"), ctx.t("batch.attentionN", { n: rows.total }), counts);
  ctx.ok(`${rows.total} rows, ${drawn.located} located, ${counts.attention} need attention`, counts);
}

function drawBatch(ctx, rows, stored, box) {
  const { map, scene } = session.opened;
  scene.clear();
  ctx.clearNotes();
  const list = rows.list();
  const drawn = drawRows(scene, list, { theme: ctx.theme(), l10n: ctx.l10n, select: (id) => ctx.select(id, "map") });
  const c = rows.counts();
  ctx.setTitle(ctx.t("batch.title"), [ctx.t("batch.rowsN", { n: rows.total }), c.matched < rows.total ? ctx.t("batch.attentionN", { n: rows.total - c.matched }) : ctx.t("batch.allMatched")].join(" · "));
  ctx.setLegend(drawn.legend);
  ctx.setItems(drawn.groups);
  if (ctx.isHidden("rows")) scene.setVisible("rows", false);
  if (ctx.tilesProblem()) ctx.addNote(ctx.tilesProblem());
  mapCore.describe(map, ctx.t("summary", { what: ctx.t("batch.rowsN", { n: drawn.located }) }));
  mapCore.markIdle(map, ctx.status);
  if (stored !== undefined && !session.restore(ctx, stored) && box) mapCore.fit(map, box);
  return drawn;
}

/** A CSV of every row, where the host takes downloads and every row is in. */
function offerCsv(ctx, rows) {
  if (!ctx.app.getHostCapabilities?.()?.downloadFile || !rows.complete()) return;
  let button = document.getElementById("download");
  if (!button) {
    button = document.createElement("button");
    button.id = "download";
    button.type = "button";
    button.className = "tt-panel tt-download";
    document.getElementById("stage").append(button);
  }
  button.textContent = ctx.t("batch.download");
  button.onclick = async () => {
    const text = csvOf(rows.list());
    const resource = { uri: "file:///geocoded-addresses.csv", mimeType: "text/csv", text };
    try {
      const answer = await ctx.app.downloadFile({ contents: [{ type: "resource", resource }] });
      if (answer?.isError) return ctx.addNote("The host did not take the CSV.");
      count(ctx, { csv: text.length });
      ctx.addNote(ctx.t("batch.downloaded"));
    } catch (err) {
      ctx.addNote(`The host cannot download files (${err.message}).`);
    }
  };
  count(ctx, { csvOffered: 1 });
}

function showTrace(ctx, fc, stored) {
  const drawn = ctx.draw((ctx, stored) => drawSnapped(ctx, fc, stored), stored);
  if (drawn.parts === 0) return ctx.empty(ctx.t("nothingFound"), ctx.t("noFeatures"), { parts: 0 });
  ctx.ok(`${drawn.parts} snapped parts, ${drawn.stretches} stretches over the limit`, { parts: drawn.parts, stretches: drawn.stretches });
}

function drawSnapped(ctx, fc, stored) {
  const { map, scene } = session.opened;
  scene.clear();
  ctx.clearNotes();
  const drawn = drawTrace(scene, fc, { theme: ctx.theme(), l10n: ctx.l10n, select: (id) => ctx.select(id, "map"), hover: (text) => hovered(ctx, text) });
  const sum = fc.summary || {};
  const said = [];
  if (Number.isFinite(sum.distance_km)) said.push(ctx.t("batch.driven", { d: ctx.l10n.distance(sum.distance_km * 1000) }));
  if (Number.isFinite(sum.matched_share)) said.push(ctx.t("batch.onRoads", { p: new Intl.NumberFormat(ctx.l10n.locale, { style: "percent" }).format(sum.matched_share) }));
  ctx.setTitle(ctx.t("batch.traceTitle"), said.join(" · "));
  ctx.setLegend(drawn.legend);
  ctx.setItems(drawn.groups);
  for (const group of ["trace", "snapped", "over"]) if (ctx.isHidden(group)) scene.setVisible(group, false);
  if (ctx.tilesProblem()) ctx.addNote(ctx.tilesProblem());
  mapCore.describe(map, ctx.t("summary", { what: ctx.t("batch.snapped") }));
  mapCore.markIdle(map, ctx.status);
  if (stored !== undefined && !session.restore(ctx, stored)) mapCore.fit(map, fc.bbox || fcBounds(fc));
  return drawn;
}

/** The road under the pointer, in a panel of its own. */
function hovered(ctx, text) {
  let panel = document.getElementById("hover");
  if (!panel) {
    panel = document.createElement("div");
    panel.id = "hover";
    panel.className = "tt-panel tt-hover";
    panel.setAttribute("role", "status");
    document.getElementById("stage").append(panel);
  }
  panel.hidden = !text;
  panel.textContent = text || "";
  count(ctx, { hover: text || "" });
}

startView({
  name: "tomtom-batch",
  tool: "tomtom-batch-geocode",
  links,
  session,
  onResult,
  onSelect: session.selecting(highlight),
});
