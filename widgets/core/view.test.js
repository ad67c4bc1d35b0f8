import test from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import zlib from "node:zlib";
import envelope from "./envelope.js";
import { startView } from "./view.js";
import { FakeObserver, fakeApp, fakeDocument, memoryStorage } from "../testing/fakes.js";

const SHELL = readFileSync(new URL("../shell.html", import.meta.url), "utf8");
const UUID = "3f0c9b1e-8d5a-4c2e-9f47-6a1b2c3d4e5f";
const ITEMS = [{ title: "Results", items: [{ id: "place-0", kind: "search result", name: "Café", position: [4.9, 52.37] }, { id: "place-1", kind: "search result", name: "Bar" }] }];
const settle = () => new Promise(setImmediate);
const mocked = new WeakSet();

/** The two-minute wait and console.error (a failure logs its error) mocked, once per test. */
function mockOnce(t) {
  if (mocked.has(t)) return;
  mocked.add(t);
  t.mock.timers.enable({ apis: ["setTimeout"] });
  t.mock.method(console, "error", () => {});
}

/**
 * A view started in a fresh copy of shell.html against a fake host, as a browser
 * would run it: the globals startView reads, the two-minute wait on mock timers.
 */
async function started(t, spec = {}, { app = fakeApp(), storage = null } = {}) {
  mockOnce(t);
  const { document, window } = fakeDocument(SHELL);
  Object.assign(globalThis, { document, window, IntersectionObserver: FakeObserver });
  Object.defineProperty(globalThis, "navigator", { value: { language: "en-US" }, configurable: true });
  Object.defineProperty(globalThis, "localStorage", { value: storage, configurable: true });
  const heard = [];
  const session = { setVisible: (...a) => heard.push(["setVisible", ...a]), restyle: (...a) => heard.push(["restyle", ...a]), remove: () => heard.push(["remove"]) };
  const view = startView({ name: "tomtom-map", tool: "tomtom-map", session, onResult: async () => {}, ...spec }, app);
  const ctx = await view;
  const $ = (id) => document.getElementById(id);
  return { ctx, app, heard, body: document.body, $, document, window };
}

test("while it waits for the result the view says so, and the document says loading", async (t) => {
  const { body, $ } = await started(t);
  assert.equal(body.dataset.status, "loading");
  assert.equal($("message").hidden, false);
  assert.match($("message").textContent, /Loading map…\s*Waiting for the tool result\./);
});

test("a drawn result is reported to the server once, with the host, and the document says ok", async (t) => {
  const { app, body, $, ctx } = await started(t, { onResult: async (result, ctx) => ctx.ok("3 features", { features: 3, fitted: "" }) });
  await app.emit("toolresult", { content: [] });
  await settle();
  assert.deepEqual(app.reports(), [{ tool: "tomtom-map", status: "ok", reason: "drawn", detail: "3 features", host: { name: "preview", version: "1.0.0", platform: "" } }]);
  assert.deepEqual([body.dataset.status, body.dataset.reason, body.dataset.reported, body.dataset.features, body.dataset.fitted], ["ok", "drawn", "ok", "3", ""]);
  assert.equal($("message").hidden, true);
  ctx.ok("3 features", { features: 3 });
  assert.equal(app.reports().length, 1, "the same outcome is not reported twice");
});

test("a view that cannot draw says why on screen, to the server and to the model", async (t) => {
  const { app, body, $ } = await started(t, { onResult: async () => Promise.reject(new envelope.ViewError("decode_failed", "The map data is malformed.")) });
  await app.emit("toolresult", { content: [] });
  await settle();
  assert.equal($("message").className, "error");
  assert.equal($("message").querySelector('[role="alert"] p').textContent, "The map data is malformed.");
  assert.deepEqual(app.reports().map((r) => [r.status, r.reason, r.detail]), [["error", "decode_failed", "The map data is malformed."]]);
  assert.match(app.told[0], /^---\nview: "tomtom-map"\ntool: "tomtom-map"\nstatus: "degraded"\nreason: "decode_failed"\n---\n/);
  assert.deepEqual([body.dataset.status, body.dataset.reported, body.dataset.modelContext], ["error", "error", "degraded"]);
});

test("a drawing that throws is a render failure", async (t) => {
  const { app } = await started(t, { onResult: async () => Promise.reject(new TypeError("x is undefined")) });
  await app.emit("toolresult", { content: [] });
  assert.deepEqual(app.reports().map((r) => [r.reason, r.detail]), [["render_failed", "Drawing failed: x is undefined"]]);
});

