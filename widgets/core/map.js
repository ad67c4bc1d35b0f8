/**
 * MapLibre for the views (or the worker-free renderer where it cannot start:
 * canvasmap.js): the offline basemap (always), TomTom raster tiles
 * above it when the server serves them (its own tile route, with a
 * short-lived token renewed before it expires), and the tool features styled by
 * `properties.kind` in a `Scene` that can be cleared and drawn again (partial
 * input, then the result; a theme change). Every drawn feature carries the id
 * of its list item, so a click on the map selects the same thing the list does.
 */
import maplibregl from "maplibre-gl";
import { basemapStyle, nearestCity, setBasemapTheme } from "../basemap/basemap.js";
import { createCanvasMap } from "./canvasmap.js";
import { evaluate } from "./expr.js";
import * as style from "./style.js";
import { escapeHtml } from "./html.js";

const CASING = { light: "#ffffff", dark: "#0d1117" };
const DASH_LAYERS = Object.entries(style.DASHES);

/** Renew the tile token at this share of its lifetime (tiles keep loading across it). */
const RENEW_AT = 0.8;
/** How long MapLibre may take to load before the worker-free renderer draws instead. */
export const ENGINE_WAIT_MS = 20000;
/** How long requested tiles may take to show one before the view says they failed (while on screen). */
export const TILE_WAIT_MS = 20000;

/**
 * A map on `el` over the basemap in `theme`, resolved once its style has loaded:
 * MapLibre, or where it cannot start (the host's CSP refuses its worker, no WebGL,
 * an error before it loads, no load within ENGINE_WAIT_MS) the worker-free
 * renderer, whose `fallback` says why. `gl`: MapLibre (a stand-in in unit tests).
 */
export function createMap(el, theme, gl = maplibregl) {
  return new Promise((resolve) => {
    let map = null;
    let done = false;
    const finish = (why) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      document.removeEventListener("securitypolicyviolation", refused);
      if (!why) return resolve(map);
      try {
        map?.remove();
      } catch {
        // A map that never started may not tear down cleanly; its container is emptied below.
      }
      el.replaceChildren();
      createCanvasMap(el, basemapStyle(theme), { fallback: why, attribution: "Natural Earth" }).once("load", (e) => resolve(e.target));
    };
    const refused = (e) => {
      if (/^(worker|child)-src/.test(e.effectiveDirective)) finish(`map engine blocked by the host's CSP: ${e.effectiveDirective}`);
    };
    document.addEventListener("securitypolicyviolation", refused);
    const timer = setTimeout(() => finish(`map engine did not start within ${ENGINE_WAIT_MS / 1000} s`), ENGINE_WAIT_MS);
    try {
      map = new gl.Map({
        container: el,
        style: basemapStyle(theme),
        center: [0, 20],
        zoom: 1,
        attributionControl: false,
        canvasContextAttributes: { preserveDrawingBuffer: true, antialias: true },
        fadeDuration: 0,
      });
    } catch (err) {
      return finish(`map engine cannot start: ${err.message}`);
    }
    map.on("error", (e) => {
      if (!e.sourceId) finish(`map engine failed: ${e.error?.message || e.error}`);
    });
    map.once("load", () => {
      map.addControl(new gl.NavigationControl({ showCompass: false }), "top-right");
      map.addControl(new gl.AttributionControl({ compact: true, customAttribution: "Natural Earth" }), "bottom-right");
      finish(null);
    });
  });
}

export function setTheme(map, theme) {
  setBasemapTheme(map, theme);
}

/**
 * Raster layers from `config.tiles[name]` templates, above the basemap and below
 * the data. `onFail(message, state)` runs once: no tiles ("none") or a tile failed
 * ("failed"); the basemap shows wherever a tile is missing. Before the templates'
 * token expires, `config.renew()` swaps fresh ones in (counted in `status`).
 */
