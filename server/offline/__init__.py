"""The built-in offline TomTom upstream: TomTom's REST shapes with road-like geometry.

It backs keyless mode (mounted in process through `server.outbound.InProcess`), tests,
load tests and demos (`tomtom-mcp-apps upstream`). The same request gets the same bytes.
It knows places only by name, Natural Earth's populated places; a search that names none
answers no results and says why in the summary's `OFFLINE_NOTE_FIELD`.
"""

from tomtom_mcp_apps.server.offline._app import FAILURE_KEYS, build_upstream_app
from tomtom_mcp_apps.server.offline._search import NOTE_FIELD as OFFLINE_NOTE_FIELD

__all__ = ["FAILURE_KEYS", "OFFLINE_NOTE_FIELD", "build_upstream_app"]
