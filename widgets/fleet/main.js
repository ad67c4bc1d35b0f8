/**
 * Fleet view: a travel-time matrix (`tomtom-matrix`: the places, origins listed
 * nearest-first, and the selected origin's fastest links drawn) or a fleet plan
 * (`tomtom-plan-routes`: each vehicle's route in its colour with numbered stops,
 * a list per vehicle, and each stop's window and arrival when selected).
 */
import e5 from "../core/e5.js";
import envelope from "../core/envelope.js";
import { boundsOf } from "../core/bounds.js";
import * as mapCore from "../core/map.js";
import { mapSession, links } from "../core/session.js";
import { startView } from "../core/view.js";
import { drawMatrix, drawPlan, fastestLinks, highlight, matrixItems } from "./draw.js";
import { word } from "./words.js";

const session = mapSession(() => ["basemap"], ["basemap"]);
let shown = null;
/** How the matrix's origins are listed: "nearest" (shortest drive first) or "index". */
let sort = "nearest";

/** A button in the title that lists the origins the other way. */
function sortButton(ctx, fc) {
  const box = document.getElementById("title");
  const wrap = document.createElement("span");
  wrap.className = "tt-links";
  const button = document.createElement("button");
  button.id = "fleet-sort";
  button.type = "button";
  wrap.append(button);
  const label = () => (button.textContent = word(ctx.l10n, sort === "nearest" ? "sortNearest" : "sortIndex"));
  label();
  button.addEventListener("click", () => {
    sort = sort === "nearest" ? "index" : "nearest";
    label();
    ctx.setItems([{ title: word(ctx.l10n, "origins"), items: matrixItems(fc, ctx.l10n, sort) }]);
  });
  box.append(wrap);
}

function show(ctx, fc, stored) {
  const { map, scene } = session.opened;
  const l10n = ctx.l10n;
  const select = (id) => ctx.select(id, "map");
  scene.clear();
  ctx.clearNotes();
  let count;
  if (fc.matrix) {
    const drawn = drawMatrix(scene, fc, { theme: ctx.theme(), l10n, select, sort });
    ctx.setLegend(drawn.legend);
    ctx.setItems([{ title: word(l10n, "origins"), items: drawn.items }]);
    ctx.setTitle(word(l10n, "fleetMatrix"), fc.title || "");
    sortButton(ctx, fc);
    count = drawn.places;
  } else {
    const drawn = drawPlan(scene, fc, { theme: ctx.theme(), l10n, select });
    ctx.setLegend(drawn.legend);
    ctx.setItems(drawn.groups);
    ctx.setTitle(word(l10n, "fleetPlan"), fc.title || "");
    count = drawn.stops;
  }
  if (ctx.tilesProblem()) ctx.addNote(ctx.tilesProblem());
  mapCore.describe(map, l10n.t("summary", { what: fc.title || word(l10n, "fleetPlan") }));
  mapCore.markIdle(map, ctx.status);
  if (stored !== undefined && !session.restore(ctx, stored)) mapCore.fit(map, boundsOf(fc), 32);
  return count;
}

async function onResult(result, ctx, stored) {
  const env = await ctx.appData(result);
  let fc;
  try {
    fc = e5.decodeGeoJSON(env.data);
  } catch (err) {
    throw new envelope.ViewError("decode_failed", `The fleet data is malformed: ${err.message}`);
  }
  if (!Array.isArray(fc.features)) throw new envelope.ViewError("decode_failed", "The fleet data is not a FeatureCollection.");
  await session.open(ctx);
  shown = fc;
  const n = ctx.draw((ctx, stored) => show(ctx, fc, stored), stored);
  const what = fc.matrix ? "matrix" : "plan";
  ctx.ok(`${what}: ${n} places drawn`, { features: n, [what === "matrix" ? "places" : "stops"]: n });
}

startView({
  name: "tomtom-fleet",
  tool: "tomtom-matrix",
  links,
  session,
  onResult,
  onSelect(item, ctx, via) {
    if (!session.opened) return;
    const { scene } = session.opened;
    highlight(scene, item);
    if (shown?.matrix && item?.details && Number.isInteger(item.details.origin)) {
      scene.map.getSource("links")?.setData({ type: "FeatureCollection", features: fastestLinks(shown, item.details.origin) });
    }
    session.show(ctx, item, via);
  },
});
