"""The floor of a tool call: a bare `mcp` server whose one tool returns a short string.

    .venv/bin/python -m benchmarks.bare_server --port 8200

Served the way `tomtom-mcp-apps serve` serves a replica (uvicorn with uvloop and
httptools, stateless streamable HTTP with JSON responses, no access log), with the SDK's
own Starlette app and nothing of this project. Its tool takes the geocode's argument (a
query string, validated by the SDK) and answers without I/O, so a call to it costs what
the HTTP stack and the SDK cost and nothing more: `benchmarks.short_calls` measures the
project's short calls against it. It logs warnings only (the SDK's default, INFO, writes
a line per request from the event loop; a replica turns those off too).
"""

from __future__ import annotations

import argparse

import uvicorn
from mcp.server import MCPServer

TOOL = "lookup"


def lookup(query: str) -> str:
    return f"found {query}"


def build_server() -> MCPServer:
    """The bare server (built when served, not on import: the SDK configures logging)."""
    mcp = MCPServer("bare", log_level="WARNING")
    mcp.add_tool(lookup, name=TOOL, description="Say what was looked up.")
    return mcp


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, required=True)
    args = parser.parse_args(argv)
    app = build_server().streamable_http_app(stateless_http=True, json_response=True)
    uvicorn.run(
        app,
        host=args.host,
        port=args.port,
        log_config=None,
        access_log=False,
        loop="uvloop",
        http="httptools",
        timeout_keep_alive=75,
        proxy_headers=False,  # as serve: no address rewritten from X-Forwarded-For
    )


if __name__ == "__main__":
    main()
