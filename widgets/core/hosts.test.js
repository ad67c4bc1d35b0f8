import test from "node:test";
import assert from "node:assert/strict";
import { hostInfo, hostLabel, metaDroppedText } from "./hosts.js";

const app = (version, context) => ({ getHostVersion: () => version, getHostContext: () => context });

test("the host is read from the app's host version and the context's platform, bounded", () => {
  const host = hostInfo(app({ name: "x".repeat(300), version: "1.2.3" }, { platform: "desktop" }));
  assert.equal(host.name.length, 100);
  assert.deepEqual([host.version, host.platform], ["1.2.3", "desktop"]);
  assert.equal(hostInfo(app(undefined, { platform: "tv" })).platform, "");
  assert.deepEqual(hostInfo(null), { name: "", version: "", platform: "" });
});

test("hosts are named the way their users know them", () => {
  assert.equal(hostLabel({ name: "claude-ai", platform: "desktop" }), "Claude Desktop");
  assert.equal(hostLabel({ name: "Claude", platform: "web" }), "Claude on the web");
  assert.equal(hostLabel({ name: "chatgpt", platform: "web" }), "ChatGPT on the web");
  assert.equal(hostLabel({ name: "tomtom-preview-host", platform: "web" }), "tomtom-preview-host");
  assert.equal(hostLabel({ name: "", platform: "" }), "This host");
});

test("a dropped _meta names the host and says what the user can do there", () => {
  const desktop = metaDroppedText({ name: "Claude", platform: "desktop" });
  assert.match(desktop, /^Claude Desktop did not pass the tool result's _meta/);
  assert.match(desktop, /Claude on the web/);
  const web = metaDroppedText({ name: "ChatGPT", platform: "web" });
  assert.match(web, /^ChatGPT on the web did not pass/);
  assert.match(web, /ChatGPT desktop app/);
  const other = metaDroppedText({ name: "Some Host", platform: "web" });
  assert.match(other, /^Some Host did not pass .* another MCP Apps host/);
  for (const text of [desktop, web, other]) assert.match(text, /The answer in the chat is complete\.$/);
});
