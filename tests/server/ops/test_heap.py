"""A replica's and a fitting worker's start-up objects stay out of full collections:
without this, a full pass over a warm replica's objects stalls its event loop
(docs/runtime.md, Event-loop housekeeping)."""

from __future__ import annotations

import asyncio
import gc
import sys
from collections.abc import Iterator

import httpcore
import pytest

from tomtom_mcp_apps.server.app import build_app
from tomtom_mcp_apps.server.config import Settings
from tomtom_mcp_apps.server.pool import FitPool


@pytest.fixture
def unfrozen() -> Iterator[None]:
    thresholds = gc.get_threshold()
    gc.unfreeze()
    yield
    gc.unfreeze()
    gc.set_threshold(*thresholds)


async def test_a_started_replica_has_frozen_its_start_up_heap(unfrozen: None) -> None:
    app = build_app(Settings(fit_workers=1))
    async with app.router.lifespan_context(app):
        assert gc.get_freeze_count() > 10_000


async def test_a_calls_short_lived_objects_die_before_the_collector_walks_them(
    unfrozen: None,
) -> None:
    # A short route call makes thousands of dicts and lists, nearly all gone once its
    # result is sent; at CPython's default threshold (700) these would be walked again and
    # again while the call runs.
    app = build_app(Settings(fit_workers=1))
    async with app.router.lifespan_context(app):
        gc.collect(0)
        passes = gc.get_stats()[0]["collections"]
        call = [{"point": [i, i], "message": {"text": str(i)}} for i in range(5_000)]
        assert gc.get_stats()[0]["collections"] == passes
        del call


async def test_a_fitting_worker_freezes_its_heap_once_its_kernels_are_warm() -> None:
    pool = FitPool(workers=1)
    pool.start()
    try:
        assert await pool.run_in_process(gc.get_freeze_count) > 10_000
    finally:
        pool.close()


async def test_httpcore_finds_sniffio_instead_of_failing_to_import_it_on_every_call() -> None:
    # Without sniffio installed each lock, event and shield re-runs a failed import.
    lock = httpcore._synchronization.AsyncLock()
    async with lock:
        await asyncio.sleep(0)
    assert "sniffio" in sys.modules
