/**
 * The fleet view's own words, in the languages of core/i18n.js: kept here so the
 * other views, whose size budget is nearly spent, do not carry them.
 */
const WORDS = {
  en: { fleetMatrix: "Travel times", fleetPlan: "Route plan", vehicleN: "Vehicle {n}", origins: "Origins", originN: "Origin {n}", notServed: "Not served", arrival: "Arrival", window: "Window", nearest: "Nearest", noRoute: "No route", sortNearest: "Nearest first", sortIndex: "By number" },
  de: { fleetMatrix: "Fahrzeiten", fleetPlan: "Tourenplan", vehicleN: "Fahrzeug {n}", origins: "Startpunkte", originN: "Startpunkt {n}", notServed: "Nicht bedient", arrival: "Ankunft", window: "Zeitfenster", nearest: "Nächstes Ziel", noRoute: "Keine Route", sortNearest: "Nächste zuerst", sortIndex: "Nach Nummer" },
  fr: { fleetMatrix: "Temps de trajet", fleetPlan: "Plan de tournées", vehicleN: "Véhicule {n}", origins: "Origines", originN: "Origine {n}", notServed: "Non desservi", arrival: "Arrivée", window: "Créneau", nearest: "Plus proche", noRoute: "Aucun itinéraire", sortNearest: "Plus proches d’abord", sortIndex: "Par numéro" },
  nl: { fleetMatrix: "Reistijden", fleetPlan: "Routeplan", vehicleN: "Voertuig {n}", origins: "Vertrekpunten", originN: "Vertrekpunt {n}", notServed: "Niet bediend", arrival: "Aankomst", window: "Tijdvenster", nearest: "Dichtstbij", noRoute: "Geen route", sortNearest: "Dichtstbij eerst", sortIndex: "Op nummer" },
  es: { fleetMatrix: "Tiempos de viaje", fleetPlan: "Plan de rutas", vehicleN: "Vehículo {n}", origins: "Orígenes", originN: "Origen {n}", notServed: "Sin servir", arrival: "Llegada", window: "Franja", nearest: "Más cercano", noRoute: "Sin ruta", sortNearest: "Más cercanos primero", sortIndex: "Por número" },
};

/** The fleet word `key` in `l10n`'s language (English where it has none), `{name}` slots filled. */
export function word(l10n, key, vars = {}) {
  const lang = String(l10n.locale || "en").split("-")[0].toLowerCase();
  const text = (WORDS[lang] || WORDS.en)[key] ?? WORDS.en[key] ?? key;
  return text.replace(/\{(\w+)\}/g, (m, name) => (name in vars ? String(vars[name]) : m));
}

/** Every language's keys (the unit test checks each language has English's). */
export const LANGUAGES = WORDS;
