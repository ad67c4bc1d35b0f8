/**
 * A batch's geocoded rows as the view holds them: read from the result's app
 * data or a page of rows (docs/result.md, Batch rows and long jobs), merged as pages
 * arrive, the rows that need a person picked out, and written as CSV.
 *
 * The data is columnar: `batch.q` has a quality letter per row (M matched,
 * L low confidence, A ambiguous, U unmatched, E empty), `batch.conf` each
 * row's confidence in percent (-1: none), and one `batch_points` feature
 * holds the positions of the located rows (M, L, A) in row order.
 */

export const QUALITIES = { M: "matched", L: "low", A: "ambiguous", U: "unmatched", E: "empty" };
const LOCATED = new Set(["M", "L", "A"]);

/** The rows `from + 1` to `to` of decoded app data `data`: [{row, q, confidence?, position?, details?}]. */
export function rowsOf(data) {
  const batch = data && data.batch;
  if (!batch || typeof batch.q !== "string" || !Array.isArray(batch.conf)) {
    throw new TypeError("the batch data has no rows (q and conf)");
  }
  const { from, to, q, conf } = batch;
  if (!Number.isInteger(from) || !Number.isInteger(to) || q.length !== to - from || conf.length !== q.length) {
    throw new TypeError(`the batch rows do not line up (rows ${from}-${to}, ${q.length} qualities, ${conf.length} confidences)`);
  }
  const points = positions(data.features || []);
  const details = Array.isArray(batch.details) && batch.details.length === q.length ? batch.details : null;
  const rows = new Array(q.length);
  let k = 0;
  for (let i = 0; i < q.length; i++) {
    const code = q[i];
    if (!(code in QUALITIES)) throw new TypeError(`row ${from + i + 1} has an unknown quality ${JSON.stringify(code)}`);
    const row = { row: from + i + 1, q: code };
    if (conf[i] >= 0) row.confidence = conf[i] / 100;
    if (LOCATED.has(code)) {
      if (k >= points.length) throw new TypeError(`row ${row.row} is located but the data has only ${points.length} positions`);
      row.position = points[k++];
    }
    if (details) row.details = details[i];
    rows[i] = row;
  }
  if (k !== points.length) throw new TypeError(`the data has ${points.length} positions for ${k} located rows`);
  return rows;
}

function positions(features) {
  const feature = features.find((f) => f && f.properties && f.properties.kind === "batch_points");
  if (!feature) return [];
  const g = feature.geometry;
  return g.type === "Point" ? [g.coordinates] : g.coordinates;
}

/** Every row of a batch of `total` rows, filled in as rows (inline, then pages) arrive. */
export function createRows(total) {
  const rows = new Array(total);
  let filled = 0;
  return {
    total,
    /** Put `more` in place; a row already there keeps what it had and takes the details it lacked. */
    add(more) {
      for (const r of more) {
        const i = r.row - 1;
        if (i < 0 || i >= total) continue;
        if (!rows[i]) filled++;
        rows[i] = { ...(rows[i] || {}), ...r, details: r.details || rows[i]?.details };
      }
    },
    get filled() {
      return filled;
    },
    /** Rows held so far, in order. */
    list() {
      return rows.filter(Boolean);
    },
    /** Every row has its details (the CSV can be written). */
    complete() {
      return filled === total && rows.every((r) => r && r.details);
    },
    counts() {
      const counts = { matched: 0, low: 0, ambiguous: 0, unmatched: 0, empty: 0 };
      for (const r of rows) if (r) counts[QUALITIES[r.q]]++;
      return counts;
    },
  };
}

/** The rows a person should look at (all but matched), in row order. */
export function attention(rows) {
  return rows.filter((r) => r.q !== "M");
}

const COLUMNS = ["row", "input", "status", "confidence", "address", "match", "longitude", "latitude", "why"];

/** `rows` as RFC 4180 CSV (CRLF), one line per row; a text cell a spreadsheet would run as a formula is quoted with a leading apostrophe. */
export function csvOf(rows) {
  const lines = [COLUMNS.join(",")];
  for (const r of rows) {
    const d = r.details || {};
    const cells = [
      r.row,
      d.input ?? "",
      QUALITIES[r.q],
      Number.isFinite(r.confidence) ? r.confidence.toFixed(2) : "",
      d.address ?? "",
      d.match ?? "",
      r.position ? r.position[0] : "",
      r.position ? r.position[1] : "",
      d.why ?? (r.q === "A" ? `ambiguous: ${(d.candidates || []).map((c) => c.address).join(" | ")}` : ""),
    ];
    lines.push(cells.map(cell).join(","));
  }
  return lines.join("\r\n") + "\r\n";
}

function cell(value) {
  let text = String(value);
  if (typeof value === "string" && /^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}
