"""The POI Categories answer: a small tree in TomTom's shape (ids, names, children,
synonyms), holding every category the offline search answers with."""

from __future__ import annotations

from typing import Any

from tomtom_mcp_apps.server.offline._query import Query

# id, name, children, synonyms
_TREE: tuple[tuple[int, str, tuple[int, ...], tuple[str, ...]], ...] = (
    (7315, "Restaurant", (7315002, 7315015, 7315036, 7315042), ("Eatery", "Diner", "Food")),
    (7315002, "Chinese", (), ("Chinese Food",)),
    (7315015, "Fast Food", (), ("Burger", "Takeaway")),
    (7315036, "Pizza", (), ("Pizzeria",)),
    (7315042, "Vegetarian", (), ("Vegan",)),
    (9376, "Café/Pub", (9376002, 9376003), ("Coffee Shop",)),
    (9376002, "Café", (), ("Coffee", "Coffee Bar")),
    (9376003, "Pub", (), ("Bar", "Tavern")),
    (7314, "Hotel/Motel", (7314002, 7314003), ("Accommodation", "Lodging")),
    (7314002, "Hotel", (), ("Inn",)),
    (7314003, "Motel", (), ()),
    (7311, "Petrol Station", (), ("Gas Station", "Fuel", "Filling Station")),
    (7309, "Electric Vehicle Station", (), ("EV Charging", "Charging Point", "Charger")),
    (7369, "Open Parking Area", (), ("Parking", "Car Park")),
    (7313, "Parking Garage", (), ("Multi-storey Car Park",)),
    (7321, "Hospital/Polyclinic", (7321002,), ("Clinic", "Medical Center")),
    (7321002, "General Hospital", (), ()),
    (7326, "Pharmacy", (), ("Chemist", "Drugstore")),
    (7332, "Market", (7332005,), ()),
    (7332005, "Supermarket", (), ("Grocery Store",)),
    (7317, "Museum", (), ("Gallery", "Exhibition")),
    (7376, "Important Tourist Attraction", (), ("Sight", "Landmark")),
    (7383, "Airport", (), ("Airfield",)),
    (7380, "Railroad Station", (), ("Train Station", "Railway Station")),
    (7397, "Cash Dispenser", (), ("ATM", "Cash Machine")),
    (7328, "Bank", (), ()),
    (9362, "Park & Recreation Area", (), ("Park", "Playground")),
    (9379, "Nightlife", (), ("Club", "Disco")),
)


def poi_categories(q: Query) -> dict[str, Any]:
    """`/search/2/poiCategories.json`: the whole tree (TomTom filters nothing server-side)."""
    q.language()
    return {
        "poiCategories": [
            {"id": id_, "name": name, "childCategoryIds": list(children), "synonyms": list(syn)}
            for id_, name, children, syn in _TREE
        ]
    }
