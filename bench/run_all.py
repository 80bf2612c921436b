"""Run every benchmark (``bench/bench_*.py``) in turn; each writes its own
section of ``docs/performance.md``. Benchmarks are not part of ``make test``."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent


def main(argv: list[str]) -> int:
    wanted = set(argv[1:])
    failed = []
    for script in sorted(HERE.glob("bench_*.py")):
        if wanted and script.stem.removeprefix("bench_") not in wanted:
            continue
        print(f"== {script.name}", flush=True)
        if subprocess.run([sys.executable, str(script)], check=False).returncode != 0:
            failed.append(script.name)
    if failed:
        print("failed: " + ", ".join(failed), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
