/**
 * The /preview page: a real MCP Apps host (docs/views.md). It speaks MCP to this
 * server's /mcp with the TypeScript SDK client, mounts a tool's linked ui://
 * view in a sandbox proxy on another origin (or, where it has none, an opaque
 * srcdoc iframe) under the view's declared CSP, and drives it through
 * ext-apps' AppBridge: host context, partial and complete tool input, the
 * tool result; the view's tool calls go to the server, its model-context
 * updates, link and download requests are shown and recorded, never acted on blindly.
 *
 * Host profiles (`?profile=`), each acting as hosts others wrote do:
 * - `preview`: the whole tool result, as the MCP Apps specification says;
 * - `drop-meta`: the notification without `_meta` (the ext-apps basic-host,
 *   ext-apps#646; Claude Desktop with local servers, ext-apps#696); the
 *   "Strip _meta" box (`strip_meta=1`) does the same;
 * - `chatgpt`: as ChatGPT on the web: the view is mounted once the result is
 *   there, with `window.openai` (toolInput, toolOutput, toolResponseMetadata)
 *   set before it loads, and the notification's `_meta` replaced by the host's
 *   own (openai-apps-sdk-examples#231);
 * - `cross-origin`: the page speaks MCP to the server's other loopback name,
 *   another origin, as the MCP Apps reference host does from its own port:
 *   the server must answer CORS, preflight included;
 * - `strict-csp`: the view under the specification's restrictive default policy
 *   with the declared domains added, and no worker source (so no `blob:`
 *   worker, as in the MCP Inspector and any host that names none).
 *
 * Test hook: ?tool=<name>&args=<json>[&profile=chatgpt|strict-csp|...][&strip_meta=1][&theme=dark]
 * [&locale=de-DE][&time_zone=Europe/Berlin][&width=320][&height=300][&partial=1][&hold=1]
 * (in the query or the #fragment) runs at once; window.previewHost exposes the
 * state and `release()` (send a held result) and `reloadView()`.
 */
import { AppBridge, PostMessageTransport, getToolUiResourceUri } from "@modelcontextprotocol/ext-apps/app-bridge";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { EXAMPLES } from "./examples.js";

const UI_EXTENSION = "io.modelcontextprotocol/ui";
const MIME = "text/html;profile=mcp-app";
const INLINE_MAX = 500;
const $ = (id) => document.getElementById(id);
// The hook reads the query and the fragment (large `args` fit in a fragment:
// it never reaches the server's request line).
const query = new URLSearchParams(`${location.search.slice(1)}&${location.hash.slice(1)}`);

/** What each profile changes (see above): the host's name, what the view gets of `_meta`, when it mounts, where /mcp is. */
const PROFILES = {
  preview: { host: "tomtom-preview-host", meta: "keep" },
  "drop-meta": { host: "tomtom-preview-host", meta: "drop" },
  chatgpt: { host: "chatgpt (tomtom-mcp-apps preview profile)", meta: "replace", openai: true },
  "cross-origin": { host: "tomtom-preview-host", meta: "keep", otherOrigin: true },
  "strict-csp": { host: "tomtom-preview-host", meta: "keep", strict: true },
};
const profileName = PROFILES[query.get("profile")] ? query.get("profile") : "preview";
const profile = PROFILES[profileName];
let releaseHeld = null;
const state = (window.previewHost = {
  status: "starting",
  profile: profileName,
  tools: [],
  result: null,
  viewCalls: [],
  modelContext: [],
  openedLinks: [],
  downloads: [],
  hostContext: null,
  error: null,
  release: () => releaseHeld?.(),
  reloadView: () => reloadView(),
});

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

