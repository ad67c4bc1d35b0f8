"""A coarse map of Europe (countries as boxes), Natural Earth's populated places, stable
seeds and names.

The boxes are coarse on purpose: the emulation needs plausible, deterministic countries
along a route (a Lisbon to Warsaw route crosses PRT, ESP, FRA, DEU, POL), not borders.
The places are Natural Earth's 1:10m populated places (`places.json`, public domain;
`scripts/offline_places.py` wrote it), the same source as the views' basemap cities: a
name is found only if it is one of them (docs/upstream.md, Places).
"""

from __future__ import annotations

import functools
import hashlib
import math
import unicodedata
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import orjson

from tomtom_mcp_apps.fitting.geo import M_PER_DEG, haversine_m


@dataclass(frozen=True)
class Country:
    iso3: str
    iso2: str
    name: str
    street: str  # pattern for street names; `{}` is the name root


COUNTRIES: dict[str, Country] = {
    c.iso3: c
    for c in (
        Country("PRT", "PT", "Portugal", "Rua {}"),
        Country("ESP", "ES", "Spain", "Calle {}"),
        Country("FRA", "FR", "France", "Rue {}"),
        Country("BEL", "BE", "Belgium", "{}straat"),
        Country("NLD", "NL", "Netherlands", "{}straat"),
        Country("LUX", "LU", "Luxembourg", "Rue {}"),
        Country("CHE", "CH", "Switzerland", "{}strasse"),
        Country("DEU", "DE", "Germany", "{}straße"),
        Country("AUT", "AT", "Austria", "{}gasse"),
        Country("ITA", "IT", "Italy", "Via {}"),
        Country("POL", "PL", "Poland", "ulica {}"),
        Country("CZE", "CZ", "Czechia", "{} ulice"),
        Country("SVK", "SK", "Slovakia", "{} ulica"),
        Country("SVN", "SI", "Slovenia", "{} cesta"),
        Country("HRV", "HR", "Croatia", "{} ulica"),
        Country("HUN", "HU", "Hungary", "{} utca"),
        Country("DNK", "DK", "Denmark", "{}gade"),
        Country("SWE", "SE", "Sweden", "{}gatan"),
        Country("NOR", "NO", "Norway", "{}gata"),
        Country("FIN", "FI", "Finland", "{}katu"),
        Country("GBR", "GB", "United Kingdom", "{} Road"),
        Country("IRL", "IE", "Ireland", "{} Street"),
        Country("GRC", "GR", "Greece", "Odos {}"),
        Country("BGR", "BG", "Bulgaria", "ulitsa {}"),
        Country("ROU", "RO", "Romania", "Strada {}"),
        Country("SRB", "RS", "Serbia", "{} ulica"),
        Country("LTU", "LT", "Lithuania", "{} gatvė"),
        Country("LVA", "LV", "Latvia", "{} iela"),
        Country("EST", "EE", "Estonia", "{} tänav"),
        Country("UKR", "UA", "Ukraine", "vulytsia {}"),
        Country("BLR", "BY", "Belarus", "vulica {}"),
    )
}

# (iso3, west, south, east, north), first match wins: small countries before the
# large ones whose boxes overlap them.
_BOXES: tuple[tuple[str, float, float, float, float], ...] = (
    ("LUX", 5.7, 49.4, 6.5, 50.2),
    ("PRT", -9.6, 36.9, -6.2, 42.2),
    ("BEL", 2.5, 49.5, 6.0, 51.4),
    ("NLD", 3.3, 51.4, 7.2, 53.6),
    ("CHE", 6.0, 45.8, 10.5, 47.6),
    ("DNK", 8.0, 54.8, 12.7, 57.8),
    ("SVN", 13.4, 45.45, 15.6, 46.5),
    ("CZE", 12.1, 48.6, 18.9, 50.9),
    ("SVK", 16.8, 47.8, 22.6, 49.6),
    ("AUT", 12.8, 46.4, 17.2, 48.8),
    ("HRV", 13.5, 42.4, 19.4, 45.9),
    ("HUN", 16.1, 45.7, 22.9, 48.6),
    ("IRL", -10.5, 51.4, -6.0, 55.4),
    ("GBR", -8.2, 49.9, 1.8, 60.9),
    ("ESP", -9.4, 35.9, 3.4, 43.8),
    ("FRA", -5.2, 42.3, 7.5, 49.0),
    ("FRA", -5.2, 49.0, 4.3, 51.1),
    ("ITA", 6.6, 36.6, 18.5, 46.5),
    ("DEU", 5.9, 47.3, 15.0, 55.1),
    ("POL", 14.1, 49.0, 24.2, 54.9),
    ("LTU", 21.0, 53.9, 26.8, 56.4),
    ("LVA", 21.0, 56.4, 28.2, 58.1),
    ("EST", 21.8, 58.1, 28.2, 59.7),
    ("SRB", 18.8, 42.2, 23.0, 46.2),
    ("GRC", 19.4, 34.8, 28.3, 41.2),
    ("BGR", 22.4, 41.2, 28.6, 44.2),
    ("ROU", 20.3, 43.6, 29.7, 48.3),
    ("BLR", 23.2, 51.3, 32.8, 56.2),
    ("UKR", 22.1, 44.4, 40.2, 52.4),
    ("SWE", 11.1, 55.3, 21.0, 69.1),
    ("FIN", 21.0, 59.7, 31.6, 70.1),
    ("NOR", 4.5, 57.9, 31.1, 71.2),
)
_BOX_CODES = np.array([b[0] for b in _BOXES])
_BOX_ARRAY = np.array([b[1:] for b in _BOXES], dtype=np.float64)


