"use strict";
/** Traffic view: live TomTom flow and incident tiles over the bbox of its tool input (no app data). */
(() => {
  let map = null;
  let input = null;
  let result = null;
  let drawing = false;

  function bboxFeature([w, s, e, n]) {
    return {
      type: "Feature",
      properties: {},
      geometry: { type: "Polygon", coordinates: [[[w, s], [e, s], [e, n], [w, n], [w, s]]] },
    };
  }

  async function draw(ctx) {
    if (drawing || !input || !result) return;
    drawing = true;
    if (result.isError) {
      const text = envelope.resultText(result).slice(0, 300) || "no message";
      return ctx.fail("tool_error", `The tool reported an error: ${text}`);
    }
    let box;
    try {
      box = bounds.parseBbox(input.bbox);
    } catch (err) {
      return ctx.fail("bad_input", `The traffic area cannot be drawn: ${err.message}`);
    }
    const [m, config] = await Promise.all([mapCore.create(document.getElementById("map"), ctx.theme()), ctx.mapConfig(["basemap", "traffic_flow", "traffic_incidents"])]);
    map = m;
    ctx.onHostContext = (hc) => hc.theme && map && mapCore.setTheme(map, hc.theme);
    const tiles = mapCore.addRaster(
      map,
      config,
      ["basemap", "traffic_flow", "traffic_incidents"],
      (msg, state) => ctx.tilesFailed(msg.replace("no map tiles", "no live traffic tiles"), state),
      "© TomTom",
    );
    map.addSource("bbox", { type: "geojson", data: bboxFeature(box) });
    map.addLayer({ id: "bbox-fill", type: "fill", source: "bbox", paint: { "fill-color": "#1f6feb", "fill-opacity": tiles ? 0.04 : 0.1 } });
    map.addLayer({ id: "bbox-line", type: "line", source: "bbox", paint: { "line-color": "#1f6feb", "line-width": 2, "line-dasharray": [2, 1] } });
    mapCore.markIdle(map);
    let incidents = null;
    try {
      const answer = JSON.parse(envelope.resultText(result));
      if (Array.isArray(answer.incidents)) incidents = answer.incidents.length;
    } catch {
      // The text answer is for the model; the count is only a nicety.
    }
    ctx.setTitle("Traffic", incidents === null ? "Live flow and incidents" : `${incidents} incidents in this area`);
    ctx.setLegend(
      tiles
        ? [
            { label: "Free flow", color: "#2f9e44", shape: "line" },
            { label: "Slow", color: "#f76707", shape: "line" },
            { label: "Queuing", color: "#e03131", shape: "line" },
            { label: "Requested area", color: "#1f6feb", shape: "line", dashed: true },
          ]
        : [{ label: "Requested area", color: "#1f6feb", shape: "line", dashed: true }],
    );
    mapCore.fit(map, box, 24);
    if (!tiles) mapCore.addGraticule(map, ctx.theme());
    ctx.ok(`bbox ${box.join(",")}, ${tiles ? "live traffic tiles" : "no traffic tiles (offline)"}`, {
      features: 1,
      trafficTiles: tiles ? 1 : 0,
    });
  }

  view.start({
    name: "tomtom-traffic",
    tool: "tomtom-traffic",
    onInput: (args, ctx) => {
      input = args;
      draw(ctx);
    },
    onResult: async (r, ctx) => {
      result = r;
      if (!input && window.openai?.toolInput) input = window.openai.toolInput;
      if (!input && !r.isError) {
        ctx.showMessage("loading", "Loading traffic…", "Waiting for the tool input with the area.");
        setTimeout(() => {
          if (!input) ctx.fail("no_input", "The host sent no tool input, so the traffic area is unknown.");
        }, 10000);
        return;
      }
      if (r.isError && !input) input = {};
      await draw(ctx);
    },
    onTeardown: () => map?.remove(),
  });
})();
