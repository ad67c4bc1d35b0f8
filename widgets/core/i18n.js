/**
 * The views' own words in English, German, French, Dutch and Spanish, and
 * numbers, distances, durations and times in the host's locale and time zone
 * (`Intl`). Other languages get English words with local number formats.
 * Distances are in miles where roads are signed in miles (US, UK, Liberia, Myanmar).
 */

const EN = {
  loading: "Loading map…",
  waiting: "Waiting for the tool result.",
  computingRoute: "Computing route…",
  working: "Waiting for the answer…",
  partialNote: "Drawn from the request; the answer replaces it.",
  refetching: "Fetching the map data again from the server…",
  refetched: "The host did not pass the map data to this view, so the server fetched it again.",
  nothingFound: "Nothing found",
  noFeatures: "The answer has no places, routes or areas to show.",
  fullscreen: "Fullscreen",
  exitFullscreen: "Exit fullscreen",
  openInTomTom: "Open in TomTom",
  directions: "Directions",
  list: "List of what the map shows",
  results: "Results",
  routes: "Routes",
  instructions: "Instructions",
  incidents: "Incidents",
  features: "Features",
  areas: "Areas",
  stops: "Stops",
  layers: "Layers",
  showLegend: "Show the legend",
  hideLegend: "Fold the legend away",
  route: "Route",
  routeN: "Route {n}",
  start: "Start",
  end: "End",
  stopN: "Stop {n}",
  waypoint: "Waypoint",
  result: "Result",
  marker: "Marker",
  area: "Area",
  range: "Reachable range",
  station: "Charging station",
  chargingStop: "Charging stop",
  chargingStops: "Charging stops",
  stationState: { free: "Charging: free", busy: "Charging: busy", outOfService: "Charging: out of service", unknown: "Charging: unknown" },
  feature: "Feature {n}",
  places: { one: "{n} place", other: "{n} places" },
  featuresN: { one: "{n} feature", other: "{n} features" },
  loadingFeatures: "Loading {pct} of {total} features…",
  incidentsN: { one: "{n} incident in this area", other: "{n} incidents in this area" },
  routesN: { one: "{n} route", other: "{n} routes" },
  trafficDelay: "+{d} traffic",
  delay: "Delay",
  from: "From",
  to: "To",
  length: "Length",
  since: "Since",
  until: "Until",
  road: "Road",
  traffic: "Traffic",
  liveTraffic: "Live flow and incidents",
  requestedArea: "Requested area",
  borderCrossings: "Border crossings ({n})",
  offlineBasemap: "Offline map (Natural Earth): no TomTom key, so no street tiles.",
  noLiveTraffic: "Offline map (Natural Earth): no TomTom key, so no live traffic tiles.",
  tilesFailed: "Map tiles could not load; showing the offline map.",
  simpleMap: "Simple map: the full map engine cannot run here.",
  offlineData: "Offline demo data: not real TomTom results.",
  simplified: "Simplified to {n} of {of} points, within {err}",
  skippedSections: "{n} section(s) out of range were not drawn",
  show: "Show {what}",
  summary: "Map of {what}.",
  summaryNone: "Map with nothing drawn.",
  selected: "Selected: {what}",
  magnitude: ["Unknown delay", "Minor delay", "Moderate delay", "Major delay", "Closed or stopped"],
  category: {
    0: "Unknown", 1: "Accident", 2: "Fog", 3: "Dangerous conditions", 4: "Rain", 5: "Ice", 6: "Jam",
    7: "Lane closed", 8: "Road closed", 9: "Road works", 10: "Wind", 11: "Flooding", 14: "Broken-down vehicle",
  },
  section: {
    TOLL_ROAD: "Toll road", TOLL_VIGNETTE: "Toll (vignette)", TOLL: "Toll road", MOTORWAY: "Motorway",
    TUNNEL: "Tunnel", FERRY: "Ferry", CARTRAIN: "Car train", PEDESTRIAN: "Pedestrian",
  },
  titles: {
    map: "Map", route: "Route", geocode: "Geocoding", address: "Address", search: "Search results",
    places: "Places", nearby: "Nearby", alongRoute: "Along the route", range: "Reachable range", data: "Data",
    evSearch: "Charging stations", evRoute: "EV route", areaSearch: "In the area",
  },
  errors: {
    tool_error: "The tool failed", meta_dropped: "No map data", no_app_data: "No map data",
    too_large: "Map data too large", invalid: "Map data refused", ui_disabled: "No map requested",
    decode_failed: "Map data unreadable", fetch_failed: "Data could not be loaded", no_result: "No tool result",
    other: "Nothing to show",
  },
};

