/** Map view: every tool whose envelope `data` is a FeatureCollection (docs/result.md). */
import e5 from "../core/e5.js";
import envelope from "../core/envelope.js";
import { boundsOf } from "../core/bounds.js";
import * as mapCore from "../core/map.js";
import { partialFeatures } from "../core/partial.js";
import { mapSession, links } from "../core/session.js";
import * as style from "../core/style.js";
import { startView } from "../core/view.js";
import { drawFeatures, drawPartial, highlight } from "./draw.js";

const TITLES = {
  "tomtom-geocode": "geocode",
  "tomtom-reverse-geocode": "address",
  "tomtom-fuzzy-search": "search",
  "tomtom-poi-search": "places",
  "tomtom-nearby": "nearby",
  "tomtom-search-along-route": "alongRoute",
  "tomtom-routing": "route",
  "tomtom-reachable-range": "range",
  "tomtom-dynamic-map": "map",
  "tomtom-ev-search": "evSearch",
  "tomtom-ev-routing": "evRoute",
  "tomtom-area-search": "areaSearch",
};

const session = mapSession(
  (theme, config) => (theme === "dark" && config.tiles.basemap_night ? ["basemap_night"] : ["basemap"]),
  ["basemap", "basemap_night"],
);

async function onPartial(args, ctx) {
  const { scene, map } = await session.open(ctx);
  if (ctx.drawn()) return;
  const { features, routing } = partialFeatures(args);
  scene.clear();
  drawPartial(scene, features, { theme: ctx.theme(), t: ctx.t });
  ctx.status.set({ partial: features.length });
  ctx.hideMessage();
  ctx.setTitle(ctx.t(routing ? "computingRoute" : "working"), ctx.t("partialNote"));
  const box = boundsOf({ type: "FeatureCollection", features });
  if (box) mapCore.fit(map, box);
  mapCore.describe(map, ctx.t(routing ? "computingRoute" : "working"));
}

/** Draw `fc` with its title, legend, list and notes; with `stored` (a result, not a redraw), restore or fit. */
function show(ctx, { fc, env }, stored) {
  const { map, scene } = session.opened;
  scene.clear();
  ctx.clearNotes();
  const l10n = ctx.l10n;
  const drawn = drawFeatures(scene, fc, { theme: ctx.theme(), l10n, select: (id) => ctx.select(id, "map") });
  const c = drawn.counts;
  const first = drawn.groups[0].items[0];
  const subtitle = first
    ? first.sub + (drawn.routes.length > 1 ? ` · ${ctx.t("routesN", { n: drawn.routes.length })}` : "")
    : c.places
      ? ctx.t("places", { n: c.places })
      : "";
  ctx.setTitle(fc.title || ctx.t(`titles.${TITLES[env.tool] || "map"}`), subtitle);
  ctx.setLegend(drawn.legend);
  ctx.setItems(drawn.groups);
  for (const group of ["routes", "sections", "places", "areas"]) if (ctx.isHidden(group)) scene.setVisible(group, false);
  const note = style.fittedNote(env.fitted, l10n);
  if (note) ctx.addNote(note);
  for (const w of drawn.warnings) console.warn(w);
  if (drawn.warnings.length) ctx.addNote(ctx.t("skippedSections", { n: drawn.warnings.length }));
  if (ctx.tilesProblem()) ctx.addNote(ctx.tilesProblem());
  const what = drawn.groups.filter((g) => g.items.length).map((g) => `${g.items.length} ${g.title.toLowerCase()}`).join(", ");
  mapCore.describe(map, what ? ctx.t("summary", { what }) : ctx.t("summaryNone"));
  mapCore.markIdle(map, ctx.status);
  if (stored !== undefined && !session.restore(ctx, stored)) mapCore.fit(map, fc.bbox || boundsOf(fc));
  return drawn;
}

async function onResult(result, ctx, stored) {
  const env = await ctx.appData(result);
  ctx.tool = env.tool;
  let fc;
  try {
    fc = e5.decodeGeoJSON(env.data);
  } catch (err) {
    throw new envelope.ViewError("decode_failed", `The map data is malformed: ${err.message}`);
  }
  if (!Array.isArray(fc.features)) {
    throw new envelope.ViewError("decode_failed", `The map data from ${env.tool} is not a FeatureCollection.`);
  }
  await session.open(ctx);
  ctx.status.set({ partial: null });
  const drawn = ctx.draw((ctx, stored) => show(ctx, { fc, env }, stored), stored);
  const c = drawn.counts;
  const counts = {
    features: c.features,
    routePoints: c.routePoints,
    sections: c.sections,
    points: c.points,
    areas: c.areas,
    fitted: env.fitted ? env.fitted.points : "",
  };
  if (c.features === 0) return ctx.empty(ctx.t("nothingFound"), ctx.t("noFeatures"), counts);
  const parts = [`${c.features} features`];
  if (c.routePoints) parts.push(`${c.routePoints} route points`, `${c.sections} sections`);
  parts.push(session.opened.tiles ? "basemap tiles" : "offline basemap");
  if (drawn.warnings.length) parts.push(drawn.warnings.join("; "));
  ctx.ok(parts.join(", "), counts);
}

startView({
  name: "tomtom-map",
  tool: "tomtom-map",
  links,
  session,
  onPartial,
  onResult,
  onSelect: session.selecting(highlight),
});
