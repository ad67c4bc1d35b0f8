"""The tool result, built without I/O: text for the model, app data in `_meta`.

`prepare` is pure and picklable, so it runs where the data is (on the loop, or in a
fitting worker for long routes) and only a finished `Prepared` crosses back.
"""

from __future__ import annotations

import base64
import time
import uuid
from dataclasses import dataclass, replace
from typing import Any

import orjson
from mcp_types import CallToolResult, ImageContent, TextContent

from tomtom_mcp_apps import fitting
from tomtom_mcp_apps.server.jobs._image import IMAGE_MAX_BYTES, ImageRequest, render_map
from tomtom_mcp_apps.server.ops import tracing

APP_DATA_KEY = "com.tomtom/app-data"
OMITTED_KEY = "com.tomtom/app-data-omitted"
VIEW_UUID_KEY = "viewUUID"
"""A fresh id per result: the view keeps its camera and selection under it."""
DATA_SOURCE_KEY = "com.tomtom/data-source"
"""`"offline"` in `_meta` when the built-in offline upstream answered (the views say so)."""
OFFLINE_NOTE = "offline demo data, not real TomTom results"
"""`data_source` in the model's text when the offline upstream answered."""
REFETCHED_KEY = "com.tomtom/refetched"
"""`true` in `_meta` when a view's refetch ran the tool again (VIEW_REFETCH): the view notes
it."""
MAX_RESULT_CHARS_KEY = "anthropic/maxResultSizeChars"
MAX_RESULT_CHARS = 500_000
"""Claude Code keeps a result of up to this many characters whole (its ceiling; its default
is far below our budget): every result stays under `APP_DATA_BUDGET`, so none is cut."""
_OFFLINE_ROOM = len(orjson.dumps(orjson.dumps({"data_source": OFFLINE_NOTE}).decode())) + len(
    orjson.dumps({DATA_SOURCE_KEY: "offline"})
)
_REFETCHED_ROOM = len(orjson.dumps({REFETCHED_KEY: True}))
WIRE_MARGIN = 600 + _OFFLINE_ROOM + _REFETCHED_ROOM
"""Characters kept free for the JSON-RPC envelope, the SDK's own `_meta` keys, the offline
flag, which delivery adds to a finished result (`Prepared.result`), and the refetch flag,
which a view's refetch adds to it (`tomtom-refetch-app-data`)."""


@dataclass(frozen=True)
class Prepared:
    """A finished tool result, and what became of its app data (for logs and metrics)."""

    text: dict[str, Any]
    meta: dict[str, Any]
    outcome: str
    """as_is, fitted, none, omitted_show_ui_false, omitted_too_large, omitted_invalid;
    for data-viz, paged (the view fetches the data in pages), plan (the page plan, for a
    view that had none) or page (a page of the data)."""
    budget: int = 0
    fit_ms: float = 0.0
    report: dict[str, Any] | None = None
    detail: str = ""
    image: str | None = None
    """A rendered map (base64 PNG), attached as `ImageContent` after the text."""
    structured: dict[str, Any] | None = None
    """`structuredContent`, for tools that declare an `outputSchema` (matrix, plan)."""

    def result(self, *, offline: bool = False) -> CallToolResult:
        """The CallToolResult; `offline` flags it, for the model and the view, as answered
        by the offline upstream (room for the flag is kept in `WIRE_MARGIN`)."""
        if not offline:
            return call_tool_result(self.text, self.meta, self.image, self.structured)
        return call_tool_result(
            {**self.text, "data_source": OFFLINE_NOTE},
            {**self.meta, DATA_SOURCE_KEY: "offline"},
            self.image,
            self.structured,
        )


IMAGE_SCALES = (1.0, 0.75, 0.5)
"""Sizes an image is tried at, largest first, until it fits the budget."""