export function addRaster(map, config, names, { onFail, t, status }) {
  if (!names.some((name) => config.tiles[name])) {
    const why = config.offline
      ? t(names.includes("traffic_flow") ? "noLiveTraffic" : "offlineBasemap")
      : `No TomTom tiles: ${config.error || config.reason || "the server sent no tile address"}.`;
    onFail(why, "none");
    return false;
  }
  let added = 0;
  for (const name of names) {
    const url = config.tiles[name];
    if (!url) continue;
    map.addSource(`tiles-${name}`, { type: "raster", tiles: [url], tileSize: 256, attribution: "© TomTom" });
    map.addLayer({ id: `tiles-${name}`, type: "raster", source: `tiles-${name}` });
    added++;
  }
  if (added === 0) {
    onFail("No TomTom tile address was configured, so only the offline map.", "none");
    return false;
  }
  status.set({ tiles: "requested" });
  renewTiles(map, config, names, status);
  let failed = false;
  let arrived = false;
  const fail = (why) => {
    if (failed) return;
    failed = true;
    onFail(`${t("tilesFailed")}${why}`, "failed");
  };
  map.on("error", (e) => {
    if (e.sourceId && e.sourceId.startsWith("tiles-")) fail(e.error && e.error.status ? ` (HTTP ${e.error.status})` : "");
  });
  map.on("sourcedata", (e) => {
    if (e.tile && e.sourceId?.startsWith("tiles-")) arrived = true;
  });
  // No tile at all after TILE_WAIT_MS on screen is a failure too (a view out of sight may load none).
  const wait = () => {
    timer = setTimeout(() => (arrived ? null : status.state.paused ? wait() : fail(` (none within ${TILE_WAIT_MS / 1000} s)`)), TILE_WAIT_MS);
  };
  let timer = null;
  wait();
  map.once("remove", () => clearTimeout(timer));
  return true;
}

function renewTiles(map, config, names, status) {
  if (!(config.expiresIn > 0 && config.renew)) return;
  const timer = setTimeout(async () => {
    const fresh = await config.renew();
    for (const name of names) {
      const source = map.getSource(`tiles-${name}`);
      if (source && fresh.tiles?.[name]) source.setTiles([fresh.tiles[name]]);
    }
    status.set((s) => ({ tilesRenewed: (s.tilesRenewed || 0) + 1 }));
    if (Object.keys(fresh.tiles || {}).length) renewTiles(map, fresh, names, status);
  }, config.expiresIn * 1000 * RENEW_AT);
  map.once("remove", () => clearTimeout(timer));
}

/** Ask every raster source for fresh tiles (live traffic), cache-busting their URLs. */
export function refreshRaster(map) {
  let n = 0;
  for (const [id, source] of Object.entries(map.getStyle().sources)) {
    if (!id.startsWith("tiles-") || !source.tiles) continue;
    const url = source.tiles[0].replace(/([?&])_=\d+&?/, "$1").replace(/[?&]$/, "");
    map.getSource(id).setTiles([`${url}${url.includes("?") ? "&" : "?"}_=${Date.now()}`]);
    n++;
  }
  return n;
}

/**
 * An HTML marker on `map` at `lngLat`, from its description `d`: {className,
 * text, color (its background), dot (the colour of a dot before the text),
 * onClick}; hidden from screen readers (the list says the same). `options` go
 * to MapLibre's Marker (anchor, offset).
 */
export function htmlMarker(map, d, lngLat, options) {
  const element = document.createElement("div");
  element.className = d.className;
  element.textContent = d.text;
  if (d.color) element.style.background = d.color;
  if (d.dot) {
    const dot = document.createElement("span");
    dot.className = "tt-dot";
    dot.style.background = d.dot;
    element.prepend(dot);
  }
  if (d.onClick) element.addEventListener("click", d.onClick);
  element.setAttribute("aria-hidden", "true");
  if (map.addMarker) return map.addMarker(element, lngLat, options);
  return new maplibregl.Marker({ element, ...options }).setLngLat(lngLat).addTo(map);
}

