"use strict";
/**
 * The caller's coordinates in a data-viz page (envelope v3, docs/result.md).
 *
 * A geometry that names `"dv": [d, dims]` instead of `"coordinates"` reads
 * them from the page's section, geometry after geometry: first the counts
 * of its nesting (unsigned varints: a MultiPolygon's polygons, then the first
 * polygon's rings, its first ring's positions...), then each position's
 * `dims` numbers as zigzag varints of the difference to the previous
 * position's number on the same axis, in units of 10^-d. The sums stay
 * integers below 2^53, exact in doubles, and one division by 10^d (an exact
 * double) gives the very double that parsing the caller's JSON gives.
 */
const decimals = (() => {
  const POW10 = [1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22];
  const DEPTH = { Point: 0, MultiPoint: 1, LineString: 1, MultiLineString: 2, Polygon: 2, MultiPolygon: 3 };
  const MAX_BYTES = 8;

  /** Reads geometries from `bytes` (a Uint8Array), one after the other. */
  function reader(bytes) {
    const n = bytes.length;
    let i = 0;

    function varint() {
      if (i >= n) throw new TypeError("the section ends inside a geometry");
      let b = bytes[i++];
      if (b < 128) return b;
      let u = b & 127;
      let scale = 128;
      for (let k = 1; ; k++) {
        if (i >= n || k >= MAX_BYTES) throw new TypeError(`a varint at byte ${i} is cut off or longer than ${MAX_BYTES} bytes`);
        b = bytes[i++];
        u += (b & 127) * scale;
        if (b < 128) return u;
        scale *= 128;
      }
    }

    function positions(count, dims, prev, divisor) {
      const out = new Array(count);
      for (let p = 0; p < count; p++) {
        const position = new Array(dims);
        for (let axis = 0; axis < dims; axis++) {
          const u = varint();
          prev[axis] += u % 2 === 1 ? -(u + 1) / 2 : u / 2;
          position[axis] = prev[axis] / divisor;
        }
        out[p] = position;
      }
      return out;
    }

    function nested(depth, dims, prev, divisor) {
      if (depth === 0) return positions(1, dims, prev, divisor)[0];
      const count = varint();
      if (depth === 1) return positions(count, dims, prev, divisor);
      const out = new Array(count);
      for (let k = 0; k < count; k++) out[k] = nested(depth - 1, dims, prev, divisor);
      return out;
    }

    return {
      /** The coordinates of the next geometry, of GeoJSON `type`, sent with `[d, dims]`. */
      geometry(type, [d, dims]) {
        if (!(type in DEPTH)) throw new TypeError(`dv on a ${type} geometry`);
        if (!Number.isInteger(d) || d < 0 || d >= POW10.length || (dims !== 2 && dims !== 3)) {
          throw new TypeError(`dv ${JSON.stringify([d, dims])} is not [0-22 decimals, 2 or 3 numbers]`);
        }
        return nested(DEPTH[type], dims, [0, 0, 0], POW10[d]);
      },
      get done() {
        return i === n;
      },
    };
  }

  /** Every `"dv"` geometry of `features` given its `"coordinates"` from `section`, in order. */
  function attach(features, section) {
    const read = reader(section);
    for (const feature of features) {
      const geometry = feature && feature.geometry;
      if (!geometry || typeof geometry !== "object" || !("dv" in geometry)) continue;
      geometry.coordinates = read.geometry(geometry.type, geometry.dv);
      delete geometry.dv;
    }
    if (!read.done) throw new TypeError("the section holds more than its geometries");
  }

  return { reader, attach };
})();

export default decimals;
