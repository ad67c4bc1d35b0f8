"use strict";
/**
 * Colours and labels by feature kind and route section, and the split of a
 * route into coloured section segments at the vertices the sections name.
 */
const style = (() => {
  const KIND = {
    result: { color: "#e5484d", label: "Result" },
    waypoint: { color: "#1f6feb", label: "Waypoint" },
    origin: { color: "#1f6feb", label: "Origin" },
    marker: { color: "#d6336c", label: "Marker" },
    route: { color: "#1f6feb", label: "Route" },
    range: { color: "#1f6feb", label: "Reachable range" },
    area: { color: "#2f9e44", label: "Area" },
    station: { color: "#2f9e44", label: "Charging station" },
    charging_stop: { color: "#0f9d8a", label: "Charging stop" },
  };

  /** Distinct colours for several routes or areas on one map, in order. */
  const PALETTE = ["#1f6feb", "#8250df", "#0f9d8a", "#e8590c", "#c2255c", "#5c7cfa", "#2b8a3e"];

  /** TomTom `magnitudeOfDelay`: 0 unknown, 1 minor, 2 moderate, 3 major, 4 undefined (closures). */
  const DELAY = [
    { color: "#868e96", label: "Traffic: unknown delay" },
    { color: "#f5b301", label: "Traffic: minor delay" },
    { color: "#f76707", label: "Traffic: moderate delay" },
    { color: "#e03131", label: "Traffic: major delay" },
    { color: "#862e9c", label: "Traffic: closed or stopped" },
  ];

  /** Overlay styles per TomTom sectionType; types absent here are not drawn. */
  const SECTION = {
    TOLL_ROAD: { color: "#ae3ec9", label: "Toll road", width: 3, dash: [1.5, 1] },
    TOLL_VIGNETTE: { color: "#ae3ec9", label: "Toll (vignette)", width: 3, dash: [1.5, 1] },
    TOLL: { color: "#ae3ec9", label: "Toll road", width: 3, dash: [1.5, 1] },
    MOTORWAY: { color: "#e7f0ff", label: "Motorway", width: 1.5 },
    TUNNEL: { color: "#343a40", label: "Tunnel", width: 4, dash: [0.6, 0.6] },
    FERRY: { color: "#1098ad", label: "Ferry", width: 4, dash: [1, 1] },
    CARTRAIN: { color: "#1098ad", label: "Car train", width: 4, dash: [1, 1] },
    PEDESTRIAN: { color: "#5c940d", label: "Pedestrian", width: 3 },
  };

  function kindStyle(kind) {
    return KIND[kind] || { color: "#495057", label: kind || "Feature" };
  }

  /** Style of one section, or null when its type is not drawn as a line. */
  function sectionStyle(section) {
    if (section.sectionType === "TRAFFIC") {
      const m = Number.isInteger(section.magnitudeOfDelay) ? section.magnitudeOfDelay : 0;
      const d = DELAY[m] || DELAY[0];
      return { color: d.color, label: d.label, width: 5, dash: null, order: 3, rank: m };
    }
    const s = SECTION[section.sectionType];
    return s ? { dash: null, order: s.dash ? 1 : 2, ...s } : null;
  }

  /**
   * GeoJSON line features for every drawable section of a route, cut at the
   * section's start and end vertices (inclusive). Sections whose indices fall
   * outside the route are returned in `skipped` with the reason, not drawn.
   */
  function sectionSegments(coords, sections, extra = {}) {
    const features = [];
    const skipped = [];
    (sections || []).forEach((section, i) => {
      const s = sectionStyle(section);
      if (!s) return;
      const { startPointIndex: a, endPointIndex: b } = section;
      if (!Number.isInteger(a) || !Number.isInteger(b) || a < 0 || b >= coords.length || a >= b) {
        skipped.push(
          `section ${i} (${section.sectionType}) spans vertices ${a}..${b} ` +
            `of a ${coords.length}-vertex route`,
        );
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
          dashed: Boolean(s.dash),
          order: s.order,
          rank: s.rank ?? 0,
        },
        geometry: { type: "LineString", coordinates: coords.slice(a, b + 1) },
      });
    });
    features.sort((x, y) => x.properties.order - y.properties.order);
    return { features, skipped };
  }

  /** Border crossings: the first vertex of each COUNTRY section after the first one. */
  function countryCrossings(coords, sections) {
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
  function sectionLegend(segments) {
    const seen = new Map();
    const sorted = [...segments].sort(
      (a, b) => a.properties.order - b.properties.order || a.properties.rank - b.properties.rank,
    );
    for (const f of sorted) {
      const p = f.properties;
      if (!seen.has(p.label)) seen.set(p.label, { label: p.label, color: p.color, dashed: p.dashed });
    }
    return [...seen.values()];
  }

  function formatDistance(meters) {
    if (!Number.isFinite(meters)) return "";
    if (meters < 1000) return `${Math.round(meters)} m`;
    const km = meters / 1000;
    return `${km < 10 ? km.toFixed(1) : Math.round(km).toLocaleString("en-US")} km`;
  }

  function formatDuration(seconds) {
    if (!Number.isFinite(seconds)) return "";
    const minutes = Math.round(seconds / 60);
    if (minutes < 60) return `${minutes} min`;
    const h = Math.floor(minutes / 60);
    const m = minutes % 60;
    return m ? `${h} h ${m} min` : `${h} h`;
  }

  /** The "simplified to N points, within X m" note for a fitted envelope. */
  function fittedNote(fitted) {
    if (!fitted) return null;
    const n = Number(fitted.points).toLocaleString("en-US");
    const of = Number(fitted.original_points).toLocaleString("en-US");
    const err = fitted.max_error_m < 10 ? fitted.max_error_m.toFixed(1) : Math.round(fitted.max_error_m);
    return `Simplified to ${n} of ${of} points, within ${err} m`;
  }

  return {
    KIND,
    PALETTE,
    kindStyle,
    sectionStyle,
    sectionSegments,
    countryCrossings,
    sectionLegend,
    formatDistance,
    formatDuration,
    fittedNote,
  };
})();

if (typeof module === "object") module.exports = style;
