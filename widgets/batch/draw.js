/**
 * The batch view's drawing, on a Scene (so draw.test.js runs it on a fake map):
 *
 * - geocoded rows: every located row a point, clustered where dense
 *   (MapLibre's GeoJSON source clustering), coloured and ringed by match
 *   quality; a cluster holding rows that need attention says so by its ring;
 *   the list names the rows that need a person;
 * - a snapped trace: the GPS trace as recorded, thin; the road driven,
 *   coloured by speed limit (each section of the snapped line a stretch of
 *   one road and one limit), with the stretches over the limit dashed over
 *   it; the road and its limit under the pointer.
 *
 * Colour never carries meaning alone: qualities differ in ring and size, the
 * stretches over the limit are dashed, and every one is named in the list.
 */
import { casingColor, selectOnClick } from "../core/map.js";
import { attention } from "./rows.js";

/** Quality: [light, dark] colours, the ring's width, the point's radius. */
export const QUALITY = {
  M: { colors: ["#1a7f37", "#56d364"], ring: 1, radius: 5, key: "matched" },
  L: { colors: ["#9a6700", "#e3b341"], ring: 3, radius: 6, key: "low" },
  A: { colors: ["#8250df", "#bc8cff"], ring: 3, radius: 6, key: "ambiguous" },
};
/** Rows of the list, at most (the CSV has them all). */
export const LIST_ROWS = 500;
/** Speed limits in km/h, upper bounds of each colour's band. */
export const LIMITS = [
  { upTo: 30, colors: ["#6639ba", "#bc8cff"] },
  { upTo: 50, colors: ["#0b57d0", "#58a6ff"] },
  { upTo: 80, colors: ["#0a7d6e", "#39c5bb"] },
  { upTo: 100, colors: ["#9a6700", "#e3b341"] },
  { upTo: Infinity, colors: ["#c4520a", "#f0883e"] },
];
const NO_LIMIT = ["#57606a", "#9198a1"];
const OVER = ["#c21b1b", "#ff7b72"];
const TRACE = ["#6e7781", "#8b949e"];
const pick = (colors, theme) => colors[theme === "dark" ? 1 : 0];

/** The colour of a speed limit (km/h; null: unknown). */
export function limitColor(limit, theme = "light") {
  if (!Number.isFinite(limit)) return pick(NO_LIMIT, theme);
  return pick(LIMITS.find((b) => limit <= b.upTo).colors, theme);
}

/** The list item of a geocoded row. */
export function rowItem(row, l10n) {
  const t = l10n.t;
  const d = row.details || {};
  const status = t(`batch.${qualityKey(row.q)}`);
  const input = d.input || t("batch.row", { n: l10n.number(row.row) });
  const sub = [status, row.q === "U" || row.q === "E" ? d.why : d.address].filter(Boolean).join(" · ");
  return {
    id: `row-${row.row}`,
    kind: "row",
    name: `${l10n.number(row.row)}. ${input}`,
    sub,
    mark: { color: row.q in QUALITY ? pick(QUALITY[row.q].colors, "light") : "#57606a", shape: "dot", text: "" },
    position: row.position || null,
    facts: {
      [t("batch.input")]: d.input || "",
      [t("batch.confidence")]: Number.isFinite(row.confidence) ? l10n.number(row.confidence * 100) + " %" : "",
      [t("batch.candidates")]: (d.candidates || []).map((c) => c.address).join(" | "),
      [t("batch.why")]: d.why || "",
    },
    details: { row: row.row, status, ...d },
  };
}

function qualityKey(q) {
  return { M: "matched", L: "low", A: "ambiguous", U: "unmatched", E: "empty" }[q] || "unmatched";
}

/**
 * Draw geocoded `rows` on `scene`, clustered. Returns {legend, groups, located}.
 * `select(id)` runs when a point is clicked; a cluster clicked zooms in.
 */
