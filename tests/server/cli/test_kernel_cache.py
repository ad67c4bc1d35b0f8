"""The command line puts the fitting kernels' cache in the user's cache directory, one per
release, before anything loads numba; an operator's `NUMBA_CACHE_DIR` wins."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tomtom_mcp_apps.server.cli._kernel_cache import LOCATORS, use_user_cache
from tomtom_mcp_apps.server.product import VERSION


@pytest.fixture
def home_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    return tmp_path


def test_the_kernels_are_cached_per_user_and_release(home_cache: Path) -> None:
    environ: dict[str, str] = {}
    used = use_user_cache(environ)
    assert used == home_cache / "tomtom-mcp-apps" / VERSION / "numba"
    assert used.is_dir()
    assert environ == {"NUMBA_CACHE_DIR": str(used), "NUMBA_CACHE_LOCATOR_CLASSES": LOCATORS}
    assert LOCATORS.startswith("tomtom_mcp_apps.fitting._kernel_cache.SourceDigestLocator,")


def test_an_operators_cache_directory_is_kept_with_numbas_own_locators(home_cache: Path) -> None:
    environ = {"NUMBA_CACHE_DIR": "/var/cache/numba"}
    assert use_user_cache(environ) is None
    assert environ == {"NUMBA_CACHE_DIR": "/var/cache/numba"}
    assert not (home_cache / "tomtom-mcp-apps").exists()


def test_an_unwritable_cache_directory_leaves_numba_to_cache_where_it_can(
    home_cache: Path,
) -> None:
    (home_cache / "tomtom-mcp-apps").write_text("a file where the directory would be")
    environ: dict[str, str] = {}
    assert use_user_cache(environ) is None
    assert environ == {}


def test_the_command_line_loads_no_numba_before_it_sets_the_cache() -> None:
    # numba reads its cache settings once, when first imported; the fitting workers, run
    # as the `tomtom-mcp-apps` script, import the command line too.
    code = (
        "import sys, tomtom_mcp_apps.server.cli; "
        "print(sorted({'numba', 'uvicorn'} & set(sys.modules)))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120
    )
    assert done.stdout.strip() == "[]"
