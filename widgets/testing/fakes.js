/**
 * Stand-ins for the unit tests (`*.test.js`, node --test, no browser): a
 * document (linkedom), a MapLibre map that keeps what is added to it and
 * plays its events back, the markers a Scene puts on it, the body a status
 * renders into, and an ext-apps `App` whose host the test plays. Only the
 * calls the views make are here; no view imports this file.
 */
import { parseHTML } from "linkedom";

/** `{document, window}` of `html`. linkedom lays nothing out, so scrolling into view does nothing. */
export function fakeDocument(html) {
  const parsed = parseHTML(html);
  parsed.window.HTMLElement.prototype.scrollIntoView = () => {};
  return parsed;
}

/** `document.body` as the status sees it: a dataset and a classList. */
export function fakeBody(dataset = {}) {
  const classes = new Set();
  return {
    dataset,
    classList: { toggle: (name, on) => (on ? classes.add(name) : classes.delete(name)), contains: (name) => classes.has(name) },
  };
}

/**
 * A map that records sources, layers, handlers and markers. `refuse(layer)`
 * returning a message makes `addLayer` fail as MapLibre does: an error event,
 * no layer, no throw.
 */
export function fakeMap({ refuse = () => null, features = [] } = {}) {
  const sources = new Map();
  const layers = new Map();
  const handlers = [];
  const canvas = { style: {}, attributes: {}, setAttribute: (k, v) => (canvas.attributes[k] = v) };
  const camera = { center: [0, 20], zoom: 1, bearing: 0 };
  const map = {
    sources,
    layers,
    handlers,
    markers: [],
    camera,
    addSource(id, spec) {
      if (sources.has(id)) throw new Error(`There is already a source with ID "${id}".`);
      sources.set(id, {
        ...spec,
        setData(data) {
          this.data = data;
        },
        setTiles(tiles) {
          this.tiles = tiles;
        },
      });
    },
    getSource: (id) => sources.get(id),
    removeSource: (id) => sources.delete(id),
    /** Adds `spec` on top, or under layer `before` (MapLibre's order: `layers` keeps it). */
    addLayer(spec, before) {
      const why = refuse(spec);
      if (why) return map.emit("error", { error: new Error(why) });
      if (layers.has(spec.id)) throw new Error(`Layer "${spec.id}" already exists.`);
      const entry = { ...spec, layout: { ...spec.layout }, paint: { ...spec.paint } };
      if (before === undefined || !layers.has(before)) return void layers.set(spec.id, entry);
      const order = [...layers];
      order.splice(order.findIndex(([id]) => id === before), 0, [spec.id, entry]);
      layers.clear();
      for (const [id, layer] of order) layers.set(id, layer);
    },
    getLayer: (id) => layers.get(id),
    removeLayer: (id) => layers.delete(id),
    setLayoutProperty: (id, key, value) => (layers.get(id).layout[key] = value),
    setPaintProperty: (id, key, value) => (layers.get(id).paint[key] = value),
    on(type, layer, fn) {
      handlers.push(fn ? { type, layer, fn } : { type, layer: null, fn: layer });
    },
    once(type, fn) {
      const once = (e) => {
        map.off(type, once);
        fn(e);
      };
      map.on(type, once);
    },
    off(type, layer, fn) {
      const [l, f] = fn ? [layer, fn] : [null, layer];
      const i = handlers.findIndex((h) => h.type === type && h.layer === l && h.fn === f);
      if (i >= 0) handlers.splice(i, 1);
    },
    /** Fire `type` (on `layer`'s handlers only, when given) as MapLibre would. */
    emit(type, event = {}, layer = null) {
      for (const h of handlers.filter((h) => h.type === type && h.layer === layer)) h.fn(event);
    },
    getStyle: () => ({ sources: Object.fromEntries(sources) }),
    getCanvas: () => canvas,
    getCenter: () => ({ lng: camera.center[0], lat: camera.center[1] }),
    getZoom: () => camera.zoom,
    getBearing: () => camera.bearing,
    jumpTo(to) {
      Object.assign(camera, to);
    },
    resize() {},
    /** An 800 x 400 frame at the page's top left. */
    getContainer: () => ({ clientWidth: 800, clientHeight: 400, getBoundingClientRect: () => ({ left: 0, top: 0 }) }),
    isSourceLoaded: () => true,
    isMoving: () => false,
    triggerRepaint() {},
    querySourceFeatures: (id, { filter }) => features.filter((f) => f.properties[filter[1][1]] === filter[2]),
  };
  return map;
}

/** `htmlMarker`'s stand-in: the marker's description kept on `map.markers`, an element to hide. */
export function fakeMarker(map, description, lngLat, options) {
  const marker = { description, lngLat, options, element: { style: {} }, removed: false };
  map.markers.push(marker);
  return { getElement: () => marker.element, remove: () => (marker.removed = true) };
}

