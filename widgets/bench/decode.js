"use strict";
/**
 * What decoding costs a view: a seeded road-like route of N points (default
 * 40,000, the size of Lisbon to Warsaw) packed as the server sends it (e5
 * deltas, gzip, base64) against the same route as float JSON (the reference),
 * both run through the view's own decode path. Prints medians of 15 runs and
 * the characters on the wire.
 *
 *   node widgets/bench/decode.js [points]
 */
import zlib from "node:zlib";
import envelope from "../core/envelope.js";
import e5 from "../core/e5.js";

const N = Number(process.argv[2] || 40000);
const RUNS = 15;

function route(n, seed = 7) {
  let s = seed;
  const rand = () => ((s = (s * 1103515245 + 12345) % 2147483648) / 2147483648);
  const out = [];
  let lon = -9.14;
  let lat = 38.72;
  let heading = 0.6;
  for (let i = 0; i < n; i++) {
    heading += (rand() - 0.5) * 0.3;
    lon += Math.cos(heading) * 0.00075;
    lat += Math.sin(heading) * 0.0005;
    out.push([Math.round(lon * 1e5) / 1e5, Math.round(lat * 1e5) / 1e5]);
  }
  return out;
}

function pack(data) {
  const env = { v: 1, tool: "tomtom-routing", data, fitted: null };
  return zlib.gzipSync(Buffer.from(JSON.stringify(env)), { level: 6 }).toString("base64");
}

function feature(geometry) {
  return { type: "FeatureCollection", features: [{ type: "Feature", properties: { kind: "route" }, geometry }] };
}

function toE5(coords) {
  const flat = [];
  let plon = 0;
  let plat = 0;
  for (const [lon, lat] of coords) {
    const x = Math.round(lon * 1e5);
    const y = Math.round(lat * 1e5);
    flat.push(x - plon, y - plat);
    plon = x;
    plat = y;
  }
  return flat;
}

async function median(fn) {
  const times = [];
  for (let i = 0; i < RUNS; i++) {
    const t = process.hrtime.bigint();
    await fn();
    times.push(Number(process.hrtime.bigint() - t) / 1e6);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(RUNS / 2)];
}

(async () => {
  const coords = route(N);
  const floats = pack(feature({ type: "LineString", coordinates: coords }));
  const packed = pack(feature({ type: "LineString", e5: toE5(coords) }));
  const check = e5.decodeGeoJSON((await envelope.decode(packed)).data);
  if (JSON.stringify(check.features[0].geometry.coordinates) !== JSON.stringify(coords)) {
    throw new Error("e5 round trip differs from the float route");
  }
  const ref = await median(async () => e5.decodeGeoJSON((await envelope.decode(floats)).data));
  const ours = await median(async () => e5.decodeGeoJSON((await envelope.decode(packed)).data));
  console.log(`route of ${N.toLocaleString("en-US")} points, median of ${RUNS} runs`);
  console.log(`  float JSON (reference): ${floats.length.toLocaleString("en-US")} chars, decode ${ref.toFixed(1)} ms`);
  console.log(`  e5 deltas (as sent):    ${packed.length.toLocaleString("en-US")} chars, decode ${ours.toFixed(1)} ms`);
  console.log(`  e5 / reference: ${(packed.length / floats.length).toFixed(2)}x chars, ${(ours / ref).toFixed(2)}x time`);
})();
