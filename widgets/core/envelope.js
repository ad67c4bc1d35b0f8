"use strict";
/**
 * App data from a tool result: base64 -> gunzip -> JSON envelope, and the
 * reason, in words a person can act on, whenever there is none to draw.
 *
 * Envelope v2 (docs/result.md): the JSON may be followed by a NUL byte and a
 * binary line section; each geometry's `"e5v"` names its parts' byte ranges
 * there, and they become `"e5"` byte views that e5.js decodes (zigzag
 * varints). v1 (`"e5"` integer arrays in the JSON alone) is still read.
 * v3, a data-viz page (docs/result.md): the section holds the caller's
 * coordinates as exact decimals, which decimals.js gives back to every
 * geometry naming `"dv"`.
 */
import decimals from "./decimals.js";

const envelope = (() => {
  const KEY = "com.tomtom/app-data";
  const OMITTED = "com.tomtom/app-data-omitted";
  const REFETCHED = "com.tomtom/refetched";
  const REFETCH_TOOL = "tomtom-refetch-app-data";

  /** Why a view has nothing to draw; `reason` is what the status report carries. */
  class ViewError extends Error {
    constructor(reason, message) {
      super(message);
      this.name = "ViewError";
      this.reason = reason;
    }
  }

  const VERSIONS = [1, 2, 3];
  const DEPTH = { LineString: 0, MultiLineString: 1, Polygon: 1, MultiPolygon: 2 };

  /** `[start, end]` leaves of a v2 `"e5v"` as views of the line section, nesting kept. */
  function byteRanges(node, depth, lines) {
    if (!Array.isArray(node)) throw new TypeError("e5v must be an array");
    if (depth > 0) return node.map((part) => byteRanges(part, depth - 1, lines));
    const [start, end] = node;
    if (node.length !== 2 || !Number.isInteger(start) || !Number.isInteger(end) || start < 0 || end < start || end > lines.length) {
      throw new TypeError(`e5v range ${JSON.stringify(node)} lies outside the ${lines.length}-byte line section`);
    }
    return lines.subarray(start, end);
  }

  function attachLines(env, lines) {
    const features = env.data && Array.isArray(env.data.features) ? env.data.features : [];
    for (const feature of features) {
      const geometry = feature && feature.geometry;
      if (!geometry || typeof geometry !== "object" || !("e5v" in geometry)) continue;
      if (!(geometry.type in DEPTH)) throw new TypeError(`e5v on a ${geometry.type} geometry`);
      geometry.e5 = byteRanges(geometry.e5v, DEPTH[geometry.type], lines);
      delete geometry.e5v;
    }
  }

  async function decode(b64) {
    let bytes;
    try {
      const bin = atob(b64);
      bytes = new Uint8Array(bin.length);
      for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
    } catch (err) {
      throw new ViewError("decode_failed", `The map data is not valid base64 (${err.message}).`);
    }
    let raw;
    try {
      const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
      raw = new Uint8Array(await new Response(stream).arrayBuffer());
    } catch (err) {
      throw new ViewError("decode_failed", `The map data could not be unzipped (${err.message}).`);
    }
    const end = raw.indexOf(0); // NUL never occurs in JSON text: it ends the JSON of v2
    let env;
    try {
      env = JSON.parse(new TextDecoder().decode(end < 0 ? raw : raw.subarray(0, end)));
    } catch (err) {
      throw new ViewError("decode_failed", `The map data is not valid JSON (${err.message}).`);
    }
    if (env === null || typeof env !== "object" || !VERSIONS.includes(env.v) || typeof env.tool !== "string") {
      throw new ViewError(
        "decode_failed",
        `The map data has an unknown format (expected envelope v1, v2 or v3, got v=${env && env.v}).`,
      );
    }
    if (env.data === null || typeof env.data !== "object") {
      throw new ViewError("decode_failed", `The map data from ${env.tool} has no data object.`);
    }
    if (env.v === 3) {
      try {
        decimals.attach(Array.isArray(env.data.features) ? env.data.features : [], end < 0 ? new Uint8Array(0) : raw.subarray(end + 1));
      } catch (err) {
        throw new ViewError("decode_failed", `The map data's coordinates section is malformed (${err.message}).`);
      }
    } else if (end >= 0) {
      if (env.v < 2) throw new ViewError("decode_failed", "The map data of envelope v1 has a binary section.");
      try {
        attachLines(env, raw.subarray(end + 1));
      } catch (err) {
        throw new ViewError("decode_failed", `The map data's line section is malformed (${err.message}).`);
      }
    }
    return env;
  }

  function resultText(result) {
    const block = (result && result.content || []).find((c) => c && c.type === "text");
    return block ? block.text : "";
  }

  /** Whether `meta` holds this server's keys (the app data, why it was left out, the tool, show_ui). */
  function isOurs(meta) {
    return Boolean(meta) && typeof meta === "object" && [KEY, OMITTED, "tool", "show_ui"].some((k) => k in meta);
  }

  /**
   * The `_meta` to read for `result`: its own when it holds this server's keys,
   * else `fallbackMeta` (`window.openai.toolResponseMetadata`: ChatGPT on the web
   * replaces the notification's `_meta` with its own but keeps ours there,
   * openai-apps-sdk-examples#231) when that does, merged over the host's keys.
   */
  function appMeta(result, fallbackMeta) {
    const own = result && result._meta;
    if (isOurs(own) || !isOurs(fallbackMeta)) return own || null;
    return { ...(own || {}), ...fallbackMeta };
  }

  /**
   * The envelope inside a tool result. `fallbackMeta` is
   * `window.openai.toolResponseMetadata` on hosts that keep `_meta` there.
   */
  async function fromResult(result, fallbackMeta) {
    if (result && result.isError) {
      const text = resultText(result).slice(0, 300) || "no message";
      throw new ViewError("tool_error", `The tool reported an error: ${text}`);
    }
    const meta = appMeta(result, fallbackMeta);
    if (!isOurs(meta)) {
      throw new ViewError(
        "meta_dropped",
        "The host did not pass the tool result's _meta to this view, so its map data never arrived.",
      );
    }
    if (typeof meta[KEY] === "string" && meta[KEY] !== "") return decode(meta[KEY]);
    if (meta.show_ui === false) {
      throw new ViewError("ui_disabled", "No map was requested for this answer (show_ui is false).");
    }
    if (typeof meta[OMITTED] === "string") {
      // "<reason>: <detail>" (docs/result.md), reason too_large or invalid.
      const [reason, ...rest] = meta[OMITTED].split(":");
      const detail = rest.join(":").trim();
      if (reason.trim() === "too_large") {
        throw new ViewError("too_large", `It was too large to send, even simplified (${detail}).`);
      }
      throw new ViewError(reason.trim() || "no_app_data", `The server left the map data out: ${meta[OMITTED]}`);
    }
    throw new ViewError("no_app_data", "The tool result carried no map data and no reason why.");
  }

  /**
   * The app data of `tool` run again by the server with `toolArguments` (the
   * view's own tool input): only where the server allows it (VIEW_REFETCH) and
   * the host dropped `_meta`. Resolves to {env, refetched} (whether the server
   * said the answer was fetched again); a refusal (off, over its cap, TomTom
   * failing) is a `fetch_failed` naming it.
   */
  async function refetch(callTool, tool, toolArguments) {
    let result;
    try {
      result = await callTool(REFETCH_TOOL, { tool, arguments: toolArguments });
    } catch (err) {
      throw new ViewError("fetch_failed", `Fetching the map data again failed: ${err.message}`);
    }
    if (!result || result.isError) {
      throw new ViewError("fetch_failed", `Fetching the map data again failed: ${resultText(result).slice(0, 300) || "no message"}`);
    }
    const env = await fromResult(result);
    return { env, refetched: result._meta?.[REFETCHED] === true };
  }

  return { KEY, OMITTED, ViewError, appMeta, decode, fromResult, refetch, resultText };
})();

export default envelope;
