/**
 * The fleet view's drawing: a travel-time matrix (its places, a list of origins
 * sorted by their nearest destination, and the selected origin's fastest links)
 * and a fleet plan (each vehicle's route in its colour, numbered stops, the
 * stops left out). Pure over the result's data and a Scene, so draw.test.js
 * runs it on a fake map.
 */
import { casingColor, selectOnClick } from "../core/map.js";
import { word } from "./words.js";

/** How many of an origin's fastest links are drawn when it is selected. */
export const LINKS = 3;
const ORIGIN = "#1f77b4";
const DESTINATION = "#d62728";
const LEFT_OUT = "#7f7f7f";

const point = (coordinates, properties) => ({ type: "Feature", properties, geometry: { type: "Point", coordinates } });

/** Each origin's row: minutes and km to every destination, nearest first; null cells say why. */
export function matrixRows(fc) {
  const m = fc.matrix;
  const places = fc.features.filter((f) => f.properties?.kind === "origin" || f.properties?.kind === "place");
  return places.map((f) => {
    const i = f.properties.index;
    const cells = (m.travelTimes[i] || []).map((t, j) => ({ j, seconds: t, metres: m.lengths[i]?.[j] ?? null, status: m.statuses[i]?.[j] ?? "MISSING" }));
    const reachable = cells.filter((c) => c.seconds !== null && !(m.same && c.j === i)).sort((a, b) => a.seconds - b.seconds);
    return { origin: i, position: f.geometry.coordinates, cells, nearest: reachable[0] ?? null, fastest: reachable.slice(0, LINKS) };
  });
}

/** The list items of a matrix, sorted by `sort`: "nearest" (shortest drive first) or "index". */
export function matrixItems(fc, l10n, sort = "nearest") {
  const rows = matrixRows(fc);
  const t = (key, vars) => word(l10n, key, vars);
  if (sort === "nearest") rows.sort((a, b) => (a.nearest?.seconds ?? Infinity) - (b.nearest?.seconds ?? Infinity) || a.origin - b.origin);
  return rows.map((row) => {
    const facts = {};
    for (const c of row.cells.slice(0, 25)) facts[`→ ${c.j + 1}`] = c.seconds === null ? `${t("noRoute")} (${c.status})` : `${l10n.duration(c.seconds)} · ${l10n.distance(c.metres)}`;
    return {
      id: `origin-${row.origin}`,
      kind: "origin",
      name: t("originN", { n: row.origin + 1 }),
      sub: row.nearest ? `${t("nearest")}: ${row.nearest.j + 1} · ${l10n.duration(row.nearest.seconds)}` : t("noRoute"),
      mark: { color: ORIGIN, shape: "circle", text: String(row.origin + 1) },
      position: row.position,
      facts,
      details: { origin: row.origin, nearest: row.nearest?.j ?? null, seconds: row.nearest?.seconds ?? null },
    };
  });
}

/** The selected origin's fastest links, as lines to its nearest destinations. */
export function fastestLinks(fc, origin) {
  const row = matrixRows(fc).find((r) => r.origin === origin);
  if (!row) return [];
  const targets = new Map(fc.features.filter((f) => f.properties?.kind === (fc.matrix.same ? "place" : "destination")).map((f) => [f.properties.index, f.geometry.coordinates]));
  return row.fastest
    .filter((c) => targets.has(c.j))
    .map((c, rank) => ({ type: "Feature", properties: { rank, seconds: c.seconds }, geometry: { type: "LineString", coordinates: [row.position, targets.get(c.j)] } }));
}

/** Draw a matrix's places and an empty links layer; returns its items and legend. */
export function drawMatrix(scene, fc, { theme, l10n, select, sort = "nearest" }) {
  const items = matrixItems(fc, l10n, sort);
  const marks = fc.features.map((f) => ({
    ...f,
    properties: { ...f.properties, item: f.properties.kind === "destination" ? null : `origin-${f.properties.index}`, label: String(f.properties.index + 1), color: f.properties.kind === "destination" ? DESTINATION : ORIGIN },
  }));
  const casing = casingColor(theme);
  scene.source("links", []);
  scene.layer({ id: "links-line", type: "line", source: "links", paint: { "line-color": ORIGIN, "line-width": ["-", 5, ["get", "rank"]], "line-opacity": 0.8 } }, "links");
  scene.source("selection", []);
  scene.layer({ id: "selection-point", type: "circle", source: "selection", paint: { "circle-radius": 15, "circle-color": "rgba(0,0,0,0)", "circle-stroke-color": ["get", "color"], "circle-stroke-width": 3 } }, "selection");
  scene.source("places", marks);
  scene.layer({ id: "places-circle", type: "circle", source: "places", paint: { "circle-radius": 9, "circle-color": ["get", "color"], "circle-stroke-color": casing, "circle-stroke-width": 2 } }, "places");
  scene.layer({ id: "places-label", type: "symbol", source: "places", layout: { "text-field": ["get", "label"], "text-font": ["sans-serif"], "text-size": 10, "text-allow-overlap": true }, paint: { "text-color": casing } }, "places");
  selectOnClick(scene, "places-circle", select);
  const legend = [{ label: word(l10n, "origins"), color: ORIGIN, shape: "circle", group: "places" }];
  if (!fc.matrix.same) legend.push({ label: l10n.t("to"), color: DESTINATION, shape: "circle", group: "places" });
  return { items, legend, places: marks.length };
}

