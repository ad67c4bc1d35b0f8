/**
 * The map view's drawing: a tool FeatureCollection (docs/result.md) onto a Scene,
 * by `properties.kind`, and the list items that go with it: routes (the
 * alternatives), their instructions, places and areas. Charging stations
 * come coloured by availability from the server (`color`, `state`, `detail`);
 * routing's alternatives (`alternative: true`) are plain secondary lines.
 * Also the sketch drawn from partial tool input, and the selection's
 * highlight. It touches the map only through the Scene (no DOM of its own),
 * so draw.test.js runs it on a fake one.
 */
import * as style from "../core/style.js";
import { boundsOf } from "../core/bounds.js";
import { casingColor, dashedLines, selectOnClick } from "../core/map.js";

const MAX_INSTRUCTIONS = 300;
/** Markers with a legend row each, up to this many; more share one row per colour. */
const MARKER_ROWS = 8;
/** A marker this close to a stop (degrees, about 10 m) would hide under its pin: it is drawn beside it. */
const SAME_PLACE = 1e-4;
/** A marker's dot sits on its position (the chip's left edge 8 px before it), or beside a stop's pin. */
const ON_POINT = [-8, 0];
const BESIDE_PIN = [12, 0];

/** The flat vertex list of a route feature, parts concatenated. */
function routeCoords(geometry) {
  if (!geometry) return [];
  if (geometry.type === "LineString") return geometry.coordinates;
  if (geometry.type === "MultiLineString") return geometry.coordinates.flat();
  return [];
}

const asText = (value) => (typeof value === "string" ? value : value === undefined || value === null ? "" : JSON.stringify(value));

function routeSummary(p, l10n) {
  const parts = [l10n.distance(p.length), l10n.duration(p.time)].filter(Boolean);
  if (p.delay > 59) parts.push(l10n.t("trafficDelay", { d: l10n.duration(p.delay) }));
  return parts.join(" · ");
}

/**
 * Draw `fc` on `scene`. Returns counts, legend rows, list groups (items), warnings
 * and the routes' properties. `select(id)` is called when a feature is clicked.
 */
