import test from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { createLocale } from "./i18n.js";
import { createShell, detailsHtml, frameHeight, legendHtml, messageHtml } from "./shell.js";
import { fakeDocument } from "../testing/fakes.js";

const SHELL = readFileSync(new URL("../shell.html", import.meta.url), "utf8");
const { t } = createLocale("en-US", "UTC");

/** The shell on a fresh copy of shell.html; `heard` records what it handed back through `on`. */
function shell() {
  const { document, window } = fakeDocument(SHELL);
  globalThis.document = document; // ext-apps applies the host's theme and fonts to the global document
  const heard = [];
  const on = Object.fromEntries(["select", "toggle", "details", "link", "fullscreen"].map((name) => [name, (...args) => heard.push([name, ...args])]));
  const s = createShell(document, t, on);
  const click = (el) => {
    const e = new window.Event("click", { bubbles: true, cancelable: true });
    el.dispatchEvent(e);
    return e;
  };
  return { s, document, heard, click, $: (id) => document.getElementById(id) };
}

test("the frame is as high as the host allows: its fixed height, or our preference under its maximum, 240 to 500 px inline", () => {
  assert.equal(frameHeight({}), 440);
  assert.equal(frameHeight({ containerDimensions: { height: 300 } }), 300);
  assert.equal(frameHeight({ containerDimensions: { height: 900 } }), 500);
  assert.equal(frameHeight({ containerDimensions: { maxHeight: 350 } }), 350);
  assert.equal(frameHeight({ containerDimensions: { maxHeight: 100 } }), 240);
  assert.equal(frameHeight({ displayMode: "fullscreen", containerDimensions: { height: 300 } }), null);
});

