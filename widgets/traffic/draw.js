/**
 * The traffic view's drawing: the incidents of a result onto a Scene, each
 * coloured, dashed and marked with a glyph by its magnitude of delay, the
 * requested area outlined, and the list items and legend that go with them;
 * also the area sketched from partial tool input, and the selection's ring.
 * It touches the map only through the Scene, so draw.test.js runs it on a
 * fake one.
 */
import { boundsOf } from "../core/bounds.js";
import { casingColor, dashedLines, selectOnClick } from "../core/map.js";
import * as style from "../core/style.js";

/** Drawn on each incident besides its colour and dash: how bad, in a glyph. */
const SEVERITY = ["?", "!", "!!", "!!!", "×"];

function areaFeature([w, s, e, n]) {
  return { type: "Feature", properties: {}, geometry: { type: "Polygon", coordinates: [[[w, s], [e, s], [e, n], [w, n], [w, s]]] } };
}

/** Where an incident's mark goes: its point, or the middle vertex of its line. */
export function midpoint(geometry) {
  if (geometry.type === "Point") return geometry.coordinates;
  const line = geometry.type === "MultiLineString" ? geometry.coordinates.flat() : geometry.coordinates;
  return line[Math.floor(line.length / 2)];
}

/** The list item of incident `f`, the `i`th. */
export function incidentItem(f, i, l10n, theme) {
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
    mark: { color: style.delayColor(m, theme), shape: "line", dash: style.DELAY[m]?.dash, text: "" },
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

/** The requested area as a dashed outline (the partial input's bbox feature, or the result's area). */
export function drawArea(scene, features, { theme, t }) {
  scene.source("area", features);
  scene.layer({ id: "area-line", type: "line", source: "area", paint: { "line-color": style.kindStyle("route", t, theme).color, "line-width": 2, "line-dasharray": [2, 1] } }, "area");
}

/**
 * Draw the incidents of `fc` (and the requested `area` bbox, if any) on `scene`.
 * Returns {incidents (how many drawn), items, legend}. `select(id)` runs when an
 * incident is clicked.
 */
export function drawIncidents(scene, fc, area, { theme, l10n, select }) {
  const incidents = fc.features.filter((f) => f.geometry && f.properties?.kind === "incident");
  const items = incidents.map((f, i) => incidentItem(f, i, l10n, theme));
  const lines = [];
  const marks = [];
  incidents.forEach((f, i) => {
    const m = Number.isInteger(f.properties.magnitude) ? f.properties.magnitude : 0;
    const d = style.DELAY[m] || style.DELAY[0];
    const props = { item: items[i].id, color: style.delayColor(m, theme), dash: d.dash, width: d.width, magnitude: m, glyph: SEVERITY[m] || "?" };
    if (f.geometry.type !== "Point") lines.push({ type: "Feature", properties: props, geometry: f.geometry });
    marks.push({ type: "Feature", properties: props, geometry: { type: "Point", coordinates: items[i].position } });
  });
  const casing = casingColor(theme);
  if (area) drawArea(scene, [areaFeature(area)], { theme, t: l10n.t });
  scene.source("incident-lines", lines);
  scene.layer({ id: "incident-casing", type: "line", source: "incident-lines", layout: { "line-cap": "round", "line-join": "round" }, paint: { "line-color": casing, "line-width": ["+", ["get", "width"], 3] } }, "incidents");
  dashedLines(scene, "incident-line", "incident-lines", "incidents", ["get", "width"]);
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
  for (const layer of ["incident-mark", ...Object.keys(style.DASHES).map((d) => `incident-line-${d}`)]) selectOnClick(scene, layer, select);

  const present = [...new Set(incidents.map((f) => f.properties.magnitude ?? 0))].sort((a, b) => a - b);
  const legend = present.map((m) => ({ label: style.delayLabel(m, l10n.t), color: style.delayColor(m, theme), shape: "line", dash: style.DELAY[m]?.dash, group: "incidents" }));
  legend.push({ label: l10n.t("requestedArea"), color: style.kindStyle("route", l10n.t, theme).color, shape: "line", dash: "dash" });
  return { incidents: incidents.length, items, legend };
}

/** Ring the selected incident's mark. */
export function highlight(scene, item) {
  const features = item.position ? [{ type: "Feature", properties: { color: item.mark.color }, geometry: { type: "Point", coordinates: item.position } }] : [];
  scene.map.getSource("selection")?.setData({ type: "FeatureCollection", features });
}
