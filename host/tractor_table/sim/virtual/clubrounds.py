"""The bots at a virtual table of a club competition (``tractor-table virtual --bots
--club URL --token T --club-rounds``): they play only the matches the club starts.

The table's own match at power-up is left alone. When the director starts a round, the
club server sends the table a new match over the link (club/tablecommands.py
:class:`~tractor_table.club.tablecommands.LinkCommands`); the table starts it (a
``HAND_START`` of hand 1, first hand) and the bots (:class:`~.game.BotGame`, a fresh one
for each match) play it: up to ``hands`` hands, until a side passes the top, or until
time is called (the deal in progress is played out and no new one is asked for, as
the table refuses one: docs/rules.md, the time call). Then they wait for the next round's
new match. A new match that comes in the middle of a hand (the director started the next
round early) ends that hand where it is; the bots take the new match from its start.
"""

from __future__ import annotations

import queue
import random
import threading
from collections.abc import Callable
from typing import Any

from shengji import Rules

from ... import events as E
from ...errors import CommandError


class _Watched:
    """The table as a :class:`~.game.BotGame` sees it, the last event it took kept."""

    def __init__(self, table: Any) -> None:
        self._table = table
        self.last: E.Event | None = None

    def next_event(self, timeout: float = 10.0) -> E.Event:
        ev: E.Event = self._table.next_event(timeout)
        self.last = ev
        return ev

    def __getattr__(self, name: str) -> Any:
        return getattr(self._table, name)


def _new_match(ev: E.Event | None) -> bool:
    """A match's first HAND_START, not the table's own at power-up (its first event)."""
    return isinstance(ev, E.HandStart) and ev.hand_no == 1 and bool(ev.first_hand) and ev.index > 0


class ClubRounds:
    """``sent`` is the list of commands the host sent the table (``LinkCommands.sent``,
    appended before each is sent: the table's events that answer one come after)."""

    def __init__(self, vt: Any, rules: Rules, sent: list[str], *, hands: int = 1,
                 seed: int = 1, strength: int = 1, say: Callable[[str], None] = print,
                 bots_table: Any = None, event_timeout: float = 10.0) -> None:
        self.vt = vt
        self.rules = rules
        self.sent = sent
        self.hands = hands
        self.rng = random.Random(seed)
        self.strength = strength
        self.say = say
        self.table = _Watched(bots_table if bots_table is not None else vt)
        self.event_timeout = event_timeout
        self.games: list[Any] = []
        self.matches = 0  # the club's matches the bots started
        self._taken = 0  # new_match commands whose match the bots took

    @property
    def hands_played(self) -> int:
        return sum(g.hands_played for g in self.games)

    @property
    def disagreements(self) -> list[str]:
        return [d for g in self.games for d in g.disagreements]

    def _club_match(self, ev: E.Event | None) -> bool:
        """``ev`` starts a match the club asked for (and the bots have not taken yet)."""
        return _new_match(ev) and self.sent.count("new_match") > self._taken

    def run(self, stop: threading.Event | None = None) -> None:
        """Play the club's matches as they come, until ``stop`` (or Ctrl-C)."""
        ev: E.Event | None = None
        while stop is None or not stop.is_set():
            if ev is None:
                try:
                    ev = self.vt.events.get(timeout=0.5)
                except queue.Empty:
                    if not self.vt.alive():
                        raise CommandError(f"the virtual table stopped: {self.vt.firmware_errors()}") from None
                    continue
            if self._club_match(ev):
                assert isinstance(ev, E.HandStart)
                ev = self._match(ev)
            else:
                ev = None  # the table's own match at power-up, or what a cut-off hand left

    def _match(self, start: E.HandStart) -> E.Event | None:
        """Play one match from its start; a new match that cut in (its HAND_START), or None."""
        from .game import BotGame

        self._taken = self.sent.count("new_match")
        self.matches += 1
        calls = self.sent.count("call_time")
        self.say(f"club: match {self.matches} started: the bots play it")
        game = BotGame(self.table, self.rules, seed=self.rng.getrandbits(30),  # type: ignore[arg-type]
                       strength=self.strength, say=lambda _s: None,
                       event_timeout=self.event_timeout)
        self.games.append(game)
        try:
            game.play(self.hands, start=start, go_on=lambda: self.sent.count("call_time") == calls)
        except CommandError:
            if self._club_match(self.table.last):
                self.say("club: a new match came in the middle of a hand: the bots take it")
                return self.table.last
            raise
        why = ("time called" if self.sent.count("call_time") > calls else
               "the match is won" if game.match.is_over else f"{game.hands_played} hand(s) played")
        self.say(f"club: match {self.matches}: {game.hands_played} hand(s), "
                 f"levels {list(game.match.levels)}; {why}: waiting for the next round")
        return None
