"""One widget fetch, replayed as a widget makes it: the tool call on one replica,
the widget's data and its status report on another.

TomTom widgets decode the app data inline in the tool result's `_meta`; the
data-viz widget fetches through `tomtom-get-app-data` (which reads the data
again on whichever replica receives it): the pages of features of the plan in
the result's `_meta`, three at a time as the view asks for them, or, when the
result carries no plan (the data fitted inline), the plan asked of another
replica first, as a view whose host dropped `_meta` asks it. A fetch ends in
one of three ways:

- `ok`: the widget would draw data;
- `miss`: the tool succeeded but its widget would get no data (no app data,
  a decode failure, empty data, a get-app-data error or short pages);
- `tool_error`: the tool call itself answered with an error (TomTom timed out,
  bad input): the host shows that error, there was no data to deliver;
- `failed`: a call never completed (replica gone, proxy 5xx, timeout), which
  a host shows as a failed tool call, not as an empty widget.
"""

from __future__ import annotations

import asyncio
import itertools
import time
from dataclasses import dataclass
from typing import Any, Literal

import httpx

from loadtest.wire import CallFailed, ToolError, call_tool, result_text
from tomtom_mcp_apps import fitting
from tomtom_mcp_apps.server.tool_names import GET_APP_DATA, REPORT_APP_STATUS

APP_DATA_KEY = "com.tomtom/app-data"
PAGES_KEY = "com.tomtom/app-data-pages"
"""The page plan in a data-viz result's `_meta` (`server.jobs.PAGES_KEY`)."""
MAX_PAGES = 1_000
AT_ONCE = 3
"""Pages of features asked for at a time, as the data-viz view asks for them."""


@dataclass(frozen=True)
class Scenario:
    label: str
    tool: str
    arguments: dict[str, Any]
    paged: bool = False
    """True for data-viz: the widget fetches its data with `tomtom-get-app-data`."""


@dataclass(frozen=True)
class Outcome:
    scenario: Scenario
    status: Literal["ok", "miss", "tool_error", "failed"]
    reason: str
    ms: float
    chars: int = 0
    fitted: bool = False
    pages: int = 0
    """get-app-data pages the widget fetched (0: the data came inline)."""
    report_failed: bool = False


class _Miss(Exception):
    """The widget would get no data; the message says why."""


async def replay_fetch(
    client: httpx.AsyncClient,
    scenario: Scenario,
    tool_url: str,
    widget_url: str,
    *,
    show_ui: bool = True,
) -> Outcome:
    """Call the tool on `tool_url`, then obtain and check the widget's data via `widget_url`."""
    arguments = scenario.arguments if show_ui else {**scenario.arguments, "show_ui": False}
    started = time.perf_counter()
    app_data = ""
    pages: list[str] = []
    try:
        result = await call_tool(client, tool_url, scenario.tool, arguments)
        if result.get("isError"):
            raise ToolError(f"{scenario.tool}: {result_text(result)[:200]}")
    except CallFailed as exc:
        return Outcome(scenario, "failed", str(exc), _ms(started))
    except ToolError as exc:
        return await _ended(client, widget_url, scenario, "tool_error", str(exc), started)
    try:
        if scenario.paged:
            plan = (result.get("_meta") or {}).get(PAGES_KEY)
            if plan is None:
                plan = await _get_plan(client, widget_url, scenario.tool, arguments)
            envelope = await _get_pages(client, widget_url, scenario.tool, arguments, plan, pages)
            app_data = "".join(pages)
        else:
            app_data = _inline_app_data(result)
            envelope = _decode(app_data, scenario.tool)
    except CallFailed as exc:
        return Outcome(scenario, "failed", str(exc), _ms(started))
    except (_Miss, ToolError) as exc:
        return await _ended(client, widget_url, scenario, "miss", str(exc), started, len(app_data))
    ms = _ms(started)
    failed = await _report(client, widget_url, scenario.tool, "ok", "drawn")
    return Outcome(
        scenario,
        "ok",
        "",
        ms,
        len(app_data),
        envelope.get("fitted") is not None,
        len(pages),
        report_failed=failed,
    )


async def _ended(
    client: httpx.AsyncClient,
    widget_url: str,
    scenario: Scenario,
    status: Literal["miss", "tool_error"],
    reason: str,
    started: float,
    chars: int = 0,
) -> Outcome:
    """An outcome without data: the widget shows the error and reports it."""
    ms = _ms(started)
    failed = await _report(client, widget_url, scenario.tool, "error", reason)
    return Outcome(scenario, status, reason, ms, chars, report_failed=failed)


