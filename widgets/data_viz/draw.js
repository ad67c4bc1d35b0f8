/**
 * The data-viz view's drawing: the caller's GeoJSON with the caller's layers
 * (full MapLibre paint and layout, or the color/opacity/width/radius
 * shorthand) onto a Scene, symbol layers as HTML labels, and the list items
 * of the first MAX_ITEMS features. The caller's data is never changed: the
 * features are copies tagged with their item id. Data that comes in pages
 * (docs/result.md, Data-viz pages) is drawn as they arrive: the first with `drawData`, every
 * other with `drawPage`, a source of its own whose layers stack among the
 * others' as one source's features would. It touches the map only through the
 * Scene (and `scene.map` to learn whether MapLibre took a layer, and to place
 * a page's layers), so draw.test.js runs it on a fake one.
 */
import envelope from "../core/envelope.js";
import { boundsOf } from "../core/bounds.js";
import { evaluate, matches } from "../core/expr.js";
import { selectOnClick } from "../core/map.js";
import * as style from "../core/style.js";

const TYPES = new Set(["circle", "line", "fill", "heatmap", "fill-extrusion", "symbol"]);
const MAX_LABELS = 300;
const GEOMETRY = {
  circle: ["Point", "MultiPoint"],
  heatmap: ["Point", "MultiPoint"],
  line: ["LineString", "MultiLineString", "Polygon", "MultiPolygon"],
  fill: ["Polygon", "MultiPolygon"],
  "fill-extrusion": ["Polygon", "MultiPolygon"],
  symbol: ["Point", "MultiPoint", "LineString", "MultiLineString", "Polygon", "MultiPolygon"],
};
export const MAX_ITEMS = 300;
/** The property a tagged copy carries its list item id in. */
export const ITEM = "__tt_item";

/** A MapLibre layer from one caller layer: full paint/layout, or color/opacity/width/radius shorthand. */
export function toLayer(spec, i, color) {
  const type = spec.type || "circle";
  if (!TYPES.has(type)) throw new TypeError(`layer ${i}: type "${type}" is not one of ${[...TYPES].join(", ")}`);
  const c = spec.color || color;
  const defaults = {
    circle: { "circle-color": c, "circle-radius": spec.radius ?? 5, "circle-opacity": spec.opacity ?? 0.85, "circle-stroke-color": "#fff", "circle-stroke-width": 1 },
    line: { "line-color": c, "line-width": spec.width ?? 2.5, "line-opacity": spec.opacity ?? 0.9 },
    fill: { "fill-color": c, "fill-opacity": spec.opacity ?? 0.35, "fill-outline-color": c },
    heatmap: { "heatmap-radius": spec.radius ?? 18, "heatmap-opacity": spec.opacity ?? 0.8 },
    "fill-extrusion": { "fill-extrusion-color": c, "fill-extrusion-opacity": spec.opacity ?? 0.7, "fill-extrusion-height": spec.height ?? 50 },
  }[type];
  const geom = ["in", ["geometry-type"], ["literal", GEOMETRY[type]]];
  const layer = {
    id: `data-${i}`,
    type,
    source: "data",
    paint: { ...defaults, ...(spec.paint || {}) },
    filter: spec.filter ? ["all", geom, spec.filter] : geom,
  };
  if (spec.layout) layer.layout = spec.layout;
  if (Number.isFinite(spec.minzoom)) layer.minzoom = spec.minzoom;
  if (Number.isFinite(spec.maxzoom)) layer.maxzoom = spec.maxzoom;
  const paintColor = layer.paint[`${type}-color`];
  const names = { circle: "Points", line: "Lines", fill: "Areas", heatmap: "Density", "fill-extrusion": "Volumes" };
  return {
    layer,
    label: spec.name || `${names[type]}${spec.filter ? " (filtered)" : ""}`,
    color: typeof paintColor === "string" ? paintColor : c,
    type,
  };
}

/** MapLibre reports an invalid layer as an error event, not a throw: turn it into one. */
function addChecked(map, layer, i) {
  let message = null;
  const listen = (e) => (message = e.error?.message || String(e.error));
  map.on("error", listen);
  try {
    map.addLayer(layer);
  } finally {
    map.off("error", listen);
  }
  if (!map.getLayer(layer.id)) throw new Error(`layer ${i + 1} was refused: ${message || "invalid layer"}`);
}

