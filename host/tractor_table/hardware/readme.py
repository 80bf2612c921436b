"""Generated from the pin map: the pin table between the ``pins`` markers in
``hardware/README.md``."""

from __future__ import annotations

from ..paths import HARDWARE_DIR
from .pico import HEADER
from .pinmap import PinMap, PinMapError

README_PATH = HARDWARE_DIR / "README.md"


README_BEGIN = "<!-- pins:begin (generated from pinmap.toml by `make hardware`) -->"


README_END = "<!-- pins:end -->"


def render_pin_table(pm: PinMap) -> str:
    rows = ["| GPIO | header pin | signal | goes to | on that part |", "|---|---|---|---|---|"]
    for sig in sorted(pm.signals(), key=lambda s: s.header_pin):
        rows.append(f"| GP{sig.gpio} | {sig.header_pin} | {sig.name} | {sig.part} | {sig.terminal} |")
    pw = pm.power
    rows.append("| - | 36 | 3V3(OUT) | display VCC, the four CS pull-ups | VCC |")
    rows.append(
        f"| - | {pw.reader_supply_pin} | {HEADER[pw.reader_supply_pin]} | readers' regulator {pw.reader_regulator} "
        f"({pw.reader_regulator_ma} mA), {pw.bulk_capacitor_uf} uF at its output; its 3.3 V goes to every seat cable's 3V3 | IN |"
    )
    rows.append("| - | 38 (any GND) | GND | every part | GND |")
    return "\n".join(rows)


def with_pin_table(readme: str, pm: PinMap) -> str:
    """``readme`` with the text between the pins markers replaced by the generated table."""
    start = readme.find(README_BEGIN)
    end = readme.find(README_END)
    if start < 0 or end < start:
        raise PinMapError(f"{README_PATH.name}: the pins markers are missing")
    return readme[: start + len(README_BEGIN)] + "\n" + render_pin_table(pm) + "\n" + readme[end:]
