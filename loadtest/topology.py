"""The compose topology without Docker: offline upstream, two replicas, nginx.

`python -m loadtest.topology` (or `deploy/run-topology`) starts it on
127.0.0.1 and keeps it up until Ctrl-C; `run_topology()` is the same as a
context manager for the replay, the benchmarks and the tests. Every service
runs in its own process group, so stopping or killing one (`kill`) takes its
fitting workers with it, as a pod's death would; `restart` stops one as a
rolling update does (SIGTERM to its main process, which drains) and starts it
again on the same port.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import multiprocessing
import os
import secrets
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from multiprocessing.queues import Queue
from multiprocessing.synchronize import Event
from pathlib import Path

import httpx
import orjson

from loadtest.balancer import nginx_command, render_nginx_conf
from tomtom_mcp_apps.server.config import API_FAMILIES

READY_TIMEOUT_S = 240.0
"""A cold numba cache compiles every kernel at start-up; a warm one takes seconds."""

_PAGE_SIZE = os.sysconf("SC_PAGE_SIZE")
_ROOT = Path(__file__).resolve().parent.parent

ELSEWHERE_NICE = 10
"""The priority, in benchmarks, of what production runs on other machines (the upstream
standing in for TomTom, other users' clients): it gets the cores last (`lower_priority`)."""

OFFLINE_KEY = "offline-demo"
"""The key replicas send to the separate offline upstream, which accepts any key."""


class TopologyError(RuntimeError):
    """A service did not start, or did not become ready in time (its log tail says why)."""


DRAIN_WAIT_S = 60.0
"""How long `restart` waits for a replica to drain and exit (its DRAIN_TIMEOUT_S is 25 s)."""


@dataclass
class Service:
    name: str
    process: subprocess.Popen[bytes]
    url: str
    log: Path
    command: Sequence[str] = ()
    env: dict[str, str] | None = None

    def log_tail(self, lines: int = 30) -> str:
        try:
            return "\n".join(self.log.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return "(no log)"

    def log_events(self, settle_s: float = 0.05, timeout_s: float = 2.0) -> list[dict]:
        """The JSON log lines written so far (`LOG_FORMAT=json`; other lines skipped).

        A service's logging thread writes a line a moment after the event it records, so
        the log is read once it has not grown for `settle_s` (waiting `timeout_s` at most,
        for a service that never stops logging)."""
        deadline = time.monotonic() + timeout_s
        size = -1
        while (now := self.log.stat().st_size) != size and time.monotonic() < deadline:
            size = now
            time.sleep(settle_s)
        events = []
        for line in self.log.read_bytes().splitlines():
            with contextlib.suppress(orjson.JSONDecodeError):
                events.append(orjson.loads(line))
        return events

    def rss_bytes(self) -> int:
        """Resident memory of the service and its children (its process group), in bytes."""
        return _group_rss(self.process.pid)


@dataclass
class Topology:
    replicas: list[Service]
    upstream: Service | None = None
    balancer: Service | None = None
    workdir: Path = field(default_factory=Path)

    @property
    def replica_urls(self) -> list[str]:
        """The `/mcp` endpoint of each replica."""
        return [f"{s.url}/mcp" for s in self.replicas]

    @property
    def balancer_url(self) -> str | None:
        return f"{self.balancer.url}/mcp" if self.balancer else None

    def services(self) -> list[Service]:
        return [s for s in (self.balancer, *self.replicas, self.upstream) if s is not None]

    def kill(self, name: str) -> None:
        """SIGKILL a service and its children (fitting workers), like a pod that dies."""
        service = next(s for s in self.services() if s.name == name)
        _signal_group(service.process, signal.SIGKILL)
        service.process.wait(timeout=10)

    def restart(self, name: str, timeout: float = READY_TIMEOUT_S) -> None:
        """Stop a replica as a rolling update does (SIGTERM to its main process only: it
        drains, then exits) and start it again on the same port, waiting until ready."""
        service = next(s for s in self.replicas if s.name == name)
        service.process.send_signal(signal.SIGTERM)
        try:
            service.process.wait(timeout=DRAIN_WAIT_S)
        finally:
            _signal_group(service.process, signal.SIGKILL)  # leftovers, if it hung
        port = int(service.url.rsplit(":", 1)[1])
        fresh = start(name, service.command, port, service.log.parent, service.env, append=True)
        self.replicas[self.replicas.index(service)] = fresh
        wait_ready(fresh, timeout)

    def rolling_restart(self) -> None:
        """Every replica restarted (`restart`), one after the other."""
        for name in [s.name for s in self.replicas]:
            self.restart(name)


class RssSeries:
    """The `rss_bytes` of some services, sampled every `every_s` by a process of its own:
    reading /proc takes milliseconds of a GIL, which in the caller would delay the very
    calls a benchmark times or a soak drives."""

    def __init__(self, services: Sequence[Service], every_s: float = 0.25) -> None:
        spawn = multiprocessing.get_context("spawn")
        self._stop = spawn.Event()
        self._out: Queue = spawn.Queue()
        groups = [service.process.pid for service in services]
        self._process = spawn.Process(
            target=_sample_rss, args=(groups, every_s, self._stop, self._out)
        )
        self._process.start()

    async def stop(self) -> list[tuple[float, list[int]]]:
        """Stop sampling; the samples: (`time.monotonic()`, bytes of each service)."""
        self._stop.set()
        samples: list[tuple[float, list[int]]] = await asyncio.to_thread(
            self._out.get, timeout=60.0
        )
        self._process.join()
        return samples


class PeakRss:
    """The highest `rss_bytes` of a service while this runs (`RssSeries` of one)."""

    def __init__(self, service: Service, every_s: float = 0.25) -> None:
        self._series = RssSeries([service], every_s)

    async def stop(self) -> int:
        """Stop sampling; the peak in bytes."""
        return max((sizes[0] for _, sizes in await self._series.stop()), default=0)


def _sample_rss(groups: list[int], every_s: float, stop: Event, out: Queue) -> None:
    samples = []
    while not stop.wait(every_s):
        samples.append((time.monotonic(), [_group_rss(group) for group in groups]))
    out.put(samples)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def replica_env(
    upstream_url: str | None,
    extra: Mapping[str, str] | None = None,
    tile_secret: str | None = None,
) -> dict[str, str]:
    """Environment of a replica: the separate upstream if given (with `tile_secret`, shared
    by the topology's replicas, for the tile route), else the built-in one."""
    env = dict(os.environ)
    for name in ("TOMTOM_API_KEY", "TOMTOM_API_BASE_URL", "TILE_TOKEN_SECRET", "PUBLIC_URL"):
        env.pop(name, None)
    if upstream_url:
        env["TOMTOM_API_KEY"] = OFFLINE_KEY
        env["TOMTOM_API_BASE_URL"] = upstream_url
        env["TILE_TOKEN_SECRET"] = tile_secret or secrets.token_urlsafe(32)
    env["DATA_VIZ_ALLOW_PRIVATE"] = "1"  # the replay serves data-viz GeoJSON on 127.0.0.1
    # The replay's one key stands in for many users' keys: TomTom's per-key rates would
    # pace the load itself, not what it measures; its one address stands in for many
    # clients, whose rate and share of calls in flight per client would do the same.
    env["TOMTOM_QPS"] = ",".join(f"{family}=10000" for family in sorted(API_FAMILIES))
    env["CLIENT_RATE_PER_S"] = "0"
    env["CLIENT_MAX_IN_FLIGHT"] = "100000"  # the replica's own ceiling still holds
    env.update(extra or {})
    return env


@contextlib.contextmanager
def run_topology(
    *,
    replicas: int = 2,
    balancer_port: int | None = None,
    with_balancer: bool = True,
    with_upstream: bool = True,
    fit_workers: int | None = None,
    env: Mapping[str, str] | None = None,
    workdir: Path | None = None,
    ready_timeout: float = READY_TIMEOUT_S,
    upstream_nice: int = 0,
    upstream_command: Sequence[str] | None = None,
) -> Iterator[Topology]:
    """Start the services, wait until every replica's pool is warm, stop them all on exit.

    `upstream_nice` lowers the offline upstream's CPU priority: it stands in for TomTom,
    which runs on other machines, so a latency benchmark should not let it take the
    replica's cores. `upstream_command` runs another upstream in its place (the stand-in,
    `tests.standin`, with TomTom's batch processing time): a command that takes `--host`
    and `--port`."""
    with contextlib.ExitStack() as stack:
        if workdir is None:
            workdir = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="topology-")))
        workdir.mkdir(parents=True, exist_ok=True)
        topology = Topology(replicas=[], workdir=workdir)
        stack.callback(lambda: stop(topology.services()))
        if with_upstream:
            port = free_port()
            command = (
                [*upstream_command, "--host", "127.0.0.1", "--port", str(port)]
                if upstream_command
                else cli(["upstream"], port)
            )
            topology.upstream = start("upstream", command, port, workdir, dict(os.environ))
            if upstream_nice:
                lower_priority(topology.upstream.process.pid, upstream_nice)
            wait_ready(topology.upstream, ready_timeout)
        upstream_url = topology.upstream.url if topology.upstream else None
        extra = dict(env or {})
        if fit_workers is not None:
            extra["FIT_WORKERS"] = str(fit_workers)
        front = (balancer_port or free_port()) if with_balancer else None
        if front is not None:  # views load tiles through the balancer, as users reach it
            extra.setdefault("PUBLIC_URL", f"http://127.0.0.1:{front}/mcp")
        tile_secret = secrets.token_urlsafe(32)  # one per topology: every replica opens tokens
        for i in range(1, replicas + 1):
            port = free_port()
            topology.replicas.append(
                start(
                    f"replica-{i}",
                    cli(["serve"], port),
                    port,
                    workdir,
                    replica_env(upstream_url, extra, tile_secret),
                )
            )
        for service in topology.replicas:
            wait_ready(service, ready_timeout)
        if front is not None:
            port = front
            addresses = [s.url.removeprefix("http://") for s in topology.replicas]
            prefix = workdir / "nginx"
            prefix.mkdir(exist_ok=True)
            conf = prefix / "nginx.conf"
            conf.write_text(render_nginx_conf(addresses, f"127.0.0.1:{port}"))
            topology.balancer = start("balancer", nginx_command(prefix, conf), port, workdir, None)
            wait_ready(topology.balancer, ready_timeout)
        yield topology