test("an error is an alert, anything else a status; loading spins unless it has progress", () => {
  assert.match(messageHtml("error", "Failed", "Why"), /^<div class="card tt-panel" role="alert"><h2>Failed<\/h2><p>Why<\/p><\/div>$/);
  assert.match(messageHtml("loading", "Loading map…", ""), /role="status"><div class="tt-spinner"><\/div><h2>/);
  assert.match(messageHtml("loading", "Loading", "50%", 0.5), /<progress max="1" value="0.5"><\/progress>/);
  assert.match(messageHtml("loading", "Loading", "", null), /<progress max="1" value=""><\/progress>/);
  assert.doesNotMatch(messageHtml("loading", "Loading", "", null), /tt-spinner/);
  assert.match(messageHtml("empty", "<b>", ""), /<h2>&#60;b&#62;<\/h2>/);
});

test("the message shows and hides, and its words are what a late report says", () => {
  const { s, $ } = shell();
  s.showMessage("empty", "Nothing found", "No places.");
  assert.equal($("message").hidden, false);
  assert.equal($("message").className, "empty");
  assert.match(s.messageText(), /^Nothing found\s*No places\.$/);
  s.hideMessage();
  assert.equal($("message").hidden, true);
});

test("notes are panels a redraw clears, all but the offline-data note", () => {
  const { s, $ } = shell();
  s.addNote("Fitted: 1,200 points.");
  s.markOffline("Offline demo data.", null);
  s.addNote("Tiles failed.");
  s.clearNotes();
  assert.deepEqual([...$("notes").children].map((n) => n.textContent), ["Offline demo data."]);
  assert.equal($("notes").firstElementChild.firstElementChild.className, "tt-offline");
});

test("a note kept for the view outlives a redraw", () => {
  const { s, $ } = shell();
  s.addNote("Fetched again.", true);
  s.addNote("Fitted: 1,200 points.");
  s.clearNotes();
  assert.deepEqual([...$("notes").children].map((n) => n.textContent), ["Fetched again."]);
});

test("with no key the offline map's reason and the offline-data note share one panel", () => {
  const { s, $ } = shell();
  assert.equal(s.joinOffline("No key."), false, "no offline note yet");
  s.addNote("No key.");
  s.markOffline("Offline demo data.", "No key.");
  assert.equal($("notes").children.length, 1);
  assert.equal($("notes").textContent, "Offline demo data. No key.");
  assert.equal(s.joinOffline("No key."), true);
  assert.equal($("notes").textContent, "Offline demo data. No key.", "joined once");
  assert.equal(s.joinOffline("Tiles failed."), true);
  assert.equal($("notes").textContent, "Offline demo data. No key. Tiles failed.");
});

test("the title shows a subtitle under it, and hides with no title", () => {
  const { s, $ } = shell();
  s.setTitle("Route", "12 km · 15 min");
  assert.equal($("title").hidden, false);
  assert.equal($("title").innerHTML, "<strong>Route</strong><span>12 km · 15 min</span>");
  s.setTitle("");
  assert.equal($("title").hidden, true);
});

test("legend rows with a group are buttons, pressed while the group shows, that hand the group back", () => {
  const rows = [
    { label: "Route 1", color: "#0b57d0", shape: "line", group: "routes" },
    { label: "Border crossings (2)", color: "#6e7781", shape: "dot" },
    { label: "Route 2", color: "#8250df", shape: "line", group: "routes" },
  ];
  assert.match(legendHtml(rows, () => true, t), /^<button type="button" class="row" data-i="0" aria-pressed="false" title="Show Route 1">/);
  const { s, $, heard, click } = shell();
  s.setLegend(rows, (group) => group === "routes");
  assert.equal($("legend").hidden, false);
  assert.equal($("legend").getAttribute("aria-label"), "Layers");
  assert.equal($("legend").querySelectorAll("button").length, 2);
  click($("legend").querySelector('button[data-i="2"] span'));
  assert.deepEqual(heard, [["toggle", "routes"]]);
  s.pressLegend("routes", true);
  assert.deepEqual([...$("legend").querySelectorAll("button")].map((b) => b.getAttribute("aria-pressed")), ["true", "true"]);
  s.setLegend([], () => false);
  assert.equal($("legend").hidden, true);
});

test("details show an item's facts, and links for a place, whose buttons hand back the link and the item", () => {
  assert.equal(detailsHtml({ name: "Area", facts: { Size: "", Kind: "zone" } }, t), '<strong>Area</strong><div><span class="muted">Kind</span> zone</div>');
  const { s, $, heard, click } = shell();
  s.showDetails({ id: "place-0", name: "Café", address: "Dam 1", position: [4.9, 52.37], facts: {} });
  assert.equal($("details").hidden, false);
  assert.match($("details").innerHTML, /^<strong>Café<\/strong><div>Dam 1<\/div><div class="tt-links"><button type="button" data-link="place">Open in TomTom<\/button>/);
  click($("details").querySelector('[data-link="directions"]'));
  assert.deepEqual(heard, [["details", "directions", "place-0"]]);
  s.hideDetails();
  assert.equal($("details").hidden, true);
});

test("every link in the document opens through the host, never by the view itself", () => {
  const { document, heard, click, $ } = shell();
  $("map").innerHTML = '<a href="https://www.naturalearthdata.com/">Natural Earth</a>';
  const e = click(document.querySelector("a"));
  assert.equal(e.defaultPrevented, true);
  assert.deepEqual(heard, [["link", "https://www.naturalearthdata.com/"]]);
});

test("the list hands back the option the user picks", () => {
  const { s, $, heard, click } = shell();
  s.list.setGroups([{ title: "Results", items: [{ id: "place-0", name: "Café" }] }]);
  click($("list").querySelector('[role="option"]'));
  assert.deepEqual(heard, [["select", "place-0"]]);
});

test("the host's look: theme, safe areas, height, language and the full-screen button", () => {
  const { s, document, $, heard, click } = shell();
  assert.equal(s.theme(), "light");
  s.applyLook({ theme: "dark", safeAreaInsets: { top: 10, right: 0, bottom: 4, left: 0 }, locale: "de-DE", availableDisplayModes: ["inline", "fullscreen"], containerDimensions: { maxHeight: 320 } }, "de-DE");
  const root = document.documentElement;
  assert.equal(s.theme(), "dark");
  assert.equal(root.style.getPropertyValue("--tt-inset-top"), "10px");
  assert.equal(root.style.getPropertyValue("--tt-height"), "320px");
  assert.equal(root.lang, "de-DE");
  assert.equal($("fullscreen").hidden, false);
  assert.equal($("fullscreen").getAttribute("aria-label"), "Fullscreen");
  s.applyLook({ displayMode: "fullscreen", availableDisplayModes: ["inline", "fullscreen"] }, "de-DE");
  assert.equal($("fullscreen").textContent, "⤡");
  assert.equal($("fullscreen").title, "Exit fullscreen");
  assert.equal(root.style.getPropertyValue("--tt-height"), "320px", "full screen keeps the inline height for later");
  s.applyLook({}, "de-DE");
  assert.equal($("fullscreen").hidden, true, "a host without full screen gets no button");
  click($("fullscreen"));
  assert.deepEqual(heard, [["fullscreen"]]);
});

test("a folded legend shows only its button, which says what it holds; without rows neither shows", () => {
  const { s, $ } = shell();
  const rows = [{ label: "Route", color: "#0b57d0", shape: "line", group: "routes" }, { label: "Stops (2)", color: "#333", shape: "dot" }];
  s.setLegend(rows, () => false, true);
  assert.deepEqual([$("legend").hidden, $("legend-fold").hidden], [true, false]);
  assert.equal($("legend-fold").textContent, "▸ Layers (2)");
  assert.equal($("legend-fold").getAttribute("aria-expanded"), "false");
  s.foldLegend(false);
  assert.deepEqual([$("legend").hidden, $("legend-fold").getAttribute("aria-expanded")], [false, "true"]);
  s.setLegend([], () => false, false);
  assert.deepEqual([$("legend").hidden, $("legend-fold").hidden], [true, true]);
});
