"""Writes `cities.json`: the names and places of Natural Earth's 1:110m populated places.

Natural Earth (public domain) ships on no registry the build can reach except inside
geopandas 0.14.4 (PyPI), as the `naturalearth_cities` shapefile: 243 capitals and
world cities, least prominent first. This reads that file (ISO-8859-1 names, points)
and writes `[[lon, lat, name], ...]` most prominent first, the order the basemap's
labels yield to each other in. Run it again only to change the pin:

    python3 widgets/basemap/cities.py
"""

from __future__ import annotations

import io
import json
import struct
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

GEOPANDAS = "0.14.4"
SHAPEFILE = "geopandas/datasets/naturalearth_cities/naturalearth_cities"
OUT = Path(__file__).with_name("cities.json")
# Names ISO-8859-1 cannot spell, as Natural Earth spells them.
SPELLING = {"Chi?in?u": "Chișinău", "?saka": "Ōsaka", "Washington,  D.C.": "Washington, D.C."}


def _names(dbf: bytes) -> list[str]:
    count, header, record = struct.unpack("<IHH", dbf[4:12])
    rows = (dbf[header + i * record + 1 : header + (i + 1) * record] for i in range(count))
    return [SPELLING.get(name, name) for name in (r.decode("latin-1").strip() for r in rows)]


def _points(shp: bytes) -> list[tuple[float, float]]:
    points = []
    offset = 100
    while offset < len(shp):
        _number, words = struct.unpack(">II", shp[offset : offset + 8])
        shape, x, y = struct.unpack("<idd", shp[offset + 8 : offset + 28])
        if shape != 1:
            raise ValueError(f"record at byte {offset} is shape type {shape}, not a point")
        points.append((x, y))
        offset += 8 + 2 * words
    return points


def main() -> None:
    with tempfile.TemporaryDirectory() as folder:
        subprocess.run(
            [sys.executable, "-m", "pip", "download", "-q", "--no-deps", "-d", folder,
             f"geopandas=={GEOPANDAS}"],
            check=True,
        )  # fmt: skip
        wheel = next(Path(folder).glob("geopandas-*.whl"))
        with zipfile.ZipFile(io.BytesIO(wheel.read_bytes())) as archive:
            names = _names(archive.read(SHAPEFILE + ".dbf"))
            points = _points(archive.read(SHAPEFILE + ".shp"))
    if len(names) != len(points):
        raise ValueError(f"{len(names)} names for {len(points)} points")
    cities = [[round(x, 4), round(y, 4), name] for (x, y), name in zip(points, names, strict=True)]
    cities.reverse()
    OUT.write_text(json.dumps(cities, ensure_ascii=False, separators=(",", ":")) + "\n")
    print(f"wrote {len(cities)} cities from geopandas {GEOPANDAS} to {OUT}")


if __name__ == "__main__":
    main()
