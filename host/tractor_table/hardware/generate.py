"""``python -m tractor_table.hardware`` (``make hardware``): rewrite the three
generated files from the pin map; ``--check`` only reports what is out of date
(the tests do the same)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from .hwconfig import HWCONFIG_PATH, render_hwconfig
from .pinmap import PINMAP_PATH, PinMap, PinMapError, load
from .readme import README_PATH, with_pin_table
from .svg import WIRING_PATH, render_svg


def outputs(pm: PinMap) -> dict[Path, str]:
    """Every generated file with the text it must have."""
    return {
        HWCONFIG_PATH: render_hwconfig(pm),
        WIRING_PATH: render_svg(pm),
        README_PATH: with_pin_table(README_PATH.read_text(encoding="utf-8"), pm),
    }


def stale(pm: PinMap) -> list[Path]:
    """Generated files that differ from what the pin map produces."""
    return [p for p, text in outputs(pm).items() if not p.exists() or p.read_text(encoding="utf-8") != text]


def _rel(path: Path) -> str:
    try:
        return str(path.relative_to(PINMAP_PATH.parents[1]))
    except ValueError:
        return str(path)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tractor_table.hardware", description=__doc__.split("\n")[0])
    parser.add_argument("--check", action="store_true", help="only report generated files that are out of date")
    args = parser.parse_args(argv)
    try:
        pm = load()
    except PinMapError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    out_of_date = stale(pm)
    if args.check:
        for p in out_of_date:
            print(f"out of date: {_rel(p)} (run 'make hardware')", file=sys.stderr)
        return 1 if out_of_date else 0
    for path, text in outputs(pm).items():
        if path in out_of_date:
            path.write_text(text, encoding="utf-8")
            print(f"wrote {_rel(path)}")
    if not out_of_date:
        print("hwconfig.py, wiring.svg and the README pin table are up to date")
    return 0
