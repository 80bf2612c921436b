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

from ..events import (
    RANKS,
    TRUMPS,
    Bid,
    Call,
    Event,
    Forced,
    HandEnd,
    HandStart,
    Partner,
    Play,
    Reject,
    Trick,
    Trump,
    Undo,
    Unknown,
    cards_text,
    decode,
    describe,
    face_name,
    levels_text,
)
from ..link.notes import (
    Conflict,
    Down,
    Incompatible,
    Note,
    Reboot,
    Rollback,
    SnapshotDone,
    SnapshotIn,
    Synced,
    Up,
    typed,
)

#: the card names the console writes: "en" (AS, AS.1) or "zh" (黑桃A); console --lang
LANG = {"cards": "en"}


def describe_event(ev: Event | Sequence[Any]) -> str:
    """An event in words; a malformed one as its list (never an exception)."""
    try:
        if LANG["cards"] != "en":
            from ..report.cards import describe_in

            return describe_in(ev, LANG["cards"])
        return describe(ev)
    except (IndexError, KeyError, TypeError, ValueError):
        return f"event {list(ev) if not isinstance(ev, Event) else ev.raw()!r}"


def _cards(cards: Sequence[int]) -> str:  # card ids
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
        match typed(note):
            case Up() as up:
                self.state = "up (syncing)"
                self.firmware, self.rules_id, self.boot_id = up.fw_version, up.rules_id, up.boot_id
                self.table_uid = up.table_uid or "?"  # the table's identity
                self.sessions += 1
            case Synced():
                self.state = "synced"
            case Down(why=why):
                self.state = "down"
                self.last_error = f"link down: {why}"
            case Reboot(old_boot=old, new_boot=new):
                self.reboots += 1
                self.last_error = f"the table rebooted (boot {old:08x} -> {new:08x})"
            case Incompatible(text=text):
                self.state = "incompatible"
                self.last_error = text
            case Conflict(index=i, text=text):
                self.last_error = f"conflict at event {i}: {text}"
            case Rollback(device_count=n, host_count=had):
                self.last_error = f"the table lost events {n}..{had - 1} (a restart): replayed"
                self.events = n
            case SnapshotIn(count=n):
                self.events = n
            case SnapshotDone(ok=False) as done:
                self.last_error = f"push: snapshot {done.id} refused: {done.reason}"
            case Event() as ev:
                self.events = ev.index + 1
            case _:
                pass

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
    result_ev: HandEnd | None = None  # the HAND_END event
    last_refusal: str = ""
    call: str = ""  # find-a-friend: the card called, and the partner as known
    partner: str = ""

    def on_note(self, note: Note) -> None:
        match typed(note):
            case Event() as ev:
                self.add(ev)
            case SnapshotIn(count=n):
                self.reset(n, from_snapshot=True)
            case Rollback(device_count=n):
                keep = self.events[: n - self.base]
                base, snap = self.base, self.from_snapshot
                self.reset(base, from_snapshot=snap)
                for ev in keep:
                    self.add(ev)
            case _:
                pass

    def reset(self, base: int, *, from_snapshot: bool) -> None:
        fresh = GameView(base=base, from_snapshot=from_snapshot)
        self.__dict__.update(fresh.__dict__)

    def add(self, event: Event | Sequence[Any]) -> None:
        ev = decode(event, lenient=True)
        self.events.append(ev)
        if isinstance(ev, Unknown):
            self.last_refusal = f"(an event the console cannot read: {ev.raw()!r})"
            return
        self._apply(ev)

    def _apply(self, ev: Event) -> None:
        match ev:
            case HandStart():
                events = self.events
                self.reset(self.base, from_snapshot=self.from_snapshot)
                self.events = events
                self.hand, self.dealer = ev.hand_no, ev.dealer
                self.levels = ev.levels
                self.trump = "?"
            case Bid(accepted=True):
                self.standing_bid = f"S{ev.seat} {_cards(ev.ids)}"
            case Trump():
                self.trump = TRUMPS[ev.trump] if 0 <= ev.trump < len(TRUMPS) else "?"
                self.declarer, self.dealer = ev.declarer, ev.dealer
            case Play():
                if self.trick_done or ev.trick != self.trick_no:
                    self.trick, self.trick_done = {}, ""
                if not self.trick:
                    self.leader = ev.seat
                self.trick_no = ev.trick
                self.trick[ev.seat] = _cards(ev.ids)
            case Undo():  # the seat's last play taken back
                self.trick.pop(ev.seat, None)
            case Forced():
                self.trick[ev.leader] = _cards(ev.ids) + " (forced)"
            case Trick():
                self.trick_no = ev.trick
                self.trick_done = f"S{ev.winner} wins {ev.points} points"
                self.attackers = ev.attackers_score
            case Call():
                self.call, self.partner = face_name(ev.face), "unknown"
            case Partner():
                self.partner = f"S{ev.partner}" if ev.partner >= 0 else "none: the dealer plays alone"
                self.attackers = ev.attackers_score
            case Reject():
                self.last_refusal = describe_event(ev)
            case HandEnd():
                self.attackers = ev.attackers_score
                self.levels = ev.levels
                self.result = describe_event(ev)
                self.result_ev = ev
            case _:
                pass

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
        if self.result_ev is not None:
            e = self.result_ev
            won = f"; side {e.match_winner} wins" if len(e.levels) == 2 and e.match_winner >= 0 else ""
            lines.append(f"over: attackers {e.attackers_score}, kitty {e.kitty_points}x{e.multiplier}={e.bonus}; "
                         f"levels {levels_text(e.levels)}, next S{e.next_dealer}{won}")
        elif self.last_refusal and len(lines) < 8:
            lines.append(f"refused {self.last_refusal}")
        return "\n".join(lines)
