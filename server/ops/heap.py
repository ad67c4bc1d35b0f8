"""Keep the garbage collector's full passes off the event loop's critical path.

A warm replica holds a great many container objects (numba, pydantic, the MCP
SDK) that live as long as the process. CPython's full collection walks all of
them, long enough to show as a spike in a cheap call's latency every few
seconds under load. Freezing them once start-up is done moves them out of the
collector's sight (figures: docs/adr/0007-event-loop-housekeeping.md). A job
parsing a large document pauses the collector meanwhile (`collector_paused`).
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator


def freeze_startup_heap() -> None:
    """Collect start-up garbage, then exempt every surviving object from later collections.

    Call it once, when start-up (imports, app build, kernel warm-up) is done; objects
    created afterwards are collected as usual."""
    gc.collect()
    gc.freeze()


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
