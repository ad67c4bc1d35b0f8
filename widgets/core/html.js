/**
 * The HTML the panels, the list and the popups share: text escaped for
 * markup, and the swatch that stands for a colour with a shape or a dash too.
 */

/** `value` as text inside HTML (element content or a quoted attribute). */
export function escapeHtml(value) {
  return String(value ?? "").replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** A swatch that says the same as its colour with a shape or a dash pattern too. */
export function markHtml(mark = {}) {
  const dash = mark.dash && mark.dash !== "solid" ? `dash-${mark.dash}` : "";
  const cls = ["tt-mark", mark.shape || "dot", dash, mark.under ? "on" : ""].filter(Boolean);
  const text = mark.text ? escapeHtml(mark.text) : "";
  // `under`: the colour the mark is drawn on in the map (a section overlay rides on its route).
  const under = mark.under ? `;--u:${escapeHtml(mark.under)}` : "";
  return `<span class="${cls.join(" ")}" style="--c:${escapeHtml(mark.color || "currentColor")}${under}" aria-hidden="true">${text}</span>`;
}
