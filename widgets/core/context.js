/**
 * What the view tells the model through `updateModelContext`: a
 * short text with a YAML front matter, so the model's next turn knows what the
 * user picked on the map, or that the view is degraded and why. Values are
 * JSON-quoted, which YAML reads as double-quoted scalars, so a place name can
 * never break the front matter.
 */

const yaml = (value) => (typeof value === "number" || typeof value === "boolean" ? String(value) : JSON.stringify(String(value)));

function front(fields) {
  const lines = Object.entries(fields)
    .filter(([, v]) => v !== undefined && v !== null && v !== "")
    .map(([k, v]) => (Array.isArray(v) ? `${k}: [${v.map(yaml).join(", ")}]` : `${k}: ${yaml(v)}`));
  return `---\n${lines.join("\n")}\n---\n`;
}

/**
 * The complete current selection. `item`: {kind, name, address, position
 * [lon, lat], index, of, details {key: value}}; `source`: {view, tool}.
 */
export function selectionText(source, item) {
  const position = Array.isArray(item.position) ? item.position.map((v) => Math.round(v * 1e5) / 1e5) : undefined;
  const details = Object.fromEntries(
    Object.entries(item.details || {}).filter(([k]) => /^[a-z][a-z0-9_]*$/.test(k)),
  );
  const head = front({
    view: source.view,
    tool: source.tool,
    selected: item.kind,
    name: item.name,
    address: item.address,
    position,
    ...(Number.isInteger(item.index) && Number.isInteger(item.of) ? { rank: `${item.index + 1} of ${item.of}` } : {}),
    ...details,
  });
  const oneLine = (v) => String(v).replace(/\s+/g, " ");
  const where = item.address ? ` at ${oneLine(item.address)}` : position ? ` at ${position[1]}, ${position[0]} (lat, lon)` : "";
  return `${head}The user selected the ${oneLine(item.kind)} ${JSON.stringify(oneLine(item.name))}${where} on the ${source.view} map.`;
}

/** The view could not show the result: say so, so the model does not assume the user saw a map. */
export function degradedText(source, reason, message) {
  return (
    front({ view: source.view, tool: source.tool, status: "degraded", reason }) +
    `The ${source.view} view could not show this result: ${message} ` +
    "The user sees this message instead of the map; rely on the text result."
  );
}
