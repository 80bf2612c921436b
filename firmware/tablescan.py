# hand_scan mode of the table core (docs/rules.md §10): after the draw every
# seat scans its whole hand (the dealer with the kitty it picked up), so the
# table knows every hand and checks every rule at the moment of the play: a
# card not in the seat's hand is refused, an illegal follow is refused with the
# engine's verdict, a throw that another hand beats is forced at once.
# Functions of the Table object (firmware/table.py), kept in their own module
# so that each firmware module compiles in a small heap.
import events as E
import table as T

SEEN_SCANNED = 2


def expected(tb, seat):
    """Cards a seat scans: its hand, and the dealer the kitty too."""
    return tb.hand_size + (tb.kitty_size if seat == tb.dealer else 0)


def tap(tb, seat, card, now_ms):
    if tb.scan_done & (1 << seat):
        tb._refuse(seat, E.WRONG_PHASE, (card,), now_ms)
        return
    if tb.seen[card]:
        if card in tb.hands[seat]:
            return  # the same card again: counted once
        tb._refuse(seat, E.SEEN_TWICE, (card,), now_ms)
        return
    if seat != tb.dealer and card in tb.kitty_up:
        # no_bid = "kitty": this card was turned up with the kitty, the dealer's now
        tb._refuse(seat, E.SEEN_TWICE, (card,), now_ms)
        return
    h = tb.hands[seat]
    h.append(card)
    tb.seen[card] = SEEN_SCANNED
    tb._beep(E.SND_TAP)
    if len(h) < expected(tb, seat):
        return
    tb.scan_done |= 1 << seat
    ev = [E.SCAN, seat]
    for c in h:
        ev.append(c)
    tb._emit(ev)
    tb._beep(E.SND_OK)
    tb._say("S%d hand scanned" % seat, now_ms)
    if tb.scan_done == 15:
        # seen[] tracks cards played or buried from here on
        for i in range(tb.ncards):
            tb.seen[i] = 0
        tb.phase = T.KITTY
        tb.turn = tb.dealer
        tb._save = True


def undo(tb, seat):
    """A long press during the scan: that seat scans again from the start."""
    if tb.scan_done & (1 << seat):
        return
    for c in tb.hands[seat]:
        tb.seen[c] = 0
    del tb.hands[seat][:]


def remove(tb, seat, cards):
    h = tb.hands[seat]
    for c in cards:
        if c in h:
            h.remove(c)


def lead_forced(tb, seat, cards):
    """The cards a throw is forced to with every hand known, or None."""
    if not tb.rules.is_throw(cards):
        return None
    return tb.rules.throw(seat, cards, tb.hands)
