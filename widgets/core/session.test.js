import test from "node:test";
import assert from "node:assert/strict";
import { links, mapConfig, mapSession } from "./session.js";
import { createStatus } from "./status.js";
import { createLocale } from "./i18n.js";
import { fakeBody, fakeMap } from "../testing/fakes.js";

const CONFIG = "com.tomtom/map-config";
const answer = (cfg) => async () => ({ content: [], _meta: { [CONFIG]: cfg } });

test("the map configuration gives the tile templates, and renew() asks the server again", async () => {
  const asked = [];
  let n = 0;
  const callTool = async (name, args) => {
    asked.push([name, args]);
    return { _meta: { [CONFIG]: { tiles: { basemap: `https://x/b?t=${++n}` }, expires_in: 300 } } };
  };
  const config = await mapConfig(callTool, ["basemap"]);
  assert.deepEqual({ ...config, renew: typeof config.renew }, { tiles: { basemap: "https://x/b?t=1" }, offline: false, reason: "", expiresIn: 300, renew: "function", refetch: false });
  assert.deepEqual((await config.renew()).tiles, { basemap: "https://x/b?t=2" });
  assert.deepEqual(asked, [
    ["tomtom-get-map-config", { layers: ["basemap"] }],
    ["tomtom-get-map-config", { layers: ["basemap"] }],
  ]);
});

test("a server that runs tools again for views says so in the configuration", async () => {
  assert.equal((await mapConfig(answer({ tiles: {}, refetch: true }))).refetch, true);
  assert.equal((await mapConfig(answer({ tiles: {}, refetch: "yes" }))).refetch, false, "only true turns it on");
});

test("an offline server's configuration says so and why", async () => {
  const config = await mapConfig(answer({ offline: true, reason: "no TomTom key" }), undefined);
  assert.deepEqual([config.tiles, config.offline, config.reason, config.expiresIn], [{}, true, "no TomTom key", 0]);
});

test("no configuration, a tool error or a failed call leave no tiles and say why", async () => {
  assert.deepEqual(await mapConfig(answer(undefined)), { tiles: {}, error: "the server sent no map configuration" });
  assert.deepEqual(await mapConfig(async () => ({ isError: true, _meta: { [CONFIG]: { tiles: {} } } })), { tiles: {}, error: "the server sent no map configuration" });
  assert.deepEqual(await mapConfig(async () => Promise.reject(new Error("disconnected"))), { tiles: {}, error: "disconnected" });
});

/** A view's ctx as the session uses it, recording what it was told. */
function viewCtx(cfg = { tiles: { basemap: "https://x/b", basemap_night: "https://x/n" } }) {
  const l10n = createLocale("en-US", "UTC");
  const saved = [];
  const ctx = {
    theme: () => ctx.themeNow,
    themeNow: "dark",
    t: l10n.t,
    l10n,
    status: createStatus(fakeBody()),
    state: { save: (patch) => saved.push(patch) },
    saved,
    failed: [],
    restored: [],
    callTool: answer(cfg),
    tilesFailed: (message, state) => ctx.failed.push([message, state]),
    restoreSelection: (id) => ctx.restored.push(id),
    openLink() {},
  };
  return ctx;
}

function session(map = fakeMap()) {
  const made = [];
  const s = mapSession(
    (theme, config) => (theme === "dark" && config.tiles.basemap_night ? ["basemap_night"] : ["basemap"]),
    ["basemap", "basemap_night"],
    async (theme) => (made.push(theme), map),
  );
  return { s, map, made };
}

test("the map is opened once, in the view's theme, with the tiles for that theme and the camera tracked", async () => {
  const { s, map, made } = session();
  const ctx = viewCtx();
  const [a, b] = await Promise.all([s.open(ctx), s.open(ctx)]);
  assert.equal(a, b);
  assert.equal(s.opened, a);
  assert.deepEqual(made, ["dark"]);
  assert.deepEqual([...map.layers.keys()], ["tiles-basemap_night"]);
  assert.equal(a.tiles, true);
  map.camera.zoom = 7;
  map.emit("moveend");
  assert.deepEqual(ctx.saved, [{ camera: { center: [0, 20], zoom: 7, bearing: 0 } }]);
  assert.equal(ctx.status.state.camera.zoom, 7);
});

test("without tiles the session still opens, and the view hears why", async () => {
  const { s } = session();
  const ctx = viewCtx({ offline: true });
  assert.equal((await s.open(ctx)).tiles, false);
  assert.deepEqual(ctx.failed, [[ctx.t("offlineBasemap"), "none"]]);
});

test("a stored view puts back its hidden layers, camera and selection", async () => {
  const { s, map } = session();
  const ctx = viewCtx();
  assert.equal(s.restore(ctx, { camera: { center: [1, 2], zoom: 3 } }), false, "nothing to restore before the map opens");
  const { scene } = await s.open(ctx);
  scene.source("points", []);
  scene.layer({ id: "points", type: "circle", source: "points" }, "places");
  assert.equal(s.restore(ctx, { hidden: ["places"], camera: { center: [5, 52], zoom: 11, bearing: 0 }, selected: "place-1" }), true);
  assert.equal(map.layers.get("points").layout.visibility, "none");
  assert.deepEqual(map.camera, { center: [5, 52], zoom: 11, bearing: 0 });
  assert.deepEqual(ctx.restored, ["place-1"]);
  assert.equal(ctx.status.state.restored, true);
  assert.equal(s.restore(ctx, { selected: "place-2" }), false, "no camera: the view fits instead");
  assert.equal(ctx.status.state.restored, false);
});

test("a legend toggle shows or hides the group; a theme restyles the basemap; teardown removes the map", async () => {
  const map = fakeMap();
  map.addLayer({ id: "ne-land", type: "fill" });
  let removed = 0;
  map.remove = () => removed++;
  const { s } = session(map);
  s.setVisible("places", false);
  s.restyle("light");
  const { scene } = await s.open(viewCtx());
  scene.source("points", []);
  scene.layer({ id: "points", type: "circle", source: "points" }, "places");
  s.setVisible("places", false);
  assert.equal(map.layers.get("points").layout.visibility, "none");
  s.restyle("dark");
  assert.equal(map.layers.get("ne-land").paint["fill-color"], "#2b3036");
  s.remove();
  assert.equal(removed, 1);
  assert.equal(s.opened, null);
});

test("the links of an item open TomTom at its position, in the view's language", () => {
  const ctx = { l10n: createLocale("de-DE", "UTC") };
  assert.match(links.place({ position: [4.9, 52.37] }, ctx), /^https:\/\/plan\.tomtom\.com\/de\/\?p=52\.37,4\.9/);
  assert.match(links.directions({ position: [4.9, 52.37] }, ctx), /^https:\/\/plan\.tomtom\.com\/de\//);
});
