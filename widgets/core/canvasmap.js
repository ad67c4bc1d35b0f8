/**
 * The worker-free renderer: the part of MapLibre's `Map` the views use, drawn
 * on a 2D canvas, for a host where MapLibre cannot start (a policy with no
 * worker source, no WebGL, a refused resource). Sources, layers styled by
 * expressions (expr.js), label placement that keeps clear of what is drawn
 * above, raster tiles, HTML markers and popups, the camera in MapLibre's Web
 * Mercator of 512 px tiles, pan and zoom by pointer, wheel, keys and buttons,
 * and clicks on layers; no rotation, pitch or terrain (docs/views.md).
 */
import { evaluate, matches } from "./expr.js";

const TILE = 512;
const MAX_ZOOM = 20;
const ANCHORS = { center: [-0.5, -0.5], left: [0, -0.5], right: [-1, -0.5], top: [-0.5, 0], bottom: [-0.5, -1] };
/** A press that moves less than this (px) is a click. */
const CLICK_SLOP = 4;
/** Raster tiles kept decoded. */
const TILE_CACHE = 256;
const TYPES = ["background", "fill", "line", "circle", "symbol", "raster", "heatmap", "fill-extrusion"];
/** Array-valued properties are literals unless they start with one of these operators. */
const EXPRESSION = /^(literal|get|case|match|step|interpolate|coalesce)$/;

/** [lon, lat] as MapLibre's world at zoom 0, scaled to 0..1 either way (Web Mercator). */
export function project([lon, lat]) {
  const s = Math.sin((Math.max(-85.0511, Math.min(85.0511, lat)) * Math.PI) / 180);
  return [(lon + 180) / 360, 0.5 - Math.log((1 + s) / (1 - s)) / (4 * Math.PI)];
}

/** The inverse of `project`. */
export function unproject([x, y]) {
  return [x * 360 - 180, (360 / Math.PI) * Math.atan(Math.exp((0.5 - y) * 2 * Math.PI)) - 90];
}

/** A GeoJSON geometry as {type (Point, LineString or Polygon), parts in world units, bbox}; collections flattened. */
export function prepare(geometry) {
  if (!geometry) return [];
  if (geometry.type === "GeometryCollection") return geometry.geometries.flatMap(prepare);
  const c = geometry.coordinates;
  const kind = geometry.type.replace("Multi", "");
  const flat = { Point: (x) => [x], MultiPoint: (x) => x, LineString: (x) => [x], MultiLineString: (x) => x, Polygon: (x) => [x], MultiPolygon: (x) => x }[geometry.type];
  if (!flat) return [];
  const bbox = [Infinity, Infinity, -Infinity, -Infinity];
  const at = (p) => {
    const q = project(p);
    bbox[0] = Math.min(bbox[0], q[0]);
    bbox[1] = Math.min(bbox[1], q[1]);
    bbox[2] = Math.max(bbox[2], q[0]);
    bbox[3] = Math.max(bbox[3], q[1]);
    return q;
  };
  const parts = flat(c).map((part) => (kind === "Point" ? at(part) : kind === "LineString" ? part.map(at) : part.map((ring) => ring.map(at))));
  return [{ type: kind, parts, bbox }];
}

/** Whether boxes `a` and `b` ({x0, y0, x1, y1}) overlap. */
export const overlaps = (a, b) => a.x0 < b.x1 && b.x0 < a.x1 && a.y0 < b.y1 && b.y0 < a.y1;

/** The box of a `w` x `h` label whose `anchor` (the side of it on its point) is at (x, y). */
export function labelBox(x, y, w, h, anchor) {
  const [ax, ay] = ANCHORS[anchor] || ANCHORS.center;
  const x0 = x + ax * w;
  const y0 = y + ay * h;
  return { x0, y0, x1: x0 + w, y1: y0 + h };
}

/**
 * The box of a `w` x `h` label of a point at (x, y): the first of `candidates`
 * ([anchor, [dx, dy] px]) that keeps clear of every box in `taken`; null when none does.
 */
export function placeLabel(x, y, w, h, candidates, taken) {
  for (const [anchor, [dx, dy]] of candidates) {
    const box = labelBox(x + dx, y + dy, w, h, anchor);
    if (!taken.some((t) => overlaps(t, box))) return box;
  }
  return null;
}

/**
 * A symbol layer's places for a label of `size` px, as MapLibre reads them: anchors with
 * their offsets (`text-variable-anchor-offset`), anchors at a radial offset, or one anchor.
 */
