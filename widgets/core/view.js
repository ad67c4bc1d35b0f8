/**
 * The shell every view shares: one ext-apps `App` with every handler set
 * before `connect()`; host theme, fonts, safe areas, locale, time zone and
 * size; full screen; the on-screen message, notes, legend, title and list;
 * the selection and failures told to the model (`updateModelContext`); view
 * state under the result's `viewUUID`; pausing while scrolled away; the
 * note on offline demo data; and the status report to the server, with the
 * host the view runs in (ADRs 0041, 0062). A view supplies `onPartial`,
 * `onResult` and draws.
 */
import { App, applyDocumentTheme, applyHostFonts, applyHostStyleVariables } from "@modelcontextprotocol/ext-apps";
import { createLocale } from "./i18n.js";
import { createList } from "./list.js";
import { escapeHtml, markHtml } from "./html.js";
import { degradedText, selectionText } from "./context.js";
import { viewState } from "./viewstate.js";
import { createStatus } from "./status.js";
import { hostInfo, metaDroppedText } from "./hosts.js";

const INLINE_MAX = 500;
const INLINE_DEFAULT = 440;
const RESULT_WAIT_MS = 120000;
const DATA_SOURCE = "com.tomtom/data-source";
const $ = (id) => document.getElementById(id);

/**
 * Start the view. spec: {name, tool, onPartial(args, ctx), onInput(args, ctx),
 * onResult(result, ctx), onHostContext(hc, ctx), onSelect(item, ctx),
 * onToggle(group, visible, ctx), onVisible(visible, ctx), onTeardown()}.
 */
