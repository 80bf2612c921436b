"""pyproject.toml names every package and ships every non-package file the
host tool loads (MicroPython scripts it runs, the link's type stub): a package
missing from the list is absent from a wheel or a non-editable install."""

from __future__ import annotations

import fnmatch
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _setuptools() -> dict[str, object]:
    with (ROOT / "pyproject.toml").open("rb") as f:
        tool = tomllib.load(f)["tool"]["setuptools"]
    assert isinstance(tool, dict)
    return tool


def _package_dirs(tool: dict[str, object]) -> dict[str, Path]:
    roots = tool["package-dir"]
    assert isinstance(roots, dict)
    return {str(name): ROOT / str(path) for name, path in roots.items()}


def _found_packages(tool: dict[str, object]) -> set[str]:
    found = set()
    for name, root in _package_dirs(tool).items():
        for init in root.rglob("__init__.py"):
            rel = init.parent.relative_to(root)
            found.add(".".join((name, *rel.parts)))
    return found


def _data_folders(tool: dict[str, object]) -> set[str]:
    """The folders (as dotted names) holding files that package-data ships."""
    data = tool["package-data"]
    assert isinstance(data, dict)
    folders = set()
    for name, root in _package_dirs(tool).items():
        for glob in data.get(name, []):
            for path in root.glob(glob):
                if path.is_file() and "__pycache__" not in path.parts:
                    folders.add(".".join((name, *path.parent.relative_to(root).parts)))
    return folders


def test_every_package_is_listed() -> None:
    """The packages, and every folder of package data: setuptools ships a folder
    only as a package, and warns for each one missing (a BuildBackendWarning,
    ~20 lines each, on every `make setup`)."""
    tool = _setuptools()
    listed = tool["packages"]
    assert isinstance(listed, list)
    assert sorted(listed) == sorted(_found_packages(tool) | _data_folders(tool))
    assert "tractor_table.sim.board.mpy" in listed


def test_every_loaded_non_package_file_is_package_data() -> None:
    tool = _setuptools()
    data = tool["package-data"]
    assert isinstance(data, dict)
    packages = _found_packages(tool)
    missing = []
    for name, root in _package_dirs(tool).items():
        for path in (*root.rglob("*.py"), *root.rglob("*.pyi")):
            if "__pycache__" in path.parts:
                continue
            rel = path.relative_to(root)
            if ".".join((name, *rel.parent.parts)) in packages and path.suffix == ".py":
                continue  # a module of a listed package
            globs = data.get(name, [])
            assert isinstance(globs, list)
            if not any(fnmatch.fnmatch(rel.as_posix(), g) for g in globs):
                missing.append(f"{name}: {rel.as_posix()}")
    assert missing == []


def test_the_checks_see_a_missing_package() -> None:
    tool = _setuptools()
    listed = tool["packages"]
    assert isinstance(listed, list)
    assert "tractor_table.link" in _found_packages(tool)
    assert sorted(x for x in listed if x != "tractor_table.link") != sorted(_found_packages(tool))
