"""Search API answers (geocode, reverse geocode, fuzzy, POI, nearby, along route).

Places are found only by name, among Natural Earth's populated places (`_geo`): a query
that names none gets no results, the reason in the summary's `offlineNote`, never a
position made up (docs/upstream.md, Places). Streets, numbers and POIs are invented but
stable: every result derives from a seed of the request's meaningful parts, and every
distance is computed from the positions actually returned, so `dist` and `detourTime`
agree with the map.
"""

from __future__ import annotations

import base64
import functools
import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import orjson

from tomtom_mcp_apps.fitting.geo import haversine_m
from tomtom_mcp_apps.server.errors import OfflineBadRequest
from tomtom_mcp_apps.server.offline import _geo
from tomtom_mcp_apps.server.offline._query import Query, parse_latlon, parse_number

_MAX_LIMIT = 100


@dataclass(frozen=True)
class Category:
    id: int
    label: str
    noun: str
    words: tuple[str, ...]


CATEGORIES: tuple[Category, ...] = (
    Category(7315, "restaurant", "Restaurant", ("restaurant", "restaurants", "food", "dinner")),
    Category(9376002, "café", "Café", ("cafe", "café", "coffee", "cafes")),
    Category(7314, "hotel/motel", "Hotel", ("hotel", "hotels", "motel", "stay")),
    Category(7311, "petrol station", "Fuel", ("petrol", "gas", "fuel", "station")),
    Category(7309, "electric vehicle station", "Charging", ("charging", "charger", "ev")),
    Category(7369, "open parking area", "Parking", ("parking", "park+ride")),
    Category(7321, "hospital/polyclinic", "Hospital", ("hospital", "clinic")),
    Category(7326, "pharmacy", "Pharmacy", ("pharmacy", "chemist", "drugstore")),
    Category(7332005, "supermarket", "Market", ("supermarket", "grocery", "groceries")),
    Category(7317, "museum", "Museum", ("museum", "museums", "gallery")),
    Category(7383, "airport", "Airport", ("airport",)),
    Category(7380, "railroad station", "Railway Station", ("train", "railway")),
    Category(7397, "cash dispenser", "ATM", ("atm", "cash", "bank")),
    Category(9362, "park/recreation area", "Park", ("park", "playground")),
    Category(9379, "nightlife", "Bar", ("bar", "pub", "bars", "pubs")),
)
_ATTRACTION = Category(7376, "important tourist attraction", "Attraction", ())
_BY_ID = {c.id: c for c in (*CATEGORIES, _ATTRACTION)}


NOTE_FIELD = "offlineNote"
"""The summary field that says why an offline search found nothing (TomTom has none;
the search tools pass it on to the model)."""
KNOWN = (
    "the offline demo data knows places only by name, Natural Earth's populated places "
    "(cities and towns, and streets and POIs it makes up in them)"
)


def geocode(text: str, q: Query) -> dict[str, Any]:
    """A place name resolves to that Natural Earth place; an address in a known place to
    a street made up near it; anything else to no result and a note saying why. As TomTom
    answers, some queries are not clear: a name that places of like size share
    ("Springfield") has several candidates, and a street with no town, in a search limited
    to countries, is found with low confidence."""
    _require_query(text)
    limit = q.integer("limit", low=1, high=_MAX_LIMIT, default=10)
    bias = _bias(q)
    countries = q.countries()
    q.language()
    rng = _geo.rng_for("geocode", _geo.fold(text))
    named = _geo.place_named_in(text, countries, bias)
    if named is None:
        guessed = _street_without_town(text, countries, rng)
        if guessed is None:
            return _not_known(text, countries)
        results = [guessed]
    else:
        place, rest = named
        country = _geo.country_named(place.iso3, place.iso2, place.country)
        if not rest:
            results = [_geography(place.name, place.lon, place.lat, country, rng, place.region)]
            others = _namesakes(place, countries, rng) if bias is None else []
            if others:  # a name found in several places: none is sure
                results[0]["matchConfidence"] = {"score": 0.62}
                freeform = f"{place.name}, {place.region}, {country.name}"
                results[0]["address"]["freeformAddress"] = freeform
                results += others
        else:
            lon, lat = _geo.offset(place.lon, place.lat, *rng.uniform(-3000, 3000, size=2))
            results = [_street_result(rest, lon, lat, country, rng, place.name)]
    results = results[:limit]
    _add_dist(results, bias)
    return _search_answer(text, results, bias, "NON_NEAR")