export function drawFeatures(scene, fc, { theme, l10n, select }) {
  const t = l10n.t;
  const palette = style.PALETTE[theme] || style.PALETTE.light;
  const routes = [];
  const sections = [];
  const areas = [];
  const points = [];
  const waypoints = [];
  const crossings = [];
  const warnings = [];
  const items = { routes: [], instructions: [], places: [], stops: [], areas: [] };
  let routePoints = 0;
  for (const f of fc.features) {
    const p = f.properties || {};
    const kind = p.kind || "feature";
    const g = f.geometry;
    if (!g) continue;
    if (kind === "route" || (kind === "feature" && /LineString/.test(g.type))) {
      const n = routes.length;
      const id = `route-${n}`;
      const coords = routeCoords(g);
      const color = p.color || palette[n % palette.length];
      routePoints += coords.length;
      const s = p.summary || {};
      const label = p.label || (fc.features.filter((x) => x.properties?.kind === "route").length > 1 || p.route_index ? t("routeN", { n: (p.route_index ?? n) + 1 }) : t("route"));
      const alternative = p.alternative === true;
      const props = { item: id, color, label, alternative, length: s.lengthInMeters, time: s.travelTimeInSeconds, delay: s.trafficDelayInSeconds };
      routes.push({ type: "Feature", geometry: g, properties: props });
      items.routes.push({
        id,
        kind: "route",
        name: label,
        sub: routeSummary(props, l10n),
        mark: { color, shape: "line" },
        bbox: boundsOf(g),
        details: { length_m: s.lengthInMeters, travel_time_s: s.travelTimeInSeconds, traffic_delay_s: s.trafficDelayInSeconds, route_index: p.route_index ?? n },
        facts: { [t("length")]: l10n.distance(s.lengthInMeters), [t("delay")]: s.trafficDelayInSeconds > 59 ? l10n.duration(s.trafficDelayInSeconds) : "" },
      });
      if (!alternative) {
        // An alternative is a plain secondary line: its sections would hide the route's.
        const cut = style.sectionSegments(coords, p.sections, { route: n, item: id }, t, theme);
        sections.push(...cut.features);
        warnings.push(...cut.skipped);
        crossings.push(...style.countryCrossings(coords, p.sections));
      }
      if (n === 0) {
        const instructions = (p.guidance?.instructions || []).filter((i) => i.message && Number.isInteger(i.pointIndex) && coords[i.pointIndex]);
        for (const [k, ins] of instructions.slice(0, MAX_INSTRUCTIONS).entries()) {
          items.instructions.push({
            id: `step-${k}`,
            kind: "instruction",
            name: ins.message,
            sub: ins.routeOffsetInMeters > 0 ? l10n.distance(ins.routeOffsetInMeters) : "",
            mark: { color, shape: "dot", text: String(k + 1) },
            position: coords[ins.pointIndex],
            details: { route_offset_m: ins.routeOffsetInMeters },
          });
        }
      }
    } else if (/Polygon/.test(g.type)) {
      const base = style.kindStyle(kind, t, theme);
      const color = p.color || (kind === "area" ? palette[(areas.length + 2) % palette.length] : base.color);
      const id = `area-${areas.length}`;
      const label = p.label || base.label;
      areas.push({ type: "Feature", geometry: g, properties: { item: id, color, kind, label } });
      items.areas.push({ id, kind: kind === "range" ? "reachable range" : "area", name: label, mark: { color, shape: "area" }, bbox: boundsOf(g) });
    } else if (kind === "waypoint") {
      waypoints.push(f);
    } else if (/Point/.test(g.type)) {
      const base = style.kindStyle(kind, t, theme);
      const id = `place-${points.length}`;
      const name = asText(p.name || p.label || base.label);
      const distance = Number.isFinite(p.distance_m) ? l10n.distance(p.distance_m) : "";
      points.push({ type: "Feature", geometry: g, properties: { item: id, kind, color: p.color || base.color, state: asText(p.state) } });
      items.places.push({
        id,
        kind: kind === "result" ? "search result" : kind === "charging_stop" ? "charging stop" : kind,
        name,
        address: asText(p.address),
        sub: [asText(p.category), distance, asText(p.detail)].filter(Boolean).join(" · "),
        mark: { color: p.color || base.color, shape: "dot", text: kind === "result" ? String(items.places.length + 1) : "" },
        position: g.coordinates,
        details: { category: asText(p.category), distance_m: p.distance_m, id: p.id },
      });
    }
  }
  items.places.forEach((item, i, all) => Object.assign(item, { index: i, of: all.length }));

  const casing = casingColor(theme);
  scene.source("areas", areas);
  scene.layer({ id: "area-fill", type: "fill", source: "areas", paint: { "fill-color": ["get", "color"], "fill-opacity": 0.18 } }, "areas");
  scene.layer({ id: "area-line", type: "line", source: "areas", paint: { "line-color": ["get", "color"], "line-width": 2.5 } }, "areas");
  // Alternatives first in the source, so the route itself is drawn over them.
  scene.source("routes", [...routes].sort((a, b) => Number(b.properties.alternative) - Number(a.properties.alternative)));
  scene.layer({ id: "route-casing", type: "line", source: "routes", layout: { "line-join": "round", "line-cap": "round" }, paint: { "line-color": casing, "line-width": 9 } }, "routes");
  scene.layer({ id: "route-line", type: "line", source: "routes", layout: { "line-join": "round", "line-cap": "round" }, paint: { "line-color": ["get", "color"], "line-width": ["case", ["get", "alternative"], 3.5, 5.5] } }, "routes");
  scene.source("sections", sections);
  dashedLines(scene, "sections", "sections", "sections", ["get", "width"]);
  scene.source("selection", []);
  scene.layer({ id: "selection-line", type: "line", source: "selection", filter: ["!=", ["geometry-type"], "Point"], paint: { "line-color": casing, "line-width": 3, "line-dasharray": [1, 1] } }, "selection");
  scene.source("points", points);
  scene.layer(
    {
      id: "points",
      type: "circle",
      source: "points",
      paint: {
        "circle-radius": ["case", ["==", ["get", "kind"], "result"], 10, 7],
        "circle-color": ["get", "color"],
        "circle-stroke-color": casing,
        "circle-stroke-width": 2,
      },
    },
    "places",
  );
  scene.layer({ id: "selection-point", type: "circle", source: "selection", filter: ["==", ["geometry-type"], "Point"], paint: { "circle-radius": 15, "circle-color": "rgba(0,0,0,0)", "circle-stroke-color": ["get", "color"], "circle-stroke-width": 3 } }, "selection");
  for (const layer of ["points", "route-line", "area-fill"]) selectOnClick(scene, layer, select);

  const stopColor = style.kindStyle("waypoint", t, theme).color;
  waypoints.forEach((f, i) => {
    const p = f.properties || {};
    const idx = Number.isInteger(p.index) ? p.index : i;
    const letter = idx < 26 ? String.fromCharCode(65 + idx) : String(idx + 1);
    const last = waypoints.length - 1;
    const label = p.label || (idx === 0 ? t("start") : idx === last ? t("end") : t("stopN", { n: idx }));
    const id = `stop-${i}`;
    scene.marker({ className: "tt-pin", color: stopColor, text: letter, onClick: () => select(id) }, f.geometry.coordinates, { group: "places" });
    items.stops.push({ id, kind: "waypoint", name: `${letter} · ${label}`, mark: { color: stopColor, shape: "dot", text: letter }, position: f.geometry.coordinates });
  });
  const stops = waypoints.map((f) => f.geometry.coordinates);
  const atStop = ([lon, lat]) => stops.some(([x, y]) => Math.abs(x - lon) < SAME_PLACE && Math.abs(y - lat) < SAME_PLACE);
  points.forEach((f, i) => {
    const p = f.properties;
    const item = items.places[i];
    if (p.kind === "result" && points.length <= 99) {
      scene.marker({ className: "tt-num", text: String(i + 1) }, f.geometry.coordinates, { group: "places" });
    } else if (p.kind === "marker") {
      // The caller's own marker: its colour and label above every stop pin, beside one it shares a place with.
      const offset = atStop(f.geometry.coordinates) ? BESIDE_PIN : ON_POINT;
      const d = { className: "tt-marker", text: item.name, dot: p.color, onClick: () => select(item.id) };
      scene.marker(d, f.geometry.coordinates, { anchor: "left", offset, group: "places" });
    }
  });
  for (const c of crossings) scene.marker({ className: "tt-chip", text: c.label }, c.coordinates, { anchor: "bottom", group: "sections" });

  const legend = [];
  for (const r of routes) legend.push({ label: r.properties.label, color: r.properties.color, shape: "line", group: "routes" });
  // Section overlays are drawn on the route line, so their marks are too (a white motorway stripe reads only there).
  const under = routes[0]?.properties.color;
  for (const row of style.sectionLegend(sections)) legend.push({ ...row, shape: "line", under, group: "sections" });
  const byState = new Map();
  for (const f of points.filter((x) => x.properties.kind === "station")) {
    const state = style.STATION_STATE[f.properties.state] || "unknown";
    const row = byState.get(state) || { n: 0, color: f.properties.color };
    byState.set(state, { ...row, n: row.n + 1 });
  }
  for (const [state, row] of byState) legend.push({ label: `${t(`stationState.${state}`)} (${row.n})`, color: row.color, shape: "dot", group: "places" });
  const markers = points.flatMap((f, i) => (f.properties.kind === "marker" ? [{ color: f.properties.color, name: items.places[i].name }] : []));
  legend.push(...markerLegend(markers, style.kindStyle("marker", t, theme)));
  const byKind = new Map();
  for (const f of points.filter((x) => !["station", "marker"].includes(x.properties.kind))) byKind.set(f.properties.kind, (byKind.get(f.properties.kind) || 0) + 1);
  for (const [kind, n] of byKind) {
    const s = style.kindStyle(kind, t, theme);
    legend.push({ label: n > 1 ? `${s.label} (${n})` : s.label, color: s.color, shape: "dot", group: "places" });
  }
  if (waypoints.length) legend.push({ label: `${t("stops")} (${waypoints.length})`, color: style.kindStyle("waypoint", t, theme).color, shape: "dot", group: "places" });
  for (const a of areas) legend.push({ label: a.properties.label, color: a.properties.color, shape: "area", group: "areas" });
  if (crossings.length) legend.push({ label: t("borderCrossings", { n: crossings.length }), color: "#6e7781", shape: "dot" });

  // An EV route's places are its charging stops: say so rather than "Results".
  const onlyStops = points.length > 0 && points.every((f) => f.properties.kind === "charging_stop");
  const placesTitle = t(onlyStops ? "chargingStops" : "results");
  return {
    counts: {
      features: routes.length + areas.length + points.length + waypoints.length,
      routes: routes.length,
      routePoints,
      sections: sections.length,
      points: points.length + waypoints.length,
      places: points.filter((f) => ["result", "marker", "station"].includes(f.properties.kind)).length,
      areas: areas.length,
    },
    legend,
    groups: [
      { title: t("routes"), items: items.routes },
      { title: placesTitle, items: items.places },
      { title: t("stops"), items: items.stops },
      { title: t("areas"), items: items.areas },
      { title: t("instructions"), items: items.instructions },
    ],
    warnings,
    routes: routes.map((r) => r.properties),
  };
}

