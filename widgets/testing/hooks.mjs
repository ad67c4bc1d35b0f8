/**
 * Node module hooks for the unit tests, standing in for the build's esbuild
 * plugins (build.mjs): `basemap:topology` is an empty topology (unit tests
 * never draw the basemap; the browser tests do), and a JSON file imports as
 * its parsed value, as esbuild bundles it.
 */
import { readFile } from "node:fs/promises";

const TOPOLOGY = "basemap:topology";
const EMPTY = { type: "Topology", objects: { countries: { type: "GeometryCollection", geometries: [] } }, arcs: [] };

export async function resolve(specifier, context, next) {
  if (specifier === TOPOLOGY) return { url: TOPOLOGY, shortCircuit: true };
  return next(specifier, context);
}

export async function load(url, context, next) {
  if (url === TOPOLOGY) return { format: "module", source: `export default ${JSON.stringify(EMPTY)};`, shortCircuit: true };
  if (url.startsWith("file:") && url.endsWith(".json") && !context.importAttributes?.type) {
    const text = await readFile(new URL(url), "utf8");
    return { format: "module", source: `export default ${text};`, shortCircuit: true };
  }
  return next(url, context);
}
