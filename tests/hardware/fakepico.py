"""A stand-in Pico for deploy tests: MicroPython's unix port on a pseudo-terminal.

mpremote opens the pty's slave end exactly as it opens /dev/ttyACM0; the unix
port on the master end answers with MicroPython's own REPL code (raw REPL and
raw-paste mode included) and keeps its "flash" in a folder. What differs from
a Pico: Ctrl-D at the friendly REPL ends the process (a Pico soft-resets), and
the raw REPL's soft reset is not supported (deploy does not use it).

What the board says of itself is modelled: before its REPL starts, the unix
port puts a stand-in for ``sys`` into ``sys.modules`` (so ``import sys`` finds
it) whose ``implementation`` and ``platform`` are the rp2 port's, MicroPython
v1.28.0 on a Pico by default (``_mpy`` 0x1306: .mpy 6.3, native armv6m), or
whatever a test gives (``mpy=None``: the field is missing; ``real=True``: the
unix port's own). Everything else is the real ``sys``.
"""

from __future__ import annotations

import os
import pty
import subprocess
import time
import tty
from pathlib import Path

from tractor_table import mpy as mpy_runner

#: sys.implementation._mpy of MicroPython v1.28.0 on a Pico: .mpy 6.3, native code armv6m (4)
RP2_MPY = 6 | (3 << 8) | (4 << 10)

_SYS = """import sys as _real


class _Impl:
    def __init__(self, mpy, version):
        if mpy is not None:
            self._mpy = mpy
        self.version = version

    def __getattr__(self, name):
        if name == "_mpy":
            raise AttributeError(name)
        return getattr(_real.implementation, name)


class _Sys:
    def __init__(self, mpy, version, platform):
        self.implementation = _Impl(mpy, version)
        self.platform = platform

    def __getattr__(self, name):
        return getattr(_real, name)


_real.modules["sys"] = _Sys({mpy!r}, {version!r}, {platform!r})
del _Impl, _Sys
"""


class FakePico:
    def __init__(
        self,
        flash: Path,
        *,
        mpy: int | None = RP2_MPY,
        version: tuple[int, ...] = (1, 28, 0, ""),
        platform: str = "rp2",
        real: bool = False,
    ) -> None:
        self.flash = flash
        flash.mkdir(parents=True, exist_ok=True)
        boot: list[str] = []
        if not real:  # outside the flash folder: not one of the board's files
            script = flash.parent / f"{flash.name}-sys.py"
            script.write_text(_SYS.format(mpy=mpy, version=version, platform=platform))
            boot = ["-i", str(script)]
        master, slave = pty.openpty()
        tty.setraw(slave)  # no newline translation: bytes pass as on a USB CDC port
        self.port = os.ttyname(slave)
        self._slave = slave  # held open so that the master never sees a hang-up
        env = dict(os.environ, MICROPYPATH=f"{flash}:.frozen")
        self.proc = subprocess.Popen(
            [mpy_runner.micropython_binary(), "-X", "heapsize=256K", *boot],
            stdin=master,
            stdout=master,
            stderr=master,
            cwd=flash,
            env=env,
            close_fds=True,
        )
        os.close(master)

    def files(self) -> dict[str, bytes]:
        return {p.name: p.read_bytes() for p in sorted(self.flash.iterdir()) if p.is_file()}

    def wait_exit(self, timeout: float) -> int | None:
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if self.proc.poll() is not None:
                return self.proc.returncode
            time.sleep(0.02)
        return None

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait(timeout=5)
        os.close(self._slave)
