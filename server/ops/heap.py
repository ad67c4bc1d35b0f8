"""Keeping the garbage collector's full passes off the event loop's critical path.

The start-up heap (numba, pydantic, the SDK) is frozen out of the collector's sight, a
call's own objects are left to die before the youngest generation is walked, and a job
parsing a large document pauses the collector (docs/runtime.md, Event-loop housekeeping).
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
to older generations that are walked in turn. At 20,000 most calls end between two passes
(docs/runtime.md, Event-loop housekeeping)."""


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
