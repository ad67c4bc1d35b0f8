"""A coarse map of Europe: countries as boxes, a small gazetteer, stable seeds and names.

Coarse on purpose: the emulation needs plausible, deterministic answers (a
Lisbon to Warsaw route crosses PRT, ESP, FRA, DEU, POL), not borders.
"""

from __future__ import annotations

import hashlib
import math
import unicodedata
from dataclasses import dataclass

import numpy as np

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


@dataclass(frozen=True)
class City:
    name: str
    iso3: str
    lon: float
    lat: float


CITIES: tuple[City, ...] = (
    City("Amsterdam", "NLD", 4.9041, 52.3676),
    City("Rotterdam", "NLD", 4.4777, 51.9244),
    City("Brussels", "BEL", 4.3517, 50.8503),
    City("Luxembourg", "LUX", 6.1296, 49.6116),
    City("Paris", "FRA", 2.3522, 48.8566),
    City("Lyon", "FRA", 4.8357, 45.7640),
    City("Marseille", "FRA", 5.3698, 43.2965),
    City("Berlin", "DEU", 13.4050, 52.5200),
    City("Hamburg", "DEU", 9.9937, 53.5511),
    City("Munich", "DEU", 11.5820, 48.1351),
    City("Frankfurt", "DEU", 8.6821, 50.1109),
    City("Cologne", "DEU", 6.9603, 50.9375),
    City("Vienna", "AUT", 16.3738, 48.2082),
    City("Zurich", "CHE", 8.5417, 47.3769),
    City("Geneva", "CHE", 6.1432, 46.2044),
    City("Milan", "ITA", 9.1900, 45.4642),
    City("Rome", "ITA", 12.4964, 41.9028),
    City("Madrid", "ESP", -3.7038, 40.4168),
    City("Barcelona", "ESP", 2.1734, 41.3851),
    City("Seville", "ESP", -5.9845, 37.3891),
    City("Lisbon", "PRT", -9.1393, 38.7223),
    City("Porto", "PRT", -8.6291, 41.1579),
    City("Warsaw", "POL", 21.0122, 52.2297),
    City("Krakow", "POL", 19.9450, 50.0647),
    City("Prague", "CZE", 14.4378, 50.0755),
    City("Budapest", "HUN", 19.0402, 47.4979),
    City("Bratislava", "SVK", 17.1077, 48.1486),
    City("Ljubljana", "SVN", 14.5058, 46.0569),
    City("Zagreb", "HRV", 15.9819, 45.8150),
    City("Copenhagen", "DNK", 12.5683, 55.6761),
    City("Stockholm", "SWE", 18.0686, 59.3293),
    City("Oslo", "NOR", 10.7522, 59.9139),
    City("London", "GBR", -0.1276, 51.5072),
    City("Dublin", "IRL", -6.2603, 53.3498),
    City("Athens", "GRC", 23.7275, 37.9838),
)
_CITY_LON = np.array([c.lon for c in CITIES])
_CITY_LAT = np.array([c.lat for c in CITIES])

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
    return COUNTRIES[str(countries_of(np.array([lon]), np.array([lat]))[0])]


def boxes_of(iso3: str) -> list[tuple[float, float, float, float]]:
    return [b[1:] for b in _BOXES if b[0] == iso3]


def fold(text: str) -> str:
    """Lowercase without accents, so "Kraków" finds Krakow."""
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(c for c in decomposed if not unicodedata.combining(c)).casefold()


def city_named_in(query: str) -> City | None:
    """The gazetteer city whose name appears as a word in `query`, longest name first."""
    words = fold(query).replace(",", " ").split()
    for city in sorted(CITIES, key=lambda c: -len(c.name)):
        if fold(city.name) in words:
            return city
    return None


def nearest_city(lon: float, lat: float) -> tuple[City, float]:
    d = haversine_m(lon, lat, _CITY_LON, _CITY_LAT)
    i = int(np.argmin(d))
    return CITIES[i], float(d[i])


def offset(lon: float, lat: float, east_m: float, north_m: float) -> tuple[float, float]:
    """The position `east_m`, `north_m` metres away (flat-earth; fine below ~100 km)."""
    dlat = north_m / M_PER_DEG
    dlon = east_m / (M_PER_DEG * max(math.cos(math.radians(lat)), 0.01))
    new_lat = min(max(lat + dlat, -89.9), 89.9)
    return float(((lon + dlon + 180.0) % 360.0) - 180.0), float(new_lat)


def position_for(text: str, countries: list[str] | None = None) -> tuple[float, float]:
    """A stable position for a place name the gazetteer does not know: inside the first
    requested country's box when a country set is given, else somewhere in Europe."""
    rng = rng_for("place", fold(text))
    box = None
    for code in countries or []:
        iso3 = iso3_of(code)
        if iso3 is not None:
            box = boxes_of(iso3)[0]
            break
    w, s, e, n = box or (-9.0, 36.5, 30.0, 60.0)
    return float(rng.uniform(w, e)), float(rng.uniform(s, n))


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
