"""Batch geocoding of 10,000 addresses on two replicas behind nginx, TomTom played by the
stand-in with a batch's processing time, the job resumed through the balancer.

    .venv/bin/python -m benchmarks.batch_geocode [--quick] [--rows 10000]
        [--start-s 5] [--items-per-s 150]

The topology of `loadtest.topology` (two replicas, nginx round robin), its upstream the
stand-in TomTom (`tests.standin`: the offline upstream, recording every request) taking
`--start-s` plus one second per `--items-per-s` queries to finish an asynchronous batch
(TomTom documents no processing time; these are assumed, and said in the report). The
addresses are a CSV (`id,address`) served on 127.0.0.1 as a `data_url`: mostly streets in
towns, some streets without a town (low confidence), bare names found in several places
(ambiguous), text with no place in it (unmatched) and empty rows.

As a host and its view would:

1. the model calls `tomtom-batch-geocode` on replica 1 directly: it sends the batch and
   answers with a job handle when TomTom is not done within the call;
2. the view resumes the job (`tomtom-resume-job`) through nginx, so on either replica,
   until TomTom is done: that answer draws the first points (every located row's
   position, when they fit inline);
3. the view fetches the rows' details in pages (two at a time, as it does), through
   nginx: then every row is drawn and listed;
4. the model calls `tomtom-job-result` on replica 2, the other replica, directly.

Reported: time to the first drawn point and to every row; the requests TomTom received
(the submission, each download long poll, each full download of the batch's answer and
its size); the model's text per answer; each replica's peak RSS.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import random
import sys
import time
from dataclasses import dataclass, field
from typing import Any

import httpx
import orjson

from benchmarks.files_site import serve_files
from loadtest.stats import format_table
from loadtest.topology import OFFLINE_KEY, RssSeries, run_topology
from loadtest.wire import call_tool, result_text
from tests.standin import forget, recorded
from tomtom_mcp_apps import fitting
from tomtom_mcp_apps.server.jobs import APP_DATA_KEY, BATCH_PAGE_KEY, JOB_KEY
from tomtom_mcp_apps.server.offline._geo import NAME_ROOTS, gazetteer
from tomtom_mcp_apps.server.tool_names import BATCH_GEOCODE, JOB_RESULT, RESUME_JOB

PAGES_AT_ONCE = 2
"""Pages the view asks for at once (`widgets/batch/jobs.js` PARALLEL)."""
TOWNS = 300
"""The most prominent Natural Earth places, which the addresses' streets are in."""
SHARED_NAMES = ("Springfield", "Valencia", "Portland", "Santa Cruz", "San Fernando")
"""Names several places of like size share: ambiguous, as TomTom answers them."""
EMPTY_ROWS = 40
"""Empty rows in the file (a batch of more than 100 takes at most 60)."""
CALL_TIMEOUT_S = 180.0


