/**
 * The preview's sandbox proxy (docs/views.md): served on the other loopback name
 * than the host page (127.0.0.1 <-> localhost), so host and sandbox have
 * different origins as MCP Apps hosts must. It puts the view's HTML in an
 * inner iframe (`allow-scripts allow-same-origin`: the view gets this
 * origin's storage, never the host's) and relays every message both ways,
 * except `sandbox-resource-ready`, which carries the HTML.
 */
const READY = "ui/notifications/sandbox-proxy-ready";
const RESOURCE = "ui/notifications/sandbox-resource-ready";
const LOOPBACK = /^https?:\/\/(127\.0\.0\.1|localhost|\[::1\])(:\d+)?$/;

const host = document.referrer ? new URL(document.referrer).origin : "";
if (window.top === window || !LOOPBACK.test(host)) {
  document.body.textContent = "This page is the /preview host's sandbox and only runs inside it.";
  throw new Error(`preview sandbox embedded by ${host || "nothing"}`);
}

const inner = document.createElement("iframe");
inner.setAttribute("sandbox", "allow-scripts allow-same-origin allow-forms");
document.body.append(inner);

window.addEventListener("message", (event) => {
  if (event.source === window.parent) {
    if (event.origin !== host) return;
    if (event.data?.method === RESOURCE) {
      const { html, sandbox } = event.data.params || {};
      if (typeof sandbox === "string") inner.setAttribute("sandbox", sandbox);
      if (typeof html === "string") inner.srcdoc = html;
      return;
    }
    inner.contentWindow?.postMessage(event.data, "*");
  } else if (event.source === inner.contentWindow) {
    window.parent.postMessage(event.data, host);
  }
});

window.parent.postMessage({ jsonrpc: "2.0", method: READY, params: {} }, host);