def _namesakes(
    place: _geo.Place, countries: list[str], rng: np.random.Generator
) -> list[dict[str, Any]]:
    """Other places of the same name at least a quarter as populous, each about as likely
    as the first, whose confidence drops with theirs: an ambiguous query. "London" has
    none (London, Ontario is a twenty-fifth of it); "Springfield" has four."""
    key = " ".join(_geo.fold(w) for w in _geo.words_of(place.name))
    wanted = {c.upper() for c in countries}
    others = [
        p
        for p in _geo.gazetteer().by_name.get(key, ())
        if p is not place
        and p.population * 4 >= place.population
        and (not wanted or p.iso3 in wanted or p.iso2 in wanted)
    ]
    found = []
    for k, other in enumerate(others, start=2):
        country = _geo.country_named(other.iso3, other.iso2, other.country)
        result = _geography(other.name, other.lon, other.lat, country, rng, other.region)
        result["address"]["freeformAddress"] = f"{other.name}, {other.region}, {country.name}"
        result["score"] = round(max(10.0 - 0.4 * k, 6.0), 2)
        result["matchConfidence"] = {"score": round(max(0.6 - 0.04 * k, 0.3), 2)}
        found.append(result)
    return found


def _street_without_town(
    text: str, countries: list[str], rng: np.random.Generator
) -> dict[str, Any] | None:
    """A street and number with no town it knows, in a search limited to countries: put
    in the first country's most prominent place with low confidence, as TomTom answers
    such a guess; None where nothing says where to look."""
    if not any(ch.isdigit() for ch in text) or sum(ch.isalpha() for ch in text) < 2:
        return None
    wanted = {c.upper() for c in countries}
    place = next((p for p in _geo.gazetteer().places if p.iso3 in wanted or p.iso2 in wanted), None)
    if place is None:
        return None
    country = _geo.country_named(place.iso3, place.iso2, place.country)
    lon, lat = _geo.offset(place.lon, place.lat, *rng.uniform(-3000, 3000, size=2))
    result = _street_result(text.strip(), lon, lat, country, rng, place.name)
    result["score"] = 6.0
    result["matchConfidence"] = {"score": 0.6}
    return result


def _not_known(text: str, countries: list[str]) -> dict[str, Any]:
    """No results, as TomTom answers none, and the offline upstream's reason."""
    where = f" in {', '.join(countries)}" if countries else ""
    answer = _search_answer(text, [], None, "NON_NEAR")
    answer["summary"][NOTE_FIELD] = (
        f"{text.strip()!r} is not in the offline demo data{where}: {KNOWN}. "
        "Name a city or town, or set a TomTom API key for real results."
    )
    return answer


def reverse_geocode(position: str, q: Query) -> dict[str, Any]:
    lon, lat = parse_latlon(position)
    radius = q.integer("radius", low=0, high=100_000, default=10_000)
    q.language()
    rng = _geo.rng_for("reverse", round(lon, 5), round(lat, 5))
    snap = min(30.0, float(radius or 30))
    plon, plat = _geo.offset(lon, lat, *rng.uniform(-snap, snap, size=2))
    country = _geo.country_of(plon, plat)
    address = _address(plon, plat, country, rng)
    address["boundingBox"] = {
        "northEast": _latlon_text(*_geo.offset(plon, plat, 15, 15)),
        "southWest": _latlon_text(*_geo.offset(plon, plat, -15, -15)),
        "entity": "position",
    }
    return {
        "summary": {"queryTime": _query_time(rng), "numResults": 1},
        "addresses": [
            {"address": address, "position": _latlon_text(plon, plat), "matchType": "AddressPoint"}
        ],
    }


def fuzzy_search(text: str, q: Query) -> dict[str, Any]:
    """Free text: a bare place name answers with the place, anything else with POIs."""
    _require_query(text)
    named = _geo.place_named_in(text, q.countries(), _bias(q), _category_words())
    if named is not None and not named[1] and q.text("categorySet") is None:
        return geocode(text, q)
    return _poi_search(text, q, "search")


def poi_search(text: str, q: Query) -> dict[str, Any]:
    _require_query(text)
    return _poi_search(text, q, "poi")


