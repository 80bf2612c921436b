"""Where the project's non-Python parts live.

The host tool is run from a checkout (``make setup`` installs it editable), so
the firmware and hardware folders are found beside the packages.
"""

from __future__ import annotations

from pathlib import Path

#: The repository root (the folder holding ``pyproject.toml``).
ROOT = Path(__file__).resolve().parents[2]
#: The Pico's files, as they are copied to the board.
FIRMWARE_DIR = ROOT / "firmware"
#: Pin map, bill of materials, wiring diagram.
HARDWARE_DIR = ROOT / "hardware"
#: Compiled firmware (``make firmware``).
BUILD_FIRMWARE_DIR = ROOT / "build" / "firmware"
#: Documentation; benchmarks write ``performance.md`` here.
DOCS_DIR = ROOT / "docs"
#: The files the host copies to the Pico's flash beside the firmware: the card map
#: and the table's configuration (firmware/hwconfig.py names them, from here).
CARDS_FILE = "cards.bin"
CONFIG_FILE = "table.cfg"
