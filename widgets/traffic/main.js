/**
 * Traffic view: the incidents of the tool result (app data: their geometry
 * and properties, compact), drawn by magnitude of delay with a popup each, in
 * the requested area, over TomTom's live flow tiles when a key exists; the
 * flow refreshes every two minutes while the view is on screen.
 */
import e5 from "../core/e5.js";
import envelope from "../core/envelope.js";
import { boundsOf, parseBbox, union } from "../core/bounds.js";
import * as mapCore from "../core/map.js";
import { partialFeatures } from "../core/partial.js";
import { mapSession, links } from "../core/session.js";
import { startView } from "../core/view.js";
import { drawArea, drawIncidents, highlight } from "./draw.js";

const REFRESH_MS = 120000;
const session = mapSession(() => ["basemap", "traffic_flow"], ["basemap", "traffic_flow"]);
let refresh = null;

async function onPartial(args, ctx) {
  const { map, scene } = await session.open(ctx);
  if (ctx.drawn()) return;
  const { features } = partialFeatures({ bbox: args.bbox });
  if (!features.length) return;
  scene.clear();
  drawArea(scene, features, { theme: ctx.theme(), t: ctx.t });
  ctx.status.set({ partial: 1 });
  ctx.hideMessage();
  ctx.setTitle(ctx.t("traffic"), ctx.t("working"));
  mapCore.fit(map, boundsOf(features[0]), 24);
}

/** Draw the incidents with their legend, list, title and notes; with `stored` (a result, not a redraw), restore or fit. */
function show(ctx, { fc, area, count }, stored) {
  const { map, scene } = session.opened;
  const l10n = ctx.l10n;
  scene.clear();
  ctx.clearNotes();
  const drawn = drawIncidents(scene, fc, area, { theme: ctx.theme(), l10n, select: (id) => ctx.select(id, "map") });
  if (ctx.isHidden("incidents")) scene.setVisible("incidents", false);
  ctx.setLegend(drawn.legend);
  ctx.setItems([{ title: l10n.t("incidents"), items: drawn.items }]);
  ctx.setTitle(l10n.t("traffic"), l10n.t("incidentsN", { n: count ?? drawn.incidents }));
  if (ctx.tilesProblem()) ctx.addNote(ctx.tilesProblem());
  if (count > drawn.incidents) ctx.addNote(`${drawn.incidents} / ${count}`);
  mapCore.describe(map, l10n.t("summary", { what: l10n.t("incidentsN", { n: drawn.incidents }) }));
  mapCore.markIdle(map, ctx.status);
  if (stored !== undefined && !session.restore(ctx, stored)) {
    mapCore.fit(map, union(area, boundsOf(fc)), 24);
  }
  return drawn.incidents;
}

async function onResult(result, ctx, stored) {
  const env = await ctx.appData(result);
  let fc;
  try {
    fc = e5.decodeGeoJSON(env.data);
  } catch (err) {
    throw new envelope.ViewError("decode_failed", `The traffic data is malformed: ${err.message}`);
  }
  if (!Array.isArray(fc.features)) throw new envelope.ViewError("decode_failed", "The traffic data is not a FeatureCollection.");
  let area = null;
  try {
    area = fc.area ? parseBbox(fc.area) : null;
  } catch (err) {
    throw new envelope.ViewError("bad_input", `The traffic area cannot be drawn: ${err.message}`);
  }
  const { map, tiles } = await session.open(ctx);
  const shown = { fc, area, count: Number.isInteger(fc.count) ? fc.count : null };
  ctx.status.set({ partial: null });
  const n = ctx.draw((ctx, stored) => show(ctx, shown, stored), stored);
  if (tiles) {
    refresh = setInterval(() => {
      if (!ctx.visible) return;
      const refreshed = mapCore.refreshRaster(map);
      ctx.status.set((s) => ({ tileRefreshes: (s.tileRefreshes || 0) + refreshed }));
    }, REFRESH_MS);
  }
  ctx.ok(`${n} incidents drawn${area ? `, bbox ${area.join(",")}` : ""}, ${tiles ? "live traffic tiles" : "no traffic tiles (offline)"}`, {
    features: n,
    incidents: n,
    trafficTiles: tiles ? 1 : 0,
  });
}

startView({
  name: "tomtom-traffic",
  tool: "tomtom-traffic",
  oneTool: true,
  links,
  session,
  onPartial,
  onResult,
  onSelect: session.selecting(highlight),
  onTeardown: () => clearInterval(refresh),
});
