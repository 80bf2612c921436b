"""A fault-injecting relay between two pseudo-terminals.

The device side is a pty whose slave end is the MicroPython process's stdin
and stdout; the host side is a second pty whose slave end the host opens
with pyserial through a stable path (a symlink, like /dev/ttyACM0). The relay
copies bytes between the two masters and can drop bytes, stall (and, like
the rp2's USB stack when the host stops reading, discard the device's output
meanwhile) and unplug/replug the host side (its pty is closed, then a new
one appears under the same path).
"""

from __future__ import annotations

import os
import pty
import random
import select
import threading
import time
import tty
from pathlib import Path


def raw_pty() -> tuple[int, int]:
    master, slave = pty.openpty()
    tty.setraw(slave)  # no echo, no newline translation, no signals (0x03)
    return master, slave


class Relay:
    def __init__(self, workdir: Path, seed: int = 1) -> None:
        self.path = workdir / "ttyACM0"
        self.rng = random.Random(seed)
        self.dev_master, self.dev_slave = raw_pty()
        self.host_master: int | None = None
        self.host_slave: int | None = None
        self.drop = 0.0  # per byte, both directions
        self.stall_until = 0.0
        self.to_host = 0
        self.to_device = 0
        self.dropped = 0
        self.ctrl_c_to_device = 0
        self._held: bytearray = bytearray()  # host->device bytes held during a stall
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self.plug()
        self._thread = threading.Thread(target=self._run, name="relay", daemon=True)
        self._thread.start()

    # --- control

    def plug(self) -> None:
        with self._lock:
            m, s = raw_pty()
            tmp = self.path.with_suffix(".new")
            if tmp.is_symlink():
                tmp.unlink()
            tmp.symlink_to(os.ttyname(s))
            tmp.replace(self.path)
            self.host_master, self.host_slave = m, s

    def unplug(self) -> None:
        with self._lock:
            for fd in (self.host_master, self.host_slave):
                if fd is not None:
                    os.close(fd)
            self.host_master = self.host_slave = None
            if self.path.is_symlink():
                self.path.unlink()

    def stall(self, seconds: float) -> None:
        self.stall_until = time.monotonic() + seconds

    def close(self) -> None:
        self._stop.set()
        self._thread.join(timeout=2)
        self.unplug()
        for fd in (self.dev_master, self.dev_slave):
            os.close(fd)

    # --- the copying thread

    def _faults(self, data: bytes) -> bytes:
        if not self.drop:
            return data
        out = bytearray()
        for b in data:
            if self.rng.random() < self.drop:
                self.dropped += 1
            else:
                out.append(b)
        return bytes(out)

    def _run(self) -> None:
        while not self._stop.is_set():
            with self._lock:
                hm = self.host_master
            fds = [self.dev_master] + ([hm] if hm is not None else [])
            try:
                ready, _, _ = select.select(fds, [], [], 0.01)
            except (OSError, ValueError):
                continue
            stalled = time.monotonic() < self.stall_until
            with self._lock:
                hm = self.host_master
                if self.dev_master in ready:
                    data = os.read(self.dev_master, 4096)
                    if stalled or hm is None:
                        self.dropped += len(data)  # nobody reads: the rp2 drops it
                    else:
                        data = self._faults(data)
                        self.to_host += len(data)
                        os.write(hm, data)
                if hm is not None and hm in ready:
                    try:
                        data = os.read(hm, 4096)
                    except OSError:  # the host closed its end for a moment
                        data = b""
                    self.ctrl_c_to_device += data.count(3)
                    self._held += self._faults(data)
                if self._held and not stalled:
                    self.to_device += len(self._held)
                    os.write(self.dev_master, bytes(self._held))
                    self._held.clear()
