/**
 * What every view does with its host: one ext-apps `App` with every handler
 * set before `connect()`; the host context (look, locale, time zone, size,
 * full screen); the list and the selection, told to the model like failures
 * (`updateModelContext`); view state under the result's `viewUUID`; pausing
 * while scrolled away; redrawing in a new theme or locale; the note on
 * offline demo data; and the status report to the server, with the host the
 * view runs in (docs/views.md). The DOM belongs to `shell.js`, the
 * status to `status.js`; a view supplies `onResult` and draws.
 */
import { App } from "@modelcontextprotocol/ext-apps";
import envelope from "./envelope.js";
import { createLocale } from "./i18n.js";
import { degradedText, selectionText } from "./context.js";
import { viewState } from "./viewstate.js";
import { hostInfo, metaDroppedText } from "./hosts.js";
import { createStatus } from "./status.js";
import { createShell } from "./shell.js";
import { createRedraw } from "./redraw.js";

const RESULT_WAIT_MS = 120000;
/** How long a view waits for its tool input when it needs it to fetch its data (hosts send it before the result). */
const INPUT_WAIT_MS = 10000;
/** How long one of the view's own tool calls (map configuration, data pages) may take before it fails. */
export const CALL_WAIT_MS = 60000;
const DATA_SOURCE = "com.tomtom/data-source";

/** The view's `App`, offering inline and full-screen display. */
function createApp(name) {
  return new App({ name, version: "1.0.0" }, { availableDisplayModes: ["inline", "fullscreen"] }, { autoResize: true });
}

/**
 * Start the view. spec: {name, tool (reported until the host names the tool;
 * `oneTool` when the view shows that tool only), links, session (its
 * mapSession: restyled on a theme change, layer groups shown or hidden from the
 * legend, removed on teardown, asked whether the server runs tools again),
 * onPartial(args, ctx), onInput(args, ctx), onResult(result, ctx, stored),
 * onSelect(item, ctx, via), onTeardown()}. `app` is the ext-apps `App` (or
 * anything with its interface). Resolves to the view's `ctx` once connected.
 */