const DE = {
  loading: "Karte wird geladen…",
  waiting: "Warte auf das Ergebnis des Werkzeugs.",
  computingRoute: "Route wird berechnet…",
  working: "Warte auf die Antwort…",
  partialNote: "Aus der Anfrage gezeichnet; die Antwort ersetzt es.",
  refetching: "Kartendaten werden erneut vom Server geholt…",
  refetched: "Der Host hat die Kartendaten nicht an diese Ansicht weitergegeben, daher hat der Server sie erneut abgerufen.",
  nothingFound: "Nichts gefunden",
  noFeatures: "Die Antwort enthält keine Orte, Routen oder Gebiete.",
  fullscreen: "Vollbild",
  exitFullscreen: "Vollbild beenden",
  openInTomTom: "In TomTom öffnen",
  directions: "Route dorthin",
  list: "Liste dessen, was die Karte zeigt",
  results: "Ergebnisse",
  routes: "Routen",
  instructions: "Fahranweisungen",
  incidents: "Verkehrsmeldungen",
  features: "Objekte",
  areas: "Gebiete",
  stops: "Stopps",
  layers: "Ebenen",
  showLegend: "Legende zeigen",
  hideLegend: "Legende einklappen",
  route: "Route",
  routeN: "Route {n}",
  start: "Start",
  end: "Ziel",
  stopN: "Stopp {n}",
  waypoint: "Wegpunkt",
  result: "Ergebnis",
  marker: "Markierung",
  area: "Gebiet",
  range: "Erreichbarer Bereich",
  station: "Ladestation",
  chargingStop: "Ladestopp",
  chargingStops: "Ladestopps",
  stationState: { free: "Laden: frei", busy: "Laden: belegt", outOfService: "Laden: außer Betrieb", unknown: "Laden: unbekannt" },
  feature: "Objekt {n}",
  places: { one: "{n} Ort", other: "{n} Orte" },
  featuresN: { one: "{n} Objekt", other: "{n} Objekte" },
  loadingFeatures: "{pct} von {total} Objekten geladen…",
  incidentsN: { one: "{n} Verkehrsmeldung in diesem Gebiet", other: "{n} Verkehrsmeldungen in diesem Gebiet" },
  routesN: { one: "{n} Route", other: "{n} Routen" },
  trafficDelay: "+{d} Verkehr",
  delay: "Verzögerung",
  from: "Von",
  to: "Nach",
  length: "Länge",
  since: "Seit",
  until: "Bis",
  road: "Straße",
  traffic: "Verkehr",
  liveTraffic: "Verkehrsfluss und Meldungen",
  requestedArea: "Angefragtes Gebiet",
  borderCrossings: "Grenzübergänge ({n})",
  offlineBasemap: "Offline-Karte (Natural Earth): kein TomTom-Schlüssel, daher keine Straßenkacheln.",
  noLiveTraffic: "Offline-Karte (Natural Earth): kein TomTom-Schlüssel, daher kein Live-Verkehr.",
  tilesFailed: "Kartenkacheln konnten nicht geladen werden; die Offline-Karte wird gezeigt.",
  simpleMap: "Einfache Karte: Die volle Karten-Engine kann hier nicht laufen.",
  offlineData: "Offline-Demodaten: keine echten TomTom-Ergebnisse.",
  simplified: "Vereinfacht auf {n} von {of} Punkten, auf {err} genau",
  skippedSections: "{n} Abschnitt(e) außerhalb der Route nicht gezeichnet",
  show: "{what} anzeigen",
  summary: "Karte: {what}.",
  summaryNone: "Karte ohne Inhalt.",
  selected: "Ausgewählt: {what}",
  magnitude: ["Unbekannte Verzögerung", "Geringe Verzögerung", "Mittlere Verzögerung", "Große Verzögerung", "Gesperrt oder Stillstand"],
  category: {
    0: "Unbekannt", 1: "Unfall", 2: "Nebel", 3: "Gefahr", 4: "Regen", 5: "Glätte", 6: "Stau",
    7: "Fahrstreifen gesperrt", 8: "Straße gesperrt", 9: "Baustelle", 10: "Wind", 11: "Überflutung", 14: "Pannenfahrzeug",
  },
  section: {
    TOLL_ROAD: "Mautstraße", TOLL_VIGNETTE: "Maut (Vignette)", TOLL: "Mautstraße", MOTORWAY: "Autobahn",
    TUNNEL: "Tunnel", FERRY: "Fähre", CARTRAIN: "Autozug", PEDESTRIAN: "Fußweg",
  },
  titles: {
    map: "Karte", route: "Route", geocode: "Geokodierung", address: "Adresse", search: "Suchergebnisse",
    places: "Orte", nearby: "In der Nähe", alongRoute: "Entlang der Route", range: "Erreichbarer Bereich", data: "Daten",
    evSearch: "Ladestationen", evRoute: "E-Auto-Route", areaSearch: "Im Gebiet",
  },
  errors: {
    tool_error: "Das Werkzeug ist fehlgeschlagen", meta_dropped: "Keine Kartendaten", no_app_data: "Keine Kartendaten",
    too_large: "Kartendaten zu groß", invalid: "Kartendaten abgelehnt", ui_disabled: "Keine Karte angefordert",
    decode_failed: "Kartendaten unlesbar", fetch_failed: "Daten konnten nicht geladen werden", no_result: "Kein Ergebnis",
    other: "Nichts anzuzeigen",
  },
};

