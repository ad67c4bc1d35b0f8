"use strict";
/**
 * MapLibre drawing shared by the views: a plain background that always
 * renders, TomTom raster tiles on top when the server serves them (from its
 * own tile route, with a short-lived token it renews), and the tool features
 * styled by `properties.kind`.
 */
const mapCore = (() => {
  const PLAIN = { light: "#eef1f4", dark: "#20252b" };
  const CASING = { light: "#ffffff", dark: "#0d1117" };
  const GRID = { light: "#d5dbe2", dark: "#2e353d" };

  /** Renew the tile token at this share of its lifetime (tiles keep loading across it). */
  const RENEW_AT = 0.8;

  /** A map on `el` that resolves once its (inline) style has loaded. */
  function create(el, theme) {
    const map = new maplibregl.Map({
      container: el,
      style: {
        version: 8,
        sources: {},
        layers: [{ id: "plain", type: "background", paint: { "background-color": PLAIN[theme] || PLAIN.light } }],
      },
      center: [0, 20],
      zoom: 1,
      attributionControl: false,
      canvasContextAttributes: { preserveDrawingBuffer: true, antialias: true },
      fadeDuration: 0,
    });
    map.addControl(new maplibregl.NavigationControl({ showCompass: false }), "top-right");
    return new Promise((resolve) => map.once("load", () => resolve(map)));
  }

  function setTheme(map, theme) {
    map.setPaintProperty("plain", "background-color", PLAIN[theme] || PLAIN.light);
    if (map.getLayer("graticule")) map.setPaintProperty("graticule", "line-color", GRID[theme] || GRID.light);
    for (const id of ["route-casing"]) {
      if (map.getLayer(id)) map.setPaintProperty(id, "line-color", CASING[theme] || CASING.light);
    }
  }

  /**
   * Raster layers from `config.tiles[name]` templates, below the data. Calls
   * `onFail(message)` once if the server gave no tiles or a tile fails to load.
   * Before the token in the templates expires, `config.renew()` swaps in fresh ones.
   */
  function addRaster(map, config, names, onFail, attribution) {
    if (!names.some((name) => config.tiles[name])) {
      const why = config.offline
        ? "Offline demo data: no map tiles."
        : config.error
          ? `No TomTom tiles: ${config.error}.`
          : `No map tiles${config.reason ? `: ${config.reason}` : ""}.`;
      onFail(why, "none");
      return false;
    }
    let added = 0;
    for (const name of names) {
      const url = config.tiles[name];
      if (!url) continue;
      map.addSource(`tiles-${name}`, { type: "raster", tiles: [url], tileSize: 256, attribution });
      map.addLayer({ id: `tiles-${name}`, type: "raster", source: `tiles-${name}` });
      added++;
    }
    if (added === 0) {
      onFail("No TomTom tile address was configured, so no map tiles.", "none");
      return false;
    }
    document.body.dataset.tiles = "requested";
    renewTiles(map, config, names);
    let failed = false;
    map.on("error", (e) => {
      if (!failed && e.sourceId && e.sourceId.startsWith("tiles-")) {
        failed = true;
        const status = e.error && e.error.status ? ` (HTTP ${e.error.status})` : "";
        onFail(`Map tiles could not load${status}; drawing on a plain background.`, "failed");
        if (!map.getSource("graticule")) addGraticule(map, document.documentElement.dataset.theme || "light");
      }
    });
    map.addControl(new maplibregl.AttributionControl({ compact: true }), "bottom-right");
    return true;
  }

  function renewTiles(map, config, names) {
    if (!(config.expiresIn > 0 && config.renew)) return;
    const timer = setTimeout(async () => {
      const fresh = await config.renew();
      for (const name of names) {
        const source = map.getSource(`tiles-${name}`);
        if (source && fresh.tiles && fresh.tiles[name]) source.setTiles([fresh.tiles[name]]);
      }
      document.body.dataset.tilesRenewed = String(Number(document.body.dataset.tilesRenewed || 0) + 1);
      if (fresh.tiles && Object.keys(fresh.tiles).length) renewTiles(map, fresh, names);
    }, config.expiresIn * 1000 * RENEW_AT);
    map.once("remove", () => clearTimeout(timer));
  }

  /**
   * Faint latitude/longitude lines around the current view, so that data drawn
   * without basemap tiles still reads as a place on a map, with a sense of scale.
   * Call after `fit`.
   */
  function addGraticule(map, theme) {
    const v = map.getBounds();
    const spanX = v.getEast() - v.getWest();
    const spanY = v.getNorth() - v.getSouth();
    const raw = Math.max(spanX, spanY, 1e-5) / 8;
    const mag = 10 ** Math.floor(Math.log10(raw));
    const step = [1, 2, 5, 10].map((f) => f * mag).find((x) => x >= raw);
    const w = Math.max(-180, Math.floor((v.getWest() - 2 * spanX) / step) * step);
    const e = Math.min(180, v.getEast() + 2 * spanX);
    const s = Math.max(-85, Math.floor((v.getSouth() - 2 * spanY) / step) * step);
    const n = Math.min(85, v.getNorth() + 2 * spanY);
    const lines = [];
    for (let x = w; x <= e; x += step) lines.push([[x, s], [x, n]]);
    for (let y = s; y <= n; y += step) lines.push([[w, y], [e, y]]);
    map.addSource("graticule", { type: "geojson", data: { type: "MultiLineString", coordinates: lines } });
    const before = map.getStyle().layers[1]?.id;
    map.addLayer(
      { id: "graticule", type: "line", source: "graticule", paint: { "line-color": GRID[theme] || GRID.light, "line-width": 1 } },
      before,
    );
  }

  /**
   * Mark the document once every data source (not the tiles: they may never
   * arrive, and the data draws regardless) is on the canvas. Tests wait for it.
   */
  function markIdle(map) {
    delete document.body.dataset.idle;
    let ready = false;
    const check = () => {
      if (ready) {
        map.off("render", check);
        document.body.dataset.idle = "1";
        return;
      }
      const ids = Object.keys(map.getStyle().sources).filter((id) => !id.startsWith("tiles-"));
      ready = ids.every((id) => map.isSourceLoaded(id)) && !map.isMoving();
      map.triggerRepaint();
    };
    map.on("render", check);
    map.triggerRepaint();
  }

  function popupAt(map, lngLat, html) {
    new maplibregl.Popup({ closeButton: true, maxWidth: "260px" }).setLngLat(lngLat).setHTML(html).addTo(map);
  }

  function popupOnClick(map, layer, render) {
    map.on("click", layer, (e) => {
      const f = e.features && e.features[0];
      if (f) popupAt(map, e.lngLat, render(f.properties));
    });
    map.on("mouseenter", layer, () => (map.getCanvas().style.cursor = "pointer"));
    map.on("mouseleave", layer, () => (map.getCanvas().style.cursor = ""));
  }

  /**
   * Fit the view to `box`, keeping clear of the title, legend and notes that
   * float over the map (the legend is avoided on whichever side costs less room).
   */
  function fit(map, box, padding = 48) {
    if (!box) return;
    const [w, s, e, n] = box;
    const single = w === e && s === n;
    const frame = map.getContainer();
    const W = frame.clientWidth;
    const H = frame.clientHeight;
    const base = Math.max(8, Math.min(padding, W / 8, H / 8));
    const pad = { top: base, right: base, bottom: base, left: base };
    const size = (id) => {
      const el = document.getElementById(id);
      return el && !el.hidden && el.offsetHeight ? { w: el.offsetWidth + 16, h: el.offsetHeight + 16 } : null;
    };
    const title = size("title");
    if (title) pad.top = Math.max(pad.top, title.h + 8);
    const legend = size("legend");
    if (legend) {
      if (legend.w * H < legend.h * W) pad.left = Math.max(pad.left, legend.w + 8);
      else pad.bottom = Math.max(pad.bottom, legend.h + 8);
    }
    const notes = size("notes");
    if (notes && notes.h > 16) pad.bottom = Math.max(pad.bottom, Math.min(notes.h + 8, H / 4));
    // Never squeeze the data into less than a third of the frame.
    if (pad.left + pad.right > (2 * W) / 3) pad.left = pad.right = base;
    if (pad.top + pad.bottom > (2 * H) / 3) pad.top = pad.bottom = base;
    map.fitBounds(
      [
        [w, s],
        [e, n],
      ],
      { padding: pad, maxZoom: single ? 14 : 16, duration: 0 },
    );
  }

  /** The flat vertex list of a route feature, parts concatenated (ADR 0001). */
  function routeCoords(geometry) {
    if (!geometry) return [];
    if (geometry.type === "LineString") return geometry.coordinates;
    if (geometry.type === "MultiLineString") return geometry.coordinates.flat();
    return [];
  }

  function asText(value) {
    return typeof value === "string" ? value : value === undefined || value === null ? "" : JSON.stringify(value);
  }

  /**
   * Draw a tool FeatureCollection. Returns what was drawn: counts, legend
   * rows and warnings (e.g. sections whose indices fall outside their route).
   */
  function drawFeatures(map, fc, theme) {
    const esc = view.escapeHtml;
    const routes = [];
    const sections = [];
    const areas = [];
    const points = [];
    const waypoints = [];
    const crossings = [];
    const warnings = [];
    let routePoints = 0;
    let routeN = 0;
    let areaN = 0;
    for (const f of fc.features) {
      const p = f.properties || {};
      const kind = p.kind || "feature";
      const g = f.geometry;
      if (!g) continue;
      if (kind === "route" || (kind === "feature" && /LineString/.test(g.type))) {
        const coords = routeCoords(g);
        const color = p.color || style.PALETTE[routeN % style.PALETTE.length];
        routeN++;
        routePoints += coords.length;
        const s = p.summary || {};
        const label = p.label || (routeN > 1 || p.route_index ? `Route ${(p.route_index ?? routeN - 1) + 1}` : "Route");
        routes.push({
          type: "Feature",
          geometry: g,
          properties: {
            color,
            label,
            length: s.lengthInMeters,
            time: s.travelTimeInSeconds,
            delay: s.trafficDelayInSeconds,
          },
        });
        const cut = style.sectionSegments(coords, p.sections, { route: routeN - 1 });
        sections.push(...cut.features);
        warnings.push(...cut.skipped);
        crossings.push(...style.countryCrossings(coords, p.sections));
      } else if (/Polygon/.test(g.type)) {
        const base = style.kindStyle(kind);
        const color = p.color || (kind === "area" ? style.PALETTE[(areaN + 2) % style.PALETTE.length] : base.color);
        areaN++;
        areas.push({ type: "Feature", geometry: g, properties: { color, kind, label: p.label || base.label } });
      } else if (kind === "waypoint") {
        waypoints.push(f);
      } else if (/Point/.test(g.type)) {
        const base = style.kindStyle(kind);
        points.push({
          type: "Feature",
          geometry: g,
          properties: {
            kind,
            color: p.color || base.color,
            name: asText(p.name || p.label || base.label),
            address: asText(p.address),
            category: asText(p.category),
            distance: Number.isFinite(p.distance_m) ? style.formatDistance(p.distance_m) : "",
          },
        });
      }
    }

    const casing = CASING[theme] || CASING.light;
    const source = (id, features) => map.addSource(id, { type: "geojson", data: { type: "FeatureCollection", features } });
    source("areas", areas);
    map.addLayer({
      id: "area-fill",
      type: "fill",
      source: "areas",
      paint: { "fill-color": ["get", "color"], "fill-opacity": 0.18 },
    });
    map.addLayer({
      id: "area-line",
      type: "line",
      source: "areas",
      paint: { "line-color": ["get", "color"], "line-width": 2, "line-opacity": 0.9 },
    });
    source("routes", routes);
    map.addLayer({
      id: "route-casing",
      type: "line",
      source: "routes",
      layout: { "line-join": "round", "line-cap": "round" },
      paint: { "line-color": casing, "line-width": 9 },
    });
    map.addLayer({
      id: "route-line",
      type: "line",
      source: "routes",
      layout: { "line-join": "round", "line-cap": "round" },
      paint: { "line-color": ["get", "color"], "line-width": 5.5 },
    });
    source("sections", sections);
    map.addLayer({
      id: "sections-solid",
      type: "line",
      source: "sections",
      filter: ["!", ["get", "dashed"]],
      layout: { "line-join": "round", "line-cap": "round" },
      paint: { "line-color": ["get", "color"], "line-width": ["get", "width"] },
    });
    map.addLayer({
      id: "sections-dashed",
      type: "line",
      source: "sections",
      filter: ["get", "dashed"],
      paint: { "line-color": ["get", "color"], "line-width": ["get", "width"], "line-dasharray": [1.5, 1] },
    });
    source("points", points);
    map.addLayer({
      id: "points",
      type: "circle",
      source: "points",
      paint: {
        "circle-radius": ["case", ["==", ["get", "kind"], "result"], 10, 7],
        "circle-color": ["get", "color"],
        "circle-stroke-color": "#ffffff",
        "circle-stroke-width": 2,
      },
    });

    popupOnClick(map, "points", (p) =>
      `<strong>${esc(p.name)}</strong>` +
      (p.address ? `<div>${esc(p.address)}</div>` : "") +
      (p.category || p.distance ? `<div class="muted">${esc([p.category, p.distance].filter(Boolean).join(" · "))}</div>` : ""),
    );
    popupOnClick(map, "route-line", (p) =>
      `<strong>${esc(p.label)}</strong><div>${esc(routeSummary(p))}</div>`,
    );
    popupOnClick(map, "area-fill", (p) => `<strong>${esc(p.label)}</strong>`);
    popupOnClick(map, "sections-solid", (p) => `<strong>${esc(p.label)}</strong>`);

    waypoints.forEach((f, i) => {
      const p = f.properties || {};
      const idx = Number.isInteger(p.index) ? p.index : i;
      const el = document.createElement("div");
      el.className = "tt-pin";
      el.style.background = style.KIND.waypoint.color;
      el.textContent = idx < 26 ? String.fromCharCode(65 + idx) : String(idx + 1);
      const popup = new maplibregl.Popup({ offset: 14 }).setHTML(`<strong>${esc(p.label || `Waypoint ${el.textContent}`)}</strong>`);
      new maplibregl.Marker({ element: el }).setLngLat(f.geometry.coordinates).setPopup(popup).addTo(map);
    });
    let resultNo = 0;
    points.forEach((f) => {
      const p = f.properties;
      if (p.kind === "result" && points.length <= 99) {
        const el = document.createElement("div");
        el.className = "tt-num";
        el.textContent = String(++resultNo);
        new maplibregl.Marker({ element: el }).setLngLat(f.geometry.coordinates).addTo(map);
      } else if (p.kind === "marker" && p.name) {
        const el = document.createElement("div");
        el.className = "tt-chip";
        el.textContent = p.name;
        new maplibregl.Marker({ element: el, anchor: "bottom", offset: [0, -2] }).setLngLat(f.geometry.coordinates).addTo(map);
      }
    });
    for (const c of crossings) {
      const el = document.createElement("div");
      el.className = "tt-chip";
      el.textContent = c.label;
      new maplibregl.Marker({ element: el, anchor: "bottom" }).setLngLat(c.coordinates).addTo(map);
    }

    const legend = [];
    for (const r of routes) legend.push({ label: r.properties.label, color: r.properties.color, shape: "line" });
    for (const row of style.sectionLegend(sections)) legend.push({ ...row, shape: "line" });
    const countBy = (items, key) => items.reduce((m, x) => m.set(x[key], (m.get(x[key]) || 0) + 1), new Map());
    for (const [kind, n] of countBy(points.map((f) => f.properties), "kind")) {
      const s = style.kindStyle(kind);
      legend.push({ label: n > 1 ? `${s.label}s (${n})` : s.label, color: s.color, shape: "dot" });
    }
    if (waypoints.length) legend.push({ label: `Waypoints (${waypoints.length})`, color: style.KIND.waypoint.color, shape: "dot" });
    for (const a of areas) legend.push({ label: a.properties.label, color: a.properties.color, shape: "area" });
    if (crossings.length) legend.push({ label: `Border crossings (${crossings.length})`, color: "#868e96", shape: "dot" });

    return {
      counts: {
        features: routes.length + areas.length + points.length + waypoints.length,
        routes: routes.length,
        routePoints,
        sections: sections.length,
        points: points.length + waypoints.length,
        places: points.filter((f) => f.properties.kind === "result" || f.properties.kind === "marker").length,
        areas: areas.length,
      },
      legend,
      warnings,
      routes: routes.map((r) => r.properties),
    };
  }

  function routeSummary(p) {
    const parts = [style.formatDistance(p.length), style.formatDuration(p.time)].filter(Boolean);
    if (p.delay > 59) parts.push(`+${style.formatDuration(p.delay)} traffic`);
    return parts.join(" · ");
  }

  return { markIdle, addGraticule, create, setTheme, addRaster, drawFeatures, fit, popupAt, popupOnClick, routeSummary, PLAIN };
})();
