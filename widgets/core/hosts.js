/**
 * The host a view runs in, in words a person reads and labels the server
 * counts: `hostInfo(app)` for status reports, `metaDroppedText(host)` for the
 * error a view shows when the host did not pass the tool result's `_meta`
 * (the map data) to it. Two hosts are known to: Claude Desktop (ext-apps#696)
 * and ChatGPT on the web (openai-apps-sdk-examples#231); both deliver it on
 * their other surface (docs/views.md).
 */
const PLATFORMS = ["web", "desktop", "mobile"];

/** {name, version, platform} from an ext-apps `App` once connected; strings bounded. */
export function hostInfo(app) {
  const version = (app && app.getHostVersion && app.getHostVersion()) || {};
  const context = (app && app.getHostContext && app.getHostContext()) || {};
  return {
    name: String(version.name || version.title || "").slice(0, 100),
    version: String(version.version || "").slice(0, 50),
    platform: PLATFORMS.includes(context.platform) ? context.platform : "",
  };
}

function family(host) {
  const name = String((host && host.name) || "").toLowerCase();
  if (name.includes("claude")) return "claude";
  if (name.includes("chatgpt") || name.includes("openai")) return "chatgpt";
  return name ? "other" : "unknown";
}

/** How to name the host in a sentence: "Claude Desktop", "ChatGPT on the web", its name. */
export function hostLabel(host) {
  const platform = host && host.platform;
  const f = family(host);
  if (f === "claude") return { desktop: "Claude Desktop", web: "Claude on the web", mobile: "Claude on mobile" }[platform] || "Claude";
  if (f === "chatgpt") return { desktop: "ChatGPT desktop", web: "ChatGPT on the web", mobile: "ChatGPT on mobile" }[platform] || "ChatGPT";
  if (f === "other") return host.name;
  return "This host";
}

/** The on-screen text for `meta_dropped`: which host, and what the user can do. */
export function metaDroppedText(host) {
  const f = family(host);
  let advice;
  if (f === "claude" && host.platform !== "web") {
    advice = "Claude Desktop is known to leave it out (ext-apps#696); open this chat in Claude on the web (claude.ai) to see the map.";
  } else if (f === "chatgpt" && host.platform !== "desktop") {
    advice = "ChatGPT on the web is known to replace it (openai-apps-sdk-examples#231); open this chat in the ChatGPT desktop app to see the map.";
  } else {
    advice = "Update the app, or open this chat in another MCP Apps host.";
  }
  return `${hostLabel(host)} did not pass the tool result's _meta (its map data) to this view. ${advice} The answer in the chat is complete.`;
}
