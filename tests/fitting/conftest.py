"""Every fitting test starts with the kernels compiled or loaded from numba's cache."""

from __future__ import annotations

import pytest

from tomtom_mcp_apps import fitting


@pytest.fixture(scope="session", autouse=True)
def _kernels_loaded() -> None:
    fitting.warm_up()
