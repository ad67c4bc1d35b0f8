import test from "node:test";
import assert from "node:assert/strict";
import { createScene } from "../core/map.js";
import { createLocale } from "../core/i18n.js";
import { fakeMap, fakeMarker } from "../testing/fakes.js";
import { ITEM, MAX_ITEMS, drawData, drawPage, highlight, listItems, tagged, toLayer } from "./draw.js";

const l10n = createLocale("en-US", "UTC");
const point = (lon, lat, properties = {}) => ({ type: "Feature", properties, geometry: { type: "Point", coordinates: [lon, lat] } });
const square = (properties = {}) => ({ type: "Feature", properties, geometry: { type: "Polygon", coordinates: [[[4, 52], [5, 52], [5, 53], [4, 53], [4, 52]]] } });
const collection = (...features) => ({ type: "FeatureCollection", features });

function drawn(geojson, data, map = fakeMap()) {
  const selected = [];
  const result = drawData(createScene(map, fakeMarker), geojson, data, { theme: "light", l10n, select: (id) => selected.push(id) });
  return { map, result, selected };
}

test("without layers the data is drawn as fill, line and circle in the palette, each filtered to its geometries", () => {
  const { map, result } = drawn(collection(point(4.9, 52.37), square()), {});
  assert.deepEqual([...map.layers.keys()], ["data-0", "data-1", "data-2", "selection-line"]);
  assert.deepEqual(map.layers.get("data-2").filter, ["in", ["geometry-type"], ["literal", ["Point", "MultiPoint"]]]);
  assert.deepEqual(result.legend.map((r) => [r.label, r.color, r.shape, r.group]), [
    ["Areas", "#0b57d0", "area", "layer-0"],
    ["Lines", "#8250df", "line", "layer-1"],
    ["Points", "#0a7d6e", "dot", "layer-2"],
  ]);
  assert.deepEqual({ n: result.n, drawnLayers: result.drawnLayers, labels: result.labels, problems: result.problems }, { n: 2, drawnLayers: 3, labels: 0, problems: [] });
});

test("each list mark and legend swatch is in the colour its layer paints on the map, not a grey of its own", () => {
  const line = { type: "Feature", properties: {}, geometry: { type: "LineString", coordinates: [[4, 52], [5, 53]] } };
  const { result } = drawn(collection(point(4.9, 52.37), line, square()), {});
  const [areas, lines, points] = result.legend.map((r) => r.color);
  assert.deepEqual(
    result.items.map((item) => [item.sub, item.mark.color]),
    [
      ["Point", points],
      ["LineString", lines],
      ["Polygon", areas],
    ],
  );
  const layers = [{ type: "circle", paint: { "circle-color": ["match", ["get", "kind"], "cafe", "#8250df", "#1a7f37"] } }];
  const data = drawn(collection(point(1, 2, { kind: "park" }), point(3, 4, { kind: "cafe" })), { layers }).result;
  assert.deepEqual(data.items.map((item) => item.mark.color), ["#1a7f37", "#8250df"], "data-driven: each feature's own colour");
  assert.equal(data.legend[0].color, "#1a7f37", "the legend shows a colour the layer draws");
});

test("the caller's data is tagged on copies, never changed", () => {
  const doc = collection(point(1, 2, { name: "a" }));
  const before = JSON.stringify(doc);
  const { map } = drawn(doc, {});
  assert.equal(JSON.stringify(doc), before);
  assert.equal(map.sources.get("data").data.features[0].properties[ITEM], "feature-0");
  assert.deepEqual(tagged({ type: "Point", coordinates: [1, 2] })[0].properties, { [ITEM]: "feature-0" });
});

test("a click on a drawn feature selects its list item, whatever properties the caller gave it", () => {
  const { map, selected } = drawn(collection(point(1, 2)), {});
  map.emit("click", { features: [{ properties: { item: "the caller's", [ITEM]: "feature-0" } }] }, "data-2");
  assert.deepEqual(selected, ["feature-0"]);
});

test("the shorthand becomes paint, and full paint, filter and zooms pass through", () => {
  const short = toLayer({ type: "circle", color: "#ff0000", radius: 9, opacity: 0.5 }, 0, "#000");
  assert.deepEqual(short.layer.paint, { "circle-color": "#ff0000", "circle-radius": 9, "circle-opacity": 0.5, "circle-stroke-color": "#fff", "circle-stroke-width": 1 });
  const full = toLayer({ type: "line", name: "Roads", paint: { "line-color": ["get", "c"] }, filter: [">", ["get", "v"], 1], minzoom: 3 }, 4, "#123456");
  assert.equal(full.layer.id, "data-4");
  assert.deepEqual(full.layer.filter, ["all", ["in", ["geometry-type"], ["literal", ["LineString", "MultiLineString", "Polygon", "MultiPolygon"]]], [">", ["get", "v"], 1]]);
  assert.equal(full.layer.minzoom, 3);
  assert.deepEqual([full.label, full.color], ["Roads", "#123456"], "a data-driven colour falls back to the palette's in the legend");
  assert.throws(() => toLayer({ type: "raster" }, 2, "#000"), /layer 2: type "raster" is not one of/);
});

