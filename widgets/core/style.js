/**
 * Colours, dash patterns and labels by feature kind, route section and delay,
 * and the split of a route into section segments at the vertices the sections
 * name. Colour never carries meaning alone: every section and delay has its own
 * dash pattern or width too (`dash` is one of DASHES), and a label.
 * Colours come as [light, dark] pairs; each meets WCAG non-text contrast
 * (3:1) against the land of its basemap theme (style.test.js).
 */
import { createLocale } from "./i18n.js";

const ENGLISH = createLocale("en-US").t;

/** MapLibre `line-dasharray` per pattern name (one line layer per pattern). */
export const DASHES = { solid: null, dash: [2, 1.2], dot: [0.6, 0.9], long: [4, 1.5] };

export const KIND = {
  result: { colors: ["#d1242f", "#ff7b72"], key: "result" },
  waypoint: { colors: ["#0b57d0", "#58a6ff"], key: "waypoint" },
  origin: { colors: ["#0b57d0", "#58a6ff"], key: "waypoint" },
  marker: { colors: ["#bf1f6a", "#f778ba"], key: "marker" },
  route: { colors: ["#0b57d0", "#58a6ff"], key: "route" },
  range: { colors: ["#0b57d0", "#58a6ff"], key: "range" },
  area: { colors: ["#1a7f37", "#56d364"], key: "area" },
  incident: { colors: ["#c21b1b", "#ff7b72"], key: "incidents" },
  station: { colors: ["#1a7f37", "#56d364"], key: "station" },
  charging_stop: { colors: ["#0a7d6e", "#39c5bb"], key: "chargingStop" },
};

/** A charging station's state (server: free, busy, out of service, unknown) as an i18n key. */
export const STATION_STATE = { free: "free", busy: "busy", "out of service": "outOfService", unknown: "unknown" };
const OTHER = ["#57606a", "#9198a1"];

/** Distinct colours for several routes or areas on one map, in order, per theme. */
export const PALETTE = {
  light: ["#0b57d0", "#8250df", "#0a7d6e", "#c4520a", "#bf1f6a", "#4c5fd5", "#1a7f37"],
  dark: ["#58a6ff", "#bc8cff", "#39c5bb", "#f0883e", "#f778ba", "#8fa3ff", "#56d364"],
};

/** TomTom `magnitudeOfDelay`: 0 unknown, 1 minor, 2 moderate, 3 major, 4 undefined (closures). */
export const DELAY = [
  { colors: ["#6e7781", "#9198a1"], dash: "dot", width: 4 },
  { colors: ["#9a6700", "#e3b341"], dash: "dash", width: 4 },
  { colors: ["#c4520a", "#f0883e"], dash: "long", width: 5 },
  { colors: ["#c21b1b", "#ff7b72"], dash: "solid", width: 6 },
  { colors: ["#7d2a96", "#d2a8ff"], dash: "dot", width: 6 },
];

/** Overlay styles per TomTom sectionType; types absent here are not drawn. */
const SECTION = {
  TOLL_ROAD: { colors: ["#9a2fb5", "#d2a8ff"], width: 3, dash: "dash" },
  TOLL_VIGNETTE: { colors: ["#9a2fb5", "#d2a8ff"], width: 3, dash: "dash" },
  TOLL: { colors: ["#9a2fb5", "#d2a8ff"], width: 3, dash: "dash" },
  MOTORWAY: { colors: ["#ffffff", "#0d1117"], width: 1.5, dash: "solid" },
  TUNNEL: { colors: ["#24292f", "#c9d1d9"], width: 4, dash: "dot" },
  FERRY: { colors: ["#0a6c7d", "#39c5cf"], width: 4, dash: "long" },
  CARTRAIN: { colors: ["#0a6c7d", "#39c5cf"], width: 4, dash: "long" },
  PEDESTRIAN: { colors: ["#3d6b0a", "#7ee787"], width: 3, dash: "dot" },
};

const pick = (colors, theme) => colors[theme === "dark" ? 1 : 0];

export function kindStyle(kind, t = ENGLISH, theme = "light") {
  const s = KIND[kind];
  return s ? { color: pick(s.colors, theme), label: t(s.key) } : { color: pick(OTHER, theme), label: kind || "Feature" };
}

