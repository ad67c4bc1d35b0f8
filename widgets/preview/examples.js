/** Starting arguments per tool in the /preview picker (Amsterdam and around); any tool not here starts from {}. */
export const EXAMPLES = {
  "tomtom-geocode": { query: "Damrak 1, Amsterdam" },
  "tomtom-reverse-geocode": { position: [4.8932, 52.3731] },
  "tomtom-fuzzy-search": { query: "coffee", position: [4.8897, 52.374] },
  "tomtom-poi-search": { query: "museum", position: [4.8897, 52.374] },
  "tomtom-nearby": { position: [4.8897, 52.374], radius: 1500 },
  "tomtom-search-along-route": { locations: [[4.8897, 52.374], [5.1214, 52.0907]], query: "fuel" },
  "tomtom-routing": { locations: [[4.8897, 52.374], [6.5665, 53.2194], [13.405, 52.52]] },
  "tomtom-reachable-range": { origin: [4.8897, 52.374], timeBudgetInSec: 1800 },
  "tomtom-traffic": { bbox: [4.82, 52.33, 4.96, 52.41] },
  "tomtom-dynamic-map": {
    title: "Two routes and a zone",
    markers: [{ position: [4.8897, 52.374], label: "Start", color: "#e33" }],
    routes: [
      { locations: [[4.8897, 52.374], [4.4777, 51.9244]], label: "To Rotterdam" },
      { locations: [[4.8897, 52.374], [5.1214, 52.0907]], label: "To Utrecht", color: "#8250df" },
    ],
    polygons: [{ center: [4.8897, 52.374], radius: 4000, label: "Centre zone" }],
  },
  "tomtom-batch-geocode": { addresses: ["Damrak 1, Amsterdam", "Springfield", "Hoofdstraat 12", "??", "Lisbon"] },
  "tomtom-snap-to-roads": {
    points: Array.from({ length: 120 }, (_, i) => ({ position: [4.85 + i * 0.0006, 52.36 + Math.sin(i / 15) * 0.002], timestamp: 1714552200 + i * 3 })),
  },
  "tomtom-data-viz": {
    title: "Parks and a canal walk",
    geojson: {
      type: "FeatureCollection",
      features: [
        { type: "Feature", properties: { name: "Vondelpark" }, geometry: { type: "Polygon", coordinates: [[[4.857, 52.356], [4.881, 52.362], [4.884, 52.359], [4.86, 52.354], [4.857, 52.356]]] } },
        { type: "Feature", properties: { name: "Canal walk" }, geometry: { type: "LineString", coordinates: [[4.884, 52.367], [4.887, 52.372], [4.893, 52.376], [4.9, 52.377]] } },
        { type: "Feature", properties: { name: "Dam Square" }, geometry: { type: "Point", coordinates: [4.8932, 52.3731] } },
      ],
    },
    layers: [
      { type: "fill", paint: { "fill-color": "#2f9e44", "fill-opacity": 0.4 } },
      { type: "line", paint: { "line-color": "#1f6feb", "line-width": 4 } },
      { type: "circle", paint: { "circle-color": "#e33", "circle-radius": 7 }, label: "name" },
    ],
  },
};