def nearby_search(q: Query) -> dict[str, Any]:
    lat = q.number("lat", low=-90, high=90, required=True)
    lon = q.number("lon", low=-180, high=180, required=True)
    assert lat is not None and lon is not None
    radius = q.integer("radius", low=1, high=50_000, default=10_000)
    limit = q.integer("limit", low=1, high=_MAX_LIMIT, default=10)
    assert radius is not None and limit is not None
    category = _category(q, "")
    q.language()
    rng = _geo.rng_for("nearby", round(lon, 5), round(lat, 5), radius, category.id)
    results = _pois(rng, (lon, lat), radius, limit, category, None)
    _add_dist(results, (lon, lat))
    results.sort(key=lambda r: r["dist"])
    return _search_answer("", results, (lon, lat), "NEARBY")


def search_along_route(text: str, q: Query, body: bytes) -> dict[str, Any]:
    """POIs beside the posted route, each with the detour (time, distance) it costs."""
    _require_query(text)
    max_detour = q.integer("maxDetourTime", low=1, high=3600, required=True)
    limit = q.integer("limit", low=1, high=20, default=10)
    assert max_detour is not None and limit is not None
    q.language()
    route = _route_points(body)
    category = _category(q, text)
    brand = None if _matches_category(text) or q.text("categorySet") else text.strip()
    rng = _geo.rng_for("along", _geo.fold(text), max_detour, route.tobytes())
    seg = haversine_m(route[:-1, 0], route[:-1, 1], route[1:, 0], route[1:, 1])
    along = np.concatenate([[0.0], np.cumsum(seg)])
    detour_speed = 8.0  # m/s off the main road, there and back
    max_side = max(min(2_500.0, max_detour * detour_speed / 2.0 * 0.9), 10.0)
    results: list[dict[str, Any]] = []
    for k in range(limit):
        at = (k + rng.uniform(0.1, 0.9)) / limit * along[-1]
        i = int(np.clip(np.searchsorted(along, at) - 1, 0, len(route) - 2))
        frac = (at - along[i]) / seg[i] if seg[i] > 0 else 0.0
        blon, blat = route[i] + frac * (route[i + 1] - route[i])
        side = float(rng.uniform(10.0, max_side)) * (1 if rng.random() < 0.5 else -1)
        ahead = float(rng.uniform(-abs(side), abs(side)))
        plon, plat = _geo.offset(float(blon), float(blat), side, ahead)
        result = _poi(rng, plon, plat, category, brand, score=10.0 - k * 0.01)
        off = float(haversine_m(blon, blat, plon, plat))
        result["detourTime"] = min(max_detour, round(2 * off / detour_speed))
        result["detourDistance"] = round(2 * off)
        result["detourOffset"] = round(float(at))
        results.append(result)
    results.sort(key=lambda r: (r["detourTime"], r["id"]))
    return _search_answer(text, results, None, "NON_NEAR")


def _poi_search(text: str, q: Query, kind: str) -> dict[str, Any]:
    """POIs around the position given, else around the place the text names; with
    neither there is nowhere to search: no results, and the note."""
    limit = q.integer("limit", low=1, high=_MAX_LIMIT, default=10)
    assert limit is not None
    bias = _bias(q)
    radius = q.integer("radius", low=1, high=50_000, default=None)
    countries = q.countries()
    category = _category(q, text)
    q.language()
    named = _geo.place_named_in(text, countries, bias, _category_words())
    rest = named[1] if named else text.strip()
    brand = None if _matches_category(text) or q.text("categorySet") or not rest else rest
    if bias is not None:
        center = bias
    elif named is not None:
        center = (named[0].lon, named[0].lat)
    else:
        return _not_known(text, countries)
    rng = _geo.rng_for(
        kind, _geo.fold(text), round(center[0], 5), round(center[1], 5), radius, category.id
    )
    results = _pois(rng, center, float(radius or 5_000), limit, category, brand)
    results = [r for r in results if _in_countries(r, countries)]
    _add_dist(results, bias)
    if bias is not None:
        results.sort(key=lambda r: r["dist"])
    return _search_answer(text, results, bias, "NEARBY" if bias else "NON_NEAR")


@functools.cache
def _category_words() -> frozenset[str]:
    """Words that name a category ("cafe", "bar"), never a place in a search."""
    return frozenset(_geo.fold(word) for c in CATEGORIES for word in c.words)


def _pois(
    rng: np.random.Generator,
    center: tuple[float, float],
    radius_m: float,
    count: int,
    category: Category,
    brand: str | None,
) -> list[dict[str, Any]]:
    out = []
    for k in range(count):
        r = radius_m * math.sqrt(rng.uniform(0.0, 0.95))
        angle = rng.uniform(0.0, 2 * math.pi)
        lon, lat = _geo.offset(*center, r * math.cos(angle), r * math.sin(angle))
        out.append(_poi(rng, lon, lat, category, brand, score=10.0 - k * 0.05))
    return out


