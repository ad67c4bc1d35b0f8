/**
 * What a view drew, and in which look (theme and locale), so that a host
 * context in another look draws it again: colours and words follow the host,
 * once for every view (`core/view.js` asks after each host context).
 */

/** The look a drawing depends on. */
export function lookOf(ctx) {
  return `${ctx.theme()} ${ctx.l10n.locale}`;
}

export function createRedraw() {
  const last = { draw: null, look: "" };
  return {
    /** Draw with `draw(ctx, stored)` now and remember it; returns what it returns. */
    draw(draw, ctx, stored) {
      last.draw = draw;
      last.look = lookOf(ctx);
      return draw(ctx, stored);
    },
    /** True once something was drawn (partial input then no longer draws its sketch). */
    drawn() {
      return last.draw !== null;
    },
    /**
     * Draw the last drawing again if the look changed since (no stored state: the
     * camera stays where the user left it). True when it did.
     */
    again(ctx) {
      if (!last.draw || last.look === lookOf(ctx)) return false;
      last.look = lookOf(ctx);
      last.draw(ctx);
      return true;
    },
  };
}
