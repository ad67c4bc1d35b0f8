"use strict";
import test from "node:test";
import assert from "node:assert/strict";
import zlib from "node:zlib";
import envelope from "./envelope.js";
const { KEY, decode, fromResult, fetchPaged } = envelope;

const env = { v: 1, tool: "tomtom-geocode", data: { type: "FeatureCollection", features: [] }, fitted: null };
const pack = (value) => zlib.gzipSync(Buffer.from(JSON.stringify(value))).toString("base64");

test("an envelope decodes from base64 gzip JSON", async () => {
  assert.deepEqual(await decode(pack(env)), env);
});

test("a member with an empty gzip extra field (a fit's pad) decodes the same", async () => {
  const plain = zlib.gzipSync(Buffer.from(JSON.stringify(env)));
  for (const extra of [0, 1, 5]) {
    // FLG.FEXTRA, then XLEN and that many bytes: RFC 1952, as fitting/_codec.Member.pad writes it.
    const xlen = Buffer.from([extra & 0xff, extra >> 8]);
    const padded = Buffer.concat([plain.subarray(0, 3), Buffer.from([plain[3] | 4]), plain.subarray(4, 10), xlen, Buffer.alloc(extra), plain.subarray(10)]);
    assert.deepEqual(await decode(padded.toString("base64")), env);
  }
});

test("a tool result carrying app data yields its envelope", async () => {
  const result = { content: [{ type: "text", text: "{}" }], _meta: { [KEY]: pack(env), tool: env.tool } };
  assert.equal((await fromResult(result)).tool, "tomtom-geocode");
});

test("the openai metadata fallback is used when the result has no _meta", async () => {
  assert.equal((await fromResult({ content: [] }, { [KEY]: pack(env) })).v, 1);
});

test("each way of having no data names its own reason", async () => {
  const cases = [
    [{ isError: true, content: [{ type: "text", text: "bad location" }] }, "tool_error", /bad location/],
    [{ content: [] }, "meta_dropped", /did not pass the tool result's _meta/],
    [{ content: [], _meta: { "io.modelcontextprotocol/x": 1 } }, "meta_dropped", /_meta/],
    [{ content: [], _meta: { tool: "tomtom-routing", show_ui: true } }, "no_app_data", /no map data/],
    [
      { content: [], _meta: { tool: "tomtom-routing", "com.tomtom/app-data-omitted": "too_large: anchors need 130000 chars" } },
      "too_large",
      /too large to send, even simplified \(anchors need 130000 chars\)/,
    ],
    [{ content: [], _meta: { "com.tomtom/app-data-omitted": "invalid: ring 0 open" } }, "invalid", /ring 0 open/],
    [{ content: [], _meta: { tool: "tomtom-routing", show_ui: false } }, "ui_disabled", /show_ui/],
    [{ content: [], _meta: { [KEY]: "%%%" } }, "decode_failed", /base64/],
    [{ content: [], _meta: { [KEY]: Buffer.from("plain").toString("base64") } }, "decode_failed", /unzipped/],
    [{ content: [], _meta: { [KEY]: pack({ v: 4, tool: "x", data: {} }) } }, "decode_failed", /v=4/],
  ];
  for (const [result, reason, message] of cases) {
    await assert.rejects(fromResult(result), (err) => err.reason === reason && message.test(err.message));
  }
});

test("paged app data is joined in order, with progress, then decoded", async () => {
  const full = pack({ ...env, tool: "tomtom-data-viz" });
  const size = Math.ceil(full.length / 3);
  const calls = [];
  const progress = [];
  const callTool = async (name, args) => {
    calls.push([name, args]);
    const offset = args.offset || 0;
    const chunk = full.slice(offset, offset + size);
    return { content: [], _meta: { [KEY]: chunk, offset, total: full.length, has_more: offset + size < full.length } };
  };
  const out = await fetchPaged(callTool, { data_url: "http://x/y.geojson" }, (n, t) => progress.push([n, t]));
  assert.equal(out.tool, "tomtom-data-viz");
  assert.equal(calls.length, 3);
  assert.deepEqual(calls[0], ["tomtom-get-app-data", { tool: "tomtom-data-viz", arguments: { data_url: "http://x/y.geojson" } }]);
  assert.equal(calls[2][1].offset, 2 * size);
  assert.deepEqual(progress.at(-1), [full.length, full.length]);
});

test("paging stops with a reason when pages do not line up or the fetch fails", async () => {
  const skip = async () => ({ content: [], _meta: { [KEY]: "abc", offset: 5, total: 10, has_more: true } });
  await assert.rejects(fetchPaged(skip, {}), (e) => e.reason === "fetch_failed" && /line up/.test(e.message));
  const refuse = async () => ({ isError: true, content: [{ type: "text", text: "download refused" }] });
  await assert.rejects(fetchPaged(refuse, {}), /download refused/);
});

/** A v2 gzip member: the envelope's JSON, a NUL byte, then the line section. */
const packV2 = (value, lines) =>
  zlib.gzipSync(Buffer.concat([Buffer.from(JSON.stringify(value)), Buffer.from([0]), Buffer.from(lines)])).toString("base64");

test("a v2 envelope's e5v ranges become byte views of its line section", async () => {
  const value = {
    v: 2,
    tool: "tomtom-routing",
    data: {
      type: "FeatureCollection",
      features: [
        { type: "Feature", properties: {}, geometry: { type: "LineString", e5v: [0, 4] } },
        { type: "Feature", properties: {}, geometry: { type: "Polygon", e5v: [[4, 12]], q: 2 } },
        { type: "Feature", properties: {}, geometry: { type: "Point", coordinates: [1, 2] } },
      ],
    },
    fitted: null,
  };
  const out = await decode(packV2(value, [2, 4, 1, 3, 0, 0, 20, 0, 0, 20, 19, 19]));
  assert.equal(out.v, 2);
  const [line, ring, point] = out.data.features.map((f) => f.geometry);
  assert.deepEqual([...line.e5], [2, 4, 1, 3]);
  assert.ok(!("e5v" in line));
  assert.deepEqual([...ring.e5[0]], [0, 0, 20, 0, 0, 20, 19, 19]);
  assert.equal(ring.q, 2);
  assert.deepEqual(point.coordinates, [1, 2]);
});

test("a v2 range outside its line section, or a line section in v1, is refused", async () => {
  const base = { tool: "tomtom-routing", fitted: null };
  const outside = { ...base, v: 2, data: { type: "FeatureCollection", features: [{ type: "Feature", geometry: { type: "LineString", e5v: [0, 9] } }] } };
  await assert.rejects(decode(packV2(outside, [2, 4])), (e) => e.reason === "decode_failed" && /outside the 2-byte line section/.test(e.message));
  const v1 = { ...base, v: 1, data: { type: "FeatureCollection", features: [] } };
  await assert.rejects(decode(packV2(v1, [2, 4])), /v1 has a binary section/);
});
