"""The bots' pace at the console: a pause between the table's events, pause
and step keys.

The bots play through a :class:`PacedTable`, the virtual table behind a gate:
each tap or press they make waits at :meth:`Pacer.gate` until

- the table's last game event is ``pace`` seconds old (one play, one bid, one
  burial at a time, at a pace a person can follow), and
- the game is not paused; paused, :meth:`Pacer.step` lets the bots go on until
  the table's next game event (one play), then they wait again.

The pace can be changed as the bots play (:meth:`Pacer.set_pace`, the
console's ``+`` and ``-`` keys, stepping through :data:`PACES`); the gate reads
it at every turn, and :attr:`Pacer.used` is the pace the last action that
passed the gate was held to.

The pacer hears the table's events through the virtual table's note hooks.
"""

from __future__ import annotations

import threading
import time
from typing import Any

from ..events import Event
from ..link.notes import typed

#: the paces the console's + and - keys step through (seconds between events)
PACES = (0.0, 0.1, 0.25, 0.5, 1.0, 2.0, 3.0, 5.0)


def faster(pace: float) -> float:
    """The next pace of :data:`PACES` below this one (0: it stays)."""
    return max((p for p in PACES if p < pace), default=0.0)


def slower(pace: float) -> float:
    """The next pace of :data:`PACES` above this one (the slowest stays)."""
    return min((p for p in PACES if p > pace), default=max(pace, PACES[-1]))


class Pacer:
    def __init__(self, pace: float = 0.0) -> None:
        self.pace = max(0.0, pace)
        #: the pace the last action through the gate was held to (None: none yet)
        self.used: float | None = None
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

    def set_pace(self, pace: float) -> None:
        """A new pace, from the bots' next action on (one waiting now too)."""
        with self._cond:
            self.pace = max(0.0, pace)
            self._cond.notify_all()

    def close(self) -> None:
        with self._cond:
            self._closed = True
            self._cond.notify_all()

    def gate(self) -> None:
        """Called (on the bots' thread) before each tap or press."""
        with self._cond:
            waited = False
            pace = self.pace
            while not self._closed:
                if self.paused and not self._stepping:
                    waited = True
                    self._cond.wait(0.1)
                    continue
                pace = self.pace  # read at every turn: a change counts at once
                due = self._last_event + pace - time.monotonic()
                if due <= 0 or self._stepping:
                    break
                waited = True
                self._cond.wait(min(due, 0.1))
            if waited:
                self.waits += 1
            self.used = pace


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
