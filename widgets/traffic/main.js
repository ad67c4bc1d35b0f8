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
import * as style from "../core/style.js";
import { startView } from "../core/view.js";

const REFRESH_MS = 120000;
/** Drawn on each incident besides its colour and dash: how bad, in a glyph. */
const SEVERITY = ["?", "!", "!!", "!!!", "×"];
const session = mapSession(() => ["basemap", "traffic_flow"], ["basemap", "traffic_flow"]);
let refresh = null;

function areaFeature([w, s, e, n]) {
  return { type: "Feature", properties: {}, geometry: { type: "Polygon", coordinates: [[[w, s], [e, s], [e, n], [w, n], [w, s]]] } };
}

function midpoint(geometry) {
  if (geometry.type === "Point") return geometry.coordinates;
  const line = geometry.type === "MultiLineString" ? geometry.coordinates.flat() : geometry.coordinates;
  return line[Math.floor(line.length / 2)];
}

async function onPartial(args, ctx) {
  const { map, scene } = await session.open(ctx);
  if (ctx.drawn()) return;
  const { features } = partialFeatures({ bbox: args.bbox });
  if (!features.length) return;
  scene.clear();
  scene.source("area", features);
  scene.layer({ id: "area-line", type: "line", source: "area", paint: { "line-color": style.kindStyle("route", ctx.t, ctx.theme()).color, "line-width": 2, "line-dasharray": [2, 1] } }, "area");
  ctx.status.set({ partial: 1 });
  ctx.hideMessage();
  ctx.setTitle(ctx.t("traffic"), ctx.t("working"));
  mapCore.fit(map, boundsOf(features[0]), 24);
}

function incidentItem(f, i, l10n) {
  const p = f.properties;
  const t = l10n.t;
  const m = Number.isInteger(p.magnitude) ? p.magnitude : 0;
  const category = t(`category.${p.category}`) === `category.${p.category}` ? t("category.0") : t(`category.${p.category}`);
  const road = (p.roads || []).join(", ");
  const name = road ? `${category} · ${road}` : category;
  return {
    id: `incident-${i}`,
    kind: "traffic incident",
    name,
    sub: [style.delayLabel(m, t), p.delay_s ? `+${l10n.duration(p.delay_s)}` : ""].filter(Boolean).join(" · "),
    mark: { color: style.delayColor(m, document.documentElement.dataset.theme), shape: "line", dash: style.DELAY[m]?.dash, text: "" },
    position: midpoint(f.geometry),
    bbox: f.geometry.type === "Point" ? null : boundsOf(f.geometry),
    facts: {
      [t("from")]: p.from,
      [t("to")]: p.to,
      [t("delay")]: p.delay_s ? l10n.duration(p.delay_s) : "",
      [t("length")]: p.length_m ? l10n.distance(p.length_m) : "",
      [t("since")]: l10n.dateTime(p.start),
      [t("until")]: l10n.dateTime(p.end),
    },
    details: { category: category, magnitude: style.delayLabel(m), delay_s: p.delay_s, from: p.from, to: p.to, road, description: p.description, id: p.id },
  };
}

