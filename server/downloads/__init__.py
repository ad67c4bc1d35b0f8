"""Downloads of caller-named URLs (a data-viz `data_url`), guarded against server-side
request forgery: public addresses only, pinned, no redirects, bounded in size and time.
"""

from __future__ import annotations

from tomtom_mcp_apps.server.downloads._data_url import address_refusal, download

__all__ = ["address_refusal", "download"]