def _poi(
    rng: np.random.Generator,
    lon: float,
    lat: float,
    category: Category,
    brand: str | None,
    *,
    score: float,
) -> dict[str, Any]:
    country = _geo.country_of(lon, lat)
    root = _geo.NAME_ROOTS[int(rng.integers(len(_geo.NAME_ROOTS)))]
    name = brand.title() if brand else f"{root} {category.noun}"
    slug = "".join(ch for ch in _geo.fold(name) if ch.isalnum())
    poi = {
        "name": name,
        "phone": f"+{_phone_prefix(country)} {int(rng.integers(10, 99))} "
        f"{int(rng.integers(100, 999))} {int(rng.integers(1000, 9999))}",
        "url": f"www.{slug}.example.com",
        "categorySet": [{"id": category.id}],
        "categories": [category.label],
        "classifications": [
            {
                "code": _geo.fold(category.label).upper().replace(" ", "_").replace("/", "_"),
                "names": [{"nameLocale": "en-US", "name": category.label}],
            }
        ],
    }
    return {
        "type": "POI",
        "id": _id("poi", name, lon, lat),
        "score": round(score, 4),
        "info": f"search:offline:{_id('info', lon, lat)}",
        "poi": poi,
        "address": _address(lon, lat, country, rng),
        "position": {"lat": round(lat, 6), "lon": round(lon, 6)},
        "viewport": _viewport(lon, lat, 150.0),
        "entryPoints": [{"type": "main", "position": {"lat": round(lat, 6), "lon": round(lon, 6)}}],
    }


def _geography(
    name: str,
    lon: float,
    lat: float,
    country: _geo.Country,
    rng: np.random.Generator,
    region: str = "",
) -> dict[str, Any]:
    address = {
        "municipality": name,
        "countrySubdivision": region,
        "countryCode": country.iso2,
        "country": country.name,
        "countryCodeISO3": country.iso3,
        "freeformAddress": name,
    }
    if not region:
        del address["countrySubdivision"]
    return {
        "type": "Geography",
        "id": _id("geo", name, lon, lat),
        "score": 10.0,
        "entityType": "Municipality",
        "matchConfidence": {"score": 1.0},
        "address": address,
        "position": {"lat": round(lat, 6), "lon": round(lon, 6)},
        "viewport": _viewport(lon, lat, 12_000.0),
        "boundingBox": _viewport(lon, lat, 15_000.0),
        "dataSources": {"geometry": {"id": _id("geometry", name)}},
    }


def _street_result(
    rest: str,
    lon: float,
    lat: float,
    country: _geo.Country,
    rng: np.random.Generator,
    municipality: str,
) -> dict[str, Any]:
    words = [w for w in rest.replace(",", " ").split() if not any(ch.isdigit() for ch in w)]
    numbers = [w for w in rest.replace(",", " ").split() if any(ch.isdigit() for ch in w)]
    address = _address(lon, lat, country, rng, municipality=municipality)
    if words:
        address["streetName"] = " ".join(words).title()
    if numbers:
        address["streetNumber"] = numbers[0]
    else:
        address.pop("streetNumber", None)
    address["freeformAddress"] = _freeform(address)
    kind = "Point Address" if numbers else "Street"
    return {
        "type": kind,
        "id": _id("addr", rest, lon, lat),
        "score": 9.5,
        "matchConfidence": {"score": 0.95},
        "address": address,
        "position": {"lat": round(lat, 6), "lon": round(lon, 6)},
        "viewport": _viewport(lon, lat, 200.0),
    }


def _address(
    lon: float,
    lat: float,
    country: _geo.Country,
    rng: np.random.Generator,
    municipality: str | None = None,
) -> dict[str, Any]:
    if municipality is None:
        place, far = _geo.nearest_place(lon, lat)
        if far < 30_000 and place.iso3 == country.iso3:
            municipality = place.name
        else:
            root = _geo.NAME_ROOTS[int(rng.integers(len(_geo.NAME_ROOTS)))]
            municipality = (
                root + ("ton", "burg", "field", "dorf", "stad", "ville")[int(rng.integers(6))]
            )
    address = {
        "streetNumber": str(int(rng.integers(1, 250))),
        "streetName": _geo.street_name(country, rng),
        "municipality": municipality,
        "postalCode": _geo.postal_code(country, rng),
        "countryCode": country.iso2,
        "country": country.name,
        "countryCodeISO3": country.iso3,
        "localName": municipality,
    }
    address["freeformAddress"] = _freeform(address)
    return address


