/**
 * What the streaming tool arguments already say: the waypoints,
 * markers, centres and areas to draw before the result arrives. Partial
 * arguments are "healed" JSON, so anything half-written is skipped, never
 * guessed. Returns a FeatureCollection with `kind` "waypoint" | "marker" |
 * "area" | "bbox", and whether a route is being computed.
 */
import { parseBbox } from "./bounds.js";
import { M_PER_DEG_LON_EQUATOR } from "./earth.js";

const isPosition = (p) =>
  Array.isArray(p) && p.length >= 2 && Number.isFinite(p[0]) && Number.isFinite(p[1]) && Math.abs(p[0]) <= 180 && Math.abs(p[1]) <= 90;

const point = (coordinates, properties) => ({ type: "Feature", properties, geometry: { type: "Point", coordinates: coordinates.slice(0, 2) } });

/** A circle of `radius` metres around `center` as a 48-gon. */
export function circle(center, radius, steps = 48) {
  const [lon, lat] = center;
  const ring = [];
  for (let i = 0; i <= steps; i++) {
    const a = (2 * Math.PI * i) / steps;
    const dLat = (radius * Math.sin(a)) / M_PER_DEG_LON_EQUATOR;
    const dLon = (radius * Math.cos(a)) / (M_PER_DEG_LON_EQUATOR * Math.cos((lat * Math.PI) / 180));
    ring.push([lon + dLon, lat + dLat]);
  }
  return ring;
}

export function partialFeatures(args) {
  const features = [];
  if (!args || typeof args !== "object") return { features, routing: false };
  const waypoints = (list, label) =>
    (Array.isArray(list) ? list : []).filter(isPosition).forEach((p, i) => features.push(point(p, { kind: "waypoint", index: i, label })));
  waypoints(args.locations);
  let routing = Array.isArray(args.locations) && args.locations.filter(isPosition).length >= 2;
  for (const r of Array.isArray(args.routes) ? args.routes : []) {
    if (r && Array.isArray(r.locations)) {
      waypoints(r.locations, r.label);
      routing ||= r.locations.filter(isPosition).length >= 2;
    }
  }
  for (const m of Array.isArray(args.markers) ? args.markers : []) {
    if (m && isPosition(m.position)) features.push(point(m.position, { kind: "marker", label: typeof m.label === "string" ? m.label : "" }));
  }
  for (const key of ["position", "origin"]) {
    if (isPosition(args[key])) features.push(point(args[key], { kind: "marker", label: "" }));
  }
  for (const p of Array.isArray(args.polygons) ? args.polygons : []) {
    if (p && isPosition(p.center) && Number.isFinite(p.radius) && p.radius > 0 && p.radius <= 500000) {
      features.push({ type: "Feature", properties: { kind: "area", label: p.label || "" }, geometry: { type: "Polygon", coordinates: [circle(p.center, p.radius)] } });
    }
  }
  if (args.bbox !== undefined) {
    try {
      const [w, s, e, n] = parseBbox(args.bbox);
      if (w < e && s < n) {
        features.push({ type: "Feature", properties: { kind: "bbox" }, geometry: { type: "Polygon", coordinates: [[[w, s], [e, s], [e, n], [w, n], [w, s]]] } });
      }
    } catch {
      // not a whole bbox yet
    }
  }
  return { features, routing };
}
