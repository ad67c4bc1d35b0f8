"""The replay through real replicas: widgets get their data on the other replica.

One topology (offline upstream, two replicas, nginx) serves the module; the
kill test starts its own, since it kills a replica.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from loadtest import replay
from loadtest.fetch import Outcome, Scenario
from loadtest.geojson_site import serve_geojson
from loadtest.mix import replay_mix
from loadtest.replay import Route, run_replay, summary
from loadtest.topology import Topology, run_topology

MIX_SIZE = len(replay_mix("http://unused"))


@pytest.fixture(scope="module")
def topology() -> Iterator[Topology]:
    # Pages of 50,000 characters: the large data-viz comes in pages of features from both.
    with run_topology(fit_workers=1, env={"APP_DATA_PAGE_CHARS": "50000"}) as topology:
        yield topology


@pytest.fixture(scope="module")
def geojson_url() -> Iterator[str]:
    with serve_geojson() as url:
        yield url


def _by_label(outcomes: list[Outcome]) -> dict[str, list[Outcome]]:
    groups: dict[str, list[Outcome]] = {}
    for outcome in outcomes:
        groups.setdefault(outcome.scenario.label, []).append(outcome)
    return groups


def test_each_fetch_calls_its_tool_on_one_replica_and_its_widget_fetches_on_the_other() -> None:
    route = Route(["a", "b"])
    assert [(route.tool_url(i), route.widget_url(i)) for i in range(3)] == [
        ("a", "b"),
        ("b", "a"),
        ("a", "b"),
    ]


def test_every_scenario_calls_both_replicas_even_when_there_are_an_even_number() -> None:
    route = Route(["a", "b"], round_length=4)
    for scenario in range(4):
        calls = {route.tool_url(i) for i in range(scenario, 16, 4)}
        assert calls == {"a", "b"}
    assert all(route.tool_url(i) != route.widget_url(i) for i in range(16))


@pytest.mark.process
async def test_a_replay_across_two_replicas_leaves_no_widget_without_data(
    topology: Topology, geojson_url: str
) -> None:
    outcomes = await run_replay(
        replay_mix(geojson_url),
        Route(topology.replica_urls),
        count=2 * MIX_SIZE,
        concurrency=4,
        timeout=60,
    )
    assert [o for o in outcomes if o.status != "ok"] == []
    groups = _by_label(outcomes)
    assert len(groups) == MIX_SIZE
    assert all(o.fitted for o in groups["routing long"]), "Lisbon-Warsaw must need fitting"
    assert all(o.pages > 1 for o in groups["data-viz large"]), "large data-viz must be paged"
    assert summary(outcomes).splitlines()[-1] == f"misses: 0/{2 * MIX_SIZE}"


@pytest.mark.process
def test_the_replay_through_nginx_reports_zero_misses_and_exits_zero(
    topology: Topology, capsys: pytest.CaptureFixture[str]
) -> None:
    code = replay.main(
        [
            "--url",
            str(topology.balancer_url),
            "--count",
            str(MIX_SIZE),
            "--concurrency",
            "4",
            "--timeout",
            "60",
        ]
    )
    out = capsys.readouterr().out
    assert code == 0, out
    assert out.splitlines()[-1] == f"misses: 0/{MIX_SIZE}"


@pytest.mark.process
def test_fetches_without_app_data_count_as_misses_and_the_replay_exits_non_zero(
    topology: Topology, capsys: pytest.CaptureFixture[str]
) -> None:
    code = replay.main(
        [
            "--replica",
            topology.replica_urls[0],
            "--replica",
            topology.replica_urls[1],
            "--count",
            str(MIX_SIZE),
            "--no-ui",
        ]
    )
    out = capsys.readouterr().out
    inline = sum(not s.paged for s in replay_mix("http://unused"))
    assert code == 1
    assert out.splitlines()[-1] == f"misses: {inline}/{MIX_SIZE}"
    assert "no app data in the tool result's _meta" in out
    paged = MIX_SIZE - inline
    assert (
        f"widget reports in the replicas' /metrics: ok {paged}, error {inline} "
        f"(the replay sent ok {paged}, error {inline})"
    ) in out


@pytest.mark.process
async def test_a_tool_that_answers_with_an_error_is_a_tool_error_not_a_miss(
    topology: Topology,
) -> None:
    one_stop = Scenario("one stop", "tomtom-routing", {"locations": [[4.89, 52.37]]})
    outcomes = await run_replay(
        [one_stop], Route(topology.replica_urls), count=2, concurrency=2, timeout=60
    )
    assert [o.status for o in outcomes] == ["tool_error", "tool_error"]
    assert replay.exit_code(outcomes, failures_expected=True) == 2
    assert summary(outcomes).splitlines()[-1] == "misses: 0/2"


@pytest.mark.process
async def test_a_replica_killed_mid_replay_fails_calls_but_no_completed_fetch_misses(
    geojson_url: str,
) -> None:
    with run_topology(fit_workers=1, with_balancer=False) as topology:
        victim = topology.replicas[1].name
        outcomes = await run_replay(
            replay_mix(geojson_url),
            Route(topology.replica_urls),
            count=MIX_SIZE * 2,
            concurrency=2,
            timeout=60,
            kill_after=4,
            kill=lambda: topology.kill(victim),
        )
    statuses = [o.status for o in outcomes]
    assert statuses.count("miss") == 0, summary(outcomes)
    assert statuses.count("failed") > 0
    assert statuses.count("ok") >= 4
    assert replay.exit_code(outcomes, failures_expected=True) == 0
    assert replay.exit_code(outcomes, failures_expected=False) == 2


@pytest.mark.process
async def test_a_rolling_restart_of_both_replicas_through_nginx_loses_no_call(
    geojson_url: str,
) -> None:
    with run_topology(fit_workers=1, env={"LOG_FORMAT": "json"}) as topology:
        assert topology.balancer_url is not None
        before = [s.process.pid for s in topology.replicas]
        outcomes = await run_replay(
            replay_mix(geojson_url),
            Route([topology.balancer_url]),
            count=MIX_SIZE * 2,
            concurrency=4,
            timeout=90,
            kill_after=MIX_SIZE,
            during=topology.rolling_restart,
        )
        after = [s.process.pid for s in topology.replicas]
        drained = [
            e for s in topology.replicas for e in s.log_events() if e.get("event") == "drain"
        ]
    assert not set(before) & set(after)  # both replicas were replaced
    assert len(drained) == 2
    statuses = [o.status for o in outcomes]
    assert len(outcomes) > MIX_SIZE * 2 or statuses.count("ok") == MIX_SIZE * 2
    assert statuses.count("miss") == 0 and statuses.count("failed") == 0, summary(outcomes)
    assert statuses.count("tool_error") == 0, summary(outcomes)
    assert replay.exit_code(outcomes, failures_expected=False) == 0
