"""A simulated PN532 on a pseudo-terminal: the HSU (UART) interface served
on the master side of ``os.openpty()`` by a thread, so that a program opens
the slave side with pyserial exactly as it opens a USB-UART adapter
(``/dev/ttyUSB0``)."""

from __future__ import annotations

import os
import select
import threading
import tty
from types import TracebackType

from .chip import Chip, Tag, UartPort
from .clock import RealClock


class PtyPN532:
    """A PN532 on a pseudo-terminal. Use as a context manager; ``port`` is the
    device path to open. Scripting (``place``, ``remove``, ``inject``) is
    thread-safe with respect to the serving thread."""

    def __init__(self, chip: Chip | None = None) -> None:
        self.chip = chip if chip is not None else Chip(RealClock(), name="pty")
        self.uart = UartPort(self.chip)
        self.lock = threading.RLock()
        self._master, self._slave = os.openpty()
        tty.setraw(self._slave)
        self.port = os.ttyname(self._slave)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._serve, name="pn532-pty", daemon=True)
        self.received = bytearray()
        self.sent = bytearray()

    def __enter__(self) -> PtyPN532:
        self.start()
        return self

    def __exit__(
        self, et: type[BaseException] | None, ev: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    def start(self) -> None:
        self._thread.start()

    def close(self) -> None:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(timeout=2)
        for fd in (self._master, self._slave):
            try:
                os.close(fd)
            except OSError:
                pass

    # scripting ---------------------------------------------------------------
    def place(self, tag: Tag) -> None:
        with self.lock:
            self.chip.place(tag)

    def remove(self, tag: Tag) -> None:
        with self.lock:
            self.chip.remove(tag)

    def clear(self) -> None:
        with self.lock:
            self.chip.clear()

    def inject(self, fault: str, **kwargs: object) -> None:
        with self.lock:
            self.chip.inject(fault, **kwargs)  # type: ignore[arg-type]

    # serving -----------------------------------------------------------------
    def _serve(self) -> None:
        while not self._stop.is_set():
            with self.lock:
                wait_us = self.chip.next_due_us() - self.chip.now()
            timeout = min(max(wait_us, 0) / 1e6, 0.01)
            try:
                readable, _, _ = select.select([self._master], [], [], timeout)
            except (OSError, ValueError):
                return
            if readable:
                try:
                    data = os.read(self._master, 4096)
                except OSError:
                    return
                with self.lock:
                    self.received += data
                    self.uart.feed(data)
            with self.lock:
                out = self.uart.output()
            if out:
                self.sent += out
                try:
                    os.write(self._master, out)
                except OSError:
                    return
