"""Downloads of caller-named URLs (a data-viz `data_url`), guarded against server-side
request forgery: public addresses only, pinned, no redirects, bounded in size and time.
"""

from __future__ import annotations

from tomtom_mcp_apps.server.downloads._data_url import (
    Part,
    address_refusal,
    download,
    download_span,
)

__all__ = ["Part", "address_refusal", "download", "download_span"]
