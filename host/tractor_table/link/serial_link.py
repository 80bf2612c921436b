"""The host link over pyserial: find the Pico, keep the link up, drain always.

:class:`SerialLink` owns one background thread that does all the I/O: it reads
whatever the port has (so the Pico's output is never dropped for want of a
reader), feeds it to the sans-IO :class:`~tractor_table.link.ttlink_host.HostLink`,
ticks it, writes its frames and dispatches its notes. When the port goes
away (unplug, device reboot, pty closed) it closes it and keeps trying to open
it again; every reopen starts a new handshake, and the game log resyncs.
Lines from the device that are not frames (prints, tracebacks) are logged on
the ``tractor_table.link.device`` logger.
"""

from __future__ import annotations

import logging
import random
import threading
import time
from collections.abc import Callable
from typing import Any

import serial
from serial.tools import list_ports

from ..errors import CommandError
from . import ttlink, ttlink_host
from .notes import (
    Conflict,
    DeviceLine,
    Down,
    Incompatible,
    Note,
    Reboot,
    Rollback,
    Synced,
    Up,
    typed,
)

log = logging.getLogger("tractor_table.link")
device_log = logging.getLogger("tractor_table.link.device")

#: Raspberry Pi's USB vendor id (the Pico under MicroPython enumerates as 2E8A:0005).
PICO_VID = 0x2E8A
#: Raspberry Pi debug probes share the vendor id and show a serial port too: not a table.
PROBE_PIDS = frozenset({0x0004, 0x000C})
BAUDRATE = 115200  # ignored by USB CDC, needed by pyserial


def host_identity() -> tuple[str, str]:
    """(host tool version, rules id) that the host sends in its HELLO."""
    from .. import __version__
    from ..vocab.loader import firmware

    return __version__, str(firmware("version").RULES_ID)


def find_pico_ports() -> list[str]:
    """Serial ports whose USB vendor id is the Raspberry Pi one (debug probes left out), sorted."""
    return sorted(
        p.device for p in list_ports.comports() if p.vid == PICO_VID and p.pid not in PROBE_PIDS
    )


def resolve_port(port: str | None) -> str:
    """The port to open: the one given (a path or a pyserial URL), else the only Pico."""
    if port:
        return port
    found = find_pico_ports()
    if not found:
        raise CommandError(
            "no Raspberry Pi Pico found (USB id 2E8A); plug the table in, "
            "or name the port with --port (e.g. /dev/ttyACM0 or a pyserial URL)"
        )
    if len(found) > 1:
        raise CommandError(f"several Picos found ({', '.join(found)}); choose one with --port")
    return found[0]


def open_port(port: str) -> serial.Serial:
    """Open a port path or pyserial URL exclusively (no other process may open it)."""
    ser = serial.serial_for_url(port, do_not_open=True)
    ser.baudrate = BAUDRATE
    ser.timeout = 0.02
    # short: a write that blocks stops the thread from reading, and the rp2
    # drops its output when nobody reads for about 500 ms
    ser.write_timeout = 0.1
    if isinstance(ser, serial.Serial) and "://" not in port:
        ser.exclusive = True
    ser.open()
    return ser


def monotonic_ms() -> int:
    return int(time.monotonic() * 1000)


