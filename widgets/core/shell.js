/**
 * The frame every view shares (`shell.html`), in the DOM: the on-screen
 * message, the notes (with the offline-data note), the title, the legend (and
 * the button that folds it away), the list and the details panel, the
 * full-screen button, the host's look (theme, fonts, safe areas, height) and
 * links, which always open through the host.
 * It holds no status of its own: `core/view.js` tells it what to show and
 * hears the user's actions through `on`.
 */
import { applyDocumentTheme, applyHostFonts, applyHostStyleVariables } from "@modelcontextprotocol/ext-apps";
import { createList } from "./list.js";
import { escapeHtml, markHtml } from "./html.js";

const INLINE_MAX = 500;
const INLINE_DEFAULT = 440;
const INLINE_MIN = 240;
/** A map smaller than this either way starts with its legend folded: open, it would cover the data. */
export const LEGEND_ROOM = { width: 480, height: 460 };

/**
 * The frame's height for a host context, in px, or null in full screen: a fixed
 * host height is used as given, a maximum caps our preference, and inline is
 * never over 500 px nor under 240.
 */
export function frameHeight(hc) {
  if ((hc.displayMode || "inline") === "fullscreen") return null;
  const dims = hc.containerDimensions || {};
  const wanted = Number.isFinite(dims.height) ? dims.height : Math.min(dims.maxHeight || INLINE_DEFAULT, INLINE_DEFAULT);
  return Math.max(INLINE_MIN, Math.min(INLINE_MAX, wanted));
}

/** The details of an item as HTML: name, address, facts, and its links when it has a position. */
export function detailsHtml(item, t) {
  const links = item.position
    ? `<div class="tt-links"><button type="button" data-link="place">${escapeHtml(t("openInTomTom"))}</button>` +
      `<button type="button" data-link="directions">${escapeHtml(t("directions"))}</button></div>`
    : "";
  const rows = Object.entries(item.facts || {})
    .filter(([, v]) => v)
    .map(([k, v]) => `<div><span class="muted">${escapeHtml(k)}</span> ${escapeHtml(v)}</div>`)
    .join("");
  return `<strong>${escapeHtml(item.name)}</strong>${item.address ? `<div>${escapeHtml(item.address)}</div>` : ""}${rows}${links}`;
}

/** The legend as HTML: rows with a `group` are buttons that toggle it, pressed while it shows. */
export function legendHtml(rows, isHidden, t) {
  return rows
    .map((r, i) => {
      const mark = markHtml({ color: r.color, shape: r.shape, dash: r.dash, under: r.under });
      const text = `<span>${escapeHtml(r.label)}</span>`;
      if (!r.group) return `<div class="row">${mark}${text}</div>`;
      const on = !isHidden(r.group);
      return `<button type="button" class="row" data-i="${i}" aria-pressed="${on}" title="${escapeHtml(t("show", { what: r.label }))}">${mark}${text}</button>`;
    })
    .join("");
}

/** The message box as HTML: a spinner while loading with no progress, a bar with one. */
export function messageHtml(kind, title, text, progress) {
  const spinner = kind === "loading" && progress === undefined ? '<div class="tt-spinner"></div>' : "";
  const bar = progress === undefined ? "" : `<progress max="1" value="${progress ?? ""}"></progress>`;
  return (
    `<div class="card tt-panel" role="${kind === "error" ? "alert" : "status"}">${spinner}` +
    `<h2>${escapeHtml(title)}</h2>${text ? `<p>${escapeHtml(text)}</p>` : ""}${bar}</div>`
  );
}

/**
 * The shell in `doc`, its words from `t(key, vars)` (the current locale's). `on`:
 * {select(id) from the list, toggle(group) from the legend, fold() from the
 * legend's fold button, details(kind, id) for a link button of the details
 * panel, link(href) for any link clicked, fullscreen() for the button}.
 */
