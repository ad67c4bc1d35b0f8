/**
 * One map per view, created on first need (partial input or the result) and
 * kept: the basemap, TomTom tiles when the server serves them (asked of
 * `tomtom-get-map-config`), a Scene for the data, the camera tracked into the
 * view state, and the selection shown on it. Views call `open(ctx)` and draw;
 * `restore` puts back a stored view state; `core/view.js` restyles it on a
 * theme change, shows or hides its layer groups and removes it on teardown.
 */
import envelope from "./envelope.js";
import * as mapCore from "./map.js";
import { directionsLink, placeLink } from "./links.js";

/**
 * Tile URL templates for `layers` from `tomtom-get-map-config`, on the server's
 * tile route with a short-lived token (never a key): `{tiles, offline, reason,
 * expiresIn, renew, refetch}`, `renew()` asking again for a fresh token,
 * `refetch` whether the server runs a tool again for a view whose host dropped
 * `_meta` (VIEW_REFETCH: `refetch: true` in the configuration); `{tiles: {}, error}` when unavailable. `callTool(name,
 * args)` (async) calls a server tool.
 */
export function mapConfig(callTool, layers) {
  const ask = () =>
    callTool("tomtom-get-map-config", layers ? { layers } : {})
      .then((r) => {
        const cfg = r && !r.isError && r._meta && r._meta["com.tomtom/map-config"];
        if (!cfg) return { tiles: {}, error: "the server sent no map configuration" };
        return {
          tiles: cfg.tiles || {},
          offline: cfg.offline === true,
          reason: cfg.reason || "",
          expiresIn: Number.isFinite(cfg.expires_in) ? cfg.expires_in : 0,
          renew: ask,
          refetch: cfg.refetch === true,
        };
      })
      .catch((err) => ({ tiles: {}, error: err.message }));
  return ask();
}

/** The view's map in #map, over the basemap in `theme`. */
const mapInFrame = (theme) => mapCore.createMap(document.getElementById("map"), theme);

/**
 * `tileNames(theme, config)`: the layers to draw now, among `layers`, those the token
 * grants. `createMap(theme)` resolves to the map (a stand-in in unit tests).
 */
export function mapSession(tileNames, layers, createMap = mapInFrame) {
  let pending = null;
  let opened = null;
  const session = {
    /** {map, scene, tiles, refetch} once the map and its tiles are set up. */
    open(ctx) {
      pending ??= (async () => {
        const [map, config] = await Promise.all([createMap(ctx.theme()), mapConfig(ctx.callTool, layers)]);
        if (map.fallback) ctx.engineFallback(map.fallback);
        else ctx.status.set({ engine: "maplibre" });
        const scene = mapCore.createScene(map);
        const tiles = mapCore.addRaster(map, config, tileNames(ctx.theme(), config), {
          onFail: (msg, state) => ctx.tilesFailed(msg, state),
          t: ctx.t,
          status: ctx.status,
        });
        mapCore.trackCamera(map, ctx.status, (camera) => ctx.state.save({ camera }));
        opened = { map, scene, tiles, refetch: config.refetch === true };
        return opened;
      })();
      return pending;
    },
    get opened() {
      return opened;
    },
    /** Fly to the item, open its popup (links through the host), and let the view highlight it. */
    show(ctx, item, via) {
      if (!opened) return;
      if (via !== "restore") mapCore.flyTo(opened.map, item);
      mapCore.showPopup(opened.map, item, { t: ctx.t, onLink: (kind, it) => ctx.openLink(links[kind]?.(it, ctx)), status: ctx.status });
    },
    /** The view's `onSelect` with `highlight(scene, item)`: highlight the item, then show it. */
    selecting(highlight) {
      return (item, ctx, via) => {
        if (!opened) return;
        highlight(opened.scene, item);
        session.show(ctx, item, via);
      };
    },
    /** A stored camera, hidden layers and selection put back; false when there was no camera to restore. */
    restore(ctx, stored) {
      if (!opened || !stored) return false;
      for (const group of stored.hidden || []) opened.scene.setVisible(group, false);
      const moved = mapCore.restoreCamera(opened.map, stored.camera);
      if (stored.selected) ctx.restoreSelection(stored.selected);
      ctx.status.set({ restored: moved });
      return moved;
    },
    /** Show or hide every layer and marker of `group` (a legend toggle). */
    setVisible(group, visible) {
      opened?.scene.setVisible(group, visible);
    },
    /** The basemap in `theme` (`core/view.js` draws the data again). */
    restyle(theme) {
      if (opened) mapCore.setTheme(opened.map, theme);
    },
    remove() {
      opened?.map.remove();
      opened = null;
      pending = null;
    },
  };
  return session;
}

/** The links the detail panel and popups offer for an item with a position. */
export const links = {
  place: (item, ctx) => placeLink(item.position, ctx.l10n.lang),
  directions: (item, ctx) => directionsLink(item.position, ctx.l10n.lang),
};
