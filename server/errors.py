"""The errors a tool call can end in, drawn once; each class lives with its concern.

The model reads a tool error's message, so every message says what to change.
The errors whose message is for the model share one plain base, `ToolCallError`:
this module imports no MCP code, so fitting workers (no MCP SDK there) raise them
too, and `server.app` turns them into the SDK's `ToolError` in one place, on the
event loop (an `is_error` result, never a protocol error)::

    Exception
     ├── ToolCallError              here: a tool call failed; the message is for the model
     │    ├── JobError (ValueError) here: a job could not build its result
     │    │    └── BodyError        server.tomtom: TomTom's body is not JSON of the expected
     │    │         │               shape, is over its size once decoded, or is broken gzip
     │    │         ├── NoRoute     server.jobs: TomTom answered with no route
     │    │         └── BadAnswer   server.jobs: TomTom's answer is malformed where the
     │    │                         result depends on it (the field is named)
     │    ├── FitWorkerDied (RuntimeError)  server.pool: a worker died mid-job (pool rebuilt)
     │    ├── TomTomError           server.tomtom: the upstream refused or failed (tree there)
     │    └── DataUrlError          server.downloads: a `data_url` was refused or failed
     ├── GeoJsonError (ValueError)  server.jobs: caller GeoJSON is malformed (its path named)
     └── ConfigError (ValueError)   server.config: an environment variable is unusable (start-up)
"""

from __future__ import annotations


class ToolCallError(Exception):
    """A tool call failed in a way the model can act on; the message is for the model."""


class JobError(ToolCallError, ValueError):
    """A job could not build its result; the message is for the model (a tool error)."""
