"""Writes the "calibration" section of docs/performance.md: the factors of
``bench/rp2040.py`` that turn every unix-port figure into an RP2040 one, and
the rp2-port measurements behind them. Nothing is timed here.

While the "device-rules" section (``bench_device_rules.py``, rewritten apart)
still scales by pystones, this section also gives its unix-port figures
calibrated the same way as the rest of the page.

Usage: .venv/bin/python bench/bench_calibration.py
"""

from __future__ import annotations

import re

import rp2040
from tractor_table import perfdoc

#: the "all checks" row of the device-rules section: count, median, p99, worst (µs, unix port)
_ALL_ROW = re.compile(r"^\| \*\*all\*\* \| (\d+) \| ([\d.]+) \| ([\d.]+) \| ([\d.]+) \|", re.M)
_RULES_TARGETS_MS = (5.0, 50.0)  # median, worst (docs/firmware.md, "Budgets")


def device_rules_note(page: str) -> str:
    section = re.search(r"<!-- bench:device-rules -->(.*?)<!-- /bench:device-rules -->", page, re.S)
    if section is None or "pystone" not in section.group(1):
        return ""
    row = _ALL_ROW.search(section.group(1))
    if row is None:
        return ""
    med_us, worst_us = float(row.group(2)), float(row.group(4))
    f = rp2040.time_factor("rules")
    med, worst = med_us * f / 1000, worst_us * f / 1000

    def met(value: float, target: float) -> str:
        return "met" if value < target else "**NOT met**"

    return (
        "\n\n**The device rules engine, calibrated.** Its section below still scales by a pystone ratio "
        "(`bench_device_rules.py` is being rewritten apart). Its unix-port figures over all "
        f"{int(row.group(1)):,} checks, calibrated with `RULES` × {rp2040.FLASH_WAIT} (× {f:g}): median "
        f"{med_us:g} µs → **{med:.2f} ms** (target < {_RULES_TARGETS_MS[0]:g} ms: {met(med, _RULES_TARGETS_MS[0])}), "
        f"worst {worst_us:g} µs → **{worst:.1f} ms** (target < {_RULES_TARGETS_MS[1]:g} ms: "
        f"{met(worst, _RULES_TARGETS_MS[1])}). With the worst-case factor measured "
        f"({rp2040.TIME['rules_worst']:g} × {rp2040.FLASH_WAIT}) the worst would be "
        f"{worst_us * rp2040.TIME['rules_worst'] * rp2040.FLASH_WAIT / 1000:.1f} ms; the rp2 port itself "
        "measured 33.5 ms, with no flash wait states."
    )


def main() -> int:
    page = perfdoc.PAGE.read_text(encoding="utf-8") if perfdoc.PAGE.exists() else ""
    body = (
        rp2040.calibration_markdown()
        + device_rules_note(page)
        + "\n\nWritten by `.venv/bin/python bench/bench_calibration.py`."
    )
    perfdoc.write_section("calibration", body)
    print(body)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
