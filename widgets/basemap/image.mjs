/**
 * Build time only: the views' Natural Earth basemap (basemapParts: the same
 * simplified and quantized land and borders every view inlines, packed) as a
 * small JSON file the server's map images read with Python alone
 * (server/jobs/_basemap.py; the server never runs Node, so the file is
 * committed and `--check` keeps it fresh). Parts are parts.mjs's grid deltas;
 * the colours are the light theme's (themes.js), so an image matches a light
 * view.
 */
import { basemapParts } from "./parts.mjs";
import { THEMES } from "./themes.js";

/** The JSON text of the image basemap for `topology` (the output of basemapTopology). */
export function imageBasemap(topology) {
  const { scale, translate, land, borders } = basemapParts(topology);
  const { water, land: landColour, border, coast } = THEMES.light;
  const source = "Natural Earth 1:50m countries (world-atlas, public domain), built by widgets/basemap/image.mjs";
  // One polygon or line per line of text: small diffs when the data changes.
  const rows = (list) => list.map((item) => JSON.stringify(item)).join(",\n");
  const head = JSON.stringify({ source, colors: { water, land: landColour, border, coast }, scale, translate });
  return `${head.slice(0, -1)},\n"land": [\n${rows(land)}\n],\n"borders": [\n${rows(borders)}\n]}\n`;
}
