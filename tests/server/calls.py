"""One call of every model tool with a view but traffic (its incidents need a bbox a test
chooses), with arguments the offline upstream answers: the end-to-end and hosting tests
both walk it, so a new tool is added here once."""

from __future__ import annotations

from typing import Any

from tests.server.harness import AMSTERDAM, BERLIN, UTRECHT

CALLS: list[tuple[str, dict[str, Any]]] = [
    ("tomtom-geocode", {"query": "Damrak 1, Amsterdam"}),
    ("tomtom-reverse-geocode", {"position": AMSTERDAM}),
    ("tomtom-fuzzy-search", {"query": "pizza", "position": AMSTERDAM}),
    ("tomtom-poi-search", {"query": "cafe", "position": AMSTERDAM, "radius": 2000}),
    ("tomtom-nearby", {"position": AMSTERDAM}),
    ("tomtom-search-along-route", {"locations": [AMSTERDAM, BERLIN], "query": "petrol"}),
    ("tomtom-routing", {"locations": [AMSTERDAM, UTRECHT, BERLIN]}),
    ("tomtom-reachable-range", {"origin": AMSTERDAM, "distanceBudgetInMeters": 20_000}),
    (
        "tomtom-dynamic-map",
        {"markers": [{"position": AMSTERDAM}], "routes": [{"locations": [AMSTERDAM, UTRECHT]}]},
    ),
    ("tomtom-data-viz", {"geojson": {"type": "Point", "coordinates": AMSTERDAM}}),
    ("tomtom-ev-search", {"position": AMSTERDAM, "minPowerKW": 50}),
    (
        "tomtom-ev-routing",
        {"locations": [AMSTERDAM, BERLIN], "maxChargeInkWh": 60, "currentChargeInkWh": 40},
    ),
    ("tomtom-area-search", {"query": "hotel", "polygons": [{"center": AMSTERDAM, "radius": 2000}]}),
]