def cli(args: Sequence[str], port: int) -> list[str]:
    """`tomtom-mcp-apps <args>` on 127.0.0.1:`port`, with this interpreter."""
    return [
        sys.executable,
        "-m",
        "tomtom_mcp_apps",
        *args,
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
    ]


@contextlib.contextmanager
def serving(
    name: str,
    command: Sequence[str],
    port: int,
    *,
    env: dict[str, str] | None = None,
    ready: Callable[[Service, float], None] | None = None,
    timeout: float = READY_TIMEOUT_S,
) -> Iterator[Service]:
    """One service for the length of a block: started, waited for (`wait_ready` unless
    `ready` says otherwise), and stopped with its process group; its log goes with it."""
    with tempfile.TemporaryDirectory(prefix=f"{name}-") as workdir:
        service = start(name, command, port, Path(workdir), env)
        try:
            (ready or wait_ready)(service, timeout)
            yield service
        finally:
            stop([service])


def start(
    name: str,
    command: Sequence[str],
    port: int,
    workdir: Path,
    env: dict[str, str] | None,
    *,
    append: bool = False,
    cwd: Path = _ROOT,
) -> Service:
    """Launch `command` in a process group of its own, in `cwd` (this checkout unless said:
    an earlier release runs from its own), its output to `workdir/<name>.log` (added to it
    when `append`: a restarted service keeps one log)."""
    log = workdir / f"{name}.log"
    with log.open("ab" if append else "wb") as out:
        process = subprocess.Popen(
            command,
            stdout=out,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            env=env,
            cwd=cwd,
            start_new_session=True,
        )
    return Service(name, process, f"http://127.0.0.1:{port}", log, list(command), env)


