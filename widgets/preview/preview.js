"use strict";
/**
 * The /preview page: a real MCP Apps host. It speaks MCP to this server's
 * /mcp with the TypeScript SDK client, renders a tool's linked ui:// view in
 * a sandboxed iframe under the view's declared CSP, and drives it through
 * ext-apps' AppBridge (tool input, tool result, host context; the view's own
 * tool calls are proxied to the server by the bridge).
 *
 * Test hook: ?tool=<name>&args=<json>[&strip_meta=1][&theme=dark] (in the query or
 * the #fragment) runs at once;
 * window.previewHost exposes the state.
 */
(() => {
  const { AppBridge, Client, PostMessageTransport, StreamableHTTPClientTransport, getToolUiResourceUri } = McpHost;
  const UI_EXTENSION = "io.modelcontextprotocol/ui";
  const MIME = "text/html;profile=mcp-app";
  const INLINE_MAX = 500;
  const $ = (id) => document.getElementById(id);
  // The hook reads the query and the fragment (large `args` fit in a fragment:
  // it never reaches the server's request line).
  const query = new URLSearchParams(`${location.search.slice(1)}&${location.hash.slice(1)}`);
  const state = (window.previewHost = {
    status: "starting",
    tools: [],
    result: null,
    viewCalls: [],
    error: null,
  });

  /** Starting arguments per tool (Amsterdam and around); any tool not here starts from {}. */
  const EXAMPLES = {
    "tomtom-geocode": { query: "Damrak 1, Amsterdam" },
    "tomtom-reverse-geocode": { position: [4.8932, 52.3731] },
    "tomtom-fuzzy-search": { query: "coffee", position: [4.8897, 52.374] },
    "tomtom-poi-search": { query: "museum", position: [4.8897, 52.374] },
    "tomtom-nearby": { position: [4.8897, 52.374], radius: 1500 },
    "tomtom-search-along-route": { locations: [[4.8897, 52.374], [5.1214, 52.0907]], query: "fuel" },
    "tomtom-routing": { locations: [[4.8897, 52.374], [6.5665, 53.2194], [13.405, 52.52]] },
    "tomtom-reachable-range": { origin: [4.8897, 52.374], timeBudgetInSec: 1800 },
    "tomtom-traffic": { bbox: [4.82, 52.33, 4.96, 52.41] },
    "tomtom-dynamic-map": {
      title: "Two routes and a zone",
      markers: [{ position: [4.8897, 52.374], label: "Start", color: "#e33" }],
      routes: [
        { locations: [[4.8897, 52.374], [4.4777, 51.9244]], label: "To Rotterdam" },
        { locations: [[4.8897, 52.374], [5.1214, 52.0907]], label: "To Utrecht", color: "#8250df" },
      ],
      polygons: [{ center: [4.8897, 52.374], radius: 4000, label: "Centre zone" }],
    },
    "tomtom-data-viz": {
      title: "Parks and a canal walk",
      geojson: {
        type: "FeatureCollection",
        features: [
          { type: "Feature", properties: { name: "Vondelpark" }, geometry: { type: "Polygon", coordinates: [[[4.857, 52.356], [4.881, 52.362], [4.884, 52.359], [4.86, 52.354], [4.857, 52.356]]] } },
          { type: "Feature", properties: { name: "Canal walk" }, geometry: { type: "LineString", coordinates: [[4.884, 52.367], [4.887, 52.372], [4.893, 52.376], [4.9, 52.377]] } },
          { type: "Feature", properties: { name: "Dam Square" }, geometry: { type: "Point", coordinates: [4.8932, 52.3731] } },
        ],
      },
      layers: [
        { type: "fill", paint: { "fill-color": "#2f9e44", "fill-opacity": 0.4 } },
        { type: "line", paint: { "line-color": "#1f6feb", "line-width": 4 } },
        { type: "circle", paint: { "circle-color": "#e33", "circle-radius": 7 }, label: "name" },
      ],
    },
  };

  function log(...parts) {
    const line = `${new Date().toISOString().slice(11, 23)} ${parts.map((p) => (typeof p === "string" ? p : JSON.stringify(p))).join(" ")}`;
    $("log").textContent += line.slice(0, 2000) + "\n";
  }

  function setStatus(status, text, isError = false) {
    state.status = status;
    document.body.dataset.status = status;
    $("call-status").textContent = text;
    $("call-status").className = isError ? "muted error" : "muted";
  }

  function theme() {
    return $("theme").value;
  }

  /** The CSP a host puts around a view: nothing outside but the origins the view declared. */
  function cspFor(csp = {}) {
    const connect = (csp.connectDomains || []).join(" ");
    const resource = (csp.resourceDomains || []).join(" ");
    return [
      "default-src 'none'",
      `script-src 'unsafe-inline' 'unsafe-eval' blob: ${resource}`,
      `style-src 'unsafe-inline' ${resource}`,
      `img-src data: blob: ${resource}`,
      `font-src data: ${resource}`,
      `connect-src ${connect || "'none'"}`,
      "worker-src blob:",
      "child-src blob:",
      "frame-src 'none'",
      "object-src 'none'",
      "base-uri 'none'",
    ].join("; ");
  }

  function withCsp(html, csp) {
    const meta = `<meta http-equiv="Content-Security-Policy" content="${cspFor(csp).replace(/"/g, "&quot;")}">`;
    return html.replace(/<head([^>]*)>/i, (m) => `${m}\n${meta}`);
  }

  let client = null;
  let bridge = null;

  async function connect() {
    client = new Client(
      { name: "tomtom-preview-host", version: "1.0.0" },
      { capabilities: { extensions: { [UI_EXTENSION]: { mimeTypes: [MIME] } } } },
    );
    await client.connect(new StreamableHTTPClientTransport(new URL("/mcp", location.href)));
    const { tools } = await client.listTools();
    state.tools = tools;
    const info = client.getServerVersion();
    $("server").textContent = `Connected to ${info?.name ?? "server"} ${info?.version ?? ""} at ${new URL("/mcp", location.href)}`;
    const select = $("tool");
    for (const t of tools) {
      const appOnly = (t._meta?.ui?.visibility || []).every((v) => v === "app") && t._meta?.ui?.visibility;
      if (appOnly) continue;
      const opt = document.createElement("option");
      opt.value = t.name;
      opt.textContent = t.title ? `${t.name} — ${t.title}` : t.name;
      select.append(opt);
    }
    select.disabled = false;
    $("run").disabled = false;
    log(`listed ${tools.length} tools`);
  }

  function pickTool(name, args) {
    $("tool").value = name;
    const tool = state.tools.find((t) => t.name === name);
    $("tool-description").textContent = tool?.description?.slice(0, 300) || "";
    $("args").value = JSON.stringify(args ?? EXAMPLES[name] ?? {}, null, 2);
  }

  async function teardownView() {
    if (bridge) {
      try {
        await Promise.race([bridge.teardownResource({}), new Promise((r) => setTimeout(r, 1000))]);
      } catch (err) {
        log("teardown failed", err.message);
      }
      await bridge.close().catch(() => {});
      bridge = null;
    }
    $("stage").replaceChildren();
  }

  function hostContext(tool, displayMode = "inline") {
    const stage = $("stage");
    return {
      theme: theme(),
      displayMode,
      availableDisplayModes: ["inline", "fullscreen"],
      containerDimensions: { maxHeight: INLINE_MAX, width: stage.clientWidth || 800 },
      locale: navigator.language,
      timeZone: Intl.DateTimeFormat().resolvedOptions().timeZone,
      platform: "web",
      userAgent: "tomtom-mcp-apps preview host",
      toolInfo: { tool },
      safeAreaInsets: { top: 0, right: 0, bottom: 0, left: 0 },
      deviceCapabilities: { touch: false, hover: true },
    };
  }

  async function run() {
    const name = $("tool").value;
    const tool = state.tools.find((t) => t.name === name);
    let args;
    try {
      args = JSON.parse($("args").value || "{}");
    } catch (err) {
      return setStatus("error", `Arguments are not valid JSON: ${err.message}`, true);
    }
    $("run").disabled = true;
    state.viewCalls = [];
    state.result = null;
    try {
      await teardownView();
      setStatus("calling", `Calling ${name}…`);
      const started = performance.now();
      const result = await client.callTool({ name, arguments: args });
      const ms = Math.round(performance.now() - started);
      const size = JSON.stringify(result).length;
      state.result = result;
      $("text").textContent = (result.content || []).map((c) => c.text ?? JSON.stringify(c)).join("\n");
      log(`${name} answered in ${ms} ms, ${size.toLocaleString()} chars${result.isError ? " (tool error)" : ""}`);
      const uri = getToolUiResourceUri(tool || {});
      if (!uri) {
        return setStatus("done", `${name} answered in ${ms} ms; it has no view.`);
      }
      const sent = { ...result };
      if ($("strip-meta").checked) {
        delete sent._meta;
        log("stripped _meta from the result sent to the view");
      }
      await showView(tool, uri, args, sent);
      setStatus("done", `${name} answered in ${ms} ms (${(size / 1000).toFixed(1)} kB); view ${uri}`);
    } catch (err) {
      state.error = err.message;
      log("error", err.message);
      setStatus("error", `Failed: ${err.message}`, true);
    } finally {
      $("run").disabled = false;
    }
  }

  async function showView(tool, uri, args, result) {
    const resource = await client.readResource({ uri });
    const content = resource.contents.find((c) => c.mimeType === MIME) || resource.contents[0];
    if (!content || typeof content.text !== "string") throw new Error(`${uri} has no HTML text`);
    const ui = content._meta?.ui || {};
    log(`read ${uri}: ${content.text.length.toLocaleString()} chars, csp ${JSON.stringify(ui.csp || {})}`);

    const iframe = document.createElement("iframe");
    iframe.id = "view";
    iframe.title = tool.title || tool.name;
    iframe.setAttribute("sandbox", "allow-scripts allow-forms");
    iframe.srcdoc = withCsp(content.text, ui.csp);
    $("stage").replaceChildren(iframe);

    bridge = new AppBridge(
      client,
      { name: "tomtom-preview-host", version: "1.0.0" },
      { openLinks: {}, serverTools: {}, serverResources: {}, logging: {} },
      { hostContext: hostContext(tool) },
    );
    bridge.oninitialized = () => {
      log("view initialized; sending tool input and result");
      bridge.sendToolInput({ arguments: args });
      bridge.sendToolResult(result);
    };
    bridge.onsizechange = ({ height }) => {
      if (Number.isFinite(height) && !$("stage").classList.contains("fullscreen")) {
        iframe.style.height = `${Math.min(Math.max(height, 120), INLINE_MAX)}px`;
      }
    };
    bridge.onrequestdisplaymode = async ({ mode }) => {
      const full = mode === "fullscreen";
      $("stage").classList.toggle("fullscreen", full);
      const granted = full ? "fullscreen" : "inline";
      bridge.sendHostContextChange({ displayMode: granted });
      log(`display mode ${granted}`);
      return { mode: granted };
    };
    bridge.onopenlink = async ({ url }) => {
      window.open(url, "_blank", "noopener");
      return {};
    };
    bridge.onmessage = async (params) => {
      log("view message", params);
      return {};
    };
    bridge.onloggingmessage = (params) => log("view log", params);
    bridge.onrequestteardown = () => teardownView();
    await bridge.connect(new PostMessageTransport(iframe.contentWindow, iframe.contentWindow));
    // connect() installs the forwarding of the view's tool calls to the server;
    // wrap it (before the view can call) to record what the view asked for.
    const forward = bridge.oncalltool;
    bridge.oncalltool = async (params, extra) => {
      state.viewCalls.push(params.name);
      log("view called", params.name);
      return forward(params, extra);
    };
  }

  $("tool").addEventListener("change", () => pickTool($("tool").value));
  $("run").addEventListener("click", run);
  $("theme").addEventListener("change", () => {
    document.body.dataset.theme = theme();
    bridge?.sendHostContextChange({ theme: theme() });
  });

  (async () => {
    const initialTheme = query.get("theme") === "dark" ? "dark" : "light";
    $("theme").value = initialTheme;
    document.body.dataset.theme = initialTheme;
    $("strip-meta").checked = query.get("strip_meta") === "1";
    try {
      await connect();
    } catch (err) {
      state.error = err.message;
      $("server").textContent = `Could not connect to /mcp: ${err.message}`;
      $("server").className = "error";
      return setStatus("error", "Not connected", true);
    }
    setStatus("ready", "");
    const name = query.get("tool");
    let args;
    if (query.has("args")) {
      try {
        args = JSON.parse(query.get("args"));
      } catch (err) {
        return setStatus("error", `?args is not valid JSON: ${err.message}`, true);
      }
    }
    if (name) {
      if (!state.tools.some((t) => t.name === name)) return setStatus("error", `No tool named ${name}`, true);
      pickTool(name, args);
      await run();
    } else if (state.tools.length) {
      pickTool($("tool").value);
    }
  })();
})();
