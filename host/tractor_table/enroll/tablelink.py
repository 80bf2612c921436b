"""The threaded link client of enroll mode (``enroll --table``, ``deckcheck --table``).

:class:`EnrollLink` runs a :class:`~tractor_table.link.serial_link.SerialLink`
(its own thread) to a table, numbers the link's sessions, hands over what the
thread saw in its order, and asks the table for enroll mode at a seat (or to
leave it), matching the answer to the request's session. The reader on top of
it is :class:`~.readers.TableTagReader`.
"""

from __future__ import annotations

import queue
import time
from collections import deque
from collections.abc import Callable
from typing import Any

from ..vocab.enums import AppCode

#: the link's application messages (firmware/events.py; firmware/enrollmode.py answers them)
APP_REPLY, APP_ENROLL, APP_TAG = int(AppCode.REPLY), int(AppCode.ENROLL), int(AppCode.TAG)


class EnrollLink:
    """The link to one table for enroll mode at ``seat`` (the tags of that seat only).

    ``on_down(why)`` is called (in the caller's thread) when a request sees the
    link go down."""

    def __init__(self, port: str, seat: int, on_down: Callable[[str], None]) -> None:
        from ..link.serial_link import SerialLink

        self.seat = seat
        self.on_down = on_down
        #: what the link thread hands over, in its order: (kind, session, data)
        #: with kind "up", "down", "tag" or "reply"; session counts the link's
        #: sessions ("up" notes), so an answer is matched to its request
        self._inbox: queue.Queue[tuple[str, int, Any]] = queue.Queue()
        self._stash: deque[tuple[str, int, Any]] = deque()  # tags that came during a request
        self._sessions = 0  # "up" notes so far (written by the link thread only)
        self._boot: dict[int, Any] = {}  # session -> the table's boot id in it
        #: the session in which the table agreed to enroll mode
        self.mode_session = 0
        self.link = SerialLink(port, on_note=self.on_note, reconnect_s=0.1).start()

    def on_note(self, note: Any) -> None:
        """The link's notes (called from its thread, under the link's lock)."""
        from ..link.notes import App, Down, Up, typed

        match typed(note):
            case Up(boot_id=boot):
                self._sessions += 1
                self._boot[self._sessions] = boot
                self._inbox.put(("up", self._sessions, None))
            case Down(why=why):
                self._inbox.put(("down", self._sessions, why))
            case App(payload=payload) if payload:
                p = list(payload)
                if p[0] == APP_TAG and len(p) >= 3 and p[1] == self.seat:
                    self._inbox.put(("tag", self._sessions, p))
                elif p[0] == APP_REPLY and len(p) >= 3 and p[1] == APP_ENROLL:
                    self._inbox.put(("reply", self._sessions, p))
            case _:
                pass

    # --- asking the table

    def send_now(self, payload: list[Any]) -> int:
        """Send in the session that is up now: its number, or -1 if none is up."""

        from ..link import ttlink

        def send(h: Any) -> int:
            if h.state != ttlink.UP:
                return -1  # queued now, it would be dropped with the session
            h.send_app(payload)
            return self._sessions

        result: int = self.link.with_link(send)
        return result

    def up(self) -> bool:
        from ..link import ttlink

        up: bool = self.link.with_link(lambda h: h.state == ttlink.UP)
        return up

    def next_item(self, timeout: float) -> tuple[str, int, Any] | None:
        if self._stash:
            return self._stash.popleft()
        try:
            return self._inbox.get(timeout=max(timeout, 0.0))
        except queue.Empty:
            return None

    def request(self, seat: int, timeout: float) -> tuple[str, str]:
        """Ask for enroll mode at ``seat`` (-1: leave it) and wait for the answer:
        ("ok", ""), ("refused", why), ("no answer", "") if none came within
        ``timeout`` of the request, or ("no link", "") if the link was not up
        within ``timeout``. A request lost with its session (the link went down
        meanwhile) is sent again in the next one, which has ``timeout`` again."""
        from ..link import ttlink

        deadline = time.monotonic() + timeout
        sent_in = -1
        while True:
            left = deadline - time.monotonic()
            if sent_in < 0:
                if not self.link.wait_for(lambda h: h.state == ttlink.UP, max(left, 0.0)):
                    return ("no link", "")
                sent_in = self.send_now([APP_ENROLL, seat])
                if sent_in >= 0:
                    deadline = time.monotonic() + timeout
                continue
            if left <= 0:
                return ("no answer", "") if self.up() else ("no link", "")
            try:  # tags stay in the inbox's order: the stash is read first by poll
                kind, session, data = self._inbox.get(timeout=left)
            except queue.Empty:
                continue
            if kind == "reply":
                if session != sent_in:
                    continue  # the answer to a request of an earlier session
                if data[2] == 0:
                    if seat >= 0:
                        self.mode_session = session
                    return ("ok", "")
                return ("refused", str(data[3]) if len(data) > 3 else "")
            if kind == "up":
                if session > sent_in:
                    sent_in = -1  # the request went down with its session: again
                continue
            if kind == "down":
                if session >= sent_in:
                    sent_in = -1  # lost with its session: sent again in the next one
                self.on_down(data)
                continue
            self._stash.append((kind, session, data))

    # --- the link

    def boot_of(self, session: int) -> Any:
        """The table's boot id in ``session`` (None if the WELCOME did not say)."""
        return self._boot.get(session)

    def wait_synced(self, timeout: float) -> bool:
        synced: bool = self.link.wait_synced(timeout)
        return synced

    def linger(self, seconds: float) -> None:
        """Keep the link running ``seconds`` (the table sees the ack of its answer)."""
        self.link.wait_for(lambda h: False, seconds)

    def close(self) -> None:
        self.link.close()
