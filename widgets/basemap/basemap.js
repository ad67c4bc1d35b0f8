/**
 * The offline basemap every view draws under its data: Natural
 * Earth land, country borders and the names of major cities, in a light and a
 * dark theme. It is the whole map when there is no TomTom key, and stays
 * underneath TomTom's raster tiles so that a tile that fails shows it instead
 * of a hole. Labels use MapLibre's local glyph rendering (no glyph server).
 * The land and borders come packed (`basemap:data`, written by the build from
 * parts.mjs).
 */
import packed from "basemap:data";
import cities from "./cities.json";
import { THEMES } from "./themes.js";
import { unpackBasemap } from "./unpack.js";

let geometry = null;

/** Land, borders and cities as GeoJSON, unpacked once per document. */
function decoded() {
  geometry ??= {
    ...unpackBasemap(packed),
    cities: {
      type: "FeatureCollection",
      features: cities.map(([lon, lat, name], rank) => ({
        type: "Feature",
        properties: { name, rank },
        geometry: { type: "Point", coordinates: [lon, lat] },
      })),
    },
  };
  return geometry;
}

/** A complete MapLibre style of the basemap alone (the views add their data above). */
export function basemapStyle(theme) {
  const c = THEMES[theme] || THEMES.light;
  const g = decoded();
  return {
    version: 8,
    sources: {
      "ne-land": { type: "geojson", data: g.land, tolerance: 0.5 },
      "ne-borders": { type: "geojson", data: g.borders, tolerance: 0.5 },
      "ne-cities": { type: "geojson", data: g.cities },
    },
    layers: [
      { id: "ne-water", type: "background", paint: { "background-color": c.water } },
      { id: "ne-land", type: "fill", source: "ne-land", paint: { "fill-color": c.land, "fill-outline-color": c.coast } },
      {
        id: "ne-borders",
        type: "line",
        source: "ne-borders",
        paint: { "line-color": c.border, "line-width": ["interpolate", ["linear"], ["zoom"], 2, 0.6, 8, 1.4], "line-dasharray": [3, 2] },
      },
      {
        id: "ne-city-dots",
        type: "circle",
        source: "ne-cities",
        minzoom: 2,
        paint: { "circle-radius": 2.5, "circle-color": c.dot, "circle-stroke-color": c.halo, "circle-stroke-width": 1 },
      },
      {
        id: "ne-city-labels",
        type: "symbol",
        source: "ne-cities",
        minzoom: 2,
        layout: {
          "text-field": ["get", "name"],
          "text-font": ["sans-serif"],
          "text-size": ["interpolate", ["linear"], ["zoom"], 2, 10, 8, 13],
          // Under its dot, or beside a marker on its city (the views' obstacle layer, core/map.js).
          "text-variable-anchor-offset": ["top", [0, 0.4], "top", [0, 1.4], "bottom", [0, -1.4], "left", [1.4, 0], "right", [-1.4, 0]],
          "text-max-width": 8,
          "symbol-sort-key": ["get", "rank"],
        },
        paint: { "text-color": c.label, "text-halo-color": c.halo, "text-halo-width": 1.4 },
      },
    ],
  };
}

/** The basemap's city nearest [lon, lat] that is more than `beyondKm` away from it, as [lon, lat, name]; null if none. */
export function nearestCity([lon, lat], beyondKm = 0) {
  const km = ([x, y]) => Math.hypot((x - lon) * Math.cos((lat * Math.PI) / 180), y - lat) * 111.2;
  let best = null;
  for (const city of cities) if (km(city) > beyondKm && (!best || km(city) < km(best))) best = city;
  return best;
}

/** Restyle the basemap layers of `map` for `theme` (the data layers restyle themselves). */
export function setBasemapTheme(map, theme) {
  const c = THEMES[theme] || THEMES.light;
  const paint = [
    ["ne-water", "background-color", c.water],
    ["ne-land", "fill-color", c.land],
    ["ne-land", "fill-outline-color", c.coast],
    ["ne-borders", "line-color", c.border],
    ["ne-city-dots", "circle-color", c.dot],
    ["ne-city-dots", "circle-stroke-color", c.halo],
    ["ne-city-labels", "text-color", c.label],
    ["ne-city-labels", "text-halo-color", c.halo],
  ];
  for (const [layer, property, value] of paint) if (map.getLayer(layer)) map.setPaintProperty(layer, property, value);
}
