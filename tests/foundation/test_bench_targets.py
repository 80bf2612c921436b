"""``make bench`` runs the benchmarks but not the power-cut soak (about four
minutes), which ``make soak-flash`` runs; ``bench/run_all.py flash`` still
runs it by name, and an unknown name is refused with the known ones."""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[2]
BENCH = ROOT / "bench"


def _run_all() -> ModuleType:
    spec = importlib.util.spec_from_file_location("run_all", BENCH / "run_all.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _names(scripts: list[Path]) -> list[str]:
    return [s.stem.removeprefix("bench_") for s in scripts]


def test_the_default_leaves_the_flash_soak_out() -> None:
    run_all = _run_all()
    scripts = sorted(BENCH.glob("bench_*.py"))
    default = _names(run_all.select(scripts, set()))
    assert "flash" not in default
    assert set(default) == set(_names(scripts)) - {"flash"}
    assert {"engine", "table", "heap"} <= set(default)


def test_a_soak_named_runs() -> None:
    run_all = _run_all()
    scripts = sorted(BENCH.glob("bench_*.py"))
    assert _names(run_all.select(scripts, {"flash"})) == ["flash"]
    assert _names(run_all.select(scripts, {"flash", "records"})) == ["flash", "records"]


def test_an_unknown_name_is_refused() -> None:
    proc = subprocess.run([sys.executable, str(BENCH / "run_all.py"), "nosuch"],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2
    assert "no benchmark nosuch" in proc.stderr and "flash" in proc.stderr


def test_make_bench_and_soak_flash_run_what_the_docs_say() -> None:
    make = (ROOT / "Makefile").read_text(encoding="utf-8")
    bench = re.search(r"^bench:.*\n\t(.+)$", make, re.M)
    soak = re.search(r"^soak-flash:.*\n\t(.+)$", make, re.M)
    assert bench is not None and soak is not None
    assert bench.group(1).strip() == "$(BIN)/python bench/run_all.py"  # the default: no soak
    assert "bench/bench_flash.py" in soak.group(1)
    row = next(ln for ln in (ROOT / "docs" / "development.md").read_text(encoding="utf-8").splitlines()
               if ln.startswith("| `make bench`"))
    assert "soak-flash" in row
