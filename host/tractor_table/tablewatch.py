"""What a table waits for, followed from its events: :class:`TableWatch` (the
phase, the dealer, the seat to play, the cards waiting at each seat) and
:func:`describe_in` (an event in words, a refusal labelled with its phase).

The operator's console uses it for any table, real or virtual; the virtual
table's typed commands (:mod:`tractor_table.sim.virtual.taps`) too.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from . import events as E
from .events import cards_text, describe, reason
from .vocab.enums import TableReason

if TYPE_CHECKING:
    from shengji import Rules

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