export async function startView(spec, app = createApp(spec.name)) {
  const status = createStatus(document.body);
  const redraw = createRedraw();
  const inputWaiters = [];

  const ctx = {
    app,
    tool: spec.tool,
    input: null,
    l10n: createLocale(navigator.language, undefined),
    state: viewState(null),
    status,
    /** False while the view is scrolled out of sight. */
    get visible() {
      return status.state.paused !== true;
    },
    theme: () => shell.theme(),
    t: (key, vars) => ctx.l10n.t(key, vars),
    showMessage: (kind, title, text, progress) => shell.showMessage(kind, title, text, progress),
    hideMessage: () => shell.hideMessage(),
    addNote,
    clearNotes: () => shell.clearNotes(),
    setTitle: (title, subtitle) => shell.setTitle(title, subtitle),
    /**
     * rows: {label, color, shape "line"|"dot"|"area", dash, under, group}; rows with a
     * group toggle it (persisted). Folded on a small map until the user opens it.
     */
    setLegend(rows) {
      shell.setLegend(rows, isHidden, legendFolded());
      status.set({ legend: rows.length ? (legendFolded() ? "folded" : "open") : null });
    },
    isHidden,
    tilesProblem: () => status.state.tilesProblem,
    callTool: async (name, args) => app.callServerTool({ name, arguments: args }, { timeout: CALL_WAIT_MS }),
    /** The tool input once the host sent it, or null after `ms`. */
    waitForInput(ms = INPUT_WAIT_MS) {
      if (ctx.input) return Promise.resolve(ctx.input);
      return new Promise((resolve) => {
        const timer = setTimeout(() => resolve(null), ms);
        inputWaiters.push((input) => {
          clearTimeout(timer);
          resolve(input);
        });
      });
    },
    /**
     * The app data of `result`, or why there is none. Where the host dropped `_meta`
     * and the server runs tools again for views (VIEW_REFETCH: `refetch`
     * in the map configuration), the server runs the view's tool again with its
     * tool input, and a note says the data was fetched again.
     */
    async appData(result) {
      try {
        return await envelope.fromResult(result);
      } catch (err) {
        if (err.reason !== "meta_dropped" || !(await refetchAllowed())) throw err;
        const input = await ctx.waitForInput();
        if (!input) throw new envelope.ViewError("no_input", `${err.message} The host sent no tool input either, so the server cannot fetch it again.`);
        shell.showMessage("loading", ctx.t("loading"), ctx.t("refetching"));
        const { env } = await envelope.refetch(ctx.callTool, ctx.tool, input);
        status.set({ refetched: true });
        shell.addNote(ctx.t("refetched"), true);
        return env;
      }
    },
    /** groups: [{title, items: [{id, kind, name, sub, mark, address, position, details}]}]. */
    setItems(groups) {
      status.set({ items: shell.list.setGroups(groups) });
      shell.hideDetails();
      relayout();
    },
    /** Select `id` as the user did (`via` "list" or "map"): list, map, model, stored state. */
    select(id, via = "map") {
      const item = shell.list.item(id);
      if (!item) return;
      mark(item, via);
      ctx.state.save({ selected: id });
      tellModel(selectionText({ view: spec.name, tool: ctx.tool }, item), "selection");
    },
    /** Mark `id` selected without telling the model again (restoring a stored view). */
    restoreSelection(id) {
      const item = shell.list.item(id);
      if (!item) return false;
      mark(item, "restore");
      return true;
    },
    /**
     * Draw with `draw(ctx, stored)` and remember it: a host context in another
     * theme or locale draws it again, the selection kept. Returns what it returns.
     */
    draw: (draw, stored) => redraw.draw(draw, ctx, stored),
    /** True once the view drew its result. */
    drawn: () => redraw.drawn(),
    openLink,
    /** Draw succeeded: mark the document and tell the server (`fallback`: drawn without MapLibre, and why). */
    ok(detail, counts = {}) {
      shell.hideMessage();
      setCounts(counts);
      const { engineProblem, tilesProblem } = status.state;
      report("ok", engineProblem ? "fallback" : "drawn", [detail, engineProblem, tilesProblem].filter(Boolean).join("; "));
    },
    /**
     * MapLibre could not start (`why`, in English): the worker-free renderer draws, a kept
     * note says so on screen (in the offline note when there is one), the host's log
     * hears why, and every report carries it.
     */
    engineFallback(why) {
      status.set({ engine: "canvas", engineProblem: why });
      if (!shell.joinOffline(ctx.t("simpleMap"))) shell.addNote(ctx.t("simpleMap"), true);
      console.warn(why);
      if (status.state.connected) app.sendLog?.({ level: "warning", logger: spec.name, data: why })?.catch?.(() => {});
    },
    /** Tiles are missing or failed: a note, not an error; after the ok report, reported again. */
    tilesFailed(message, tiles = "failed") {
      if (status.state.tilesProblem) return;
      status.set({ tilesProblem: message, tiles });
      addNote(message);
      if (status.state.status === "ok") report("ok", "tiles_failed", message);
    },
    /** The answer itself is empty (nothing found): say so; that is not a failure. */
    empty(title, message, counts = {}) {
      shell.showMessage("empty", title, message);
      setCounts(counts);
      report("ok", "empty", [message, status.state.engineProblem].filter(Boolean).join("; "));
    },
    /** Nothing (more) to draw: say why on screen, to the server and to the model. */
    fail(reason, message, title = errorTitle(reason)) {
      // The host dropped _meta: name it and say what the user can do there.
      if (reason === "meta_dropped") message = metaDroppedText(hostInfo(app));
      shell.showMessage("error", title, message);
      report("error", reason, message);
      tellModel(degradedText({ view: spec.name, tool: ctx.tool }, reason, message), "degraded");
    },
  };

  const shell = createShell(document, ctx.t, {
    select: (id) => ctx.select(id, "list"),
    toggle,
    fold: () => {
      const open = legendFolded();
      status.set({ legendOpen: open, legend: open ? "open" : "folded" });
      shell.foldLegend(!open);
    },
    details: (kind, id) => {
      const item = shell.list.item(id);
      if (item) openLink(spec.links?.[kind]?.(item, ctx));
    },
    link: openLink,
    fullscreen,
  });

  /** The server runs tools again for this view, and the view knows which tool to name. */
  async function refetchAllowed() {
    if (!(status.state.toolNamed || spec.oneTool)) return false;
    const opened = await spec.session?.open(ctx);
    return opened?.refetch === true;
  }

  /**
   * Lay the panels out for the map's size now (a new display mode, a resized
   * frame, a list that appeared): the legend folded or open, the notes over a
   * map wide enough for them, else at the top of the list.
   */
  function relayout() {
    shell.placeNotes(Number(status.state.items) > 0 && shell.narrow());
    if (!status.state.legend) return;
    shell.foldLegend(legendFolded());
    status.set({ legend: legendFolded() ? "folded" : "open" });
  }

  /** The user's choice, else folded where the map is too small for it open. */
  function legendFolded() {
    const chosen = status.state.legendOpen;
    return chosen === undefined ? shell.cramped() : !chosen;
  }

  function isHidden(group) {
    return (status.state.hidden || []).includes(group);
  }

  function errorTitle(reason) {
    const title = ctx.t(`errors.${reason}`);
    return title === `errors.${reason}` ? ctx.t("errors.other") : title;
  }

  /** With no key the offline map's reason joins the offline-data note instead of a panel of its own. */
  function addNote(text) {
    const { dataSource, tiles, tilesProblem } = status.state;
    if (dataSource === "offline" && tiles === "none" && text === tilesProblem && shell.joinOffline(text)) return;
    shell.addNote(text);
  }

  function mark(item, via) {
    shell.list.select(item.id);
    shell.showDetails(item);
    status.set({ selected: item.id });
    spec.onSelect?.(item, ctx, via);
  }

  /** A legend button switched `group` on or off: the map, the legend, the stored state follow. */
  function toggle(group) {
    const visible = isHidden(group);
    const others = (status.state.hidden || []).filter((g) => g !== group);
    status.set({ hidden: visible ? others : [...others, group] });
    shell.pressLegend(group, visible);
    ctx.state.save({ hidden: status.state.hidden });
    spec.session?.setVisible(group, visible);
  }

  /** Ask the host to open `url` (https only); a refusal becomes a note. */
  async function openLink(url) {
    if (typeof url !== "string" || !/^https:\/\//.test(url)) return;
    try {
      const result = await app.openLink({ url });
      if (result?.isError) addNote(`The host did not open ${url}`);
    } catch (err) {
      addNote(`The host cannot open links (${err.message}): ${url}`);
    }
  }

  async function fullscreen() {
    const next = status.state.display === "fullscreen" ? "inline" : "fullscreen";
    try {
      const { mode } = await app.requestDisplayMode({ mode: next });
      applyContext({ ...app.getHostContext(), displayMode: mode });
    } catch (err) {
      addNote(`Full screen is not available (${err.message}).`);
    }
  }

  function tellModel(text, kind) {
    if (!status.state.connected || !app.getHostCapabilities()?.updateModelContext) return;
    app
      .updateModelContext({ content: [{ type: "text", text }] })
      .then(() => status.set({ modelContext: kind }))
      .catch((err) => console.warn("updateModelContext failed", err));
  }

  function setCounts(counts) {
    status.set((s) => ({ counts: { ...s.counts, ...counts } }));
  }

  /** Mark the outcome; tell the server once per distinct outcome, once connected. */
  function report(outcome, reason, detail) {
    status.set({ status: outcome, reason });
    const key = `${outcome}:${reason}:${detail}`;
    if (status.state.lastReport === key || !status.state.connected) return;
    status.set({ lastReport: key });
    const args = { tool: ctx.tool, status: outcome, reason, detail: String(detail).slice(0, 500), host: hostInfo(app) };
    app
      .callServerTool({ name: "tomtom-report-app-status", arguments: args })
      .then(() => status.set({ reported: outcome }))
      .catch((err) => console.warn("status report failed", err));
  }

  function applyContext(hc) {
    if (!hc) return;
    if (hc.locale || hc.timeZone) ctx.l10n = createLocale(hc.locale || ctx.l10n.locale, hc.timeZone || ctx.l10n.timeZone);
    shell.applyLook(hc, ctx.l10n.locale);
    status.set({ display: hc.displayMode || "inline" });
    if (hc.toolInfo?.tool?.name) {
      ctx.tool = hc.toolInfo.tool.name;
      status.set({ toolNamed: true });
    }
    if (hc.theme) spec.session?.restyle(hc.theme);
    relayout();
    const selected = status.state.selected;
    if (redraw.again(ctx) && selected) ctx.restoreSelection(selected);
  }

  window.addEventListener("resize", relayout);
  // Offscreen, the view stops refreshing tiles and animating.
  const observer = shell.observeVisibility((visible) => {
    if (visible !== ctx.visible) status.set({ paused: !visible });
  });

  const handleResult = async (received) => {
    // ChatGPT on the web replaces the notification's _meta, but keeps ours in window.openai.
    const meta = envelope.appMeta(received, window.openai?.toolResponseMetadata) || {};
    const result = { ...received, _meta: meta };
    // The same result again (from window.openai, then the notification) is drawn once.
    const seen = `${meta.viewUUID ?? ""}:${meta[envelope.KEY] ?? ""}`;
    if (status.state.resulted && status.state.lastResult === seen && !received?.isError) return;
    status.set({ lastResult: seen });
    const uuid = meta.viewUUID;
    ctx.state = viewState(uuid);
    const stored = ctx.state.load();
    status.set({ resulted: true, hidden: Array.isArray(stored?.hidden) ? [...new Set(stored.hidden)] : [], stored: Boolean(stored) });
    // Noted before drawing, so that the camera fits the data clear of the note.
    if (meta[DATA_SOURCE] === "offline" && status.state.dataSource !== "offline") {
      const { tiles, tilesProblem } = status.state;
      status.set({ dataSource: "offline" });
      shell.markOffline(ctx.t("offlineData"), tiles === "none" ? tilesProblem : null);
    }
    try {
      await spec.onResult(result, ctx, stored);
    } catch (err) {
      ctx.fail(err.reason || "render_failed", err.reason ? err.message : `Drawing failed: ${err.message}`);
      console.error(err);
    }
  };

  app.addEventListener("toolinputpartial", (params) => {
    if (!status.state.resulted && params?.arguments) spec.onPartial?.(params.arguments, ctx);
  });
  app.addEventListener("toolinput", (params) => {
    ctx.input = params.arguments || {};
    for (const waiter of inputWaiters.splice(0)) waiter(ctx.input);
    spec.onInput?.(ctx.input, ctx);
  });
  app.addEventListener("toolresult", (result) => handleResult(result));
  app.addEventListener("hostcontextchanged", (params) => applyContext({ ...app.getHostContext(), ...params }));
  app.onteardown = async () => {
    observer.disconnect();
    spec.onTeardown?.();
    spec.session?.remove();
    return {};
  };
  app.onerror = (err) => console.error("MCP Apps error", err);

  shell.showMessage("loading", ctx.t("loading"), ctx.t("waiting"));
  try {
    await app.connect();
    status.set({ connected: true });
  } catch (err) {
    shell.showMessage("error", "Not connected", `This view must run inside an MCP Apps host (${err.message}).`);
    status.set({ status: "error", reason: "not_connected" });
    return ctx;
  }
  applyContext(app.getHostContext());
  if (status.state.status === "loading" && !status.state.resulted) shell.showMessage("loading", ctx.t("loading"), ctx.t("waiting"));
  // A host that never sends the result still gets an answer on screen and in
  // the log; a result arriving later is drawn as usual.
  setTimeout(() => {
    if (!status.state.resulted) ctx.fail("no_result", "The host has not sent the tool result after two minutes.");
  }, RESULT_WAIT_MS);
  if (status.state.status !== "loading") report(status.state.status, status.state.reason, shell.messageText() || "drawn before connect");
  // Older ChatGPT builds put the result in window.openai instead of notifying.
  const openai = window.openai;
  if (openai && !status.state.resulted && openai.toolResponseMetadata) {
    if (!ctx.input && openai.toolInput) {
      ctx.input = openai.toolInput;
      for (const waiter of inputWaiters.splice(0)) waiter(ctx.input);
      spec.onInput?.(ctx.input, ctx);
    }
    handleResult({ content: [], _meta: openai.toolResponseMetadata });
  }
  return ctx;
}
