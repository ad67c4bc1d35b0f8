/**
 * The esbuild plugins that keep each view document small: only the
 * parts of the libraries a view runs end up in it. Each plugin's rewrite is a
 * pure function exported beside it, so the unit tests check it on text.
 *
 * - `zodEnglishOnly`: zod re-exports ~60 translated error-message locales; the
 *   views only ever show English.
 * - `sideEffectFree`: the MCP SDK packages declare no `sideEffects`, so esbuild
 *   keeps every file they import (OAuth, JSON Schema validators) although a view
 *   uses only ext-apps' `Protocol`; their files have no top-level effects.
 * - `zodNamespaceImports`: ext-apps imports zod as `import { z } from "zod/v4"`,
 *   an object esbuild cannot see into, so all of zod (JSON Schema conversion,
 *   the compiler) would come along; `import * as z` is the same namespace, and esbuild
 *   keeps only the members used.
 * - `maplibreCss`: MapLibre's stylesheet without the rules of controls the views
 *   never add (their icons are most of its bytes).
 * - `zodWithoutJsonSchema`: every zod schema carries its JSON Schema conversion,
 *   which only a side that publishes tool schemas calls; a view registers no
 *   tool, so those two modules become stubs that say so if called.
 */
import { readFile } from "node:fs/promises";

export const zodEnglishOnly = {
  name: "zod-english-only",
  setup(build) {
    build.onLoad({ filter: /zod[\\/]v4[\\/]locales[\\/]index\.js$/ }, () => ({
      contents: 'export { default as en } from "./en.js";',
      loader: "js",
    }));
  },
};

const SIDE_EFFECT_FREE = /[\\/]node_modules[\\/]@modelcontextprotocol[\\/](client|core|ext-apps)[\\/]/;

export const sideEffectFree = {
  name: "side-effect-free",
  setup(build) {
    build.onResolve({ filter: /.*/ }, async (args) => {
      if (args.pluginData?.resolving || args.kind === "entry-point") return undefined;
      const resolved = await build.resolve(args.path, {
        kind: args.kind,
        importer: args.importer,
        resolveDir: args.resolveDir,
        namespace: args.namespace,
        pluginData: { resolving: true },
      });
      if (resolved.errors.length || !SIDE_EFFECT_FREE.test(resolved.path)) return undefined;
      return { path: resolved.path, sideEffects: false };
    });
  },
};

/** `import { z as X } from "zod/v4"` as `import * as X from "zod/v4"` (the same members). */
export function namespaceZod(source) {
  return source.replace(/import\s*\{\s*z\s+as\s+([\w$]+)\s*\}\s*from\s*(["'])zod\/v4\2/g, 'import * as $1 from "zod/v4"');
}

export const zodNamespaceImports = {
  name: "zod-namespace-imports",
  setup(build) {
    build.onLoad({ filter: /[\\/]@modelcontextprotocol[\\/]ext-apps[\\/]dist[\\/].*\.js$/ }, async (args) => ({
      contents: namespaceZod(await readFile(args.path, "utf8")),
      loader: "js",
    }));
  },
};

/** MapLibre controls the views never add: their rules (and icons) go. */
const UNUSED_CONTROLS = [
  "compass",
  "fullscreen",
  "geolocate",
  "globe",
  "logo",
  "scale",
  "shrink",
  "terrain",
  "user-location",
  "cooperative-gesture",
  "desktop-message",
  "mobile-message",
  "pseudo-fullscreen",
];
const UNUSED = new RegExp(`maplibregl-(ctrl-)?(${UNUSED_CONTROLS.join("|")})`);

/** The top-level blocks of `css`: `[prelude, body]`, body without its braces. */
function blocks(css) {
  const out = [];
  let depth = 0;
  let start = 0;
  let open = -1;
  for (let i = 0; i < css.length; i++) {
    if (css[i] === "{" && depth++ === 0) open = i;
    else if (css[i] === "}" && --depth === 0) {
      out.push([css.slice(start, open).trim(), css.slice(open + 1, i)]);
      start = i + 1;
    }
  }
  if (depth !== 0 || css.slice(start).trim()) throw new Error("unbalanced CSS: cannot filter it");
  return out;
}

/** The selectors of a rule's prelude: split at commas outside parentheses (`:is(a, b)`). */
function selectors(prelude) {
  const out = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < prelude.length; i++) {
    if (prelude[i] === "(") depth++;
    else if (prelude[i] === ")") depth--;
    else if (prelude[i] === "," && depth === 0) {
      out.push(prelude.slice(start, i));
      start = i + 1;
    }
  }
  return [...out, prelude.slice(start)];
}

/** `css` without the selectors that name an unused control; rules and at-rules left empty go. */
export function withoutUnusedControls(css) {
  return blocks(css)
    .map(([prelude, body]) => {
      if (prelude.startsWith("@media") || prelude.startsWith("@supports")) {
        const inner = withoutUnusedControls(body);
        return inner ? `${prelude}{${inner}}` : "";
      }
      if (prelude.startsWith("@")) return `${prelude}{${body}}`;
      const kept = selectors(prelude).filter((selector) => !UNUSED.test(selector));
      return kept.length ? `${kept.join(",")}{${body}}` : "";
    })
    .join("");
}

export const maplibreCss = {
  name: "maplibre-css",
  setup(build) {
    build.onLoad({ filter: /maplibre-gl[\\/]dist[\\/]maplibre-gl\.css$/ }, async (args) => ({
      contents: withoutUnusedControls(await readFile(args.path, "utf8")),
      loader: "css",
    }));
  },
};

/** zod's JSON Schema modules (the conversion and its per-type processors). */
const JSON_SCHEMA = /zod[\\/]v4[\\/]core[\\/](to-json-schema|json-schema-processors)\.js$/;

/**
 * A stand-in for a module of `source`: the same exports, each refusing to convert. The
 * factories (`create...`) still hand out a function, since zod calls them as it builds
 * a schema's `~standard`; `aggregateChecks` (read by schema getters) finds nothing.
 */
export function jsonSchemaStub(source) {
  const names = [...source.matchAll(/^export (?:const|function|class) ([\w$]+)/gm)].map((m) => m[1]);
  const aliases = [...source.matchAll(/^export \{([^}]*)\}/gm)].map((m) => `export {${m[1]}};`);
  const value = (name) => (name.startsWith("create") ? "() => unavailable" : name === "aggregateChecks" ? "() => ({})" : name === "allProcessors" ? "{}" : "unavailable");
  return [
    'const unavailable = () => { throw new Error("JSON Schema conversion is not part of a view (bundle/plugins.mjs)"); };',
    ...names.map((name) => `export const ${name} = ${value(name)};`),
    ...aliases,
  ].join("\n");
}

export const zodWithoutJsonSchema = {
  name: "zod-without-json-schema",
  setup(build) {
    build.onLoad({ filter: JSON_SCHEMA }, async (args) => ({ contents: jsonSchemaStub(await readFile(args.path, "utf8")), loader: "js" }));
  },
};