/** The CSP a host puts around a view: nothing outside but the origins the view declared. */
function cspFor(csp = {}) {
  const connect = (csp.connectDomains || []).join(" ");
  const resource = (csp.resourceDomains || []).join(" ");
  if (profile.strict) return strictCsp(connect, resource);
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

/**
 * The specification's restrictive default (apps.mdx, "Host Behavior") with the declared
 * domains where its fields map them: no worker-src, so workers fall back to script-src,
 * which names no `blob:`.
 */
function strictCsp(connect, resource) {
  return [
    "default-src 'none'",
    `script-src 'self' 'unsafe-inline' ${resource}`,
    `style-src 'self' 'unsafe-inline' ${resource}`,
    `img-src 'self' data: ${resource}`,
    `font-src ${resource || "'none'"}`,
    `media-src 'self' data: ${resource}`,
    `connect-src ${connect || "'none'"}`,
    "frame-src 'none'",
    "object-src 'none'",
    "base-uri 'self'",
  ].join("; ");
}

function withCsp(html, csp) {
  const meta = `<meta http-equiv="Content-Security-Policy" content="${cspFor(csp).replace(/"/g, "&quot;")}">`;
  return html.replace(/<head([^>]*)>/i, (m) => `${m}\n${meta}`);
}

/** `html` with `window.openai` set before anything of the view runs, as ChatGPT sets it. */
function withOpenai(html, openai) {
  const json = JSON.stringify(openai).replace(/</g, "\\u003c");
  return html.replace(/<\/head>/i, (m) => `<script>window.openai = ${json};</script>\n${m}`);
}

/**
 * The globals ChatGPT gives a view of a finished call (developers.openai.com/apps-sdk,
 * "window.openai"): its data only; the methods would need a bridge this host does not play.
 */
function openaiGlobals(args, result, context) {
  return {
    toolInput: args,
    toolOutput: result.structuredContent ?? null,
    toolResponseMetadata: result._meta ?? null,
    widgetState: null,
    theme: context.theme,
    locale: context.locale,
    displayMode: context.displayMode,
    maxHeight: INLINE_MAX,
    userAgent: { device: { type: "desktop" }, capabilities: { hover: true, touch: false } },
  };
}

/** The result as this profile hands it to the view: `_meta` kept, dropped, or the host's own. */
function asDelivered(result) {
  const sent = { ...result };
  if (profile.meta === "drop" || $("strip-meta").checked) {
    delete sent._meta;
    log("stripped _meta from the result sent to the view");
  } else if (profile.meta === "replace") {
    sent._meta = { "openai/widgetSessionId": crypto.randomUUID() };
    log("replaced the result's _meta with the host's own");
  }
  return sent;
}

/** The other loopback name for the same port: a different origin for the sandbox, as the spec asks. */
function sandboxOrigin() {
  const other = { "127.0.0.1": "localhost", localhost: "127.0.0.1" }[location.hostname];
  return other ? `${location.protocol}//${other}${location.port ? `:${location.port}` : ""}` : null;
}

/** Growing "healed" prefixes of `args`, as a host streams a model's arguments: whole values only. */
export function partialsOf(args) {
  const out = [];
  let acc = {};
  for (const [key, value] of Object.entries(args || {})) {
    if (Array.isArray(value)) {
      for (let k = 1; k <= value.length; k++) out.push((acc = { ...acc, [key]: value.slice(0, k) }));
    } else {
      out.push((acc = { ...acc, [key]: value }));
    }
  }
  return out;
}

let client = null;
let bridge = null;
let current = null; // {tool, uri, args, result} of the mounted view

async function connect() {
  client = new Client(
    { name: "tomtom-preview-host", version: "1.0.0" },
    { capabilities: { extensions: { [UI_EXTENSION]: { mimeTypes: [MIME] } } } },
  );
  // The cross-origin profile calls the server by its other loopback name: CORS decides.
  const endpoint = new URL("/mcp", (profile.otherOrigin && sandboxOrigin()) || location.href);
  await client.connect(new StreamableHTTPClientTransport(endpoint));
  const { tools } = await client.listTools();
  state.tools = tools;
  const info = client.getServerVersion();
  $("server").textContent = `Connected to ${info?.name ?? "server"} ${info?.version ?? ""} at ${endpoint} (profile ${profileName})`;
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

/** The host context this page sends: what the controls say, and the stage's real size. */
function hostContext(tool, displayMode = $("stage").classList.contains("fullscreen") ? "fullscreen" : "inline") {
  const width = Number($("width").value) || $("stage").clientWidth || 800;
  const height = Number($("height").value);
  return {
    theme: $("theme").value,
    displayMode,
    availableDisplayModes: ["inline", "fullscreen"],
    containerDimensions: height ? { height: Math.min(height, INLINE_MAX), width } : { maxHeight: INLINE_MAX, width },
    locale: $("locale").value || navigator.language,
    timeZone: $("time-zone").value || Intl.DateTimeFormat().resolvedOptions().timeZone,
    platform: "web",
    userAgent: "tomtom-mcp-apps preview host",
    toolInfo: { tool },
    safeAreaInsets: { top: 0, right: 0, bottom: 0, left: 0 },
    deviceCapabilities: { touch: false, hover: true },
  };
}

function showHostContext(context) {
  state.hostContext = context;
  const { toolInfo, ...shown } = context;
  $("host-context").textContent = JSON.stringify({ ...shown, toolInfo: { tool: { name: toolInfo?.tool?.name } } }, null, 2);
}

function sizeStage() {
  const width = Number($("width").value);
  $("stage").style.width = width ? `${width}px` : "";
}

function sendContextChange(changes) {
  if (!bridge || !current) return;
  const context = { ...hostContext(current.tool), ...changes };
  showHostContext(context);
  bridge.sendHostContextChange(changes);
  log("host context changed", changes);
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
  state.modelContext = [];
  state.result = null;
  $("model-context").textContent = "(nothing yet)";
  try {
    await teardownView();
    const uri = getToolUiResourceUri(tool || {});
    // Like a chat host, mount the view while the call runs: it may draw the streamed arguments
    // (ChatGPT mounts it once the result is there, with window.openai set).
    const early = uri && !profile.openai;
    const mounted = early ? await mountView(tool, uri) : null;
    if (mounted) await mounted.initialized;
    if (mounted && $("partial").checked) {
      for (const partial of partialsOf(args)) await bridge.sendToolInputPartial({ arguments: partial });
      log(`streamed ${partialsOf(args).length} partial inputs`);
    }
    setStatus("calling", `Calling ${name}…`);
    const started = performance.now();
    const result = await client.callTool({ name, arguments: args });
    const ms = Math.round(performance.now() - started);
    const size = JSON.stringify(result).length;
    state.result = result;
    $("text").textContent = (result.content || []).map((c) => c.text ?? JSON.stringify(c)).join("\n");
    log(`${name} answered in ${ms} ms, ${size.toLocaleString()} chars${result.isError ? " (tool error)" : ""}`);
    if (!uri) return setStatus("done", `${name} answered in ${ms} ms; it has no view.`);
    if (!mounted) {
      const late = await mountView(tool, uri, openaiGlobals(args, result, hostContext(tool)));
      await late.initialized;
    }
    const sent = asDelivered(result);
    current = { tool, uri, args, result: sent, openai: profile.openai ? openaiGlobals(args, result, hostContext(tool)) : null };
    if (query.get("hold") === "1") {
      setStatus("held", "Result held: previewHost.release() sends it");
      await new Promise((resolve) => (releaseHeld = resolve));
    }
    deliver(args, sent);
    setStatus("done", `${name} answered in ${ms} ms (${(size / 1000).toFixed(1)} kB); view ${uri}`);
  } catch (err) {
    state.error = err.message;
    log("error", err.message);
    setStatus("error", `Failed: ${err.message}`, true);
  } finally {
    $("run").disabled = false;
  }
}

function deliver(args, result) {
  bridge.sendToolInput({ arguments: args });
  bridge.sendToolResult(result);
  log("sent tool input and result");
}

/** The same result shown again in a new view, as a host does when a conversation is reopened. */
async function reloadView() {
  if (!current) return;
  const { tool, uri, args, result, openai } = current;
  await teardownView();
  const { initialized } = await mountView(tool, uri, openai);
  await initialized;
  deliver(args, result);
  log("view reloaded with the same result");
}

/**
 * Read the view, put it in a frame and connect the bridge; `initialized` resolves when the
 * view is up. `openai`: the `window.openai` globals to set first (the chatgpt profile).
 */
async function mountView(tool, uri, openai = null) {
  const resource = await client.readResource({ uri });
  const content = resource.contents.find((c) => c.mimeType === MIME) || resource.contents[0];
  if (!content || typeof content.text !== "string") throw new Error(`${uri} has no HTML text`);
  const ui = content._meta?.ui || {};
  log(`read ${uri}: ${content.text.length.toLocaleString()} chars, csp ${JSON.stringify(ui.csp || {})}`);
  const html = profile.openai && openai ? withOpenai(withCsp(content.text, ui.csp), openai) : withCsp(content.text, ui.csp);
  const proxy = sandboxOrigin();
  const iframe = document.createElement("iframe");
  iframe.id = "view";
  iframe.title = tool.title || tool.name;
  if (proxy) {
    iframe.setAttribute("sandbox", "allow-scripts allow-same-origin allow-forms");
    iframe.src = `${proxy}/preview/sandbox`;
  } else {
    iframe.setAttribute("sandbox", "allow-scripts allow-forms");
    iframe.srcdoc = html;
    log("no second origin for a sandbox here: the view runs without storage");
  }
  sizeStage();
  $("stage").replaceChildren(iframe);

  const context = hostContext(tool);
  showHostContext(context);
  bridge = new AppBridge(
    client,
    { name: profile.host, version: "1.0.0" },
    { openLinks: {}, serverTools: {}, serverResources: {}, logging: {}, updateModelContext: { text: {} }, downloadFile: {} },
    { hostContext: context },
  );
  const initialized = new Promise((resolve) => (bridge.oninitialized = resolve));
  bridge.addEventListener("sandboxready", () => {
    bridge.sendSandboxResourceReady({ html, sandbox: "allow-scripts allow-same-origin allow-forms" });
  });
  bridge.onsizechange = ({ height }) => {
    if (Number.isFinite(height) && !$("stage").classList.contains("fullscreen")) {
      iframe.style.height = `${Math.min(Math.max(height, 120), INLINE_MAX)}px`;
    }
  };
  bridge.onrequestdisplaymode = async ({ mode }) => {
    const full = mode === "fullscreen";
    $("stage").classList.toggle("fullscreen", full);
    const granted = full ? "fullscreen" : "inline";
    sendContextChange({ displayMode: granted });
    return { mode: granted };
  };
  bridge.onopenlink = async ({ url }) => {
    state.openedLinks.push(url);
    log("view asked to open", url);
    const a = document.createElement("a");
    a.href = url;
    a.textContent = url;
    a.rel = "noopener noreferrer";
    a.target = "_blank";
    $("links").replaceChildren(a);
    return {};
  };
  bridge.ondownloadfile = async ({ contents }) => {
    const files = (contents || []).map((c) => ({ uri: c.resource?.uri, mimeType: c.resource?.mimeType, text: c.resource?.text }));
    state.downloads.push(...files);
    log("view asked to download", files.map((f) => `${f.uri} (${f.text?.length ?? 0} characters)`).join(", "));
    $("links").textContent = files.map((f) => `download offered: ${f.uri}`).join("\n");
    return {};
  };
  bridge.onupdatemodelcontext = async (params) => {
    const text = (params.content || []).map((c) => c.text ?? JSON.stringify(c)).join("\n");
    state.modelContext.push(text);
    $("model-context").textContent = text;
    log("view updated the model context");
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
  return { initialized };
}

$("tool").addEventListener("change", () => pickTool($("tool").value));
$("run").addEventListener("click", run);
$("reload").addEventListener("click", () => reloadView());
$("theme").addEventListener("change", () => {
  document.body.dataset.theme = $("theme").value;
  sendContextChange({ theme: $("theme").value });
});
for (const id of ["locale", "time-zone"]) {
  $(id).addEventListener("change", () => sendContextChange({ locale: $("locale").value, timeZone: $("time-zone").value }));
}
for (const id of ["width", "height"]) {
  $(id).addEventListener("change", () => {
    sizeStage();
    if (current) sendContextChange({ containerDimensions: hostContext(current.tool).containerDimensions });
  });
}

(async () => {
  const initialTheme = query.get("theme") === "dark" ? "dark" : "light";
  $("theme").value = initialTheme;
  document.body.dataset.theme = initialTheme;
  $("strip-meta").checked = query.get("strip_meta") === "1";
  $("partial").checked = query.get("partial") === "1";
  $("locale").value = query.get("locale") || navigator.language;
  $("time-zone").value = query.get("time_zone") || Intl.DateTimeFormat().resolvedOptions().timeZone;
  $("width").value = query.get("width") || "";
  $("height").value = query.get("height") || "";
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
