"use strict";
/**
 * e5 deltas back to GeoJSON (DESIGN.md, "Tool result contract").
 *
 * Lines and rings travel as flat integer arrays in units of 1e-5 degrees:
 * the first pair absolute, the rest differences. Sums stay integers, so
 * decoding is exact; only the final division makes floats.
 */
const e5 = (() => {
  function decodeLine(flat) {
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
      out[i / 2] = [lon / 1e5, lat / 1e5];
    }
    return out;
  }

  /** Nested lists of flat arrays (rings, parts, polygons) keep their nesting. */
  function decodeNested(value) {
    if (Array.isArray(value) && (value.length === 0 || typeof value[0] === "number")) {
      return decodeLine(value);
    }
    if (!Array.isArray(value)) throw new TypeError(`e5 must be an array, got ${describe(value)}`);
    return value.map(decodeNested);
  }

  function decodeGeometry(geometry) {
    if (geometry === null || typeof geometry !== "object") return geometry;
    if (geometry.type === "GeometryCollection") {
      return { ...geometry, geometries: (geometry.geometries || []).map(decodeGeometry) };
    }
    if (!("e5" in geometry)) return geometry;
    const { e5: packed, ...rest } = geometry;
    return { ...rest, coordinates: decodeNested(packed) };
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
