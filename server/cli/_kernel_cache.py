"""The fitting kernels' cache in the user's cache directory, chosen before numba loads.

numba reads `NUMBA_CACHE_DIR` and `NUMBA_CACHE_LOCATOR_CLASSES` once, when it is first
imported, and the fitting workers inherit the environment they are spawned with; so the
command line sets both first thing (docs/runtime.md, Kernel cache). An operator's own
`NUMBA_CACHE_DIR` (the image's, built in) is left alone, with numba's own locators.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import MutableMapping
from pathlib import Path

import platformdirs

from tomtom_mcp_apps.server.product import NAME, VERSION

LOCATORS = ",".join(
    [
        "tomtom_mcp_apps.fitting._kernel_cache.SourceDigestLocator",
        # numba's own, in numba's order, for every other cached function
        "UserProvidedCacheLocator",
        "InTreeCacheLocator",
        "UserWideCacheLocator",
        "IPythonCacheLocator",
        "ZipCacheLocator",
    ]
)


def user_cache_dir() -> Path:
    """`<user cache directory>/tomtom-mcp-apps/<version>/numba` (on Linux under
    `$XDG_CACHE_HOME`, by default `~/.cache`): one per machine, user and release, outside
    any environment the package is installed in."""
    return Path(platformdirs.user_cache_dir(NAME, appauthor=False, version=VERSION)) / "numba"


def use_user_cache(environ: MutableMapping[str, str] = os.environ) -> Path | None:
    """Point numba's cache for the fitting kernels at `user_cache_dir()` in `environ`,
    unless `NUMBA_CACHE_DIR` is set already; the directory used, or None when the
    operator's is kept or the user's cannot be written (numba then caches where it can)."""
    if environ.get("NUMBA_CACHE_DIR"):
        return None
    path = user_cache_dir()
    try:
        path.mkdir(parents=True, exist_ok=True)
        tempfile.TemporaryFile(dir=path).close()
    except OSError:
        return None
    environ["NUMBA_CACHE_DIR"] = str(path)
    if not environ.get("NUMBA_CACHE_LOCATOR_CLASSES"):
        environ["NUMBA_CACHE_LOCATOR_CLASSES"] = LOCATORS
    return path
