"""The MicroPython runner and the dual-runtime harness are real: they run the
unix port, honour the module path and the heap cap, and report failures."""

from __future__ import annotations

from pathlib import Path

from tractor_table import mpy

SUPPORT = Path(__file__).resolve().parents[1] / "support"


def test_runs_under_micropython() -> None:
    proc = mpy.run(code="import sys; print(sys.implementation.name)")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "micropython"


def test_module_path_is_used(tmp_path: Path) -> None:
    (tmp_path / "greeting.py").write_text("WORD = 'ni hao'\n")
    proc = mpy.run(code="import greeting; print(greeting.WORD)", path=[tmp_path])
    assert proc.stdout.strip() == "ni hao", proc.stderr


def test_heap_cap_is_enforced() -> None:
    code = "b = bytearray(200 * 1024); print(len(b))"
    assert mpy.run(code=code, heapsize="512K").returncode == 0
    small = mpy.run(code=code, heapsize="64K")
    assert small.returncode != 0
    assert "MemoryError" in small.stdout + small.stderr


def test_harness_reports_failures_with_traceback(tmp_path: Path) -> None:
    (tmp_path / "sample_tests.py").write_text(
        "def test_good():\n    assert 1 + 1 == 2\n\n"
        "def test_bad():\n    assert [1, 2] == [2, 1], 'order matters'\n"
    )
    proc = mpy.run(SUPPORT / "mpy_harness.py", args=["sample_tests"], path=[tmp_path])
    assert proc.returncode == 1
    assert "1 passed, 1 failed" in proc.stdout
    assert "FAIL test_bad" in proc.stdout
    assert "order matters" in proc.stdout + proc.stderr


def test_harness_passes_clean_module(tmp_path: Path) -> None:
    (tmp_path / "clean_tests.py").write_text("def test_one():\n    pass\n")
    proc = mpy.run(SUPPORT / "mpy_harness.py", args=["clean_tests"], path=[tmp_path])
    assert proc.returncode == 0, proc.stdout
    assert "1 passed, 0 failed" in proc.stdout