def lower_priority(pid: int, nice: int) -> None:
    """Give process `pid`, the leader of a session of its own, the CPU after everything
    else at `nice` (0 to 19): for what stands in, in a benchmark, for what runs on other
    machines in production (TomTom, other users' clients).

    With the kernel's autogroup scheduling (`/proc/sys/kernel/sched_autogroup_enabled`)
    a session's processes compete with other sessions as one group, whatever their own
    nice values: the group's nice is what counts, so both are set."""
    os.setpriority(os.PRIO_PROCESS, pid, nice)
    with contextlib.suppress(OSError):
        Path(f"/proc/{pid}/autogroup").write_text(str(nice))


def wait_listening(service: Service, timeout: float) -> None:
    """Until the service accepts TCP connections (for services without `/health`)."""
    port = int(service.url.rsplit(":", 1)[1])
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        _check_alive(service)
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 0.5):
            return
        time.sleep(0.1)
    raise TopologyError(
        f"{service.name} did not listen within {timeout:.0f} s\n{service.log_tail()}"
    )


def wait_ready(service: Service, timeout: float) -> None:
    """Poll `/health` until it answers 200: a replica does once its fitting pool is warm."""
    deadline = time.monotonic() + timeout
    last = "no answer"
    with httpx.Client(timeout=2.0) as client:
        while time.monotonic() < deadline:
            _check_alive(service)
            try:
                response = client.get(f"{service.url}/health")
                if response.status_code == 200:
                    return
                last = f"HTTP {response.status_code}: {response.text[:200]}"
            except httpx.HTTPError as exc:
                last = f"{type(exc).__name__}: {exc}"
            time.sleep(0.2)
    raise TopologyError(
        f"{service.name} was not ready within {timeout:.0f} s ({last})\n{service.log_tail()}"
    )


