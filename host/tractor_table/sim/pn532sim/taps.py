"""Cards tapped at a simulated USB-UART PN532 (``tractor-table pn532sim``),
typed on the keyboard or read from a script, one command a line:

- ``tap [CARD[.copy]]`` — the card's tag put on the reader until the reader has
  read it and ``hold`` seconds more, then taken away; without a card, the next card of the deck in the order
  ``tractor-table enroll`` asks for them (2S 3S ... AC SJ BJ, deck by deck);
- ``deck [N]`` — the next N cards (default: all that are left) tapped in turn
  (once every card was tapped, the deck again from its first card);
- ``place CARD[.copy]`` / ``remove`` — a tag put down and left there / every tag taken away;
- ``two`` — the next two cards put down together (enroll asks for one at a time), then
  taken away: the next ``tap`` is the first of the two again;
- ``foreign`` — a tag that is no card sticker (a 4-byte UID, like a bank card);
- ``wait SECONDS``; ``quit``.

Each card's tag has the virtual deck's UID (``chip.deck_uid``, as at the virtual table),
so a set enrolled here matches the virtual table's deck.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable

from .chip import Tag, deck_uid
from .serve import PtyPN532

FACES = 54
HELP = ("commands: tap [CARD[.copy]] | deck [N] | place CARD[.copy] | remove | two | foreign | "
        "wait S | quit")


#: The 7-byte NTAG UID of card id ``card``: the virtual deck's (chip.py ``deck_uid``).
card_uid = deck_uid


def parse_card(text: str, decks: int) -> int:
    """``7H`` or ``7H.1`` (the copy after a dot: the deck, 0 for the first; the
    one notation of shengji.cards.card_id_name) as a card id; ValueError with a
    sentence otherwise (shengji's notation errors are ValueErrors)."""
    from shengji.cards import parse_card_id

    return parse_card_id(text, decks)


class Taps:
    """The commands' interpreter for one simulated reader."""

    def __init__(self, sim: PtyPN532, decks: int, *, hold: float = 0.3, gap: float = 0.2,
                 say: Callable[[str], None] = print, sleep: Callable[[float], None] = time.sleep) -> None:
        self.sim = sim
        self.decks = decks
        self.total = decks * FACES
        self.hold = hold
        self.gap = gap
        self.say = say
        self.sleep = sleep
        self.next = 0  # the next card of the guided order
        self.tags: dict[int, Tag] = {}
        self.tapped = 0

    def tag(self, card: int) -> Tag:
        if card not in self.tags:
            self.tags[card] = Tag(card_uid(card))
        return self.tags[card]

    def tap(self, card: int) -> None:
        from ...enroll.cardset import card_label

        tag = self.tag(card)
        self.sim.place(tag)
        self._until_read(tag)
        self.sleep(self.hold)
        self.sim.remove(tag)
        self.tapped += 1
        self.say(f"tapped {card_label(card)} ({tag.uid.hex()})")
        self.sleep(self.gap)

    def _until_read(self, tag: Tag, most: float = 30.0) -> None:
        """A card stays until the reader has read it twice (a program polling
        it sees it, then sees it still there: it had the time to take it), as a
        player keeps a card down until the reader beeps."""
        deadline = time.monotonic() + most
        answers: list[object] = []  # each poll's answer is a new list in the chip
        while time.monotonic() < deadline:
            with self.sim.lock:
                listed = self.sim.chip.listed
                if tag in listed and not any(a is listed for a in answers):
                    answers.append(listed)
                    if len(answers) >= 2:
                        return
            time.sleep(0.002)
        self.say(f"nothing read the card ({tag.uid.hex()}) in {most:g} s: is a program polling the reader?")

    def _next_card(self) -> int:
        if self.next >= self.total:
            raise ValueError(f"every card of the {self.decks} deck(s) was tapped; name a card: tap 7H")
        card = self.next
        self.next += 1
        return card

    def run(self, lines: Iterable[str]) -> bool:
        """Run the commands; True when ``quit`` ended them."""
        for raw in lines:
            try:
                if self.command(raw):
                    return True
            except ValueError as exc:
                self.say(f"bad input: {exc}")
        return False

    def command(self, line: str) -> bool:
        """One command; True for ``quit``. ValueError with a sentence for bad input."""
        words = line.split()
        if not words or words[0].startswith("#"):
            return False
        verb, rest = words[0].lower(), words[1:]
        if verb == "quit" and not rest:
            return True
        if verb == "tap" and len(rest) <= 1:
            self.tap(parse_card(rest[0], self.decks) if rest else self._next_card())
        elif verb == "deck" and len(rest) <= 1:
            if rest and not rest[0].isdigit():
                raise ValueError(f"deck {rest[0]}: give a number of cards, or nothing for all")
            if self.next >= self.total:
                self.next = 0  # every card was tapped: the deck again, from its first card
            n = int(rest[0]) if rest else self.total - self.next
            for _ in range(min(n, self.total - self.next)):
                self.tap(self._next_card())
        elif verb == "place" and len(rest) == 1:
            self.sim.place(self.tag(parse_card(rest[0], self.decks)))
            self.say(f"{rest[0]} is on the reader (remove takes it away)")
        elif verb == "remove" and not rest:
            self.sim.clear()
            self.say("the reader is clear")
        elif verb == "two" and not rest:
            from ...enroll.cardset import card_label

            first = self._next_card()
            second = self._next_card() if self.next < self.total else 0
            a, b = self.tag(first), self.tag(second)
            self.sim.place(a)
            self.sim.place(b)
            self._until_read(a)
            self.sleep(self.hold)
            self.sim.remove(a)
            self.sim.remove(b)
            # neither was read as a tap (enroll asks for one card at a time):
            # the next tap is the first of the two again, as enroll still asks for it
            self.next = first
            self.say(f"two cards were on the reader together ({card_label(first)} and "
                     f"{card_label(second)}); the next tap is {card_label(first)} again")
            self.sleep(self.gap)
        elif verb == "foreign" and not rest:
            tag = Tag(b"\xde\xad\xbe\xef", ntag=False)
            self.sim.place(tag)
            self._until_read(tag)
            self.sleep(self.hold)
            self.sim.remove(tag)
            self.say("tapped a foreign tag (deadbeef, not a card sticker)")
            self.sleep(self.gap)
        elif verb == "wait" and len(rest) == 1:
            try:
                seconds = float(rest[0])
            except ValueError:
                seconds = -1
            if not 0 <= seconds < 3600:
                raise ValueError(f"wait {rest[0]}: give seconds, 0 to 3600")
            self.sleep(seconds)
        else:
            raise ValueError(f"not a command: {line.strip()!r}; {HELP}")
        return False
