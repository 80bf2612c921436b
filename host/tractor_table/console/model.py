"""What the console shows, kept apart from the screen: plain state fed by the
link's notes (on the UI thread, in the order they came), each pane's text
derived from it.

- :class:`LinkView` — the link's state (connecting, up, synced, down), the
  table's firmware, rules id and boot id from its WELCOME, the events received,
  the last error.
- :class:`GameView` — the game as the events tell it (``firmware/events.py``):
  hand number, dealer, levels, trump, the attackers' score, the current trick
  by seat, the last hand's result. Rebuilt from the events kept since the
  link's base when the table rolls back.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from ..virtual.events import EV, RANKS, TRUMPS, cards_text, describe, event_levels, face_name

Note = list[Any]
Event = list[Any]


#: the card names the console writes: "en" (AS, AS.1) or "zh" (黑桃A); console --lang
LANG = {"cards": "en"}


def describe_event(ev: Sequence[Any]) -> str:
    """An event in words; a malformed one as its list (never an exception)."""
    try:
        if LANG["cards"] != "en":
            from ..report.cards import describe_in

            return describe_in(list(ev), LANG["cards"])
        return describe(ev)
    except (IndexError, KeyError, TypeError, ValueError):
        return f"event {list(ev)!r}"


def _cards(cards: Sequence[int]) -> str:
    if LANG["cards"] != "en":
        from ..report.cards import names

        return names(cards, LANG["cards"])
    return cards_text(cards)


@dataclass
class LinkView:
    port: str = ""
    state: str = "connecting"
    firmware: str = "?"
    rules_id: str = "?"
    boot_id: int | None = None
    events: int = 0
    last_error: str = ""
    reboots: int = 0
    sessions: int = 0
    table_uid: str = "?"

    def on_note(self, note: Note) -> None:
        kind = note[0]
        if kind == "up":
            p = note[1]
            self.state = "up (syncing)"
            self.firmware, self.rules_id, self.boot_id = str(p[1]), str(p[2]), int(p[3])
            self.table_uid = str(p[8]) if len(p) > 8 and p[8] else "?"  # the table's identity
            self.sessions += 1
        elif kind == "synced":
            self.state = "synced"
        elif kind == "down":
            self.state = "down"
            self.last_error = f"link down: {note[1]}"
        elif kind == "reboot":
            self.reboots += 1
            self.last_error = f"the table rebooted (boot {note[1]:08x} -> {note[2]:08x})"
        elif kind == "incompatible":
            self.state = "incompatible"
            self.last_error = str(note[1])
        elif kind == "conflict":
            self.last_error = f"conflict at event {note[1]}: {note[2]}"
        elif kind == "rollback":
            self.last_error = f"the table lost events {note[1]}..{note[2] - 1} (a restart): replayed"
            self.events = int(note[1])
        elif kind == "snapshot":
            self.events = int(note[1])
        elif kind == "snapshot_done" and not note[2]:
            self.last_error = f"push: snapshot {note[1]} refused: {note[3]}"
        elif kind == "event":
            self.events = int(note[1]) + 1

    def text(self, compact: bool = False) -> str:
        boot = f"{self.boot_id:08x}" if self.boot_id is not None else "?"
        if compact:  # one line (the console's top line below 120 columns)
            tail = self.last_error if self.last_error else f"boot {boot}"
            return f"link {self.state} · {self.port} · fw {self.firmware} · {self.rules_id} · {self.events} events · {tail}"
        lines = [
            f"state     {self.state}",
            f"port      {self.port}",
            f"firmware  {self.firmware}",
            f"rules     {self.rules_id}",
            f"table     {self.table_uid}",
            f"boot      {boot}",
            f"events    {self.events}",
            f"error     {self.last_error or '-'}",
        ]
        return "\n".join(lines)


@dataclass
class GameView:
    """The game as the table's events tell it."""

    base: int = 0  # index of the first event kept
    events: list[Event] = field(default_factory=list)
    from_snapshot: bool = False
    hand: int | None = None
    dealer: int = -1
    levels: tuple[int, ...] | None = None  # per side, or per seat (find-a-friend)
    trump: str = "?"
    declarer: int = -1
    standing_bid: str = ""
    attackers: int = 0
    trick_no: int = 0
    trick: dict[int, str] = field(default_factory=dict)  # seat -> cards
    trick_done: str = ""  # "S1 wins 10" once the trick is complete
    leader: int = -1
    result: str = ""
    result_ev: list[Any] = field(default_factory=list)  # the HAND_END event
    last_refusal: str = ""
    call: str = ""  # find-a-friend: the card called, and the partner as known
    partner: str = ""

    def on_note(self, note: Note) -> None:
        kind = note[0]
        if kind == "event":
            self.add(note[3])
        elif kind == "snapshot":
            self.reset(int(note[1]), from_snapshot=True)
        elif kind == "rollback":
            keep = self.events[: int(note[1]) - self.base]
            base, snap = self.base, self.from_snapshot
            self.reset(base, from_snapshot=snap)
            for ev in keep:
                self.add(ev)

    def reset(self, base: int, *, from_snapshot: bool) -> None:
        fresh = GameView(base=base, from_snapshot=from_snapshot)
        self.__dict__.update(fresh.__dict__)

    def add(self, ev: Event) -> None:
        self.events.append(list(ev))
        try:
            self._apply(ev)
        except (IndexError, TypeError, ValueError):
            self.last_refusal = f"(an event the console cannot read: {list(ev)!r})"

    def _apply(self, ev: Event) -> None:
        k = ev[0]
        if k == EV.HAND_START:
            events = self.events
            self.reset(self.base, from_snapshot=self.from_snapshot)
            self.events = events
            self.hand, self.dealer = int(ev[1]), int(ev[2])
            self.levels = tuple(int(x) for x in event_levels(ev))
            self.trump = "?"
        elif k == EV.BID and ev[2]:
            self.standing_bid = f"S{ev[1]} {_cards(ev[4:])}"
        elif k == EV.TRUMP:
            self.trump, self.declarer, self.dealer = TRUMPS[ev[1]], int(ev[2]), int(ev[3])
        elif k == EV.PLAY:
            if self.trick_done or int(ev[1]) != self.trick_no:
                self.trick, self.trick_done = {}, ""
            if not self.trick:
                self.leader = int(ev[2])
            self.trick_no = int(ev[1])
            self.trick[int(ev[2])] = _cards(ev[3:])
        elif k == EV.UNDO:  # the seat's last play taken back
            self.trick.pop(int(ev[2]), None)
        elif k == EV.FORCED:
            self.trick[int(ev[2])] = _cards(ev[4:]) + " (forced)"
        elif k == EV.TRICK:
            self.trick_no = int(ev[1])
            self.trick_done = f"S{ev[2]} wins {ev[3]} points"
            self.attackers = int(ev[4])
        elif k == EV.CALL:
            self.call, self.partner = face_name(int(ev[2])), "unknown"
        elif k == EV.PARTNER:
            self.partner = f"S{ev[2]}" if ev[2] >= 0 else "none: the dealer plays alone"
            self.attackers = int(ev[3])
        elif k == EV.REJECT:
            self.last_refusal = describe_event(ev)
        elif k == EV.HAND_END:
            self.attackers = int(ev[1])
            self.levels = tuple(int(x) for x in event_levels(ev))
            self.result = describe_event(ev)
            self.result_ev = list(ev)

    def text(self, compact: bool = False) -> str:
        if compact and self.hand is not None:
            return self._compact()
        if self.hand is None:
            head = "no hand started yet"
            if self.from_snapshot:
                head = f"resynced from a table snapshot at event {self.base}: waiting for the next hand"
            lines = [head]
        else:
            per_seat = self.levels is not None and len(self.levels) == 4
            lv = ("/" if not per_seat else " ").join(RANKS[x] for x in self.levels) if self.levels else "?"
            dealer = f"S{self.dealer}" if self.dealer >= 0 else "first bid"
            declarer = f" by S{self.declarer}" if self.declarer >= 0 else ""
            score = "partner unknown" if self.attackers < 0 else f"{self.attackers} points"
            lines = [
                f"hand      {self.hand}",
                f"dealer    {dealer}",
                f"levels    {lv} " + ("(S0 S1 S2 S3)" if per_seat else "(side 0 / side 1)"),
                f"trump     {self.trump}{declarer}",
                f"attackers {score}",
            ]
            if self.call:
                lines.append(f"call      {self.call}, partner {self.partner}")
            if self.standing_bid and self.trump == "?":
                lines.append(f"bid       {self.standing_bid}")
            if self.trick:
                done = f": {self.trick_done}" if self.trick_done else ""
                lines.append(f"trick {self.trick_no + 1}{done}")
                for seat in range(4):
                    if seat in self.trick:
                        lead = " (lead)" if seat == self.leader else ""
                        lines.append(f"S{seat}        {self.trick[seat]}{lead}")
        if self.result:
            lines.append(f"result    {self.result}")
        if self.last_refusal:
            lines.append(f"refused   {self.last_refusal}")
        return "\n".join(lines)

    def _compact(self) -> str:
        """At most eight short lines (the pane's height at 80x24): the hand, its
        levels and trump, the score, the trick by seat or the bid, the result."""
        lv = "/".join(RANKS[x] for x in self.levels) if self.levels else "?"
        dealer = f"S{self.dealer}" if self.dealer >= 0 else "first bid"
        declarer = f" by S{self.declarer}" if self.declarer >= 0 else ""
        lines = [
            f"hand {self.hand} · dealer {dealer} · levels {lv}",
            f"trump {self.trump}{declarer} · attackers {self.attackers} points",
        ]
        if self.standing_bid and self.trump == "?":
            lines.append(f"bid    {self.standing_bid}")
        if self.trick:
            done = f": {self.trick_done}" if self.trick_done else ""
            lines.append(f"trick {self.trick_no + 1}{done}")
            for seat in range(4):
                if seat in self.trick:
                    lead = " (lead)" if seat == self.leader else ""
                    lines.append(f"  S{seat}  {self.trick[seat]}{lead}")
        if self.result_ev:
            e = self.result_ev
            won = f"; side {e[8]} wins" if len(e) > 8 and e[8] >= 0 else ""
            lines.append(f"over: attackers {e[1]}, kitty {e[2]}x{e[3]}={e[4]}; "
                         f"levels {RANKS[e[6]]}/{RANKS[e[7]]}, next S{e[5]}{won}")
        elif self.last_refusal and len(lines) < 8:
            lines.append(f"refused {self.last_refusal}")
        return "\n".join(lines)