export function drawRows(scene, rows, { theme, l10n, select }) {
  const t = l10n.t;
  const casing = casingColor(theme);
  const points = [];
  for (const row of rows) {
    if (!row.position) continue;
    const q = QUALITY[row.q];
    points.push({
      type: "Feature",
      properties: { item: `row-${row.row}`, q: row.q, color: pick(q.colors, theme), ring: q.ring, radius: q.radius, check: row.q === "M" ? 0 : 1 },
      geometry: { type: "Point", coordinates: row.position },
    });
  }
  scene.source("rows", points, {
    cluster: true,
    clusterRadius: 42,
    clusterMaxZoom: 15,
    clusterProperties: { check: ["+", ["get", "check"]] },
  });
  const clustered = ["has", "point_count"];
  scene.layer(
    {
      id: "rows-cluster",
      type: "circle",
      source: "rows",
      filter: clustered,
      paint: {
        "circle-color": pick(QUALITY.M.colors, theme),
        "circle-opacity": 0.85,
        "circle-radius": ["step", ["get", "point_count"], 13, 25, 17, 250, 22, 2500, 28],
        "circle-stroke-color": ["case", [">", ["get", "check"], 0], pick(QUALITY.L.colors, theme), casing],
        "circle-stroke-width": ["case", [">", ["get", "check"], 0], 4, 2],
      },
    },
    "rows",
  );
  scene.layer(
    {
      id: "rows-count",
      type: "symbol",
      source: "rows",
      filter: clustered,
      layout: { "text-field": ["get", "point_count_abbreviated"], "text-font": ["sans-serif"], "text-size": 12, "text-allow-overlap": true },
      paint: { "text-color": casing },
    },
    "rows",
  );
  scene.layer(
    {
      id: "rows-point",
      type: "circle",
      source: "rows",
      filter: ["!", clustered],
      paint: {
        "circle-color": ["get", "color"],
        "circle-radius": ["get", "radius"],
        "circle-stroke-color": casing,
        "circle-stroke-width": ["get", "ring"],
      },
    },
    "rows",
  );
  scene.source("selection", []);
  scene.layer({ id: "selection-point", type: "circle", source: "selection", paint: { "circle-radius": 14, "circle-color": "rgba(0,0,0,0)", "circle-stroke-color": ["get", "color"], "circle-stroke-width": 3 } }, "selection");
  selectOnClick(scene, "rows-point", select);
  scene.on("click", "rows-cluster", (e) => zoomInto(scene, e));

  const present = new Set(rows.map((r) => r.q));
  const legend = Object.entries(QUALITY)
    .filter(([q]) => present.has(q))
    .map(([, q]) => ({ label: t(`batch.${q.key}`), color: pick(q.colors, theme), shape: "dot", group: "rows" }));
  const needing = attention(rows);
  const groups = [
    {
      title: needing.length ? t("batch.attentionN", { n: needing.length }) : t("batch.allMatched"),
      items: needing.slice(0, LIST_ROWS).map((r) => rowItem(r, l10n)),
    },
  ];
  return { legend, groups, located: points.length };
}

/** A click on a cluster zooms in to where it comes apart. */
function zoomInto(scene, event) {
  const feature = event?.features?.[0];
  const source = scene.map.getSource?.("rows");
  if (!feature || !source?.getClusterExpansionZoom) return;
  Promise.resolve(source.getClusterExpansionZoom(feature.properties.cluster_id))
    .then((zoom) => scene.map.easeTo({ center: feature.geometry.coordinates, zoom, duration: 300 }))
    .catch(() => {});
}

/** The stretches of a snapped line's `sections` of `type` as line features, each with its properties. */
export function sectionLines(line, sections, type) {
  return (sections || [])
    .filter((s) => s.sectionType === type && s.endPointIndex > s.startPointIndex && s.endPointIndex < line.length)
    .map((s) => ({ type: "Feature", properties: { ...s }, geometry: { type: "LineString", coordinates: line.slice(s.startPointIndex, s.endPointIndex + 1) } }));
}

/**
 * Draw a snapped trace (`fc`: the `trace` and the `snapped` parts) on `scene`.
 * Returns {legend, groups, stretches, parts}; `select(id)` runs on a click on a
 * stretch over the limit; `hover(text|null)` says the road under the pointer.
 */