const FR = {
  loading: "Chargement de la carte…",
  waiting: "En attente du résultat de l’outil.",
  computingRoute: "Calcul de l’itinéraire…",
  working: "En attente de la réponse…",
  partialNote: "Dessiné d’après la demande ; la réponse le remplacera.",
  refetching: "Nouvelle récupération des données de la carte auprès du serveur…",
  refetched: "L’hôte n’a pas transmis les données de la carte à cette vue ; le serveur les a donc récupérées à nouveau.",
  nothingFound: "Aucun résultat",
  noFeatures: "La réponse ne contient ni lieu, ni itinéraire, ni zone.",
  fullscreen: "Plein écran",
  exitFullscreen: "Quitter le plein écran",
  openInTomTom: "Ouvrir dans TomTom",
  directions: "Itinéraire",
  list: "Liste de ce que montre la carte",
  results: "Résultats",
  routes: "Itinéraires",
  instructions: "Instructions",
  incidents: "Incidents",
  features: "Objets",
  areas: "Zones",
  stops: "Arrêts",
  layers: "Calques",
  showLegend: "Afficher la légende",
  hideLegend: "Replier la légende",
  route: "Itinéraire",
  routeN: "Itinéraire {n}",
  start: "Départ",
  end: "Arrivée",
  stopN: "Étape {n}",
  waypoint: "Étape",
  result: "Résultat",
  marker: "Repère",
  area: "Zone",
  range: "Zone accessible",
  station: "Borne de recharge",
  chargingStop: "Arrêt de recharge",
  chargingStops: "Arrêts de recharge",
  stationState: { free: "Recharge: libre", busy: "Recharge: occupée", outOfService: "Recharge: hors service", unknown: "Recharge: inconnu" },
  feature: "Objet {n}",
  places: { one: "{n} lieu", other: "{n} lieux" },
  featuresN: { one: "{n} objet", other: "{n} objets" },
  loadingFeatures: "Chargement de {pct} des {total} objets…",
  incidentsN: { one: "{n} incident dans cette zone", other: "{n} incidents dans cette zone" },
  routesN: { one: "{n} itinéraire", other: "{n} itinéraires" },
  trafficDelay: "+{d} de trafic",
  delay: "Retard",
  from: "De",
  to: "À",
  length: "Longueur",
  since: "Depuis",
  until: "Jusqu’à",
  road: "Route",
  traffic: "Trafic",
  liveTraffic: "Trafic et incidents en direct",
  requestedArea: "Zone demandée",
  borderCrossings: "Passages de frontière ({n})",
  offlineBasemap: "Carte hors ligne (Natural Earth) : pas de clé TomTom, donc pas de tuiles de rues.",
  noLiveTraffic: "Carte hors ligne (Natural Earth) : pas de clé TomTom, donc pas de trafic en direct.",
  tilesFailed: "Les tuiles n’ont pas pu être chargées ; carte hors ligne affichée.",
  simpleMap: "Carte simplifiée : le moteur de carte complet ne peut pas tourner ici.",
  offlineData: "Données de démonstration hors ligne : pas de vrais résultats TomTom.",
  simplified: "Simplifié à {n} points sur {of}, à {err} près",
  skippedSections: "{n} section(s) hors de l’itinéraire non dessinée(s)",
  show: "Afficher {what}",
  summary: "Carte : {what}.",
  summaryNone: "Carte sans contenu.",
  selected: "Sélection : {what}",
  magnitude: ["Retard inconnu", "Retard faible", "Retard modéré", "Retard important", "Fermé ou à l’arrêt"],
  category: {
    0: "Inconnu", 1: "Accident", 2: "Brouillard", 3: "Conditions dangereuses", 4: "Pluie", 5: "Verglas", 6: "Embouteillage",
    7: "Voie fermée", 8: "Route fermée", 9: "Travaux", 10: "Vent", 11: "Inondation", 14: "Véhicule en panne",
  },
  section: {
    TOLL_ROAD: "Route à péage", TOLL_VIGNETTE: "Péage (vignette)", TOLL: "Route à péage", MOTORWAY: "Autoroute",
    TUNNEL: "Tunnel", FERRY: "Ferry", CARTRAIN: "Train auto", PEDESTRIAN: "Piéton",
  },
  titles: {
    map: "Carte", route: "Itinéraire", geocode: "Géocodage", address: "Adresse", search: "Résultats de recherche",
    places: "Lieux", nearby: "À proximité", alongRoute: "Le long de l’itinéraire", range: "Zone accessible", data: "Données",
    evSearch: "Bornes de recharge", evRoute: "Itinéraire électrique", areaSearch: "Dans la zone",
  },
  errors: {
    tool_error: "L’outil a échoué", meta_dropped: "Pas de données cartographiques", no_app_data: "Pas de données cartographiques",
    too_large: "Données trop volumineuses", invalid: "Données refusées", ui_disabled: "Aucune carte demandée",
    decode_failed: "Données illisibles", fetch_failed: "Chargement des données impossible", no_result: "Pas de résultat",
    other: "Rien à afficher",
  },
};

