"""A least-recently-used cache of response bodies, bounded by their total size.

Bounded by bytes, not entries: a long route's answer is megabytes, a geocode's a kilobyte.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Hashable, Sized
from typing import Generic, TypeVar

Body = TypeVar("Body", bound=Sized)
"""A response body, or anything whose `len` is its size in bytes."""


class ResponseCache(Generic[Body]):
    """Bodies by request key; the oldest are dropped once `max_bytes` is exceeded."""

    def __init__(self, max_bytes: int) -> None:
        self.max_bytes = max_bytes
        self._bodies: OrderedDict[Hashable, Body] = OrderedDict()
        self._size = 0

    def get(self, key: Hashable) -> Body | None:
        body = self._bodies.get(key)
        if body is not None:
            self._bodies.move_to_end(key)
        return body

    def put(self, key: Hashable, body: Body) -> None:
        if len(body) > self.max_bytes:
            return
        old = self._bodies.pop(key, None)
        if old is not None:
            self._size -= len(old)
        self._bodies[key] = body
        self._size += len(body)
        while self._size > self.max_bytes:
            _, dropped = self._bodies.popitem(last=False)
            self._size -= len(dropped)

    def __len__(self) -> int:
        return len(self._bodies)
