"""The smallest MicroPython heap each firmware test module passes in, against
the heapsize its `# runs-under:` line declares (docs/development.md).

    python bench/mpy_heap_margin.py [tests/table/test_table_core.py ...]

With no files, every module with a `# runs-under: micropython` line. For each,
a binary search (2K steps) between half the declared heap and the declared one
runs the module's tests under MicroPython's unix port; it prints the smallest
heap that passed and the margin. A declared heap should be at least 1.15x that
smallest one: the heap a module needs moves by a few KB with the checkout's
paths and the allocator's layout, and a CI machine once ran out where this one
did not. Writes nothing.
"""

from __future__ import annotations

import math
import re
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "host"))

from tractor_table import mpy  # noqa: E402

_MARKER = re.compile(r"^# runs-under: micropython(?:[ \t]+heapsize=(\d+)K)?[ \t]*$", re.M)
MARGIN = 1.15


def passes(test: Path, kib: int) -> bool:
    rel = test.resolve().relative_to(ROOT)
    proc = mpy.run(
        Path("tests/support/mpy_harness.py"),
        args=[rel.stem],
        path=[Path("firmware"), rel.parent, Path("tests/support")],
        heapsize=f"{kib}K",
        timeout=900,
        cwd=ROOT,
    )
    return proc.returncode == 0


def smallest(test: Path) -> tuple[Path, int, int | None]:
    match = _MARKER.search(test.read_text(encoding="utf-8"))
    assert match is not None, f"{test}: no '# runs-under: micropython' line"
    declared = int(match.group(1) or 160)
    if not passes(test, declared):
        return test, declared, None
    lo, hi = declared // 2, declared
    while hi - lo > 2:
        mid = (lo + hi) // 2
        if passes(test, mid):
            hi = mid
        else:
            lo = mid
    return test, declared, hi


def main(argv: list[str]) -> int:
    files = [Path(a) for a in argv] or sorted(
        p for p in (ROOT / "tests").rglob("test_*.py") if _MARKER.search(p.read_text(encoding="utf-8"))
    )
    short = 0
    with ThreadPoolExecutor(2) as pool:
        for test, declared, least in pool.map(smallest, files):
            name = test.resolve().relative_to(ROOT)
            if least is None:
                print(f"{name}: FAILS at its declared {declared}K")
                short += 1
                continue
            ok = declared >= least * MARGIN
            short += not ok
            print(
                f"{name}: declared {declared}K, passes from {least}K, margin {100 * (declared - least) / declared:.0f}%"
                + ("" if ok else f"  <- under {MARGIN}x: declare at least {math.ceil(least * MARGIN / 8) * 8}K")
            )
    return 1 if short else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