const NL = {
  loading: "Kaart laden…",
  waiting: "Wachten op het resultaat van de tool.",
  computingRoute: "Route berekenen…",
  working: "Wachten op het antwoord…",
  partialNote: "Getekend uit het verzoek; het antwoord vervangt dit.",
  refetching: "Kaartgegevens worden opnieuw bij de server opgehaald…",
  refetched: "De host gaf de kaartgegevens niet door aan deze weergave, dus de server heeft ze opnieuw opgehaald.",
  nothingFound: "Niets gevonden",
  noFeatures: "Het antwoord bevat geen plaatsen, routes of gebieden.",
  fullscreen: "Volledig scherm",
  exitFullscreen: "Volledig scherm sluiten",
  openInTomTom: "Openen in TomTom",
  directions: "Route hierheen",
  list: "Lijst van wat de kaart toont",
  results: "Resultaten",
  routes: "Routes",
  instructions: "Routebeschrijving",
  incidents: "Meldingen",
  features: "Objecten",
  areas: "Gebieden",
  stops: "Stops",
  layers: "Lagen",
  showLegend: "Legenda tonen",
  hideLegend: "Legenda inklappen",
  route: "Route",
  routeN: "Route {n}",
  start: "Start",
  end: "Bestemming",
  stopN: "Stop {n}",
  waypoint: "Routepunt",
  result: "Resultaat",
  marker: "Markering",
  area: "Gebied",
  range: "Bereikbaar gebied",
  station: "Laadstation",
  chargingStop: "Laadstop",
  chargingStops: "Laadstops",
  stationState: { free: "Laden: vrij", busy: "Laden: bezet", outOfService: "Laden: buiten gebruik", unknown: "Laden: onbekend" },
  feature: "Object {n}",
  places: { one: "{n} plaats", other: "{n} plaatsen" },
  featuresN: { one: "{n} object", other: "{n} objecten" },
  loadingFeatures: "{pct} van {total} objecten geladen…",
  incidentsN: { one: "{n} melding in dit gebied", other: "{n} meldingen in dit gebied" },
  routesN: { one: "{n} route", other: "{n} routes" },
  trafficDelay: "+{d} verkeer",
  delay: "Vertraging",
  from: "Van",
  to: "Naar",
  length: "Lengte",
  since: "Sinds",
  until: "Tot",
  road: "Weg",
  traffic: "Verkeer",
  liveTraffic: "Live verkeer en meldingen",
  requestedArea: "Gevraagd gebied",
  borderCrossings: "Grensovergangen ({n})",
  offlineBasemap: "Offline kaart (Natural Earth): geen TomTom-sleutel, dus geen straattegels.",
  noLiveTraffic: "Offline kaart (Natural Earth): geen TomTom-sleutel, dus geen live verkeer.",
  tilesFailed: "Kaarttegels konden niet laden; de offline kaart wordt getoond.",
  simpleMap: "Eenvoudige kaart: de volledige kaartengine kan hier niet draaien.",
  offlineData: "Offline demogegevens: geen echte TomTom-resultaten.",
  simplified: "Vereenvoudigd tot {n} van {of} punten, binnen {err}",
  skippedSections: "{n} sectie(s) buiten de route niet getekend",
  show: "{what} tonen",
  summary: "Kaart: {what}.",
  summaryNone: "Kaart zonder inhoud.",
  selected: "Geselecteerd: {what}",
  magnitude: ["Onbekende vertraging", "Kleine vertraging", "Matige vertraging", "Grote vertraging", "Afgesloten of stilstaand"],
  category: {
    0: "Onbekend", 1: "Ongeval", 2: "Mist", 3: "Gevaarlijke situatie", 4: "Regen", 5: "IJzel", 6: "File",
    7: "Rijstrook afgesloten", 8: "Weg afgesloten", 9: "Wegwerkzaamheden", 10: "Wind", 11: "Overstroming", 14: "Pechgeval",
  },
  section: {
    TOLL_ROAD: "Tolweg", TOLL_VIGNETTE: "Tol (vignet)", TOLL: "Tolweg", MOTORWAY: "Snelweg",
    TUNNEL: "Tunnel", FERRY: "Veerboot", CARTRAIN: "Autotrein", PEDESTRIAN: "Voetpad",
  },
  titles: {
    map: "Kaart", route: "Route", geocode: "Geocodering", address: "Adres", search: "Zoekresultaten",
    places: "Plaatsen", nearby: "In de buurt", alongRoute: "Langs de route", range: "Bereikbaar gebied", data: "Gegevens",
    evSearch: "Laadstations", evRoute: "EV-route", areaSearch: "In het gebied",
  },
  errors: {
    tool_error: "De tool is mislukt", meta_dropped: "Geen kaartgegevens", no_app_data: "Geen kaartgegevens",
    too_large: "Kaartgegevens te groot", invalid: "Kaartgegevens geweigerd", ui_disabled: "Geen kaart gevraagd",
    decode_failed: "Kaartgegevens onleesbaar", fetch_failed: "Gegevens konden niet laden", no_result: "Geen resultaat",
    other: "Niets te tonen",
  },
};

