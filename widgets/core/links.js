/**
 * Links out of the view, opened by the host through `app.openLink` (never
 * `window.open`): a place in TomTom's web planner, and directions to it.
 * Only http(s) URLs built here are ever passed on.
 */

const PLANNER = "https://plan.tomtom.com/";

const coord = (v) => (Math.round(v * 1e5) / 1e5).toString();

function valid([lon, lat] = []) {
  return Number.isFinite(lon) && Number.isFinite(lat) && Math.abs(lon) <= 180 && Math.abs(lat) <= 90;
}

/** The place at `[lon, lat]` in TomTom's planner, at `zoom`. */
export function placeLink(position, lang = "en", zoom = 16) {
  if (!valid(position)) return null;
  const [lon, lat] = position;
  return `${PLANNER}${encodeURIComponent(lang)}/?p=${coord(lat)},${coord(lon)},${Math.round(zoom)}z`;
}

/** Directions to `[lon, lat]` (from where the planner finds the user). */
export function directionsLink(position, lang = "en") {
  if (!valid(position)) return null;
  const [lon, lat] = position;
  return `${PLANNER}${encodeURIComponent(lang)}/route/plan?destination=${coord(lat)},${coord(lon)}`;
}
