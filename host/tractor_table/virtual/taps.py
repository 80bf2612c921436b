"""Typing taps at the virtual table (``tractor-table virtual`` without ``--bots``).

The table tells what it did by its events (over the link), its sounds (the
buzzer: a card taken, a play accepted, a refusal) and its display. After each
command this module says, in one line, what the table did with it; and it keeps
a :class:`TableWatch`, the phase and the seat to play as the events tell them,
to say what the table waits for (the prompt) and to label a refusal with the
phase it happened in (a refusal during the burial is not "trick 1").
"""

from __future__ import annotations

import queue
import time
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any

from .. import events as E
from ..events import EV, card_name, cards_text, describe, reason
from ..vocab import TableReason

if TYPE_CHECKING:
    from shengji import Rules

    from .runner import VirtualTable

#: kitty size by deck count (docs/rules.md §1)
KITTY_SIZE = (0, 6, 8, 6, 8)

DRAW, KITTY_UP, SCAN, BURIAL, PLAY, HAND_OVER, MATCH_OVER = (
    "draw", "kitty up", "hand scan", "burial", "play", "hand over", "match over"
)


class TableWatch:
    """The table's phase, dealer and seat to play, followed from its events
    (and from the commands typed: the table starts turning the kitty up without
    an event)."""

    def __init__(self, rules: Rules, hand_scan: bool = False) -> None:
        self.rules = rules
        self.hand_scan = hand_scan or rules.hand_scan
        self.phase = DRAW
        self.dealer = -1
        self.first_hand = True
        self.bids = 0  # bids accepted in this hand
        self.trick = 0  # the trick being played (0 = the first)
        self.turn = -1
        self.leader = -1
        self.lead = 0  # cards of the lead (0: nobody led yet)
        self.played: set[int] = set()  # seats that played in this trick
        self.scanned: set[int] = set()
        #: the cards each seat tapped that the table holds (not yet a play or bid)
        self.waiting: list[list[int]] = [[], [], [], []]

    def on_event(self, event: E.Event | Sequence[Any]) -> None:
        ev = E.decode(event, lenient=True)
        match ev:
            case E.HandStart():
                self.phase, self.dealer, self.first_hand = DRAW, ev.dealer, ev.first_hand
                self.bids = self.trick = self.lead = 0
                self.turn = self.leader = -1
                self.played, self.scanned = set(), set()
                self.waiting = [[], [], [], []]
            case E.Bid():
                self.waiting[ev.seat] = []
                self.bids += 1 if ev.accepted else 0
            case E.Trump():
                self.dealer = ev.dealer
                self.phase = SCAN if self.hand_scan else BURIAL
                self.turn = self.dealer
                self.waiting = [[], [], [], []]
            case E.KittyUp():
                self.waiting = [[], [], [], []]
            case E.Scan():
                self.scanned.add(ev.seat)
                self.waiting[ev.seat] = []
                if len(self.scanned) == 4:
                    self.phase = BURIAL
            case E.Kitty():
                self.phase, self.turn, self.leader = PLAY, ev.dealer, ev.dealer
                self.waiting = [[], [], [], []]
            case E.Play() | E.Forced():
                seat = ev.seat if isinstance(ev, E.Play) else ev.leader
                self.waiting[seat] = []
                if isinstance(ev, E.Forced) or not self.played:
                    self.leader, self.lead = seat, len(ev.cards)
                self.trick = ev.trick
                self.played.add(seat)
                self.turn = (seat + 1) & 3
            case E.Reject():
                if ev.reason != TableReason.KITTY_COUNT:  # a short burial or reveal: the taps stay
                    self.waiting[ev.seat] = []
            case E.Undo():  # the seat's last play taken back: its turn again
                self.played.discard(ev.seat)
                if not self.played:
                    self.lead = 0
                self.turn = ev.seat
            case E.Trick():
                self.trick = ev.trick + 1
                self.turn = self.leader = ev.winner
                self.played, self.lead = set(), 0
            case E.HandEnd():
                self.phase = MATCH_OVER if ev.match_winner >= 0 else HAND_OVER
                self.turn = -1
            case _:
                pass

    def pressed_ok(self, seat: int) -> None:
        """OK typed: with nothing waiting and no bid, the end of the draw may
        start the kitty's reveal (no_bid = kitty), which sends no event."""
        if (self.phase == DRAW and not self.waiting[seat] and not self.bids
                and not self.first_hand and self.rules.no_bid.value == "kitty"):
            self.phase, self.turn = KITTY_UP, self.dealer

    def label(self) -> str:
        """Where the table is, for a refusal's line: the phase, or the trick."""
        if self.phase == PLAY:
            return f"trick {self.trick + 1}"
        if self.phase in (HAND_OVER, MATCH_OVER):
            return f"after the hand ({self.phase})"
        return self.phase

    def prompt(self) -> str:
        """What the table waits for, in one line."""
        d = f"S{self.dealer}" if self.dealer >= 0 else "the first bidder"
        if self.phase == DRAW:
            return (f"draw (dealer {d}): to bid, tap level cards or a pair of jokers, then ok SEAT; "
                    "ok SEAT with nothing tapped ends the draw")
        if self.phase == KITTY_UP:
            return f"nobody bid: {d} turns the kitty up, tapping its cards in order (tap {self.dealer} CARD)"
        if self.phase == SCAN:
            left = " ".join(f"S{s}" for s in range(4) if s not in self.scanned)
            return f"hand scan: each seat taps its whole hand, then ok SEAT (still to scan: {left})"
        if self.phase == BURIAL:
            n = KITTY_SIZE[self.rules.decks]
            return f"burial: {d} taps the {n} cards of the kitty (the table takes them at the {n}th)"
        if self.phase == PLAY:
            seat = self.turn
            if self.lead:
                return (f"trick {self.trick + 1}: S{seat} follows with {self.lead} card(s) "
                        "(the play ends with the last one)")
            return f"trick {self.trick + 1}: S{seat} leads: tap the card(s), then ok {seat}"
        if self.phase == MATCH_OVER:
            return "the match is over: quit, or start the table again for a new match"
        return "the hand is over: ok SEAT starts the next hand"


