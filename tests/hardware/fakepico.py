"""A stand-in Pico for deploy tests: MicroPython's unix port on a pseudo-terminal.

mpremote opens the pty's slave end exactly as it opens /dev/ttyACM0; the unix
port on the master end answers with MicroPython's own REPL code (raw REPL and
raw-paste mode included) and keeps its "flash" in a folder. What differs from
a Pico: Ctrl-D at the friendly REPL ends the process (a Pico soft-resets), and
the raw REPL's soft reset is not supported (deploy does not use it).
"""

from __future__ import annotations

import os
import pty
import subprocess
import time
import tty
from pathlib import Path

from tractor_table import mpy


class FakePico:
    def __init__(self, flash: Path) -> None:
        self.flash = flash
        flash.mkdir(parents=True, exist_ok=True)
        master, slave = pty.openpty()
        tty.setraw(slave)  # no newline translation: bytes pass as on a USB CDC port
        self.port = os.ttyname(slave)
        self._slave = slave  # held open so that the master never sees a hang-up
        env = dict(os.environ, MICROPYPATH=f"{flash}:.frozen")
        self.proc = subprocess.Popen(
            [mpy.micropython_binary(), "-X", "heapsize=256K"],
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
