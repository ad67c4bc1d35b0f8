"use strict";
/**
 * e5 deltas back to GeoJSON (docs/result.md, Versions).
 *
 * Lines and rings travel in units of 1e-5 degrees (times the geometry's
 * `q`, default 1), the first pair absolute, the rest differences: in
 * envelope v1 as flat integer arrays, in v2 as zigzag varint bytes
 * (a Uint8Array view). Sums stay integers, so decoding is
 * exact; only the final division makes floats.
 */
const e5 = (() => {
  // Zigzag values stay below 2**28: at most 4 varint bytes, so 32-bit integer arithmetic holds.
  const MAX_SHIFT = 21;

  /** Varint bytes to positions; refuses a cut-off or over-long varint or an odd count. */
  function decodeVarints(bytes, q) {
    const n = bytes.length;
    let count = 0;
    for (let i = 0; i < n; i++) if (bytes[i] < 128) count++;
    if (count % 2 !== 0 || (n > 0 && bytes[n - 1] >= 128)) {
      throw new TypeError(`e5 varint line of ${n} bytes does not end on a whole [lon, lat] pair`);
    }
    const out = new Array(count / 2);
    let lon = 0;
    let lat = 0;
    let i = 0;
    for (let k = 0; k < out.length; k++) {
      let b = bytes[i++];
      let u = b & 127;
      for (let shift = 7; b >= 128; shift += 7) {
        if (shift > MAX_SHIFT) throw new TypeError(`e5 varint longer than 4 bytes at byte ${i}`);
        b = bytes[i++];
        u |= (b & 127) << shift;
      }
      lon += (u >>> 1) ^ -(u & 1);
      b = bytes[i++];
      u = b & 127;
      for (let shift = 7; b >= 128; shift += 7) {
        if (shift > MAX_SHIFT) throw new TypeError(`e5 varint longer than 4 bytes at byte ${i}`);
        b = bytes[i++];
        u |= (b & 127) << shift;
      }
      lat += (u >>> 1) ^ -(u & 1);
      out[k] = [(lon * q) / 1e5, (lat * q) / 1e5];
    }
    return out;
  }

  function decodeLine(flat, q = 1) {
    if (flat instanceof Uint8Array) return decodeVarints(flat, q);
    if (!Array.isArray(flat) || flat.length % 2 !== 0) {
      throw new TypeError(`e5 line must be a flat array of an even length, got ${describe(flat)}`);
    }
    const out = new Array(flat.length / 2);
    let lon = 0;
    let lat = 0;
    for (let i = 0; i < flat.length; i += 2) {
      const dlon = flat[i];
      const dlat = flat[i + 1];
      if (!Number.isInteger(dlon) || !Number.isInteger(dlat)) {
        throw new TypeError(`e5 values must be integers, got ${dlon}, ${dlat} at position ${i}`);
      }
      lon += dlon;
      lat += dlat;
      out[i / 2] = [(lon * q) / 1e5, (lat * q) / 1e5];
    }
    return out;
  }

  /** Nested lists of flat arrays (rings, parts, polygons) keep their nesting. */
  function decodeNested(value, q) {
    if (value instanceof Uint8Array) return decodeVarints(value, q);
    if (Array.isArray(value) && (value.length === 0 || typeof value[0] === "number")) {
      return decodeLine(value, q);
    }
    if (!Array.isArray(value)) throw new TypeError(`e5 must be an array, got ${describe(value)}`);
    return value.map((part) => decodeNested(part, q));
  }

  function decodeGeometry(geometry) {
    if (geometry === null || typeof geometry !== "object") return geometry;
    if (geometry.type === "GeometryCollection") {
      return { ...geometry, geometries: (geometry.geometries || []).map(decodeGeometry) };
    }
    if (!("e5" in geometry)) return geometry;
    const { e5: packed, q = 1, ...rest } = geometry;
    if (!Number.isInteger(q) || q < 1) throw new TypeError(`e5 step q must be a positive integer, got ${q}`);
    return { ...rest, coordinates: decodeNested(packed, q) };
  }

  /** A FeatureCollection (or a lone Feature or geometry) with every e5 geometry decoded. */
  function decodeGeoJSON(doc) {
    if (doc === null || typeof doc !== "object") {
      throw new TypeError(`expected GeoJSON, got ${describe(doc)}`);
    }
    if (doc.type === "FeatureCollection") {
      if (!Array.isArray(doc.features)) throw new TypeError("FeatureCollection without features");
      return { ...doc, features: doc.features.map(decodeGeoJSON) };
    }
    if (doc.type === "Feature") return { ...doc, geometry: decodeGeometry(doc.geometry) };
    return decodeGeometry(doc);
  }

  function describe(value) {
    if (Array.isArray(value)) return `an array of ${value.length}`;
    return value === null ? "null" : typeof value;
  }

  return { decodeLine, decodeGeometry, decodeGeoJSON };
})();

export default e5;
