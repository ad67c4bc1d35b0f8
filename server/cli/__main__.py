"""`python -m server.cli`: the same command line as `tomtom-mcp-apps`."""

import sys

from server.cli import main

sys.exit(main())