const ES = {
  loading: "Cargando el mapa…",
  waiting: "Esperando el resultado de la herramienta.",
  computingRoute: "Calculando la ruta…",
  working: "Esperando la respuesta…",
  partialNote: "Dibujado a partir de la petición; la respuesta lo sustituirá.",
  refetching: "Obteniendo de nuevo los datos del mapa del servidor…",
  refetched: "El anfitrión no pasó los datos del mapa a esta vista, así que el servidor los obtuvo de nuevo.",
  nothingFound: "Sin resultados",
  noFeatures: "La respuesta no contiene lugares, rutas ni zonas.",
  fullscreen: "Pantalla completa",
  exitFullscreen: "Salir de pantalla completa",
  openInTomTom: "Abrir en TomTom",
  directions: "Cómo llegar",
  list: "Lista de lo que muestra el mapa",
  results: "Resultados",
  routes: "Rutas",
  instructions: "Indicaciones",
  incidents: "Incidencias",
  features: "Elementos",
  areas: "Zonas",
  stops: "Paradas",
  layers: "Capas",
  showLegend: "Mostrar la leyenda",
  hideLegend: "Plegar la leyenda",
  route: "Ruta",
  routeN: "Ruta {n}",
  start: "Salida",
  end: "Llegada",
  stopN: "Parada {n}",
  waypoint: "Punto de paso",
  result: "Resultado",
  marker: "Marcador",
  area: "Zona",
  range: "Zona alcanzable",
  station: "Estación de carga",
  chargingStop: "Parada de carga",
  chargingStops: "Paradas de carga",
  stationState: { free: "Carga: libre", busy: "Carga: ocupada", outOfService: "Carga: fuera de servicio", unknown: "Carga: desconocido" },
  feature: "Elemento {n}",
  places: { one: "{n} lugar", other: "{n} lugares" },
  featuresN: { one: "{n} elemento", other: "{n} elementos" },
  loadingFeatures: "Cargando {pct} de {total} elementos…",
  incidentsN: { one: "{n} incidencia en esta zona", other: "{n} incidencias en esta zona" },
  routesN: { one: "{n} ruta", other: "{n} rutas" },
  trafficDelay: "+{d} de tráfico",
  delay: "Retraso",
  from: "Desde",
  to: "Hasta",
  length: "Longitud",
  since: "Desde",
  until: "Hasta",
  road: "Carretera",
  traffic: "Tráfico",
  liveTraffic: "Tráfico e incidencias en directo",
  requestedArea: "Zona solicitada",
  borderCrossings: "Pasos fronterizos ({n})",
  offlineBasemap: "Mapa sin conexión (Natural Earth): sin clave de TomTom, no hay teselas de calles.",
  noLiveTraffic: "Mapa sin conexión (Natural Earth): sin clave de TomTom, no hay tráfico en directo.",
  tilesFailed: "No se pudieron cargar las teselas; se muestra el mapa sin conexión.",
  simpleMap: "Mapa simple: el motor de mapas completo no puede funcionar aquí.",
  offlineData: "Datos de demostración sin conexión: no son resultados reales de TomTom.",
  simplified: "Simplificado a {n} de {of} puntos, con un margen de {err}",
  skippedSections: "{n} tramo(s) fuera de la ruta sin dibujar",
  show: "Mostrar {what}",
  summary: "Mapa: {what}.",
  summaryNone: "Mapa sin contenido.",
  selected: "Seleccionado: {what}",
  magnitude: ["Retraso desconocido", "Retraso leve", "Retraso moderado", "Retraso grave", "Cortado o detenido"],
  category: {
    0: "Desconocido", 1: "Accidente", 2: "Niebla", 3: "Condiciones peligrosas", 4: "Lluvia", 5: "Hielo", 6: "Atasco",
    7: "Carril cortado", 8: "Carretera cortada", 9: "Obras", 10: "Viento", 11: "Inundación", 14: "Vehículo averiado",
  },
  section: {
    TOLL_ROAD: "Peaje", TOLL_VIGNETTE: "Peaje (viñeta)", TOLL: "Peaje", MOTORWAY: "Autopista",
    TUNNEL: "Túnel", FERRY: "Ferry", CARTRAIN: "Autotren", PEDESTRIAN: "Peatonal",
  },
  titles: {
    map: "Mapa", route: "Ruta", geocode: "Geocodificación", address: "Dirección", search: "Resultados de búsqueda",
    places: "Lugares", nearby: "Cerca", alongRoute: "A lo largo de la ruta", range: "Zona alcanzable", data: "Datos",
    evSearch: "Estaciones de carga", evRoute: "Ruta eléctrica", areaSearch: "En la zona",
  },
  errors: {
    tool_error: "La herramienta falló", meta_dropped: "Sin datos del mapa", no_app_data: "Sin datos del mapa",
    too_large: "Datos del mapa demasiado grandes", invalid: "Datos del mapa rechazados", ui_disabled: "No se pidió un mapa",
    decode_failed: "Datos del mapa ilegibles", fetch_failed: "No se pudieron cargar los datos", no_result: "Sin resultado",
    other: "Nada que mostrar",
  },
};