/**
 * The caller's markers ({color, name}) in the legend, each in its own colour:
 * one row per marker, or past MARKER_ROWS one per colour ("Marker (n)").
 */
function markerLegend(markers, base) {
  if (markers.length <= MARKER_ROWS) return markers.map((m) => ({ label: m.name, color: m.color, shape: "dot", group: "places" }));
  const byColor = new Map();
  for (const m of markers) byColor.set(m.color, (byColor.get(m.color) || 0) + 1);
  return [...byColor].map(([color, n]) => ({ label: `${base.label} (${n})`, color, shape: "dot", group: "places" }));
}

/**
 * The sketch of partial tool input (`partialFeatures`): pending pins for waypoints
 * and markers, dashed outlines for areas.
 */
export function drawPartial(scene, features, { theme, t }) {
  const pins = features.filter((f) => f.properties.kind !== "area" && f.properties.kind !== "bbox");
  const areas = features.filter((f) => f.properties.kind === "area");
  scene.source("partial-areas", areas);
  scene.layer({ id: "partial-area", type: "line", source: "partial-areas", paint: { "line-color": style.kindStyle("area", t, theme).color, "line-width": 2, "line-dasharray": [2, 1] } }, "areas");
  pins.forEach((f, i) => {
    const color = style.kindStyle(f.properties.kind === "marker" ? "marker" : "waypoint", t, theme).color;
    const text = f.properties.kind === "waypoint" ? String.fromCharCode(65 + (i % 26)) : "•";
    scene.marker({ className: "tt-pin tt-pending", color, text }, f.geometry.coordinates);
  });
}

/** Highlight the selected item: the route alternative stands out, the others fade; a ring marks a place. */
export function highlight(scene, item) {
  const map = scene.map;
  const selected = item?.kind === "route" ? item.id : null;
  if (map.getLayer("route-line")) {
    map.setPaintProperty("route-line", "line-opacity", selected ? ["case", ["==", ["get", "item"], selected], 1, 0.4] : 1);
  }
  const geometry = item?.position ? { type: "Point", coordinates: item.position } : null;
  const color = item?.mark?.color || "#0b57d0";
  map.getSource("selection")?.setData({ type: "FeatureCollection", features: geometry ? [{ type: "Feature", properties: { color }, geometry }] : [] });
}
