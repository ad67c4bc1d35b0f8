/**
 * The size budget of a view document (docs/views.md): what a host downloads before
 * the view shows anything, as sent and as gzip sends it. TomTom's own views are
 * 1.56 to 1.71 MB (420 KB gzipped); ours stay within the smaller of each.
 */
import { gzipSync } from "node:zlib";

/** Bytes of a view document, and of it gzipped (zlib's default level, as `gzip` and most servers use). */
export const BUDGET = { bytes: 1_600_000, gzipped: 420_000 };

/** {bytes, gzipped} of `html`. */
export function sizeOf(html) {
  const bytes = Buffer.from(html, "utf8");
  return { bytes: bytes.length, gzipped: gzipSync(bytes).length };
}

/** What is over `budget` in `size`, in words (empty when it fits). */
export function overBudget(size, budget = BUDGET) {
  return Object.keys(budget)
    .filter((key) => size[key] > budget[key])
    .map((key) => `${key === "gzipped" ? "gzipped " : ""}${n(size[key])} bytes > ${n(budget[key])}`);
}

const n = (value) => value.toLocaleString("en-US");

/** One line of the build's report: the document's size beside its budget (none: no budget). */
export function sizeLine(file, size, budget, basemap = 0) {
  const of = (key) => (budget ? ` of ${n(budget[key])}` : "");
  const base = basemap ? `; the offline basemap ${n(basemap)}` : "";
  return `${file}: ${n(size.bytes)} bytes${of("bytes")}, gzipped ${n(size.gzipped)}${of("gzipped")}${base}`;
}
