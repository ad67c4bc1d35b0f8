"""Query-string and path parsing that refuses bad input the way TomTom does: 400, saying what."""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Sequence
from datetime import UTC, datetime

from tomtom_mcp_apps.server.errors import OfflineBadRequest

_LANGUAGE = re.compile(r"^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})*$")


class Query:
    """Typed access to a request's query parameters (repeated keys kept, `key` ignored),
    and `now`, the minute the request is answered in (departures, incident times)."""

    def __init__(self, items: Iterable[tuple[str, str]], now: datetime | None = None) -> None:
        self._items = [(k, v) for k, v in items if k != "key"]
        self.now = (now or datetime.now(UTC)).replace(second=0, microsecond=0)

    def canonical(self) -> tuple[tuple[str, str], ...]:
        """The parameters in a stable order: the part of a cache key the query contributes."""
        return tuple(sorted(self._items))

    def raw(self, name: str) -> str | None:
        for k, v in self._items:
            if k == name:
                return v
        return None

    def text(self, name: str, default: str | None = None) -> str | None:
        value = self.raw(name)
        return default if value is None or value == "" else value

    def number(
        self,
        name: str,
        *,
        low: float = -math.inf,
        high: float = math.inf,
        default: float | None = None,
        required: bool = False,
    ) -> float | None:
        value = self.raw(name)
        if value is None or value == "":
            if required:
                raise OfflineBadRequest(f"Missing required parameter '{name}'.", target=name)
            return default
        return parse_number(value, name, low, high)

    def integer(
        self,
        name: str,
        *,
        low: int,
        high: int,
        default: int | None = None,
        required: bool = False,
    ) -> int | None:
        value = self.raw(name)
        if value is None or value == "":
            if required:
                raise OfflineBadRequest(f"Missing required parameter '{name}'.", target=name)
            return default
        try:
            number = int(value)
        except ValueError:
            raise OfflineBadRequest(
                f"Invalid value for '{name}': {value!r} is not an integer.", target=name
            ) from None
        if not low <= number <= high:
            raise OfflineBadRequest(
                f"Invalid value for '{name}': {number} is outside [{low}, {high}].", target=name
            )
        return number

    def flag(self, name: str, default: bool) -> bool:
        value = self.raw(name)
        if value is None or value == "":
            return default
        if value.lower() in ("true", "false"):
            return value.lower() == "true"
        raise OfflineBadRequest(
            f"Invalid value for '{name}': {value!r}; use true or false.", target=name
        )

    def choice(self, name: str, allowed: Sequence[str], default: str) -> str:
        value = self.raw(name)
        if value is None or value == "":
            return default
        if value not in allowed:
            raise OfflineBadRequest(
                f"Invalid value for '{name}': {value!r}; allowed: {', '.join(allowed)}.",
                target=name,
            )
        return value

    def choices(self, name: str, allowed: Sequence[str]) -> list[str]:
        """A parameter that may repeat and may list values separated by commas."""
        values: list[str] = []
        for k, v in self._items:
            if k != name:
                continue
            for part in v.split(","):
                part = part.strip()
                if part not in allowed:
                    raise OfflineBadRequest(
                        f"Invalid value for '{name}': {part!r}; allowed: {', '.join(allowed)}.",
                        target=name,
                    )
                if part not in values:
                    values.append(part)
        return values

    def language(self) -> str:
        value = self.text("language", "en-GB") or "en-GB"
        if not _LANGUAGE.match(value):
            raise OfflineBadRequest(
                f"Invalid value for 'language': {value!r} is not a language tag such as en-GB.",
                target="language",
            )
        return value

    def integers(self, name: str) -> list[int]:
        """A comma-separated list of integer ids, such as `categorySet`."""
        value = self.text(name)
        if value is None:
            return []
        out: list[int] = []
        for part in value.split(","):
            try:
                out.append(int(part))
            except ValueError:
                raise OfflineBadRequest(
                    f"Invalid value for '{name}': {part!r} is not an integer id.", target=name
                ) from None
        return out

    def countries(self) -> list[str]:
        value = self.text("countrySet")
        if value is None:
            return []
        codes = [c.strip().upper() for c in value.split(",") if c.strip()]
        for code in codes:
            if not (len(code) in (2, 3) and code.isalpha()):
                raise OfflineBadRequest(
                    f"Invalid value for 'countrySet': {code!r} is not an ISO 3166 country code.",
                    target="countrySet",
                )
        return codes


def parse_number(text: str, name: str, low: float = -math.inf, high: float = math.inf) -> float:
    try:
        number = float(text)
    except ValueError:
        raise OfflineBadRequest(
            f"Invalid value for '{name}': {text!r} is not a number.", target=name
        ) from None
    if not math.isfinite(number):
        raise OfflineBadRequest(f"Invalid value for '{name}': {text!r} is not finite.", target=name)
    if not low <= number <= high:
        raise OfflineBadRequest(
            f"Invalid value for '{name}': {number:g} is outside [{low:g}, {high:g}].", target=name
        )
    return number


def parse_latlon(text: str, what: str = "position") -> tuple[float, float]:
    """`"lat,lon"` (TomTom's path order) -> `(lon, lat)` (GeoJSON order, used inside)."""
    parts = text.split(",")
    if len(parts) != 2:
        raise OfflineBadRequest(f"Invalid {what} {text!r}: expected 'latitude,longitude'.")
    lat = parse_number(parts[0].strip(), f"{what} latitude", -90.0, 90.0)
    lon = parse_number(parts[1].strip(), f"{what} longitude", -180.0, 180.0)
    return lon, lat


def parse_bbox(text: str | None) -> tuple[float, float, float, float]:
    """`"minLon,minLat,maxLon,maxLat"` -> a validated tuple in the same order."""
    if not text:
        raise OfflineBadRequest("Missing required parameter 'bbox' (minLon,minLat,maxLon,maxLat).")
    parts = text.split(",")
    if len(parts) != 4:
        raise OfflineBadRequest(f"Invalid bbox {text!r}: expected minLon,minLat,maxLon,maxLat.")
    w, e = (parse_number(parts[i], "bbox longitude", -180.0, 180.0) for i in (0, 2))
    s, n = (parse_number(parts[i], "bbox latitude", -90.0, 90.0) for i in (1, 3))
    if w >= e or s >= n:
        raise OfflineBadRequest(
            f"Invalid bbox {text!r}: minLon must be below maxLon and minLat below maxLat."
        )
    return w, s, e, n
