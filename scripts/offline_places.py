"""Writes `server/offline/places.json`: the places the offline upstream knows by name.

They are Natural Earth's 1:10m populated places (public domain: naturalearthdata.com
asks no permission and no credit), the larger-scale set of the same source as the views'
243 cities (`widgets/basemap/cities.py`, 1:110m). No registry the project reaches ships
them, so the file is kept in the repository and this script says how it was made: it
reads `ne_10m_populated_places.json`, the GeoJSON of the November 2017 release (7,343
places; as converted by the natural-earth-geojson project, itself CC0), and writes, most
prominent first (Natural Earth's scale rank, then population):

    {"source": ..., "countries": {ISO3: [ISO2, name]},
     "places": [[name, lon, lat, ISO3, admin-1 name, population, [other names]]]}

Other names are the English, German, French, Spanish and Portuguese names and the
alternates that fold (accents, case) to something else than the name: "Copenhagen"
finds København. Run it again only to change the source:

    python3 scripts/offline_places.py path/to/ne_10m_populated_places.json
"""

from __future__ import annotations

import json
import sys
import unicodedata
from pathlib import Path

OUT = Path(__file__).resolve().parent.parent / "server" / "offline" / "places.json"
SOURCE = (
    "Natural Earth 1:10m populated places, November 2017 release (public domain), "
    "written by scripts/offline_places.py"
)
OTHER_NAMES = ("NAME_EN", "NAMEASCII", "NAME_DE", "NAME_FR", "NAME_ES", "NAME_PT")


def fold(text: str) -> str:
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(c for c in decomposed if not unicodedata.combining(c)).casefold()


def latin(text: str) -> bool:
    return all(ord(c) < 0x250 or unicodedata.combining(c) for c in text)


def other_names(props: dict[str, object]) -> list[str]:
    name = str(props["NAME"])
    seen = {fold(name)}
    found = []
    alternates = str(props.get("NAMEALT") or "").split("|")
    for value in [*(props.get(key) for key in OTHER_NAMES), *alternates]:
        text = str(value or "").strip()
        if text and latin(text) and fold(text) not in seen:
            seen.add(fold(text))
            found.append(text)
    return found


def main(path: Path) -> None:
    features = json.loads(path.read_text(encoding="utf-8"))["features"]
    countries: dict[str, list[str]] = {}
    rows = []
    for feature in features:
        props = feature["properties"]
        lon, lat = feature["geometry"]["coordinates"]
        iso3 = str(props["ADM0_A3"])
        iso2 = str(props["ISO_A2"] or "")
        countries.setdefault(iso3, [iso2 if len(iso2) == 2 else "", str(props["ADM0NAME"])])
        population = int(props["POP_MAX"] or 0)
        row = [
            str(props["NAME"]),
            round(lon, 4),
            round(lat, 4),
            iso3,
            str(props["ADM1NAME"] or ""),
            population,
            other_names(props),
        ]
        rows.append((int(props["SCALERANK"]), -population, row))
    rows.sort(key=lambda r: (r[0], r[1], r[2][0]))
    data = {
        "source": SOURCE,
        "countries": dict(sorted(countries.items())),
        "places": [row for _, _, row in rows],
    }
    OUT.write_text(json.dumps(data, ensure_ascii=False, separators=(",", ":")) + "\n")
    print(f"wrote {len(rows)} places in {len(countries)} countries to {OUT}")


if __name__ == "__main__":
    main(Path(sys.argv[1]))