class SerialLink:
    """A :class:`HostLink` on a serial port, run by a background thread.

    ``port`` is a device path, a pyserial URL, or None to find the Pico by
    its USB id (again at every reconnect). ``on_note`` is called from the
    link thread for every note, typed (:mod:`.notes`; a game event's note is
    the :class:`tractor_table.events.Event`); keep it short.
    """

    def __init__(
        self,
        port: str | None = None,
        *,
        on_note: Callable[[Note], None] | None = None,
        record: ttlink_host.Record | None = None,
        timing: ttlink.Timing | None = None,
        reconnect_s: float = 0.2,
        identity: tuple[str, str] | None = None,
        clock: Callable[[], int] = monotonic_ms,
    ) -> None:
        version, rules_id = identity or host_identity()
        self.port = port
        self.reconnect_s = reconnect_s
        self._clock = clock
        self._rng = random.SystemRandom()
        self.link = ttlink_host.HostLink(
            clock(), self._rand, version, rules_id, record=record, timing=timing
        )
        self._on_note = on_note
        self._lock = threading.RLock()
        self._changed = threading.Condition(self._lock)
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._ser: serial.Serial | None = None
        self.opened = 0  # how many times the port was opened
        self.port_errors = 0
        self.short_writes = 0
        self.device_lines: list[str] = []
        self.last_error = ""

    def _rand(self) -> int:
        return self._rng.getrandbits(30)

    # --- life cycle

    def start(self) -> SerialLink:
        if self._thread is None:
            self._stop.clear()
            self._thread = threading.Thread(target=self._run, name="tt-link", daemon=True)
            self._thread.start()
        return self

    def close(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None
        self._close_port()

    def __enter__(self) -> SerialLink:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- what the application uses

    @property
    def record(self) -> ttlink_host.Record:
        return self.link.record

    @property
    def connected(self) -> bool:
        return self._ser is not None

    def synced(self) -> bool:
        with self._lock:
            return self.link.synced

    def wait_for(self, predicate: Callable[[ttlink_host.HostLink], bool], timeout: float) -> bool:
        """Wait until ``predicate(link)`` holds (checked under the link lock)."""
        deadline = time.monotonic() + timeout
        with self._changed:
            while not predicate(self.link):
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self._changed.wait(min(left, 0.05))
            return True

    def wait_synced(self, timeout: float) -> bool:
        return self.wait_for(lambda link: link.synced, timeout)

    def send_app(self, payload: list[Any]) -> None:
        with self._lock:
            self.link.send_app(payload)

    def push_snapshot(self, data: bytes, count: int, head: int) -> int:
        with self._lock:
            return self.link.push_snapshot(data, count, head)

    def request_snapshot(self) -> None:
        with self._lock:
            self.link.request_snapshot()

    def with_link(self, fn: Callable[[ttlink_host.HostLink], Any]) -> Any:
        """Run ``fn(link)`` under the link lock (e.g. to copy the record)."""
        with self._lock:
            return fn(self.link)

    # --- the thread

    def _open(self) -> bool:
        try:
            name = resolve_port(self.port)
            ser = open_port(name)
        except (CommandError, serial.SerialException, OSError, ValueError) as exc:
            if str(exc) != self.last_error:
                log.info("cannot open the link port: %s", exc)
                self.last_error = str(exc)
            return False
        self.last_error = ""
        with self._lock:
            self._ser = ser
            self.opened += 1
            self.link.take_output()  # nothing queued for a port that was gone
            self.link.start(self._clock())
        log.info("link port %s open", name)
        return True

    def _close_port(self) -> None:
        ser, self._ser = self._ser, None
        if ser is not None:
            try:
                ser.close()
            except (serial.SerialException, OSError):
                pass

    def _run(self) -> None:
        while not self._stop.is_set():
            if self._ser is None and not self._open():
                self._stop.wait(self.reconnect_s)
                with self._lock:
                    self.link.tick(self._clock())
                    self.link.take_output()
                    self._dispatch(self.link.take_notes())
                continue
            try:
                self._step()
            except (serial.SerialException, OSError) as exc:
                self.port_errors += 1
                log.info("link port lost: %s", exc)
                self._close_port()
                with self._changed:
                    self.link.lost(f"port closed: {exc}")
                    self._dispatch(self.link.take_notes())
                    self._changed.notify_all()

    def _step(self) -> None:
        ser = self._ser
        assert ser is not None
        data = ser.read(max(1, min(ser.in_waiting, 4096)))
        with self._changed:
            now = self._clock()
            if data:
                self.link.feed(data, now)
            self.link.tick(now)
            out = self.link.take_output()
            notes = self.link.take_notes()
            self._dispatch(notes)
            if notes:
                self._changed.notify_all()
        if out:
            try:
                n = ser.write(out)
            except serial.SerialTimeoutException:
                n = 0
            if n != len(out):
                # the device is not reading: the frames count as lost and
                # the link retransmits them
                self.short_writes += 1

    def _dispatch(self, notes: list[list[Any]]) -> None:
        for raw in notes:
            note = typed(raw)
            if isinstance(note, DeviceLine):
                self.device_lines.append(note.text)
                del self.device_lines[:-200]
                device_log.info("%s", note.text)
            elif isinstance(note, (Up, Down, Reboot, Rollback, Conflict, Incompatible, Synced)):
                log.info("link %s", note)
            if self._on_note is not None:
                self._on_note(note)


def record_events(record: ttlink_host.Record) -> list[list[Any]]:
    """The events of a record as [index, hash, event] lists (for comparing logs)."""
    return [[record.base + k, h, ev] for k, (h, ev) in enumerate(record.events)]


__all__ = [
    "PICO_VID",
    "SerialLink",
    "find_pico_ports",
    "host_identity",
    "open_port",
    "record_events",
    "resolve_port",
]