function candidatesOf(get, size) {
  const pairs = get("text-variable-anchor-offset", null);
  if (pairs) return pairs.flatMap((v, i) => (i % 2 ? [] : [[v, pairs[i + 1].map((o) => o * size)]]));
  const r = get("text-radial-offset", 0) * size;
  const radial = { top: [0, r], bottom: [0, -r], left: [r, 0], right: [-r, 0], center: [0, 0] };
  const variable = get("text-variable-anchor", null);
  if (variable) return variable.map((a) => [a, radial[a] || [0, 0]]);
  return [[get("text-anchor", "center"), get("text-offset", [0, 0]).map((o) => o * size)]];
}

/** Squared distance from p to the segment a-b (px). */
function segmentDistance2([px, py], [ax, ay], [bx, by]) {
  const dx = bx - ax;
  const dy = by - ay;
  const t = dx || dy ? Math.max(0, Math.min(1, ((px - ax) * dx + (py - ay) * dy) / (dx * dx + dy * dy))) : 0;
  return (px - ax - t * dx) ** 2 + (py - ay - t * dy) ** 2;
}

/** Whether p is inside the rings (even-odd), all in one coordinate space. */
function inside([px, py], rings) {
  let odd = false;
  for (const ring of rings) {
    for (let i = 0, j = ring.length - 1; i < ring.length; j = i++) {
      const [xi, yi] = ring[i];
      const [xj, yj] = ring[j];
      if (yi > py !== yj > py && px < ((xj - xi) * (py - yi)) / (yj - yi) + xi) odd = !odd;
    }
  }
  return odd;
}

const el = (tag, className, parent) => {
  const e = document.createElement(tag);
  if (className) e.className = className;
  parent?.append(e);
  return e;
};

/**
 * A map on `container` drawing `style` ({sources, layers}, MapLibre's form) with the
 * worker-free renderer; `fallback` says why it runs (the view reports it). Emits
 * `load` after its first frame.
 */
