"""The lines typed at a virtual table's readers and buttons: ``tap SEAT
CARD[.copy]``, ``ok SEAT``, ``undo SEAT``, ``challenge SEAT``, ``show``, ``quit``.

One grammar for every place that reads them: ``tractor-table virtual``'s
console (:func:`tractor_table.sim.virtual.taps.read_commands`) and the operator
console's tap input (:mod:`tractor_table.console.app`). Light on purpose: it
imports only ``shengji.cards``, when a card is read.
"""

from __future__ import annotations

CONSOLE_HELP = "commands: tap SEAT CARD[.copy] | ok SEAT | undo SEAT | challenge SEAT | show | quit"


def parse_console(line: str, decks: int) -> tuple[str, int, int] | None:
    """One console line as (``tap``/``ok``/``undo``/``challenge``/``show``/``quit``,
    seat, card id); None for an empty line. ValueError with a sentence for the
    player when the line is not a command: the seat must be 0-3, the card a card
    in docs/rules.md's notation (Chinese names too: 红桃A, 大王), and ``.copy`` (0 =
    the first deck, as the records write it: ``AS.1``) one of the decks."""
    from shengji.cards import parse_card_id

    words = line.split()
    if not words:
        return None
    verb = words[0].lower()
    if verb in ("show", "quit") and len(words) == 1:
        return verb, -1, -1
    want = {"tap": 3, "ok": 2, "undo": 2, "challenge": 2}.get(verb)
    if want is None or len(words) != want:
        raise ValueError(f"not a command: {line.strip()!r}; {CONSOLE_HELP}")
    if words[1] not in ("0", "1", "2", "3"):
        raise ValueError(f"seat {words[1]!r}: give a seat 0-3")
    seat = int(words[1])
    if verb != "tap":
        return verb, seat, -1
    return verb, seat, parse_card_id(words[2], decks)  # its ValueError names the card and the notation