export async function startView(spec) {
  const app = new App({ name: spec.name, version: "1.0.0" }, { availableDisplayModes: ["inline", "fullscreen"] }, { autoResize: true });
  const status = createStatus(document.body);
  let configPromise = null;
  // The offline-data note; with no key, the offline map's reason shares its panel.
  let offlineNote = null;
  let items = new Map();
  let legendRows = [];
  const hidden = (group) => (status.state.hidden || []).includes(group);

  const ctx = {
    app,
    tool: spec.tool,
    input: null,
    l10n: createLocale(navigator.language, undefined),
    state: viewState(null),
    status,
    /** False while the view is scrolled out of sight (ADR 0045). */
    get visible() {
      return status.state.paused !== true;
    },
    theme: () => document.documentElement.dataset.theme || "light",
    t: (key, vars) => ctx.l10n.t(key, vars),
    showMessage,
    hideMessage,
    addNote,
    clearNotes: () => {
      for (const note of [...$("notes").children]) if (note !== offlineNote) note.remove();
    },
    setTitle,
    setLegend,
    isHidden: hidden,
    tilesProblem: () => status.state.tilesProblem,
    /**
     * Tile URL templates for `layers` from `tomtom-get-map-config`, on the server's
     * tile route with a short-lived token (never a key): `{tiles, offline, reason,
     * expiresIn, renew}`, `renew()` asking again for a fresh token; `{tiles: {},
     * error}` when unavailable.
     */
    mapConfig(layers) {
      const ask = () =>
        app
          .callServerTool({ name: "tomtom-get-map-config", arguments: layers ? { layers } : {} })
          .then((r) => {
            const cfg = r && !r.isError && r._meta && r._meta["com.tomtom/map-config"];
            if (!cfg) return { tiles: {}, error: "the server sent no map configuration" };
            return {
              tiles: cfg.tiles || {},
              offline: cfg.offline === true,
              reason: cfg.reason || "",
              expiresIn: Number.isFinite(cfg.expires_in) ? cfg.expires_in : 0,
              renew: ask,
            };
          })
          .catch((err) => ({ tiles: {}, error: err.message }));
      configPromise ??= ask();
      return configPromise;
    },
    callTool: async (name, args) => app.callServerTool({ name, arguments: args }),
    /** groups: [{title, items: [{id, kind, name, sub, mark, address, position, details}]}]. */
    setItems(groups) {
      items = new Map(groups.flatMap((g) => g.items.map((i) => [i.id, i])));
      status.set({ items: list.setGroups(groups) });
      $("details").hidden = true;
    },
    /** Select `id` as the user did (`via` "list" or "map"): list, map, model, stored state. */
    select(id, via = "map") {
      const item = items.get(id);
      if (!item) return;
      list.select(id);
      showDetails(item);
      status.set({ selected: id });
      spec.onSelect?.(item, ctx, via);
      ctx.state.save({ selected: id });
      tellModel(selectionText({ view: spec.name, tool: ctx.tool }, item), "selection");
    },
    /** Mark `id` selected without telling the model again (restoring a stored view). */
    restoreSelection(id) {
      const item = items.get(id);
      if (!item) return false;
      list.select(id);
      showDetails(item);
      status.set({ selected: id });
      spec.onSelect?.(item, ctx, "restore");
      return true;
    },
    openLink,
    /** Draw succeeded: mark the document and tell the server. */
    ok(detail, counts = {}) {
      hideMessage();
      setCounts(counts);
      const problem = status.state.tilesProblem;
      report("ok", "drawn", problem ? `${detail}; ${problem}` : detail);
    },
    /** Tiles are missing or failed: a note, not an error (ADR 0041); after the ok report, reported again. */
    tilesFailed(message, tiles = "failed") {
      if (status.state.tilesProblem) return;
      status.set({ tilesProblem: message, tiles });
      addNote(message);
      if (status.state.status === "ok") report("ok", "tiles_failed", message);
    },
    /** The answer itself is empty (nothing found): say so; that is not a failure. */
    empty(title, message, counts = {}) {
      showMessage("empty", title, message);
      setCounts(counts);
      report("ok", "empty", message);
    },
    /** Nothing (more) to draw: say why on screen, to the server and to the model. */
    fail(reason, message, title = errorTitle(reason)) {
      // The host dropped _meta: name it and say what the user can do there (ADR 0062).
      if (reason === "meta_dropped") message = metaDroppedText(hostInfo(app));
      showMessage("error", title, message);
      report("error", reason, message);
      tellModel(degradedText({ view: spec.name, tool: ctx.tool }, reason, message), "degraded");
    },
  };

  function errorTitle(reason) {
    const title = ctx.t(`errors.${reason}`);
    return title === `errors.${reason}` ? ctx.t("errors.other") : title;
  }

  const list = createList($("list"), { label: ctx.t("list"), onSelect: (id) => ctx.select(id, "list") });

  function showMessage(kind, title, text, progress) {
    const box = $("message");
    box.hidden = false;
    box.className = kind;
    const spinner = kind === "loading" && progress === undefined ? '<div class="tt-spinner"></div>' : "";
    const bar = progress === undefined ? "" : `<progress max="1" value="${progress ?? ""}"></progress>`;
    box.innerHTML =
      `<div class="card tt-panel" role="${kind === "error" ? "alert" : "status"}">${spinner}` +
      `<h2>${escapeHtml(title)}</h2>${text ? `<p>${escapeHtml(text)}</p>` : ""}${bar}</div>`;
  }

  function hideMessage() {
    $("message").hidden = true;
  }

  function addNote(text) {
    if (offlineNote && text === status.state.tilesProblem && status.state.tiles === "none") {
      // No key: the offline map's reason joins the offline-data note instead of a panel of its own.
      if (!offlineNote.textContent.endsWith(text)) offlineNote.append(" ", text);
      return offlineNote;
    }
    const note = document.createElement("div");
    note.className = "tt-panel";
    note.textContent = text;
    $("notes").append(note);
    return note;
  }

  function setTitle(title, subtitle) {
    const box = $("title");
    if (!title) return void (box.hidden = true);
    box.hidden = false;
    box.innerHTML = `<strong>${escapeHtml(title)}</strong>${subtitle ? `<span>${escapeHtml(subtitle)}</span>` : ""}`;
  }

  /** rows: {label, color, shape "line"|"dot"|"area", dash, under, group}; rows with a group toggle it (persisted). */
  function setLegend(rows) {
    legendRows = rows;
    const box = $("legend");
    box.hidden = rows.length === 0;
    box.setAttribute("aria-label", ctx.t("layers"));
    box.innerHTML = rows
      .map((r, i) => {
        const mark = markHtml({ color: r.color, shape: r.shape, dash: r.dash, under: r.under });
        const text = `<span>${escapeHtml(r.label)}</span>`;
        if (!r.group) return `<div class="row">${mark}${text}</div>`;
        const on = !hidden(r.group);
        return `<button type="button" class="row" data-i="${i}" aria-pressed="${on}" title="${escapeHtml(ctx.t("show", { what: r.label }))}">${mark}${text}</button>`;
      })
      .join("");
  }

  $("legend").addEventListener("click", (e) => {
    const b = e.target.closest("button[data-i]");
    if (!b) return;
    const group = legendRows[Number(b.dataset.i)].group;
    const visible = hidden(group);
    const others = (status.state.hidden || []).filter((g) => g !== group);
    status.set({ hidden: visible ? others : [...others, group] });
    for (const other of $("legend").querySelectorAll("button[data-i]")) {
      if (legendRows[Number(other.dataset.i)].group === group) other.setAttribute("aria-pressed", String(visible));
    }
    ctx.state.save({ hidden: status.state.hidden });
    spec.onToggle?.(group, visible, ctx);
  });

  function showDetails(item) {
    const box = $("details");
    box.hidden = false;
    const links = [];
    if (item.position) {
      links.push(`<button type="button" data-link="place">${escapeHtml(ctx.t("openInTomTom"))}</button>`);
      links.push(`<button type="button" data-link="directions">${escapeHtml(ctx.t("directions"))}</button>`);
    }
    const rows = Object.entries(item.facts || {})
      .filter(([, v]) => v)
      .map(([k, v]) => `<div><span class="muted">${escapeHtml(k)}</span> ${escapeHtml(v)}</div>`)
      .join("");
    box.innerHTML =
      `<strong>${escapeHtml(item.name)}</strong>${item.address ? `<div>${escapeHtml(item.address)}</div>` : ""}${rows}` +
      (links.length ? `<div class="tt-links">${links.join("")}</div>` : "");
    box.dataset.id = item.id;
  }

  $("details").addEventListener("click", (e) => {
    const b = e.target.closest("button[data-link]");
    const item = b && items.get($("details").dataset.id);
    if (item) openLink(spec.links?.[b.dataset.link]?.(item, ctx));
  });

  // Every link in the document (MapLibre's attribution too) opens through the host, never a
  // window of the view's own: a sandbox without allow-popups would swallow it anyway.
  document.addEventListener(
    "click",
    (e) => {
      const a = e.target.closest?.("a[href]");
      if (!a) return;
      e.preventDefault();
      openLink(a.href);
    },
    true,
  );

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
    if (hc.theme) {
      applyDocumentTheme(hc.theme);
      document.documentElement.dataset.theme = hc.theme;
    }
    if (hc.styles?.variables) applyHostStyleVariables(hc.styles.variables);
    if (hc.styles?.css?.fonts) applyHostFonts(hc.styles.css.fonts);
    const insets = hc.safeAreaInsets;
    if (insets) {
      for (const side of ["top", "right", "bottom", "left"]) {
        document.documentElement.style.setProperty(`--tt-inset-${side}`, `${insets[side] || 0}px`);
      }
    }
    if (hc.locale || hc.timeZone) {
      ctx.l10n = createLocale(hc.locale || ctx.l10n.locale, hc.timeZone || ctx.l10n.timeZone);
      document.documentElement.lang = ctx.l10n.locale;
      $("list").setAttribute("aria-label", ctx.t("list"));
    }
    const mode = hc.displayMode || "inline";
    status.set({ display: mode });
    // A fixed host height is used as given; a maximum caps our preference; inline never over 500 px.
    const dims = hc.containerDimensions || {};
    const wanted = Number.isFinite(dims.height) ? dims.height : Math.min(dims.maxHeight || INLINE_DEFAULT, INLINE_DEFAULT);
    const height = mode === "fullscreen" ? null : Math.max(240, Math.min(INLINE_MAX, wanted));
    if (height) document.documentElement.style.setProperty("--tt-height", `${height}px`);
    const button = $("fullscreen");
    button.hidden = !(hc.availableDisplayModes || []).includes("fullscreen");
    const label = ctx.t(mode === "fullscreen" ? "exitFullscreen" : "fullscreen");
    button.textContent = mode === "fullscreen" ? "⤡" : "⤢";
    button.title = label;
    button.setAttribute("aria-label", label);
    if (hc.toolInfo?.tool?.name) ctx.tool = hc.toolInfo.tool.name;
    spec.onHostContext?.(hc, ctx);
  }

  $("fullscreen").addEventListener("click", async () => {
    const next = status.state.display === "fullscreen" ? "inline" : "fullscreen";
    try {
      const { mode } = await app.requestDisplayMode({ mode: next });
      applyContext({ ...app.getHostContext(), displayMode: mode });
    } catch (err) {
      addNote(`Full screen is not available (${err.message}).`);
    }
  });

  // Offscreen, the view stops refreshing tiles and animating (ADR 0045).
  const observer = new IntersectionObserver((entries) => {
    const visible = entries.some((e) => e.isIntersecting);
    if (visible === ctx.visible) return;
    status.set({ paused: !visible });
    spec.onVisible?.(visible, ctx);
  });
  observer.observe($("frame"));

  const handleResult = async (result) => {
    const uuid = result?._meta?.viewUUID;
    ctx.state = viewState(uuid);
    const stored = ctx.state.load();
    status.set({ resulted: true, hidden: Array.isArray(stored?.hidden) ? [...new Set(stored.hidden)] : [], stored: Boolean(stored) });
    try {
      await spec.onResult(result, ctx, stored);
    } catch (err) {
      ctx.fail(err.reason || "render_failed", err.reason ? err.message : `Drawing failed: ${err.message}`);
      console.error(err);
    }
    const meta = result?._meta || window.openai?.toolResponseMetadata || {};
    if (meta[DATA_SOURCE] === "offline" && status.state.dataSource !== "offline") {
      status.set({ dataSource: "offline" });
      const lead = document.createElement("strong");
      lead.className = "tt-offline";
      lead.textContent = ctx.t("offlineData");
      const tiles = status.state.tiles === "none" && [...$("notes").children].find((n) => n.textContent === status.state.tilesProblem);
      offlineNote = tiles || addNote("");
      offlineNote.prepend(...(tiles ? [lead, " "] : [lead]));
    }
  };

  app.addEventListener("toolinputpartial", (params) => {
    if (!status.state.resulted && params?.arguments) spec.onPartial?.(params.arguments, ctx);
  });
  app.addEventListener("toolinput", (params) => {
    ctx.input = params.arguments || {};
    spec.onInput?.(ctx.input, ctx);
  });
  app.addEventListener("toolresult", (result) => handleResult(result));
  app.addEventListener("hostcontextchanged", (params) => applyContext({ ...app.getHostContext(), ...params }));
  app.onteardown = async () => {
    observer.disconnect();
    spec.onTeardown?.();
    return {};
  };
  app.onerror = (err) => console.error("MCP Apps error", err);

  showMessage("loading", ctx.t("loading"), ctx.t("waiting"));
  try {
    await app.connect();
    status.set({ connected: true });
  } catch (err) {
    showMessage("error", "Not connected", `This view must run inside an MCP Apps host (${err.message}).`);
    status.set({ status: "error", reason: "not_connected" });
    return ctx;
  }
  applyContext(app.getHostContext());
  if (status.state.status === "loading" && !status.state.resulted) showMessage("loading", ctx.t("loading"), ctx.t("waiting"));
  // A host that never sends the result still gets an answer on screen and in
  // the log; a result arriving later is drawn as usual.
  setTimeout(() => {
    if (!status.state.resulted) ctx.fail("no_result", "The host has not sent the tool result after two minutes.");
  }, RESULT_WAIT_MS);
  if (status.state.status !== "loading") {
    report(status.state.status, status.state.reason, $("message").innerText || "drawn before connect");
  }
  // Older ChatGPT builds put the result in window.openai instead of notifying.
  const openai = window.openai;
  if (openai && !status.state.resulted && openai.toolResponseMetadata) {
    if (!ctx.input && openai.toolInput) {
      ctx.input = openai.toolInput;
      spec.onInput?.(ctx.input, ctx);
    }
    handleResult({ content: [], _meta: openai.toolResponseMetadata });
  }
  return ctx;
}
