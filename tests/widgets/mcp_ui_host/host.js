/**
 * A host page built on a host library others wrote: @mcp-ui/client's AppRenderer, the
 * renderer Goose shows MCP Apps with. Only the wiring is ours: an MCP client of the
 * TypeScript SDK (the one @mcp-ui/client depends on) on this page's origin, the tool
 * call, and AppRenderer given the client, the tool's name, input and result, and the
 * preview's sandbox proxy on the other loopback name. AppRenderer does the rest as it
 * does in that host: it finds the tool's ui:// resource, reads it, creates the
 * AppBridge, and sends the view its input and result.
 *
 * `?tool=<name>&args=<json>` (query or #fragment) runs at once; `window.mcpUiHost`
 * holds the status, the result and the errors, for the browser tests.
 */
import { AppRenderer } from "@mcp-ui/client";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { createElement } from "react";
import { createRoot } from "react-dom/client";

const query = new URLSearchParams(`${location.search.slice(1)}&${location.hash.slice(1)}`);
const state = (window.mcpUiHost = { status: "starting", result: null, errors: [], size: null });

/** The other loopback name for the same port: the sandbox's origin, not the host's. */
function sandboxUrl() {
  const other = { "127.0.0.1": "localhost", localhost: "127.0.0.1" }[location.hostname];
  return new URL(`${location.protocol}//${other}:${location.port}/preview/sandbox`);
}

async function run() {
  const tool = query.get("tool");
  const args = JSON.parse(query.get("args") || "{}");
  const client = new Client(
    { name: "mcp-ui-host", version: "1.0.0" },
    { capabilities: { extensions: { "io.modelcontextprotocol/ui": { mimeTypes: ["text/html;profile=mcp-app"] } } } },
  );
  await client.connect(new StreamableHTTPClientTransport(new URL("/mcp", location.href)));
  const result = await client.callTool({ name: tool, arguments: args });
  state.result = result;
  state.status = "rendering";
  createRoot(document.getElementById("app")).render(
    createElement(AppRenderer, {
      client,
      toolName: tool,
      sandbox: { url: sandboxUrl() },
      toolInput: args,
      toolResult: result,
      onSizeChanged: (size) => {
        state.size = size;
      },
      onError: (err) => {
        state.errors.push(String(err?.message || err));
      },
    }),
  );
}

run().catch((err) => {
  state.status = "failed";
  state.errors.push(String(err?.message || err));
});
