/**
 * Data-viz view: the caller's GeoJSON with the caller's layers. Inline app
 * data when the result carries it; otherwise the data in pages of features
 * (docs/result.md): the plan from the result's `_meta` (or asked of the server
 * when the host dropped it), the pages fetched a few at a time with this
 * view's own tool input (pages.js) and drawn as they arrive, with progress
 * (docs/architecture.md, rule 4). The drawing is draw.js's.
 */
import e5 from "../core/e5.js";
import envelope from "../core/envelope.js";
import { boundsOf } from "../core/bounds.js";
import * as mapCore from "../core/map.js";
import { mapSession, links } from "../core/session.js";
import { startView } from "../core/view.js";
import { MAX_ITEMS, drawData, drawPage, highlight, listItems, tagged } from "./draw.js";
import * as pages from "./pages.js";

const FETCHABLE = new Set(["meta_dropped", "too_large", "no_app_data"]);
const session = mapSession(() => ["basemap"], ["basemap"]);

/** Draw the data with its title, legend, list and notes; with `stored` (a result, not a redraw), restore or fit. */
function show(ctx, { geojson, data }, stored) {
  const { map, scene } = session.opened;
  const l10n = ctx.l10n;
  scene.clear();
  ctx.clearNotes();
  const drawn = drawData(scene, geojson, data, { theme: ctx.theme(), l10n, select: (id) => ctx.select(id, "map") });
  for (const row of drawn.legend) if (ctx.isHidden(row.group)) scene.setVisible(row.group, false);
  const { n } = drawn;
  ctx.setTitle(data.title || l10n.t("titles.data"), l10n.t("featuresN", { n }));
  ctx.setLegend(drawn.legend.length > 1 ? drawn.legend : []);
  ctx.setItems([{ title: l10n.t("features"), items: drawn.items }]);
  if (ctx.tilesProblem()) ctx.addNote(ctx.tilesProblem());
  for (const p of drawn.problems) ctx.addNote(p);
  mapCore.describe(map, l10n.t("summary", { what: l10n.t("featuresN", { n }) }));
  mapCore.markIdle(map, ctx.status);
  if (stored !== undefined && !session.restore(ctx, stored)) mapCore.fit(map, boundsOf(geojson));
  return drawn;
}

/**
 * Draw every page arrived so far (`paged.arrived`: start -> features, in arrival
 * order): the first with `drawData`, the others with `drawPage`; then what
 * depends on them. With `stored` (the first draw of a result), restore or fit
 * the plan's extent.
 */
function showPages(ctx, paged, stored) {
  const { scene } = session.opened;
  scene.clear();
  ctx.clearNotes();
  const [[first, features], ...rest] = paged.arrived;
  const options = { theme: ctx.theme(), l10n: ctx.l10n, select: (id) => ctx.select(id, "map"), start: first };
  paged.drawn = drawData(scene, { type: "FeatureCollection", features }, paged.data, options);
  for (const [start, more] of rest) drawPage(scene, paged.drawn, more, start);
  if (ctx.tilesProblem()) ctx.addNote(ctx.tilesProblem());
  for (const p of paged.drawn.problems) ctx.addNote(p);
  decorate(ctx, paged);
  if (stored !== undefined && !session.restore(ctx, stored)) mapCore.fit(session.opened.map, paged.plan.bbox || boundsOf({ type: "FeatureCollection", features }));
  return paged.drawn;
}