def describe_in(event: E.Event | Sequence[Any], watch: TableWatch) -> str:
    """An event in words; a refusal labelled with the phase it came in
    (the table's trick number means something only while the tricks are played)."""
    ev = E.decode(event, lenient=True)
    if isinstance(ev, E.Reject) and watch.phase:  # "": not known (after a resync), the table's words
        cards = cards_text(ev.ids) if ev.cards else ""
        line = f"{watch.label()}: S{ev.seat} refused: {reason(ev.reason)} {cards}".rstrip()
        if ev.reason == TableReason.KITTY_COUNT and watch.phase in (BURIAL, KITTY_UP):
            n = KITTY_SIZE[watch.rules.decks]
            more = n - len(ev.cards)
            line += (f" ({len(ev.cards)} of {n}: the cards tapped stay, tap {more} more"
                     f"{'; a long press (undo SEAT) starts again' if ev.cards else ''})")
        return line
    return describe(ev)


def echo(verb: str, seat: int, card: int, events: Sequence[E.Event | Sequence[Any]], sounds: list[int],
         watch: TableWatch) -> str:
    """One line: what the table did with one command. ``events`` came after it
    (the watch has not seen them yet), ``sounds`` the buzzer's since it."""
    words: list[str] = []
    for ev in events:
        words.append(describe_in(ev, watch))
        watch.on_event(ev)
    if verb == "tap" and not events:
        if EV.SND_TAP in sounds or EV.SND_OK in sounds:
            held = watch.waiting[seat]
            if card not in held:
                held.append(card)
            words.append(f"S{seat} tapped {card_name(card)}: waiting {cards_text(held)}")
        elif EV.SND_ERROR not in sounds:
            words.append(f"S{seat} tapped {card_name(card)}: the table took nothing (that card is waiting already)")
    elif verb == "undo" and not events:
        back = watch.waiting[seat]
        words.append(f"S{seat} undo: {'took back ' + cards_text(back) if back else 'nothing was waiting'}")
        watch.waiting[seat] = []
    elif verb in ("ok", "challenge") and not events:
        if verb == "challenge" and EV.SND_ERROR not in sounds:
            words.append(f"S{seat} challenges the throw: tap the cards that beat it, then ok {seat}")
        elif verb == "ok" and watch.phase == KITTY_UP:
            words.append(f"ok {seat}: nobody bid; the kitty is turned up next")
        else:
            words.append(f"{verb} {seat}: the table did nothing (it does not wait for that now)")
    return "; ".join(words)


