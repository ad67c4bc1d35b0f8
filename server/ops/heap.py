"""Keep the garbage collector's full passes off the event loop's critical path.

A warm replica holds a great many container objects (numba, pydantic, the MCP
SDK) that live as long as the process. CPython's full collection walks all of
them, long enough to show as a spike in a cheap call's latency every few
seconds under load. Freezing them once start-up is done moves them out of the
collector's sight (figures: docs/adr/0007-event-loop-housekeeping.md). A job
parsing a large document pauses the collector meanwhile (`collector_paused`).
A call's own objects are left to die before the youngest generation is walked
(`YOUNG_THRESHOLD`, docs/adr/0103-short-calls-measured-alike.md).
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator

YOUNG_THRESHOLD = 20_000
"""Container objects allocated (less those freed) between two passes over the youngest
generation; CPython's default is 700. A short route call makes thousands of dicts and
lists (its answer parsed, the SDK's models), nearly all gone once its result is sent: at
700 the collector walks the live ones again and again during the call, and promotes them
to older generations that are walked in turn: 0.5-0.7 ms of a short route's 7.4 ms of CPU
on a replica of the benchmark machine. At 20,000 most calls end between two passes; one
pass over 20,000 live young objects takes about a millisecond."""


def freeze_startup_heap() -> None:
    """Collect start-up garbage, then exempt every surviving object from later collections,
    and walk the youngest generation every `YOUNG_THRESHOLD` allocations.

    Call it once, when start-up (imports, app build, kernel warm-up) is done; objects
    created afterwards are collected as usual."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(YOUNG_THRESHOLD, *gc.get_threshold()[1:])


@contextlib.contextmanager
def collector_paused() -> Iterator[None]:
    """No collection while the block runs (then the collector is as it was).

    For parsing a large JSON document: every list and dict it makes is young and
    tracked, so the collector runs over and over as they pile up, each full pass
    walking all of them (more than the parse itself for a few hundred thousand
    features). What a parse makes holds no reference cycles; nothing is lost."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()
