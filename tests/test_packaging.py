"""The distribution: one import name, the product only, the version written once."""

from __future__ import annotations

import email
import re
import subprocess
import sys
import tarfile
import tomllib
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())
VERSION = PROJECT["project"]["version"]
FOLDERS = {"server", "fitting", "widgets"}
NOT_SHIPPED = ("tests/", "loadtest/", "benchmarks/", "deploy/", "docs/", "node_modules/")


def test_the_package_list_names_every_package_folder_under_the_one_import_name() -> None:
    setuptools = PROJECT["tool"]["setuptools"]
    folders = {
        "tomtom_mcp_apps." + ".".join(init.parent.relative_to(ROOT).parts)
        for top in FOLDERS
        for init in (ROOT / top).rglob("__init__.py")
        if "node_modules" not in init.parts
    }
    assert set(setuptools["packages"]) == folders | {"tomtom_mcp_apps"}
    assert {f"tomtom_mcp_apps.{f}": f for f in FOLDERS}.items() <= setuptools["package-dir"].items()


def test_every_place_that_quotes_the_version_quotes_the_one_in_pyproject() -> None:
    changelog = (ROOT / "CHANGELOG.md").read_text()
    releases = re.findall(r"^## \[(\d+\.\d+\.\d+)\]", changelog, re.M)
    assert releases and releases[0] == VERSION, "CHANGELOG.md's latest release"
    image = re.findall(
        r"image: tomtom-mcp-apps:(\S+)", (ROOT / "deploy/k8s/deployment.yaml").read_text()
    )
    assert image == [VERSION]
    wheels = set(
        re.findall(r"tomtom_mcp_apps-([0-9.]+)-py3-none-any\.whl", (ROOT / "README.md").read_text())
    )
    assert wheels == {VERSION}


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    out = tmp_path_factory.mktemp("dist")
    uv = str(Path(sys.executable).with_name("uv"))
    subprocess.run(
        [uv, "build", "--sdist", "--wheel", "-q", "-o", str(out), str(ROOT)],
        check=True,
        timeout=300,
    )
    (wheel,) = out.glob("tomtom_mcp_apps-*.whl")
    (sdist,) = out.glob("tomtom_mcp_apps-*.tar.gz")
    return wheel, sdist


@pytest.mark.process
def test_the_wheel_installs_one_import_name_and_no_tests_load_tests_or_benchmarks(
    built: tuple[Path, Path],
) -> None:
    wheel, _ = built
    names = zipfile.ZipFile(wheel).namelist()
    info = f"tomtom_mcp_apps-{VERSION}.dist-info/"
    assert {name.split("/")[0] + "/" for name in names} == {"tomtom_mcp_apps/", info}
    assert f"{info}licenses/LICENSE" in names
    assert "tomtom_mcp_apps/server/py.typed" in names
    assert "tomtom_mcp_apps/widgets/dist/map.html" in names


@pytest.mark.process
def test_the_wheel_metadata_says_what_a_package_index_shows(built: tuple[Path, Path]) -> None:
    wheel, _ = built
    with zipfile.ZipFile(wheel) as z:
        meta = email.message_from_bytes(z.read(f"tomtom_mcp_apps-{VERSION}.dist-info/METADATA"))
    assert meta["Version"] == VERSION and meta["License-Expression"] == "MIT"
    assert meta["Requires-Python"] == ">=3.11" and meta["Summary"]
    assert "Typing :: Typed" in meta.get_all("Classifier")
    assert meta["Description-Content-Type"] == "text/markdown"


@pytest.mark.process
def test_the_sdist_holds_the_product_and_no_tests_load_tests_or_benchmarks(
    built: tuple[Path, Path],
) -> None:
    _, sdist = built
    with tarfile.open(sdist) as tar:
        names = [name.split("/", 1)[1] for name in tar.getnames() if "/" in name]
    assert not [name for name in names if name.startswith(NOT_SHIPPED)]
    assert {
        "LICENSE",
        "README.md",
        "pyproject.toml",
        "server/app.py",
        "widgets/dist/map.html",
    } <= set(names)
