/** Bounds of decoded GeoJSON, for fitting the map to what was drawn. */

/** [west, south, east, north] of every position in `doc`, or null when it has none. */
export function boundsOf(doc) {
  const box = [Infinity, Infinity, -Infinity, -Infinity];
  visit(doc, box);
  return box[0] === Infinity ? null : box;
}

function visit(node, box) {
  if (node === null || typeof node !== "object") return;
  if (node.type === "FeatureCollection") return node.features.forEach((f) => visit(f, box));
  if (node.type === "Feature") return visit(node.geometry, box);
  if (node.type === "GeometryCollection") return node.geometries.forEach((g) => visit(g, box));
  if ("coordinates" in node) extend(node.coordinates, box);
}

function extend(coords, box) {
  if (typeof coords[0] === "number") {
    const [lon, lat] = coords;
    if (!Number.isFinite(lon) || !Number.isFinite(lat)) return;
    if (lon < box[0]) box[0] = lon;
    if (lat < box[1]) box[1] = lat;
    if (lon > box[2]) box[2] = lon;
    if (lat > box[3]) box[3] = lat;
    return;
  }
  for (const c of coords) extend(c, box);
}

/** The union of boxes, skipping nulls; null when all are null. */
export function union(...boxes) {
  const present = boxes.filter(Boolean);
  if (present.length === 0) return null;
  return [
    Math.min(...present.map((b) => b[0])),
    Math.min(...present.map((b) => b[1])),
    Math.max(...present.map((b) => b[2])),
    Math.max(...present.map((b) => b[3])),
  ];
}

/**
 * A bbox from a tool input: [w, s, e, n] or "w,s,e,n"; throws with the reason
 * when it is malformed, so the traffic view can say what was wrong.
 */
export function parseBbox(value) {
  const parts = typeof value === "string" ? value.split(",").map((s) => Number(s.trim())) : value;
  if (!Array.isArray(parts) || parts.length !== 4 || !parts.every(Number.isFinite)) {
    throw new TypeError(`bbox must be [west, south, east, north], got ${JSON.stringify(value)}`);
  }
  const [w, s, e, n] = parts;
  if (s > n || s < -90 || n > 90 || w < -180 || e > 180) {
    throw new RangeError(`bbox ${JSON.stringify(parts)} is not [west, south, east, north]`);
  }
  return parts;
}

