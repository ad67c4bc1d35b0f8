"use strict";
/**
 * The shell every view shares: one ext-apps `App` with every handler set
 * before `connect()`, host theme/fonts/safe areas/fullscreen, the on-screen
 * message (loading, progress, error), notes, legend, title, and the status
 * report to the server (with the host it runs in, `hosts.js`). A view
 * supplies `onInput` / `onResult` and draws. Answers from the server's offline
 * demo data are marked as such (`com.tomtom/data-source` in `_meta`).
 */
const view = (() => {
  const INLINE_MAX = 500;
  const INLINE_DEFAULT = 440;
  const RESULT_WAIT_MS = 120000;
  const DATA_SOURCE = "com.tomtom/data-source";
  const $ = (id) => document.getElementById(id);
  const TITLES = {
    tool_error: "The tool failed",
    meta_dropped: "No map data",
    no_app_data: "No map data",
    too_large: "Map data too large",
    invalid: "Map data refused",
    ui_disabled: "No map requested",
    decode_failed: "Map data unreadable",
    fetch_failed: "Data could not be loaded",
    no_result: "No tool result",
  };

  function escapeHtml(value) {
    return String(value ?? "").replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
  }

  function showMessage(kind, title, text, progress) {
    const box = $("message");
    box.hidden = false;
    box.className = kind;
    const spinner = kind === "loading" && progress === undefined ? '<div class="tt-spinner"></div>' : "";
    const bar =
      progress === undefined ? "" : `<progress max="1" value="${progress ?? ""}"></progress>`;
    box.innerHTML =
      `<div class="card tt-panel" role="${kind === "error" ? "alert" : "status"}">${spinner}` +
      `<h2>${escapeHtml(title)}</h2>${text ? `<p>${escapeHtml(text)}</p>` : ""}${bar}</div>`;
  }

  function hideMessage() {
    $("message").hidden = true;
  }

  function addNote(text) {
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

  /** rows: {label, color, shape: "line"|"dot"|"area", dashed} */
  function setLegend(rows) {
    const box = $("legend");
    box.hidden = rows.length === 0;
    box.innerHTML = rows
      .map((r) => {
        const cls = ["swatch", r.shape === "dot" ? "dot" : r.shape === "area" ? "area" : "", r.dashed ? "dashed" : ""];
        return (
          `<div class="row"><span class="${cls.join(" ").trim()}" style="background-color:${escapeHtml(r.color)}"></span>` +
          `<span>${escapeHtml(r.label)}</span></div>`
        );
      })
      .join("");
  }

  /**
   * Start the view. spec: {name, tool (default tool name), onInput(args, ctx),
   * onResult(result, ctx), onTeardown()}. Returns the ctx handed to callbacks.
   */
  async function start(spec) {
    const app = new McpApps.App(
      { name: spec.name, version: "1.0.0" },
      { availableDisplayModes: ["inline", "fullscreen"] },
      { autoResize: true },
    );
    let configPromise = null;
    let reported = null;
    let tilesProblem = null;
    let gotResult = false;
    let connected = false;

    const ctx = {
      app,
      tool: spec.tool,
      input: null,
      showMessage,
      hideMessage,
      addNote,
      setTitle,
      setLegend,
      escapeHtml,
      theme: () => document.documentElement.dataset.theme || "light",
      /**
       * Tile URL templates for `layers` from `tomtom-get-map-config` (on the server's
       * tile route, with a token; never a key): `{tiles, offline, reason, expiresIn,
       * renew}`, where `renew()` asks again for a fresh token; `{tiles: {}, error}`
       * when unavailable.
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
      /** Draw succeeded: mark the document and tell the server. */
      ok(detail, counts = {}) {
        hideMessage();
        setCounts(counts);
        report("ok", "drawn", tilesProblem ? `${detail}; ${tilesProblem}` : detail);
      },
      /**
       * Tiles are missing or failed: a note, not an error (ADR 0041). A failure
       * after the ok report is reported again, so the server log shows it.
       */
      tilesFailed(message, state = "failed") {
        if (tilesProblem) return;
        tilesProblem = message;
        document.body.dataset.tiles = state;
        addNote(message);
        if (document.body.dataset.status === "ok") report("ok", "tiles_failed", message);
      },
      /** The answer itself is empty (nothing found): say so; that is not a failure. */
      empty(title, message, counts = {}) {
        showMessage("empty", title, message);
        setCounts(counts);
        report("ok", "empty", message);
      },
      /** Nothing (more) to draw: say why on screen and to the server. */
      fail(reason, message, title = TITLES[reason] || "Nothing to show") {
        // The host dropped _meta: name it and say what the user can do (hosts.js).
        if (reason === "meta_dropped") message = hosts.metaDropped(hosts.info(app));
        showMessage("error", title, message);
        report("error", reason, message);
      },
      onHostContext: null,
    };

    function setCounts(counts) {
      for (const [k, v] of Object.entries(counts)) document.body.dataset[k] = String(v);
    }

    function report(status, reason, detail) {
      document.body.dataset.status = status;
      document.body.dataset.reason = reason;
      const key = `${status}:${reason}:${detail}`;
      if (reported === key || !connected) return;
      reported = key;
      const args = {
        tool: ctx.tool,
        status,
        reason,
        detail: String(detail).slice(0, 500),
        host: hosts.info(app),
      };
      app
        .callServerTool({ name: "tomtom-report-app-status", arguments: args })
        .then(() => (document.body.dataset.reported = status))
        .catch((err) => console.warn("status report failed", err));
    }

    function applyContext(hc) {
      if (!hc) return;
      if (hc.theme) {
        McpApps.applyDocumentTheme(hc.theme);
        document.documentElement.dataset.theme = hc.theme;
      }
      if (hc.styles?.variables) McpApps.applyHostStyleVariables(hc.styles.variables);
      if (hc.styles?.css?.fonts) McpApps.applyHostFonts(hc.styles.css.fonts);
      const insets = hc.safeAreaInsets;
      if (insets) {
        for (const side of ["top", "right", "bottom", "left"]) {
          document.documentElement.style.setProperty(`--tt-inset-${side}`, `${insets[side] || 0}px`);
        }
      }
      const mode = hc.displayMode || "inline";
      document.body.dataset.display = mode;
      const dims = hc.containerDimensions || {};
      const limit = Math.min(INLINE_MAX, dims.height || dims.maxHeight || INLINE_DEFAULT);
      document.documentElement.style.setProperty("--tt-height", `${Math.max(240, limit)}px`);
      const button = $("fullscreen");
      const canFull = (hc.availableDisplayModes || []).includes("fullscreen");
      button.hidden = !canFull;
      button.textContent = mode === "fullscreen" ? "⤡" : "⤢";
      button.title = mode === "fullscreen" ? "Exit fullscreen" : "Fullscreen";
      if (hc.toolInfo?.tool?.name) ctx.tool = hc.toolInfo.tool.name;
      ctx.onHostContext?.(hc);
    }

    $("fullscreen").addEventListener("click", async () => {
      const next = document.body.dataset.display === "fullscreen" ? "inline" : "fullscreen";
      try {
        const { mode } = await app.requestDisplayMode({ mode: next });
        applyContext({ ...app.getHostContext(), displayMode: mode });
      } catch (err) {
        addNote(`Fullscreen is not available (${err.message}).`);
      }
    });

    const handleResult = async (result) => {
      gotResult = true;
      try {
        await spec.onResult(result, ctx);
      } catch (err) {
        ctx.fail(err.reason || "render_failed", err.reason ? err.message : `Drawing failed: ${err.message}`);
        console.error(err);
      }
      const meta = (result && result._meta) || window.openai?.toolResponseMetadata || {};
      if (meta[DATA_SOURCE] === "offline" && document.body.dataset.dataSource !== "offline") {
        document.body.dataset.dataSource = "offline";
        addNote("Offline demo data: not real TomTom results.").classList.add("tt-offline");
      }
    };

    app.ontoolinput = (params) => {
      ctx.input = params.arguments || {};
      spec.onInput?.(ctx.input, ctx);
    };
    app.ontoolresult = (result) => handleResult(result);
    app.onhostcontextchanged = (params) => applyContext({ ...app.getHostContext(), ...params });
    app.onteardown = async () => {
      spec.onTeardown?.();
      return {};
    };
    app.onerror = (err) => console.error("MCP Apps error", err);

    showMessage("loading", "Loading map…", "Waiting for the tool result.");
    try {
      await app.connect();
      connected = true;
    } catch (err) {
      showMessage("error", "Not connected", `This view must run inside an MCP Apps host (${err.message}).`);
      document.body.dataset.status = "error";
      document.body.dataset.reason = "not_connected";
      return ctx;
    }
    applyContext(app.getHostContext());
    // A host that never sends the result still gets an answer on screen and in
    // the log; a result arriving later is drawn as usual.
    setTimeout(() => {
      if (!gotResult) ctx.fail("no_result", "The host has not sent the tool result after two minutes.");
    }, RESULT_WAIT_MS);
    if (document.body.dataset.status && document.body.dataset.status !== "loading") {
      const { status, reason } = document.body.dataset;
      report(status, reason, $("message").innerText || "drawn before connect");
    }
    // Older ChatGPT builds put the result in window.openai instead of notifying.
    const openai = window.openai;
    if (openai && !gotResult && openai.toolResponseMetadata) {
      if (!ctx.input && openai.toolInput) {
        ctx.input = openai.toolInput;
        spec.onInput?.(ctx.input, ctx);
      }
      handleResult({ content: [], _meta: openai.toolResponseMetadata });
    }
    return ctx;
  }

  return { start, escapeHtml };
})();