export function createShell(doc, t, on) {
  const $ = (id) => doc.getElementById(id);
  const list = createList($("list"), { label: t("list"), onSelect: (id) => on.select(id) });
  // The offline-data note (with no key, the offline map's reason shares its panel), and
  // the notes a redraw keeps: what they say holds for the view, not for one drawing.
  const notes = { offline: null, kept: new Set() };
  const legend = { rows: [] };

  $("legend").addEventListener("click", (e) => {
    const b = e.target.closest("button[data-i]");
    if (b) on.toggle(legend.rows[Number(b.dataset.i)].group);
  });
  $("details").addEventListener("click", (e) => {
    const b = e.target.closest("button[data-link]");
    if (b) on.details(b.dataset.link, $("details").dataset.id);
  });
  // Every link in the document (MapLibre's attribution too) opens through the host, never a
  // window of the view's own: a sandbox without allow-popups would swallow it anyway.
  doc.addEventListener(
    "click",
    (e) => {
      const a = e.target.closest?.("a[href]");
      if (!a) return;
      e.preventDefault();
      on.link(a.href);
    },
    true,
  );
  $("fullscreen").addEventListener("click", () => on.fullscreen());
  $("legend-fold").addEventListener("click", () => on.fold?.());

  const shell = {
    list,
    /** kind "loading" | "empty" | "error"; `progress` (0-1, or null: unknown) shows a bar. */
    showMessage(kind, title, text, progress) {
      const box = $("message");
      box.hidden = false;
      box.className = kind;
      box.innerHTML = messageHtml(kind, title, text, progress);
    },
    hideMessage() {
      $("message").hidden = true;
    },
    /** The words of the message on screen (a report sent late says what the user saw). */
    messageText() {
      return $("message").innerText;
    },
    /** A note panel of its own; `keep`: a redraw keeps it. */
    addNote(text, keep = false) {
      const note = doc.createElement("div");
      note.className = "tt-panel";
      note.textContent = text;
      $("notes").append(note);
      if (keep) notes.kept.add(note);
      return note;
    },
    /** Every note but the offline-data one and those kept (a redraw writes its notes again). */
    clearNotes() {
      for (const note of [...$("notes").children]) if (note !== notes.offline && !notes.kept.has(note)) note.remove();
    },
    /** The offline-data note, led by `lead`: the panel whose text is `join` when there is one, else its own. */
    markOffline(lead, join) {
      const joined = join ? [...$("notes").children].find((n) => n.textContent === join) : null;
      const strong = doc.createElement("strong");
      strong.className = "tt-offline";
      strong.textContent = lead;
      notes.offline = joined || shell.addNote("");
      notes.offline.prepend(...(joined ? [strong, " "] : [strong]));
      return notes.offline;
    },
    /** Add `text` to the offline-data note (once); false when there is none. */
    joinOffline(text) {
      if (!notes.offline) return false;
      if (!notes.offline.textContent.endsWith(text)) notes.offline.append(" ", text);
      return true;
    },
    setTitle(title, subtitle) {
      const box = $("title");
      if (!title) return void (box.hidden = true);
      box.hidden = false;
      box.innerHTML = `<strong>${escapeHtml(title)}</strong>${subtitle ? `<span>${escapeHtml(subtitle)}</span>` : ""}`;
    },
    /**
     * rows: {label, color, shape "line"|"dot"|"area", dash, under, group}; rows with a
     * group toggle it. `folded`: only the button that opens it shows.
     */
    setLegend(rows, isHidden, folded = false) {
      legend.rows = rows;
      const box = $("legend");
      box.setAttribute("aria-label", t("layers"));
      box.innerHTML = legendHtml(rows, isHidden, t);
      shell.foldLegend(folded);
    },
    /** Fold the legend away (its button says what it holds) or open it; none shows without rows. */
    foldLegend(folded) {
      const none = legend.rows.length === 0;
      $("legend").hidden = none || folded;
      const button = $("legend-fold");
      button.hidden = none;
      button.setAttribute("aria-expanded", String(!folded));
      button.textContent = `${folded ? "▸" : "▾"} ${t("layers")} (${legend.rows.length})`;
      button.title = t(folded ? "showLegend" : "hideLegend");
    },
    /**
     * The notes over the map, or (`aside`) at the top of the list beside it, where
     * a narrow map has no room for them clear of the data.
     */
    placeNotes(aside) {
      const box = $("notes");
      if (aside === (box.parentElement === $("side"))) return;
      if (aside) $("side").prepend(box);
      else $("stage").insertBefore(box, $("message"));
    },
    /** Whether the map is narrower than LEGEND_ROOM (too narrow for notes beside the data). */
    narrow() {
      return ($("stage").clientWidth || 0) < LEGEND_ROOM.width;
    },
    /** Whether the map is too small for the legend open (LEGEND_ROOM). */
    cramped() {
      const stage = $("stage");
      return (stage.clientWidth || 0) < LEGEND_ROOM.width || (stage.clientHeight || 0) < LEGEND_ROOM.height;
    },
    /** Show every legend button of `group` pressed (its layers shown) or not. */
    pressLegend(group, pressed) {
      for (const b of $("legend").querySelectorAll("button[data-i]")) {
        if (legend.rows[Number(b.dataset.i)].group === group) b.setAttribute("aria-pressed", String(pressed));
      }
    },
    showDetails(item) {
      const box = $("details");
      box.hidden = false;
      box.innerHTML = detailsHtml(item, t);
      box.dataset.id = item.id;
    },
    hideDetails() {
      $("details").hidden = true;
    },
    /** The host's look: theme, style variables, fonts, safe areas, height, language, full-screen button. */
    applyLook(hc, locale) {
      const root = doc.documentElement;
      if (hc.theme) {
        applyDocumentTheme(hc.theme);
        root.dataset.theme = hc.theme;
      }
      if (hc.styles?.variables) applyHostStyleVariables(hc.styles.variables);
      if (hc.styles?.css?.fonts) applyHostFonts(hc.styles.css.fonts);
      const insets = hc.safeAreaInsets;
      if (insets) {
        for (const side of ["top", "right", "bottom", "left"]) root.style.setProperty(`--tt-inset-${side}`, `${insets[side] || 0}px`);
      }
      if (hc.locale || hc.timeZone) {
        root.lang = locale;
        $("list").setAttribute("aria-label", t("list"));
      }
      const height = frameHeight(hc);
      if (height) root.style.setProperty("--tt-height", `${height}px`);
      const full = (hc.displayMode || "inline") === "fullscreen";
      const button = $("fullscreen");
      button.hidden = !(hc.availableDisplayModes || []).includes("fullscreen");
      const label = t(full ? "exitFullscreen" : "fullscreen");
      button.textContent = full ? "⤡" : "⤢";
      button.title = label;
      button.setAttribute("aria-label", label);
    },
    /** The theme the document shows ("light" until the host says). */
    theme() {
      return doc.documentElement.dataset.theme || "light";
    },
    /** Watch whether the frame is on screen: `onChange(visible)`; returns the observer. */
    observeVisibility(onChange) {
      const observer = new IntersectionObserver((entries) => onChange(entries.some((e) => e.isIntersecting)));
      observer.observe($("frame"));
      return observer;
    },
  };
  return shell;
}
