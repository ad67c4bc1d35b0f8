"""The dependency rules of docs/architecture.md, checked in the source and in a new interpreter;
the table of what each part of `server` imports is read from that page."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from collections import deque
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
                if node.module in ("tomtom_mcp_apps", "tomtom_mcp_apps.server"):
                    names.update(f"{node.module}.{alias.name}" for alias in node.names)
                else:
                    names.add(node.module)
        found[str(path.relative_to(ROOT))] = {n.removeprefix("tomtom_mcp_apps.") for n in names}
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


def server_parts() -> dict[str, set[str]]:
    """Each part of `server` (a sub-package or a top-level module) and the other parts it
    imports, wherever the import stands (function-level and type-checking ones too)."""
    parts: dict[str, set[str]] = {}
    for module, names in imported_packages("server").items():
        part = Path(module).parts[1].removesuffix(".py")
        imported = parts.setdefault(part, set())
        for name in names:
            pieces = name.split(".")
            if pieces[0] == "server" and len(pieces) > 1 and pieces[1] != part:
                imported.add(pieces[1])
    parts.pop("__init__", None)
    return parts


def cycle_through(graph: dict[str, set[str]], start: str) -> list[str] | None:
    """A shortest import path from `start` back to itself, or None."""
    came_from: dict[str, str] = {}
    queue = deque([start])
    while queue:
        node = queue.popleft()
        for imported in sorted(graph.get(node, ())):
            if imported == start:
                path = [node]
                while path[-1] != start:
                    path.append(came_from[path[-1]])
                return [*reversed(path), start]
            if imported not in came_from:
                came_from[imported] = node
                queue.append(imported)
    return None


def test_no_two_parts_of_the_server_import_each_other_even_through_a_third() -> None:
    graph = server_parts()
    assert {"app", "bodies", "errors", "jobs", "pool", "tomtom", "tools"} <= set(graph)
    cycles = [" -> ".join(path) for part in sorted(graph) if (path := cycle_through(graph, part))]
    assert cycles == []


def documented_imports() -> dict[str, set[str]]:
    """Each part of `server` and the parts it imports, as docs/architecture.md's table says,
    in the table's order (top to bottom)."""
    page = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    section = page.split("## Dependency rules", 1)[1].split("\n## ", 1)[0]
    rows: dict[str, set[str]] = {}
    for line in section.splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if not line.startswith("|") or len(cells) != 2 or not cells[0].startswith("`"):
            continue
        rows[cells[0].strip("`")] = set(re.findall(r"`([a-z_]+)`", cells[1]))
    return rows


def table_offences(documented: dict[str, set[str]], actual: dict[str, set[str]]) -> list[str]:
    """Where the code and the table disagree: a part without a row (or a row without a
    part), an import outside its part's row, a row naming an import the code does not
    make, and a row naming a part above it (imports run down the table)."""
    order = list(documented)
    found = [f"{part}: no row in docs/architecture.md" for part in sorted(set(actual) - set(order))]
    found += [f"{part}: a row but no such part" for part in sorted(set(order) - set(actual))]
    for part in sorted(set(order) & set(actual)):
        found += [
            f"{part} imports {name}, outside its row"
            for name in sorted(actual[part] - documented[part])
        ]
        found += [
            f"{part}'s row names {name}, never imported"
            for name in sorted(documented[part] - actual[part])
        ]
        found += [
            f"{part}'s row names {name}, a part above it"
            for name in sorted(documented[part])
            if name in order and order.index(name) <= order.index(part)
        ]
    return found


def test_each_part_of_the_server_imports_exactly_what_the_architecture_page_says() -> None:
    assert table_offences(documented_imports(), server_parts()) == []


def test_the_table_check_fails_on_a_forbidden_import_a_missing_row_and_a_stale_row() -> None:
    documented = documented_imports()
    actual = {part: set(names) for part, names in server_parts().items()}
    assert len(documented) > 10 and table_offences(documented, actual) == []
    actual["bodies"].add("tools")  # a worker-side module reaching up into the tools
    actual["newpart"] = {"errors"}
    actual["http"].discard("ops")
    assert table_offences(documented, actual) == [
        "newpart: no row in docs/architecture.md",
        "bodies imports tools, outside its row",
        "http's row names ops, never imported",
    ]
    documented["errors"] = {"tools"}
    assert "errors's row names tools, a part above it" in table_offences(documented, actual)


def test_the_code_imports_itself_only_under_its_one_import_name() -> None:
    # A bare `import server` from a checkout would load a second copy of every module.
    bare = ("server", "fitting", "widgets")
    folders = ("server", "fitting", "widgets", "loadtest", "benchmarks", "tests")
    found = [
        f"{module} imports {name}"
        for folder in folders
        for module, names in _raw_imports(folder).items()
        for name in sorted(names)
        if name.split(".")[0] in bare
    ]
    assert found == []


