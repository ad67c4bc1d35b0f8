/**
 * Data-viz view: the caller's GeoJSON with the caller's layers. Inline app
 * data when the result carries it; otherwise `tomtom-get-app-data` with this
 * view's own tool input, paged, with progress (docs/architecture.md, rule 4). The
 * drawing is draw.js's.
 */
import e5 from "../core/e5.js";
import envelope from "../core/envelope.js";
import { boundsOf } from "../core/bounds.js";
import * as mapCore from "../core/map.js";
import { mapSession, links } from "../core/session.js";
import { startView } from "../core/view.js";
import { drawData, highlight } from "./draw.js";

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
    let pages = 0;
    env = await envelope.fetchPaged(ctx.callTool, input, (got, total) => {
      ctx.status.set({ pages: ++pages });
      ctx.showMessage("loading", ctx.t("loading"), `${Math.round((100 * got) / total)}% of ${(total / 1024).toFixed(0)} KB`, got / total);
    });
    ctx.status.set({ fetched: true });
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
  const { n, drawnLayers, labels, problems } = ctx.draw((ctx, stored) => show(ctx, { geojson, data }, stored), stored);
  const counts = { features: n, layers: drawnLayers, labels };
  if (n === 0) return ctx.empty(ctx.t("nothingFound"), "The data has no features to show.", counts);
  const detail = [`${n} features`, `${drawnLayers} layers`, session.opened.tiles ? "basemap tiles" : "offline basemap", ...problems];
  ctx.ok(detail.join(", "), counts);
}

startView({
  name: "tomtom-data-viz",
  tool: "tomtom-data-viz",
  oneTool: true,
  links,
  session,
  onResult,
  onSelect(item, ctx, via) {
    if (!session.opened) return;
    highlight(session.opened.scene, item);
    session.show(ctx, item, via);
  },
});
