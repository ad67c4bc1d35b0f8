/** The offline basemap's colours, light and dark (pure, so the contrast tests can read them). */

/** Colours per theme; text pairs meet WCAG AA (4.5:1), land and water 3:1 with what is drawn on them. */
export const THEMES = {
  light: { water: "#a9c8dc", land: "#f2efe9", border: "#8c7fa8", coast: "#8fb0c6", label: "#333a44", halo: "#f2efe9", dot: "#59636e" },
  dark: { water: "#0f1a26", land: "#2b3036", border: "#8b8fb8", coast: "#1f3a52", label: "#d5dbe2", halo: "#1b1f24", dot: "#9198a1" },
};
