"""The dependency rules of docs/architecture.md, checked in the source and in a new interpreter."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def imported_packages(package: str) -> dict[str, set[str]]:
    """Every module under `package` and the top-level packages (or `server.x` parts) it imports."""
    found: dict[str, set[str]] = {}
    for path in sorted((ROOT / package).rglob("*.py")):
        names: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                names.update(alias.name for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names.add(node.module)
        found[str(path.relative_to(ROOT))] = names
    return found


def offenders(package: str, forbidden: tuple[str, ...]) -> list[str]:
    return [
        f"{module} imports {name}"
        for module, names in imported_packages(package).items()
        for name in sorted(names)
        if name.split(".")[0] in forbidden
    ]


def test_fitting_imports_nothing_of_the_server_the_widgets_or_the_load_test() -> None:
    assert offenders("fitting", ("server", "widgets", "loadtest", "tests", "mcp")) == []


@pytest.mark.parametrize("package", ["server", "fitting", "widgets"])
def test_the_product_never_imports_the_load_test_or_the_tests(package: str) -> None:
    assert offenders(package, ("loadtest", "tests", "benchmarks")) == []


def loaded_after(imports: str, prefixes: tuple[str, ...]) -> list[str]:
    probe = (
        f"import sys; {imports}; "
        f"print(sorted(m for m in sys.modules if m == 'mcp' or m.startswith({prefixes!r})))"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    return eval(out.stdout)  # a list literal printed by the probe


def test_the_modules_a_fitting_worker_imports_load_no_mcp_sdk_or_web_stack() -> None:
    # A worker imports the job functions' modules and the pool's initializer; the MCP
    # protocol types (mcp_types) are data classes and allowed, the SDK itself is not.
    heavy = ("mcp.", "starlette", "uvicorn", "httpx", "anyio")
    assert loaded_after("import server.jobs, server.pool, server.tomtom, fitting", heavy) == []


def test_jobs_alone_load_no_metrics_client_either() -> None:
    heavy = ("mcp.", "starlette", "uvicorn", "httpx", "prometheus_client")
    assert loaded_after("import server.jobs", heavy) == []


def test_no_module_imports_a_test_module_or_a_conftest() -> None:
    # What tests share lives in plain modules (`tests/processes.py`, `tests/server/harness.py`,
    # `tests/fitting/support.py`...): a test module imported by another ties the two files
    # together (and a test function imported by name is collected again there); a conftest
    # is pytest's to load.
    found = []
    folders = ("server", "fitting", "widgets", "loadtest", "benchmarks", "tests")
    paths = [p for f in folders for p in (ROOT / f).rglob("*.py") if "node_modules" not in p.parts]
    for path in sorted(paths):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                names = [f"{node.module or ''}.{alias.name}" for alias in node.names]
                names = [("." if node.level else "") + name for name in names]
            else:
                continue
            for name in names:
                parts = name.split(".")
                ours = parts[0] in folders or not parts[0]  # relative imports are ours
                if ours and any(p.startswith("test_") or p == "conftest" for p in parts):
                    found.append(f"{path.relative_to(ROOT)} imports {name}")
    assert found == []
