"""The fitting process pool: CPU-bound jobs run here, so the event loop never blocks.

One entry point, `FitPool.run_in_process(func, *args, size=...)`. Warmed at start-up, it
hands the executor only as many jobs as it has workers (the rest wait in `_admission.py`'s
order) and is rebuilt when a worker dies. Workers ignore SIGTERM and SIGINT, since the
replica finishes its jobs and stops them itself (`close` kills them at once, warming or
not), and exit when their parent is gone.
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import functools
import logging
import math
import multiprocessing
import multiprocessing.connection
import multiprocessing.context
import os
import signal
import threading
import time
from collections.abc import Callable, Mapping
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any, TypeVar

from tomtom_mcp_apps import fitting
from tomtom_mcp_apps.server.errors import BusyError, FitWorkerDied
from tomtom_mcp_apps.server.ops import metrics, tracing
from tomtom_mcp_apps.server.ops.heap import freeze_startup_heap
from tomtom_mcp_apps.server.pool._admission import BYTES_PER_SECOND, Admission

log = logging.getLogger(__name__)

T = TypeVar("T")


class FitPool:
    """A bounded, self-healing `ProcessPoolExecutor` warmed with the fitting kernels."""

    def __init__(
        self,
        workers: int,
        *,
        least_work_first: bool = True,
        traces_exporter: str = "none",
        max_queued_bytes: int = 256 * 1024 * 1024,
    ) -> None:
        self._workers = workers
        self._max_queued_bytes = max_queued_bytes
        self._traces_exporter = traces_exporter
        self._admission = Admission(workers, BYTES_PER_SECOND if least_work_first else None)
        self._executor: ProcessPoolExecutor | None = None
        self._context: _WorkerContext | None = None
        self._rebuild_lock = asyncio.Lock()
        self._warm_done = asyncio.Event()
        self._warming: asyncio.Task[None] | None = None

    @property
    def ready(self) -> bool:
        """Every worker has its kernels compiled (what `/health` reports)."""
        return self._warm_done.is_set()

    def start(self) -> None:
        """Create the workers and warm them in the background; calls wait until warm."""
        self._executor = self._new_executor()
        self._warming = asyncio.get_running_loop().create_task(self._warm(self._executor))

    async def run_in_process(self, func: Callable[..., T], *args: object, size: int = 0) -> T:
        """Run `func(*args)` in a worker; both must pickle. Waits for a free worker first,
        behind jobs with less work to do (`size`: the bytes the job decodes). Refused at
        once with `BusyError` when the jobs already waiting and this one would pass
        `max_queued_bytes` (`FIT_QUEUE_MAX_BYTES`): what waits is held in memory, and
        would only wait longer; a job alone in the queue is never refused."""
        waiting = self._admission.waiting_bytes
        if waiting and waiting + size > self._max_queued_bytes:
            raise self._busy(waiting)
        metrics.POOL_QUEUE.inc()
        try:
            async with self._admission.slot(size):
                with tracing.span("pool wait", attributes={"pool.job_bytes": size}):
                    await self._warm_done.wait()
                executor = self._executor
                if executor is None:
                    raise RuntimeError("the fitting pool is closed")
                try:
                    with tracing.span("worker job", attributes={"pool.job": func.__name__}):
                        call = functools.partial(_run, tracing.carrier(), func, *args)
                        return await asyncio.get_running_loop().run_in_executor(executor, call)
                except BrokenProcessPool:
                    await self._rebuild(executor)
                    raise FitWorkerDied(
                        "a fitting worker died while preparing the map data; the pool was "
                        "restarted, so calling the tool again should work"
                    ) from None
        finally:
            metrics.POOL_QUEUE.dec()

    def _busy(self, waiting: int) -> BusyError:
        metrics.REFUSALS.labels("pool_queue").inc()
        retry = max(1, math.ceil(waiting / (BYTES_PER_SECOND * self._workers)))
        return BusyError(
            f"This server is busy: {waiting / 2**20:.0f} MiB of map data is already waiting "
            f"to be prepared; retry in {retry} s.",
            retry_after=retry,
        )

    def close(self) -> None:
        """Stop now: jobs waiting are cancelled and the workers killed, mid-job or warming
        (they ignore SIGTERM), then reaped. Whoever closes the pool has no use for what
        they would return, and a local host kills a server that takes more than a
        moment to exit, leaking its queues' semaphores (docs/runtime.md)."""
        if self._warming is not None:
            self._warming.cancel()
        executor, context = self._executor, self._context
        self._executor = self._context = None
        self._warm_done.clear()
        if executor is None or context is None:
            return
        for process in context.started:
            process.kill()
        # The executor sees its workers gone, fails what was pending and closes its queues
        # and its thread; waited for, so that nothing of it is left at the interpreter's exit.
        executor.shutdown(wait=True, cancel_futures=True)

    def _new_executor(self) -> ProcessPoolExecutor:
        # spawn, not fork: the parent runs threads (uvicorn, anyio) that fork would copy mid-state.
        self._context = _WorkerContext()
        return ProcessPoolExecutor(
            max_workers=self._workers,
            mp_context=self._context,
            initializer=_worker_init,
            initargs=(self._traces_exporter,),
        )

    async def _warm(self, executor: ProcessPoolExecutor) -> None:
        started = time.perf_counter()
        loop = asyncio.get_running_loop()
        # One call per worker makes every worker start and run its initializer.
        await asyncio.gather(
            *(loop.run_in_executor(executor, fitting.warm_up) for _ in range(self._workers))
        )
        self._warm_done.set()
        log.info(
            "fitting pool warm",
            extra={
                "event": "pool_ready",
                "workers": self._workers,
                "ms": round((time.perf_counter() - started) * 1000),
            },
        )

    async def _rebuild(self, broken: ProcessPoolExecutor) -> None:
        async with self._rebuild_lock:
            if self._executor is not broken:
                return  # another call already rebuilt it
            self._warm_done.clear()
            broken.shutdown(wait=False, cancel_futures=True)
            metrics.POOL_RESTARTS.inc()
            log.error("fitting worker died; rebuilding the pool", extra={"event": "pool_rebuild"})
            self._executor = self._new_executor()
            await self._warm(self._executor)


