"""Write host/tractor_table/rp2_rom_qstrs.py: the firmware's names that the rp2
port keeps in flash (its ROM qstrs and its frozen modules' pool), read from a
build made by tools/rp2emu/build.sh.

    python tools/rp2emu/rom_qstrs.py BUILD_DIR

A name the port has in flash is not interned in the heap when a module that
uses it is imported; every other name of the firmware's ``.mpy`` files is (the
qstr pools, docs/firmware.md "The chip's qstr pools"). Only the names the
firmware's modules hold are kept: a name added to the firmware later that the
port also has is counted as interned until this runs again (the safe side).
"""

from __future__ import annotations

import re
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "host"))

from tractor_table import firmware_build, mpy_native  # noqa: E402

OUT = REPO / "host" / "tractor_table" / "rp2_rom_qstrs.py"


def port_names(build: Path) -> tuple[str, set[str]]:
    ports = sorted((build / "src").glob("micropython-*/ports/rp2/build-RPI_PICO"))
    if not ports:
        raise SystemExit(f"no rp2 build under {build}/src: run tools/rp2emu/build.sh {build} first")
    b = ports[-1]
    version = b.parents[2].name.removeprefix("micropython-")
    rom = set(re.findall(r'^QDEF[01]\(MP_QSTR\w*, \d+, \d+, "(.*)"\)$', (b / "genhdr" / "qstrdefs.generated.h").read_text(), re.M))
    frozen_c = (b / "frozen_content.c").read_text()
    at = frozen_c.index("mp_qstr_frozen_const_pool = {")
    frozen = set(re.findall(r'^\s+"((?:[^"\\]|\\.)*)",$', frozen_c[at:], re.M))
    return version, rom | frozen


def firmware_names() -> set[str]:
    names: set[str] = set()
    with tempfile.TemporaryDirectory() as td:
        for c in firmware_build.compile_all(out=Path(td)):
            names |= {q.decode() for q in mpy_native.read_file(c.output).qstrs}
    return names


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print(__doc__.split("\n\n")[1].strip(), file=sys.stderr)
        return 64
    version, port = port_names(Path(argv[1]))
    keep = sorted(firmware_names() & port)
    body = "\n".join(f"    {n!r}," for n in keep)
    OUT.write_text(
        f'"""The firmware\'s names the rp2 port (MicroPython v{version}, RPI_PICO) keeps in\n'
        "flash: not interned in the heap at an import (tractor_table.chip_qstrs).\n"
        'Written by tools/rp2emu/rom_qstrs.py from the port\'s own build; do not edit."""\n\n'
        f"NAMES = frozenset((\n{body}\n))\n"
    )
    print(f"{OUT}: {len(keep)} names (v{version})")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