def _raw_imports(folder: str) -> dict[str, set[str]]:
    found: dict[str, set[str]] = {}
    for path in sorted((ROOT / folder).rglob("*.py")):
        if "node_modules" in path.parts:
            continue
        names: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                names.update(alias.name for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names.add(node.module)
        found[str(path.relative_to(ROOT))] = names
    return found


def test_a_cycle_between_two_parts_is_found() -> None:
    graph = {"pool": {"ops", "tomtom"}, "tomtom": {"config", "pool"}, "ops": set()}
    assert cycle_through(graph, "pool") == ["pool", "tomtom", "pool"]
    assert cycle_through(graph, "ops") is None


@pytest.mark.parametrize(
    ("part", "allowed"),
    [
        ("errors", set()),
        ("bodies", {"errors"}),
        ("jobs", {"bodies", "errors", "ops", "tool_names"}),
    ],
)
def test_what_fitting_workers_import_of_the_server_imports_nothing_of_the_loop_side(
    part: str, allowed: set[str]
) -> None:
    # The worker's side of the seam: TomTom's bodies as received (`server.bodies`), the
    # jobs built from them and the errors both raise; never the client, pool or tools.
    assert server_parts()[part] <= allowed


def test_the_bodies_import_no_mcp_web_stack_or_metrics_and_the_errors_import_nothing() -> None:
    loop_side = ("mcp", "starlette", "uvicorn", "httpx", "anyio", "aiohttp", "prometheus_client")
    assert offenders("server/bodies", loop_side) == []
    assert imported_packages("server")["server/errors.py"] == {"__future__"}


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
    imports = (
        "import tomtom_mcp_apps.server.bodies, tomtom_mcp_apps.server.jobs, "
        "tomtom_mcp_apps.server.pool, tomtom_mcp_apps.fitting"
    )
    assert loaded_after(imports, heavy) == []


def test_jobs_and_bodies_alone_load_no_metrics_client_either() -> None:
    heavy = ("mcp.", "starlette", "uvicorn", "httpx", "prometheus_client")
    assert (
        loaded_after("import tomtom_mcp_apps.server.bodies, tomtom_mcp_apps.server.jobs", heavy)
        == []
    )


def tool_modules_imported(path: Path) -> set[str]:
    """The modules of `server.tools` that `path` imports, in any import form."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.add(node.module)
            if node.module == "tomtom_mcp_apps.server.tools":
                found.update(f"tomtom_mcp_apps.server.tools.{alias.name}" for alias in node.names)
    return {
        name.removeprefix("tomtom_mcp_apps.server.tools.")
        for name in found
        if name.startswith("tomtom_mcp_apps.server.tools.")
    }


def test_no_tool_module_imports_another_only_the_private_helpers_they_share() -> None:
    paths = sorted((ROOT / "server" / "tools").glob("[!_]*.py"))
    families = {path.stem for path in paths}
    assert families >= {"search", "routing", "ev", "data_viz"}  # the rule checks real modules
    found = [
        f"{path.name} imports server.tools.{name}"
        for path in paths
        for name in sorted(tool_modules_imported(path) & families)
    ]
    assert found == []


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


HTTP_CLIENTS = (
    "aiohttp",
    "h11",
    "http.client",
    "httpcore",
    "httpcore2",
    "httpx",
    "httpx2",
    "requests",
    "urllib.request",
    "urllib3",
    "yarl",
)
"""HTTP client libraries (and their URL type, yarl): only the seam, `server.outbound`, uses one."""
SEAM = "server/outbound/"


def imported_names(source: str) -> set[str]:
    """Every module `source` imports, wherever the import stands, with `from a import b`
    also counted as `a.b` (b may be a module: `from urllib import request`)."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module)
            names.update(f"{node.module}.{alias.name}" for alias in node.names)
    return names


def http_client_imports(sources: dict[str, str]) -> list[str]:
    """ "<module> imports <library>" for each library a module outside the seam imports."""
    return [
        f"{module} imports {lib}"
        for module, source in sorted(sources.items())
        if not module.startswith(SEAM)
        for lib in HTTP_CLIENTS
        if any(n == lib or n.startswith(f"{lib}.") for n in imported_names(source))
    ]


def test_only_the_outbound_seam_imports_an_http_client_library() -> None:
    sources = {
        str(path.relative_to(ROOT)): path.read_text(encoding="utf-8")
        for package in ("server", "fitting", "widgets", "tomtom_mcp_apps")
        for path in (ROOT / package).rglob("*.py")
        if "node_modules" not in path.parts
    }
    assert any(module.startswith(SEAM) for module in sources)
    assert http_client_imports(sources) == []


def test_an_http_client_imported_outside_the_seam_in_any_form_is_found() -> None:
    sources = {
        "server/tiles/_service.py": "import aiohttp\n",
        "server/auth/_issuer.py": "def fetch():\n    from httpx import AsyncClient\n",
        "server/downloads/_data_url.py": "from urllib import parse, request\n",
        "server/app.py": "import urllib.request as fetch\nfrom yarl import URL\n",
        "server/outbound/_network.py": "import aiohttp\nfrom yarl import URL\n",
    }
    assert http_client_imports(sources) == [
        "server/app.py imports urllib.request",
        "server/app.py imports yarl",
        "server/auth/_issuer.py imports httpx",
        "server/downloads/_data_url.py imports urllib.request",
        "server/tiles/_service.py imports aiohttp",
    ]
