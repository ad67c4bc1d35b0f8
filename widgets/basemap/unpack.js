/**
 * The views' offline basemap, unpacked: the land polygons and border
 * lines that parts.mjs packed at build time (zigzag varints in base64, on the
 * topology's integer grid), as GeoJSON for MapLibre. A ring or line that crosses
 * the antimeridian steps from 180 to -180 degrees on the grid; it is unwrapped
 * to go on past 180, which MapLibre draws on the next world copy, so that no
 * edge spans the world.
 */

/** The zigzag varints of base64 `text`, as numbers. */
export function readVarints(text) {
  const bin = atob(text);
  const out = [];
  let value = 0;
  let shift = 0;
  for (let i = 0; i < bin.length; i++) {
    const b = bin.charCodeAt(i);
    value += (b & 127) * 2 ** shift;
    if (b < 128) {
      out.push(value % 2 ? -(value + 1) / 2 : value / 2);
      value = 0;
      shift = 0;
    } else {
      shift += 7;
    }
  }
  if (shift) throw new TypeError("the basemap's varints end inside a value");
  return out;
}

/** {land: MultiPolygon, borders: MultiLineString} of `packed` ({scale, translate, parts}). */
export function unpackBasemap({ scale, translate, parts }) {
  const values = readVarints(parts);
  const [sx, sy] = scale;
  const [tx, ty] = translate;
  const world = Math.round(360 / sx);
  let at = 0;
  // A part starts from where the previous one ended (parts.mjs), on the grid: wrapping is per part.
  const pen = { x: 0, y: 0 };
  const next = () => {
    if (at >= values.length) throw new TypeError("the basemap's parts end early");
    return values[at++];
  };
  const line = () => {
    const n = next();
    const out = new Array(n);
    let wrap = 0;
    for (let k = 0; k < n; k++) {
      const dx = next();
      if (k > 0 && Math.abs(dx) > world / 2) wrap -= Math.sign(dx) * world;
      pen.x += dx;
      pen.y += next();
      out[k] = [(pen.x + wrap) * sx + tx, pen.y * sy + ty];
    }
    return out;
  };
  const repeat = (read) => Array.from({ length: next() }, read);
  const land = repeat(() => repeat(line));
  const borders = repeat(line);
  if (at !== values.length) throw new TypeError(`the basemap has ${values.length - at} values past its parts`);
  return { land: { type: "MultiPolygon", coordinates: land }, borders: { type: "MultiLineString", coordinates: borders } };
}