const OBSTACLES = "tt-obstacles";
/** Where a marker sits on its position, as fractions of its box (MapLibre's anchors). */
const ANCHOR = { center: [0.5, 0.5], left: [0, 0.5], bottom: [0.5, 1] };

/**
 * Squares covering a `w` x `h` px box placed on a position by `anchor` and `offset`, as
 * features of the obstacle layer: `s` the side, `o` the square's middle from the position
 * in sides (MapLibre multiplies `icon-offset` by `icon-size`).
 */
export function obstacleSquares(lngLat, w, h, anchor = "center", offset = [0, 0]) {
  const side = Math.min(w, h);
  if (!(side > 0)) return [];
  const [fx, fy] = ANCHOR[anchor] || ANCHOR.center;
  const left = offset[0] - fx * w;
  const mid = offset[1] - fy * h + h / 2;
  const n = Math.ceil(w / side);
  return Array.from({ length: n }, (_, i) => {
    const x = Math.min(left + side / 2 + i * side, left + w - side / 2);
    return { type: "Feature", properties: { s: side, o: [x / side, mid / side] }, geometry: { type: "Point", coordinates: lngLat } };
  });
}

/**
 * The data drawn on a map: sources, layers and HTML markers added through it
 * are removed by `clear()`, leaving the basemap and tiles. `addMarker` puts a
 * described marker on the map (`htmlMarker`; draw code creates no DOM).
 */
export function createScene(map, addMarker = htmlMarker) {
  const sources = [];
  const layers = new Map(); // id -> group
  const markers = [];
  const handlers = [];
  const data = new Map(); // source id -> features
  // What the basemap's labels keep clear of: markers and circles, as an invisible symbol layer.
  const obstacles = [];
  let flushing = false;
  const obstruct = (features) => {
    obstacles.push(...features);
    if (!flushing && features.length) {
      flushing = true;
      queueMicrotask(flush);
    }
  };
  function flush() {
    flushing = false;
    const fc = { type: "FeatureCollection", features: obstacles };
    if (map.getSource(OBSTACLES)) return map.getSource(OBSTACLES).setData(fc);
    if (!map.hasImage?.("tt-box")) map.addImage?.("tt-box", { width: 1, height: 1, data: new Uint8Array(4) });
    map.addSource(OBSTACLES, { type: "geojson", data: fc });
    sources.push(OBSTACLES);
    const layout = { "icon-image": "tt-box", "icon-size": ["get", "s"], "icon-offset": ["get", "o"], "icon-allow-overlap": true };
    map.addLayer({ id: OBSTACLES, type: "symbol", source: OBSTACLES, layout, paint: { "icon-opacity": 0 } });
    layers.set(OBSTACLES, null);
  }
  return {
    map,
    /** A GeoJSON source of `features`; `options` are MapLibre's (clustering). */
    source(id, features, options = {}) {
      map.addSource(id, { type: "geojson", data: { type: "FeatureCollection", features }, ...options });
      sources.push(id);
      data.set(id, features);
    },
    layer(spec, group) {
      map.addLayer(spec);
      layers.set(spec.id, group);
      if (spec.type !== "circle") return;
      obstruct(
        (data.get(spec.source) || []).flatMap((f) => {
          const r = evaluate(spec.paint?.["circle-radius"] ?? 5, f) + (evaluate(spec.paint?.["circle-stroke-width"] ?? 0, f) || 0);
          return f.geometry?.type === "Point" ? obstacleSquares(f.geometry.coordinates, 2 * r, 2 * r) : [];
        }),
      );
    },
    /** Track a layer added to the map directly (checked caller layers). */
    adopt(id, group) {
      layers.set(id, group);
    },
    /** A marker described by {className, text, color, onClick} at `lngLat`; `options.group` for toggles. */
    marker(description, lngLat, options = {}) {
      const m = addMarker(map, description, lngLat, options);
      markers.push({ m, group: options.group });
      const el = m.getElement();
      obstruct(obstacleSquares(lngLat, el.offsetWidth, el.offsetHeight, options.anchor, options.offset));
      return m;
    },
    on(type, layer, fn) {
      map.on(type, layer, fn);
      handlers.push([type, layer, fn]);
    },
    /** Show or hide every layer and marker of `group`. */
    setVisible(group, visible) {
      for (const [id, g] of layers) {
        if (g === group && map.getLayer(id)) map.setLayoutProperty(id, "visibility", visible ? "visible" : "none");
      }
      for (const { m, group: g } of markers) if (g === group) m.getElement().style.display = visible ? "" : "none";
    },
    clear() {
      for (const [type, layer, fn] of handlers.splice(0)) map.off(type, layer, fn);
      for (const { m } of markers.splice(0)) m.remove();
      for (const id of layers.keys()) if (map.getLayer(id)) map.removeLayer(id);
      layers.clear();
      for (const id of sources.splice(0)) if (map.getSource(id)) map.removeSource(id);
      data.clear();
      obstacles.length = 0;
    },
  };
}