def _freeform(address: dict[str, Any]) -> str:
    street = " ".join(p for p in (address.get("streetName"), address.get("streetNumber")) if p)
    town = " ".join(p for p in (address.get("postalCode"), address.get("municipality")) if p)
    return ", ".join(p for p in (street, town) if p)


def _search_answer(
    text: str, results: list[dict[str, Any]], bias: tuple[float, float] | None, query_type: str
) -> dict[str, Any]:
    summary: dict[str, Any] = {
        "query": _geo.fold(text),
        "queryType": query_type,
        "queryTime": 3 + len(results),
        "numResults": len(results),
        "offset": 0,
        "totalResults": len(results),
        "fuzzyLevel": 1,
    }
    if bias is not None:
        summary["geoBias"] = {"lat": bias[1], "lon": bias[0]}
    return {"summary": summary, "results": results}


def _bias(q: Query) -> tuple[float, float] | None:
    lat = q.number("lat", low=-90, high=90)
    lon = q.number("lon", low=-180, high=180)
    if (lat is None) != (lon is None):
        missing = "lon" if lon is None else "lat"
        raise OfflineBadRequest(
            f"'lat' and 'lon' go together: '{missing}' is missing.", target=missing
        )
    return None if lat is None or lon is None else (lon, lat)


def _category(q: Query, text: str) -> Category:
    ids = q.integers("categorySet")
    if ids:
        known = _BY_ID.get(ids[0])
        return known or Category(ids[0], f"category {ids[0]}", "Place", ())
    return _matches_category(text) or _ATTRACTION


def _matches_category(text: str) -> Category | None:
    words = set(_geo.fold(text).split())
    return next((c for c in CATEGORIES if words & set(c.words)), None)


def _add_dist(results: list[dict[str, Any]], origin: tuple[float, float] | None) -> None:
    if origin is None:
        return
    for r in results:
        p = r["position"]
        r["dist"] = round(float(haversine_m(origin[0], origin[1], p["lon"], p["lat"])), 6)


def _in_countries(result: dict[str, Any], countries: list[str]) -> bool:
    if not countries:
        return True
    address = result["address"]
    return address["countryCode"] in countries or address["countryCodeISO3"] in countries


def _route_points(body: bytes) -> np.ndarray:
    try:
        doc = orjson.loads(body or b"null")
    except orjson.JSONDecodeError as exc:
        raise OfflineBadRequest(f"The request body is not valid JSON ({exc}).") from None
    points = doc.get("route", {}).get("points") if isinstance(doc, dict) else None
    if not isinstance(points, list) or len(points) < 2:
        raise OfflineBadRequest(
            'The body must be {"route": {"points": [{"lat": .., "lon": ..}, ...]}} '
            "with at least two points."
        )
    out = np.empty((len(points), 2), dtype=np.float64)
    for i, p in enumerate(points):
        if not isinstance(p, dict) or "lat" not in p or "lon" not in p:
            raise OfflineBadRequest(f"Route point {i} must be an object with 'lat' and 'lon'.")
        out[i, 0] = parse_number(str(p["lon"]), f"route point {i} lon", -180, 180)
        out[i, 1] = parse_number(str(p["lat"]), f"route point {i} lat", -90, 90)
    return out


def _require_query(text: str) -> None:
    if not text.strip():
        raise OfflineBadRequest(
            "The query is empty: put the text to search for in the path.", target="query"
        )


def _viewport(lon: float, lat: float, half_m: float) -> dict[str, Any]:
    w, s = _geo.offset(lon, lat, -half_m, -half_m)
    e, n = _geo.offset(lon, lat, half_m, half_m)
    return {
        "topLeftPoint": {"lat": round(n, 5), "lon": round(w, 5)},
        "btmRightPoint": {"lat": round(s, 5), "lon": round(e, 5)},
    }


def _latlon_text(lon: float, lat: float) -> str:
    return f"{lat:.6f},{lon:.6f}"


def _id(*parts: object) -> str:
    digest = _geo.seed_of(*parts).to_bytes(8, "little") + _geo.seed_of(parts).to_bytes(8, "little")
    return base64.urlsafe_b64encode(digest).decode().rstrip("=")


def _query_time(rng: np.random.Generator) -> int:
    return int(rng.integers(2, 20))