PLACES_FILE = Path(__file__).with_name("places.json")
MAX_NAME_WORDS = 6
"""The longest place name looked for in a query, in words."""


@dataclass(frozen=True)
class Place:
    """A Natural Earth populated place: its name, position, country and admin-1 region."""

    name: str
    lon: float
    lat: float
    iso3: str
    iso2: str
    country: str
    region: str
    population: int
    rank: int
    """Its place in Natural Earth's order of prominence (0: the most prominent)."""


@dataclass(frozen=True)
class Gazetteer:
    places: tuple[Place, ...]
    by_name: dict[str, tuple[Place, ...]]
    """Each folded name (and other name) with its places, most prominent first."""
    lon: np.ndarray
    lat: np.ndarray
    population: np.ndarray


@functools.cache
def gazetteer() -> Gazetteer:
    """`places.json`, read once, on the first search that needs it."""
    data = orjson.loads(PLACES_FILE.read_bytes())
    countries = data["countries"]
    places = []
    by_name: dict[str, list[Place]] = {}
    for rank, (name, lon, lat, iso3, region, population, others) in enumerate(data["places"]):
        iso2, country = countries[iso3]
        place = Place(name, lon, lat, iso3, iso2, country, region, population, rank)
        places.append(place)
        for key in {" ".join(fold(w) for w in words_of(n)) for n in (name, *others)}:
            by_name.setdefault(key, []).append(place)
    return Gazetteer(
        tuple(places),
        {key: tuple(found) for key, found in by_name.items()},
        np.array([p.lon for p in places]),
        np.array([p.lat for p in places]),
        np.array([p.population for p in places]),
    )


def words_of(text: str) -> list[str]:
    """The words of `text`, split at spaces and commas, without the punctuation around
    them (as written; fold them to look them up)."""
    return [w for w in (w.strip('.;:!?()"') for w in text.replace(",", " ").split()) if w]


def place_named_in(
    query: str,
    countries: list[str] | None = None,
    near: tuple[float, float] | None = None,
    skip: frozenset[str] = frozenset(),
) -> tuple[Place, str] | None:
    """The place named in `query`, and the rest of the query; None when it names none.

    The longest name wins, then the most prominent place of that length, so "bar in
    Lyon" finds Lyon and not Bar; of places with the same name the one nearest `near`,
    else the most prominent ("London" is London, England). Folded words in `skip` (a
    search's category words) name no place. Only places in `countries` (ISO2 or ISO3).
    """
    written = words_of(query)
    words = [fold(w) for w in written]
    wanted = {c.upper() for c in countries or []}
    by_name = gazetteer().by_name
    for size in range(min(MAX_NAME_WORDS, len(words)), 0, -1):
        best: tuple[Place, int] | None = None
        for start in range(len(words) - size + 1):
            span = words[start : start + size]
            if size == 1 and span[0] in skip:
                continue
            places = [
                p
                for p in by_name.get(" ".join(span), ())
                if not wanted or p.iso3 in wanted or p.iso2 in wanted
            ]
            if not places:
                continue
            if near is not None:
                lons, lats = [p.lon for p in places], [p.lat for p in places]
                places = [places[int(np.argmin(haversine_m(near[0], near[1], lons, lats)))]]
            if best is None or places[0].rank < best[0].rank:
                best = (places[0], start)
        if best is not None:
            place, start = best
            return place, " ".join(written[:start] + written[start + size :])
    return None


def nearest_place(lon: float, lat: float, min_population: int = 0) -> tuple[Place, float]:
    """The place nearest the position (of at least `min_population`), and its distance."""
    g = gazetteer()
    d = haversine_m(lon, lat, g.lon, g.lat)
    if min_population:
        d = np.where(g.population >= min_population, d, np.inf)
    i = int(np.argmin(d))
    return g.places[i], float(d[i])


