"""Matrix Routing v2 answers: synchronous, and asynchronous jobs that finish a moment later.

`POST /routing/matrix/2` answers `{"data": [cells], "statistics": {...}}` as TomTom does;
`POST /routing/matrix/2/async` answers 202 `{"jobId", "state": "Submitted"}`; `GET
.../async/{jobId}` gives the job's state (`InProgress`, then `Completed` after
`JOB_SECONDS`); `GET .../async/{jobId}/result` is 404 until then, and after it a 302 to
where the result is, as TomTom answers every download since October 2023. Times come
from the crow-fly distance, a detour factor and a speed by travel mode, so a matrix
agrees with itself; a pair beyond the offline routes' reach has no route
(`NO_ROUTE_FOUND`), and a synchronous matrix of more than 100 cells whose points span
more than 400 km answers its far cells `OUT_OF_REGION`, as TomTom does.
"""

from __future__ import annotations

import hashlib
import time
from collections import OrderedDict
from typing import Any

import orjson

from tomtom_mcp_apps.fitting.geo import haversine_m
from tomtom_mcp_apps.server.errors import OfflineBadRequest

SYNC_MAX_CELLS = 200
ASYNC_MAX_CELLS = 2500
FREE_SYNC_CELLS = 100
"""Up to this many cells TomTom computes a synchronous matrix of any extent."""
REGION_KM = 400.0
JOB_SECONDS = 0.3
"""How long an offline asynchronous job takes."""
JOBS_KEPT = 256
_MAX_CROW_KM = 20_000
_DETOUR = 1.3
_SPEED_KMH = {"car": 60.0, "truck": 50.0, "pedestrian": 5.0}
TRAVEL_MODES = tuple(_SPEED_KMH)
ROUTE_TYPES = ("fastest", "shortest")


def _points(body: dict[str, Any], name: str) -> list[tuple[float, float]]:
    items = body.get(name)
    if not isinstance(items, list) or not items:
        raise OfflineBadRequest(f"'{name}' must be a non-empty list.", target=name)
    points: list[tuple[float, float]] = []
    for index, item in enumerate(items):
        point = item.get("point") if isinstance(item, dict) else None
        lat = point.get("latitude") if isinstance(point, dict) else None
        lon = point.get("longitude") if isinstance(point, dict) else None
        if not (
            isinstance(lat, int | float)
            and isinstance(lon, int | float)
            and -90 <= lat <= 90
            and -180 <= lon <= 180
        ):
            raise OfflineBadRequest(
                f"'{name}[{index}].point' must have latitude in [-90, 90] and longitude in "
                "[-180, 180].",
                target=f"{name}[{index}]",
            )
        points.append((float(lon), float(lat)))
    return points


def _request(body: bytes, limit: int) -> tuple[list, list, dict[str, Any]]:  # type: ignore[type-arg]
    try:
        parsed = orjson.loads(body)
    except orjson.JSONDecodeError:
        raise OfflineBadRequest("The request body is not valid JSON.") from None
    if not isinstance(parsed, dict):
        raise OfflineBadRequest("The request body must be a JSON object.")
    origins = _points(parsed, "origins")
    destinations = _points(parsed, "destinations")
    if len(origins) * len(destinations) > limit:
        raise OfflineBadRequest(
            f"The matrix has {len(origins) * len(destinations)} cells; at most {limit} are "
            "allowed.",
            code="MATRIX_TOO_LARGE",
        )
    options = parsed.get("options") or {}
    if not isinstance(options, dict):
        raise OfflineBadRequest("'options' must be an object.", target="options")
    mode = options.get("travelMode", "car")
    if mode not in TRAVEL_MODES:
        raise OfflineBadRequest(f"travelMode must be one of {', '.join(TRAVEL_MODES)}.")
    if options.get("routeType", "fastest") not in ROUTE_TYPES:
        raise OfflineBadRequest(f"routeType must be one of {', '.join(ROUTE_TYPES)}.")
    return origins, destinations, options


def sync_matrix(body: bytes) -> dict[str, Any]:
    """The synchronous answer to `body`."""
    origins, destinations, options = _request(body, SYNC_MAX_CELLS)
    regional = len(origins) * len(destinations) > FREE_SYNC_CELLS
    return _answer(origins, destinations, options, regional)