/**
 * Mark the status idle once every data source (not the tiles: they may never
 * arrive, and the data draws regardless) is on the canvas. Tests wait for it.
 */
export function markIdle(map, status) {
  status.set({ idle: false });
  let ready = false;
  const check = () => {
    if (ready) {
      map.off("render", check);
      status.set({ idle: true });
      return;
    }
    const ids = Object.keys(map.getStyle().sources).filter((id) => !id.startsWith("tiles-"));
    ready = ids.every((id) => map.isSourceLoaded(id)) && !map.isMoving();
    map.triggerRepaint();
  };
  map.on("render", check);
  map.triggerRepaint();
}

/**
 * Keep the status's `camera` and the stored view state (`onChange`) in step with the
 * camera; `moving` is set while the camera is in flight (tests wait for it to land).
 */
export function trackCamera(map, status, onChange) {
  const read = () => {
    const c = map.getCenter();
    return { center: [Math.round(c.lng * 1e6) / 1e6, Math.round(c.lat * 1e6) / 1e6], zoom: Math.round(map.getZoom() * 1000) / 1000, bearing: Math.round(map.getBearing() * 10) / 10 };
  };
  map.on("movestart", () => status.set({ moving: true }));
  map.on("moveend", () => {
    const camera = read();
    status.set({ moving: false, camera });
    onChange(camera);
  });
  status.set({ camera: read() });
}

/** Put the camera where a stored view state left it. */
export function restoreCamera(map, camera) {
  if (!camera || !Array.isArray(camera.center) || !Number.isFinite(camera.zoom)) return false;
  map.resize();
  map.jumpTo({ center: camera.center, zoom: camera.zoom, bearing: Number.isFinite(camera.bearing) ? camera.bearing : 0 });
  return true;
}

/** What floats over the map: the view's panels and MapLibre's controls (the data is fitted clear of them). */
const PANELS = [
  "#title",
  "#legend",
  "#legend-fold",
  "#stage #notes > *",
  "#fullscreen",
  ".maplibregl-ctrl-top-right .maplibregl-ctrl",
  ".maplibregl-ctrl-bottom-right .maplibregl-ctrl",
].join(", ");
/** Room left between a panel and a position of the data, in px: half a stop pin, and a little. */
const GAP = 14;

/**
 * Padding for a `width` x `height` frame that keeps the data clear of every
 * panel in `boxes` ({left, top, right, bottom}, px from the frame's top left):
 * the largest panel first, each on the side of the frame that costs the least
 * room. A panel that would leave the data less than a third of the frame either
 * way is left where it is (on a frame that small, the legend is folded).
 */
