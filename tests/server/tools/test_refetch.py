"""`tomtom-refetch-app-data` (docs/views.md): off by default, a TomTom tool never runs
again; with `VIEW_REFETCH=on` it runs the same request again, visibly: a marked
User-Agent, a counter of its own, a cap per user or client and a flag in the result."""

from __future__ import annotations

import httpx
import pytest

from tests.server.harness import AMSTERDAM, SIGNED_IN, UTRECHT, signed_in_as, tool_client
from tomtom_mcp_apps.server.jobs import APP_DATA_KEY, REFETCHED_KEY
from tomtom_mcp_apps.server.offline import build_upstream_app
from tomtom_mcp_apps.server.ops import metrics
from tomtom_mcp_apps.server.product import VERSION
from tomtom_mcp_apps.server.tools.app_only import MAP_CONFIG_KEY

ROUTE = {"locations": [AMSTERDAM, UTRECHT]}


class Recording(httpx.AsyncBaseTransport):
    """The offline upstream, noting the User-Agent of every request it answers."""

    def __init__(self) -> None:
        self.agents: list[str] = []
        self._upstream = httpx.ASGITransport(app=build_upstream_app())

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        self.agents.append(request.headers.get("user-agent", ""))
        return await self._upstream.handle_async_request(request)


def refetches(tool: str, outcome: str) -> float:
    labels = {"tool": tool, "outcome": outcome}
    return metrics.REGISTRY.get_sample_value("tomtom_mcp_view_refetches_total", labels) or 0.0


async def test_off_by_default_no_tomtom_tool_runs_again_and_the_view_is_told() -> None:
    upstream = Recording()
    before = refetches("tomtom-routing", "off")
    async with tool_client(transport=upstream) as tools:
        config = await tools.call("tomtom-get-map-config", {})
        refused = await tools.call(
            "tomtom-refetch-app-data", {"tool": "tomtom-routing", "arguments": ROUTE}
        )
    assert config.meta[MAP_CONFIG_KEY]["refetch"] is False
    assert config.answer is not None and config.answer["view_refetch"] is False
    assert refused.is_error and "is off on this server (VIEW_REFETCH)" in refused.text
    assert upstream.agents == []
    assert refetches("tomtom-routing", "off") == before + 1


async def test_on_the_same_request_runs_again_tagged_as_a_refetch() -> None:
    upstream = Recording()
    before = refetches("tomtom-routing", "ok")
    async with tool_client(transport=upstream, view_refetch=True) as tools:
        config = await tools.call("tomtom-get-map-config", {})
        first = await tools.call("tomtom-routing", ROUTE)
        again = await tools.call(
            "tomtom-refetch-app-data", {"tool": "tomtom-routing", "arguments": ROUTE}
        )
    assert config.meta[MAP_CONFIG_KEY]["refetch"] is True
    assert not again.is_error, again.text
    assert again.meta[REFETCHED_KEY] is True and REFETCHED_KEY not in first.meta
    assert again.envelope["tool"] == "tomtom-routing"
    assert again.envelope["data"] == first.envelope["data"]
    assert again.answer == first.answer
    assert upstream.agents == [
        f"tomtom-mcp-apps/{VERSION}",
        f"tomtom-mcp-apps/{VERSION} (view-refetch)",
    ]
    assert refetches("tomtom-routing", "ok") == before + 1


async def test_the_arguments_are_checked_exactly_as_the_tool_checks_them() -> None:
    bad = {"locations": [AMSTERDAM]}
    async with tool_client(view_refetch=True) as tools:
        direct = await tools.call("tomtom-routing", bad)
        again = await tools.call(
            "tomtom-refetch-app-data", {"tool": "tomtom-routing", "arguments": bad}
        )
    assert direct.is_error and again.is_error
    assert again.text == direct.text
    assert "locations: give at least 2 positions, got 1" in again.text
    assert again.meta[REFETCHED_KEY] is True


@pytest.mark.parametrize(
    "tool",
    [
        "tomtom-data-viz",
        "tomtom-poi-categories",
        "tomtom-report-app-status",
        "tomtom-refetch-app-data",
    ],
)
async def test_only_the_tomtom_tools_with_a_view_run_again(tool: str) -> None:
    async with tool_client(view_refetch=True) as tools:
        refused = await tools.call("tomtom-refetch-app-data", {"tool": tool, "arguments": {}})
    assert refused.is_error
    assert f"{tool!r} is refused" in refused.text and "tomtom-routing" in refused.text


async def test_refetches_are_capped_per_user_or_client() -> None:
    before = refetches("tomtom-geocode", "capped")
    call = {"tool": "tomtom-geocode", "arguments": {"query": "Amsterdam"}}
    async with tool_client(view_refetch=True, view_refetch_per_min=2) as tools:
        outcomes = [await tools.call("tomtom-refetch-app-data", call) for _ in range(3)]
    assert [o.is_error for o in outcomes] == [False, False, True]
    assert "capped at 2 a minute per user" in outcomes[2].text
    assert APP_DATA_KEY in outcomes[1].meta
    assert refetches("tomtom-geocode", "capped") == before + 1


async def test_a_signed_in_users_refetches_count_against_that_user_alone() -> None:
    call = {"tool": "tomtom-geocode", "arguments": {"query": "Amsterdam"}}
    settings = {"view_refetch": True, "view_refetch_per_min": 1, **SIGNED_IN}
    with signed_in_as("alice"):
        async with tool_client(key="configured-key-123", **settings) as alice:
            allowance = alice.runtime.refetches
            hers = [await alice.call("tomtom-refetch-app-data", call) for _ in range(2)]
    with signed_in_as("bob"):
        async with tool_client(key="configured-key-123", **settings) as bob:
            bob.runtime.refetches = allowance  # one replica's allowance, both users' calls
            his = await bob.call("tomtom-refetch-app-data", call)
    assert [outcome.is_error for outcome in hers] == [False, True]
    assert not his.is_error, his.text