/**
 * An ext-apps `App` whose host the test plays: `emit(type, params)` delivers a
 * notification to the view's listener; server tool calls, model context
 * updates and opened links are recorded. `connect` may be replaced (a host
 * that never answers, or refuses).
 */
export function fakeApp({ context = {}, version = { name: "preview", version: "1.0.0" }, capabilities = { updateModelContext: {} } } = {}) {
  const listeners = new Map();
  const app = {
    context,
    calls: [],
    told: [],
    opened: [],
    openLinkAnswer: {},
    addEventListener: (type, fn) => listeners.set(type, fn),
    emit: (type, params) => listeners.get(type)(params),
    connect: async () => {},
    getHostContext: () => app.context,
    getHostVersion: () => version,
    getHostCapabilities: () => capabilities,
    async callServerTool({ name, arguments: args }) {
      app.calls.push([name, args]);
      return { content: [] };
    },
    async updateModelContext({ content }) {
      app.told.push(content[0].text);
    },
    async openLink({ url }) {
      app.opened.push(url);
      return app.openLinkAnswer;
    },
    requestDisplayMode: async ({ mode }) => ({ mode }),
    /** The status reports the view sent the server. */
    reports: () => app.calls.filter(([name]) => name === "tomtom-report-app-status").map(([, args]) => args),
  };
  return app;
}

/** `IntersectionObserver` for a view in node: the test says when the frame scrolls in or out of sight. */
export class FakeObserver {
  static last = null;
  constructor(callback) {
    this.callback = callback;
    this.observed = [];
    this.disconnected = false;
    FakeObserver.last = this;
  }
  observe(el) {
    this.observed.push(el);
  }
  disconnect() {
    this.disconnected = true;
  }
  /** The frame is now (in)visible. */
  show(visible) {
    this.callback([{ isIntersecting: visible }]);
  }
}

/** `localStorage` in memory. */
export function memoryStorage() {
  const m = new Map();
  return {
    get length() {
      return m.size;
    },
    key: (i) => [...m.keys()][i] ?? null,
    getItem: (k) => (m.has(k) ? m.get(k) : null),
    setItem: (k, v) => m.set(k, String(v)),
    removeItem: (k) => m.delete(k),
  };
}

const DRAWING = ["setTransform", "clearRect", "fillRect", "beginPath", "moveTo", "lineTo", "arc", "fill", "stroke", "setLineDash", "strokeText", "fillText", "drawImage"];

/** A 2D context that keeps every drawing call as [name, ...args, {the style it was made in}]; text is 6 px a character. */
export function fakeContext() {
  const ctx = { calls: [], font: "10px sans-serif", fillStyle: "#000", strokeStyle: "#000", lineWidth: 1, globalAlpha: 1 };
  for (const name of DRAWING) {
    ctx[name] = (...args) => ctx.calls.push([name, ...args, { fillStyle: ctx.fillStyle, strokeStyle: ctx.strokeStyle, lineWidth: ctx.lineWidth, globalAlpha: ctx.globalAlpha }]);
  }
  ctx.measureText = (text) => ({ width: String(text).length * 6 });
  return ctx;
}

/**
 * A page for the worker-free renderer in node: `document` with a `width` x `height`
 * #map, canvases that draw on `fakeContext`, and animation frames run by `frames()`.
 * `restore()` puts the globals back.
 */
export function canvasPage(width = 800, height = 400) {
  const { document, window } = fakeDocument('<div id="map"></div>');
  const el = document.getElementById("map");
  Object.defineProperties(el, { clientWidth: { value: width }, clientHeight: { value: height } });
  window.HTMLCanvasElement.prototype.getContext = function () {
    return (this.fake ??= fakeContext());
  };
  window.HTMLElement.prototype.getBoundingClientRect = () => ({ left: 0, top: 0, right: 0, bottom: 0, width: 0, height: 0 });
  const queue = [];
  const saved = { document: globalThis.document, raf: globalThis.requestAnimationFrame, caf: globalThis.cancelAnimationFrame };
  globalThis.document = document;
  globalThis.requestAnimationFrame = (fn) => queue.push(fn);
  globalThis.cancelAnimationFrame = () => {};
  return {
    document,
    el,
    /** Run the animation frames asked for so far (and those they ask for), `n` rounds at most. */
    frames(n = 10) {
      for (let i = 0; i < n && queue.length; i++) for (const fn of queue.splice(0)) fn(performance.now());
    },
    restore() {
      globalThis.document = saved.document;
      globalThis.requestAnimationFrame = saved.raf;
      globalThis.cancelAnimationFrame = saved.caf;
    },
  };
}
