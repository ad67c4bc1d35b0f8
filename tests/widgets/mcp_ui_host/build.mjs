/** Bundles host.js into one HTML document, written to the path given (the browser test's tmp dir). */
import { writeFileSync } from "node:fs";
import { build } from "esbuild";

const out = await build({
  entryPoints: [new URL("host.js", import.meta.url).pathname],
  bundle: true,
  format: "iife",
  write: false,
  minify: true,
  define: { "process.env.NODE_ENV": '"production"' },
  logLevel: "error",
});
const js = out.outputFiles[0].text.replaceAll("</script", "<\\/script");
const html = `<!doctype html><html><head><meta charset="utf-8"><title>mcp-ui host</title>
<style>body{margin:0;font:14px sans-serif}#app iframe{width:800px;height:450px;border:0}</style></head>
<body><div id="app"></div><script>${js}</script></body></html>`;
writeFileSync(process.argv[2], html);
