"""The tool call a piece of work belongs to: who is calling, and until when it may take.

`ToolCallLog` enters a scope for every `tools/call`; the TomTom client's pacing, its one
retry and the user's budget read it. Work outside a call gets a scope of its own; a view's
refetch runs inside `refetch()`, so its requests say so; a call's work notes what its one
log line says (`noted`).
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Hashable, Iterator
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True, eq=False)
class CallScope:
    """One tool call; compared by identity (each call is its own caller)."""

    tool: str
    deadline: float = field(default=0.0)
    """`time.monotonic()` by which the call should have answered."""
    user: str | None = None
    """The signed-in user's id (`server.auth.User.id`), or None without sign-in."""
    facts: dict[str, Any] = field(default_factory=dict)
    """What the call's work noted for its log line (`noted`, `upstream_answered`)."""

    @property
    def remaining(self) -> float:
        return self.deadline - time.monotonic()

    @property
    def flow(self) -> Hashable:
        """What pacing queues fairly: the signed-in user (many calls of one user share one
        turn, so a burst of theirs does not hold up another user), else the call itself."""
        return self.user if self.user is not None else self


_CURRENT: ContextVar[CallScope | None] = ContextVar("tomtom_mcp_call_scope", default=None)


@contextlib.contextmanager
def entered(tool: str, seconds: float, user: str | None = None) -> Iterator[CallScope]:
    """The scope of a call to `tool` by `user` that should answer within `seconds`."""
    scope = CallScope(tool, time.monotonic() + seconds, user)
    token = _CURRENT.set(scope)
    try:
        yield scope
    finally:
        _CURRENT.reset(token)


def current(default_s: float) -> CallScope:
    """The current call's scope, or a fresh one of `default_s` outside any call."""
    return _CURRENT.get() or CallScope("", time.monotonic() + default_s)


def noted(**facts: Any) -> None:
    """Adds `facts` to the current call's log line (nothing outside a call)."""
    scope = _CURRENT.get()
    if scope is not None:
        scope.facts.update(facts)


def upstream_answered(source: str, ms: float) -> None:
    """Counts one answered upstream request (`source`: tomtom or offline) and its time on
    the current call's log line: `upstream`, `upstream_requests`, `upstream_ms`."""
    scope = _CURRENT.get()
    if scope is None:
        return
    facts = scope.facts
    facts["upstream"] = source
    facts["upstream_requests"] = facts.get("upstream_requests", 0) + 1
    facts["upstream_ms"] = round(facts.get("upstream_ms", 0.0) + ms, 2)


_REFETCH: ContextVar[bool] = ContextVar("tomtom_mcp_refetch", default=False)


@contextlib.contextmanager
def refetch() -> Iterator[None]:
    """A view's second run of a TomTom tool: its requests are marked as such."""
    token = _REFETCH.set(True)
    try:
        yield
    finally:
        _REFETCH.reset(token)


def refetching() -> bool:
    """Whether the work in hand is a view's refetch (`refetch()`)."""
    return _REFETCH.get()
