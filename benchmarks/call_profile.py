"""Where one short call's CPU goes, cost by cost, on this checkout and on an earlier release.

    .venv/bin/python -m benchmarks.call_profile [--calls 200] [--case geocode --case route]
        [--release b087c95] [--no-releases]

Each checkout (this one, and each `--release`, installed as `benchmarks.short_calls`
installs it) runs in a process of its own, with its own interpreter and code: it builds
its app and serves the calls in process through the ASGI interface (no server socket; the
TomTom requests do go over HTTP), the geocode keyless (the built-in offline upstream),
the short route against the stand-in TomTom (`tests.standin`, started once here and
answering from its cache). After warm-up, each named function below is timed in CPU time
of the thread (`time.thread_time`, which the machine's other processes do not change),
from its outermost entry to its exit, per call; an async function's time is its own and
that of whatever the one call does meanwhile on the loop, never the time it waits. A
function a checkout does not have is shown as "-". Costs nest as indented.
"""

from __future__ import annotations

import argparse
import functools
import importlib
import inspect
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
BEFORE = "b087c95"
"""The earlier release profiled by default."""
CALLS = {
    "geocode": ("tomtom-geocode", {"query": "Amsterdam"}),
    "route": ("tomtom-routing", {"locations": [[4.48, 51.92], [6.96, 50.94]]}),
}
"""`benchmarks.short_calls`'s geocode and short route (4,342 points)."""
WARM_UP = 20
HEADERS = {
    "content-type": "application/json",
    "accept": "application/json, text/event-stream",
    "mcp-protocol-version": "2025-11-25",
}
SDK = "mcp.server.mcpserver"
META = f"{SDK}.utilities.func_metadata"
COSTS: list[tuple[str, list[tuple[str, str]]]] = [
    ("the app (Starlette, the SDK, the tool)", [("starlette.applications", "Starlette.__call__")]),
    (" the tool call (SDK's MCPServer.call_tool)", [(f"{SDK}.server", "MCPServer.call_tool")]),
    ("  argument validation", [(META, "FuncMetadata.validate_arguments")]),
    ("  the tool's function", [(META, "FuncMetadata.call_fn")]),
    ("   TomTom request (made, sent, read)", [("server.tomtom._client", "TomTomClient._fetch"),
                                             ("server.tomtom", "TomTomClient._fetch")]),
    ("    its URL", [("server.tomtom._client", "request_url")]),
    ("    sent and read (the HTTP seam)", [("server.tomtom._client", "TomTomClient._send"),
                                           ("server.tomtom", "TomTomClient._send")]),
    ("   the job (Placement.run)", [("server.pool._placement", "Placement.run")]),
    ("    the route job (jobs.routing)", [("server.jobs._routes", "routing"),
                                          ("server.route_job", "routing")]),
    ("    body inflated", [("server.bodies._raw", "RawBody.decoded"),
                           ("server.tomtom._body", "RawBody.decoded"),
                           ("server.upstream_body", "RawBody.decoded")]),
    ("    route body parsed (points as arrays)", [
        ("server.bodies._route_points", "split_route_body"),
        ("server.tomtom._route_body", "parse_route_body"),
        ("server.route_body", "parse_route_body")]),
    ("    answer checks of the routes", [("server.jobs._routes", "checked_routes"),
                                         ("server.jobs._features", "checked_route")]),
    ("    result assembly (jobs.prepare)", [("server.jobs._result", "prepare"),
                                            ("server.app_data", "prepare")]),
    ("     map data fitted and encoded", [("fitting", "fit")]),
    ("   logs and metrics of the result", [("server.tools._delivery", "_record"),
                                           ("server.delivery", "_record")]),
    ("  the result converted (SDK)", [(META, "FuncMetadata.convert_result")]),
    ("logging, wherever (Logger._log)", [("logging", "Logger._log")]),
    ("tracing spans, wherever", [("server.ops.tracing", "span")]),
]  # fmt: skip
"""(label, where to find it: the first of (module, function or Class.method) that a
checkout has) of each cost, in the order shown."""


OURS = ("server", "fitting")
"""Top-level names of this project's code in releases before 0.2.0; since then they live
under `tomtom_mcp_apps`."""


def ours(module: str) -> Any:
    """`module` of this project, as the checkout running it names it."""
    try:
        return importlib.import_module(f"tomtom_mcp_apps.{module}")
    except ModuleNotFoundError:
        return importlib.import_module(module)


# --- the child: one checkout's calls, in process ---------------------------------------------