def addresses(rows: int, seed: int = 7) -> list[str]:
    """`rows` addresses, seeded: streets in towns (93%), streets without a town (3%),
    bare names found in several places (2%), text with no place in it (1%), some empty."""
    rng = random.Random(seed)
    towns = [place.name for place in gazetteer().places[:TOWNS]]
    empty = set(rng.sample(range(rows), min(EMPTY_ROWS, rows // 50)))
    out = []
    for i in range(rows):
        root = rng.choice(NAME_ROOTS)
        draw = rng.random()
        if i in empty:
            out.append("")
        elif draw < 0.93:
            out.append(f"{rng.randint(1, 240)} {root} Street, {rng.choice(towns)}")
        elif draw < 0.96:
            out.append(f"{rng.randint(1, 240)} {root} Road")
        elif draw < 0.98:
            out.append(rng.choice(SHARED_NAMES))
        else:
            out.append(rng.choice(["-", "?", "#7", "n/a"]))
    return out


def csv_of(rows: list[str]) -> bytes:
    lines = ["id,address"] + [f'{i + 1},"{row}"' for i, row in enumerate(rows)]
    return ("\n".join(lines) + "\n").encode()


@dataclass
class Run:
    rows: int
    start_s: float
    items_per_s: float
    first_call_s: float = 0.0
    first_state: str = ""
    first_point_s: float | None = None
    all_rows_s: float | None = None
    inline_rows: int = 0
    located: int = 0
    qualities: dict[str, int] = field(default_factory=dict)
    resumes: int = 0
    pages: int = 0
    page_chars: list[int] = field(default_factory=list)
    model_chars: dict[str, int] = field(default_factory=dict)
    tomtom: dict[str, int] = field(default_factory=dict)
    answer_bytes: int = 0
    file_downloads: int = 0
    idle_rss: list[int] = field(default_factory=list)
    peak_rss: list[int] = field(default_factory=list)
    other_replica_same: bool = False


def _data(result: dict[str, Any]) -> dict[str, Any]:
    """The decoded app data of a result (its `data` envelope member)."""
    meta = result.get("_meta") or {}
    if APP_DATA_KEY not in meta:
        raise RuntimeError(f"no app data: {result_text(result)[:300]}")
    return fitting.decode(meta[APP_DATA_KEY])["data"]


def _drawn(result: dict[str, Any]) -> tuple[str, bytes]:
    """What a view draws of a result: each row's quality and the located rows' points."""
    data = _data(result)
    return data["batch"]["q"], orjson.dumps(data["features"])


def _counts(q: str) -> dict[str, int]:
    names = {"M": "matched", "L": "low", "A": "ambiguous", "U": "unmatched", "E": "empty"}
    return {names[c]: q.count(c) for c in names if q.count(c)}


async def measure(
    rows: int, start_s: float, items_per_s: float, env: dict[str, str] | None = None
) -> Run:
    """One run of the flow above; the figures."""
    run = Run(rows, start_s, items_per_s)
    standin = [
        sys.executable,
        "-m",
        "tests.standin",
        "--batch-base-s",
        str(start_s),
        "--batch-items-per-s",
        str(items_per_s),
    ]
    body = csv_of(addresses(rows))
    with (
        serve_files({"/addresses.csv": ("text/csv", body)}) as site,
        run_topology(replicas=2, upstream_command=standin, env=env) as topology,
    ):
        assert topology.upstream is not None and topology.balancer_url is not None
        one, two = topology.replica_urls
        front = topology.balancer_url
        forget(topology.upstream.url)
        run.idle_rss = [service.rss_bytes() for service in topology.replicas]
        series = RssSeries(topology.replicas)
        try:
            answer, done = await _flow(run, one, two, front, f"{site.url}/addresses.csv")
        finally:
            samples = [sizes for _, sizes in await series.stop()]
        ends = [service.rss_bytes() for service in topology.replicas]
        run.peak_rss = [max([end, *(s[i] for s in samples)]) for i, end in enumerate(ends)]
        run.tomtom = _requests(recorded(topology.upstream.url))
        run.file_downloads = site.downloads["/addresses.csv"]
        if "job" in answer:
            run.answer_bytes = await _answer_bytes(topology.upstream.url, answer, done)
    return run


async def _flow(
    run: Run, one: str, two: str, front: str, data_url: str
) -> tuple[dict[str, Any], dict[str, Any]]:
    """The model's call, the view's resumes and pages, the model's resume on replica 2:
    the figures into `run`; the first answer's text and the finished result."""
    async with httpx.AsyncClient(timeout=CALL_TIMEOUT_S) as client:
        started = time.monotonic()
        args = {"data_url": data_url, "column": "address"}
        first = await call_tool(client, one, BATCH_GEOCODE, args)
        run.first_call_s = time.monotonic() - started
        answer = orjson.loads(result_text(first))
        run.model_chars["first answer"] = len(result_text(first))
        run.first_state = answer.get("state", "done")
        done = first
        while (done.get("_meta") or {}).get(JOB_KEY, {}).get("state") == "running":
            done = await call_tool(client, front, RESUME_JOB, {"job": answer["job"]})
            run.resumes += 1
        data = _data(done)
        batch = data["batch"]
        if data["features"]:
            run.first_point_s = time.monotonic() - started
        run.inline_rows = batch["to"]
        q = list(batch["q"])
        pages = batch.get("pages")
        if pages:
            q = [""] * batch["rows"]
            ranges = list(itertools.pairwise(pages))
            at_once = asyncio.Semaphore(PAGES_AT_ONCE)

            async def page(start: int, stop: int) -> None:
                async with at_once:
                    got = await call_tool(
                        client,
                        front,
                        RESUME_JOB,
                        {"job": answer["job"], "page": {"from": start, "to": stop}},
                    )
                place = got["_meta"][BATCH_PAGE_KEY]
                assert (place["from"], place["to"]) == (start, stop)
                run.page_chars.append(len(got["_meta"][APP_DATA_KEY]))
                q[start:stop] = list(_data(got)["batch"]["q"])

            await asyncio.gather(*(page(a, b) for a, b in ranges))
            run.pages = len(ranges)
        run.all_rows_s = time.monotonic() - started
        run.qualities = _counts("".join(q))
        run.located = sum(run.qualities.get(k, 0) for k in ("matched", "low", "ambiguous"))
        if run.first_point_s is None and run.located:
            run.first_point_s = run.all_rows_s
        if "job" in answer:
            model = await call_tool(client, two, JOB_RESULT, {"job": answer["job"]})
            run.model_chars["tomtom-job-result (done)"] = len(result_text(model))
            run.other_replica_same = _drawn(model) == _drawn(done)
        if run.first_state == "running":
            run.model_chars["running state"] = run.model_chars.pop("first answer")
    return answer, done


def _requests(seen: list[dict[str, Any]]) -> dict[str, int]:
    """TomTom's requests by kind: submissions, download polls, synchronous batches."""
    kinds: dict[str, int] = {}
    for request in seen:
        path, method = request["path"], request["method"]
        if path.startswith("/search/2/batch/sync"):
            kind = "synchronous batch"
        elif path.startswith("/search/2/batch") and method == "POST":
            kind = "batch submitted"
        elif path.startswith("/search/2/batch/"):
            kind = "batch download (poll or answer)"
        else:
            kind = f"{method} {path.split('/')[1] if '/' in path else path}"
        kinds[kind] = kinds.get(kind, 0) + 1
    return kinds


async def _answer_bytes(upstream: str, answer: dict[str, Any], done: dict[str, Any]) -> int:
    """The size of TomTom's answer to the batch, downloaded once more here (the stand-in
    keeps it): what each full download by a replica carries."""
    batch_id = _batch_id(upstream)
    if batch_id is None:
        return 0
    async with httpx.AsyncClient(timeout=60) as client:
        response = await client.get(f"{upstream}/search/2/batch/{batch_id}?key={OFFLINE_KEY}")
    return len(response.content) if response.status_code == 200 else 0


def _batch_id(upstream: str) -> str | None:
    for request in recorded(upstream):
        path = request["path"]
        if request["method"] == "GET" and path.startswith("/search/2/batch/"):
            return path.rsplit("/", 1)[-1]
    return None


def report(run: Run) -> str:
    mib = 1024 * 1024
    if run.start_s == 0 and run.items_per_s == 0:
        latency = "TomTom stand-in: the offline upstream as is (a batch done at once)"
    else:
        takes = run.start_s + (run.rows / run.items_per_s if run.items_per_s else 0.0)
        latency = (
            f"TomTom stand-in: a batch takes {run.start_s:g} s plus one second per "
            f"{run.items_per_s:g} queries ({takes:.0f} s for {run.rows:,} rows; assumed: "
            "TomTom documents no processing time)"
        )
    timeline = [
        ["first call answered", f"{run.first_call_s:.1f}", run.first_state],
        [
            "first point drawn",
            f"{run.first_point_s:.1f}" if run.first_point_s is not None else "-",
            f"after {run.resumes} resumes through nginx; {run.inline_rows:,} rows inline",
        ],
        [
            "every row drawn and listed",
            f"{run.all_rows_s:.1f}" if run.all_rows_s is not None else "-",
            f"{run.pages} pages, {max(run.page_chars, default=0):,} chars at most",
        ],
    ]
    rows_line = ", ".join(f"{k} {v:,}" for k, v in run.qualities.items())
    tomtom = ", ".join(f"{k}: {v}" for k, v in sorted(run.tomtom.items()))
    model = ", ".join(f"{k} {v:,}" for k, v in run.model_chars.items())
    rss = ", ".join(
        f"replica {i + 1} {peak / mib:.0f} MiB (idle {idle / mib:.0f})"
        for i, (idle, peak) in enumerate(zip(run.idle_rss, run.peak_rss, strict=True))
    )
    return "\n".join(
        [
            f"batch geocoding of {run.rows:,} addresses (CSV data_url), two replicas + nginx",
            latency,
            format_table(["", "s", ""], timeline),
            f"rows: {rows_line} ({run.located:,} located)",
            f"TomTom requests: {tomtom}; the batch's answer is {run.answer_bytes:,} bytes",
            f"data_url downloads: {run.file_downloads}",
            f"model text (chars): {model}",
            "the other replica's tomtom-job-result draws "
            + ("the same rows and points" if run.other_replica_same else "DIFFERENT rows"),
            f"peak RSS: {rss}",
        ]
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=10_000)
    parser.add_argument("--start-s", type=float, default=5.0, help="a batch's start-up time")
    parser.add_argument(
        "--items-per-s", type=float, default=150.0, help="queries a second (0: at once)"
    )
    parser.add_argument(
        "--quick", action="store_true", help="400 rows, 1 s + 100 a second, calls of 14 s"
    )
    args = parser.parse_args()
    env: dict[str, str] | None = None
    if args.quick:
        args.rows, args.start_s, args.items_per_s = 400, 6.0, 100.0
        env = {"TOOL_CALL_DEADLINE_S": "14"}
    print(report(asyncio.run(measure(args.rows, args.start_s, args.items_per_s, env))))


if __name__ == "__main__":
    main()
