import test from "node:test";
import assert from "node:assert/strict";
import { createRedraw, lookOf } from "./redraw.js";

/** A view's ctx as far as the look goes: a theme and a locale. */
const view = (theme, locale) => ({ theme: () => theme, l10n: { locale } });

test("the look is the theme and the locale", () => {
  assert.equal(lookOf(view("dark", "de-DE")), "dark de-DE");
});

test("nothing is drawn again before anything was drawn", () => {
  const redraw = createRedraw();
  assert.equal(redraw.drawn(), false);
  assert.equal(redraw.again(view("dark", "en-US")), false);
});

test("the last drawing is drawn again, without stored state, only when the theme or the locale changed", () => {
  const redraw = createRedraw();
  const calls = [];
  const ctx = { theme: () => ctx.themeNow, themeNow: "light", l10n: { locale: "en-US" } };
  const first = redraw.draw((c, stored) => (calls.push([c.themeNow, c.l10n.locale, stored]), "drawn"), ctx, { camera: null });
  assert.equal(first, "drawn");
  assert.equal(redraw.drawn(), true);
  assert.equal(redraw.again(ctx), false, "same look: not drawn again");
  ctx.themeNow = "dark";
  assert.equal(redraw.again(ctx), true);
  assert.equal(redraw.again(ctx), false, "drawn in this look already");
  ctx.l10n = { locale: "fr-FR" };
  assert.equal(redraw.again(ctx), true);
  assert.deepEqual(calls, [
    ["light", "en-US", { camera: null }],
    ["dark", "en-US", undefined],
    ["dark", "fr-FR", undefined],
  ]);
});

test("a new drawing replaces the one drawn again", () => {
  const redraw = createRedraw();
  const ctx = { theme: () => ctx.themeNow, themeNow: "light", l10n: { locale: "en-US" } };
  const seen = [];
  redraw.draw(() => seen.push("partial"), ctx);
  redraw.draw(() => seen.push("result"), ctx);
  ctx.themeNow = "dark";
  redraw.again(ctx);
  assert.deepEqual(seen, ["partial", "result", "result"]);
});
