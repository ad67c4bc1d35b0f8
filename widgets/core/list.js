/**
 * The list beside the map: an ARIA listbox of grouped options that
 * a keyboard reaches with Tab and walks with the arrow keys, Home and End;
 * Enter or Space (or a click) selects. Focus stays on the listbox and
 * `aria-activedescendant` names the active option, as the ARIA practices ask.
 */
import { escapeHtml as escape, markHtml } from "./html.js";

/**
 * `el` becomes the listbox. `onSelect(id)` runs when the user picks an
 * option; `select(id)` marks one without calling back (restoring, map clicks);
 * `item(id)` is the item of that id as given to `setGroups`.
 */
export function createList(el, { label, onSelect }) {
  let order = [];
  let active = -1;
  let selected = null;
  let items = new Map();
  let options = new Map();
  el.setAttribute("role", "listbox");
  el.setAttribute("tabindex", "0");
  el.setAttribute("aria-label", label);

  const option = (id) => options.get(id);

  function activate(index) {
    if (!order.length) return;
    active = Math.max(0, Math.min(order.length - 1, index));
    el.querySelectorAll(".tt-active").forEach((o) => o.classList.remove("tt-active"));
    const o = option(order[active]);
    if (!o) return;
    o.classList.add("tt-active");
    el.setAttribute("aria-activedescendant", o.id);
    o.scrollIntoView({ block: "nearest" });
  }

  function mark(id) {
    selected = id;
    el.querySelectorAll('[aria-selected="true"]').forEach((o) => o.setAttribute("aria-selected", "false"));
    const o = id && option(id);
    if (o) {
      o.setAttribute("aria-selected", "true");
      activate(order.indexOf(id));
    }
  }

  el.addEventListener("keydown", (e) => {
    const moves = { ArrowDown: active + 1, ArrowUp: active - 1, Home: 0, End: order.length - 1, PageDown: active + 10, PageUp: active - 10 };
    if (e.key in moves) {
      e.preventDefault();
      activate(active < 0 && e.key === "ArrowDown" ? 0 : moves[e.key]);
    } else if ((e.key === "Enter" || e.key === " ") && active >= 0) {
      e.preventDefault();
      mark(order[active]);
      onSelect(order[active]);
    }
  });
  el.addEventListener("focus", () => active < 0 && activate(selected ? order.indexOf(selected) : 0));
  el.addEventListener("click", (e) => {
    const o = e.target.closest('[role="option"]');
    if (!o) return;
    mark(o.dataset.id);
    onSelect(o.dataset.id);
  });

  /** groups: [{title, items: [{id, name, sub, mark}]}]; empty groups are left out. */
  function setGroups(groups) {
    order = [];
    active = -1;
    let n = 0;
    el.innerHTML = groups
      .filter((g) => g.items.length)
      .map((g, gi) => {
        const rows = g.items
          .map((item) => {
            order.push(item.id);
            const sub = item.sub ? `<span class="tt-sub">${escape(item.sub)}</span>` : "";
            return (
              `<div role="option" id="tt-opt-${n++}" data-id="${escape(item.id)}" aria-selected="false" class="tt-item">` +
              `${markHtml(item.mark)}<span class="tt-text"><span class="tt-name">${escape(item.name)}</span>${sub}</span></div>`
            );
          })
          .join("");
        return `<div role="group" aria-labelledby="tt-group-${gi}"><div class="tt-group" id="tt-group-${gi}">${escape(g.title)}</div>${rows}</div>`;
      })
      .join("");
    items = new Map(groups.flatMap((g) => g.items.map((item) => [item.id, item])));
    options = new Map([...el.querySelectorAll('[role="option"]')].map((o) => [o.dataset.id, o]));
    el.removeAttribute("aria-activedescendant");
    if (selected && order.includes(selected)) mark(selected);
    else selected = null;
    return order.length;
  }

  return { setGroups, select: mark, selected: () => selected, size: () => order.length, item: (id) => items.get(id) };
}
