import test from "node:test";
import assert from "node:assert/strict";
import { createList } from "./list.js";
import { fakeDocument } from "../testing/fakes.js";

/** A listbox in a fresh document; `picked` records what the user selected. */
function listbox() {
  const { document, window } = fakeDocument('<div id="list"></div>');
  const el = document.getElementById("list");
  const picked = [];
  const list = createList(el, { label: "List of what the map shows", onSelect: (id) => picked.push(id) });
  const key = (name) => {
    const e = new window.Event("keydown");
    e.key = name;
    el.dispatchEvent(e);
    return e;
  };
  const click = (target) => target.dispatchEvent(new window.Event("click", { bubbles: true }));
  return { el, list, picked, key, click };
}

const GROUPS = [
  { title: "Routes", items: [{ id: "route-0", name: "Route", sub: "12 km", mark: { color: "#0b57d0", shape: "line" } }] },
  { title: "Empty", items: [] },
  { title: "Results", items: [{ id: "place-0", name: "Café <1>" }, { id: 'place-"1"', name: "Bar" }] },
];

test("the list is a labelled listbox a keyboard reaches, of grouped options; empty groups are left out", () => {
  const { el, list } = listbox();
  assert.equal(el.getAttribute("role"), "listbox");
  assert.equal(el.getAttribute("tabindex"), "0");
  assert.equal(el.getAttribute("aria-label"), "List of what the map shows");
  assert.equal(list.setGroups(GROUPS), 3);
  assert.deepEqual([...el.querySelectorAll(".tt-group")].map((g) => g.textContent), ["Routes", "Results"]);
  const options = [...el.querySelectorAll('[role="option"]')];
  assert.deepEqual(options.map((o) => o.dataset.id), ["route-0", "place-0", 'place-"1"']);
  assert.deepEqual(options.map((o) => o.getAttribute("aria-selected")), ["false", "false", "false"]);
  assert.equal(options[1].querySelector(".tt-name").textContent, "Café <1>", "names are text, never markup");
  assert.equal(options[0].querySelector(".tt-sub").textContent, "12 km");
  assert.equal(list.item('place-"1"').name, "Bar");
  assert.equal(list.size(), 3);
});

test("arrow keys, Home and End move the active option, named by aria-activedescendant; Enter selects it", () => {
  const { el, list, picked, key } = listbox();
  list.setGroups(GROUPS);
  const active = () => el.getAttribute("aria-activedescendant");
  assert.ok(key("ArrowDown").defaultPrevented);
  assert.equal(active(), "tt-opt-0");
  key("End");
  assert.equal(active(), "tt-opt-2");
  key("ArrowDown");
  assert.equal(active(), "tt-opt-2", "the last option stays active");
  key("Home");
  key("ArrowDown");
  assert.equal(active(), "tt-opt-1");
  assert.equal(el.querySelectorAll(".tt-active").length, 1);
  key("Enter");
  assert.deepEqual(picked, ["place-0"]);
  assert.equal(list.selected(), "place-0");
  assert.equal(el.querySelector('[data-id="place-0"]').getAttribute("aria-selected"), "true");
  assert.equal(key("x").defaultPrevented, false, "other keys are left to the page");
});

test("a click selects the option it lands in", () => {
  const { el, list, picked, click } = listbox();
  list.setGroups(GROUPS);
  click(el.querySelector('[data-id="route-0"] .tt-name'));
  assert.deepEqual(picked, ["route-0"]);
  assert.equal(el.getAttribute("aria-activedescendant"), "tt-opt-0");
});

test("select(id) marks an option without calling back, and a new list keeps the selection only if it still has it", () => {
  const { el, list, picked } = listbox();
  list.setGroups(GROUPS);
  list.select('place-"1"');
  assert.deepEqual(picked, []);
  assert.equal(el.querySelector('[aria-selected="true"]').dataset.id, 'place-"1"');
  list.setGroups(GROUPS);
  assert.equal(list.selected(), 'place-"1"');
  assert.equal(el.querySelector('[aria-selected="true"]').dataset.id, 'place-"1"');
  list.setGroups([{ title: "Other", items: [{ id: "x", name: "X" }] }]);
  assert.equal(list.selected(), null);
  assert.equal(list.item("place-0"), undefined);
});

test("focus activates the selected option, or the first", () => {
  const { el, list } = listbox();
  list.setGroups(GROUPS);
  el.dispatchEvent(new el.ownerDocument.defaultView.Event("focus"));
  assert.equal(el.getAttribute("aria-activedescendant"), "tt-opt-0");
});
