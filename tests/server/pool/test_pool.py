"""The fitting pool survives a dying worker and keeps serving."""

from __future__ import annotations

import asyncio
import os

import pytest

from tomtom_mcp_apps.server.errors import BusyError, FitWorkerDied
from tomtom_mcp_apps.server.pool import FitPool


def crash() -> None:
    os._exit(3)  # what a segfault or an OOM kill looks like to the parent


def square(x: int) -> int:
    return x * x


async def test_a_dead_worker_fails_that_call_clearly_and_the_next_call_works() -> None:
    pool = FitPool(workers=1)
    pool.start()
    try:
        assert await pool.run_in_process(square, 7) == 49
        with pytest.raises(FitWorkerDied, match="calling the tool again"):
            await pool.run_in_process(crash)
        assert await pool.run_in_process(square, 8) == 64
        assert pool.ready
    finally:
        pool.close()


async def test_past_its_queued_bytes_the_pool_refuses_at_once_saying_when_to_retry() -> None:
    # Never started, so nothing runs: the first job holds the one slot waiting for the
    # warm-up, the others queue behind it with their sizes.
    pool = FitPool(workers=1, max_queued_bytes=100 * 2**20)
    first = asyncio.create_task(pool.run_in_process(square, 1, size=10 * 2**20))
    queued = asyncio.create_task(pool.run_in_process(square, 2, size=80 * 2**20))
    while pool._admission.waiting_bytes == 0:
        await asyncio.sleep(0)
    with pytest.raises(BusyError, match=r"80 MiB of map data is already waiting.*retry in 3 s"):
        await pool.run_in_process(square, 3, size=30 * 2**20)
    small = asyncio.create_task(pool.run_in_process(square, 4, size=20 * 2**20))  # fits
    await asyncio.sleep(0)
    assert pool._admission.waiting_bytes == 100 * 2**20
    for task in (first, queued, small):
        task.cancel()
    await asyncio.gather(first, queued, small, return_exceptions=True)
    assert pool._admission.waiting_bytes == 0


async def test_a_job_alone_in_the_queue_is_never_refused_however_large() -> None:
    pool = FitPool(workers=1, max_queued_bytes=2**20)
    first = asyncio.create_task(pool.run_in_process(square, 1, size=10))
    await asyncio.sleep(0)
    huge = asyncio.create_task(pool.run_in_process(square, 2, size=50 * 2**20))
    await asyncio.sleep(0)
    assert not huge.done()  # waiting, not refused
    for task in (first, huge):
        task.cancel()
    await asyncio.gather(first, huge, return_exceptions=True)
