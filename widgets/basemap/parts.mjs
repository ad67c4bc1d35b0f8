/**
 * Build time only: the offline basemap's land and borders as integer grid
 * deltas, the one form both of its users are written from: the
 * views' packed basemap (`packParts`, decoded by unpack.js) and the server's
 * map images (image.mjs writes the same parts as JSON for Python).
 *
 * Land is the union of the countries (coasts only, no inner borders), borders
 * the mesh between different countries. Rings and lines stay on the
 * topology's grid: `[x0, y0, dx1, dy1, ...]`, first pair absolute, then
 * deltas; lon = x * scale[0] + translate[0] (and likewise for lat). A polygon
 * is its outer ring then its holes.
 */
import { merge, mesh } from "topojson-client";
import { varints } from "../bench/varints.js";

/** Ring or line of [lon, lat] as grid deltas, repeated positions dropped. */
function encoded(points, transform) {
  const [sx, sy] = transform.scale;
  const [tx, ty] = transform.translate;
  const out = [];
  let px = 0;
  let py = 0;
  for (const [lon, lat] of points) {
    const x = Math.round((lon - tx) / sx);
    const y = Math.round((lat - ty) / sy);
    if (out.length && x === px && y === py) continue;
    out.push(x - px, y - py);
    px = x;
    py = y;
  }
  return out;
}

/** {scale, translate, land: polygons of rings, borders: lines} of a quantized `topology`. */
export function basemapParts(topology) {
  const { transform } = topology;
  const countries = topology.objects.countries.geometries;
  const land = merge(topology, countries)
    .coordinates.map((polygon) => polygon.map((ring) => encoded(ring, transform)).filter((ring) => ring.length >= 6))
    .filter((polygon) => polygon.length);
  const borders = mesh(topology, topology.objects.countries, (a, b) => a !== b)
    .coordinates.map((line) => encoded(line, transform))
    .filter((line) => line.length >= 4);
  return { scale: transform.scale, translate: transform.translate, land, borders };
}

/**
 * The parts as the views inline them: zigzag varints, base64. The stream is the
 * polygon count, then per polygon its ring count, per ring its point count and
 * deltas; then the line count, per line its point count and deltas. A part's
 * first position is a delta from the previous part's last (the first part's
 * from 0, 0): neighbouring islands cost small numbers, not two absolute ones.
 */
export function packParts({ scale, translate, land, borders }) {
  const values = [];
  const pen = { x: 0, y: 0 };
  const part = (flat) => {
    values.push(flat.length / 2, flat[0] - pen.x, flat[1] - pen.y, ...flat.slice(2));
    for (let i = 0; i < flat.length; i += 2) {
      pen.x = (i ? pen.x : 0) + flat[i];
      pen.y = (i ? pen.y : 0) + flat[i + 1];
    }
  };
  values.push(land.length);
  for (const polygon of land) {
    values.push(polygon.length);
    polygon.forEach(part);
  }
  values.push(borders.length);
  borders.forEach(part);
  return { scale, translate, parts: Buffer.from(varints(values)).toString("base64") };
}