export function padFor(width, height, boxes, base) {
  const pad = { top: base, right: base, bottom: base, left: base };
  const area = (p) => Math.max(0, width - p.left - p.right) * Math.max(0, height - p.top - p.bottom);
  const roomy = (p) => width - p.left - p.right >= width / 3 && height - p.top - p.bottom >= height / 3;
  // A position at the edge of the padded frame is drawn as a pin around it: keep GAP from each panel.
  const grown = boxes.map((b) => ({ left: b.left - GAP, top: b.top - GAP, right: b.right + GAP, bottom: b.bottom + GAP }));
  const big = grown.sort((a, b) => (b.right - b.left) * (b.bottom - b.top) - (a.right - a.left) * (a.bottom - a.top));
  for (const b of big) {
    const clear = b.right <= pad.left || b.left >= width - pad.right || b.bottom <= pad.top || b.top >= height - pad.bottom;
    if (clear) continue;
    const sides = { top: b.bottom, bottom: height - b.top, left: b.right, right: width - b.left };
    const options = Object.entries(sides)
      .map(([side, room]) => ({ ...pad, [side]: Math.max(pad[side], Math.ceil(room)) }))
      .filter(roomy)
      .sort((p, q) => area(q) - area(p));
    if (options.length) Object.assign(pad, options[0]);
  }
  return pad;
}

/** The boxes of the panels over `map`, in px from its container's top left. */
function panelBoxes(map) {
  const frame = map.getContainer();
  const origin = frame.getBoundingClientRect?.() || { left: 0, top: 0 };
  return [...document.querySelectorAll(PANELS)]
    .filter((el) => !el.hidden && el.offsetHeight && el.offsetWidth)
    .map((el) => {
      const r = el.getBoundingClientRect();
      return { left: r.left - origin.left, top: r.top - origin.top, right: r.right - origin.left, bottom: r.bottom - origin.top };
    });
}

/** The padding that keeps what `map` shows clear of its panels (`base` px at least). */
export function framePadding(map, base = 48) {
  const frame = map.getContainer();
  const W = frame.clientWidth;
  const H = frame.clientHeight;
  return padFor(W, H, panelBoxes(map), Math.max(8, Math.min(base, W / 8, H / 8)));
}

/** The offline basemap's detail ends about here: a single position on it is shown no closer. */
export const BASEMAP_MAX_ZOOM = 10;
/** Degrees either way a single position's context reaches at most (a zoom of about 5). */
const CONTEXT_REACH = 8;

/**
 * The box to show a single position [lon, lat] in on the offline basemap: centred on
 * it and reaching the nearest of the basemap's cities beyond 10 km, so that the map
 * says where it is.
 */
export function contextBox([lon, lat]) {
  const city = nearestCity([lon, lat], 10);
  const dx = Math.min(CONTEXT_REACH, city ? Math.abs(city[0] - lon) : CONTEXT_REACH);
  const dy = Math.min(CONTEXT_REACH, city ? Math.abs(city[1] - lat) : CONTEXT_REACH);
  return [lon - dx, lat - dy, lon + dx, lat + dy];
}

/**
 * Fit the view to `box`, clear of the title, legend, notes and controls that
 * float over the map (`framePadding`: measured, so whatever their size). A single
 * position is shown at street level over tiles, and with the places around it
 * on the offline basemap alone (`contextBox`).
 */
export function fit(map, box, padding = 48) {
  if (!box) return;
  map.resize(); // the list beside the map may just have appeared
  const single = box[0] === box[2] && box[1] === box[3];
  const tiles = Object.keys(map.getStyle().sources).some((id) => id.startsWith("tiles-"));
  const [w, s, e, n] = single && !tiles ? contextBox(box) : box;
  map.fitBounds(
    [
      [w, s],
      [e, n],
    ],
    { padding: framePadding(map, padding), maxZoom: single ? (tiles ? 14 : BASEMAP_MAX_ZOOM) : 16, duration: 0 },
  );
}

