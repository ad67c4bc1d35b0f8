"""`python -m tomtom_mcp_apps ...`: the same command line as `tomtom-mcp-apps`."""

import sys

from tomtom_mcp_apps.server.cli import main

sys.exit(main())