export const STRINGS = { en: EN, de: DE, fr: FR, nl: NL, es: ES };
const MILE_REGIONS = new Set(["US", "GB", "LR", "MM"]);

function region(locale) {
  try {
    return new Intl.Locale(locale).maximize().region || "";
  } catch {
    return "";
  }
}

function supported(locale) {
  try {
    return Intl.getCanonicalLocales(locale)[0] || "en-US";
  } catch {
    return "en-US";
  }
}

function validZone(timeZone) {
  if (!timeZone) return undefined;
  try {
    new Intl.DateTimeFormat("en", { timeZone });
    return timeZone;
  } catch {
    return undefined;
  }
}

/**
 * Words and formats for a host `locale` (BCP 47) and `timeZone` (IANA); a
 * malformed locale falls back to en-US, an unknown zone to the browser's.
 */
export function createLocale(hostLocale, hostTimeZone) {
  const locale = supported(hostLocale || "en-US");
  const lang = locale.split("-")[0].toLowerCase();
  const words = STRINGS[lang] || EN;
  const timeZone = validZone(hostTimeZone);
  const imperial = MILE_REGIONS.has(region(locale));
  const plural = new Intl.PluralRules(locale);
  const cache = new Map();
  const nf = (options) => {
    const key = JSON.stringify(options);
    if (!cache.has(key)) cache.set(key, new Intl.NumberFormat(locale, options));
    return cache.get(key);
  };
  const unit = (value, name, digits = 0) =>
    nf({ style: "unit", unit: name, unitDisplay: "short", maximumFractionDigits: digits }).format(value);

  /** A word by key ("section.TUNNEL" reaches into tables), `{name}` slots filled; English if this language lacks it. */
  function t(key, vars = {}) {
    const look = (table) => key.split(".").reduce((node, part) => (node == null ? undefined : node[part]), table);
    let text = look(words) ?? look(EN) ?? key;
    if (text && typeof text === "object" && "other" in text) {
      const n = Number(vars.n);
      text = text[plural.select(n)] ?? text.other;
      vars = { ...vars, n: number(n) };
    }
    return String(text).replace(/\{(\w+)\}/g, (m, name) => (name in vars ? String(vars[name]) : m));
  }

  function number(value, digits = 0) {
    return Number.isFinite(value) ? nf({ maximumFractionDigits: digits }).format(value) : "";
  }

  function distance(meters) {
    if (!Number.isFinite(meters)) return "";
    if (imperial) {
      const miles = meters / 1609.344;
      if (miles < 0.1) return unit(Math.round(meters * 3.28084), "foot");
      return unit(miles, "mile", miles < 10 ? 1 : 0);
    }
    if (meters < 1000) return unit(Math.round(meters), "meter");
    const km = meters / 1000;
    return unit(km, "kilometer", km < 10 ? 1 : 0);
  }

  function duration(seconds) {
    if (!Number.isFinite(seconds)) return "";
    const minutes = Math.round(seconds / 60);
    if (minutes < 60) return unit(minutes, "minute");
    const h = Math.floor(minutes / 60);
    const m = minutes % 60;
    return m ? `${unit(h, "hour")} ${unit(m, "minute")}` : unit(h, "hour");
  }

  /** A date-time (ISO text) as the host's people read it, in the host's time zone. */
  function dateTime(iso) {
    const when = new Date(iso);
    if (!iso || Number.isNaN(when.getTime())) return "";
    return new Intl.DateTimeFormat(locale, { dateStyle: "medium", timeStyle: "short", timeZone }).format(when);
  }

  return { locale, lang, timeZone, imperial, t, number, distance, duration, dateTime };
}