function defaultLayers() {
  return [{ type: "fill" }, { type: "line" }, { type: "circle" }];
}

/**
 * The features of `doc` each tagged with its list item id (a copy: the caller's data is
 * not changed); `start` is the dataset index of the first (a page's).
 */
export function tagged(doc, start = 0) {
  const features = doc.type === "FeatureCollection" ? doc.features : doc.type === "Feature" ? [doc] : [{ type: "Feature", properties: {}, geometry: doc }];
  return features.map((f, i) => ({ ...f, properties: { ...(f.properties || {}), [ITEM]: `feature-${start + i}` } }));
}

function featureName(props, labelKeys, i, t) {
  for (const key of [...labelKeys, "name", "title", "label", "NAME", "id"]) {
    const v = props?.[key];
    if (v !== undefined && v !== null && v !== "" && typeof v !== "object") return String(v).slice(0, 80);
  }
  return t("feature", { n: i + 1 });
}

/** The layer types that draw a geometry, in the order a list mark takes its colour from them. */
const MARKED_BY = { Point: ["circle", "heatmap"], LineString: ["line"], Polygon: ["fill", "fill-extrusion", "line"] };

/**
 * `(feature) => colour`: what the drawn `layers` ({layer} as added, bottom first) paint a
 * feature in, from the topmost layer of the type that marks its geometry; null when none does.
 */
export function paintedColor(layers) {
  return (f) => {
    const kind = f.geometry?.type.replace("Multi", "");
    for (const type of MARKED_BY[kind] || []) {
      for (const { layer } of [...layers].reverse()) {
        if (layer.type !== type || !matches(layer.filter, f)) continue;
        const color = evaluate(layer.paint[`${type}-color`], f);
        if (typeof color === "string") return color;
      }
    }
    return null;
  };
}

/**
 * The list items of the first MAX_ITEMS tagged features (those with a geometry), named by
 * `labelKeys` first, each marked in the colour its layer paints it (`colorOf`).
 */
export function listItems(features, labelKeys, l10n, theme, colorOf = () => null) {
  return features.slice(0, MAX_ITEMS).flatMap((f, i) => {
    const box = f.geometry && boundsOf(f.geometry);
    if (!box) return [];
    const point = box[0] === box[2] && box[1] === box[3];
    const props = Object.entries(f.properties || {}).filter(([k]) => k !== ITEM);
    return [
      {
        id: f.properties[ITEM],
        kind: "feature",
        name: featureName(f.properties, labelKeys, i, l10n.t),
        sub: f.geometry.type,
        mark: { color: colorOf(f) || style.kindStyle("feature", l10n.t, theme).color, shape: /Point/.test(f.geometry.type) ? "dot" : /Line/.test(f.geometry.type) ? "line" : "area" },
        position: point ? [box[0], box[1]] : [(box[0] + box[2]) / 2, (box[1] + box[3]) / 2],
        bbox: point ? null : box,
        facts: Object.fromEntries(props.slice(0, 8).map(([k, v]) => [k, typeof v === "object" ? JSON.stringify(v) : String(v)])),
        details: Object.fromEntries(props.filter(([k, v]) => /^[a-z][a-z0-9_]*$/.test(k) && typeof v !== "object").slice(0, 8)),
      },
    ];
  });
}

/** Text labels as HTML markers (a caller's symbol layer names a property, not a font we have), `room` at most. */
function addLabels(scene, features, spec, room = MAX_LABELS) {
  let n = 0;
  for (const f of features) {
    if (n >= room) break;
    const text = f.properties[spec.label];
    const at = f.geometry && boundsOf(f.geometry);
    if (text === undefined || text === null || !at) continue;
    scene.marker({ className: "tt-chip", text: String(text).slice(0, 60) }, [(at[0] + at[2]) / 2, (at[1] + at[3]) / 2], { anchor: "bottom", group: "labels" });
    n++;
  }
  return n;
}

/**
 * Draw `geojson` with `data.layers` (or fill, line and circle by default) on
 * `scene`. Returns {n features, drawnLayers, labels, problems (layers refused),
 * legend, items, and what `drawPage` needs}; throws `bad_layers` when no layer
 * could be drawn. `select(id)` runs when a feature is clicked; `start` is the
 * dataset index of the first feature (a page's).
 */
