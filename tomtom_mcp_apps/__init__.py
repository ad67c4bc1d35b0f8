"""tomtom-mcp-apps: a stateless MCP server for TomTom maps whose views draw on any replica.

The repository keeps its parts in the folders `server/`, `fitting/` and `widgets/`; they
are installed as `tomtom_mcp_apps.server`, `tomtom_mcp_apps.fitting` and
`tomtom_mcp_apps.widgets`, so no other package's top-level name can clash with them
(docs/operations.md, Packaging).
"""