def child(case: str, calls: int, standin: str) -> dict[str, float | None]:
    """CPU milliseconds per call: of the whole loop (the client included) and of each cost."""
    sys.path.insert(0, os.getcwd())
    import httpx
    import orjson
    import uvloop

    build_app = ours("server.app").build_app
    Settings = ours("server.config").Settings
    try:
        configure_logging = ours("server.ops.logs").configure_logging
    except ModuleNotFoundError:  # a checkout with the older package layout
        configure_logging = ours("server.logs").configure

    spent: dict[str, float | None] = {}
    for label, candidates in COSTS:
        spent[label] = None
        for module, name in candidates:
            try:
                found_in = ours(module) if module.split(".")[0] in OURS else None
                if _timed(found_in or importlib.import_module(module), name, spent, label):
                    spent[label] = 0.0
                    break
            except ModuleNotFoundError:
                continue
    env = {"FIT_WORKERS": "1", "CLIENT_RATE_PER_S": "0"}  # one client asks for every call
    if case == "route":
        env |= {
            "TOMTOM_API_KEY": "offline-demo",
            "TOMTOM_API_BASE_URL": standin,
            "TOMTOM_QPS": "search=10000,routing=10000",
            "TILE_TOKEN_SECRET": "x" * 40,
        }
    configure_logging("INFO", False)
    app = build_app(Settings.from_env(env=env))
    tool, arguments = CALLS[case]

    async def run() -> float:
        async with app.router.lifespan_context(app):
            transport = httpx.ASGITransport(app)
            async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as c:
                for i in range(WARM_UP + calls):
                    if i == WARM_UP:
                        spent.update({k: 0.0 for k, v in spent.items() if v is not None})
                        started = time.thread_time()
                    params = {"name": tool, "arguments": arguments}
                    request = {"jsonrpc": "2.0", "id": i, "method": "tools/call", "params": params}
                    answer = await c.post("/mcp", content=orjson.dumps(request), headers=HEADERS)
                    if answer.status_code != 200 or b'"isError":true' in answer.content:
                        raise RuntimeError(f"{tool} failed: {answer.content[:300]!r}")
                return time.thread_time() - started

    whole = uvloop.run(run())
    found = {"whole call, in process (the client too)": whole * 1000 / calls}
    found |= {k: None if v is None else v * 1000 / calls for k, v in spent.items()}
    return found


def _timed(module: Any, name: str, spent: dict[str, float | None], label: str) -> bool:
    """Replaces `module.name` (or `module.Class.method`), and every module's binding of the
    same function, with one that adds its CPU time to `spent[label]`; False if absent."""
    owner, _, attr = name.rpartition(".")
    holder = getattr(module, owner) if owner else module
    func = getattr(holder, attr, None)
    if func is None:
        return False
    depth = [0]

    def add(started: float) -> None:
        depth[0] -= 1
        if not depth[0]:  # the outermost entry only
            spent[label] = (spent[label] or 0.0) + time.thread_time() - started

    if inspect.iscoroutinefunction(func):

        @functools.wraps(func)
        async def timed(*args: Any, **kwargs: Any) -> Any:
            depth[0] += 1
            started = time.thread_time()
            try:
                return await func(*args, **kwargs)
            finally:
                add(started)
    else:

        @functools.wraps(func)
        def timed(*args: Any, **kwargs: Any) -> Any:
            depth[0] += 1
            started = time.thread_time()
            try:
                return func(*args, **kwargs)
            finally:
                add(started)

    setattr(holder, attr, timed)
    for other in list(sys.modules.values()):
        for key, value in list(getattr(other, "__dict__", {}).items()):
            if value is func and other is not holder:
                setattr(other, key, timed)
    return True


# --- the parent: a stand-in, each checkout in turn, one table per case -----------------------


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description=__doc__.splitlines()[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--calls", type=int, default=200)
    parser.add_argument("--case", action="append", choices=sorted(CALLS))
    parser.add_argument("--release", action="append", help=f"default: {BEFORE}")
    parser.add_argument("--no-releases", action="store_true")
    parser.add_argument("--releases-dir", type=Path)
    parser.add_argument("--child", nargs=2, metavar=("CASE", "STANDIN"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:  # run by a checkout's own interpreter, from its own directory
        print(json.dumps(child(args.child[0], args.calls, args.child[1])))
        return
    # Only the parent needs these; a child imports the checkout it times and nothing else.
    from benchmarks.short_calls import CLOCK, RELEASES_DIR, installed
    from loadtest.stats import format_table
    from loadtest.topology import free_port, start, stop, wait_ready

    versions: list[tuple[str, Path, Path]] = [("this checkout", Path(sys.executable), ROOT)]
    for commit in [] if args.no_releases else args.release or [BEFORE]:
        where = installed(commit, args.releases_dir or RELEASES_DIR)
        versions.append((commit, where / ".venv" / "bin" / "python", where))
    with tempfile.TemporaryDirectory(prefix="call-profile-") as tmp:
        port = free_port()
        command = [sys.executable, "-m", "tests.standin", "--clock", CLOCK, "--port", str(port)]
        standin = start("standin", command, port, Path(tmp), None)
        try:
            wait_ready(standin, 60)
            for case in args.case or sorted(CALLS):
                found = {
                    label: _run_child(python, cwd, case, args.calls, standin.url)
                    for label, python, cwd in versions
                }
                labels = list(found)
                rows = [
                    [cost, *(_ms(found[label].get(cost)) for label in labels)]
                    for cost in found[labels[0]]
                ]
                print(f"{case}: CPU ms per call, {args.calls} calls after {WARM_UP}")
                print(format_table(["cost", *labels], rows), end="\n\n", flush=True)
        finally:
            stop([standin])


def _ms(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"


def _run_child(python: Path, cwd: Path, case: str, calls: int, standin: str) -> dict[str, Any]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    command = [str(python), str(Path(__file__)), "--calls", str(calls), "--child", case, standin]
    done = subprocess.run(
        command, cwd=cwd, env=env, capture_output=True, text=True, timeout=900, check=False
    )
    if done.returncode:
        raise RuntimeError(f"{cwd}: {done.stderr.strip()[-2000:]}")
    found: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return found


if __name__ == "__main__":
    main()
