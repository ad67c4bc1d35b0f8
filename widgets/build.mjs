/**
 * Builds every view into one self-contained HTML document in dist/ (docs/views.md).
 *
 * esbuild bundles each view's ES-module entry (with ext-apps, MapLibre and the
 * basemap data from node_modules, pinned by package-lock.json) into one script
 * and the view CSS into one stylesheet; both are inlined into shell.html. The
 * plugins of bundle/plugins.mjs keep only what a view uses, and each view
 * document must fit its size budget (bundle/budget.mjs): the build
 * prints each size beside it and fails past it. The server only reads dist/,
 * so it never needs Node. The build also writes the same basemap as a JSON
 * file the server's map images read with Python (IMAGE_BASEMAP,
 * basemap/image.mjs).
 *
 *   node build.mjs           write dist/ and IMAGE_BASEMAP
 *   node build.mjs --check   exit 1 when a committed file in dist/, or IMAGE_BASEMAP,
 *                            differs from a fresh build
 */
import { readFile, writeFile, mkdir } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import path from "node:path";
import * as esbuild from "esbuild";
import { imageBasemap } from "./basemap/image.mjs";
import { basemapParts, packParts } from "./basemap/parts.mjs";
import { basemapTopology } from "./basemap/topology.mjs";
import { BUDGET, overBudget, sizeLine, sizeOf } from "./bundle/budget.mjs";
import { maplibreCss, sideEffectFree, zodEnglishOnly, zodNamespaceImports, zodWithoutJsonSchema } from "./bundle/plugins.mjs";

const ROOT = path.dirname(fileURLToPath(import.meta.url));
const DIST = path.join(ROOT, "dist");
/** The basemap of the server's map images (server/jobs/_basemap.py reads it). */
const IMAGE_BASEMAP = path.join(ROOT, "..", "server", "jobs", "basemap.json");

/** page file, document title, data-view (a view: within BUDGET), script entry, stylesheet entry, template */
const PAGES = [
  { file: "map.html", title: "TomTom map", view: "map", script: "map/main.js", style: "core/view.css" },
  { file: "data-viz.html", title: "TomTom data map", view: "data-viz", script: "data_viz/main.js", style: "core/view.css" },
  { file: "traffic.html", title: "TomTom traffic", view: "traffic", script: "traffic/main.js", style: "core/view.css" },
  { file: "fleet.html", title: "TomTom fleet", view: "fleet", script: "fleet/main.js", style: "core/view.css" },
  { file: "batch.html", title: "TomTom batch map", view: "batch", script: "batch/main.js", style: "batch/view.css" },
  { file: "preview.html", title: "tomtom-mcp-apps preview host", script: "preview/preview.js", style: "preview/preview.css", template: "preview/preview.html" },
  { file: "preview-sandbox.html", title: "preview sandbox", script: "preview/sandbox.js", template: "preview/sandbox.html" },
];

/** The basemap topology, made once per build (the views and the image basemap share it). */
let topology = null;
const sharedTopology = () => (topology ??= basemapTopology());

/** `import packed from "basemap:data"`: Natural Earth land and borders, simplified and packed at build time. */
const basemapData = {
  name: "basemap-data",
  setup(build) {
    build.onResolve({ filter: /^basemap:data$/ }, (args) => ({ path: args.path, namespace: "basemap" }));
    build.onLoad({ filter: /.*/, namespace: "basemap" }, async () => ({
      contents: JSON.stringify(packParts(basemapParts(await sharedTopology()))),
      loader: "json",
    }));
  },
};

/** Bytes of the bundle that come from the offline basemap (its data, decoder and style). */
function basemapBytes(metafile) {
  const output = Object.values(metafile.outputs)[0];
  return Object.entries(output.inputs)
    .filter(([input]) => /basemap/.test(input))
    .reduce((sum, [, { bytesInOutput }]) => sum + bytesInOutput, 0);
}

/** `view`: a view document (its JavaScript drops what only a tool-publishing side needs). */
async function bundle(entry, kind, sizes = {}, view = false) {
  const result = await esbuild.build({
    entryPoints: [path.join(ROOT, entry)],
    bundle: true,
    minify: true,
    write: false,
    charset: "utf8",
    legalComments: "eof",
    target: "es2022",
    metafile: true,
    plugins: kind === "js" ? [sideEffectFree, zodNamespaceImports, zodEnglishOnly, ...(view ? [zodWithoutJsonSchema] : []), basemapData] : [maplibreCss],
    ...(kind === "js" ? { format: "iife", platform: "browser" } : {}),
    logLevel: "error",
  });
  const text = result.outputFiles[0].text;
  sizes.basemap = (sizes.basemap || 0) + basemapBytes(result.metafile);
  if (/<\/(script|style)/i.test(text) || text.includes("<!--")) {
    throw new Error(`${entry} bundles to text containing </script, </style or <!--: it cannot be inlined`);
  }
  return text;
}

async function page(spec, sizes) {
  let html = await readFile(path.join(ROOT, spec.template ?? "shell.html"), "utf8");
  const styles = spec.style ? `<style>${await bundle(spec.style, "css", sizes)}</style>` : "";
  const scripts = `<script>${await bundle(spec.script, "js", sizes, Boolean(spec.view))}</script>`;
  for (const [key, value] of Object.entries({ styles, scripts, title: spec.title, view: spec.view ?? "" })) {
    html = html.replaceAll(`{{${key}}}`, () => value);
  }
  return html;
}

async function main() {
  const check = process.argv.includes("--check");
  await mkdir(DIST, { recursive: true });
  const stale = [];
  const over = [];
  for (const spec of PAGES) {
    const sizes = {};
    const html = await page(spec, sizes);
    const out = path.join(DIST, spec.file);
    const budget = spec.view ? BUDGET : null;
    const size = sizeOf(html);
    if (budget) over.push(...overBudget(size, budget).map((what) => `dist/${spec.file}: ${what}`));
    if (check) {
      const committed = await readFile(out, "utf8").catch(() => null);
      if (committed !== html) stale.push(`dist/${spec.file}`);
    } else {
      await writeFile(out, html);
      console.log(sizeLine(`dist/${spec.file}`, size, budget, sizes.basemap));
    }
  }
  const basemap = imageBasemap(await sharedTopology());
  const imageFile = path.relative(ROOT, IMAGE_BASEMAP);
  if (check) {
    const committed = await readFile(IMAGE_BASEMAP, "utf8").catch(() => null);
    if (committed !== basemap) stale.push(imageFile);
  } else {
    await writeFile(IMAGE_BASEMAP, basemap);
    console.log(`${imageFile}: ${Buffer.byteLength(basemap).toLocaleString("en-US")} bytes`);
  }
  if (over.length) {
    console.error(`widgets: a view is over its size budget (bundle/budget.mjs):\n  ${over.join("\n  ")}`);
    process.exit(1);
  }
  if (stale.length) {
    console.error(
      `widgets: ${stale.join(", ")} ${stale.length === 1 ? "is" : "are"} not the build of the current sources; ` +
        "run `npm run build` in widgets/ and commit dist/ and ../server/jobs/basemap.json.",
    );
    process.exit(1);
  }
  if (check) console.log(`widgets: dist/ and ${imageFile} match the sources (${PAGES.length} documents)`);
}

await main();