test("a layer MapLibre refuses is a problem reported beside the others; none drawn at all is bad_layers", () => {
  const refuse = (layer) => (layer.paint["circle-radius"] === "big" ? "circle-radius: number expected" : null);
  const { result } = drawn(collection(point(1, 2)), { layers: [{ type: "circle", radius: "big" }, { type: "circle" }] }, fakeMap({ refuse }));
  assert.deepEqual(result.problems, ["layer 1 was refused: circle-radius: number expected"]);
  assert.equal(result.drawnLayers, 1);
  assert.throws(
    () => drawn(collection(point(1, 2)), { layers: [{ type: "circle", radius: "big" }, { type: "nope" }] }, fakeMap({ refuse })),
    (err) => err.reason === "bad_layers" && /layer 1 was refused.*type "nope"/.test(err.message),
  );
});

test("a symbol layer labels features with HTML chips by the property it names, and names the list items", () => {
  const { map, result } = drawn(collection(point(1, 2, { title: "Alpha" }), point(3, 4, { title: "Beta" }), point(5, 6)), { layers: [{ type: "symbol", label: "title" }] });
  assert.deepEqual(map.markers.map((m) => [m.description.className, m.description.text, m.options.group]), [
    ["tt-chip", "Alpha", "labels"],
    ["tt-chip", "Beta", "labels"],
  ]);
  assert.deepEqual({ labels: result.labels, drawnLayers: result.drawnLayers }, { labels: 2, drawnLayers: 1 });
  assert.deepEqual(result.items.map((i) => i.name), ["Alpha", "Beta", "Feature 3"]);
});

test("list items carry the feature's position, box, facts and model details, at most MAX_ITEMS", () => {
  const [item] = listItems(tagged(collection(square({ name: "Zone", pop: 12, tags: { a: 1 }, "Bad Key": 1 }))), [], l10n, "light");
  assert.deepEqual(item.position, [4.5, 52.5]);
  assert.deepEqual(item.bbox, [4, 52, 5, 53]);
  assert.deepEqual(item.facts, { name: "Zone", pop: "12", tags: '{"a":1}', "Bad Key": "1" });
  assert.deepEqual(item.details, { name: "Zone", pop: 12 });
  assert.equal(item.mark.shape, "area");
  const many = collection(...Array.from({ length: MAX_ITEMS + 5 }, (_, i) => point(i / 1000, 0)));
  assert.equal(listItems(tagged(many), [], l10n, "light").length, MAX_ITEMS);
});

test("a selected area is outlined, a selected point is not (its popup says it)", () => {
  const features = tagged(collection(point(1, 2), square()));
  const { map } = drawn(collection(point(1, 2), square()), {}, fakeMap({ features }));
  const scene = { map };
  highlight(scene, { id: "feature-1" });
  assert.equal(map.sources.get("selection").data.features[0].geometry.type, "Polygon");
  highlight(scene, { id: "feature-0" });
  assert.deepEqual(map.sources.get("selection").data.features, []);
});

test("pages drawn in any order stack as one source's features would, tagged by their place in the data", () => {
  const map = fakeMap();
  const scene = createScene(map, fakeMarker);
  const page = (start) => Array.from({ length: 3 }, (_, i) => point(start + i, 0, { name: `n${start + i}` }));
  const data = { layers: [{ type: "fill" }, { type: "circle" }, { type: "symbol", label: "name" }] };
  const drawn = drawData(scene, collection(...page(3)), data, { theme: "light", l10n, select: () => {}, start: 3 });
  drawPage(scene, drawn, page(6), 6);
  drawPage(scene, drawn, page(0), 0);
  assert.deepEqual([...map.layers.keys()], [
    "data-0-from-0", "data-0", "data-0-from-6",
    "data-1-from-0", "data-1", "data-1-from-6",
    "selection-line",
  ]);
  assert.equal(map.layers.get("data-1-from-6").source, "data-from-6");
  assert.deepEqual(map.sources.get("data-from-0").data.features.map((f) => f.properties[ITEM]), ["feature-0", "feature-1", "feature-2"]);
  assert.deepEqual(map.sources.get("data").data.features.map((f) => f.properties[ITEM]), ["feature-3", "feature-4", "feature-5"]);
  assert.equal(drawn.n, 9);
  assert.deepEqual(map.markers.map((m) => m.description.text), ["n3", "n4", "n5", "n6", "n7", "n8", "n0", "n1", "n2"]);
  assert.equal(drawn.labels, 9);
  scene.setVisible("layer-1", false);
  assert.deepEqual(["data-1", "data-1-from-0", "data-1-from-6"].map((id) => map.layers.get(id).layout.visibility), ["none", "none", "none"], "a legend toggle reaches every page");
});

test("labels stop at MAX_LABELS across pages, and a selected feature is outlined from any page", () => {
  const square = (i) => ({ type: "Feature", properties: { name: `s${i}` }, geometry: { type: "Polygon", coordinates: [[[i, 0], [i + 1, 0], [i, 1], [i, 0]]] } });
  const first = Array.from({ length: 250 }, (_, i) => square(i));
  const second = Array.from({ length: 100 }, (_, i) => square(250 + i));
  const features = tagged(collection(...second), 250);
  const map = fakeMap({ features });
  const scene = createScene(map, fakeMarker);
  const drawn = drawData(scene, collection(...first), { layers: [{ type: "fill" }, { type: "symbol", label: "name" }] }, { theme: "light", l10n, select: () => {} });
  drawPage(scene, drawn, second, 250);
  assert.equal(drawn.labels, 300);
  highlight(scene, { id: "feature-260" });
  assert.equal(map.sources.get("selection").data.features[0].properties.name, "s260");
});
