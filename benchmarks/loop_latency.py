"""Does the event loop stall while long routes are fitted? Pool versus FIT_INLINE=1.

    .venv/bin/python -m benchmarks.loop_latency [--probes 900] [--rounds 3] [--routes 4] [--maps 1]

For each mode (the process pool, then fitting forced inline on the event loop)
one replica is started against the separate offline upstream, and a cheap
call is timed back to back: `tomtom-report-app-status` (answered by the
replica alone, so its latency is the event loop's), or with `--probe
geocode` a geocode (which also waits for the offline upstream, busy
generating the long routes on the same cores). Idle, then while a separate
load process runs `--routes` loops requesting Lisbon-Warsaw routes (about
42,000 points each, fitted to the budget) and `--maps` loops requesting
dynamic maps of ten routes (about 1,000,000 points); the two phases alternate
`--rounds` times, so that a shared machine's drift (its speed changes from
minute to minute) falls on both alike. The run starts by printing what each
load call weighs on the upstream in use.
Seeded by the offline upstream, so every run fits the same geometry.
Target: with the pool, p99 under load at most 3x the idle p99.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from collections import Counter
from collections.abc import Awaitable

import httpx
import orjson

from loadtest.background import BackgroundLoad
from loadtest.fetch import APP_DATA_KEY
from loadtest.mix import LONG_ROUTE_CALL, MILLION_POINT_MAP_CALL
from loadtest.scrape import histogram_buckets, late_shares
from loadtest.stats import format_table, percentile
from loadtest.topology import ELSEWHERE_NICE, OFFLINE_KEY, PeakRss, Service, run_topology
from loadtest.wire import Call, call_tool, clients, timed_calls
from tomtom_mcp_apps import fitting
from tomtom_mcp_apps.server.tool_names import GEOCODE, REPORT_APP_STATUS, ROUTING

LOOP_LAG = "tomtom_mcp_event_loop_lag_seconds"
LAG_BOUNDS = (0.0025, 0.005, 0.01, 0.025)
LOAD_RAMP_S = 2.0
"""Load runs this long before each loaded round's probes: the first map reaches its fit."""

PROBES = {
    # A tool call that never leaves the replica: its latency is the event loop's.
    "status": (
        REPORT_APP_STATUS,
        {"tool": ROUTING, "status": "ok", "reason": "probe"},
    ),
    # Also waits for the offline upstream, which shares these cores with the load.
    "geocode": (GEOCODE, {"query": "Dam 1, Amsterdam"}),
}


async def _upstream_points(
    client: httpx.AsyncClient, upstream: str, routes: list[list[list[float]]]
) -> int:
    """Route points the upstream returns for these routes (what the replica parses)."""
    total = 0
    for locations in routes:
        path = ":".join(f"{lat},{lon}" for lon, lat in locations)
        response = await client.get(
            f"{upstream}/routing/1/calculateRoute/{path}/json", params={"key": OFFLINE_KEY}
        )
        response.raise_for_status()
        total += sum(
            len(leg["points"]) for leg in orjson.loads(response.content)["routes"][0]["legs"]
        )
    return total


async def sizes(client: httpx.AsyncClient, url: str, upstream: str) -> list[str]:
    """What the load calls weigh: points from the upstream, points and characters sent."""
    lines = []
    for label, call in (("long route", LONG_ROUTE_CALL), ("dynamic map", MILLION_POINT_MAP_CALL)):
        meta = (await call_tool(client, url, *call)).get("_meta") or {}
        if APP_DATA_KEY not in meta:
            routes = [r["locations"] for r in call[1].get("routes", [call[1]])]
            points = await _upstream_points(client, upstream, routes)
            omitted = meta.get(f"{APP_DATA_KEY}-omitted", "no reason given")
            lines.append(
                f"{label}: {points:,} points from the upstream, no app data sent: {omitted}"
            )
            continue
        fitted = fitting.decode(meta[APP_DATA_KEY])["fitted"] or {}
        lines.append(
            f"{label}: {fitted.get('original_points', 0):,} points from the upstream, "
            f"{fitted.get('points', 0):,} sent in {fitted.get('chars', 0):,} chars "
            f"(max error {fitted.get('max_error_m', 0):.1f} m)"
        )
    return lines


async def measure(
    service: Service, upstream: str, probe: str, probes: int, rounds: int, calls: list[Call]
) -> dict[str, object]:
    """Idle and loaded probe latencies on one replica, how much load completed, peak RSS.

    The phases alternate for `rounds` rounds (idle, then under load), so that both
    see the same drift of a shared machine; each round takes `probes / rounds` per phase."""
    url = f"{service.url}/mcp"
    load = BackgroundLoad(url, calls, nice=ELSEWHERE_NICE)
    idle: list[list[float]] = []
    loaded: list[list[float]] = []
    loaded_seconds = 0.0
    lag: dict[str, Counter[float]] = {"idle": Counter(), "under load": Counter()}

    async def lag_during(phase: str, probing: Awaitable[list[float]]) -> list[float]:
        """The probes' latencies; the replica's loop-lag histogram during them, into `lag`."""
        before = await asyncio.to_thread(histogram_buckets, service.url, LOOP_LAG)
        samples = await probing
        after = await asyncio.to_thread(histogram_buckets, service.url, LOOP_LAG)
        lag[phase].update({bound: after[bound] - before.get(bound, 0.0) for bound in after})
        return samples

    rss = PeakRss(service)
    async with clients(1, 600.0) as (c,):
        weights = await sizes(c, url, upstream)
        # Connections and first-call costs out of the way:
        await timed_calls(c, url, PROBES[probe], 10)
        for share in _shares(probes, rounds):
            idle.append(await lag_during("idle", timed_calls(c, url, PROBES[probe], share)))
            started = time.perf_counter()
            load.resume()
            await asyncio.sleep(LOAD_RAMP_S)  # the long requests reach the fit
            loaded.append(await lag_during("under load", timed_calls(c, url, PROBES[probe], share)))
            await load.pause()
            loaded_seconds += time.perf_counter() - started
    peak = await rss.stop()
    done = await load.finish()
    return {
        "idle": idle,
        "loaded": loaded,
        "load_done": len(done),
        "load_failures": [d for d in done if d != "ok"],
        "seconds": loaded_seconds,
        "sizes": weights,
        "peak_rss": peak,
        "lag": {phase: late_shares({}, dict(counts)) for phase, counts in lag.items()},
    }