def prepare(
    tool: str,
    answer: dict[str, Any],
    data: dict[str, Any] | None,
    show_ui: bool,
    budget: int,
    image: ImageRequest | None = None,
    structured: dict[str, Any] | None = None,
) -> Prepared:
    """The result for `answer` (to the model) and `data` (to the widget) within `budget` chars.

    The envelope goes in as is when the whole result fits, fitted when it does not,
    and is left out with a `com.tomtom/app-data-omitted` reason the widget can show
    when even fitting cannot make it fit or the data is invalid. A requested `image`
    of `data` is placed first (it was asked for by name), smaller if it must be; the
    app data is fitted into the room it leaves, and the text says what gave way.
    `structured` (`structuredContent`) is part of the result and takes its room first.
    """
    has_data = data is not None and show_ui
    text = {**answer, "show_ui": show_ui}
    if has_data:
        text["tool"] = tool
    meta = base_meta(tool, show_ui)
    picture = None
    if image is not None and data is not None:
        text, picture = _attach_image(text, meta, data, image, budget)
    if not has_data:
        outcome = "omitted_show_ui_false" if not show_ui else "none"
        return Prepared(text, meta, outcome, image=picture)

    room = budget - wire_size(call_tool_result(text, {**meta, APP_DATA_KEY: ""}, picture))
    started = time.perf_counter()
    try:
        if room <= 0:
            raise fitting.DoesNotFit(f"the text answer alone leaves no room ({-room} over)")
        with tracing.span("fit", attributes={"fit.budget_chars": room}) as span:
            fitted = fitting.fit(fitting.envelope(tool, data), room)
            span.set_attribute("fit.chars", len(fitted.app_data))
    except fitting.DoesNotFit as exc:
        detail = f"the map image took the room: {exc}" if picture else str(exc)
        return replace(
            _omitted(text, meta, "too_large", detail, room, picture), structured=structured
        )
    except fitting.FittingError as exc:  # InvalidGeometry, or data that is not JSON
        return replace(
            _omitted(text, meta, "invalid", str(exc), room, picture), structured=structured
        )
    return Prepared(
        text,
        {**meta, APP_DATA_KEY: fitted.app_data},
        "fitted" if fitted.report else "as_is",
        budget=room,
        fit_ms=(time.perf_counter() - started) * 1000,
        report=fitted.report,
        image=picture,
        structured=structured,
    )


def base_meta(tool: str, show_ui: bool) -> dict[str, Any]:
    """The `_meta` every model-visible result carries, before its app data."""
    return {
        "show_ui": show_ui,
        "tool": tool,
        VIEW_UUID_KEY: str(uuid.uuid4()),
        MAX_RESULT_CHARS_KEY: MAX_RESULT_CHARS,
    }


def _attach_image(
    text: dict[str, Any],
    meta: dict[str, Any],
    data: dict[str, Any],
    request: ImageRequest,
    budget: int,
) -> tuple[dict[str, Any], str | None]:
    """`text` saying what became of the image, and the image (base64 PNG) if it fits
    the budget and `IMAGE_MAX_BYTES` at one of `IMAGE_SCALES`."""
    why = ""
    for scale in IMAGE_SCALES:
        rendered = render_map(data, request, scale=scale)
        if len(rendered.png) > IMAGE_MAX_BYTES:
            why = f"a {rendered.width}x{rendered.height} PNG is over {IMAGE_MAX_BYTES:,} bytes"
            continue
        said = {
            **text,
            "image": {
                "attached": f"{rendered.width}x{rendered.height} PNG",
                "basemap": rendered.basemap,
            },
        }
        picture = base64.b64encode(rendered.png).decode()
        if wire_size(call_tool_result(said, meta, picture)) <= budget:
            return said, picture
        why = (
            f"a {rendered.width}x{rendered.height} PNG does not fit the {budget:,}-character budget"
        )
    return {**text, "image": f"not attached: {why}"}, None


def _omitted(
    text: dict[str, Any],
    meta: dict[str, Any],
    reason: str,
    detail: str,
    room: int,
    image: str | None = None,
) -> Prepared:
    said = f"not shown: the map data is {reason.replace('_', ' ')}"
    if image is not None and reason == "too_large":
        said += " with the image attached (call again with image false for the interactive map)"
    text = {**text, "map": said}
    meta = {**meta, OMITTED_KEY: f"{reason}: {detail}"[:500]}
    return Prepared(text, meta, f"omitted_{reason}", budget=room, detail=detail, image=image)


def call_tool_result(
    text: dict[str, Any],
    meta: dict[str, Any],
    image: str | None = None,
    structured: dict[str, Any] | None = None,
) -> CallToolResult:
    content: list[TextContent | ImageContent] = [
        TextContent(type="text", text=orjson.dumps(text).decode())
    ]
    if image is not None:
        content.append(ImageContent(type="image", data=image, mime_type="image/png"))
    return CallToolResult(content=content, structured_content=structured, _meta=meta)


def wire_size(tool_result: CallToolResult) -> int:
    """Characters of `tool_result` as serialized on the wire, plus the JSON-RPC envelope."""
    return len(tool_result.model_dump_json(by_alias=True, exclude_none=True)) + WIRE_MARGIN