def _check_alive(service: Service) -> None:
    if service.process.poll() is not None:
        raise TopologyError(
            f"{service.name} exited with code {service.process.returncode}\n{service.log_tail()}"
        )


def _signal_group(process: subprocess.Popen[bytes], sig: signal.Signals) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, sig)


def _group_rss(group: int) -> int:
    return sum(rss for _, rss in _group_members(group))


def group_cpu_seconds(group: int) -> float:
    """User and system CPU time the live processes of a process group have used so far
    (a replica's: its event loop and its fitting workers)."""
    ticks = 0
    for pid, _ in _group_members(group):
        with contextlib.suppress(OSError, ValueError, IndexError):
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            ticks += int(fields[11]) + int(fields[12])  # utime, stime
    return ticks / os.sysconf("SC_CLK_TCK")


def _group_members(group: int) -> list[tuple[int, int]]:
    """(pid, rss bytes) of the live (not zombie) processes in a process group."""
    members = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        with contextlib.suppress(OSError, ValueError, IndexError):
            fields = stat.read_text().rsplit(")", 1)[1].split()
            # stat fields after the command: state, ppid, pgrp, ... rss (24th overall)
            if int(fields[2]) == group and fields[0] != "Z":
                members.append((int(stat.parent.name), int(fields[21]) * _PAGE_SIZE))
    return members


def stop(services: Sequence[Service]) -> None:
    """SIGTERM each service's process group, SIGKILL what is left after 15 s."""
    for service in services:
        _signal_group(service.process, signal.SIGTERM)
    for service in services:
        try:
            service.process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            _signal_group(service.process, signal.SIGKILL)
            service.process.wait(timeout=10)
        # Fitting workers left behind by a replica that died share its process group.
        _signal_group(service.process, signal.SIGKILL)
    deadline = time.monotonic() + 10
    while any(_group_members(s.process.pid) for s in services) and time.monotonic() < deadline:
        time.sleep(0.05)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m loadtest.topology",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--port", type=int, default=8080, help="balancer port (default 8080)")
    parser.add_argument("--replicas", type=int, default=2)
    parser.add_argument("--fit-workers", type=int, default=None)
    parser.add_argument(
        "--builtin-upstream",
        action="store_true",
        help="no separate upstream: each replica uses its in-process one",
    )
    args = parser.parse_args(argv)
    # A shell starts background jobs with SIGINT ignored; Ctrl-C and `kill -INT` must stop us.
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    try:
        with run_topology(
            replicas=args.replicas,
            balancer_port=args.port,
            with_upstream=not args.builtin_upstream,
            fit_workers=args.fit_workers,
        ) as topology:
            for service in topology.services():
                print(
                    f"{service.name:<10} {service.url}  (pid {service.process.pid}, "
                    f"log {service.log})"
                )
            print(
                f"\nMCP endpoint: {topology.balancer_url}\n"
                f"replay: .venv/bin/python -m loadtest.replay --url {topology.balancer_url}\n"
                "Ctrl-C stops everything.",
                flush=True,
            )
            while all(s.process.poll() is None for s in topology.services()):
                time.sleep(0.5)
            dead = [s for s in topology.services() if s.process.poll() is not None]
            for service in dead:
                print(
                    f"{service.name} exited ({service.process.returncode}):\n{service.log_tail()}",
                    file=sys.stderr,
                )
            return 1
    except KeyboardInterrupt:
        return 0
    except TopologyError as exc:
        print(exc, file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