/** The colour of delay magnitude `m` (0-4) in `theme`. */
export function delayColor(m, theme = "light") {
  return pick((DELAY[m] || DELAY[0]).colors, theme);
}

/** The label of a delay magnitude, e.g. "Major delay". */
export function delayLabel(magnitude, t = ENGLISH) {
  const m = Number.isInteger(magnitude) && magnitude >= 0 && magnitude <= 4 ? magnitude : 0;
  return t(`magnitude.${m}`);
}

/** Style of one section, or null when its type is not drawn as a line. */
export function sectionStyle(section, t = ENGLISH, theme = "light") {
  if (section.sectionType === "TRAFFIC") {
    const m = Number.isInteger(section.magnitudeOfDelay) && DELAY[section.magnitudeOfDelay] ? section.magnitudeOfDelay : 0;
    const d = DELAY[m];
    return { color: pick(d.colors, theme), dash: d.dash, width: d.width, label: `${t("traffic")}: ${delayLabel(m, t)}`, order: 3, rank: m };
  }
  const s = SECTION[section.sectionType];
  if (!s) return null;
  const label = t(`section.${section.sectionType}`);
  return { color: pick(s.colors, theme), dash: s.dash, width: s.width, label, order: s.dash === "solid" ? 2 : 1, rank: 0 };
}

/**
 * GeoJSON line features for every drawable section of a route, cut at the
 * section's start and end vertices (inclusive). Sections whose indices fall
 * outside the route are returned in `skipped` with the reason, not drawn.
 */
export function sectionSegments(coords, sections, extra = {}, t = ENGLISH, theme = "light") {
  const features = [];
  const skipped = [];
  (sections || []).forEach((section, i) => {
    const s = sectionStyle(section, t, theme);
    if (!s) return;
    const { startPointIndex: a, endPointIndex: b } = section;
    if (!Number.isInteger(a) || !Number.isInteger(b) || a < 0 || b >= coords.length || a >= b) {
      skipped.push(`section ${i} (${section.sectionType}) spans vertices ${a}..${b} of a ${coords.length}-vertex route`);
      return;
    }
    features.push({
      type: "Feature",
      properties: {
        ...extra,
        sectionType: section.sectionType,
        color: s.color,
        label: s.label,
        width: s.width,
        dash: s.dash,
        order: s.order,
        rank: s.rank,
      },
      geometry: { type: "LineString", coordinates: coords.slice(a, b + 1) },
    });
  });
  features.sort((x, y) => x.properties.order - y.properties.order);
  return { features, skipped };
}

/** Border crossings: the first vertex of each COUNTRY section after the first one. */
export function countryCrossings(coords, sections) {
  const countries = (sections || [])
    .filter((s) => s.sectionType === "COUNTRY" && Number.isInteger(s.startPointIndex))
    .sort((a, b) => a.startPointIndex - b.startPointIndex);
  const out = [];
  for (let i = 1; i < countries.length; i++) {
    const at = countries[i].startPointIndex;
    if (at < 0 || at >= coords.length) continue;
    const from = countries[i - 1].countryCode || "?";
    const to = countries[i].countryCode || "?";
    out.push({ coordinates: coords[at], label: `${from} → ${to}` });
  }
  return out;
}

/** Legend rows for the section styles present, each label once, traffic by severity. */
export function sectionLegend(segments) {
  const seen = new Map();
  const sorted = [...segments].sort(
    (a, b) => a.properties.order - b.properties.order || a.properties.rank - b.properties.rank,
  );
  for (const f of sorted) {
    const p = f.properties;
    if (!seen.has(p.label)) seen.set(p.label, { label: p.label, color: p.color, dash: p.dash });
  }
  return [...seen.values()];
}

/** The "simplified to N points, within X" note for a fitted envelope. */
export function fittedNote(fitted, l10n = createLocale("en-US")) {
  if (!fitted) return null;
  return l10n.t("simplified", {
    n: l10n.number(Number(fitted.points)),
    of: l10n.number(Number(fitted.original_points)),
    err: l10n.distance(fitted.max_error_m < 10 ? Math.round(fitted.max_error_m * 10) / 10 : fitted.max_error_m),
  });
}
