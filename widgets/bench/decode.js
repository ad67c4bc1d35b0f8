"use strict";
/**
 * What decoding costs a view: a seeded road-like route of N points (default
 * 40,000, the size of Lisbon to Warsaw) packed as the server sends it
 * (envelope v2: JSON, NUL, zigzag varint deltas; gzip, base64), as envelope
 * v1 sent it (e5 integer deltas in the JSON: the bar v2 must not exceed) and
 * as float JSON (the reference), all run through the view's own decode path.
 * Prints medians of 15 runs, interleaved, and the characters on the wire.
 *
 *   node widgets/bench/decode.js [points]
 */
import zlib from "node:zlib";
import envelope from "../core/envelope.js";
import e5 from "../core/e5.js";
import { varints } from "./varints.js";

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

function pack(data, lines = null) {
  const env = { v: lines ? 2 : 1, tool: "tomtom-routing", data, fitted: null };
  const json = Buffer.from(JSON.stringify(env));
  const raw = lines ? Buffer.concat([json, Buffer.from([0]), lines]) : json;
  return zlib.gzipSync(raw, { level: 6 }).toString("base64");
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

/** Median milliseconds of each decode, runs interleaved so machine noise hits all alike. */
async function medians(fns) {
  const times = fns.map(() => []);
  for (const fn of fns) await fn(); // warm
  for (let i = 0; i < RUNS; i++) {
    for (let j = 0; j < fns.length; j++) {
      const t = process.hrtime.bigint();
      await fns[j]();
      times[j].push(Number(process.hrtime.bigint() - t) / 1e6);
    }
  }
  return times.map((t) => t.sort((a, b) => a - b)[Math.floor(RUNS / 2)]);
}

(async () => {
  const coords = route(N);
  const flat = toE5(coords);
  const floats = pack(feature({ type: "LineString", coordinates: coords }));
  const v1 = pack(feature({ type: "LineString", e5: flat }));
  const lines = varints(flat);
  const v2 = pack(feature({ type: "LineString", e5v: [0, lines.length] }), lines);
  const decodeView = async (b64) => e5.decodeGeoJSON((await envelope.decode(b64)).data);
  for (const packed of [v1, v2]) {
    const check = await decodeView(packed);
    if (JSON.stringify(check.features[0].geometry.coordinates) !== JSON.stringify(coords)) {
      throw new Error("e5 round trip differs from the float route");
    }
  }
  const [ref, old, ours] = await medians([floats, v1, v2].map((b64) => () => decodeView(b64)));
  const row = (label, b64, ms) =>
    console.log(`  ${label} ${b64.length.toLocaleString("en-US")} chars, decode ${ms.toFixed(1)} ms`);
  console.log(`route of ${N.toLocaleString("en-US")} points, median of ${RUNS} interleaved runs`);
  row("float JSON (reference):   ", floats, ref);
  row("v1 e5 integer deltas:     ", v1, old);
  row("v2 varint deltas (sent):  ", v2, ours);
  console.log(`  v2 / v1: ${(v2.length / v1.length).toFixed(2)}x chars, ${(ours / old).toFixed(2)}x time`);
  console.log(`  v2 / float JSON: ${(v2.length / floats.length).toFixed(2)}x chars, ${(ours / ref).toFixed(2)}x time`);
})();
