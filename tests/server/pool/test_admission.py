"""Jobs enter the fitting pool least work first, and no big job waits for ever."""

from __future__ import annotations

import asyncio

import pytest

from tomtom_mcp_apps.server.pool import Admission


async def _hold(
    admission: Admission, size: int, order: list[str], name: str, release: asyncio.Event
) -> None:
    async with admission.slot(size):
        order.append(name)
        await release.wait()


async def _settle() -> None:
    for _ in range(5):
        await asyncio.sleep(0)


async def _order_behind_a_busy_slot(
    admission: Admission, jobs: list[tuple[str, int, float]]
) -> list[str]:
    """The order in which `jobs` (name, bytes, seconds to wait before queueing) get the one
    slot, queued while another job holds it."""
    order: list[str] = []
    release = asyncio.Event()
    tasks = [asyncio.create_task(_hold(admission, 0, order, "running", release))]
    await _settle()
    for name, size, delay in jobs:
        await asyncio.sleep(delay)
        tasks.append(asyncio.create_task(_hold(admission, size, order, name, release)))
    await _settle()
    assert admission.waiting == len(jobs)
    release.set()
    await asyncio.gather(*tasks)
    return order[1:]


async def test_a_free_slot_goes_to_the_job_with_least_work_not_the_first_to_arrive() -> None:
    jobs = [("map", 40_000_000, 0.0), ("route", 2_000_000, 0.0), ("small", 600_000, 0.0)]
    order = await _order_behind_a_busy_slot(Admission(1, bytes_per_second=1_000_000), jobs)
    assert order == ["small", "route", "map"]


async def test_a_big_job_that_has_waited_its_own_run_time_is_not_overtaken() -> None:
    # A 50 ms job (at this rate) that has already waited 100 ms goes before a newcomer.
    jobs = [("big", 50, 0.0), ("small", 0, 0.1)]
    assert await _order_behind_a_busy_slot(Admission(1, bytes_per_second=1_000), jobs) == [
        "big",
        "small",
    ]


async def test_fit_order_arrival_keeps_plain_first_in_first_out() -> None:
    jobs = [("map", 40_000_000, 0.0), ("route", 2_000_000, 0.0)]
    order = await _order_behind_a_busy_slot(Admission(1, bytes_per_second=None), jobs)
    assert order == ["map", "route"]


async def test_a_caller_that_gives_up_while_waiting_leaves_its_turn_to_the_next() -> None:
    admission = Admission(1)
    order: list[str] = []
    release = asyncio.Event()
    running = asyncio.create_task(_hold(admission, 0, order, "running", release))
    await _settle()
    gone = asyncio.create_task(_hold(admission, 0, order, "gone", release))
    after = asyncio.create_task(_hold(admission, 10, order, "after", release))
    await _settle()
    gone.cancel()
    release.set()
    await asyncio.gather(running, after)
    with pytest.raises(asyncio.CancelledError):
        await gone
    assert order == ["running", "after"]
    # Every slot came back: a new job gets one at once.
    async with asyncio.timeout(1):
        async with admission.slot(0):
            pass
