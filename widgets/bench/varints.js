/** Zigzag LEB128 varints of a flat integer list, as fitting/_varint.py writes a line:
 * the reference encoder of the views' decode tests and of the decode benchmark. */
export function varints(flat) {
  const out = [];
  for (const v of flat) {
    let u = v >= 0 ? 2 * v : -2 * v - 1;
    while (u >= 128) {
      out.push((u % 128) | 128);
      u = Math.floor(u / 128);
    }
    out.push(u);
  }
  return Uint8Array.from(out);
}
