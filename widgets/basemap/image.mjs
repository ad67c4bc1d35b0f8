/**
 * Build time only: the views' Natural Earth basemap (basemapTopology, the same
 * simplified and quantized data every view inlines) as a small JSON file the
 * server's map images read with Python alone (server/jobs/_basemap.py; the
 * server never runs Node, so the file is committed and `--check` keeps it fresh).
 *
 * Land is the union of the countries (coasts only, no inner borders), borders
 * the mesh between different countries, exactly as the views draw them. Rings
 * and lines stay on the topology's integer grid: `[x0, y0, dx1, dy1, ...]`,
 * first pair absolute, then deltas; lon = x * scale[0] + translate[0] (and
 * likewise for lat). A polygon is its outer ring then its holes. The colours
 * are the light theme's (themes.js), so an image matches a light view.
 */
import { merge, mesh } from "topojson-client";
import { THEMES } from "./themes.js";

/** Ring or line of [lon, lat] as grid deltas. */
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

/** The JSON text of the image basemap for `topology` (the output of basemapTopology). */
export function imageBasemap(topology) {
  const { transform } = topology;
  const countries = topology.objects.countries.geometries;
  const land = merge(topology, countries).coordinates.map((polygon) =>
    polygon.map((ring) => encoded(ring, transform)).filter((ring) => ring.length >= 6),
  );
  const borders = mesh(topology, topology.objects.countries, (a, b) => a !== b).coordinates
    .map((line) => encoded(line, transform))
    .filter((line) => line.length >= 4);
  const { water, land: landColour, border, coast } = THEMES.light;
  const doc = {
    source: "Natural Earth 1:50m countries (world-atlas, public domain), built by widgets/basemap/image.mjs",
    colors: { water, land: landColour, border, coast },
    scale: transform.scale,
    translate: transform.translate,
    land: land.filter((polygon) => polygon.length),
    borders,
  };
  // One polygon or line per line of text: small diffs when the data changes.
  const rows = (list) => list.map((item) => JSON.stringify(item)).join(",\n");
  const head = JSON.stringify({ source: doc.source, colors: doc.colors, scale: doc.scale, translate: doc.translate });
  return `${head.slice(0, -1)},\n"land": [\n${rows(doc.land)}\n],\n"borders": [\n${rows(doc.borders)}\n]}\n`;
}
