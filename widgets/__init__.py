"""MCP Apps views and the code that assembles each into one HTML document."""
