"""Where numba caches fitting's kernels when `NUMBA_CACHE_DIR` names a directory.

numba's own locator files a cache under a hash of the source's absolute path, so a
package installed afresh (`uvx --isolated` builds a new environment every start) never
finds what its previous install compiled. `SourceDigestLocator` files it under a digest
of this package's sources instead: the same code finds the same cache wherever it is
installed, and any change to any of its files (a kernel inlines kernels of other files)
moves it to a fresh folder. numba loads it when `NUMBA_CACHE_LOCATOR_CLASSES` names it
(the command line sets both: docs/runtime.md, Kernel cache).
"""

from __future__ import annotations

import functools
import hashlib
import os
from pathlib import Path
from types import FunctionType

from numba.core import config
from numba.core.caching import _CacheLocator

PACKAGE_DIR = Path(__file__).resolve().parent


@functools.cache
def sources_digest() -> str:
    """sha256 of this package's Python sources, name and content, in name order."""
    digest = hashlib.sha256()
    for path in sorted(PACKAGE_DIR.glob("*.py")):
        digest.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


class SourceDigestLocator(_CacheLocator):
    """numba's cache of a kernel of this package: `NUMBA_CACHE_DIR/fitting-<digest>`."""

    def __init__(self, py_func: FunctionType) -> None:
        self._lineno = py_func.__code__.co_firstlineno
        self._path = os.path.join(config.CACHE_DIR, f"fitting-{sources_digest()[:16]}")

    def get_cache_path(self) -> str:
        return self._path

    def get_source_stamp(self) -> str:
        return sources_digest()

    def get_disambiguator(self) -> str:
        return str(self._lineno)

    @classmethod
    def from_function(cls, py_func: FunctionType, py_file: str) -> SourceDigestLocator | None:
        """A locator for a kernel defined in this package with a cache directory set, else
        None (numba then asks the next locator class)."""
        if not config.CACHE_DIR or Path(py_file).resolve().parent != PACKAGE_DIR:
            return None
        locator = cls(py_func)
        try:
            locator.ensure_cache_path()
        except OSError:  # not writable: numba's own locators decide
            return None
        return locator
