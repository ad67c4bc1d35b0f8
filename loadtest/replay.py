"""Replay widget fetches across replicas and count the widgets left without data.

    python -m loadtest.replay                      # starts upstream + 2 replicas itself
    python -m loadtest.replay --balancer           # ... and nginx, and goes through it
    python -m loadtest.replay --replica URL --replica URL
    python -m loadtest.replay --url http://127.0.0.1:8080/mcp   # one load balancer
    python -m loadtest.replay --balancer --rolling-restart-after 20   # restart both replicas

Fetch i calls its tool on replica i and obtains the widget's data on replica
i+1 (mod the number of replicas); through a load balancer both go to the
balancer. Prints a table per fetch kind and a last line `misses: M/N`.
A miss is a widget left without data after its tool succeeded; tool errors
(the tool call itself answered with an error) and failed calls (no answer at
all) are counted apart. Exits 1 on any miss, 2 on tool errors or on failed
calls that no `--kill-one-after` explains. During a rolling restart (through the
balancer, replicas restarted one after the other, each draining first) nothing may
fail: the replay goes on until both replicas are back.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import sys
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import httpx

from loadtest.fetch import Outcome, Scenario, replay_fetch
from loadtest.geojson_site import serve_geojson
from loadtest.mix import replay_mix
from loadtest.scrape import widget_reports
from loadtest.stats import format_table, percentile
from loadtest.topology import Topology, TopologyError, run_topology
from loadtest.wire import clients

DEFAULT_COUNT = 40
DEFAULT_TIMEOUT_S = 120.0


@dataclass(frozen=True)
class Route:
    """Where fetch i sends its tool call and where its widget fetches."""

    urls: Sequence[str]
    round_length: int = 0
    """The number of scenarios: each round of them starts one replica further on, so that
    with an even number of scenarios each one's calls still alternate between replicas
    (otherwise one replica would get every long route and the other every map)."""

    def tool_url(self, i: int) -> str:
        return self.urls[self._slot(i) % len(self.urls)]

    def widget_url(self, i: int) -> str:
        return self.urls[(self._slot(i) + 1) % len(self.urls)]

    def _slot(self, i: int) -> int:
        return i + (i // self.round_length if self.round_length else 0)


async def run_replay(
    scenarios: Sequence[Scenario],
    route: Route,
    *,
    count: int,
    concurrency: int,
    show_ui: bool = True,
    timeout: float = DEFAULT_TIMEOUT_S,
    kill_after: int | None = None,
    kill: Callable[[], None] | None = None,
    during: Callable[[], None] | None = None,
    until: float | None = None,
) -> list[Outcome]:
    """Run `count` fetches, `concurrency` at a time (or as many as start before `until`, a
    `time.monotonic()`, when given); once `kill_after` have completed, call `kill`
    (blocking one caller), or run `during` in a thread while fetches go on, and go on
    fetching until it has returned."""
    outcomes: list[Outcome] = []
    next_index = 0
    background: asyncio.Task[None] | None = None
    killed = False
    async with clients(min(concurrency, count), timeout) as pool:

        def more() -> bool:
            if until is not None:
                return time.monotonic() < until
            return next_index < count or (background is not None and not background.done())

        async def worker(client: httpx.AsyncClient) -> None:
            nonlocal next_index, killed, background
            while more():
                i = next_index
                next_index += 1
                scenario = scenarios[i % len(scenarios)]
                outcomes.append(
                    await replay_fetch(
                        client, scenario, route.tool_url(i), route.widget_url(i), show_ui=show_ui
                    )
                )
                if kill_after is None or len(outcomes) < kill_after or killed:
                    continue
                killed = True
                if kill:
                    await asyncio.to_thread(kill)
                if during:
                    background = asyncio.create_task(asyncio.to_thread(during))

        await asyncio.gather(*(worker(client) for client in pool))
        if background is not None:
            await background  # its exception, if any, is the run's
    return outcomes


def summary(outcomes: Sequence[Outcome]) -> str:
    """The per-kind table, the reasons for misses and failures, and `misses: M/N` last."""
    labels = list(dict.fromkeys(o.scenario.label for o in outcomes))
    rows = []
    for label in labels:
        group = [o for o in outcomes if o.scenario.label == label]
        done = [o for o in group if o.status != "failed"]
        chars = [o.chars for o in group if o.status == "ok"]
        rows.append(
            [
                label,
                group[0].scenario.tool,
                len(group),
                sum(o.status == "miss" for o in group),
                sum(o.status == "tool_error" for o in group),
                len(group) - len(done),
                sum(o.fitted for o in group),
                percentile([o.ms for o in done], 50),
                percentile([o.ms for o in done], 99),
                int(percentile(chars, 50)) if chars else "-",
            ]
        )
    lines = [
        format_table(
            [
                "fetch",
                "tool",
                "count",
                "misses",
                "tool errors",
                "failed",
                "fitted",
                "p50 ms",
                "p99 ms",
                "app-data chars p50",
            ],
            rows,
        )
    ]
    misses = [o for o in outcomes if o.status == "miss"]
    errors = [o for o in outcomes if o.status == "tool_error"]
    failed = [o for o in outcomes if o.status == "failed"]
    reports = sum(o.report_failed for o in outcomes)
    for title, group in (("miss", misses), ("tool error", errors), ("failed", failed)):
        reasons = sorted({(o.scenario.label, o.reason) for o in group})
        lines += [f"{title}: {label}: {reason}" for label, reason in reasons[:10]]
    if reports:
        lines.append(f"status reports that failed to send: {reports}")
    if errors:
        lines.append(
            f"tool errors (the host shows the error; not misses): {len(errors)}/{len(outcomes)}"
        )
    if failed:
        lines.append(f"failed calls (never completed; not misses): {len(failed)}/{len(outcomes)}")
    lines.append(f"misses: {len(misses)}/{len(outcomes)}")
    return "\n".join(lines)


def server_side(outcomes: Sequence[Outcome], reports: Counter[str]) -> str:
    """The replicas' count of widget status reports beside the replay's own."""
    sent = Counter(
        "error" if o.status in ("miss", "tool_error") else "ok"
        for o in outcomes
        if o.status != "failed" and not o.report_failed
    )
    return (
        f"widget reports in the replicas' /metrics: ok {reports['ok']}, error "
        f"{reports['error']} (the replay sent ok {sent['ok']}, error {sent['error']})"
    )


def exit_code(outcomes: Sequence[Outcome], *, failures_expected: bool) -> int:
    if any(o.status == "miss" for o in outcomes):
        return 1
    if any(o.status == "tool_error" for o in outcomes):
        return 2
    if any(o.status == "failed" for o in outcomes) and not failures_expected:
        return 2
    return 0


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m loadtest.replay",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    target = parser.add_mutually_exclusive_group()
    target.add_argument(
        "--replica",
        action="append",
        metavar="URL",
        help="an MCP endpoint of a running replica (give two)",
    )
    target.add_argument("--url", help="one MCP endpoint behind a load balancer")
    target.add_argument(
        "--balancer", action="store_true", help="start nginx too and replay through it"
    )
    parser.add_argument("--count", type=int, default=DEFAULT_COUNT)
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument(
        "--timeout",
        type=float,
        default=DEFAULT_TIMEOUT_S,
        help="seconds per call (default %(default)s)",
    )
    parser.add_argument(
        "--kill-one-after",
        type=int,
        metavar="N",
        help="SIGKILL the second replica after N fetches completed",
    )
    parser.add_argument(
        "--rolling-restart-after",
        type=int,
        metavar="N",
        help="with --balancer: after N fetches, restart each replica in turn (SIGTERM, it "
        "drains, a new one starts on its port); the replay goes on until both are back",
    )
    parser.add_argument("--fit-workers", type=int, help="FIT_WORKERS of started replicas")
    parser.add_argument(
        "--logs",
        type=Path,
        metavar="DIR",
        help="keep the started services' logs in DIR (default: a temporary "
        "directory, removed at the end)",
    )
    parser.add_argument(
        "--no-ui",
        dest="show_ui",
        action="store_false",
        help="send show_ui: false (no app data): every fetch must count as a miss",
    )
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    if args.count < 1 or args.concurrency < 1:
        parser.error("--count and --concurrency must be at least 1")
    if args.replica is not None and len(args.replica) < 2:
        parser.error("give --replica twice: the widget fetches on the other replica")
    external = args.replica is not None or args.url is not None
    if args.kill_one_after is not None and external:
        parser.error("--kill-one-after kills a replica the replay started: drop --replica/--url")
    if args.rolling_restart_after is not None and not args.balancer:
        parser.error("--rolling-restart-after needs --balancer: callers reach replicas through it")

    with contextlib.ExitStack() as stack:
        geojson_url = stack.enter_context(serve_geojson())
        kill: Callable[[], None] | None = None
        restart: Callable[[], None] | None = None
        if external:
            urls = args.replica or [args.url]
        else:
            print("starting the offline upstream and two replicas...", file=sys.stderr)
            try:
                topology: Topology = stack.enter_context(
                    run_topology(
                        with_balancer=args.balancer, fit_workers=args.fit_workers, workdir=args.logs
                    )
                )
            except TopologyError as exc:
                print(exc, file=sys.stderr)
                return 3
            urls = [topology.balancer_url] if args.balancer else topology.replica_urls
            victim = topology.replicas[-1].name

            def kill() -> None:
                print(f"killing {victim}", file=sys.stderr)
                topology.kill(victim)

            def restart() -> None:
                print("rolling restart: each replica drains and starts again", file=sys.stderr)
                topology.rolling_restart()
                print("rolling restart done", file=sys.stderr)

        replica_bases = [
            u.removesuffix("/mcp")
            for u in (args.replica or ([] if external else topology.replica_urls))
        ]
        before = widget_reports(replica_bases)
        print(
            f"replaying {args.count} fetches, {args.concurrency} at a time, via "
            f"{', '.join(str(u) for u in urls)}",
            file=sys.stderr,
        )
        scenarios = replay_mix(geojson_url)
        outcomes = asyncio.run(
            run_replay(
                scenarios,
                Route(urls, len(scenarios)),
                count=args.count,
                concurrency=args.concurrency,
                show_ui=args.show_ui,
                timeout=args.timeout,
                kill_after=args.kill_one_after or args.rolling_restart_after,
                kill=kill if args.kill_one_after else None,
                during=restart if args.rolling_restart_after is not None else None,
            )
        )
        if replica_bases and args.kill_one_after is None and args.rolling_restart_after is None:
            print(server_side(outcomes, widget_reports(replica_bases) - before))
    print(summary(outcomes), flush=True)
    return exit_code(outcomes, failures_expected=args.kill_one_after is not None)


if __name__ == "__main__":
    sys.exit(main())