test("when the host dropped _meta the view names the host and what to do there", async (t) => {
  const app = fakeApp({ version: { name: "Claude", version: "1.2" }, context: { platform: "desktop" } });
  const { $ } = await started(t, { onResult: async () => Promise.reject(new envelope.ViewError("meta_dropped", "no app data")) }, { app });
  await app.emit("toolresult", { content: [] });
  assert.match($("message").textContent, /Claude Desktop did not pass the tool result's _meta/);
  assert.deepEqual(app.reports()[0].host, { name: "Claude", version: "1.2", platform: "desktop" });
});

test("an empty answer is said on screen and reported ok, not as a failure", async (t) => {
  const { app, $ } = await started(t, { onResult: async (result, ctx) => ctx.empty("Nothing found", "No places.", { features: 0 }) });
  await app.emit("toolresult", { content: [] });
  assert.equal($("message").className, "empty");
  assert.deepEqual(app.reports().map((r) => [r.status, r.reason, r.detail]), [["ok", "empty", "No places."]]);
});

test("a result drawn before the host connected is reported once it has", async (t) => {
  const app = fakeApp();
  let connect;
  app.connect = () => new Promise((resolve) => (connect = resolve));
  mockOnce(t);
  const { document, window } = fakeDocument(SHELL);
  Object.assign(globalThis, { document, window, IntersectionObserver: FakeObserver });
  const view = startView({ name: "tomtom-map", tool: "tomtom-map", onResult: async (result, ctx) => ctx.ok("drawn early") }, app);
  await app.emit("toolresult", { content: [] });
  assert.equal(document.body.dataset.status, "ok");
  assert.deepEqual(app.reports(), [], "nothing is sent before connect");
  connect();
  await view;
  assert.deepEqual(app.reports().map((r) => [r.status, r.reason]), [["ok", "drawn"]]);
});

test("a host that never sends the result gets an answer after two minutes", async (t) => {
  const { app, body } = await started(t);
  t.mock.timers.tick(119_999);
  assert.deepEqual(app.reports(), []);
  t.mock.timers.tick(1);
  assert.deepEqual(app.reports().map((r) => [r.status, r.reason]), [["error", "no_result"]]);
  assert.equal(body.dataset.reason, "no_result");
});

test("outside an MCP Apps host the view says it is not connected", async (t) => {
  const app = fakeApp();
  app.connect = async () => Promise.reject(new Error("no parent window"));
  const { body, $ } = await started(t, {}, { app });
  assert.deepEqual([body.dataset.status, body.dataset.reason], ["error", "not_connected"]);
  assert.match($("message").textContent, /Not connected\s*This view must run inside an MCP Apps host \(no parent window\)\./);
  assert.deepEqual(app.reports(), []);
});

test("partial input is drawn until the result arrives, never after", async (t) => {
  const partial = [];
  const { app } = await started(t, { onPartial: (args) => partial.push(args) });
  app.emit("toolinputpartial", { arguments: { locations: [[4.9, 52.37]] } });
  app.emit("toolinputpartial", {});
  await app.emit("toolresult", { content: [] });
  app.emit("toolinputpartial", { arguments: { locations: [[4.9, 52.37], [5, 52]] } });
  assert.deepEqual(partial, [{ locations: [[4.9, 52.37]] }]);
});

test("picking from the list selects everywhere, tells the model and stores the selection", async (t) => {
  const storage = memoryStorage();
  const selected = [];
  const { app, body, $ } = await started(
    t,
    { onResult: async (result, ctx) => ctx.setItems(ITEMS), onSelect: (item, ctx, via) => selected.push([item.id, via]) },
    { storage },
  );
  await app.emit("toolresult", { content: [], _meta: { viewUUID: UUID } });
  assert.equal(body.dataset.items, "2");
  assert.ok(body.classList.contains("tt-has-list"));
  $("list").querySelector('[data-id="place-0"]').dispatchEvent(new globalThis.window.Event("click", { bubbles: true }));
  await settle();
  assert.deepEqual(selected, [["place-0", "list"]]);
  assert.equal(body.dataset.selected, "place-0");
  assert.equal(body.dataset.modelContext, "selection");
  assert.match(app.told[0], /\nselected: "search result"\nname: "Café"\nposition: \[4\.9, 52\.37\]\n---\n/);
  assert.equal($("details").hidden, false);
  assert.equal(JSON.parse(storage.getItem(`tomtom-view:${UUID}`)).selected, "place-0");
});

test("a details link opens through the host; a refused one becomes a note", async (t) => {
  const links = { place: (item) => `https://plan.tomtom.com/en/?p=${item.position[1]},${item.position[0]}` };
  const { app, ctx, $ } = await started(t, { links, onResult: async (result, ctx) => ctx.setItems(ITEMS) });
  await app.emit("toolresult", { content: [] });
  ctx.select("place-0", "map");
  $("details").querySelector('[data-link="place"]').dispatchEvent(new globalThis.window.Event("click", { bubbles: true }));
  await settle();
  assert.deepEqual(app.opened, ["https://plan.tomtom.com/en/?p=52.37,4.9"]);
  await ctx.openLink("http://insecure.example/");
  assert.equal(app.opened.length, 1, "only https links are opened");
  app.openLinkAnswer = { isError: true };
  await ctx.openLink("https://example.org/");
  assert.equal($("notes").textContent, "The host did not open https://example.org/");
});

test("a legend toggle hides the group on the map, shows the button released, and is stored for the next time", async (t) => {
  const storage = memoryStorage();
  const rows = [{ label: "Results", color: "#d1242f", shape: "dot", group: "places" }];
  const spec = { onResult: async (result, ctx) => ctx.setLegend(rows) };
  const first = await started(t, spec, { storage });
  await first.app.emit("toolresult", { content: [], _meta: { viewUUID: UUID } });
  assert.equal(first.body.dataset.stored, "");
  first.$("legend").querySelector("button").dispatchEvent(new globalThis.window.Event("click", { bubbles: true }));
  assert.deepEqual(first.heard, [["setVisible", "places", false]]);
  assert.equal(first.$("legend").querySelector("button").getAttribute("aria-pressed"), "false");
  assert.ok(first.ctx.isHidden("places"));
  const again = await started(t, spec, { storage });
  await again.app.emit("toolresult", { content: [], _meta: { viewUUID: UUID } });
  assert.equal(again.body.dataset.stored, "1");
  assert.ok(again.ctx.isHidden("places"));
  assert.equal(again.$("legend").querySelector("button").getAttribute("aria-pressed"), "false");
});

test("a new theme restyles the map and draws the result again with the selection kept; the same look draws nothing", async (t) => {
  const draws = [];
  const selected = [];
  const { app, ctx, heard, document } = await started(t, {
    onResult: async (result, ctx, stored) => ctx.draw((ctx, stored) => (draws.push([ctx.theme(), ctx.l10n.locale, stored]), ctx.setItems(ITEMS)), stored),
    onSelect: (item, ctx, via) => selected.push([item.id, via]),
  });
  await app.emit("toolresult", { content: [] });
  ctx.select("place-1", "map");
  app.emit("hostcontextchanged", { theme: "dark" });
  assert.equal(document.documentElement.dataset.theme, "dark");
  assert.deepEqual(heard, [["restyle", "dark"]]);
  app.emit("hostcontextchanged", { theme: "dark" });
  app.emit("hostcontextchanged", { locale: "de-DE" });
  assert.deepEqual(draws, [
    ["light", "en-US", null],
    ["dark", "en-US", undefined],
    ["dark", "de-DE", undefined],
  ]);
  assert.deepEqual(selected, [["place-1", "map"], ["place-1", "restore"], ["place-1", "restore"]]);
  assert.equal(document.documentElement.lang, "de-DE");
});

test("offline demo data is noted; with no key the offline map's reason shares its panel", async (t) => {
  const { app, body, $ } = await started(t, { onResult: async (result, ctx) => (ctx.tilesFailed("No TomTom key, so no street tiles.", "none"), ctx.ok("drawn")) });
  await app.emit("toolresult", { content: [], _meta: { "com.tomtom/data-source": "offline" } });
  assert.equal(body.dataset.dataSource, "offline");
  assert.equal(body.dataset.tiles, "none");
  assert.equal($("notes").children.length, 1);
  assert.match($("notes").textContent, /^Offline demo data.* No TomTom key, so no street tiles\.$/);
});

test("tiles failing after the ok report are reported again, once", async (t) => {
  const { app, ctx, body } = await started(t, { onResult: async (result, ctx) => ctx.ok("drawn") });
  await app.emit("toolresult", { content: [] });
  ctx.tilesFailed("Tiles failed (HTTP 500)");
  ctx.tilesFailed("Tiles failed (HTTP 502)");
  assert.deepEqual(app.reports().map((r) => [r.reason, r.detail]), [["drawn", "drawn"], ["tiles_failed", "Tiles failed (HTTP 500)"]]);
  assert.equal(body.dataset.tiles, "failed");
  assert.equal(ctx.tilesProblem(), "Tiles failed (HTTP 500)");
});

test("scrolled out of sight the view pauses; teardown stops watching and releases the map", async (t) => {
  let tornDown = 0;
  const { app, ctx, body, heard } = await started(t, { onTeardown: () => tornDown++ });
  const observer = FakeObserver.last;
  assert.equal(observer.observed[0].id, "frame");
  observer.show(false);
  assert.deepEqual([body.dataset.paused, ctx.visible, body.classList.contains("tt-paused")], ["1", false, true]);
  observer.show(true);
  assert.deepEqual([body.dataset.paused, ctx.visible], ["", true]);
  assert.deepEqual(await app.onteardown(), {});
  assert.ok(observer.disconnected);
  assert.equal(tornDown, 1);
  assert.deepEqual(heard, [["remove"]]);
});

test("the full-screen button asks the host, and the document follows the mode it grants", async (t) => {
  const app = fakeApp({ context: { availableDisplayModes: ["inline", "fullscreen"], toolInfo: { tool: { name: "tomtom-routing" } } } });
  const { ctx, body, $ } = await started(t, {}, { app });
  assert.equal(ctx.tool, "tomtom-routing");
  assert.equal(body.dataset.display, "inline");
  assert.equal($("fullscreen").hidden, false);
  $("fullscreen").dispatchEvent(new globalThis.window.Event("click"));
  await settle();
  assert.equal(body.dataset.display, "fullscreen");
  app.requestDisplayMode = async () => Promise.reject(new Error("not allowed"));
  $("fullscreen").dispatchEvent(new globalThis.window.Event("click"));
  await settle();
  assert.equal($("notes").textContent, "Full screen is not available (not allowed).");
});

/**
 * Turns of the event loop until `done()`, for at most `ms` of real time: decoding app data
 * leaves the loop for zlib's threads, which a loaded machine may not run for a while.
 */
async function until(done, ms = 10_000) {
  const by = Date.now() + ms;
  while (!done() && Date.now() < by) await settle();
  assert.ok(done(), `the view never got there in ${ms} ms`);
}

const pack = (value) => zlib.gzipSync(Buffer.from(JSON.stringify(value))).toString("base64");
const ROUTE_ENV = { v: 1, tool: "tomtom-routing", data: { type: "FeatureCollection", features: [] }, fitted: null };

test("ChatGPT on the web: a notification whose _meta the host replaced draws from window.openai, once", async (t) => {
  const drawn = [];
  const ours = { [envelope.KEY]: pack(ROUTE_ENV), tool: "tomtom-routing", viewUUID: UUID };
  const spec = { onResult: async (result, ctx) => drawn.push((await ctx.appData(result)).tool) };
  const app = fakeApp({ version: { name: "ChatGPT", version: "1" }, context: { platform: "web" } });
  mockOnce(t);
  const { document, window } = fakeDocument(SHELL);
  window.openai = { toolInput: { locations: [] }, toolResponseMetadata: ours };
  t.after(() => delete window.openai); // linkedom's window keeps it for the next test
  Object.assign(globalThis, { document, window, IntersectionObserver: FakeObserver });
  await startView({ name: "tomtom-map", tool: "tomtom-map", ...spec }, app);
  await until(() => drawn.length);
  assert.deepEqual(drawn, ["tomtom-routing"], "window.openai holds the result before any notification");
  await app.emit("toolresult", { content: [{ type: "text", text: "{}" }], _meta: { "openai/widgetSessionId": "w-1" } });
  for (let i = 0; i < 50; i++) await settle();
  assert.deepEqual(drawn, ["tomtom-routing"], "the notification with the host's own _meta is the same result");
  assert.notEqual(document.body.dataset.reason, "meta_dropped");
});

test("a notification without our keys is read through window.openai before the view says _meta was dropped", async (t) => {
  const { app, window, body } = await started(t, { onResult: async (result, ctx) => ctx.ok(`${(await ctx.appData(result)).tool} drawn`) });
  window.openai = { toolResponseMetadata: { [envelope.KEY]: pack(ROUTE_ENV), tool: "tomtom-routing" } };
  t.after(() => delete window.openai);
  await app.emit("toolresult", { content: [], _meta: { "openai/widgetSessionId": "w-2" } });
  await until(() => body.dataset.status !== "loading");
  assert.deepEqual([body.dataset.status, body.dataset.reason], ["ok", "drawn"]);
});

/** A session stand-in: its map configuration says whether the server runs tools again. */
const refetchSession = (refetch) => ({ open: async () => ({ refetch }), setVisible() {}, restyle() {}, remove() {} });

test("where the host dropped _meta and the server runs tools again, the view fetches its data with its tool input and says so", async (t) => {
  const app = fakeApp({ context: { toolInfo: { tool: { name: "tomtom-routing" } } } });
  const served = [];
  app.callServerTool = async ({ name, arguments: args }) => {
    app.calls.push([name, args]);
    if (name !== "tomtom-refetch-app-data") return { content: [] };
    served.push(args);
    return { content: [], _meta: { [envelope.KEY]: pack(ROUTE_ENV), tool: "tomtom-routing", "com.tomtom/refetched": true } };
  };
  const spec = { session: refetchSession(true), onResult: async (result, ctx) => ctx.ok(`${(await ctx.appData(result)).tool} drawn`) };
  const { body, $ } = await started(t, spec, { app });
  const input = { locations: [[4.9, 52.37], [5.12, 52.09]] };
  app.emit("toolinput", { arguments: input });
  await app.emit("toolresult", { content: [] });
  await until(() => body.dataset.status !== "loading");
  assert.deepEqual(served, [{ tool: "tomtom-routing", arguments: input }]);
  assert.deepEqual([body.dataset.status, body.dataset.reason, body.dataset.refetched], ["ok", "drawn", "1"]);
  assert.match($("notes").textContent, /the server fetched it again/);
});

test("where the server does not run tools again, or the host never named the tool, a dropped _meta is said and nothing is fetched", async (t) => {
  for (const [session, context] of [
    [refetchSession(false), { toolInfo: { tool: { name: "tomtom-routing" } } }],
    [refetchSession(true), {}],
  ]) {
    const app = fakeApp({ context });
    const { body } = await started(t, { session, onResult: async (result, ctx) => ctx.ok(String(await ctx.appData(result))) }, { app });
    app.emit("toolinput", { arguments: { locations: [] } });
    await app.emit("toolresult", { content: [] });
    await until(() => body.dataset.status !== "loading");
    assert.equal(body.dataset.reason, "meta_dropped");
    assert.deepEqual(app.calls.map(([name]) => name), ["tomtom-report-app-status"]);
  }
});

test("a refetch the server refuses is a fetch failure that says why", async (t) => {
  const app = fakeApp({ context: { toolInfo: { tool: { name: "tomtom-routing" } } } });
  app.callServerTool = async ({ name, arguments: args }) => {
    app.calls.push([name, args]);
    return name === "tomtom-refetch-app-data" ? { isError: true, content: [{ type: "text", text: "refetch limit reached: 10 a minute" }] } : { content: [] };
  };
  const { body, $ } = await started(t, { session: refetchSession(true), onResult: async (result, ctx) => ctx.ok(String(await ctx.appData(result))) }, { app });
  app.emit("toolinput", { arguments: {} });
  await app.emit("toolresult", { content: [] });
  await until(() => body.dataset.status !== "loading");
  assert.equal(body.dataset.reason, "fetch_failed");
  assert.match($("message").textContent, /refetch limit reached: 10 a minute/);
});

test("on a small map the legend starts folded; the user's choice holds across redraws", async (t) => {
  const rows = [{ label: "Route", color: "#0b57d0", shape: "line", group: "routes" }];
  const { app, body, $, ctx } = await started(t, { onResult: async (result, ctx) => ctx.setLegend(rows) });
  await app.emit("toolresult", { content: [] });
  assert.equal(body.dataset.legend, "folded", "linkedom lays nothing out: a map of 0 px is small");
  assert.equal($("legend").hidden, true);
  $("legend-fold").dispatchEvent(new globalThis.window.Event("click", { bubbles: true }));
  assert.deepEqual([body.dataset.legend, $("legend").hidden], ["open", false]);
  ctx.setLegend(rows);
  assert.deepEqual([body.dataset.legend, $("legend").hidden], ["open", false], "opened by the user, it stays open");
});
