"""Background load for the benchmarks: tool calls looping in a process of their own,
switched on and off.

A process apart from the one that times calls, so that the timing client never
waits for its own event loop to parse the load's 120,000-character results.
"""

from __future__ import annotations

import asyncio
import multiprocessing
import os
import queue
from dataclasses import dataclass
from multiprocessing.queues import Queue
from multiprocessing.sharedctypes import Synchronized
from multiprocessing.synchronize import Event

import httpx

from loadtest.topology import lower_priority
from loadtest.wire import Call, CallFailed, ToolError, call_tool, clients, result_text


@dataclass
class _Switch:
    running: Event
    stop: Event
    in_flight: Synchronized


class BackgroundLoad:
    """One loop per call in `calls`, each calling its tool back to back on `url` while
    resumed; `finish` stops them and says how each completed call went. `nice` above 0
    puts the process in a session of its own at that priority (`lower_priority`)."""

    def __init__(self, url: str, calls: list[Call], *, nice: int = 0) -> None:
        spawn = multiprocessing.get_context("spawn")
        self._switch = _Switch(spawn.Event(), spawn.Event(), spawn.Value("i", 0))
        self._outcomes: Queue = spawn.Queue()
        self._process = spawn.Process(
            target=_run, args=(url, calls, self._switch, self._outcomes, nice), daemon=True
        )
        self._process.start()

    def resume(self) -> None:
        self._switch.running.set()

    async def pause(self) -> None:
        """Stop starting calls and wait until those under way are answered."""
        self._switch.running.clear()
        while self._switch.in_flight.value:
            self._check_alive()
            await asyncio.sleep(0.02)

    async def finish(self) -> list[str]:
        """Stop for good; "ok", "tool error: ..." or "failed: ..." per completed call."""
        self._switch.stop.set()
        while True:
            try:
                done: list[str] = await asyncio.to_thread(self._outcomes.get, timeout=1.0)
                break
            except queue.Empty:
                self._check_alive()
        self._process.join()
        return done

    def _check_alive(self) -> None:
        if not self._process.is_alive():
            raise RuntimeError(
                f"the background load process exited with code {self._process.exitcode}"
            )


def _run(url: str, calls: list[Call], switch: _Switch, outcomes: Queue, nice: int) -> None:
    if nice:  # other users' clients run on other machines: this one gets the CPU last
        os.setsid()
        lower_priority(os.getpid(), nice)

    async def run() -> list[str]:
        done: list[str] = []
        async with clients(len(calls), 600.0) as load_clients:
            await asyncio.gather(
                *(
                    _loop(client, url, call, switch, done)
                    for client, call in zip(load_clients, calls, strict=True)
                )
            )
        return done

    outcomes.put(asyncio.run(run()))


async def _loop(
    client: httpx.AsyncClient, url: str, call: Call, switch: _Switch, done: list[str]
) -> None:
    while not switch.stop.is_set():
        if not switch.running.is_set():
            await asyncio.sleep(0.01)
            continue
        with switch.in_flight.get_lock():
            switch.in_flight.value += 1
        try:
            result = await call_tool(client, url, *call)
            done.append(f"tool error: {result_text(result)}" if result.get("isError") else "ok")
        except (CallFailed, ToolError) as exc:
            done.append(f"failed: {exc}")
        finally:
            with switch.in_flight.get_lock():
                switch.in_flight.value -= 1
