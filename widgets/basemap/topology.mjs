/**
 * Build time only: Natural Earth 1:50m countries (world-atlas, pinned) made
 * small enough to inline in every view. Vertices whose triangle is
 * under MIN_AREA square degrees go: a few kilometres of detail, what an inline
 * view shows at the zooms of a region or a route (the basemap is the offline
 * fallback; TomTom tiles are for streets). An island of at least ISLAND_AREA
 * keeps its three most significant vertices, so small islands stay on the map
 * as quadrilaterals rather than vanish. Positions are quantized to QUANTIZE
 * steps, and properties other than the name are dropped.
 */
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { quantize } from "topojson-client";
import { filter, filterWeight, presimplify, simplify } from "topojson-simplify";

const MIN_AREA = 0.06;
const ISLAND_AREA = 0.02;
const QUANTIZE = 1e4;
const require = createRequire(import.meta.url);

/** Twice the signed area of a ring, in square degrees (the shoelace formula). */
function ringArea(ring) {
  let sum = 0;
  for (let i = 1; i < ring.length; i++) sum += ring[i - 1][0] * ring[i][1] - ring[i][0] * ring[i - 1][1];
  return sum / 2;
}

/** Every closed arc (an island's ring) of at least `minArea` keeps its three heaviest inner vertices. */
export function keepIslands(topology, minArea) {
  for (const arc of topology.arcs) {
    const [first, last] = [arc[0], arc.at(-1)];
    if (arc.length < 5 || first[0] !== last[0] || first[1] !== last[1] || Math.abs(ringArea(arc)) < minArea) continue;
    const heaviest = arc.slice(1, -1).sort((a, b) => b[2] - a[2]).slice(0, 3);
    for (const point of heaviest) point[2] = Infinity;
  }
  return topology;
}

export async function basemapTopology() {
  const source = JSON.parse(await readFile(require.resolve("world-atlas/countries-50m.json"), "utf8"));
  delete source.objects.land;
  let topology = keepIslands(presimplify(source), ISLAND_AREA);
  topology = simplify(topology, MIN_AREA);
  topology = filter(topology, filterWeight(topology, ISLAND_AREA / 2));
  topology.arcs = topology.arcs.map((arc) => arc.map(([x, y]) => [x, y]));
  topology = quantize(topology, QUANTIZE);
  for (const g of topology.objects.countries.geometries) g.properties = { name: g.properties?.name ?? "" };
  return topology;
}
