"""The firmware on MicroPython's webassembly port: a 32-bit build, for heap figures
with 32-bit objects (as on the RP2040) measured here and in CI.

The port is the npm package ``@micropython/micropython-webassembly-pyscript``
(v1.27.0, pinned by ``tools/wasm/package.json`` and ``package-lock.json``),
installed by :func:`install` with ``npm ci`` into ``build/wasm/``; it runs under
``node`` through ``tools/wasm/run.mjs``. Its heap grows on demand (the
``heapsize`` given is where it starts), so it never runs out where the Pico
would: the figures are what the code uses, not whether it fits.

The port has no native code emitter, so ``@micropython.native`` and
``@micropython.viper`` are syntax errors there. :func:`build_firmware` therefore
compiles the firmware as bytecode only: each ``firmware/*.py`` with its
``@micropython.native`` and ``@micropython.viper`` decorator lines blanked
(line numbers kept; viper's casts, ``ptr8`` and the like, defined at the end of
a module that uses them: the buffer itself, as the CPython shim does), through ``mpy-cross`` without ``-march`` (as
``make firmware`` does otherwise: ``firmware_build.OPT``, -O3). The same ``.mpy`` files load on
the unix port, so the two ports are compared on the same inputs; what differs
from a Pico is that the Pico runs ``pn532.py``'s and ``scanner.py``'s native
functions as armv6m machine code.
"""

from __future__ import annotations

import filecmp
import os
import shutil
import subprocess
import tempfile
from collections.abc import Sequence
from pathlib import Path

from . import firmware_build
from .errors import CommandError
from .paths import FIRMWARE_DIR, ROOT

TOOLS = ROOT / "tools" / "wasm"
BUILD = ROOT / "build" / "wasm"
PACKAGE = "@micropython/micropython-webassembly-pyscript"
RUNNER = TOOLS / "run.mjs"
#: decorators whose code the port cannot compile: blanked out
NATIVE_DECORATORS = ("@micropython.native", "@micropython.viper")
#: viper's pointer casts, as bytecode: the buffer itself (appended to a module
#: that uses one; ``int()`` casts are plain calls in bytecode)
VIPER_CASTS = ("ptr8", "ptr16", "ptr32")


def missing() -> str:
    """Why the port cannot run here (one line), or "" when node and npm are there."""
    for tool in ("node", "npm"):
        if shutil.which(tool) is None:
            return f"no {tool} on PATH: the 32-bit (webassembly) MicroPython runs under node, installed with npm"
    return ""


def entry(build: Path = BUILD) -> Path:
    return build / "node_modules" / PACKAGE / "micropython.mjs"


def install(build: Path = BUILD) -> Path:
    """Install the port from the project's package-lock.json (``npm ci``) into ``build``,
    unless the same lock is installed there already; returns the module folder."""
    why = missing()
    if why:
        raise CommandError(why)
    lock = TOOLS / "package-lock.json"
    here = build / "package-lock.json"
    if entry(build).exists() and here.exists() and filecmp.cmp(lock, here, shallow=False):
        return build
    build.mkdir(parents=True, exist_ok=True)
    for name in ("package.json", "package-lock.json"):
        shutil.copyfile(TOOLS / name, build / name)
    proc = subprocess.run(
        ["npm", "ci", "--ignore-scripts", "--no-audit", "--no-fund", "--loglevel=error"],
        cwd=build,
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )
    if proc.returncode != 0 or not entry(build).exists():
        last = (proc.stderr.strip() or proc.stdout.strip() or "?").splitlines()[-1]
        raise CommandError(f"npm ci of {PACKAGE} into {build} failed: {last}")
    return build


def strip_native(text: str) -> str:
    """The source with its ``@micropython.native`` and ``@micropython.viper``
    lines blanked (line numbers kept), and viper's pointer casts that it uses
    defined at its end."""
    lines = text.splitlines(keepends=True)
    out = []
    viper = False
    for line in lines:
        if line.strip() in NATIVE_DECORATORS:
            viper = viper or line.strip() == "@micropython.viper"
            out.append("\n")
        else:
            out.append(line)
    if viper:
        if out and not out[-1].endswith("\n"):
            out.append("\n")
        out += [f"\n\ndef {name}(b):\n    return b\n" for name in VIPER_CASTS if f"{name}(" in text]
    return "".join(out)


def build_firmware(out: Path, src: Path = FIRMWARE_DIR) -> list[Path]:
    """Every firmware module as a bytecode-only ``.mpy`` in ``out`` (see the module's doc)."""
    out.mkdir(parents=True, exist_ok=True)
    done = []
    with tempfile.TemporaryDirectory(prefix="tractor-wasm-src-") as tmp:
        for source in firmware_build.firmware_sources(src):
            plain = Path(tmp) / source.name
            plain.write_text(strip_native(source.read_text(encoding="utf-8")), encoding="utf-8")
            target = out / (source.stem + ".mpy")
            proc = subprocess.run(
                [firmware_build.mpy_cross_binary(), firmware_build.OPT, "-s", firmware_build.source_name(source), "-o", str(target), str(plain)],
                capture_output=True,
                text=True,
                check=False,
            )
            if proc.returncode != 0:
                raise CommandError(f"mpy-cross rejected {source.name} (bytecode only): {proc.stderr.strip()}")
            done.append(target)
    return done


def run(
    script: Path,
    *,
    path: Sequence[Path],
    args: Sequence[str] = (),
    files: Sequence[Path] = (),
    heapsize: int = 1 << 20,
    timeout: float = 600,
    build: Path = BUILD,
) -> subprocess.CompletedProcess[str]:
    """Run ``script`` under the webassembly port with the folders ``path`` as its
    ``sys.path`` (each copied whole into the port's in-memory file system, under
    its own host path) and ``args`` as ``sys.argv[1:]``. ``files``: host files
    the script reads, copied in under their own paths (their folders' other files
    too). Files the script writes stay in the port's memory."""
    cmd = ["node", str(RUNNER), str(build), "--heapsize", str(heapsize)]
    folders: list[str] = []
    for p in [*path, *(f.parent for f in files)]:
        full = str(Path(p).resolve())
        if full not in folders:
            folders.append(full)
            cmd += ["--dir", f"{full}={full}"]
    for p in path:
        cmd += ["--path", str(Path(p).resolve())]
    cmd += ["--cwd", tempfile.gettempdir(), str(script), *args]
    return subprocess.run(
        cmd, capture_output=True, text=True, check=False, timeout=timeout, env=dict(os.environ, NODE_NO_WARNINGS="1")
    )