export function drawTrace(scene, fc, { theme, l10n, select, hover = () => {} }) {
  const t = l10n.t;
  const casing = casingColor(theme);
  const trace = fc.features.filter((f) => f.properties?.kind === "trace" && f.geometry);
  const parts = fc.features.filter((f) => f.properties?.kind === "snapped" && f.geometry?.type === "LineString");
  const limits = [];
  const over = [];
  for (const part of parts) {
    const line = part.geometry.coordinates;
    for (const f of sectionLines(line, part.properties.sections, "SPEED_LIMIT")) {
      const limit = f.properties.limit;
      f.properties.color = limitColor(limit, theme);
      f.properties.label = `${f.properties.road} · ${Number.isFinite(limit) ? t("batch.limit", { v: `${limit} km/h` }) : t("batch.noLimit")}`;
      limits.push(f);
    }
    for (const f of sectionLines(line, part.properties.sections, "SPEEDING")) {
      f.properties.item = `over-${over.length}`;
      f.properties.color = pick(OVER, theme);
      over.push(f);
    }
  }
  scene.source("trace", trace);
  scene.layer({ id: "trace-line", type: "line", source: "trace", layout: { "line-join": "round" }, paint: { "line-color": pick(TRACE, theme), "line-width": 1.5, "line-opacity": 0.8 } }, "trace");
  scene.source("snapped", limits);
  scene.layer({ id: "snapped-casing", type: "line", source: "snapped", layout: { "line-cap": "round", "line-join": "round" }, paint: { "line-color": casing, "line-width": 7 } }, "snapped");
  scene.layer({ id: "snapped-line", type: "line", source: "snapped", layout: { "line-cap": "round", "line-join": "round" }, paint: { "line-color": ["get", "color"], "line-width": 4 } }, "snapped");
  scene.source("over", over);
  scene.layer({ id: "over-line", type: "line", source: "over", layout: { "line-cap": "butt" }, paint: { "line-color": ["get", "color"], "line-width": 6, "line-dasharray": [1.5, 1] } }, "over");
  scene.source("selection", []);
  scene.layer({ id: "selection-line", type: "line", source: "selection", paint: { "line-color": ["get", "color"], "line-width": 12, "line-opacity": 0.35 } }, "selection");
  selectOnClick(scene, "over-line", select);
  scene.on("mousemove", "snapped-line", (e) => hover(e?.features?.[0]?.properties?.label || null));
  scene.on("mouseleave", "snapped-line", () => hover(null));

  const bands = new Map();
  for (const f of limits) {
    const limit = f.properties.limit;
    const key = Number.isFinite(limit) ? LIMITS.findIndex((b) => limit <= b.upTo) : -1;
    if (!bands.has(key)) bands.set(key, key < 0 ? t("batch.noLimit") : bandLabel(key, l10n));
  }
  const legend = [
    { label: t("batch.trace"), color: pick(TRACE, theme), shape: "line", group: "trace" },
    ...[...bands.entries()].sort(([a], [b]) => a - b).map(([key, label]) => ({ label, color: key < 0 ? pick(NO_LIMIT, theme) : pick(LIMITS[key].colors, theme), shape: "line", group: "snapped" })),
  ];
  if (over.length) legend.push({ label: t("batch.overLimit"), color: pick(OVER, theme), shape: "line", dash: "dash", group: "over" });
  const items = over.map((f) => {
    const p = f.properties;
    const lasted = p.seconds < 60 ? `${l10n.number(p.seconds)} s` : l10n.duration(p.seconds);
    const text = t("batch.over", { max: `${p.max} km/h`, limit: `${p.limit} km/h`, d: lasted });
    return {
      id: p.item,
      kind: "speeding",
      name: p.road,
      sub: text,
      mark: { color: p.color, shape: "line", dash: "dash", text: "" },
      position: f.geometry.coordinates[Math.floor(f.geometry.coordinates.length / 2)],
      bbox: lineBox(f.geometry.coordinates),
      facts: {},
      details: { road: p.road, limit_kmh: p.limit, max_kmh: p.max, seconds: p.seconds },
    };
  });
  return { legend, groups: [{ title: t("batch.stretches"), items }], stretches: over.length, parts: parts.length };
}

function bandLabel(key, l10n) {
  const low = key === 0 ? 0 : LIMITS[key - 1].upTo + 1;
  const high = LIMITS[key].upTo;
  return l10n.t("batch.limit", { v: Number.isFinite(high) ? `${low}–${high} km/h` : `> ${LIMITS[key - 1].upTo} km/h` });
}

function lineBox(coords) {
  let [w, s, e, n] = [Infinity, Infinity, -Infinity, -Infinity];
  for (const [x, y] of coords) {
    w = Math.min(w, x);
    s = Math.min(s, y);
    e = Math.max(e, x);
    n = Math.max(n, y);
  }
  return [w, s, e, n];
}

/** Ring the selected row, or glow along the selected stretch. */
export function highlight(scene, item) {
  const source = scene.map.getSource?.("selection");
  if (!source) return;
  const geometry = item.bbox && item.kind === "speeding" ? null : item.position ? { type: "Point", coordinates: item.position } : null;
  const features = geometry ? [{ type: "Feature", properties: { color: item.mark.color }, geometry }] : [];
  source.setData({ type: "FeatureCollection", features });
}
