"""The `image` option of routing and dynamic-map: what the job needs to render a PNG.

On the event loop only TomTom's static map is fetched; offline, or when TomTom refuses it,
the image is drawn on the offline basemap and its text says why.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Sequence
from typing import Annotated

from pydantic import Field

from tomtom_mcp_apps.server.errors import TomTomError
from tomtom_mcp_apps.server.jobs import ImageRequest, basemap_frame
from tomtom_mcp_apps.server.tools._caller import Caller

log = logging.getLogger(__name__)

WIDTH, HEIGHT = 800, 500
BASEMAP_SCALE = 1.5
"""The static map is fetched this much larger than the image: the image's frame is a
crop of it, and a crop enlarged from fewer pixels would blur."""

ImageFlag = Annotated[
    bool,
    Field(
        description=(
            "Also return a PNG image of the map (800x500) for clients that show images but "
            "no interactive views (text-only chat, coding agents). Default false."
        )
    ),
]


async def image_request(caller: Caller, positions: Iterable[Sequence[float]]) -> ImageRequest:
    """The render request for a map around `positions` (the inputs: stops, markers, area
    vertices), with TomTom's static map when the caller has a key (it is answered by
    TomTom; the key stays in the request and never reaches the image or its text)."""
    if caller.offline:
        return ImageRequest(WIDTH, HEIGHT, basemap_note="offline basemap (offline mode)")
    frame = basemap_frame(positions, WIDTH, HEIGHT)
    size = (round(WIDTH * BASEMAP_SCALE), round(HEIGHT * BASEMAP_SCALE))
    try:
        png = await caller.tomtom.static_image(frame, *size, key=caller.key)
    except TomTomError as exc:
        log.warning("static map refused; drawing on the offline basemap: %s", exc)
        reason = str(exc).split(".")[0]
        return ImageRequest(WIDTH, HEIGHT, basemap_note=f"offline basemap ({reason})")
    return ImageRequest(WIDTH, HEIGHT, basemap=png, basemap_frame=frame)