export function createCanvasMap(container, style, { fallback = "", attribution = "" } = {}) {
  container.classList.add("maplibregl-map");
  const canvas = el("canvas", "maplibregl-canvas", container);
  canvas.tabIndex = 0;
  canvas.setAttribute("aria-label", "Map");
  const g = canvas.getContext("2d");
  const controls = el("div", "maplibregl-control-container", container);
  const zoomGroup = el("div", "maplibregl-ctrl maplibregl-ctrl-group", el("div", "maplibregl-ctrl-top-right", controls));
  const attrib = el("div", "maplibregl-ctrl maplibregl-ctrl-attrib", el("div", "maplibregl-ctrl-bottom-right", controls));
  const sources = new Map();
  const layers = [];
  const handlers = [];
  const overlays = new Set(); // markers and popups: {el, at: [x, y], anchor, offset}
  const cam = { x: 0.5, y: 0.5, z: 1 };
  let W = 0;
  let H = 0;
  let frame = 0;
  let anim = null;
  let moving = false;
  let loaded = false;
  let removed = false;
  let hovered = new Set();

  const worldSize = () => TILE * 2 ** cam.z;
  const toScreen = ([x, y], shift = 0) => [(x + shift - cam.x) * worldSize() + W / 2, (y - cam.y) * worldSize() + H / 2];
  const toWorld = ([px, py]) => [cam.x + (px - W / 2) / worldSize(), cam.y + (py - H / 2) / worldSize()];
  const emit = (type, event = {}) => {
    for (const h of handlers.filter((h) => h.type === type && !h.layer)) h.fn({ type, target: map, ...event });
  };
  const paint = (layer, key, f, fallback) => evaluate(layer.paint[key], f, cam.z) ?? fallback;
  const layout = (layer, key, f, fallback) => evaluate(layer.layout[key], f, cam.z) ?? fallback;
  /** An array-valued property (a dash pattern, an offset, anchors, fonts): a literal, or an expression's value. */
  const list = (layer, group, key, f, fallback) => {
    const v = layer[group][key];
    return v === undefined ? fallback : Array.isArray(v) && EXPRESSION.test(v[0]) ? (evaluate(v, f, cam.z) ?? fallback) : v;
  };
  const font = (layer, f, size) => `${size}px ${list(layer, "layout", "text-font", f, ["sans-serif"])[0]}`;
  const visible = (layer) => layer.layout?.visibility !== "none" && cam.z >= (layer.minzoom ?? 0) && cam.z < (layer.maxzoom ?? 99);

  /** The world copies (shifts in world units) on which a box [x0, y0, x1, y1] shows. */
  function copies(bbox) {
    const half = W / 2 / worldSize();
    const out = [];
    for (let k = Math.ceil(cam.x - half - bbox[2]); k <= Math.floor(cam.x + half - bbox[0]); k++) out.push(k);
    return out;
  }

  /** The features of `layer` that pass its filter, each with its prepared geometry. */
  function itemsOf(layer) {
    const source = sources.get(layer.source);
    return (source?.items || []).filter((it) => matches(layer.filter, it.f, cam.z));
  }

  function applyStroke(layer, f, width) {
    g.lineWidth = width;
    g.lineCap = layout(layer, "line-cap", f, "butt");
    g.lineJoin = layout(layer, "line-join", f, "miter");
    const dash = list(layer, "paint", "line-dasharray", f, null);
    g.setLineDash(Array.isArray(dash) ? dash.map((v) => v * width) : []);
  }

  function tracePath(rings, shift) {
    for (const ring of rings) {
      ring.forEach((p, i) => {
        const [sx, sy] = toScreen(p, shift);
        if (i) g.lineTo(sx, sy);
        else g.moveTo(sx, sy);
      });
    }
  }

  function drawShape(layer, it, shift) {
    const { f, type, parts } = it;
    const t = layer.type;
    if (t === "circle" || t === "heatmap") {
      if (type !== "Point") return;
      const heat = t === "heatmap";
      const r = heat ? paint(layer, "heatmap-radius", f, 30) / 2 : paint(layer, "circle-radius", f, 5);
      const sw = heat ? 0 : paint(layer, "circle-stroke-width", f, 0);
      for (const p of parts) {
        const [sx, sy] = toScreen(p, shift);
        g.beginPath();
        g.arc(sx, sy, r, 0, 2 * Math.PI);
        g.globalAlpha = heat ? 0.25 * paint(layer, "heatmap-opacity", f, 1) : paint(layer, "circle-opacity", f, 1);
        g.fillStyle = heat ? "#d1242f" : paint(layer, "circle-color", f, "#000");
        g.fill();
        if (sw > 0) {
          g.globalAlpha = paint(layer, "circle-stroke-opacity", f, 1);
          g.lineWidth = sw;
          g.setLineDash([]);
          g.strokeStyle = paint(layer, "circle-stroke-color", f, "#000");
          g.stroke();
        }
      }
    } else if (t === "line") {
      if (type === "Point") return;
      g.beginPath();
      for (const part of parts) tracePath(type === "Polygon" ? part : [part], shift);
      g.globalAlpha = paint(layer, "line-opacity", f, 1);
      g.strokeStyle = paint(layer, "line-color", f, "#000");
      applyStroke(layer, f, paint(layer, "line-width", f, 1));
      g.stroke();
    } else if (t === "fill" || t === "fill-extrusion") {
      if (type !== "Polygon") return;
      g.beginPath();
      for (const part of parts) tracePath(part, shift);
      g.globalAlpha = paint(layer, `${t}-opacity`, f, 1);
      g.fillStyle = paint(layer, `${t}-color`, f, "#000");
      g.fill("evenodd");
      const outline = t === "fill" && paint(layer, "fill-outline-color", f, null);
      if (outline) {
        g.lineWidth = 1;
        g.setLineDash([]);
        g.strokeStyle = outline;
        g.stroke();
      }
    }
  }

  /** Where every symbol of every layer goes, top layer first (MapLibre's priority): {layerId: [{text, box}]}. */
  function placeSymbols() {
    const taken = [];
    const placed = new Map();
    for (const layer of [...layers].reverse()) {
      if (layer.type !== "symbol" || !visible(layer)) continue;
      const out = [];
      placed.set(layer.id, out);
      const items = itemsOf(layer).sort((a, b) => layout(layer, "symbol-sort-key", a.f, 0) - layout(layer, "symbol-sort-key", b.f, 0));
      for (const it of items) {
        const f = it.f;
        const [bx0, by0, bx1, by1] = it.bbox;
        const centre = it.type === "Point" ? it.parts[0] : [(bx0 + bx1) / 2, (by0 + by1) / 2];
        const shift = copies(it.bbox).sort((a, b) => Math.abs(a + centre[0] - cam.x) - Math.abs(b + centre[0] - cam.x))[0];
        if (shift === undefined) continue;
        const [x, y] = toScreen(centre, shift);
        if (x < -50 || y < -50 || x > W + 50 || y > H + 50) continue;
        const text = String(layout(layer, "text-field", f, "") ?? "");
        const icon = layout(layer, "icon-image", f, null);
        const size = text ? layout(layer, "text-size", f, 16) : layout(layer, "icon-size", f, 1);
        const overlap = layout(layer, text ? "text-allow-overlap" : "icon-allow-overlap", f, false);
        const ignore = layout(layer, text ? "text-ignore-placement" : "icon-ignore-placement", f, false);
        let box;
        if (text) {
          g.font = font(layer, f, size);
          const w = g.measureText(text).width + 2;
          const h = size * 1.2;
          const candidates = candidatesOf((key, fallback) => list(layer, "layout", key, f, fallback), size);
          box = placeLabel(x, y, w, h, overlap ? candidates.slice(0, 1) : candidates, overlap ? [] : taken);
        } else if (icon) {
          const [ox, oy] = list(layer, "layout", "icon-offset", f, [0, 0]);
          box = labelBox(x + ox * size, y + oy * size, size, size, "center");
          if (!overlap && taken.some((t) => overlaps(t, box))) box = null;
        }
        if (!box) continue;
        if (!ignore) taken.push(box);
        if (text) out.push({ text, box, f, size });
      }
    }
    return placed;
  }

  function drawLabels(layer, labels) {
    for (const { text, box, f, size } of labels || []) {
      g.globalAlpha = paint(layer, "text-opacity", f, 1);
      g.font = font(layer, f, size);
      g.textAlign = "center";
      g.textBaseline = "middle";
      const x = (box.x0 + box.x1) / 2;
      const y = (box.y0 + box.y1) / 2;
      const halo = paint(layer, "text-halo-width", f, 0);
      if (halo > 0) {
        g.lineWidth = halo * 2;
        g.setLineDash([]);
        g.lineJoin = "round";
        g.strokeStyle = paint(layer, "text-halo-color", f, "#fff");
        g.strokeText(text, x, y);
      }
      g.fillStyle = paint(layer, "text-color", f, "#000");
      g.fillText(text, x, y);
    }
  }

  /** The raster tiles of `layer` in view, each drawn once decoded (a failure is an `error` event, once per tile). */
  function drawRaster(layer) {
    const source = sources.get(layer.source);
    const template = source?.spec.tiles?.[0];
    if (!template) return;
    const size = source.spec.tileSize || TILE;
    const tz = Math.max(0, Math.min(22, Math.round(cam.z + Math.log2(TILE / size))));
    const n = 2 ** tz;
    const [wx0, wy0] = toWorld([0, 0]);
    const [wx1, wy1] = toWorld([W, H]);
    g.globalAlpha = paint(layer, "raster-opacity", {}, 1);
    for (let tx = Math.floor(wx0 * n); tx <= Math.floor(wx1 * n); tx++) {
      for (let ty = Math.max(0, Math.floor(wy0 * n)); ty <= Math.min(n - 1, Math.floor(wy1 * n)); ty++) {
        const x = ((tx % n) + n) % n;
        const key = `${tz}/${x}/${ty}`;
        let tile = source.cache.get(key);
        if (!tile) {
          tile = { image: null };
          source.cache.set(key, tile);
          if (source.cache.size > TILE_CACHE) source.cache.delete(source.cache.keys().next().value);
          loadTile(layer.source, source, template.replace("{z}", tz).replace("{x}", x).replace("{y}", ty), tile);
        }
        if (!tile.image) continue;
        const [sx, sy] = toScreen([tx / n, ty / n]);
        const side = worldSize() / n;
        g.drawImage(tile.image, sx, sy, side + 0.5, side + 0.5);
      }
    }
  }

  async function loadTile(id, source, url, tile) {
    try {
      const answer = await fetch(url);
      if (!answer.ok) throw Object.assign(new Error(`HTTP ${answer.status}`), { status: answer.status });
      tile.image = await createImageBitmap(await answer.blob());
      if (sources.get(id) !== source) return;
      emit("sourcedata", { sourceId: id, tile: true });
      redraw();
    } catch (error) {
      if (!removed) emit("error", { sourceId: id, error });
    }
  }

  function placeOverlays() {
    for (const o of overlays) {
      const shift = Math.round(cam.x - o.at[0]);
      const [x, y] = toScreen(o.at, shift);
      const [ax, ay] = ANCHORS[o.anchor] || ANCHORS.center;
      const [dx, dy] = o.offset || [0, 0];
      o.el.style.transform = `translate(${x + dx}px,${y + dy}px) translate(${ax * 100}%,${ay * 100}%)`;
    }
  }

  function render() {
    frame = 0;
    if (removed) return;
    if (anim) step();
    const ratio = globalThis.devicePixelRatio || 1;
    g.setTransform(ratio, 0, 0, ratio, 0, 0);
    g.clearRect(0, 0, W, H);
    const symbols = placeSymbols();
    for (const layer of layers) {
      if (!visible(layer)) continue;
      g.globalAlpha = 1;
      if (layer.type === "background") {
        g.fillStyle = paint(layer, "background-color", {}, "#000");
        g.fillRect(0, 0, W, H);
      } else if (layer.type === "raster") {
        drawRaster(layer);
      } else if (layer.type === "symbol") {
        drawLabels(layer, symbols.get(layer.id));
      } else {
        for (const it of itemsOf(layer)) for (const k of copies(it.bbox)) drawShape(layer, it, k);
      }
    }
    g.globalAlpha = 1;
    placeOverlays();
    emit("render");
    if (!loaded) {
      loaded = true;
      emit("load");
    }
  }

  function redraw() {
    if (!frame && !removed) frame = requestAnimationFrame(render);
  }

  function resize() {
    W = container.clientWidth;
    H = container.clientHeight;
    const ratio = globalThis.devicePixelRatio || 1;
    canvas.width = Math.max(1, Math.round(W * ratio));
    canvas.height = Math.max(1, Math.round(H * ratio));
    canvas.style.width = `${W}px`;
    canvas.style.height = `${H}px`;
    constrain();
    redraw();
  }

  /** Keep the camera on the world: zoom within bounds, the poles not past the frame, the centre's longitude wrapped. */
  function constrain() {
    cam.z = Math.max(0, Math.min(MAX_ZOOM, cam.z));
    const half = H / 2 / worldSize();
    cam.y = half >= 0.5 ? 0.5 : Math.max(half, Math.min(1 - half, cam.y));
    cam.x -= Math.floor(cam.x);
  }

  function setCamera(x, y, z) {
    Object.assign(cam, { x, y, z });
    constrain();
    emit("move");
    redraw();
  }

  function start() {
    if (moving) return;
    moving = true;
    emit("movestart");
  }

  function end() {
    if (!moving) return;
    moving = false;
    emit("moveend");
  }

  /** Move the camera to `to` ({x, y, z} world units) over `duration` ms, easing out. */
  function moveTo(to, duration = 0) {
    anim = null;
    start();
    if (!duration) {
      setCamera(to.x, to.y, to.z);
      return end();
    }
    // Across the antimeridian the short way round.
    const x = to.x - Math.round(to.x - cam.x);
    anim = { from: { ...cam }, to: { ...to, x }, t0: performance.now(), duration };
    redraw();
  }

  function step() {
    const t = Math.min(1, (performance.now() - anim.t0) / anim.duration);
    const e = 1 - (1 - t) ** 3;
    const { from, to } = anim;
    Object.assign(cam, { x: from.x + (to.x - from.x) * e, y: from.y + (to.y - from.y) * e, z: from.z + (to.z - from.z) * e });
    constrain();
    emit("move");
    if (t < 1) return redraw();
    anim = null;
    end();
  }

  /** Zoom by `dz` keeping the screen point `at` where it is. */
  function zoomAround(dz, at = [W / 2, H / 2], duration = 0) {
    const z = Math.max(0, Math.min(MAX_ZOOM, cam.z + dz));
    const [wx, wy] = toWorld(at);
    const scale = 2 ** (cam.z - z);
    moveTo({ x: wx - (wx - cam.x) * scale, y: wy - (wy - cam.y) * scale, z }, duration);
  }

  /** The features of layers with `type` handlers under the screen point `p`: [[layerId, feature], ...], top first. */
  function hits(p, type) {
    const wanted = new Set(handlers.filter((h) => h.type === type && h.layer).map((h) => h.layer));
    const out = [];
    for (const layer of [...layers].reverse()) {
      if (!wanted.has(layer.id) || !visible(layer)) continue;
      const it = itemsOf(layer).find((it) => copies(it.bbox).some((k) => hit(layer, it, k, p)));
      if (it) out.push([layer.id, it.f]);
    }
    return out;
  }

  function hit(layer, it, shift, p) {
    const { f, type, parts } = it;
    if (layer.type === "circle" && type === "Point") {
      const r = paint(layer, "circle-radius", f, 5) + paint(layer, "circle-stroke-width", f, 0) + 2;
      return parts.some((q) => {
        const [sx, sy] = toScreen(q, shift);
        return (sx - p[0]) ** 2 + (sy - p[1]) ** 2 <= r * r;
      });
    }
    if (layer.type === "line" && type !== "Point") {
      const w = paint(layer, "line-width", f, 1) / 2 + 3;
      const lines = type === "Polygon" ? parts.flat() : parts;
      return lines.some((line) => line.some((q, i) => i > 0 && segmentDistance2(p, toScreen(line[i - 1], shift), toScreen(q, shift)) <= w * w));
    }
    if (layer.type === "fill" && type === "Polygon") {
      const [wx, wy] = toWorld(p);
      return parts.some((rings) => inside([wx - shift, wy], rings));
    }
    return false;
  }

  function fire(type, p, event) {
    const lngLat = unproject(toWorld(p));
    const at = { lngLat: { lng: lngLat[0], lat: lngLat[1] }, point: { x: p[0], y: p[1] }, originalEvent: event };
    for (const [layerId, f] of hits(p, type)) {
      for (const h of handlers.filter((h) => h.type === type && h.layer === layerId)) h.fn({ type, features: [f], ...at });
    }
    emit(type, at);
  }

  function hover(p) {
    const now = new Set(hits(p, "mouseenter").map(([id]) => id));
    for (const id of new Set([...now, ...hovered])) {
      const type = now.has(id) ? (hovered.has(id) ? null : "mouseenter") : "mouseleave";
      if (type) for (const h of handlers.filter((h) => h.type === type && h.layer === id)) h.fn({ type });
    }
    hovered = now;
  }

  // Pan with one pointer, pinch with two; a press that barely moves is a click.
  const pointers = new Map();
  let press = null;
  const local = (e) => {
    const r = canvas.getBoundingClientRect();
    return [e.clientX - r.left, e.clientY - r.top];
  };
  canvas.addEventListener("pointerdown", (e) => {
    canvas.setPointerCapture?.(e.pointerId);
    pointers.set(e.pointerId, local(e));
    press = { at: local(e), moved: false, pinch: pointers.size > 1 };
    anim = null;
  });
  canvas.addEventListener("pointermove", (e) => {
    const p = local(e);
    if (!pointers.has(e.pointerId)) return hover(p);
    const before = pointers.get(e.pointerId);
    const others = [...pointers].filter(([id]) => id !== e.pointerId).map(([, q]) => q);
    pointers.set(e.pointerId, p);
    if (Math.hypot(p[0] - press.at[0], p[1] - press.at[1]) > CLICK_SLOP) press.moved = true;
    if (!press.moved) return;
    start();
    if (others.length) {
      const [q] = others;
      const ratio = Math.hypot(p[0] - q[0], p[1] - q[1]) / Math.max(1, Math.hypot(before[0] - q[0], before[1] - q[1]));
      const mid = [(p[0] + q[0]) / 2, (p[1] + q[1]) / 2];
      const [wx, wy] = toWorld(mid);
      const z = Math.max(0, Math.min(MAX_ZOOM, cam.z + Math.log2(ratio)));
      const scale = 2 ** (cam.z - z);
      setCamera(wx - (wx - cam.x) * scale, wy - (wy - cam.y) * scale, z);
    } else {
      const ws = worldSize();
      setCamera(cam.x - (p[0] - before[0]) / ws, cam.y - (p[1] - before[1]) / ws, cam.z);
    }
  });
  const release = (e) => {
    if (!pointers.delete(e.pointerId)) return;
    if (press && !press.moved && !press.pinch && e.type === "pointerup") fire("click", local(e), e);
    // A drag's move ends here; a click's may have started a flight, which ends by itself.
    if (!pointers.size && press?.moved && !anim) end();
  };
  canvas.addEventListener("pointerup", release);
  canvas.addEventListener("pointercancel", release);
  canvas.addEventListener("dblclick", (e) => zoomAround(1, local(e), 250));
  canvas.addEventListener(
    "wheel",
    (e) => {
      e.preventDefault();
      const dz = (-e.deltaY * (e.deltaMode === 1 ? 40 : 1)) / 300;
      zoomAround(Math.max(-1, Math.min(1, dz)), local(e));
    },
    { passive: false },
  );
  canvas.addEventListener("keydown", (e) => {
    const pan = { ArrowLeft: [-100, 0], ArrowRight: [100, 0], ArrowUp: [0, -100], ArrowDown: [0, 100] }[e.key];
    if (pan) {
      const ws = worldSize();
      moveTo({ x: cam.x + pan[0] / ws, y: cam.y + pan[1] / ws, z: cam.z }, 200);
    } else if (e.key === "+" || e.key === "=" || e.key === "-") {
      zoomAround(e.key === "-" ? -1 : 1, undefined, 200);
    } else return;
    e.preventDefault();
  });
  for (const [sign, label, text] of [
    [1, "Zoom in", "+"],
    [-1, "Zoom out", "−"],
  ]) {
    const b = el("button", `maplibregl-ctrl-zoom-${sign > 0 ? "in" : "out"} tt-zoom`, zoomGroup);
    b.type = "button";
    b.textContent = text;
    b.title = label;
    b.setAttribute("aria-label", label);
    b.addEventListener("click", () => zoomAround(sign, undefined, 250));
  }

  function sourceOf(id, spec) {
    const source = { spec, items: [], cache: new Map() };
    source.setData = (data) => {
      spec.data = data;
      const features = !data ? [] : data.type === "FeatureCollection" ? data.features : data.type === "Feature" ? [data] : [{ type: "Feature", geometry: data }];
      source.items = features.flatMap((f) => prepare(f.geometry).map((p) => ({ f: { ...f, properties: f.properties || {} }, ...p })));
      redraw();
    };
    source.setTiles = (tiles) => {
      spec.tiles = tiles;
      source.cache.clear();
      redraw();
    };
    source.setData(spec.data);
    return source;
  }

  /** Why MapLibre would refuse layer `spec`, in its words; null when it would take it. */
  function refusal(spec) {
    const at = `layers.${spec.id}`;
    if (!TYPES.includes(spec.type)) return `${at}: unknown type "${spec.type}"`;
    if (spec.type !== "background" && !sources.has(spec.source)) return `${at}: source "${spec.source}" not found`;
    for (const [key, value] of Object.entries(spec.paint || {})) {
      const own = spec.type === "symbol" ? /^(text|icon)-/.test(key) : key.startsWith(`${spec.type}-`);
      if (!own) return `${at}.paint.${key}: unknown property "${key}"`;
      if (/(width|radius|opacity|height)$/.test(key) && typeof value !== "number" && !Array.isArray(value)) {
        return `${at}.paint.${key}: number expected, ${typeof value} found`;
      }
    }
    return null;
  }

  function attributions() {
    const names = new Set([attribution, ...[...sources.values()].map((s) => s.spec.attribution)].filter(Boolean));
    attrib.textContent = [...names].join(" | ");
  }

  const map = {
    /** Why the worker-free renderer draws this map (MapLibre could not start). */
    fallback,
    addSource(id, spec) {
      if (sources.has(id)) throw new Error(`There is already a source with ID "${id}".`);
      sources.set(id, sourceOf(id, { ...spec }));
      attributions();
    },
    getSource: (id) => sources.get(id),
    removeSource(id) {
      sources.delete(id);
      attributions();
      redraw();
    },
    /** Adds `spec` on top (or under `before`); a layer MapLibre would refuse is an `error` event, not a throw. */
    addLayer(spec, before) {
      const refused = refusal(spec);
      if (refused) return void emit("error", { error: new Error(refused) });
      if (layers.some((l) => l.id === spec.id)) throw new Error(`Layer "${spec.id}" already exists.`);
      const layer = { ...spec, paint: { ...spec.paint }, layout: { ...spec.layout } };
      const i = layers.findIndex((l) => l.id === before);
      layers.splice(i < 0 ? layers.length : i, 0, layer);
      redraw();
    },
    getLayer: (id) => layers.find((l) => l.id === id),
    removeLayer(id) {
      const i = layers.findIndex((l) => l.id === id);
      if (i >= 0) layers.splice(i, 1);
      redraw();
    },
    setPaintProperty(id, key, value) {
      map.getLayer(id).paint[key] = value;
      redraw();
    },
    setLayoutProperty(id, key, value) {
      map.getLayer(id).layout[key] = value;
      redraw();
    },
    hasImage: () => true,
    addImage() {},
    getStyle: () => ({ sources: Object.fromEntries([...sources].map(([id, s]) => [id, s.spec])), layers }),
    querySourceFeatures: (id, { filter } = {}) => (sources.get(id)?.items || []).map((it) => it.f).filter((f) => matches(filter, f, cam.z)),
    on(type, layer, fn) {
      handlers.push(fn ? { type, layer, fn } : { type, layer: null, fn: layer });
      return map;
    },
    off(type, layer, fn) {
      const [l, f] = fn ? [layer, fn] : [null, layer];
      const i = handlers.findIndex((h) => h.type === type && h.layer === l && h.fn === f);
      if (i >= 0) handlers.splice(i, 1);
      return map;
    },
    once(type, fn) {
      const once = (e) => {
        map.off(type, once);
        fn(e);
      };
      return map.on(type, once);
    },
    getCanvas: () => canvas,
    getContainer: () => container,
    getCenter() {
      const [lng, lat] = unproject([cam.x, cam.y]);
      return { lng, lat };
    },
    getZoom: () => cam.z,
    getBearing: () => 0,
    /** The screen point of [lon, lat] (px from the container's top left). */
    project(lngLat) {
      const p = project(lngLat);
      const [x, y] = toScreen(p, Math.round(cam.x - p[0]));
      return { x, y };
    },
    isMoving: () => moving,
    isSourceLoaded: () => true,
    triggerRepaint: redraw,
    resize,
    jumpTo({ center, zoom }) {
      const [x, y] = center ? project(center) : [cam.x, cam.y];
      moveTo({ x, y, z: zoom ?? cam.z });
    },
    /** Fit [[w, s], [e, n]] within the frame less `padding` (px each side), at most `maxZoom`. */
    fitBounds([[w, s], [e, n]], { padding = 0, maxZoom = MAX_ZOOM, duration = 0 } = {}) {
      const pad = typeof padding === "number" ? { top: padding, right: padding, bottom: padding, left: padding } : padding;
      const [x0, y1] = project([w, s]);
      const [x1, y0] = project([e, n]);
      const room = [Math.max(1, W - pad.left - pad.right), Math.max(1, H - pad.top - pad.bottom)];
      const z = Math.min(maxZoom, Math.log2(Math.min(room[0] / Math.max(x1 - x0, 1e-12), room[1] / Math.max(y1 - y0, 1e-12)) / TILE));
      const ws = TILE * 2 ** z;
      moveTo({ x: (x0 + x1) / 2 - (pad.left - pad.right) / 2 / ws, y: (y0 + y1) / 2 - (pad.top - pad.bottom) / 2 / ws, z }, duration);
    },
    /** Centre `center` at `offset` px from the frame's middle, at `zoom`. */
    easeTo({ center, zoom = cam.z, offset = [0, 0], duration = 0 }) {
      const [x, y] = project(center);
      const ws = TILE * 2 ** zoom;
      moveTo({ x: x - offset[0] / ws, y: y - offset[1] / ws, z: zoom }, duration);
    },
    /** An HTML marker: `element` at [lon, lat], placed by `anchor` and `offset` (px) as MapLibre's Marker. */
    addMarker(element, lngLat, { anchor = "center", offset } = {}) {
      element.classList.add("maplibregl-marker");
      const o = { el: element, at: project(lngLat), anchor, offset };
      overlays.add(o);
      container.append(element);
      placeOverlays();
      return {
        getElement: () => element,
        remove() {
          overlays.delete(o);
          element.remove();
        },
      };
    },
    /** A popup holding `content` above [lon, lat] (below it near the top), with a close button; fires `close`. */
    addPopup(content, lngLat, { maxWidth = "240px" } = {}) {
      const box = el("div", "maplibregl-popup maplibregl-popup-anchor-bottom");
      box.style.maxWidth = maxWidth;
      el("div", "maplibregl-popup-tip", box);
      const body = el("div", "maplibregl-popup-content", box);
      const close = el("button", "maplibregl-popup-close-button", body);
      close.type = "button";
      close.textContent = "×";
      close.setAttribute("aria-label", "Close popup");
      body.append(content);
      const listeners = [];
      const o = { el: box, at: project(lngLat), anchor: "bottom" };
      overlays.add(o);
      container.append(box);
      placeOverlays();
      if (box.getBoundingClientRect().top < container.getBoundingClientRect().top) {
        box.className = "maplibregl-popup maplibregl-popup-anchor-top";
        o.anchor = "top";
        placeOverlays();
      }
      const popup = {
        getElement: () => box,
        on(type, fn) {
          if (type === "close") listeners.push(fn);
          return popup;
        },
        remove() {
          if (!overlays.delete(o)) return;
          box.remove();
          for (const fn of listeners) fn();
        },
      };
      close.addEventListener("click", () => popup.remove());
      return popup;
    },
    remove() {
      removed = true;
      observer?.disconnect();
      if (frame) cancelAnimationFrame(frame);
      emit("remove");
      container.replaceChildren();
      container.classList.remove("maplibregl-map");
    },
  };

  for (const [id, spec] of Object.entries(style.sources || {})) map.addSource(id, spec);
  for (const layer of style.layers || []) map.addLayer(layer);
  if (style.center) Object.assign(cam, { x: project(style.center)[0], y: project(style.center)[1] });
  const observer = typeof ResizeObserver === "function" ? new ResizeObserver(() => resize()) : null;
  observer?.observe(container);
  resize();
  return map;
}
