"""Protected Resource Metadata (RFC 9728): where MCP clients learn who signs users in.

Served at `/.well-known/oauth-protected-resource` plus the MCP endpoint's path (what the
401 names, and what clients try first) and at the root. `resource` is `PUBLIC_URL`, which
clients check against the URL they were given.
"""

from __future__ import annotations

from collections.abc import Sequence
from urllib.parse import urlsplit

from mcp.server.auth.handlers.metadata import ProtectedResourceMetadataHandler
from mcp.server.auth.routes import cors_middleware
from mcp.shared.auth import ProtectedResourceMetadata
from starlette.routing import Route

WELL_KNOWN = "/.well-known/oauth-protected-resource"
RESOURCE_NAME = "TomTom maps (tomtom-mcp-apps)"


def metadata_url(resource: str) -> str:
    """The metadata's URL for `resource`: the well-known part before the endpoint's path."""
    parts = urlsplit(resource)
    return f"{parts.scheme}://{parts.netloc}{WELL_KNOWN}{parts.path.rstrip('/')}"


def metadata_routes(resource: str, issuer: str, scopes: Sequence[str]) -> list[Route]:
    """GET (and CORS preflight) routes serving the metadata at both well-known paths."""
    metadata = ProtectedResourceMetadata.model_validate(
        {
            "resource": resource,
            "authorization_servers": [issuer],  # as configured: an issuer is compared exactly
            "scopes_supported": list(scopes) or None,
            "bearer_methods_supported": ["header"],
            "resource_name": RESOURCE_NAME,
        }
    )
    endpoint = cors_middleware(
        ProtectedResourceMetadataHandler(metadata).handle, ["GET", "OPTIONS"]
    )
    paths = dict.fromkeys([urlsplit(metadata_url(resource)).path, WELL_KNOWN])
    return [Route(path, endpoint=endpoint, methods=["GET", "OPTIONS"]) for path in paths]
