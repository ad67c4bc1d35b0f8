"""The image: slim base, every package installed, warm numba cache, non-root, healthcheck."""

from __future__ import annotations

import fnmatch
import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DOCKERFILE = (ROOT / "Dockerfile").read_text()


def _instructions() -> list[tuple[str, str]]:
    joined = re.sub(r"\\\n", " ", DOCKERFILE)
    return [
        tuple(line.strip().split(None, 1))
        for line in joined.splitlines()
        if line.strip() and not line.lstrip().startswith("#")
    ]


def _ignored(path: str) -> bool:
    """Docker's rule: the last matching .dockerignore pattern wins (`!` re-includes)."""
    ignored = False
    for raw in (ROOT / ".dockerignore").read_text().splitlines():
        pattern = raw.strip()
        if not pattern or pattern.startswith("#"):
            continue
        negate = pattern.startswith("!")
        pattern = pattern.lstrip("!").rstrip("/")
        if (
            fnmatch.fnmatch(path, pattern)
            or fnmatch.fnmatch(path, pattern.replace("**/", ""))
            or path.startswith(pattern + "/")
        ):
            ignored = not negate
    return ignored


def test_the_image_starts_from_python_slim_and_runs_as_a_non_root_user() -> None:
    steps = _instructions()
    assert steps[0] == ("FROM", "python:3.11-slim")
    users = [arg for op, arg in steps if op == "USER"]
    assert users and users[-1] not in {"root", "0"}


def test_every_package_of_the_distribution_is_copied_and_not_ignored() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    folders = set(project["tool"]["setuptools"]["package-dir"].values())
    copied = {arg.split()[0] for op, arg in _instructions() if op == "COPY"}
    for package in sorted(folders):
        assert package in copied, f"{package}/ is not copied into the image"
        assert not _ignored(f"{package}/__init__.py"), f"{package}/ is in .dockerignore"
    assert not _ignored("pyproject.toml") and not _ignored("README.md")
    assert _ignored(".venv/bin/python") and _ignored(".git/HEAD")


def test_the_numba_cache_is_compiled_at_build_time_where_the_server_reads_it() -> None:
    steps = _instructions()
    env = " ".join(arg for op, arg in steps if op == "ENV")
    assert "NUMBA_CACHE_DIR=" in env
    warm = [
        i
        for i, (op, arg) in enumerate(steps)
        if op == "RUN" and "tomtom_mcp_apps.fitting.warm_up()" in arg
    ]
    user = max(i for i, (op, _) in enumerate(steps) if op == "USER")
    assert warm and warm[0] < user


def test_the_healthcheck_asks_health() -> None:
    (check,) = [arg for op, arg in _instructions() if op == "HEALTHCHECK"]
    assert "/health" in check
