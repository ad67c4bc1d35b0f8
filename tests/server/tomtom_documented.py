"""Answers shaped as TomTom documents them, for parsing tests that do not go through the
offline upstream (which agrees with the client by construction).

Each constant names the page its shape comes from. The bodies follow the field
names, nesting and types of the documented examples and field tables; values are
abridged (a route of a few points, one or two results), and where a page lists
fields without printing a full example, the body is assembled from its table.
"""

from __future__ import annotations

from typing import Any

EV_SEARCH_SOURCE = "https://developer.tomtom.com/ev-search/documentation/api/ev-search-nearby"
EV_SEARCH: dict[str, Any] = {
    "summary": {
        "queryType": "NEARBY",
        "queryTime": 21,
        "numResults": 1,
        "offset": 0,
        "totalResults": 1,
        "fuzzyLevel": 1,
        "geoBias": {"lat": 52.37, "lon": 4.89},
    },
    "results": [
        {
            "type": "POI",
            "id": "528009004256119",
            "score": 0.9999,
            "dist": 140.6,
            "info": "search:ev:528009004256119",
            "poi": {
                "name": "Vattenfall InCharge Prinsengracht",
                "brands": [{"name": "Vattenfall InCharge"}],
                "categorySet": [{"id": 7309}],
                "categories": ["electric vehicle station"],
                "classifications": [
                    {
                        "code": "ELECTRIC_VEHICLE_STATION",
                        "names": [{"nameLocale": "en-US", "name": "electric vehicle station"}],
                    }
                ],
            },
            "address": {
                "streetName": "Prinsengracht",
                "streetNumber": "263",
                "municipality": "Amsterdam",
                "countryCode": "NL",
                "freeformAddress": "Prinsengracht 263, 1016 GV Amsterdam",
            },
            "position": {"lat": 52.37506, "lon": 4.88381},
            "chargingPark": {
                "chargingStations": [
                    {
                        "id": "NL*NUO*E12345",
                        "chargingPoints": [
                            {
                                "evseId": "NL*NUO*E12345*1",
                                "status": "Available",
                                "connectors": [
                                    {
                                        "id": "1",
                                        "type": "IEC62196Type2Outlet",
                                        "ratedPowerKW": 11.0,
                                        "voltageV": 400,
                                        "currentA": 16,
                                        "currentType": "AC3",
                                    }
                                ],
                            },
                            {
                                "evseId": "NL*NUO*E12345*2",
                                "status": "Occupied",
                                "connectors": [
                                    {
                                        "id": "1",
                                        "type": "IEC62196Type2Outlet",
                                        "ratedPowerKW": 11.0,
                                        "voltageV": 400,
                                        "currentA": 16,
                                        "currentType": "AC3",
                                    }
                                ],
                            },
                        ],
                    }
                ]
            },
        }
    ],
}

SEARCH_EV_POI_SOURCE = (
    "https://developer.tomtom.com/search-api/documentation/search-service/fuzzy-search "
    "(results[].chargingPark, results[].dataSources.chargingAvailability)"
)
SEARCH_EV_POI: dict[str, Any] = {
    "type": "POI",
    "id": "g6JpZK81MjgwMDkwMDQyNTYxMTmhY6NOTERhdqdVbmlmaWVk",
    "score": 2.57,
    "dist": 612.3,
    "poi": {
        "name": "Fastned Amsterdam",
        "brands": [{"name": "Fastned"}],
        "categorySet": [{"id": 7309}],
        "categories": ["electric vehicle station"],
    },
    "address": {"freeformAddress": "Amstelveenseweg 500, 1081 KL Amsterdam"},
    "position": {"lat": 52.33512, "lon": 4.85789},
    "chargingPark": {
        "connectors": [
            {
                "connectorType": "IEC62196Type2CCS",
                "ratedPowerKW": 300.0,
                "voltageV": 920,
                "currentA": 400,
                "currentType": "DC",
            },
            {
                "connectorType": "Chademo",
                "ratedPowerKW": 50.0,
                "voltageV": 500,
                "currentA": 125,
                "currentType": "DC",
            },
        ]
    },
    "dataSources": {"chargingAvailability": {"id": "00112233-4455-6677-8899-aabbccddeeff"}},
}

CHARGING_AVAILABILITY_SOURCE = (
    "https://developer.tomtom.com/search-api/documentation/ev-charging-stations-availability-"
    "api/ev-charging-stations-availability"
)
CHARGING_AVAILABILITY: dict[str, Any] = {
    "connectors": [
        {
            "type": "IEC62196Type2CCS",
            "total": 4,
            "availability": {
                "current": {
                    "available": 1,
                    "occupied": 2,
                    "reserved": 0,
                    "unknown": 0,
                    "outOfService": 1,
                },
                "perPowerLevel": [
                    {
                        "powerKW": 300.0,
                        "available": 1,
                        "occupied": 2,
                        "reserved": 0,
                        "unknown": 0,
                        "outOfService": 1,
                    }
                ],
            },
        },
        {
            "type": "Chademo",
            "total": 1,
            "availability": {
                "current": {
                    "available": 0,
                    "occupied": 1,
                    "reserved": 0,
                    "unknown": 0,
                    "outOfService": 0,
                }
            },
        },
    ],
    "chargingAvailability": "00112233-4455-6677-8899-aabbccddeeff",
}

