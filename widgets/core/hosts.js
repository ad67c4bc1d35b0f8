"use strict";
/**
 * The host a view runs in, in words a person reads and labels the server
 * counts: `info(app)` for status reports, `metaDropped(info)` for the error a
 * view shows when the host did not pass the tool result's `_meta` (the map
 * data) to it. Two hosts are known to: Claude Desktop (ext-apps#696) and
 * ChatGPT on the web (openai-apps-sdk-examples#231); both deliver it on their
 * other surface.
 */
const hosts = (() => {
  const PLATFORMS = ["web", "desktop", "mobile"];

  /** {name, version, platform} from an ext-apps `App` once connected; strings bounded. */
  function info(app) {
    const version = (app && app.getHostVersion && app.getHostVersion()) || {};
    const context = (app && app.getHostContext && app.getHostContext()) || {};
    const platform = PLATFORMS.includes(context.platform) ? context.platform : "";
    return {
      name: String(version.name || version.title || "").slice(0, 100),
      version: String(version.version || "").slice(0, 50),
      platform,
    };
  }

  function family(host) {
    const name = String((host && host.name) || "").toLowerCase();
    if (name.includes("claude")) return "claude";
    if (name.includes("chatgpt") || name.includes("openai")) return "chatgpt";
    return name ? "other" : "unknown";
  }

  /** How to name the host in a sentence: "Claude Desktop", "ChatGPT on the web", its name. */
  function label(host) {
    const where = { web: "on the web", desktop: "Desktop", mobile: "on mobile" }[host && host.platform];
    const f = family(host);
    if (f === "claude") return where === "Desktop" ? "Claude Desktop" : `Claude${where ? ` ${where}` : ""}`;
    if (f === "chatgpt") return `ChatGPT${where ? ` ${where === "Desktop" ? "desktop" : where}` : ""}`;
    if (f === "other") return host.name;
    return "This host";
  }

  /** The on-screen text for `meta_dropped`: which host, and what the user can do. */
  function metaDropped(host) {
    const who = label(host);
    const f = family(host);
    let advice;
    if (f === "claude" && host.platform !== "web") {
      advice = "Claude Desktop is known to leave it out (ext-apps#696); open this chat in Claude on the web (claude.ai) to see the map.";
    } else if (f === "chatgpt" && host.platform !== "desktop") {
      advice = "ChatGPT on the web is known to replace it (openai-apps-sdk-examples#231); open this chat in the ChatGPT desktop app to see the map.";
    } else {
      advice = "Update the app, or open this chat in another MCP Apps host.";
    }
    return `${who} did not pass the tool result's _meta (its map data) to this view. ${advice} The answer in the chat is complete.`;
  }

  return { info, family, label, metaDropped };
})();

if (typeof module === "object") module.exports = hosts;