WORKER_NICENESS = 10
"""Fitting is throughput work; the event loop is latency work. On a busy machine the
scheduler should run the replica's event loop first, so the workers yield to it."""


class _WorkerProcess(multiprocessing.context.SpawnProcess):
    """A fitting worker, lowered in priority as soon as it exists: before it imports numba
    and the server's modules, which at start-up compete with the replica's own imports."""

    def start(self) -> None:
        super().start()
        if self.pid is not None:
            lowered = min(19, os.getpriority(os.PRIO_PROCESS, 0) + WORKER_NICENESS)
            with contextlib.suppress(OSError):
                os.setpriority(os.PRIO_PROCESS, self.pid, lowered)


class _WorkerContext(multiprocessing.context.SpawnContext):
    """The spawn context, starting `_WorkerProcess`es and keeping them for `close`."""

    def __init__(self) -> None:
        super().__init__()
        self.started: list[_WorkerProcess] = []

    def Process(self, *args: Any, **kwargs: Any) -> _WorkerProcess:
        process = _WorkerProcess(*args, **kwargs)
        self.started.append(process)
        return process


def _worker_init(traces_exporter: str = "none") -> None:
    """Leave stopping to the replica (and go with it), export traces when the replica
    does, compile or load the fitting kernels, then take the warm heap out of the
    collector's full passes (`server.ops.heap`)."""
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _exit_with_parent()
    if tracing.configure(traces_exporter):
        atexit.register(tracing.shutdown)
    fitting.warm_up()
    freeze_startup_heap()


def _exit_with_parent() -> None:
    """Exit the worker once its replica is gone, however it went: its sentinel (the
    pipe the replica holds open while it lives) becomes readable then. A replica killed
    outright (a local host ending a stdio server that shuts down too slowly) so leaves no
    worker waiting on a queue no one writes to, holding the host's stdio pipes open."""
    parent = multiprocessing.parent_process()
    if parent is None:
        return

    def watch() -> None:
        multiprocessing.connection.wait([parent.sentinel])
        os._exit(0)

    threading.Thread(target=watch, name="parent-watch", daemon=True).start()


def _run(headers: Mapping[str, str], func: Callable[..., T], *args: Any) -> T:
    """`func(*args)` in a worker, in the trace of the call that sent it (`headers`)."""
    with tracing.continued(headers):
        return func(*args)
