"""A USB cable between the host and a table, made of pseudo-terminals, that
can be pulled out and plugged back in.

The virtual table's "USB serial" is the slave end of its pty (the host opens it
by path, as it opens /dev/ttyACM0). :class:`PtyForwarder` opens that end itself
and copies bytes between it and a second pty, the host side, whose slave the
host opens through a stable symlink (``path``). ``unplug()`` closes the host
side's pty and removes the symlink (the host's reads fail, its reopens find no
port); ``plug()`` makes a new pty under the same path. While unplugged the
table's output is dropped, as the rp2's USB stack drops it when nobody reads;
the frames dropped so are kept, decoded, in ``dropped_frames`` (those that got
through in ``delivered_frames``); ``wait_acked()``
waits until the host has acknowledged all the table sent. ``attach()``
points the table side at another port (a restarted table, another table)
while the host side stays as it is. ``block`` (a predicate on a decoded frame)
drops the host's frames it matches on their way to the table.

Everything goes through real ptys and the kernel's tty layer; only the copying
is done here.
"""

from __future__ import annotations

import os
import pty
import select
import threading
import tty
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tractor_table.link import ttlink


def _raw_pty() -> tuple[int, int]:
    master, slave = pty.openpty()
    tty.setraw(slave)  # no echo, no newline translation, no signals
    return master, slave


class PtyForwarder:
    def __init__(self, workdir: Path, device_port: str) -> None:
        self.path = workdir / "ttyACM-fwd"
        self.dev_fd: int | None = None
        self.host_master: int | None = None
        self.host_slave: int | None = None
        self.dropped_frames: list[list[Any]] = []
        self.delivered_frames: list[list[Any]] = []  # the table's frames the host got
        self.blocked_frames: list[list[Any]] = []
        self.block: Callable[[list[Any]], bool] | None = None
        self._dev_line = bytearray()  # the table's current line, and whether any of it was dropped
        self._dev_line_dropped = False
        self._host_line = bytearray()  # the host's current line (sent whole, or blocked)
        self._dev_sent: tuple[int, int] = (0, 0)  # (session, seq) of the table's last reliable frame
        self._host_acked: tuple[int, int] = (0, 0)  # (session, ack) of the host's last frame
        self._lock = threading.Lock()
        self._changed = threading.Condition(self._lock)
        self._stop = threading.Event()
        self.attach(device_port)
        self.plug()
        self._thread = threading.Thread(target=self._run, name="pty-forwarder", daemon=True)
        self._thread.start()

    # --- control

    def attach(self, device_port: str) -> None:
        """Copy to and from the table on ``device_port`` (the slave path of its pty)."""
        fd = os.open(device_port, os.O_RDWR | os.O_NOCTTY)
        with self._lock:
            self._close_dev()
            self.dev_fd = fd
            self._dev_line.clear()
            self._host_line.clear()

    def plug(self) -> None:
        with self._lock:
            if self.host_master is not None:
                return
            m, s = _raw_pty()
            tmp = self.path.with_suffix(".new")
            if tmp.is_symlink():
                tmp.unlink()
            tmp.symlink_to(os.ttyname(s))
            tmp.replace(self.path)
            self.host_master, self.host_slave = m, s
            self._host_line.clear()

    def unplug(self) -> None:
        with self._lock:
            for fd in (self.host_master, self.host_slave):
                if fd is not None:
                    os.close(fd)
            self.host_master = self.host_slave = None
            if self.path.is_symlink():
                self.path.unlink()

    def wait_dropped(self, predicate: Callable[[list[Any]], bool], timeout: float) -> bool:
        """Wait until a frame the table sent while unplugged matches ``predicate``."""
        with self._changed:
            return self._changed.wait_for(lambda: any(predicate(f) for f in self.dropped_frames), timeout)

    def wait_delivered(self, predicate: Callable[[list[Any]], bool], count: int, timeout: float) -> bool:
        """Wait until ``count`` frames of the table that match ``predicate`` reached the host."""
        with self._changed:
            return self._changed.wait_for(
                lambda: sum(1 for f in self.delivered_frames if predicate(f)) >= count, timeout
            )

    def wait_acked(self, timeout: float) -> bool:
        """Wait until the host has acknowledged every message the table sent
        (the table then has nothing in flight: its next message goes out at once)."""

        def acked() -> bool:
            sent, got = self._dev_sent, self._host_acked
            return sent[1] == 0 or (got[0] == sent[0] and got[1] >= sent[1])

        with self._changed:
            return self._changed.wait_for(acked, timeout)

    def close(self) -> None:
        self._stop.set()
        self._thread.join(timeout=2)
        self.unplug()
        with self._lock:
            self._close_dev()

    # --- the copying thread

    def _close_dev(self) -> None:
        if self.dev_fd is not None:
            try:
                os.close(self.dev_fd)
            except OSError:
                pass
            self.dev_fd = None

    def _from_device(self, data: bytes, delivered: bool) -> None:
        """Keep the table's lines, to decode those that were (partly) dropped."""
        for b in data:
            if b == 10:
                frame, _ = ttlink.decode_line(bytes(self._dev_line))
                if frame is not None and (self._dev_line_dropped or not delivered):
                    self.dropped_frames.append(frame)
                elif frame is not None:
                    self.delivered_frames.append(frame)
                    if frame[2]:
                        self._dev_sent = (frame[1], frame[2])
                self._changed.notify_all()
                self._dev_line.clear()
                self._dev_line_dropped = False
            else:
                self._dev_line.append(b)
                if not delivered:
                    self._dev_line_dropped = True

    def _from_host(self, data: bytes) -> bytes:
        """Whole lines for the table; a line whose frame ``block`` matches is dropped."""
        self._host_line += data
        out = bytearray()
        while True:
            nl = self._host_line.find(b"\n")
            if nl < 0:
                return bytes(out)
            line = bytes(self._host_line[: nl + 1])
            del self._host_line[: nl + 1]
            frame, _ = ttlink.decode_line(line[:-1])
            if frame is not None and self.block is not None and self.block(frame):
                self.blocked_frames.append(frame)
                continue
            if frame is not None:
                self._host_acked = (frame[1], frame[3])
                self._changed.notify_all()
            out += line

    def _run(self) -> None:
        while not self._stop.is_set():
            with self._lock:
                fds = [fd for fd in (self.dev_fd, self.host_master) if fd is not None]
            try:
                ready, _, _ = select.select(fds, [], [], 0.01)
            except (OSError, ValueError):
                continue  # an fd closed meanwhile (unplug, attach)
            with self._lock:
                dev, host = self.dev_fd, self.host_master
                if dev is not None and dev in ready:
                    try:
                        data = os.read(dev, 4096)
                    except OSError:  # the table's process and pty are gone (a restart)
                        self._close_dev()
                        data = b""
                    if data:
                        if host is not None:
                            os.write(host, data)
                        self._from_device(data, delivered=host is not None)
                if host is not None and host in ready:
                    try:
                        data = os.read(host, 4096)
                    except OSError:  # the host closed its end for a moment
                        data = b""
                    out = self._from_host(data)
                    if out and self.dev_fd is not None:
                        os.write(self.dev_fd, out)
