"use strict";
/**
 * App data from a tool result: base64 -> gunzip -> JSON envelope, and the
 * reason, in words a person can act on, whenever there is none to draw.
 */
const envelope = (() => {
  const KEY = "com.tomtom/app-data";
  const OMITTED = "com.tomtom/app-data-omitted";

  /** Why a view has nothing to draw; `reason` is what the status report carries. */
  class ViewError extends Error {
    constructor(reason, message) {
      super(message);
      this.name = "ViewError";
      this.reason = reason;
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
    let text;
    try {
      const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
      text = await new Response(stream).text();
    } catch (err) {
      throw new ViewError("decode_failed", `The map data could not be unzipped (${err.message}).`);
    }
    let env;
    try {
      env = JSON.parse(text);
    } catch (err) {
      throw new ViewError("decode_failed", `The map data is not valid JSON (${err.message}).`);
    }
    if (env === null || typeof env !== "object" || env.v !== 1 || typeof env.tool !== "string") {
      throw new ViewError(
        "decode_failed",
        `The map data has an unknown format (expected envelope v1, got v=${env && env.v}).`,
      );
    }
    if (env.data === null || typeof env.data !== "object") {
      throw new ViewError("decode_failed", `The map data from ${env.tool} has no data object.`);
    }
    return env;
  }

  function resultText(result) {
    const block = (result && result.content || []).find((c) => c && c.type === "text");
    return block ? block.text : "";
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
    const meta = (result && result._meta) || fallbackMeta || null;
    const ours = meta && [KEY, OMITTED, "tool", "show_ui"].some((k) => k in meta);
    if (!ours) {
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
      // ADR 0003: "<reason>: <detail>", reason too_large or invalid.
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
   * Page through `tomtom-get-app-data` (data-viz only): `callTool(name, args)`
   * returns a CallToolResult; chunks of the base64 string are joined, then decoded.
   */
  async function fetchPaged(callTool, toolArguments, onProgress = () => {}) {
    const parts = [];
    let offset = 0;
    let total = null;
    for (let page = 0; ; page++) {
      const args = { tool: "tomtom-data-viz", arguments: toolArguments };
      if (offset > 0) args.offset = offset;
      let result;
      try {
        result = await callTool("tomtom-get-app-data", args);
      } catch (err) {
        throw new ViewError("fetch_failed", `Fetching the data failed: ${err.message}`);
      }
      if (result.isError) {
        throw new ViewError("fetch_failed", `Fetching the data failed: ${resultText(result).slice(0, 300)}`);
      }
      const meta = result._meta || {};
      const chunk = meta[KEY];
      if (typeof chunk !== "string") {
        throw new ViewError("fetch_failed", "The data answer carried no app data.");
      }
      if (meta.has_more === undefined && page === 0) return decode(chunk);
      if (meta.offset !== offset || !Number.isInteger(meta.total) || (total !== null && meta.total !== total)) {
        throw new ViewError(
          "fetch_failed",
          `The data pages do not line up (expected offset ${offset} of ${total ?? "?"}, ` +
            `got ${meta.offset} of ${meta.total}).`,
        );
      }
      total = meta.total;
      parts.push(chunk);
      offset += chunk.length;
      onProgress(offset, total);
      if (!meta.has_more) break;
      if (chunk.length === 0) throw new ViewError("fetch_failed", "The data pages stopped advancing.");
    }
    if (offset !== total) {
      throw new ViewError("fetch_failed", `The data ended at ${offset} of ${total} characters.`);
    }
    return decode(parts.join(""));
  }

  return { KEY, OMITTED, ViewError, decode, fromResult, fetchPaged, resultText };
})();

export default envelope;
