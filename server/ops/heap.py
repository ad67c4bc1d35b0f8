"""Keep the garbage collector's full passes off the event loop's critical path.

A warm replica holds a great many container objects (numba, pydantic, the MCP
SDK) that live as long as the process. CPython's full collection walks all of
them, long enough to show as a spike in a cheap call's latency every few
seconds under load. Freezing them once start-up is done moves them out of the
collector's sight (figures: docs/adr/0007-event-loop-housekeeping.md).
"""

from __future__ import annotations

import gc


def freeze_startup_heap() -> None:
    """Collect start-up garbage, then exempt every surviving object from later collections.

    Call it once, when start-up (imports, app build, kernel warm-up) is done; objects
    created afterwards are collected as usual."""
    gc.collect()
    gc.freeze()
