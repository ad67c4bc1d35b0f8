"""The built-in offline TomTom upstream: TomTom's REST shapes with road-like geometry.

Its roads (`roads.py`, seeded synthetic lines) also feed tests and benchmarks.
It backs tests, load tests, demos and the server's keyless mode (mounted in
process through `httpx.ASGITransport`, or served alone by `tomtom-mcp-apps
upstream`). Answers are deterministic: the same request gets the same bytes.
"""

from tomtom_mcp_apps.server.offline._app import FAILURE_KEYS, build_upstream_app

__all__ = ["FAILURE_KEYS", "build_upstream_app"]
