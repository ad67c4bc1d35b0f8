"""The fitting kernels' cache follows their sources, not where they are installed: a kernel
compiled by one install of the package is loaded, not compiled again, by another install
of the same sources elsewhere (as `uvx --isolated` builds a new environment each start),
and importing the package compiles nothing."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import orjson
import pytest

from tomtom_mcp_apps import fitting

LOCATOR = "tomtom_mcp_apps.fitting._kernel_cache.SourceDigestLocator"
FITTING = Path(fitting.__file__).resolve().parent

ONE_KERNEL = """
import gc, sys
import numpy as np
import orjson
import pytest
from numba.core.registry import CPUDispatcher
from tomtom_mcp_apps import fitting
from tomtom_mcp_apps.fitting import _huffman
compiled_at_import = sorted(
    o.py_func.__qualname__ for o in gc.get_objects()
    if isinstance(o, CPUDispatcher) and o.signatures
)
codes = np.zeros(3, dtype=np.int64)
_huffman._canonical(np.array([1, 2, 2], dtype=np.int64), codes)
print(orjson.dumps({
    "fitting": fitting.__file__,
    "compiled_at_import": compiled_at_import,
    "codes": codes.tolist(),
    "hits": sum(_huffman._canonical.stats.cache_hits.values()),
    "misses": sum(_huffman._canonical.stats.cache_misses.values()),
}).decode())
"""


def install_copy(root: Path) -> Path:
    """The package's fitting sources under `root`, as another environment installs them."""
    package = root / "tomtom_mcp_apps"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    shutil.copytree(FITTING, package / "fitting", ignore=shutil.ignore_patterns("__pycache__"))
    return root


def run_kernel(path: Path, cache: Path) -> dict[str, object]:
    env = {
        **os.environ,
        "PYTHONPATH": str(path),
        "NUMBA_CACHE_DIR": str(cache),
        "NUMBA_CACHE_LOCATOR_CLASSES": f"{LOCATOR},UserProvidedCacheLocator",
    }
    done = subprocess.run(
        [sys.executable, "-c", ONE_KERNEL],
        env=env,
        capture_output=True,
        check=True,
        timeout=300,
        cwd=path,
    )
    return orjson.loads(done.stdout.splitlines()[-1])


@pytest.fixture(scope="module")
def two_installs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[dict[str, object]]]:
    """One kernel run by two installs of the same sources, one after the other, with one
    cache directory."""
    root = tmp_path_factory.mktemp("installs")
    cache = root / "cache"
    runs = [run_kernel(install_copy(root / name), cache) for name in ("env-1", "env-2")]
    return root, runs


def test_a_kernel_compiled_by_one_install_is_loaded_by_another_elsewhere(
    two_installs: tuple[Path, list[dict[str, object]]],
) -> None:
    root, (first, second) = two_installs
    assert str(root / "env-1") in str(first["fitting"])
    assert str(root / "env-2") in str(second["fitting"])
    assert first["codes"] == second["codes"] == [0, 1, 3]
    assert (first["misses"], first["hits"]) == (1, 0)
    assert (second["misses"], second["hits"]) == (0, 1)
    (folder,) = (root / "cache").iterdir()
    assert folder.name.startswith("fitting-") and any(folder.glob("_huffman._canonical-*.nbi"))


def test_importing_the_package_compiles_no_kernel(
    two_installs: tuple[Path, list[dict[str, object]]],
) -> None:
    # A process that only answers short calls never waits for numba.
    assert [run["compiled_at_import"] for run in two_installs[1]] == [[], []]


def test_changed_sources_are_compiled_afresh_beside_the_old_cache(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    run_kernel(install_copy(tmp_path / "env-1"), cache)
    changed = install_copy(tmp_path / "env-2")
    with (changed / "tomtom_mcp_apps" / "fitting" / "_kernels.py").open("a") as source:
        source.write("\n# another release\n")
    again = run_kernel(changed, cache)
    assert (again["misses"], again["hits"]) == (1, 0)
    assert len(list(cache.iterdir())) == 2