/** A plan's list: per vehicle its stops in order (arrival, window), then the stops not served. */
export function planGroups(fc, l10n) {
  const t = (key, vars) => word(l10n, key, vars);
  const stops = fc.features.filter((f) => f.properties?.kind === "stop");
  const vehicles = [...new Set(stops.map((f) => f.properties.vehicle))].sort((a, b) => a - b);
  const groups = vehicles.map((v) => ({
    title: t("vehicleN", { n: v + 1 }),
    items: stops
      .filter((f) => f.properties.vehicle === v)
      .sort((a, b) => a.properties.order - b.properties.order)
      .map((f) => stopItem(f, l10n)),
  }));
  const left = fc.features.filter((f) => f.properties?.kind === "unassigned");
  if (left.length) {
    groups.push({
      title: t("notServed"),
      items: left.map((f) => ({
        id: `stop-${f.properties.stop}`,
        kind: "stop",
        name: `#${f.properties.stop + 1}`,
        sub: f.properties.reason,
        mark: { color: LEFT_OUT, shape: "circle", text: "×" },
        position: f.geometry.coordinates,
        facts: {},
        details: { stop: f.properties.stop, reason: f.properties.reason },
      })),
    });
  }
  return groups;
}

function stopItem(f, l10n) {
  const p = f.properties;
  const t = (key, vars) => word(l10n, key, vars);
  const facts = { [t("arrival")]: l10n.dateTime(p.arrival) };
  if (p.window) facts[t("window")] = `${l10n.dateTime(p.window[0])} – ${l10n.dateTime(p.window[1])}`;
  return {
    id: `stop-${p.stop}`,
    kind: "stop",
    name: `${p.order}. #${p.stop + 1}`,
    sub: t("vehicleN", { n: p.vehicle + 1 }),
    mark: { color: p.color, shape: "circle", text: String(p.order) },
    position: f.geometry.coordinates,
    facts,
    details: { stop: p.stop, vehicle: p.vehicle, order: p.order, arrival: p.arrival, window: p.window ?? null },
  };
}

/** Draw a plan: routes in their vehicles' colours, numbered stops, depots, stops left out. */
export function drawPlan(scene, fc, { theme, l10n, select }) {
  const casing = casingColor(theme);
  const routes = fc.features.filter((f) => f.properties?.kind === "route");
  scene.source("routes", routes);
  scene.layer({ id: "routes-casing", type: "line", source: "routes", layout: { "line-cap": "round", "line-join": "round" }, paint: { "line-color": casing, "line-width": 7 } }, "routes");
  scene.layer({ id: "routes-line", type: "line", source: "routes", layout: { "line-cap": "round", "line-join": "round" }, paint: { "line-color": ["get", "color"], "line-width": 4 } }, "routes");
  const marks = fc.features
    .filter((f) => ["stop", "unassigned", "depot"].includes(f.properties?.kind))
    .map((f) => {
      const p = f.properties;
      const label = p.kind === "stop" ? String(p.order) : p.kind === "depot" ? "D" : "×";
      return { ...f, properties: { ...p, item: p.kind === "depot" ? null : `stop-${p.stop}`, label, color: p.kind === "stop" ? p.color : LEFT_OUT } };
    });
  scene.source("selection", []);
  scene.layer({ id: "selection-point", type: "circle", source: "selection", paint: { "circle-radius": 15, "circle-color": "rgba(0,0,0,0)", "circle-stroke-color": ["get", "color"], "circle-stroke-width": 3 } }, "selection");
  scene.source("stops", marks);
  scene.layer({ id: "stops-circle", type: "circle", source: "stops", paint: { "circle-radius": 9, "circle-color": ["get", "color"], "circle-stroke-color": casing, "circle-stroke-width": 2 } }, "stops");
  scene.layer({ id: "stops-label", type: "symbol", source: "stops", layout: { "text-field": ["get", "label"], "text-font": ["sans-serif"], "text-size": 10, "text-allow-overlap": true }, paint: { "text-color": casing } }, "stops");
  selectOnClick(scene, "stops-circle", select);
  const groups = planGroups(fc, l10n);
  const legend = routes.map((r) => ({ label: word(l10n, "vehicleN", { n: r.properties.vehicle + 1 }), color: r.properties.color, shape: "line", group: "routes" }));
  if (fc.features.some((f) => f.properties?.kind === "unassigned")) legend.push({ label: word(l10n, "notServed"), color: LEFT_OUT, shape: "circle", group: "stops" });
  return { groups, legend, routes: routes.length, stops: marks.length };
}

/** Ring the selected place or stop. */
export function highlight(scene, item) {
  const features = item?.position ? [point(item.position, { color: item.mark.color })] : [];
  scene.map.getSource("selection")?.setData({ type: "FeatureCollection", features });
}
