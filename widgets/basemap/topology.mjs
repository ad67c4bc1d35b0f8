/**
 * Build time only: Natural Earth 1:50m countries (world-atlas, pinned) made
 * small enough to inline in every view. Vertices whose triangle is under
 * MIN_AREA square degrees go (about a kilometre of detail; the basemap is for
 * regions, TomTom tiles are for streets), positions are quantized to QUANTIZE
 * steps, and properties other than the name are dropped.
 */
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { quantize } from "topojson-client";
import { filter, filterWeight, presimplify, simplify } from "topojson-simplify";

const MIN_AREA = 0.001;
const QUANTIZE = 2e4;
const require = createRequire(import.meta.url);

export async function basemapTopology() {
  const source = JSON.parse(await readFile(require.resolve("world-atlas/countries-50m.json"), "utf8"));
  delete source.objects.land;
  let topology = presimplify(source);
  topology = simplify(topology, MIN_AREA);
  topology = filter(topology, filterWeight(topology, MIN_AREA));
  topology.arcs = topology.arcs.map((arc) => arc.map(([x, y]) => [x, y]));
  topology = quantize(topology, QUANTIZE);
  for (const g of topology.objects.countries.geometries) g.properties = { name: g.properties?.name ?? "" };
  return topology;
}
