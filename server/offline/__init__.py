"""The built-in offline TomTom upstream: TomTom's REST shapes with road-like geometry.

It backs keyless mode (mounted in process through `httpx.ASGITransport`), tests, load
tests and demos (`tomtom-mcp-apps upstream`). The same request gets the same bytes.
"""

from tomtom_mcp_apps.server.offline._app import FAILURE_KEYS, build_upstream_app

__all__ = ["FAILURE_KEYS", "build_upstream_app"]
