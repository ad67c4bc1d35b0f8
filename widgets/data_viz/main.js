"use strict";
/**
 * Data-viz view: the caller's GeoJSON with the caller's layers. Inline app
 * data when the result carries it; otherwise `tomtom-get-app-data` with this
 * view's own tool input, paged, with progress (DESIGN.md rule 4).
 */
(() => {
  const TYPES = new Set(["circle", "line", "fill", "heatmap", "fill-extrusion", "symbol"]);
  const MAX_LABELS = 300;
  const GEOMETRY = {
    circle: ["Point", "MultiPoint"],
    heatmap: ["Point", "MultiPoint"],
    line: ["LineString", "MultiLineString", "Polygon", "MultiPolygon"],
    fill: ["Polygon", "MultiPolygon"],
    "fill-extrusion": ["Polygon", "MultiPolygon"],
    symbol: ["Point", "MultiPoint", "LineString", "MultiLineString", "Polygon", "MultiPolygon"],
  };
  const FETCHABLE = new Set(["meta_dropped", "too_large", "no_app_data"]);
  let map = null;
  let inputWaiter = null;

  function waitForInput(ctx, ms) {
    if (ctx.input) return Promise.resolve(ctx.input);
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve(null), ms);
      inputWaiter = (input) => {
        clearTimeout(timer);
        resolve(input);
      };
    });
  }

  /** A MapLibre layer from one caller layer: full paint/layout, or color/opacity/width/radius shorthand. */
  function toLayer(spec, i, color) {
    const type = spec.type || "circle";
    if (!TYPES.has(type)) throw new TypeError(`layer ${i}: type "${type}" is not one of ${[...TYPES].join(", ")}`);
    const c = spec.color || color;
    const defaults = {
      circle: { "circle-color": c, "circle-radius": spec.radius ?? 5, "circle-opacity": spec.opacity ?? 0.85, "circle-stroke-color": "#fff", "circle-stroke-width": 1 },
      line: { "line-color": c, "line-width": spec.width ?? 2.5, "line-opacity": spec.opacity ?? 0.9 },
      fill: { "fill-color": c, "fill-opacity": spec.opacity ?? 0.35, "fill-outline-color": c },
      heatmap: { "heatmap-radius": spec.radius ?? 18, "heatmap-opacity": spec.opacity ?? 0.8 },
      "fill-extrusion": { "fill-extrusion-color": c, "fill-extrusion-opacity": spec.opacity ?? 0.7, "fill-extrusion-height": spec.height ?? 50 },
    }[type];
    const geom = ["in", ["geometry-type"], ["literal", GEOMETRY[type]]];
    const layer = {
      id: `data-${i}`,
      type,
      source: "data",
      paint: { ...defaults, ...(spec.paint || {}) },
      filter: spec.filter ? ["all", geom, spec.filter] : geom,
    };
    if (spec.layout) layer.layout = spec.layout;
    if (Number.isFinite(spec.minzoom)) layer.minzoom = spec.minzoom;
    if (Number.isFinite(spec.maxzoom)) layer.maxzoom = spec.maxzoom;
    const paintColor = layer.paint[`${type}-color`];
    const names = { circle: "Points", line: "Lines", fill: "Areas", heatmap: "Density", "fill-extrusion": "Volumes" };
    return {
      layer,
      label: spec.name || `${names[type]}${spec.filter ? " (filtered)" : ""}`,
      color: typeof paintColor === "string" ? paintColor : c,
      type,
    };
  }

  /** MapLibre reports an invalid layer as an error event, not a throw: turn it into one. */
  function addChecked(layer, i) {
    let message = null;
    const listen = (e) => (message = e.error?.message || String(e.error));
    map.on("error", listen);
    try {
      map.addLayer(layer);
    } finally {
      map.off("error", listen);
    }
    if (!map.getLayer(layer.id)) throw new Error(`layer ${i + 1} was refused: ${message || "invalid layer"}`);
  }

  function defaultLayers() {
    return [{ type: "fill" }, { type: "line" }, { type: "circle" }];
  }

  function featureCount(doc) {
    if (!doc || typeof doc !== "object") return 0;
    if (doc.type === "FeatureCollection") return doc.features.length;
    return 1;
  }

  async function draw(env, ctx) {
    const data = env.data || {};
    if (!data.geojson || typeof data.geojson !== "object") {
      throw new envelope.ViewError("decode_failed", "The data-viz data has no geojson.");
    }
    let geojson;
    try {
      geojson = e5.decodeGeoJSON(data.geojson);
    } catch (err) {
      throw new envelope.ViewError("decode_failed", `The GeoJSON is malformed: ${err.message}`);
    }
    map?.remove();
    document.getElementById("notes").replaceChildren();
    const [m, config] = await Promise.all([mapCore.create(document.getElementById("map"), ctx.theme()), ctx.mapConfig(["basemap"])]);
    map = m;
    ctx.onHostContext = (hc) => hc.theme && map && mapCore.setTheme(map, hc.theme);
    const basemap = mapCore.addRaster(map, config, ["basemap"], (msg, state) => ctx.tilesFailed(msg, state), "© TomTom");
    map.addSource("data", { type: "geojson", data: geojson });
    const specs = Array.isArray(data.layers) && data.layers.length ? data.layers : defaultLayers();
    const legend = [];
    const problems = [];
    let labels = 0;
    specs.forEach((spec, i) => {
      if (spec && spec.type === "symbol") {
        labels += addLabels(geojson, spec);
        return;
      }
      try {
        const { layer, label, color, type } = toLayer(spec || {}, i, style.PALETTE[i % style.PALETTE.length]);
        addChecked(layer, i);
        mapCore.popupOnClick(map, layer.id, (p) => popupHtml(p, spec.label));
        legend.push({ label, color, shape: type === "line" ? "line" : type === "circle" || type === "heatmap" ? "dot" : "area" });
      } catch (err) {
        problems.push(err.message);
      }
    });
    const drawnLayers = legend.length + (labels ? 1 : 0);
    if (drawnLayers === 0) {
      throw new envelope.ViewError("bad_layers", `None of the layers could be drawn: ${problems.join("; ")}`);
    }
    mapCore.markIdle(map);
    const n = featureCount(geojson);
    ctx.setTitle(data.title || "Data", `${n.toLocaleString("en-US")} ${n === 1 ? "feature" : "features"}`);
    ctx.setLegend(legend.length > 1 ? legend : []);
    mapCore.fit(map, bounds.boundsOf(geojson));
    if (!basemap) mapCore.addGraticule(map, ctx.theme());
    for (const p of problems) ctx.addNote(p);
    const counts = { features: n, layers: drawnLayers, labels };
    if (n === 0) return ctx.empty("No features", "The data has no features to show.", counts);
    const detail = [`${n} features`, `${drawnLayers} layers`, basemap ? "basemap tiles" : "plain background", ...problems];
    ctx.ok(detail.join(", "), counts);
  }

  /** Text labels as HTML markers: symbol layers need glyphs, which no CSP here allows. */
  function addLabels(geojson, spec) {
    const features = geojson.type === "FeatureCollection" ? geojson.features : [geojson];
    let n = 0;
    for (const f of features) {
      if (n >= MAX_LABELS) break;
      const text = f && f.properties && f.properties[spec.label];
      const at = f && f.geometry && bounds.boundsOf(f.geometry);
      if (text === undefined || text === null || !at) continue;
      const el = document.createElement("div");
      el.className = "tt-chip";
      el.textContent = String(text).slice(0, 60);
      new maplibregl.Marker({ element: el, anchor: "bottom" })
        .setLngLat([(at[0] + at[2]) / 2, (at[1] + at[3]) / 2])
        .addTo(map);
      n++;
    }
    return n;
  }

  function popupHtml(props, labelKey) {
    const esc = view.escapeHtml;
    const head = labelKey && props && props[labelKey] !== undefined ? `<strong>${esc(props[labelKey])}</strong>` : "";
    const rows = Object.entries(props || {}).slice(0, 8);
    if (!rows.length) return head || "<span class='muted'>No properties</span>";
    return head + rows.map(([k, v]) => `<div><span class="muted">${esc(k)}</span> ${esc(v)}</div>`).join("");
  }

  async function onResult(result, ctx) {
    let env;
    try {
      env = await envelope.fromResult(result, window.openai?.toolResponseMetadata);
    } catch (err) {
      if (!FETCHABLE.has(err.reason)) throw err;
      ctx.showMessage("loading", "Loading data…", "Fetching the data from the server.", null);
      const input = await waitForInput(ctx, 10000);
      if (!input) {
        throw new envelope.ViewError(
          "no_input",
          `${err.message} The host sent no tool input either, so the data cannot be fetched.`,
        );
      }
      let pages = 0;
      env = await envelope.fetchPaged(ctx.callTool, input, (got, total) => {
        document.body.dataset.pages = String(++pages);
        ctx.showMessage(
          "loading",
          "Loading data…",
          `${Math.round((100 * got) / total)}% of ${(total / 1024).toFixed(0)} KB`,
          got / total,
        );
      });
      document.body.dataset.fetched = "1";
    }
    ctx.tool = "tomtom-data-viz";
    await draw(env, ctx);
  }

  view.start({
    name: "tomtom-data-viz",
    tool: "tomtom-data-viz",
    onInput: (input) => inputWaiter?.(input),
    onResult,
    onTeardown: () => map?.remove(),
  });
})();