def _phone_prefix(country: _geo.Country) -> int:
    return {
        "NLD": 31, "BEL": 32, "FRA": 33, "ESP": 34, "PRT": 351, "LUX": 352, "IRL": 353,
        "ITA": 39, "CHE": 41, "AUT": 43, "GBR": 44, "DNK": 45, "SWE": 46, "NOR": 47,
        "POL": 48, "DEU": 49, "CZE": 420, "SVK": 421, "HUN": 36, "HRV": 385, "SVN": 386,
        "GRC": 30, "ROU": 40, "BGR": 359, "SRB": 381, "FIN": 358, "LTU": 370, "LVA": 371,
        "EST": 372, "UKR": 380, "BLR": 375,
    }.get(country.iso3, 800)  # fmt: skip


def geometry_search(text: str, q: Query, body: bytes) -> dict[str, Any]:
    """POIs inside the posted `geometryList` (TomTom's POLYGON `vertices` as "lat, lon"
    strings, CIRCLE `position` and `radius` in metres), each area sampled in turn."""
    _require_query(text)
    limit = q.integer("limit", low=1, high=_MAX_LIMIT, default=10)
    assert limit is not None
    category = _category(q, text)
    q.language()
    shapes = _geometry_list(body)
    brand = None if _matches_category(text) or q.text("categorySet") else text.strip()
    rng = _geo.rng_for("geometry", _geo.fold(text), category.id, body)
    results: list[dict[str, Any]] = []
    for attempt in range(limit * 40):
        if len(results) >= limit:
            break
        ring = shapes[attempt % len(shapes)]
        west, south = ring.min(axis=0)
        east, north = ring.max(axis=0)
        lon, lat = float(rng.uniform(west, east)), float(rng.uniform(south, north))
        if _inside(ring, lon, lat):
            results.append(_poi(rng, lon, lat, category, brand, score=10.0 - len(results) * 0.05))
    return _search_answer(text, results, None, "NON_NEAR")


_MAX_GEOMETRIES = 50
_MAX_VERTICES = 10_000


def _geometry_list(body: bytes) -> list[np.ndarray]:
    """Each posted geometry as a closed `[lon, lat]` ring (a circle as 64 vertices)."""
    try:
        doc = orjson.loads(body or b"null")
    except orjson.JSONDecodeError as exc:
        raise OfflineBadRequest(f"The request body is not valid JSON ({exc}).") from None
    geometries = doc.get("geometryList") if isinstance(doc, dict) else None
    if not isinstance(geometries, list) or not geometries:
        raise OfflineBadRequest(
            'The body must be {"geometryList": [...]} with at least one geometry.'
        )
    if len(geometries) > _MAX_GEOMETRIES:
        raise OfflineBadRequest(
            f"Too many geometries ({len(geometries)}); at most {_MAX_GEOMETRIES}."
        )
    rings = []
    for i, geometry in enumerate(geometries):
        kind = geometry.get("type") if isinstance(geometry, dict) else None
        if kind == "POLYGON":
            vertices = geometry.get("vertices")
            if not isinstance(vertices, list) or not 3 <= len(vertices) <= _MAX_VERTICES:
                raise OfflineBadRequest(
                    f"geometryList[{i}]: a POLYGON needs 3 to {_MAX_VERTICES} vertices."
                )
            ring = np.array([parse_latlon(str(v), f"geometryList[{i}] vertex") for v in vertices])
        elif kind == "CIRCLE":
            lon, lat = parse_latlon(str(geometry.get("position")), f"geometryList[{i}] position")
            radius = parse_number(str(geometry.get("radius")), f"geometryList[{i}] radius", 1, 1e6)
            angles = np.linspace(0, 2 * math.pi, 65)
            ring = np.array([_geo.offset(lon, lat, radius * math.cos(a), radius * math.sin(a))
                             for a in angles])  # fmt: skip
        else:
            raise OfflineBadRequest(f"geometryList[{i}].type must be POLYGON or CIRCLE.")
        rings.append(ring)
    return rings


def _inside(ring: np.ndarray, lon: float, lat: float) -> bool:
    """Even-odd rule: does a ray from the point cross the ring an odd number of times?"""
    x0, y0 = ring[:, 0], ring[:, 1]
    x1, y1 = np.roll(x0, -1), np.roll(y0, -1)
    crosses = (y0 > lat) != (y1 > lat)
    with np.errstate(divide="ignore", invalid="ignore"):
        at = x0 + (lat - y0) * (x1 - x0) / (y1 - y0)
    return bool(np.count_nonzero(crosses & (lon < at)) % 2)
