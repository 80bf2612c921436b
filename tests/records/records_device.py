"""A table's end of the link (``ttlink.DeviceLink``, the firmware's own
module) on a real pseudo-terminal, run by a thread: ``tractor-table link``
opens its path with pyserial as it would open /dev/ttyACM0."""

from __future__ import annotations

import os
import random
import select
import threading
import time
import tty
from collections.abc import Sequence
from typing import Any

from tractor_table.link import ttlink
from tractor_table.link.serial_link import host_identity


def _ms() -> int:
    return int(time.monotonic() * 1000)


class PtyTable:
    def __init__(self, boot_id: int, events: Sequence[list[Any]] = (),
                 restore: tuple[int, int] | None = None) -> None:
        self.master, self.slave = os.openpty()
        tty.setraw(self.slave)
        self.path = os.ttyname(self.slave)
        rng = random.Random(boot_id)
        self.lock = threading.Lock()
        self.link = ttlink.DeviceLink(
            _ms(), boot_id, lambda: rng.getrandbits(30), "0.1.0", host_identity()[1]
        )
        self.link.snapshot_source = lambda: (b"[]", self.link.count, self.link.head)
        if restore is not None:
            self.link.restore(restore[0], restore[1], ())
        for ev in events:
            self.link.add_event(ev)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def reboot(self, boot_id: int, restore: tuple[int, int]) -> None:
        """The table restarts (same cable): a new boot id, its log restored from
        a save at ``restore`` = (count, hash after event count - 1); it
        announces itself, and the host starts a new session."""
        rng = random.Random(boot_id)
        link = ttlink.DeviceLink(
            _ms(), boot_id, lambda: rng.getrandbits(30), "0.1.0", host_identity()[1]
        )
        link.snapshot_source = lambda: (b"[]", link.count, link.head)
        link.restore(restore[0], restore[1], ())
        with self.lock:
            self.link = link

    def add(self, ev: list[Any]) -> int:
        with self.lock:
            return self.link.add_event(ev)

    def _run(self) -> None:
        while not self._stop.is_set():
            ready, _, _ = select.select([self.master], [], [], 0.01)
            data = b""
            if ready:
                try:
                    data = os.read(self.master, 4096)
                except OSError:
                    data = b""
            with self.lock:
                now = _ms()
                if data:
                    self.link.feed(data, now)
                self.link.tick(now)
                out = self.link.take_output()
                self.link.take_notes()
            if out:
                try:
                    os.write(self.master, out)
                except OSError:
                    pass

    def close(self) -> None:
        self._stop.set()
        self._thread.join(timeout=2)
        for fd in (self.master, self.slave):
            try:
                os.close(fd)
            except OSError:
                pass
