"""Writes the "calibration" section of docs/performance.md: the factors of
``bench/rp2040.py`` that turn every unix-port figure into an RP2040 one, and
the rp2-port measurements behind them. Nothing is timed here.

Usage: .venv/bin/python bench/bench_calibration.py
"""

from __future__ import annotations

import rp2040
from tractor_table import perfdoc


def main() -> int:
    body = rp2040.calibration_markdown() + "\n\nWritten by `.venv/bin/python bench/bench_calibration.py`."
    perfdoc.write_section("calibration", body)
    print(body)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
