/**
 * Data-viz view: the caller's GeoJSON with the caller's layers. Inline app
 * data when the result carries it; otherwise `tomtom-get-app-data` with this
 * view's own tool input, paged, with progress (docs/architecture.md, rule 4). The first
 * MAX_ITEMS features are listed and selectable.
 */
import e5 from "../core/e5.js";
import envelope from "../core/envelope.js";
import { boundsOf } from "../core/bounds.js";
import * as mapCore from "../core/map.js";
import { mapSession, links } from "../core/session.js";
import * as style from "../core/style.js";
import { startView } from "../core/view.js";

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
const FETCHABLE = new Set(["meta_dropped", "too_large", "no_app_data"]);
const MAX_ITEMS = 300;
const ITEM = "__tt_item";
const session = mapSession(() => ["basemap"], ["basemap"]);
let inputWaiter = null;

function waitForInput(ctx, ms) {
  if (ctx.input) return Promise.resolve(ctx.input);
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(null), ms);
    inputWaiter = (input) => {
      clearTimeout(timer);
      resolve(input);
    };
  });
}

/** A MapLibre layer from one caller layer: full paint/layout, or color/opacity/width/radius shorthand. */
function toLayer(spec, i, color) {
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

function featureCount(doc) {
  if (!doc || typeof doc !== "object") return 0;
  if (doc.type === "FeatureCollection") return doc.features.length;
  return 1;
}

/** The features of `doc` each tagged with its list item id (a copy: the caller's data is not changed). */
function tagged(doc) {
  const features = doc.type === "FeatureCollection" ? doc.features : doc.type === "Feature" ? [doc] : [{ type: "Feature", properties: {}, geometry: doc }];
  return features.map((f, i) => ({ ...f, properties: { ...(f.properties || {}), [ITEM]: `feature-${i}` } }));
}

function featureName(props, labelKeys, i, t) {
  for (const key of [...labelKeys, "name", "title", "label", "NAME", "id"]) {
    const v = props?.[key];
    if (v !== undefined && v !== null && v !== "" && typeof v !== "object") return String(v).slice(0, 80);
  }
  return t("feature", { n: i + 1 });
}

function items(features, labelKeys, l10n) {
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
        mark: { color: style.kindStyle("feature", l10n.t, document.documentElement.dataset.theme).color, shape: /Point/.test(f.geometry.type) ? "dot" : /Line/.test(f.geometry.type) ? "line" : "area" },
        position: point ? [box[0], box[1]] : [(box[0] + box[2]) / 2, (box[1] + box[3]) / 2],
        bbox: point ? null : box,
        facts: Object.fromEntries(props.slice(0, 8).map(([k, v]) => [k, typeof v === "object" ? JSON.stringify(v) : String(v)])),
        details: Object.fromEntries(props.filter(([k, v]) => /^[a-z][a-z0-9_]*$/.test(k) && typeof v !== "object").slice(0, 8)),
      },
    ];
  });
}

/** Draw the data with its title, legend, list and notes; with `stored` (a result, not a redraw), restore or fit. */
function show(ctx, { geojson, data }, stored) {
  const { map, scene } = session.opened;
  const l10n = ctx.l10n;
  scene.clear();
  ctx.clearNotes();
  const features = tagged(geojson);
  scene.source("data", features);
  const specs = Array.isArray(data.layers) && data.layers.length ? data.layers : defaultLayers();
  const legend = [];
  const problems = [];
  let labels = 0;
  const palette = style.PALETTE[ctx.theme()] || style.PALETTE.light;
  specs.forEach((spec, i) => {
    if (spec && spec.type === "symbol") {
      labels += addLabels(scene, features, spec);
      return;
    }
    try {
      const { layer, label, color, type } = toLayer(spec || {}, i, palette[i % palette.length]);
      addChecked(map, layer, i);
      scene.adopt(layer.id, `layer-${i}`);
      mapCore.selectOnClick(scene, layer.id, (id) => ctx.select(id, "map"));
      legend.push({ label, color, shape: type === "line" ? "line" : type === "circle" || type === "heatmap" ? "dot" : "area", group: `layer-${i}` });
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
  for (const row of legend) if (ctx.isHidden(row.group)) scene.setVisible(row.group, false);
  const n = features.length;
  const labelKeys = specs.map((s) => s && s.label).filter((k) => typeof k === "string");
  ctx.setTitle(data.title || l10n.t("titles.data"), l10n.t("featuresN", { n }));
  ctx.setLegend(legend.length > 1 ? legend : []);
  ctx.setItems([{ title: l10n.t("features"), items: items(features, labelKeys, l10n) }]);
  if (ctx.tilesProblem()) ctx.addNote(ctx.tilesProblem());
  for (const p of problems) ctx.addNote(p);
  mapCore.describe(map, l10n.t("summary", { what: l10n.t("featuresN", { n }) }));
  mapCore.markIdle(map, ctx.status);
  if (stored !== undefined && !session.restore(ctx, stored, (g, v) => scene.setVisible(g, v))) mapCore.fit(map, boundsOf(geojson));
  return { n, drawnLayers, labels, problems };
}

/** Text labels as HTML markers (a caller's symbol layer names a property, not a font we have). */
function addLabels(scene, features, spec) {
  let n = 0;
  for (const f of features) {
    if (n >= MAX_LABELS) break;
    const text = f.properties[spec.label];
    const at = f.geometry && boundsOf(f.geometry);
    if (text === undefined || text === null || !at) continue;
    const el = document.createElement("div");
    el.className = "tt-chip";
    el.textContent = String(text).slice(0, 60);
    scene.marker(el, [(at[0] + at[2]) / 2, (at[1] + at[3]) / 2], { anchor: "bottom", group: "labels" });
    n++;
  }
  return n;
}

async function onResult(result, ctx, stored) {
  let env;
  try {
    env = await envelope.fromResult(result, window.openai?.toolResponseMetadata);
  } catch (err) {
    if (!FETCHABLE.has(err.reason)) throw err;
    ctx.showMessage("loading", ctx.t("loading"), "Fetching the data from the server.", null);
    const input = await waitForInput(ctx, 10000);
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
  links,
  session,
  onInput: (input) => inputWaiter?.(input),
  onResult,
  onSelect(item, ctx, via) {
    const opened = session.opened;
    if (!opened) return;
    const f = opened.map.querySourceFeatures("data", { filter: ["==", ["get", ITEM], item.id] })[0];
    opened.map.getSource("selection")?.setData({ type: "FeatureCollection", features: f && !/Point/.test(f.geometry.type) ? [f] : [] });
    session.show(ctx, item, via);
  },
});