/** Title (with the progress while pages come), legend, list and summary of the pages drawn. */
function decorate(ctx, paged) {
  const { drawn, plan } = paged;
  const l10n = ctx.l10n;
  for (const row of drawn.legend) if (ctx.isHidden(row.group)) session.opened.scene.setVisible(row.group, false);
  const n = drawn.n;
  const percent = new Intl.NumberFormat(l10n.locale, { style: "percent" }).format(Math.floor((100 * n) / plan.features) / 100);
  const progress = n === plan.features ? l10n.t("featuresN", { n }) : l10n.t("loadingFeatures", { pct: percent, total: l10n.number(plan.features) });
  ctx.setTitle(paged.data.title || l10n.t("titles.data"), progress);
  ctx.setLegend(drawn.legend.length > 1 ? drawn.legend : []);
  const ordered = [...paged.arrived].sort(([a], [b]) => a - b);
  const first = [];
  for (const [start, features] of ordered) {
    if (first.length >= MAX_ITEMS) break;
    first.push(...tagged({ type: "FeatureCollection", features: features.slice(0, MAX_ITEMS - first.length) }, start));
  }
  ctx.setItems([{ title: l10n.t("features"), items: listItems(first, drawn.labelKeys, l10n, ctx.theme(), drawn.colorOf) }]);
  mapCore.describe(session.opened.map, l10n.t("summary", { what: l10n.t("featuresN", { n }) }));
  mapCore.markIdle(session.opened.map, ctx.status);
}

/** Fetch the plan's pages and draw each as it arrives; resolves once all are drawn. */
async function drawPaged(ctx, input, plan, stored) {
  const paged = { plan, data: { layers: plan.layers, title: plan.title }, arrived: new Map(), drawn: null };
  await session.open(ctx);
  ctx.showMessage("loading", ctx.t("loading"), ctx.l10n.t("loadingFeatures", { pct: "0%", total: ctx.l10n.number(plan.features) }), 0);
  await pages.fetchPages(ctx.callTool, input, plan, (features, start) => {
    paged.arrived.set(start, features);
    ctx.status.set({ pages: paged.arrived.size });
    if (paged.drawn === null) {
      ctx.hideMessage();
      ctx.draw((ctx, stored) => showPages(ctx, paged, stored), stored);
    } else {
      drawPage(session.opened.scene, paged.drawn, features, start);
      decorate(ctx, paged);
    }
  });
  return paged.drawn;
}

/** The data when the result did not carry it, drawn page by page. */
async function fetched(ctx, input, plan, stored) {
  return drawPaged(ctx, input, plan ?? (await pages.askPlan(ctx.callTool, input)), stored);
}

/** Report what was drawn. */
function drawnOk(ctx, { n, drawnLayers, labels, problems }) {
  const counts = { features: n, layers: drawnLayers, labels };
  if (n === 0) return ctx.empty(ctx.t("nothingFound"), "The data has no features to show.", counts);
  const detail = [`${n} features`, `${drawnLayers} layers`, session.opened.tiles ? "basemap tiles" : "offline basemap", ...problems];
  ctx.ok(detail.join(", "), counts);
}

async function onResult(result, ctx, stored) {
  let env;
  try {
    env = await envelope.fromResult(result);
  } catch (err) {
    if (!FETCHABLE.has(err.reason)) throw err;
    ctx.showMessage("loading", ctx.t("loading"), "Fetching the data from the server.", null);
    const input = await ctx.waitForInput();
    if (!input) {
      throw new envelope.ViewError(
        "no_input",
        `${err.message} The host sent no tool input either, so the data cannot be fetched.`,
      );
    }
    ctx.tool = "tomtom-data-viz";
    const plan = pages.planOf(result?._meta || window.openai?.toolResponseMetadata);
    const drawn = await fetched(ctx, input, plan, stored);
    ctx.status.set({ fetched: true });
    return drawnOk(ctx, { ...drawn, drawnLayers: drawn.legend.length + (drawn.labels ? 1 : 0) });
  }
  ctx.tool = "tomtom-data-viz";
  const data = env.data || {};
  if (!data.geojson || typeof data.geojson !== "object") {
    throw new envelope.ViewError("decode_failed", "The data-viz data has no geojson.");
  }
  let geojson;
  try {
    geojson = e5.decodeGeoJSON(data.geojson);
  } catch (err) {
    throw new envelope.ViewError("decode_failed", `The GeoJSON is malformed: ${err.message}`);
  }
  await session.open(ctx);
  drawnOk(ctx, ctx.draw((ctx, stored) => show(ctx, { geojson, data }, stored), stored));
}

startView({
  name: "tomtom-data-viz",
  tool: "tomtom-data-viz",
  oneTool: true,
  links,
  session,
  onResult,
  onSelect: session.selecting(highlight),
});
