"""The product as outside parties see it: its name and the installed package's version.

Read once from the package metadata, so the MCP handshake's `serverInfo.version` and the
User-Agent of every TomTom request (`server.tomtom`) always name the release that runs.
Imports nothing of `server`.
"""

from __future__ import annotations

from importlib.metadata import version

NAME = "tomtom-mcp-apps"
VERSION = version(NAME)