/** Fly to an item (its bbox or position), as a selection from the list does, clear of the panels. */
export function flyTo(map, item) {
  const pad = framePadding(map);
  if (item.bbox) {
    const [w, s, e, n] = item.bbox;
    map.fitBounds([[w, s], [e, n]], { padding: pad, maxZoom: 15, duration: 400 });
  } else if (item.position) {
    // The middle of the room the panels leave, not of the frame (an offset moves no padding into the map).
    const offset = [(pad.left - pad.right) / 2, (pad.top - pad.bottom) / 2];
    map.easeTo({ center: item.position, zoom: Math.max(map.getZoom(), 13), offset, duration: 400 });
  }
}

let openPopup = null;

/** One popup at a time, for the selected item: its name, facts and links (buttons through `onLink`). */
export function showPopup(map, item, { t, onLink, status }) {
  openPopup?.remove();
  const at = item.position || (item.bbox ? [(item.bbox[0] + item.bbox[2]) / 2, (item.bbox[1] + item.bbox[3]) / 2] : null);
  if (!at) return;
  const el = document.createElement("div");
  const facts = Object.entries(item.facts || {})
    .filter(([, v]) => v)
    .map(([k, v]) => `<div><span class="muted">${escapeHtml(k)}</span> ${escapeHtml(v)}</div>`)
    .join("");
  el.innerHTML =
    `<strong>${escapeHtml(item.name)}</strong>${item.address ? `<div>${escapeHtml(item.address)}</div>` : ""}` +
    (item.sub ? `<div class="muted">${escapeHtml(item.sub)}</div>` : "") +
    facts +
    (item.position
      ? `<div class="tt-links"><button type="button" data-link="place">${escapeHtml(t("openInTomTom"))}</button>` +
        `<button type="button" data-link="directions">${escapeHtml(t("directions"))}</button></div>`
      : "");
  el.addEventListener("click", (e) => {
    const b = e.target.closest("button[data-link]");
    if (b) onLink(b.dataset.link, item);
  });
  openPopup = map.addPopup
    ? map.addPopup(el, at, { maxWidth: "260px" })
    : new maplibregl.Popup({ closeButton: true, maxWidth: "260px", focusAfterOpen: false }).setLngLat(at).setDOMContent(el).addTo(map);
  status.set({ popup: item.id });
  openPopup.on("close", () => {
    if (status.state.popup === item.id) status.set({ popup: null });
  });
}

/** Clicking a feature of `layer` selects its item (the feature's `key` property); the pointer says it can. */
export function selectOnClick(scene, layer, select, key = "item") {
  scene.on("click", layer, (e) => {
    const f = e.features && e.features[0];
    if (f?.properties?.[key]) select(f.properties[key]);
  });
  scene.on("mouseenter", layer, () => (scene.map.getCanvas().style.cursor = "pointer"));
  scene.on("mouseleave", layer, () => (scene.map.getCanvas().style.cursor = ""));
}

/** One line layer per dash pattern (`dash` property), so patterns need no data-driven dasharray. */
export function dashedLines(scene, id, source, group, width, extraFilter = null) {
  for (const [dash, array] of DASH_LAYERS) {
    const filter = ["==", ["get", "dash"], dash];
    scene.layer(
      {
        id: `${id}-${dash}`,
        type: "line",
        source,
        filter: extraFilter ? ["all", filter, extraFilter] : filter,
        layout: dash === "solid" ? { "line-join": "round", "line-cap": "round" } : {},
        paint: { "line-color": ["get", "color"], "line-width": width, ...(array ? { "line-dasharray": array } : {}) },
      },
      group,
    );
  }
}

export function casingColor(theme) {
  return CASING[theme] || CASING.light;
}

/** The map canvas's text alternative: what is drawn, in words (also read by screen readers from #map-summary). */
export function describe(map, text) {
  map.getCanvas().setAttribute("aria-label", text);
  map.getCanvas().setAttribute("role", "img");
  document.getElementById("map-summary").textContent = text;
}