def _answer(
    origins: list[tuple[float, float]],
    destinations: list[tuple[float, float]],
    options: dict[str, Any],
    regional: bool,
) -> dict[str, Any]:
    mode = options.get("travelMode", "car")
    speed = _SPEED_KMH[mode]
    top = options.get("vehicleMaxSpeed")
    if isinstance(top, int | float) and top > 0:
        speed = min(speed, float(top))
    box = _box(origins + destinations) if regional else None
    cells: list[dict[str, Any]] = []
    failures: dict[str, int] = {}
    for i, (olon, olat) in enumerate(origins):
        for j, (dlon, dlat) in enumerate(destinations):
            cell: dict[str, Any] = {"originIndex": i, "destinationIndex": j}
            crow_m = float(haversine_m(olon, olat, dlon, dlat))
            if box is not None and not _within(box, (olon, olat), (dlon, dlat)):
                cell["detailedError"] = {
                    "code": "OUT_OF_REGION",
                    "message": "Origin and destination must fit a 400 km x 400 km box.",
                }
            elif crow_m > _MAX_CROW_KM * 1000:
                cell["detailedError"] = {
                    "code": "CELL_PROCESSING_ERROR",
                    "message": "Cell could not be processed",
                    "innerError": {
                        "code": "NO_ROUTE_FOUND",
                        "message": "Engine error while executing route request: NO_ROUTE_FOUND",
                    },
                }
            else:
                metres = round(crow_m * _DETOUR)
                seconds = round(metres / (speed / 3.6) + (60 if metres else 0))
                cell["routeSummary"] = {
                    "lengthInMeters": metres,
                    "travelTimeInSeconds": seconds,
                    "trafficDelayInSeconds": 0,
                    "trafficLengthInMeters": 0,
                }
            if "detailedError" in cell:
                code = cell["detailedError"].get("innerError", cell["detailedError"])["code"]
                failures[code] = failures.get(code, 0) + 1
            cells.append(cell)
    total = len(cells)
    statistics: dict[str, Any] = {
        "totalCount": total,
        "successes": total - sum(failures.values()),
        "failures": sum(failures.values()),
    }
    if failures:
        statistics["failureDetails"] = [{"code": c, "count": n} for c, n in failures.items()]
    return {"data": cells, "statistics": statistics}


def _box(points: list[tuple[float, float]]) -> tuple[float, float]:
    """The centre the 400 km box is laid around: the points' median, so outliers fail."""
    lons = sorted(p[0] for p in points)
    lats = sorted(p[1] for p in points)
    return lons[len(lons) // 2], lats[len(lats) // 2]


def _within(centre: tuple[float, float], *points: tuple[float, float]) -> bool:
    half = REGION_KM * 1000 / 2
    for lon, lat in points:
        east = float(haversine_m(centre[0], lat, lon, lat))
        north = float(haversine_m(lon, centre[1], lon, lat))
        if east > half or north > half:
            return False
    return True


class MatrixJobs:
    """Asynchronous matrix jobs of one offline upstream: kept in memory, the oldest
    forgotten past `JOBS_KEPT` (their ids then answer 404, as an expired TomTom job)."""

    def __init__(self) -> None:
        self._jobs: OrderedDict[str, tuple[bytes, float]] = OrderedDict()

    def submit(self, body: bytes) -> dict[str, Any]:
        """Checks `body` as TomTom does, then `{"jobId", "state": "Submitted"}`."""
        _request(body, ASYNC_MAX_CELLS)
        digest = hashlib.blake2b(body + str(time.monotonic_ns()).encode(), digest_size=16)
        hexed = digest.hexdigest()
        job_id = f"{hexed[:2]}-{hexed[2:10]}-{hexed[10:14]}-{hexed[14:18]}-{hexed[18:30]}-0000"
        self._jobs[job_id] = (body, time.monotonic())
        while len(self._jobs) > JOBS_KEPT:
            self._jobs.popitem(last=False)
        return {"jobId": job_id, "state": "Submitted"}

    def state(self, job_id: str) -> str | None:
        job = self._jobs.get(job_id)
        if job is None:
            return None
        return "Completed" if time.monotonic() - job[1] >= JOB_SECONDS else "InProgress"

    def status(self, job_id: str) -> dict[str, Any] | None:
        state = self.state(job_id)
        return None if state is None else {"jobId": job_id, "state": state}

    def result(self, job_id: str) -> dict[str, Any] | None:
        """The finished job's matrix, or None (unknown, or not `Completed`: a 404)."""
        if self.state(job_id) != "Completed":
            return None
        origins, destinations, options = _request(self._jobs[job_id][0], ASYNC_MAX_CELLS)
        return _answer(origins, destinations, options, regional=False)


def speed_kmh(mode: str) -> float:
    """The offline matrix's speed for `mode` (tests compare a matrix with it)."""
    return _SPEED_KMH[mode]
