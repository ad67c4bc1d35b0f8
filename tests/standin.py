"""A stand-in TomTom upstream for integration tests: the offline upstream, recording.

`python -m tests.standin --port N` serves `server.offline`'s TomTom shapes (tiles
included) and remembers the method, path, `key` and User-Agent of every request it
receives, so a test can see exactly what reached "TomTom", with which key, and which
request ran again for a view (VIEW_REFETCH marks its User-Agent):
`GET /_recorded` lists them, `DELETE /_recorded` forgets them. `record(url)` and
`forget(url)` do that over HTTP. `--clock` fixes the moment it answers as of: its clocked
answers (routes, traffic) then never change, so a benchmark's every call after the first
is answered from its cache, in about a millisecond. `--batch-base-s` and
`--batch-items-per-s` play TomTom's processing time of an asynchronous batch (a start-up
delay, then so many queries a second), which the offline upstream alone skips.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any
from urllib.parse import parse_qsl

import httpx
import uvicorn
from starlette.types import ASGIApp, Receive, Scope, Send

from tomtom_mcp_apps.server.offline import build_upstream_app


class Recording:
    """ASGI middleware: note each request, answer `/_recorded` itself, pass the rest on."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app
        self.seen: list[dict[str, Any]] = []

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        if scope["path"] == "/_recorded":
            if scope["method"] == "DELETE":
                self.seen.clear()
            body = httpx.Response(200, json=self.seen).content
            await send({"type": "http.response.start", "status": 200,
                        "headers": [(b"content-type", b"application/json")]})  # fmt: skip
            await send({"type": "http.response.body", "body": body})
            return
        query = dict(parse_qsl(scope.get("query_string", b"").decode("latin-1")))
        if scope["path"] != "/health":
            headers = dict(scope["headers"])
            self.seen.append(
                {
                    "method": scope["method"],
                    "path": scope["path"],
                    "key": query.get("key"),
                    "user_agent": headers.get(b"user-agent", b"").decode("latin-1"),
                }
            )
        await self.app(scope, receive, send)


def recorded(url: str) -> list[dict[str, Any]]:
    """Every request the stand-in at `url` has received since it was last cleared."""
    return httpx.get(f"{url}/_recorded", timeout=5).json()


def forget(url: str) -> None:
    httpx.delete(f"{url}/_recorded", timeout=5).raise_for_status()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument(
        "--clock", type=datetime.fromisoformat, help="answer as of this ISO 8601 moment, always"
    )
    parser.add_argument("--batch-base-s", type=float, default=0.0, help="a batch's start-up delay")
    parser.add_argument(
        "--batch-items-per-s",
        type=float,
        default=0.0,
        help="queries a batch does a second (0: at once)",
    )
    args = parser.parse_args()
    fixed: datetime | None = args.clock
    clock: Callable[[], datetime] = (lambda: fixed) if fixed else (lambda: datetime.now(UTC))
    base, rate = args.batch_base_s, args.batch_items_per_s

    def seconds(items: int) -> float:
        return base + (items / rate if rate else 0.0)

    uvicorn.run(
        Recording(build_upstream_app(slow_answer_s=2.0, clock=clock, batch_seconds=seconds)),
        host=args.host,
        port=args.port,
        access_log=False,
        log_level="warning",
    )


if __name__ == "__main__":
    main()
