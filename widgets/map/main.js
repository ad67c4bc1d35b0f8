"use strict";
/** Map view: every tool whose envelope `data` is a FeatureCollection (ADR 0001). */
(() => {
  const TITLES = {
    "tomtom-geocode": "Geocoding",
    "tomtom-reverse-geocode": "Address",
    "tomtom-fuzzy-search": "Search results",
    "tomtom-poi-search": "Places",
    "tomtom-nearby": "Nearby",
    "tomtom-search-along-route": "Along the route",
    "tomtom-routing": "Route",
    "tomtom-reachable-range": "Reachable range",
    "tomtom-dynamic-map": "Map",
  };
  let map = null;

  async function onResult(result, ctx) {
    const env = await envelope.fromResult(result, window.openai?.toolResponseMetadata);
    ctx.tool = env.tool;
    let fc;
    try {
      fc = e5.decodeGeoJSON(env.data);
    } catch (err) {
      throw new envelope.ViewError("decode_failed", `The map data is malformed: ${err.message}`);
    }
    if (!Array.isArray(fc.features)) {
      throw new envelope.ViewError("decode_failed", `The map data from ${env.tool} is not a FeatureCollection.`);
    }
    map?.remove();
    document.getElementById("notes").replaceChildren();
    const [m, config] = await Promise.all([mapCore.create(document.getElementById("map"), ctx.theme()), ctx.mapConfig(["basemap", "basemap_night"])]);
    map = m;
    const dark = ctx.theme() === "dark";
    const tiles = dark && config.tiles.basemap_night ? ["basemap_night"] : ["basemap"];
    const basemap = mapCore.addRaster(map, config, tiles, (msg, state) => ctx.tilesFailed(msg, state), "© TomTom");
    const drawn = mapCore.drawFeatures(map, fc, ctx.theme());

    const c = drawn.counts;
    const first = drawn.routes[0];
    const subtitle = first
      ? mapCore.routeSummary(first) + (drawn.routes.length > 1 ? ` · ${drawn.routes.length} routes` : "")
      : c.places
        ? `${c.places} ${c.places === 1 ? "place" : "places"}`
        : "";
    mapCore.markIdle(map);
    ctx.setTitle(fc.title || TITLES[env.tool] || "Map", subtitle);
    ctx.setLegend(drawn.legend);
    mapCore.fit(map, fc.bbox || bounds.boundsOf(fc));
    if (!basemap) mapCore.addGraticule(map, ctx.theme());
    const note = style.fittedNote(env.fitted);
    if (note) ctx.addNote(note);
    for (const w of drawn.warnings) console.warn(w);
    if (drawn.warnings.length) ctx.addNote(`${drawn.warnings.length} section(s) out of range were not drawn`);
    ctx.onHostContext = (hc) => hc.theme && map && mapCore.setTheme(map, hc.theme);

    const counts = {
      features: c.features,
      routePoints: c.routePoints,
      sections: c.sections,
      points: c.points,
      areas: c.areas,
      fitted: env.fitted ? env.fitted.points : "",
    };
    if (c.features === 0) {
      return ctx.empty("Nothing found", "The answer has no places, routes or areas to show.", counts);
    }
    const parts = [`${c.features} features`];
    if (c.routePoints) parts.push(`${c.routePoints} route points`, `${c.sections} sections`);
    parts.push(basemap ? "basemap tiles" : "plain background");
    if (drawn.warnings.length) parts.push(drawn.warnings.join("; "));
    ctx.ok(parts.join(", "), counts);
  }

  view.start({ name: "tomtom-map", tool: "tomtom-map", onResult, onTeardown: () => map?.remove() });
})();