def _lag_line(lag: dict[str, tuple[int, dict[float, float]]]) -> str:
    """What the replica's own loop-lag histogram (a 50 ms timer) saw in each phase."""
    parts = []
    for phase, (ticks, shares) in lag.items():
        late = ", ".join(f"{shares[bound]:.1f}% over {bound * 1000:g} ms" for bound in LAG_BOUNDS)
        parts.append(f"{phase}: {late} ({ticks} ticks)")
    return "event loop lag from /metrics (how late a 50 ms timer fires): " + "; ".join(parts)


def _shares(total: int, rounds: int) -> list[int]:
    """`total` probes split over `rounds` as evenly as whole numbers allow."""
    return [total // rounds + (1 if i < total % rounds else 0) for i in range(rounds)]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--probes", type=int, default=900, help="timed cheap calls per phase")
    parser.add_argument(
        "--rounds",
        type=int,
        default=3,
        help="idle and loaded phases alternate this many times, so both see the same "
        "drift of a shared machine",
    )
    parser.add_argument("--routes", type=int, default=4, help="concurrent 42,000-point routes")
    parser.add_argument("--maps", type=int, default=1, help="concurrent 1,000,000-point maps")
    parser.add_argument("--fit-workers", type=int, default=2)
    parser.add_argument("--modes", default="pool,inline", help="pool, inline or both")
    parser.add_argument(
        "--probe",
        choices=sorted(PROBES),
        default="status",
        help="status: tomtom-report-app-status, answered by the replica alone "
        "(default); geocode: also waits for the offline upstream",
    )
    args = parser.parse_args(argv)
    modes = {"pool": {}, "inline": {"FIT_INLINE": "1"}}

    rows = []
    notes: list[str] = []
    ratios = {}
    for mode in args.modes.split(","):
        env = modes[mode]
        print(f"{mode}: starting the upstream and one replica...", file=sys.stderr)
        with run_topology(
            replicas=1,
            with_balancer=False,
            fit_workers=args.fit_workers,
            env=env,
            upstream_nice=ELSEWHERE_NICE,
        ) as topology:
            assert topology.upstream is not None
            result = asyncio.run(
                measure(
                    topology.replicas[0],
                    topology.upstream.url,
                    args.probe,
                    args.probes,
                    args.rounds,
                    [LONG_ROUTE_CALL] * args.routes + [MILLION_POINT_MAP_CALL] * args.maps,
                )
            )
        idle = [ms for block in result["idle"] for ms in block]
        loaded = [ms for block in result["loaded"] for ms in block]
        if not notes:
            notes += result["sizes"]
        idle_p99 = percentile(idle, 99)
        ratios[mode] = percentile(loaded, 99) / idle_p99
        by_round = ", ".join(
            f"{percentile(b, 99):.1f}/{percentile(a, 99):.1f} ms"
            for a, b in zip(result["idle"], result["loaded"], strict=True)
        )
        for phase, samples in (("idle", idle), ("under load", loaded)):
            rows.append(
                [
                    mode,
                    phase,
                    len(samples),
                    percentile(samples, 50),
                    percentile(samples, 99),
                    max(samples),
                    f"{percentile(samples, 99) / idle_p99:.1f}x",
                    ""
                    if phase == "idle"
                    else f"{result['load_done']} in {result['seconds']:.1f} s",
                ]
            )
        notes.append(f"{mode}: p99 under load / idle, round by round: {by_round}")
        notes.append(f"{mode}: {_lag_line(result['lag'])}")
        notes.append(
            f"{mode}: replica peak RSS under load {result['peak_rss'] / 2**20:,.0f} MiB "
            "(server + fitting workers)"
        )
        if result["load_failures"]:
            notes.append(
                f"{mode}: {len(result['load_failures'])} load calls failed, e.g. "
                f"{result['load_failures'][0][:160]}"
            )
    print(
        f"\nprobe: {PROBES[args.probe][0]} back to back; load: {args.routes} x "
        f"Lisbon-Warsaw routes + {args.maps} x dynamic map of ten long routes, looping in "
        f"a separate process; {args.probes} probes per phase in {args.rounds} alternating "
        f"rounds; FIT_WORKERS={args.fit_workers} (workers at nice +10); the offline upstream "
        f"and the load process at nice +{ELSEWHERE_NICE}, in sessions of their own (they "
        "stand in for TomTom and other users' clients, which run elsewhere)\n"
    )
    print(
        format_table(
            [
                "mode",
                "phase",
                "probes",
                "p50 ms",
                "p99 ms",
                "max ms",
                "p99 / idle p99",
                "load calls done",
            ],
            rows,
        )
    )
    for note in notes:
        print(note)
    if "pool" in ratios:
        verdict = "meets" if ratios["pool"] <= 3.0 else "misses"
        print(
            f"\npool: p99 under load is {ratios['pool']:.1f}x idle p99, {verdict} the 3x "
            "target" + (f"; inline: {ratios['inline']:.1f}x" if "inline" in ratios else "")
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
