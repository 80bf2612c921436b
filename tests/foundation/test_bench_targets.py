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


def _bench_device_rules() -> ModuleType:
    sys.path.insert(0, str(BENCH))  # its own imports (rp2040) from bench/
    try:
        spec = importlib.util.spec_from_file_location("bench_device_rules", BENCH / "bench_device_rules.py")
        assert spec is not None and spec.loader is not None
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
    finally:
        sys.path.remove(str(BENCH))
    return mod


def test_the_device_rules_report_names_the_near_misses_from_the_data() -> None:
    bench = _bench_device_rules()
    # from the cases given: their near-miss families, in the data's order
    cases = [
        {"id": "adv-3", "family": "near miss (4 decks)"},
        {"id": "adv-5", "family": "long throw (4 decks)"},
        {"id": "adv-9", "family": "near miss, permanent_twos"},
    ]
    assert bench.near_misses(cases) == "2 near misses, adv-3 to adv-9"
    assert bench.near_misses(cases[:1]) == "the near miss adv-3"
    assert bench.near_misses(cases[1:2]) == "no near misses"
    # the report reads them from the regression data, whatever it holds now
    from tractor_table import adversarial

    data = adversarial.read_cases(bench.ADVERSARIAL_DATA)
    near = [c["id"] for c in data if "near miss" in str(c["family"])]
    assert len(near) >= 2
    assert bench.near_misses(data) == f"{len(near)} near misses, {near[0]} to {near[-1]}"
    source = (BENCH / "bench_device_rules.py").read_text()
    assert "near_misses(adversarial.read_cases(ADVERSARIAL_DATA))" in source
    assert not re.search(r"adv-\d+\.\.\d+", source)  # no range written down