def country_named(iso3: str, iso2: str, name: str) -> Country:
    """The country of a place: this map's own where it has it, else one made from the
    place's (streets named in English)."""
    return COUNTRIES.get(iso3) or Country(iso3, iso2, name, "{} Street")


NAME_ROOTS = (
    "Linden", "Rosen", "Berg", "Garden", "Marina", "Victoria", "Europa", "Central", "Park",
    "Station", "Castle", "Mill", "Lake", "River", "Bridge", "Market", "Church", "School",
    "Forest", "Meadow", "Harbour", "Orchard", "Willow", "Chestnut",
)  # fmt: skip


def seed_of(*parts: object) -> int:
    """A seed that is the same in every process and run (unlike `hash()`)."""
    digest = hashlib.blake2b(repr(parts).encode(), digest_size=8).digest()
    return int.from_bytes(digest, "little") & 0x7FFF_FFFF_FFFF_FFFF


def rng_for(*parts: object) -> np.random.Generator:
    return np.random.default_rng(seed_of(*parts))


def countries_of(lon: np.ndarray, lat: np.ndarray) -> np.ndarray:
    """ISO3 code per position: the first box holding it, else the nearest box."""
    lon = np.asarray(lon, dtype=np.float64)
    lat = np.asarray(lat, dtype=np.float64)
    out = np.full(lon.shape, -1, dtype=np.int64)
    if lon.size == 0:
        return _BOX_CODES[out]
    west, east, south, north = lon.min(), lon.max(), lat.min(), lat.max()
    for i, (w, s, e, n) in enumerate(_BOX_ARRAY):
        if w > east or e < west or s > north or n < south:
            continue  # the box misses every position
        hit = (out < 0) & (lon >= w) & (lon <= e) & (lat >= s) & (lat <= n)
        out[hit] = i
    missing = out < 0
    if missing.any():
        mlon, mlat = lon[missing, None], lat[missing, None]
        dx = np.maximum(np.maximum(_BOX_ARRAY[:, 0] - mlon, mlon - _BOX_ARRAY[:, 2]), 0.0)
        dy = np.maximum(np.maximum(_BOX_ARRAY[:, 1] - mlat, mlat - _BOX_ARRAY[:, 3]), 0.0)
        out[missing] = np.argmin(dx * dx + dy * dy, axis=1)
    return _BOX_CODES[out]


def country_of(lon: float, lat: float) -> Country:
    """The country of a position: the first box holding it, else that of the nearest
    Natural Earth place (outside Europe, the boxes know no country)."""
    inside = (
        (_BOX_ARRAY[:, 0] <= lon)
        & (lon <= _BOX_ARRAY[:, 2])
        & (_BOX_ARRAY[:, 1] <= lat)
        & (lat <= _BOX_ARRAY[:, 3])
    )
    if inside.any():
        return COUNTRIES[str(_BOX_CODES[int(np.argmax(inside))])]
    place, _ = nearest_place(lon, lat)
    return country_named(place.iso3, place.iso2, place.country)


def boxes_of(iso3: str) -> list[tuple[float, float, float, float]]:
    return [b[1:] for b in _BOXES if b[0] == iso3]


def fold(text: str) -> str:
    """Lowercase without accents, so "Kraków" finds Krakow."""
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(c for c in decomposed if not unicodedata.combining(c)).casefold()


def offset(lon: float, lat: float, east_m: float, north_m: float) -> tuple[float, float]:
    """The position `east_m`, `north_m` metres away (flat-earth; fine below ~100 km)."""
    dlat = north_m / M_PER_DEG
    dlon = east_m / (M_PER_DEG * max(math.cos(math.radians(lat)), 0.01))
    new_lat = min(max(lat + dlat, -89.9), 89.9)
    return float(((lon + dlon + 180.0) % 360.0) - 180.0), float(new_lat)


def iso3_of(code: str) -> str | None:
    code = code.upper()
    if code in COUNTRIES:
        return code
    return next((c.iso3 for c in COUNTRIES.values() if c.iso2 == code), None)


def street_name(country: Country, rng: np.random.Generator) -> str:
    return country.street.format(NAME_ROOTS[int(rng.integers(len(NAME_ROOTS)))])


def postal_code(country: Country, rng: np.random.Generator) -> str:
    digits = int(rng.integers(10_000, 99_999))
    if country.iso3 == "NLD":
        letters = "ABCDEFGHJKLMNPRSTVWXZ"
        return f"{digits // 10} {letters[digits % 21]}{letters[digits % 17]}"
    if country.iso3 == "PRT":
        return f"{digits // 10:04d}-{digits % 1000:03d}"
    if country.iso3 == "POL":
        return f"{digits // 1000:02d}-{digits % 1000:03d}"
    return f"{digits}"
