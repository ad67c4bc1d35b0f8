/**
 * The view's status: one object saying where the view is (loading, drawn,
 * failed, and why), what it has told the server and the model, what is
 * selected, where the camera is, how the tiles fare, and the counts of what
 * it drew. It changes only through `set`, and every change is rendered at
 * once, by `render` alone, into `document.body.dataset` and the body's
 * classes: the browser tests wait on that rendering and CSS styles by it, so
 * its keys and values are a contract (the table `DATASET`); the object itself
 * is what the code reads.
 */

const text = (v) => (v === undefined || v === null ? undefined : String(v));
/** "1" or "" once known; absent before. */
const flag = (v) => (v === undefined || v === null ? undefined : v ? "1" : "");
/** "1" while true; absent otherwise (tests wait for the key to go). */
const present = (v) => (v ? "1" : undefined);
const json = (v) => (v ? JSON.stringify(v) : undefined);

/** Every status key rendered under `document.body.dataset`, with how its value is written. */
export const DATASET = {
  status: text, // "loading" | "ok" | "error"
  reason: text, // why: "drawn", "empty", "tiles_failed", or a failure reason (docs/views.md)
  reported: text, // the last status the server acknowledged
  modelContext: text, // "selection" | "degraded": the last update the model accepted
  display: text, // "inline" | "fullscreen"
  paused: flag, // scrolled out of sight
  items: text, // list items shown
  selected: text, // the selected item's id
  stored: flag, // a stored view state was found for this result
  restored: flag, // its camera was put back
  dataSource: text, // "offline": the server answered with demo data
  tiles: text, // "requested" | "none" | "failed"
  tilesRenewed: text, // tile tokens renewed so far
  tileRefreshes: text, // raster sources refreshed (live traffic)
  idle: present, // every data source is on the canvas
  moving: present, // the camera is in flight
  camera: json, // {center, zoom, bearing}
  popup: text, // the item whose popup is open
  partial: text, // features drawn from partial tool input
  pages: text, // pages fetched with tomtom-get-app-data
  fetched: present, // the data came through tomtom-get-app-data
  refetched: present, // the host dropped _meta and the server ran the tool again (VIEW_REFETCH)
  legend: text, // "open" | "folded" (absent: no legend)
  engine: text, // "maplibre" | "canvas": the worker-free renderer draws (MapLibre could not start)
};

export const INITIAL = Object.freeze({ status: "loading", counts: Object.freeze({}) });

/**
 * What `state` renders to under `document.body.dataset`: the keys of `DATASET`
 * that have a value, then the view's own counts (features, routePoints...).
 */
export function datasetOf(state) {
  const out = {};
  for (const [key, write] of Object.entries(DATASET)) {
    const value = write(state[key]);
    if (value !== undefined) out[key] = value;
  }
  for (const [key, value] of Object.entries(state.counts || {})) {
    if (key in DATASET) throw new Error(`count "${key}" would overwrite the status key of that name`);
    out[key] = String(value);
  }
  return out;
}

/** The body's classes for `state` (CSS lays out the list and pauses animations by them). */
export function classesOf(state) {
  return { "tt-has-list": Number(state.items) > 0, "tt-paused": state.paused === true };
}

/**
 * Make `body` show `state`: dataset keys rendered before and absent now are
 * removed, changed ones written; keys the status never rendered (data-view,
 * from the page) are left alone. Returns the rendering, for the next call.
 */
export function render(state, body, before = {}) {
  const after = datasetOf(state);
  for (const key of Object.keys(before)) if (!(key in after)) delete body.dataset[key];
  for (const [key, value] of Object.entries(after)) if (body.dataset[key] !== value) body.dataset[key] = value;
  for (const [name, on] of Object.entries(classesOf(state))) body.classList.toggle(name, on);
  return after;
}

/**
 * The status of the view in `body`: `state` to read, `set(patch)` to change it
 * (a patch object, or a function of the state returning one), rendered at once.
 * Besides the keys of `DATASET` and `counts`, the state holds what is not
 * rendered: `connected` (to the host), `resulted` (a tool result arrived),
 * `lastResult` (which one, so that the same result is drawn once), `toolNamed`
 * (the host named the tool), `legendOpen` (the user opened or folded the legend), `tilesProblem` (the tiles' note),
 * `engineProblem` (why MapLibre could not start), `hidden` (legend
 * groups switched off) and `lastReport` (the last report sent, never sent twice).
 */
export function createStatus(body, initial = INITIAL) {
  let state = { ...initial };
  let rendered = render(state, body);
  return {
    get state() {
      return state;
    },
    set(patch) {
      const change = typeof patch === "function" ? patch(state) : patch;
      state = { ...state, ...change };
      rendered = render(state, body, rendered);
      return state;
    },
  };
}
