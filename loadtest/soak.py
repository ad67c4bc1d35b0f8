"""A bounded soak: the replay mix, held at a steady concurrency across two replicas, memory watched.

    python -m loadtest.soak                      # 30 minutes, 32 concurrent
    python -m loadtest.soak --minutes 5 --concurrency 16
    python -m loadtest.soak --quick              # 20 s, 8 concurrent: what the tests run

Starts the offline upstream and two replicas (as `loadtest.replay` does) and replays
its mix for the given time, each fetch calling its tool on one replica and fetching
its widget's data on the other. A process of its own samples each replica's RSS (the
server and its fitting workers) every `--sample-s` seconds. After a warm-up (a tenth
of the run) it reports, per replica, RSS at the start, the peak and the end (each end
a mean over the run's last tenth, as the start is over the tenth after warm-up), and
the replay's table with its last line `misses: M/N`.

Exit 1 on any miss, 2 on failed calls or tool errors, 3 when a replica ends more than
`--max-growth` (10%) above its start; a quick run reports memory but does not judge it
(twenty seconds do not get past warm-up).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import statistics
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass

from loadtest.geojson_site import serve_geojson
from loadtest.mix import replay_mix
from loadtest.replay import Route, exit_code, run_replay, summary
from loadtest.stats import format_table
from loadtest.topology import RssSeries, TopologyError, run_topology

MIB = 1024 * 1024


@dataclass(frozen=True)
class Memory:
    """One replica's RSS over the run, in bytes."""

    name: str
    start: float
    peak: int
    end: float

    @property
    def growth(self) -> float:
        return self.end / self.start - 1 if self.start else 0.0


def memory(name: str, samples: Sequence[tuple[float, int]], started: float, ended: float) -> Memory:
    """Start (mean over the tenth after warm-up), peak, end (mean over the last tenth)."""
    tenth = (ended - started) / 10
    warm = started + tenth
    after = [(t, rss) for t, rss in samples if t >= warm] or list(samples)
    first = [rss for t, rss in after if t < warm + tenth] or [after[0][1]]
    last = [rss for t, rss in after if t >= ended - tenth] or [after[-1][1]]
    return Memory(
        name, statistics.fmean(first), max(rss for _, rss in after), statistics.fmean(last)
    )


def memory_table(replicas: Sequence[Memory]) -> str:
    rows = [
        [
            m.name,
            f"{m.start / MIB:.0f}",
            f"{m.peak / MIB:.0f}",
            f"{m.end / MIB:.0f}",
            f"{m.growth:+.1%}",
        ]
        for m in replicas
    ]
    return format_table(["replica", "RSS start MiB", "peak MiB", "end MiB", "end vs start"], rows)


async def soak(seconds: float, concurrency: int, sample_s: float, fit_workers: int | None) -> tuple:
    """Run the soak; (outcomes, memory per replica)."""
    with contextlib.ExitStack() as stack:
        geojson_url = stack.enter_context(serve_geojson())
        topology = stack.enter_context(run_topology(with_balancer=False, fit_workers=fit_workers))
        sampler = RssSeries(topology.replicas, sample_s)
        scenarios = replay_mix(geojson_url)
        started = time.monotonic()
        try:
            outcomes = await run_replay(
                scenarios,
                Route(topology.replica_urls, len(scenarios)),
                count=concurrency,
                concurrency=concurrency,
                until=started + seconds,
            )
        finally:
            samples = await sampler.stop()
        ended = time.monotonic()
        replicas = [
            memory(service.name, [(t, sizes[i]) for t, sizes in samples], started, ended)
            for i, service in enumerate(topology.replicas)
        ]
    return outcomes, replicas


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m loadtest.soak",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--minutes", type=float, default=30.0)
    parser.add_argument("--concurrency", type=int, default=32)
    parser.add_argument("--sample-s", type=float, default=2.0, help="RSS sampling period")
    parser.add_argument("--max-growth", type=float, default=0.10, help="end over start, at most")
    parser.add_argument("--fit-workers", type=int, help="FIT_WORKERS of the replicas")
    parser.add_argument(
        "--quick", action="store_true", help="20 s at 8 concurrent, memory unjudged"
    )
    args = parser.parse_args(argv)
    seconds = 20.0 if args.quick else args.minutes * 60
    concurrency = 8 if args.quick else args.concurrency
    if seconds <= 0 or concurrency < 1:
        parser.error("--minutes must be positive and --concurrency at least 1")
    print(
        f"soak: {seconds:.0f} s of the replay mix at {concurrency} concurrent across two "
        "replicas...",
        file=sys.stderr,
    )
    try:
        outcomes, replicas = asyncio.run(
            soak(seconds, concurrency, 0.5 if args.quick else args.sample_s, args.fit_workers)
        )
    except TopologyError as exc:
        print(exc, file=sys.stderr)
        return 4
    print(memory_table(replicas))
    grown = [m for m in replicas if m.growth > args.max_growth]
    if args.quick:
        print("memory not judged (quick run: no time past warm-up)")
    else:
        for m in grown:
            print(f"{m.name} ended {m.growth:.1%} above its start (limit {args.max_growth:.0%})")
    print(f"fetches: {len(outcomes)} in {seconds:.0f} s ({len(outcomes) / seconds:.1f}/s)")
    print(summary(outcomes), flush=True)
    code = exit_code(outcomes, failures_expected=False)
    if code == 0 and grown and not args.quick:
        return 3
    return code


if __name__ == "__main__":
    sys.exit(main())
