/**
 * MapLibre style expressions and filters evaluated for one GeoJSON feature:
 * the operators the views' own layers and callers' usual paints use. The
 * worker-free renderer draws with them, and a data-viz list or legend mark
 * takes its colour from a layer's paint through them. An operator outside
 * the subset evaluates to null, so the property's default applies.
 */

const TYPES = { MultiPoint: "Point", MultiLineString: "LineString", MultiPolygon: "Polygon" };
/** The feature's geometry type as MapLibre's `geometry-type` says it (Multi* singular). */
const geometryType = (f) => TYPES[f.geometry?.type] || f.geometry?.type || null;

const num = (v) => (typeof v === "number" ? v : Number(v));
const COMPARE = {
  "==": (a, b) => a === b,
  "!=": (a, b) => a !== b,
  "<": (a, b) => a < b,
  "<=": (a, b) => a <= b,
  ">": (a, b) => a > b,
  ">=": (a, b) => a >= b,
};
const MATH = {
  "+": (a, b) => a + b,
  "-": (a, b) => a - b,
  "*": (a, b) => a * b,
  "/": (a, b) => a / b,
  "%": (a, b) => a % b,
  "^": (a, b) => a ** b,
  min: Math.min,
  max: Math.max,
};
const UNARY = { abs: Math.abs, round: Math.round, floor: Math.floor, ceil: Math.ceil, sqrt: Math.sqrt, "to-number": num };

/** The `[input, output]` stops of an interpolation from its flat `args`. */
function stopsOf(args, ev) {
  const out = [];
  for (let i = 0; i < args.length; i += 2) out.push([args[i], ev(args[i + 1])]);
  return out;
}

/** The value of `expr` for `feature` at `zoom`: a literal as is, an expression evaluated. */
export function evaluate(expr, feature, zoom = 0) {
  if (!Array.isArray(expr)) return expr;
  const [op, ...args] = expr;
  const ev = (e) => evaluate(e, feature, zoom);
  const props = feature.properties || {};
  if (COMPARE[op]) return COMPARE[op](ev(args[0]), ev(args[1]));
  if (MATH[op]) return args.length === 1 && op === "-" ? -ev(args[0]) : args.map(ev).reduce((a, b) => MATH[op](num(a), num(b)));
  if (UNARY[op]) return UNARY[op](num(ev(args[0])));
  switch (op) {
    case "literal":
      return args[0];
    case "get":
      return props[ev(args[0])] ?? null;
    case "has":
      return ev(args[0]) in props;
    case "geometry-type":
      return geometryType(feature);
    case "zoom":
      return zoom;
    case "!":
      return !ev(args[0]);
    case "all":
      return args.every((a) => ev(a));
    case "any":
      return args.some((a) => ev(a));
    case "in": {
      const hay = ev(args[1]);
      return hay != null && hay.includes(ev(args[0]));
    }
    case "case":
      for (let i = 0; i + 1 < args.length; i += 2) if (ev(args[i])) return ev(args[i + 1]);
      return ev(args[args.length - 1]);
    case "match": {
      const input = ev(args[0]);
      for (let i = 1; i + 1 < args.length; i += 2) {
        const labels = Array.isArray(args[i]) ? args[i] : [args[i]];
        if (labels.includes(input)) return ev(args[i + 1]);
      }
      return ev(args[args.length - 1]);
    }
    case "coalesce":
      for (const a of args) {
        const v = ev(a);
        if (v !== null && v !== undefined) return v;
      }
      return null;
    case "step": {
      const x = num(ev(args[0]));
      let out = args[1];
      for (let i = 2; i + 1 < args.length; i += 2) if (x >= args[i]) out = args[i + 1];
      return ev(out);
    }
    case "interpolate":
    case "interpolate-hcl":
    case "interpolate-lab": {
      const x = num(ev(args[1]));
      const stops = stopsOf(args.slice(2), ev);
      const base = args[0][0] === "exponential" ? args[0][1] : 1;
      if (x <= stops[0][0]) return stops[0][1];
      for (let i = 1; i < stops.length; i++) {
        const [x1, y1] = stops[i];
        if (x > x1) continue;
        const [x0, y0] = stops[i - 1];
        if (typeof y0 !== "number") return y1;
        const span = x1 - x0;
        const t = base === 1 ? (x - x0) / span : (base ** (x - x0) - 1) / (base ** span - 1);
        return y0 + (y1 - y0) * t;
      }
      return stops[stops.length - 1][1];
    }
    case "to-string":
    case "string":
    case "to-color":
    case "number":
    case "boolean":
      return ev(args[0]);
    case "concat":
      return args.map(ev).join("");
    case "rgb":
    case "rgba":
      return `rgba(${args.map(ev).join(",")}${args.length === 3 ? ",1" : ""})`;
    default:
      return null;
  }
}

/** Whether `filter` is MapLibre's expression syntax rather than the legacy one (its own test, shortened). */
function isExpression(filter) {
  if (typeof filter === "boolean") return true;
  if (!Array.isArray(filter) || !filter.length) return false;
  const [op, a, b] = filter;
  if (op === "has") return a !== "$id" && a !== "$type";
  if (op === "in") return typeof a !== "string" || Array.isArray(b);
  if (op === "!in" || op === "!has" || op === "none") return false;
  if (COMPARE[op]) return filter.length !== 3 || Array.isArray(a) || Array.isArray(b);
  if (op === "any" || op === "all") return filter.slice(1).every((f) => typeof f === "boolean" || isExpression(f));
  return true;
}

/** A legacy filter's key: a property, `$type` (the geometry type) or `$id`. */
const legacyValue = (key, feature) => (key === "$type" ? geometryType(feature) : key === "$id" ? feature.id : feature.properties?.[key]);

function legacy(filter, feature) {
  const [op, key, ...values] = filter;
  const rest = filter.slice(1);
  switch (op) {
    case "all":
      return rest.every((f) => matches(f, feature));
    case "any":
      return rest.some((f) => matches(f, feature));
    case "none":
      return !rest.some((f) => matches(f, feature));
    case "has":
      return legacyValue(key, feature) !== undefined;
    case "!has":
      return legacyValue(key, feature) === undefined;
    case "in":
      return values.includes(legacyValue(key, feature));
    case "!in":
      return !values.includes(legacyValue(key, feature));
    default:
      return COMPARE[op] ? COMPARE[op](legacyValue(key, feature), values[0]) : true;
  }
}

/** Whether `feature` passes `filter` (expression or legacy syntax; none passes all) at `zoom`. */
export function matches(filter, feature, zoom = 0) {
  if (filter === undefined || filter === null) return true;
  return isExpression(filter) ? Boolean(evaluate(filter, feature, zoom)) : legacy(filter, feature);
}