def _inline_app_data(result: dict[str, Any]) -> str:
    app_data = (result.get("_meta") or {}).get(APP_DATA_KEY)
    if not isinstance(app_data, str) or not app_data:
        raise _Miss("no app data in the tool result's _meta")
    return app_data


async def _get_plan(
    client: httpx.AsyncClient, url: str, tool: str, arguments: dict[str, Any]
) -> Any:
    """The page plan from `tomtom-get-app-data` (`plan: true`), as a view asks for it."""
    answer = await call_tool(
        client, url, GET_APP_DATA, {"tool": tool, "arguments": arguments, "plan": True}
    )
    if answer.get("isError"):
        raise _Miss(f"{GET_APP_DATA} returned an error: {result_text(answer)[:200]}")
    plan = (answer.get("_meta") or {}).get(PAGES_KEY)
    if plan is None:
        raise _Miss(f"{GET_APP_DATA} answered with no page plan")
    return plan


async def _get_pages(
    client: httpx.AsyncClient,
    url: str,
    tool: str,
    arguments: dict[str, Any],
    plan: Any,
    texts: list[str],
) -> dict[str, Any]:
    """Every page of features of `plan`, `AT_ONCE` at a time, each decoded and checked to
    hold its range; the envelope of all their features, as the view draws them."""
    try:
        bounds = [int(b) for b in plan["bounds"]]
        count, digest = int(plan["features"]), str(plan["digest"])
    except (KeyError, TypeError, ValueError) as exc:
        raise _Miss(f"the page plan is malformed: {exc!r}") from None
    if len(bounds) < 2 or bounds[0] != 0 or bounds[-1] != count or len(bounds) > MAX_PAGES:
        raise _Miss(f"the page plan's bounds do not cover its {count} features")
    ranges = list(itertools.pairwise(bounds))
    gate = asyncio.Semaphore(AT_ONCE)

    async def page(start: int, stop: int) -> tuple[str, list[Any]]:
        place = {"from": start, "to": stop, "digest": digest}
        async with gate:
            answer = await call_tool(
                client, url, GET_APP_DATA, {"tool": tool, "arguments": arguments, "page": place}
            )
        if answer.get("isError"):
            raise _Miss(f"{GET_APP_DATA} returned an error: {result_text(answer)[:200]}")
        text = (answer.get("_meta") or {}).get(APP_DATA_KEY)
        if not isinstance(text, str) or not text:
            raise _Miss(f"{GET_APP_DATA} page {start}-{stop} carried no app data")
        envelope = _decode(text, tool, fitting.DECIMAL_VERSION)
        data = envelope["data"]
        if (data.get("from"), data.get("to"), len(data["features"])) != (
            start,
            stop,
            stop - start,
        ):
            raise _Miss(f"{GET_APP_DATA} page {start}-{stop} holds other features")
        return text, data["features"]

    got = await asyncio.gather(*(page(a, b) for a, b in ranges), return_exceptions=True)
    for outcome in got:  # every call ended; the first failure is the fetch's
        if isinstance(outcome, BaseException):
            raise outcome
    texts.extend(text for text, _ in got)
    features = [f for _, part in got for f in part]
    return {"v": fitting.DECIMAL_VERSION, "tool": tool, "data": {"features": features}}


def _decode(app_data: str, tool: str, version: int = fitting.VERSION) -> dict[str, Any]:
    try:
        envelope = fitting.decode(app_data)
    except Exception as exc:  # any decode failure leaves the widget empty
        raise _Miss(f"the app data does not decode: {type(exc).__name__}: {exc}") from exc
    if envelope.get("v") != version or envelope.get("tool") != tool:
        raise _Miss(f"unexpected envelope v={envelope.get('v')} tool={envelope.get('tool')}")
    data = envelope.get("data") or {}
    features = (
        (data.get("geojson") or {}).get("features") if "geojson" in data else data.get("features")
    )
    if not features:
        raise _Miss("the app data holds no features")
    return envelope


async def _report(client: httpx.AsyncClient, url: str, tool: str, status: str, reason: str) -> bool:
    """Send the widget's status report; True when that call itself failed."""
    try:
        await call_tool(
            client,
            url,
            REPORT_APP_STATUS,
            {"tool": tool, "status": status, "reason": reason[:200], "detail": ""},
        )
    except (CallFailed, ToolError):
        return True
    return False


def _ms(started: float) -> float:
    return (time.perf_counter() - started) * 1000.0
