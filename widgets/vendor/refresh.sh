#!/usr/bin/env bash
# Refresh the vendored, pinned browser bundles in widgets/vendor/ from npm.
# Needs Node 20 + npm at build time only; the server never runs Node.
# Change a version below, run this script, and commit the result.
set -euo pipefail

EXT_APPS=2.0.4        # @modelcontextprotocol/ext-apps (App, AppBridge)
MCP_CLIENT=2.4.0      # @modelcontextprotocol/client + core (peer of ext-apps 2.x)
ZOD=4.6.7             # zod (peer of the MCP client)
MAPLIBRE=5.24.1       # maplibre-gl: last major with a single UMD file, worker inlined
ESBUILD=0.28.2

here="$(cd "$(dirname "$0")" && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cd "$work"
npm init -y >/dev/null
npm install --no-audit --no-fund --silent \
  "@modelcontextprotocol/ext-apps@$EXT_APPS" \
  "@modelcontextprotocol/client@$MCP_CLIENT" \
  "@modelcontextprotocol/core@$MCP_CLIENT" \
  "zod@$ZOD" \
  "maplibre-gl@$MAPLIBRE" \
  "esbuild@$ESBUILD"

# zod re-exports ~60 translated error-message locales (about 40% of the
# bundle); the widgets only ever show English, so keep `en` alone.
printf 'export { default as en } from "./en.js";\n' > node_modules/zod/v4/locales/index.js

cat > app-entry.js <<'JS'
export { App, applyDocumentTheme, applyHostFonts, applyHostStyleVariables }
  from "@modelcontextprotocol/ext-apps";
JS
cat > host-entry.js <<'JS'
export { AppBridge, PostMessageTransport, buildAllowAttribute, getToolUiResourceUri }
  from "@modelcontextprotocol/ext-apps/app-bridge";
export { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
JS

bundle() {  # entry, global name, output
  node_modules/.bin/esbuild "$1" --bundle --minify --format=iife --global-name="$2" \
    --platform=browser --target=es2022 --legal-comments=none \
    --banner:js="/* $4 - bundled by widgets/vendor/refresh.sh */" --outfile="$here/$3"
}
bundle app-entry.js McpApps ext-apps-app.js "@modelcontextprotocol/ext-apps@$EXT_APPS (MIT)"
bundle host-entry.js McpHost mcp-host.js \
  "@modelcontextprotocol/ext-apps@$EXT_APPS, @modelcontextprotocol/client@$MCP_CLIENT (MIT)"

cp node_modules/maplibre-gl/dist/maplibre-gl.js "$here/maplibre-gl.js"
cp node_modules/maplibre-gl/dist/maplibre-gl.css "$here/maplibre-gl.css"
cp node_modules/maplibre-gl/LICENSE.txt "$here/maplibre-gl.LICENSE.txt"

cat > "$here/versions.json" <<JSON
{
  "@modelcontextprotocol/ext-apps": "$EXT_APPS",
  "@modelcontextprotocol/client": "$MCP_CLIENT",
  "@modelcontextprotocol/core": "$MCP_CLIENT",
  "zod": "$ZOD",
  "maplibre-gl": "$MAPLIBRE",
  "esbuild": "$ESBUILD"
}
JSON
ls -l "$here"