LONG_DISTANCE_EV_ROUTE_SOURCE = (
    "https://developer.tomtom.com/routing-api/documentation/extended-routing/"
    "long-distance-ev-routing (response: legs[].summary.chargingInformationAtEndOfLeg)"
)


def _summary(length: int, seconds: int, used: float, left: float, **extra: Any) -> dict:
    return {
        "lengthInMeters": length,
        "travelTimeInSeconds": seconds,
        "trafficDelayInSeconds": 0,
        "trafficLengthInMeters": 0,
        "departureTime": "2024-01-10T10:00:00+01:00",
        "arrivalTime": "2024-01-10T12:30:00+01:00",
        "batteryConsumptionInkWh": used,
        "remainingChargeAtArrivalInkWh": left,
        **extra,
    }


LONG_DISTANCE_EV_ROUTE: dict[str, Any] = {
    "formatVersion": "0.0.12",
    "routes": [
        {
            "summary": _summary(412_000, 16_200, 71.9, 18.1, totalChargingTimeInSeconds=2_040),
            "legs": [
                {
                    "summary": _summary(
                        231_000,
                        8_300,
                        40.2,
                        9.8,
                        chargingInformationAtEndOfLeg={
                            "targetChargeInkWh": 40.0,
                            "chargingTimeInSeconds": 2_040,
                            "chargingParkUuid": "9d6be4c6-3d8d-11e9-9c0e-4b6b9d4c6e82",
                            "chargingParkExternalId": "1ec5b44f-f6b1-4c1d-a0f1-2d4b0c0e1f00",
                            "chargingParkName": "IONITY Hamburg-Stellingen",
                            "chargingParkOperatorName": "IONITY",
                            "chargingParkLocation": {
                                "coordinate": {"latitude": 53.0, "longitude": 9.9},
                                "street": "Kieler Str.",
                                "houseNumber": "1",
                                "city": "Hamburg",
                                "postalCode": "22525",
                                "countryCode": "DE",
                            },
                            "chargingParkPowerInkW": 350.0,
                            "chargingConnectionInfo": {
                                "chargingVoltageInV": 920,
                                "chargingCurrentInA": 380,
                                "chargingCurrentType": "Direct_Current",
                                "chargingPowerInkW": 350.0,
                                "chargingPlugType": "Combo_to_IEC_62196_Type_2_Base",
                            },
                            "chargingStopType": "Auto_Generated",
                        },
                    ),
                    "points": [
                        {"latitude": 52.52, "longitude": 13.405},
                        {"latitude": 52.9, "longitude": 11.5},
                        {"latitude": 53.0, "longitude": 9.9},
                    ],
                },
                {
                    "summary": _summary(181_000, 5_860, 31.7, 18.1),
                    "points": [
                        {"latitude": 53.0, "longitude": 9.9},
                        {"latitude": 53.3, "longitude": 9.0},
                        {"latitude": 53.55, "longitude": 8.58},
                    ],
                },
            ],
            "sections": [
                {
                    "startPointIndex": 0,
                    "endPointIndex": 5,
                    "sectionType": "TRAVEL_MODE",
                    "travelMode": "car",
                }
            ],
        }
    ],
}

BEST_ORDER_SOURCE = (
    "https://developer.tomtom.com/routing-api/documentation/routing/calculate-route "
    "(computeBestOrder: optimizedWaypoints)"
)
OPTIMIZED_WAYPOINTS: list[dict[str, int]] = [
    {"providedIndex": 0, "optimizedIndex": 1},
    {"providedIndex": 1, "optimizedIndex": 2},
    {"providedIndex": 2, "optimizedIndex": 0},
]
"""Three stops between origin and destination, visited as the third, first, second."""

GEOMETRY_SEARCH_SOURCE = (
    "https://developer.tomtom.com/search-api/documentation/search-service/geometry-search"
)
GEOMETRY_SEARCH: dict[str, Any] = {
    "summary": {
        "query": "pizza",
        "queryType": "NON_NEAR",
        "queryTime": 8,
        "numResults": 1,
        "offset": 0,
        "totalResults": 1,
        "fuzzyLevel": 1,
    },
    "results": [
        {
            "type": "POI",
            "id": "US/POI/p0/8765432",
            "score": 5.97,
            "info": "search:ta:840061003439398-US",
            "poi": {
                "name": "Pizzeria Delfina",
                "phone": "+(1)-(415)-4376800",
                "categorySet": [{"id": 7315036}],
                "categories": ["pizza", "restaurant"],
            },
            "address": {"freeformAddress": "3611 18th St, San Francisco, CA 94110"},
            "position": {"lat": 37.76155, "lon": -122.42462},
        }
    ],
}

POI_CATEGORIES_SOURCE = (
    "https://developer.tomtom.com/search-api/documentation/poi-categories-service/poi-categories"
)
POI_CATEGORIES: dict[str, Any] = {
    "poiCategories": [
        {
            "id": 7320,
            "name": "Sports Center",
            "childCategoryIds": [7320002, 7320003, 7320005],
            "synonyms": ["Fitness Club", "Gym", "Sports Hall"],
        },
        {"id": 7320002, "name": "Fitness Club & Center", "childCategoryIds": [], "synonyms": []},
        {
            "id": 7309,
            "name": "Electric Vehicle Station",
            "childCategoryIds": [],
            "synonyms": ["Charging Point", "EV Charging Station"],
        },
    ]
}