/** Draw the incidents with their legend, list, title and notes; with `stored` (a result, not a redraw), restore or fit. */
function show(ctx, { fc, area, count }, stored) {
  const { map, scene } = session.opened;
  const theme = ctx.theme();
  const l10n = ctx.l10n;
  scene.clear();
  ctx.clearNotes();
  const incidents = fc.features.filter((f) => f.geometry && f.properties?.kind === "incident");
  const items = incidents.map((f, i) => incidentItem(f, i, l10n));
  const lines = [];
  const marks = [];
  incidents.forEach((f, i) => {
    const m = Number.isInteger(f.properties.magnitude) ? f.properties.magnitude : 0;
    const d = style.DELAY[m] || style.DELAY[0];
    const props = { item: items[i].id, color: style.delayColor(m, theme), dash: d.dash, width: d.width, magnitude: m, glyph: SEVERITY[m] || "?" };
    if (f.geometry.type !== "Point") lines.push({ type: "Feature", properties: props, geometry: f.geometry });
    marks.push({ type: "Feature", properties: props, geometry: { type: "Point", coordinates: items[i].position } });
  });
  const casing = mapCore.casingColor(theme);
  if (area) {
    scene.source("area", [areaFeature(area)]);
    scene.layer({ id: "area-line", type: "line", source: "area", paint: { "line-color": style.kindStyle("route", l10n.t, theme).color, "line-width": 2, "line-dasharray": [2, 1] } }, "area");
  }
  scene.source("incident-lines", lines);
  scene.layer({ id: "incident-casing", type: "line", source: "incident-lines", layout: { "line-cap": "round", "line-join": "round" }, paint: { "line-color": casing, "line-width": ["+", ["get", "width"], 3] } }, "incidents");
  mapCore.dashedLines(scene, "incident-line", "incident-lines", "incidents", ["get", "width"]);
  scene.source("selection", []);
  scene.layer({ id: "selection-point", type: "circle", source: "selection", paint: { "circle-radius": 16, "circle-color": "rgba(0,0,0,0)", "circle-stroke-color": ["get", "color"], "circle-stroke-width": 3 } }, "selection");
  scene.source("incident-marks", marks);
  scene.layer({ id: "incident-mark", type: "circle", source: "incident-marks", paint: { "circle-radius": 9, "circle-color": ["get", "color"], "circle-stroke-color": casing, "circle-stroke-width": 2 } }, "incidents");
  scene.layer(
    {
      id: "incident-glyph",
      type: "symbol",
      source: "incident-marks",
      layout: { "text-field": ["get", "glyph"], "text-font": ["sans-serif"], "text-size": 11, "text-allow-overlap": true, "text-ignore-placement": true },
      paint: { "text-color": casing },
    },
    "incidents",
  );
  for (const layer of ["incident-mark", ...Object.keys(style.DASHES).map((d) => `incident-line-${d}`)]) {
    mapCore.selectOnClick(scene, layer, (id) => ctx.select(id, "map"));
  }
  if (ctx.isHidden("incidents")) scene.setVisible("incidents", false);

  const present = [...new Set(incidents.map((f) => f.properties.magnitude ?? 0))].sort((a, b) => a - b);
  const legend = present.map((m) => ({ label: style.delayLabel(m, l10n.t), color: style.delayColor(m, theme), shape: "line", dash: style.DELAY[m]?.dash, group: "incidents" }));
  legend.push({ label: l10n.t("requestedArea"), color: style.kindStyle("route", l10n.t, theme).color, shape: "line", dash: "dash" });
  ctx.setLegend(legend);
  ctx.setItems([{ title: l10n.t("incidents"), items }]);
  ctx.setTitle(l10n.t("traffic"), l10n.t("incidentsN", { n: count ?? incidents.length }));
  if (ctx.tilesProblem()) ctx.addNote(ctx.tilesProblem());
  if (count > incidents.length) ctx.addNote(`${incidents.length} / ${count}`);
  mapCore.describe(map, l10n.t("summary", { what: l10n.t("incidentsN", { n: incidents.length }) }));
  mapCore.markIdle(map, ctx.status);
  if (stored !== undefined && !session.restore(ctx, stored, (g, v) => scene.setVisible(g, v))) {
    mapCore.fit(map, union(area, boundsOf(fc)), 24);
  }
  return incidents.length;
}

async function onResult(result, ctx, stored) {
  const env = await envelope.fromResult(result, window.openai?.toolResponseMetadata);
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
  links,
  session,
  onPartial,
  onResult,
  onSelect(item, ctx, via) {
    const opened = session.opened;
    if (!opened) return;
    opened.map.getSource("selection")?.setData({ type: "FeatureCollection", features: item.position ? [{ type: "Feature", properties: { color: item.mark.color }, geometry: { type: "Point", coordinates: item.position } }] : [] });
    session.show(ctx, item, via);
  },
  onTeardown: () => clearInterval(refresh),
});
