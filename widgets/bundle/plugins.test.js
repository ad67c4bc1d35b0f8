import test from "node:test";
import assert from "node:assert/strict";
import { jsonSchemaStub, namespaceZod, withoutUnusedControls } from "./plugins.mjs";

test("ext-apps' named import of zod's namespace becomes a namespace import of the same members", () => {
  assert.equal(namespaceZod('import{z as Q}from"zod/v4";Q.object({})'), 'import * as Q from "zod/v4";Q.object({})');
  assert.equal(namespaceZod("import { z as dQ } from 'zod/v4';"), 'import * as dQ from "zod/v4";');
  const other = 'import{z as Q}from"zod/v4-mini";import{y as z}from"zod/v4"';
  assert.equal(namespaceZod(other), other, "other packages and other names are left as they are");
});

test("the rules of controls the views never add go, with at-rules left empty", () => {
  const css =
    ".maplibregl-map{overflow:hidden}" +
    ".maplibregl-ctrl-geolocate .maplibregl-ctrl-icon{background:url(x)}" +
    ".maplibregl-ctrl button.maplibregl-ctrl-zoom-in,.maplibregl-ctrl button.maplibregl-ctrl-compass{width:29px}" +
    "@media (forced-colors:active){.maplibregl-ctrl-logo{display:none}}" +
    "@media (hover:none),(pointer:coarse){.maplibregl-popup-close-button:is(:hover,:focus){color:red}}" +
    "@keyframes maplibregl-spin{0%{transform:rotate(0)}}";
  assert.equal(
    withoutUnusedControls(css),
    ".maplibregl-map{overflow:hidden}" +
      ".maplibregl-ctrl button.maplibregl-ctrl-zoom-in{width:29px}" +
      "@media (hover:none),(pointer:coarse){.maplibregl-popup-close-button:is(:hover,:focus){color:red}}" +
      "@keyframes maplibregl-spin{0%{transform:rotate(0)}}",
  );
});

test("CSS whose braces do not balance is refused rather than cut wrongly", () => {
  assert.throws(() => withoutUnusedControls(".a{color:red"), /unbalanced/);
});

test("zod's JSON Schema modules become stubs with the same exports, which refuse to convert", async () => {
  const source = [
    "export function toJSONSchema(input, params) {}",
    "export const stringProcessor = (schema, ctx) => {};",
    "export function aggregateChecks(schema) {}",
    "export const allProcessors = { string: stringProcessor };",
    "export const createStandardJSONSchemaMethod = (schema, io) => (params) => {};",
    "export { processSchema as process };",
    "function processSchema() {}",
  ].join("\n");
  const stub = jsonSchemaStub(source);
  const url = `data:text/javascript,${encodeURIComponent(stub.replace("export { processSchema as process };", "export const process = 1;"))}`;
  const m = await import(url);
  assert.deepEqual(Object.keys(m).sort(), ["aggregateChecks", "allProcessors", "createStandardJSONSchemaMethod", "process", "stringProcessor", "toJSONSchema"]);
  assert.throws(() => m.toJSONSchema({}), /JSON Schema conversion is not part of a view/);
  assert.equal(typeof m.createStandardJSONSchemaMethod({}, "input"), "function", "zod builds ~standard with it: it hands out a function");
  assert.deepEqual(m.aggregateChecks({}), {});
  assert.match(stub, /^export \{ processSchema as process \};$/m, "aliases are kept");
});
