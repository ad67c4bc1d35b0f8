/**
 * Node module hooks for the unit tests, standing in for the build's esbuild
 * plugins (build.mjs): `basemap:data` is an empty packed basemap (unit tests
 * never draw the basemap; the browser tests do), and a JSON file imports as
 * its parsed value, as esbuild bundles it.
 */
import { readFile } from "node:fs/promises";

const BASEMAP = "basemap:data";
/** No polygons, no lines: the varints 0 and 0. */
const EMPTY = { scale: [1, 1], translate: [0, 0], parts: "AAA=" };

export async function resolve(specifier, context, next) {
  if (specifier === BASEMAP) return { url: BASEMAP, shortCircuit: true };
  return next(specifier, context);
}

export async function load(url, context, next) {
  if (url === BASEMAP) return { format: "module", source: `export default ${JSON.stringify(EMPTY)};`, shortCircuit: true };
  if (url.startsWith("file:") && url.endsWith(".json") && !context.importAttributes?.type) {
    const text = await readFile(new URL(url), "utf8");
    return { format: "module", source: `export default ${text};`, shortCircuit: true };
  }
  return next(url, context);
}
