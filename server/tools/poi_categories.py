"""`tomtom-poi-categories`: TomTom's POI category tree, filtered by a word.

The model needs category ids for `categorySet`, and the tree is large: the answer keeps
the categories whose name or synonyms contain the word. It has no view: the list is for
the model, not for a map.
"""

from __future__ import annotations

from typing import Annotated, Any

import orjson
from mcp.server.mcpserver import Context
from mcp_types import CallToolResult, TextContent
from pydantic import Field

from tomtom_mcp_apps.server.bodies import Dropped, entries, integer, required_list, text
from tomtom_mcp_apps.server.jobs import (
    DATA_SOURCE_KEY,
    MAX_RESULT_CHARS,
    MAX_RESULT_CHARS_KEY,
    OFFLINE_NOTE,
)
from tomtom_mcp_apps.server.tools._caller import Caller
from tomtom_mcp_apps.server.tools._inputs import Language

MAX_LISTED = 50


async def poi_categories(
    ctx: Context,
    filter: Annotated[
        str | None,
        Field(
            max_length=100,
            description=(
                "A word to look for in category names and synonyms, e.g. 'charging', "
                "'pizza', 'parking'; leave out for the top of the list"
            ),
        ),
    ] = None,
    limit: Annotated[
        int, Field(ge=1, le=MAX_LISTED, description=f"Categories listed (1-{MAX_LISTED})")
    ] = 20,
    language: Language = None,
    show_ui: Annotated[
        bool, Field(description="Accepted like on every tool; this one has no view")
    ] = False,
) -> CallToolResult:
    params = [("language", language)] if language else []
    caller = Caller.of(ctx)
    body = await caller.tomtom.poi_categories(key=caller.key, params=params)
    dropped = Dropped()
    listed_by_tomtom = required_list(body, "poiCategories")
    categories = []
    for entry in entries(listed_by_tomtom, "poiCategories", dropped):
        category = _category(entry)
        if category is None:  # no id: nothing the model could pass on
            dropped.add("poiCategories")
        else:
            categories.append(category)
    word = (filter or "").strip().lower()
    matching = [c for c in categories if not word or _matches(c, word)]
    listed = matching[:limit]
    answer: dict[str, Any] = {
        "filter": filter,
        "count": len(matching),
        "categories": listed,
        "use": "pass ids as categorySet, comma-separated, e.g. '7315,7309'",
        "show_ui": False,
    }
    if len(matching) > len(listed):
        answer["more"] = f"{len(matching) - len(listed)} more match; give a narrower filter"
    if not matching:
        answer["note"] = f"No category name or synonym contains {filter!r}; try another word."
    answer = dropped.report(answer)
    meta: dict[str, Any] = {MAX_RESULT_CHARS_KEY: MAX_RESULT_CHARS}
    if caller.offline:  # flagged like every tool's answer
        answer["data_source"] = OFFLINE_NOTE
        meta[DATA_SOURCE_KEY] = "offline"
    said = orjson.dumps(answer).decode()
    return CallToolResult(content=[TextContent(type="text", text=said)], _meta=meta)


def _matches(category: dict[str, Any], word: str) -> bool:
    names = [category.get("name") or "", *category.get("synonyms", [])]
    return any(word in name.lower() for name in names)


def _category(category: dict[str, Any]) -> dict[str, Any] | None:
    """The model's copy of one of TomTom's categories, read through the checks of
    `server.jobs` (ids plain integers, names and synonyms text), or None without an id."""
    identifier = integer(category.get("id"))
    if identifier is None:
        return None
    out: dict[str, Any] = {"id": identifier, "name": text(category.get("name"))}
    synonyms = [s for s in _listed(category.get("synonyms")) if isinstance(s, str)]
    if synonyms:
        out["synonyms"] = synonyms[:8]
    children = [c for c in map(integer, _listed(category.get("childCategoryIds"))) if c is not None]
    if children:
        out["children"] = children[:30]
    return out


def _listed(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []
