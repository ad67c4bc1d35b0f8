"""TomTom's API families: which rate limit a request counts against, decided by its path.

TomTom limits queries per second per key and per API (its "default QPS" table:
https://developer.tomtom.com/platform/documentation/default-qps). A path no rule names
falls under `OTHER`, paced at TomTom's most common default.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Family:
    name: str
    """Label in metrics and `TOMTOM_QPS`."""
    qps: float
    """TomTom's documented default queries per second for one key."""


SEARCH = Family("search", 5)
GEOCODING = Family("geocoding", 5)
REVERSE_GEOCODING = Family("reverse_geocoding", 5)
EV_SEARCH = Family("ev_search", 25)
EV_AVAILABILITY = Family("ev_availability", 50)
ROUTING = Family("routing", 5)
MATRIX_ROUTING = Family("matrix_routing", 10)
EV_ROUTING = Family("ev_routing", 10)
TRAFFIC = Family("traffic", 10)
MAP_DISPLAY = Family("map_display", 10)
TILES = Family("tiles", 1000)
SNAP_TO_ROADS = Family("snap_to_roads", 5)
OTHER = Family("other", 5)

FAMILIES = (
    SEARCH,
    GEOCODING,
    REVERSE_GEOCODING,
    EV_SEARCH,
    EV_AVAILABILITY,
    ROUTING,
    MATRIX_ROUTING,
    EV_ROUTING,
    TRAFFIC,
    MAP_DISPLAY,
    TILES,
    SNAP_TO_ROADS,
    OTHER,
)

_RULES: tuple[tuple[str, Family], ...] = (
    # Most specific first: the first prefix that matches wins.
    ("/search/2/geocode/", GEOCODING),
    ("/search/2/reverseGeocode/", REVERSE_GEOCODING),
    ("/search/2/evsearch", EV_SEARCH),
    ("/search/2/chargingAvailability", EV_AVAILABILITY),
    ("/evcharging/", EV_AVAILABILITY),
    ("/search/", SEARCH),
    ("/routing/1/calculateLongDistanceEVRoute/", EV_ROUTING),
    ("/routing/matrix/", MATRIX_ROUTING),
    ("/routing/", ROUTING),
    ("/traffic/map/", TILES),
    ("/traffic/", TRAFFIC),
    ("/map/1/tile/", TILES),
    ("/map/", MAP_DISPLAY),
    ("/snapToRoads/", SNAP_TO_ROADS),
)


def family_of(path: str) -> Family:
    """The API family a request to `path` (from the base URL on) counts against."""
    for prefix, family in _RULES:
        if path.startswith(prefix):
            return family
    return OTHER
