"""The replayed mix of widget fetches, cycled in this order.

Sizes on the offline upstream (seeded road-like geometry): Amsterdam to
Rotterdam is short and goes inline as is; Lisbon to Warsaw is tens of
thousands of points and must be fitted (the tests check it is); the dynamic
map carries three long routes and is fitted; the large data-viz set is
`DATA_VIZ_LARGE_POINTS` points, fetched in get-app-data pages. EV search joins
one availability request per station; the EV route to Madrid carries its
charging stops; the truck route carries two alternatives.
"""

from __future__ import annotations

from loadtest.fetch import Scenario
from tomtom_mcp_apps.server.tool_names import (
    AREA_SEARCH,
    DATA_VIZ,
    DYNAMIC_MAP,
    EV_ROUTING,
    EV_SEARCH,
    FUZZY_SEARCH,
    GEOCODE,
    ROUTING,
    SEARCH_ALONG_ROUTE,
)

AMSTERDAM = [4.8952, 52.3702]
ROTTERDAM = [4.4777, 51.9244]
BERLIN = [13.4050, 52.5200]
LISBON = [-9.1393, 38.7223]
WARSAW = [21.0122, 52.2297]
MADRID = [-3.7038, 40.4168]
PARIS = [2.3522, 48.8566]
ROME = [12.4964, 41.9028]

LONG_ROUTE = [LISBON, WARSAW]
"""The benchmarks' "40,000-point route" (each benchmark prints its count on the offline
upstream)."""
LONG_ROUTE_CALL = (ROUTING, {"locations": LONG_ROUTE})
_THERE_AND_BACK = [[LISBON, WARSAW, LISBON, WARSAW], [WARSAW, LISBON, WARSAW]]
MILLION_POINT_MAP_CALL = (
    DYNAMIC_MAP,
    {"routes": [{"locations": _THERE_AND_BACK[i % 2]} for i in range(10)]},
)
"""Ten routes of 25 Lisbon-Warsaw legs in all: about 1,000,000 points on the offline
upstream."""
DATA_VIZ_SMALL_POINTS = 500
DATA_VIZ_LARGE_POINTS = 10_000


def replay_mix(geojson_base_url: str) -> list[Scenario]:
    """One of each fetch; data-viz reads from `geojson_base_url` (see `geojson_site`)."""

    def data_viz(points: int) -> dict[str, object]:
        return {
            "data_url": f"{geojson_base_url}/points/{points}.geojson",
            "layers": [
                {
                    "type": "circle",
                    "paint": {"circle-color": "#e33", "circle-radius": 4},
                    "label": "name",
                }
            ],
            "title": f"{points:,} sites",
        }

    return [
        Scenario("routing short", ROUTING, {"locations": [AMSTERDAM, ROTTERDAM]}),
        Scenario("routing long", ROUTING, {"locations": LONG_ROUTE}),
        Scenario("fuzzy search", FUZZY_SEARCH, {"query": "coffee", "position": AMSTERDAM}),
        Scenario(
            "search along route",
            SEARCH_ALONG_ROUTE,
            {"query": "fuel", "locations": [AMSTERDAM, BERLIN]},
        ),
        Scenario(
            "dynamic map",
            DYNAMIC_MAP,
            {
                "routes": [
                    {"locations": LONG_ROUTE},
                    {"locations": [AMSTERDAM, MADRID]},
                    {"locations": [PARIS, ROME]},
                ],
                "markers": [
                    {"position": p, "label": n}
                    for p, n in ((LISBON, "Lisbon"), (WARSAW, "Warsaw"), (ROME, "Rome"))
                ],
            },
        ),
        Scenario("data-viz small", DATA_VIZ, data_viz(DATA_VIZ_SMALL_POINTS), paged=True),
        Scenario("data-viz large", DATA_VIZ, data_viz(DATA_VIZ_LARGE_POINTS), paged=True),
        Scenario("geocode", GEOCODE, {"query": "Dam 1, Amsterdam"}),
        Scenario("ev search", EV_SEARCH, {"position": AMSTERDAM, "minPowerKW": 50}),
        Scenario(
            "ev routing long",
            EV_ROUTING,
            {"locations": [AMSTERDAM, MADRID], "maxChargeInkWh": 75, "currentChargePercent": 80},
        ),
        Scenario(
            "area search",
            AREA_SEARCH,
            {"query": "pharmacy", "polygons": [{"center": ROTTERDAM, "radius": 3000}]},
        ),
        Scenario(
            "routing truck alternatives",
            ROUTING,
            {
                "locations": [AMSTERDAM, BERLIN],
                "travelMode": "truck",
                "vehicleHeight": 4.0,
                "vehicleWeight": 40_000,
                "maxAlternatives": 2,
            },
        ),
    ]
