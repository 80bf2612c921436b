"""The table the console talks to: a real one on a serial port, or a virtual one.

Both run the host link (:class:`~tractor_table.link.serial_link.SerialLink`)
on a background thread; its notes are handed to the console through a queue
(:attr:`TableSource.inbox`), never by calling into the UI from that thread
(the link thread holds the link's lock while it dispatches: a UI that waited
for it while the UI thread waited for the lock would hang). The UI thread
drains the queue on a timer, in order.

Items in the inbox are ``(kind, value)``: ``("note", note)`` for every note
of the link; ``("bots", text)`` for what the bots say, ``("bots_done", text)``
and ``("bots_error", text)`` when they stop.
"""

from __future__ import annotations

import queue
import threading
from typing import TYPE_CHECKING, Any

from ..errors import CommandError
from ..link.notes import Note
from ..vocab import AppCode

if TYPE_CHECKING:
    from shengji import Rules

    from ..link.serial_link import SerialLink
    from ..virtual.game import BotGame
    from ..virtual.runner import VirtualTable

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

    @property
    def link(self) -> SerialLink | None:
        raise NotImplementedError

    def _put_note(self, note: Note) -> None:
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


class VirtualSource(TableSource):
    """The real firmware under MicroPython on a virtual table, with bots or not."""

    kind = "virtual"
    can_tap = True

    def __init__(
        self,
        rules: Rules,
        *,
        bots: bool = False,
        hands: int = 1,
        seed: int = 1,
        strength: int = 1,
        readers: str = "spi",
        table: VirtualTable | None = None,
        pace: float = 0.0,
    ) -> None:
        from ..virtual.runner import VirtualTable
        from .pace import Pacer

        super().__init__()
        self.rules = rules
        self.decks = rules.decks
        self.bots = bots
        self.hands = hands
        self.seed = seed
        self.strength = strength
        self.vt = table if table is not None else VirtualTable(rules.decks, readers=readers, rules=rules)
        self.vt.note_hooks.append(self._put_note)
        #: the bots' pace, pause and step (console/pace.py)
        self.pacer = Pacer(pace)
        self.vt.note_hooks.append(self.pacer.on_note)
        self.game: BotGame | None = None
        self._bots: threading.Thread | None = None

    @property
    def link(self) -> SerialLink | None:
        return self.vt.link

    def start(self) -> None:
        self.vt.start()
        link = self.vt.link
        self.port = (link.port or "") if link is not None else ""

    def close(self) -> None:
        self.closing = True  # the bots' errors from here on are the table going away
        self.pacer.close()
        self.vt.close()
        if self._bots is not None:
            self._bots.join(timeout=2)
        self.closed = True

    def display(self) -> list[str] | None:
        return list(self.vt.lines)

    def tap(self, seat: int, card: int) -> None:
        self.vt.tap(seat, card)

    def press(self, seat: int, kind: int) -> None:
        self.vt.press(seat, kind)

    def start_bots(self) -> None:
        if not self.bots or self._bots is not None:
            return
        from ..virtual.game import BotGame
        from .pace import PacedTable

        self.game = BotGame(
            PacedTable(self.vt, self.pacer),  # type: ignore[arg-type]
            self.rules,
            seed=self.seed,
            strength=self.strength,
            say=lambda text: self.inbox.put(("bots", text)),
        )
        from ..virtual.seed import seed_line

        self.inbox.put(("bots_seed", seed_line(self.seed)))
        self._bots = threading.Thread(target=self._play, name="tt-console-bots", daemon=True)
        self._bots.start()

    @property
    def bots_playing(self) -> bool:
        return self._bots is not None and self._bots.is_alive()

    def _play(self) -> None:
        game = self.game
        assert game is not None
        try:
            game.play(self.hands)
        except CommandError as exc:
            if not self.closing:
                self.inbox.put(("bots_error", f"the bots stopped: {exc}"))
            return
        self.inbox.put(
            (
                "bots_done",
                f"the bots played {game.hands_played} hand(s), {game.tricks_played} tricks; "
                f"{game.checks} checks with the deal known, {len(game.disagreements)} disagreement(s)",
            )
        )
