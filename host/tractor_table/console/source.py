"""The table the console talks to: a real one on a serial port (:class:`PortSource`),
or a virtual one (:class:`tractor_table.sim.virtual.source.VirtualSource`: the
simulators live apart, and the console imports none of them).

Both run the host link (:class:`~tractor_table.link.serial_link.SerialLink`)
on a background thread; its notes are handed to the console through a queue
(:attr:`TableSource.inbox`), never by calling into the UI from that thread
(the link thread holds the link's lock while it dispatches: a UI that waited
for it while the UI thread waited for the lock would hang). The UI thread
drains the queue on a timer, in order.

Items in the inbox are ``(kind, value)``: ``("note", note)`` for every note
of the link; ``("bots", text)`` for what the bots say, ``("bots_done", text)``
and ``("bots_error", text)`` when they stop; ``("club", text)`` for the club's
table commands (a competition's new match, time called: commands/console.py).

:attr:`TableSource.note_hooks` hear every note on the link's thread, before the
console does (the club's :class:`~tractor_table.club.tablecommands.LinkCommands`
waits there for the table's answer: a busy screen does not hold it up).
"""

from __future__ import annotations

import queue
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ..errors import CommandError
from ..link.notes import Note
from ..vocab.enums import AppCode

if TYPE_CHECKING:

    from ..link.serial_link import SerialLink

Item = tuple[str, Any]

#: the application messages (firmware/events.py): ask for the display lines, and the answer
APP_STATE, APP_LINES, APP_REPLY = AppCode.STATE, AppCode.LINES, AppCode.REPLY


class TableSource:
    """A table: its link, its display, and (virtual only) its readers and buttons."""

    kind = "table"
    port = ""
    decks = 2
    can_tap = False
    bots = False

    def __init__(self) -> None:
        self.inbox: queue.SimpleQueue[Item] = queue.SimpleQueue()
        self.closing = False
        self.closed = False  # closed, the link's thread ended
        #: called on the link's thread with every note, before it is queued
        self.note_hooks: list[Callable[[Note], None]] = []

    @property
    def link(self) -> SerialLink | None:
        raise NotImplementedError

    def _put_note(self, note: Note) -> None:
        for hook in self.note_hooks:
            hook(note)
        self.inbox.put(("note", note))

    def start(self) -> None:
        raise NotImplementedError

    def close(self) -> None:
        raise NotImplementedError

    def display(self) -> list[str] | None:
        """The table's eight display lines as the board shows them, if known here
        (the virtual board); None: ask the table over the link."""
        return None

    def tap(self, seat: int, card: int) -> None:
        raise CommandError("taps need the virtual table: on a real table, tap the card at the seat's reader")

    def press(self, seat: int, kind: int) -> None:
        raise CommandError("buttons need the virtual table: on a real table, press the seat's button")

    def start_bots(self) -> None:
        """Let the bots play, if this source has them (virtual only)."""

    @property
    def bots_playing(self) -> bool:
        return False


class PortSource(TableSource):
    """A table on a serial port (the Pico, or any port or pyserial URL)."""

    kind = "port"

    def __init__(self, port: str, decks: int) -> None:
        super().__init__()
        self.port = port
        self.decks = decks
        self._link: SerialLink | None = None

    @property
    def link(self) -> SerialLink | None:
        return self._link

    def start(self) -> None:
        from ..link.serial_link import SerialLink

        self._link = SerialLink(self.port, on_note=self._put_note).start()

    def close(self) -> None:
        if self._link is not None:
            self._link.close()
        self.closed = True


def check_port(port: str) -> None:
    """The port exists and opens (then it is closed again for the link), or a
    CommandError in one line."""
    import os

    import serial

    from ..link.serial_link import open_port

    if "://" not in port and not os.path.exists(port):
        raise CommandError(
            f"--port {port}: no such port; plug the table in and name its port "
            "(e.g. /dev/ttyACM0), or leave --port out to find the Pico by its USB id"
        )
    try:
        open_port(port).close()
    except (serial.SerialException, OSError, ValueError) as exc:
        raise CommandError(f"--port {port}: cannot open it ({exc})") from None