export function drawData(scene, geojson, data, { theme, l10n, select, start = 0 }) {
  const features = tagged(geojson, start);
  scene.source("data", features);
  const added = [];
  const symbols = [];
  const specs = Array.isArray(data.layers) && data.layers.length ? data.layers : defaultLayers();
  const legend = [];
  const problems = [];
  let labels = 0;
  const palette = style.PALETTE[theme] || style.PALETTE.light;
  specs.forEach((spec, i) => {
    if (spec && spec.type === "symbol") {
      const placed = addLabels(scene, features, spec);
      symbols.push({ spec, placed });
      labels += placed;
      return;
    }
    try {
      const { layer, label, color, type } = toLayer(spec || {}, i, palette[i % palette.length]);
      addChecked(scene.map, layer, i);
      scene.adopt(layer.id, `layer-${i}`);
      added.push({ layer, group: `layer-${i}` });
      selectOnClick(scene, layer.id, select, ITEM);
      // A data-driven colour: the one the layer paints its first feature in.
      const first = features.find((f) => matches(layer.filter, f));
      const painted = first && evaluate(layer.paint[`${type}-color`], first);
      const swatch = typeof painted === "string" ? painted : color;
      legend.push({ label, color: swatch, shape: type === "line" ? "line" : type === "circle" || type === "heatmap" ? "dot" : "area", group: `layer-${i}` });
    } catch (err) {
      problems.push(err.message);
    }
  });
  const drawnLayers = legend.length + (labels ? 1 : 0);
  if (drawnLayers === 0) {
    throw new envelope.ViewError("bad_layers", `None of the layers could be drawn: ${problems.join("; ")}`);
  }
  scene.source("selection", []);
  scene.layer({ id: "selection-line", type: "line", source: "selection", paint: { "line-color": "#0b57d0", "line-width": 4, "line-dasharray": [1, 1] } }, "selection");
  const labelKeys = specs.map((s) => s && s.label).filter((k) => typeof k === "string");
  const colorOf = paintedColor(added);
  const items = listItems(features, labelKeys, l10n, theme, colorOf);
  return { n: features.length, drawnLayers, labels, problems, legend, items, labelKeys, colorOf, added, symbols, pages: [start], select };
}

/** The id of caller layer `layer`'s copy for the page from `start` (`drawn.pages[0]`'s is the layer). */
function pageLayer(drawn, layer, start) {
  return start === drawn.pages[0] ? layer.id : `${layer.id}-from-${start}`;
}

/**
 * Draw a page of `features` (the dataset's from `start` on) beside what `drawn`
 * (`drawData` of the first page to arrive) drew: a source of its own, a copy of
 * every drawn layer placed among the other pages' copies by `start` (a layer's
 * pages stack in the dataset's order, under the next caller layer), and labels
 * until MAX_LABELS. Returns the page's tagged copies; `drawn` counts them.
 */
export function drawPage(scene, drawn, features, start) {
  const copies = tagged({ type: "FeatureCollection", features }, start);
  const source = `data-from-${start}`;
  scene.source(source, copies);
  const pages = [...drawn.pages].sort((a, b) => a - b);
  const next = pages.find((s) => s > start);
  drawn.added.forEach(({ layer, group }, k) => {
    const above = drawn.added[k + 1];
    const before = next !== undefined ? pageLayer(drawn, layer, next) : above ? pageLayer(drawn, above.layer, pages[0]) : "selection-line";
    const copy = { ...layer, id: `${layer.id}-from-${start}`, source };
    scene.map.addLayer(copy, before);
    scene.adopt(copy.id, group);
    selectOnClick(scene, copy.id, drawn.select, ITEM);
  });
  for (const symbol of drawn.symbols) {
    const placed = addLabels(scene, copies, symbol.spec, MAX_LABELS - symbol.placed);
    symbol.placed += placed;
    drawn.labels += placed;
  }
  drawn.pages.push(start);
  drawn.n += copies.length;
  return copies;
}

/** Outline the selected feature (lines and areas; a point has its popup), from whichever page's source holds it. */
export function highlight(scene, item) {
  const map = scene.map;
  const sources = Object.keys(map.getStyle().sources).filter((id) => id === "data" || id.startsWith("data-from-"));
  const filter = ["==", ["get", ITEM], item.id];
  const f = sources.map((id) => map.querySourceFeatures(id, { filter })[0]).find(Boolean);
  map.getSource("selection")?.setData({ type: "FeatureCollection", features: f && !/Point/.test(f.geometry.type) ? [f] : [] });
}
