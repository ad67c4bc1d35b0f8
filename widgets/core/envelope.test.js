"use strict";
import test from "node:test";
import assert from "node:assert/strict";
import zlib from "node:zlib";
import envelope from "./envelope.js";
const { KEY, decode, fromResult } = envelope;

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

test("a _meta the host replaced with its own is read through the fallback, ours winning over the host's keys", () => {
  const host = { "openai/widgetSessionId": "w-1" };
  const ours = { [KEY]: "abc", tool: "tomtom-routing" };
  assert.deepEqual(envelope.appMeta({ _meta: host }, ours), { ...host, ...ours });
  assert.deepEqual(envelope.appMeta({ _meta: ours }, { [KEY]: "other" }), ours, "the result's own keys come first");
  assert.deepEqual(envelope.appMeta({ _meta: host }, { unrelated: 1 }), host);
  assert.equal(envelope.appMeta({ content: [] }, undefined), null);
});

test("the server's second run comes back decoded, saying it was fetched again; a refusal says why", async () => {
  const asked = [];
  const answer = (result) => async (name, args) => (asked.push([name, args]), result);
  const again = await envelope.refetch(answer({ content: [], _meta: { [KEY]: pack(env), "com.tomtom/refetched": true } }), "tomtom-geocode", { query: "Dam" });
  assert.deepEqual([again.env.tool, again.refetched], ["tomtom-geocode", true]);
  assert.deepEqual(asked[0], ["tomtom-refetch-app-data", { tool: "tomtom-geocode", arguments: { query: "Dam" } }]);
  const refused = answer({ isError: true, content: [{ type: "text", text: "VIEW_REFETCH is off" }] });
  await assert.rejects(envelope.refetch(refused, "tomtom-geocode", {}), (err) => err.reason === "fetch_failed" && /VIEW_REFETCH is off/.test(err.message));
  const broken = async () => Promise.reject(new Error("disconnected"));
  await assert.rejects(envelope.refetch(broken, "tomtom-geocode", {}), (err) => err.reason === "fetch_failed" && /disconnected/.test(err.message));
});
