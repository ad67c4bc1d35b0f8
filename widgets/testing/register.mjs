/**
 * `node --import ./testing/register.mjs --test ...`: lets the unit tests import
 * view modules that import what only the build provides (hooks.mjs).
 */
import { register } from "node:module";

register("./hooks.mjs", import.meta.url);