def read_commands(
    vt: VirtualTable,
    rules: Rules,
    lines: Iterable[str],
    say: Callable[[str], None] = print,
    *,
    events: bool = True,
) -> bool:
    """The typed commands' loop: each command sent, then one line of what the
    table did and, when it changed, what it waits for. ``events=False`` (the
    table served to another program's link): no events here, only the sounds
    and the display tell. True when ``quit`` ended it, False at the end of the lines."""
    from .grammar import CONSOLE_HELP, parse_console

    kinds = {"ok": EV.BTN_OK, "undo": EV.BTN_UNDO, "challenge": EV.BTN_CHALLENGE}
    watch = TableWatch(rules, vt.hand_scan)
    say(CONSOLE_HELP)
    if events:
        _take(vt, watch, 1.0)
    last_prompt = ""

    def prompt() -> None:
        nonlocal last_prompt
        text = watch.prompt() if events else "the display: " + (vt.lines[-1].strip() or "-")
        if text != last_prompt:
            say("> " + text)
            last_prompt = text

    prompt()
    for raw in lines:
        try:
            command = parse_console(raw, vt.decks)
        except ValueError as exc:
            say(f"bad input: {exc}")
            continue
        if command is None:
            continue
        verb, seat, card = command
        if verb == "quit":
            return True
        if verb == "show":
            for line in vt.lines:
                say("  |" + line.ljust(16) + "|")
            last_prompt = ""
            prompt()
            continue
        sounds_before = len(vt.sounds)
        if verb == "tap":
            vt.tap(seat, card)
        else:
            if verb == "ok":
                watch.pressed_ok(seat)
            vt.press(seat, kinds[verb])
        got = _collect(vt, sounds_before) if events else []
        if not events:
            vt.wait(lambda n=sounds_before: len(vt.sounds) > n, 0.5)
            time.sleep(0.05)
        sounds = vt.sounds[sounds_before:]
        line = echo(verb, seat, card, got, sounds, watch)
        if not events:
            line = f"{verb} {seat}" + (f" {card_name(card)}" if verb == "tap" else "") + ": " + _sound_words(sounds)
        say("  " + line)
        prompt()
    return False


def _sound_words(sounds: list[int]) -> str:
    if EV.SND_ERROR in sounds:
        return "refused (see the display)"
    if EV.SND_HAND in sounds:
        return "the hand is over"
    if EV.SND_TRICK in sounds:
        return "the trick is complete"
    if EV.SND_OK in sounds:
        return "accepted"
    if EV.SND_TAP in sounds:
        return "the card is taken"
    return "nothing happened"


def _collect(vt: VirtualTable, sounds_before: int, settle: float = 0.15, most: float = 1.5) -> list[E.Event]:
    """The events that follow a command: until the table has beeped (or ``most``
    seconds), then until ``settle`` seconds pass without another event."""
    vt.wait(lambda: len(vt.sounds) > sounds_before or not vt.events.empty(), most)
    got: list[E.Event] = []
    quiet_until = time.monotonic() + settle
    while time.monotonic() < quiet_until:
        try:
            got.append(vt.events.get(timeout=max(quiet_until - time.monotonic(), 0.01)))
            quiet_until = time.monotonic() + settle
        except queue.Empty:
            break
    return got


def _take(vt: VirtualTable, watch: TableWatch, wait: float) -> None:
    """The events the table sent by itself (the hand's start after boot)."""
    seen = 0
    deadline = time.monotonic() + wait
    while time.monotonic() < deadline:
        try:
            watch.on_event(vt.events.get(timeout=0.1))
            seen += 1
        except queue.Empty:
            if seen:
                break
