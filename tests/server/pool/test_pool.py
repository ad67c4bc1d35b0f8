"""The fitting pool survives a dying worker and keeps serving."""

from __future__ import annotations

import os

import pytest

from server.errors import FitWorkerDied
from server.pool import FitPool


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
