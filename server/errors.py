"""The errors a tool call can end in, drawn once; each class lives with its concern.

The model reads a tool error's message, so every message says what to change.
Failures off the event loop (fitting workers, no MCP code there) raise
`JobError`s, which the tools turn into tool errors when the job returns::

    ValueError
     ├── JobError                   here: a job could not build its result
     │    └── BodyError             server.tomtom: TomTom's body is not JSON of the expected
     │         │                    shape, is over its size once decoded, or is broken gzip
     │         ├── NoRoute          server.jobs: TomTom answered with no route
     │         └── BadAnswer        server.jobs: TomTom's answer is malformed where the
     │                              result depends on it (the field is named)
     ├── GeoJsonError               server.jobs: caller GeoJSON is malformed (its path named)
     └── ConfigError                server.config: an environment variable is unusable (start-up)
    mcp ToolError (the SDK's: message shown to the model, never a protocol error)
     ├── TomTomError                server.tomtom: the upstream refused or failed (tree there)
     └── DataUrlError               server.downloads: a `data_url` was refused or failed
    RuntimeError
     └── FitWorkerDied              server.pool: a worker died mid-job (the pool is rebuilt)
"""

from __future__ import annotations


class JobError(ValueError):
    """A job could not build its result; the message is for the model (a tool error)."""
