"""The asyncio MCP front end: tools, TomTom client, app-data delivery, HTTP app."""
