"""The bots' pace at the console: a pause between the table's events, pause
and step keys.

The bots play through a :class:`PacedTable`, the virtual table behind a gate:
each tap or press they make waits at :meth:`Pacer.gate` until

- the table's last game event is ``pace`` seconds old (one play, one bid, one
  burial at a time, at a pace a person can follow), and
- the game is not paused; paused, :meth:`Pacer.step` lets the bots go on until
  the table's next game event (one play), then they wait again.

The pacer hears the table's events through the virtual table's note hooks.
"""

from __future__ import annotations

import threading
import time
from typing import Any

from ..events import Event
from ..link.notes import typed


class Pacer:
    def __init__(self, pace: float = 0.0) -> None:
        self.pace = max(0.0, pace)
        self.paused = False
        self._stepping = False
        self._last_event = 0.0
        self._cond = threading.Condition()
        self._closed = False
        self.waits = 0  # how often a bot's action waited at the gate (for tests)

    def on_note(self, note: Any) -> None:
        if isinstance(typed(note), Event):
            with self._cond:
                self._last_event = time.monotonic()
                self._stepping = False
                self._cond.notify_all()

    def toggle(self) -> bool:
        """Pause or go on; True when paused now."""
        with self._cond:
            self.paused = not self.paused
            self._stepping = False
            self._cond.notify_all()
            return self.paused

    def step(self) -> None:
        """Paused: let the bots play until the table's next event."""
        with self._cond:
            self.paused = True
            self._stepping = True
            self._cond.notify_all()

    def close(self) -> None:
        with self._cond:
            self._closed = True
            self._cond.notify_all()

    def gate(self) -> None:
        """Called (on the bots' thread) before each tap or press."""
        with self._cond:
            waited = False
            while not self._closed:
                if self.paused and not self._stepping:
                    waited = True
                    self._cond.wait(0.1)
                    continue
                due = self._last_event + self.pace - time.monotonic()
                if due <= 0 or self._stepping:
                    break
                waited = True
                self._cond.wait(min(due, 0.1))
            if waited:
                self.waits += 1


class PacedTable:
    """The virtual table as the bots see it: every tap and press through the gate."""

    def __init__(self, table: Any, pacer: Pacer) -> None:
        self._table = table
        self._pacer = pacer

    def tap(self, seat: int, card: int) -> None:
        self._pacer.gate()
        self._table.tap(seat, card)

    def press(self, seat: int, kind: int) -> None:
        self._pacer.gate()
        self._table.press(seat, kind)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._table, name)
