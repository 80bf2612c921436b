# hand_scan mode of the table core (docs/rules.md §10): after the draw every
# seat scans its whole hand (the dealer with the kitty it picked up), so the
# table knows every hand and checks every rule at the moment of the play: a
# card not in the seat's hand is refused, an illegal follow is refused with the
# engine's verdict, a throw that another hand beats is forced at once.
# A part of the table core (tablebase.py): functions of the table's state,
# loaded by table.Table for the phase SCAN (the play in hand_scan mode is
# tabletrick.py's).
try:
    from micropython import const
except ImportError:

    def const(x):  # type: ignore[no-redef]
        return x


import events as E
import tablebase as T

_SEEN_SCANNED = const(2)  # tablebase.TableBase.seen: scanned (tablerestore.py too)


def expected(tb: "T.TableBase", seat):
    """Cards a seat scans: its hand, and the dealer the kitty too."""
    return tb.hand_size + (tb.kitty_size if seat == tb.dealer else 0)


def tap(tb: "T.TableBase", seat, card, now_ms):
    if tb.scan_done & (1 << seat):
        tb.refuse(seat, E.WRONG_PHASE, (card,), now_ms)
        return
    if tb.seen[card]:
        if card in tb.hands[seat]:
            return  # the same card again: counted once
        tb.refuse(seat, E.SEEN_TWICE, (card,), now_ms)
        return
    if seat != tb.dealer and card in tb.kitty_up:
        # no_bid = "kitty": this card was turned up with the kitty, the dealer's now
        tb.refuse(seat, E.SEEN_TWICE, (card,), now_ms)
        return
    h = tb.hands[seat]
    h.append(card)
    tb.seen[card] = _SEEN_SCANNED
    tb.beep(E.SND_TAP)
    if len(h) < expected(tb, seat):
        return
    tb.scan_done |= 1 << seat
    ev = [E.SCAN, seat]
    for c in h:
        ev.append(c)
    tb.emit(ev)
    tb.beep(E.SND_OK)
    tb.say("S%d hand scanned" % seat, now_ms)
    if tb.scan_done == 15:
        # seen[] tracks cards played or buried from here on
        for i in range(tb.ncards):
            tb.seen[i] = 0
        tb.phase = T.KITTY
        tb.turn = tb.dealer
        tb.save_due = True


def undo(tb: "T.TableBase", seat):
    """A long press during the scan: that seat scans again from the start."""
    if tb.scan_done & (1 << seat):
        return
    for c in tb.hands[seat]:
        tb.seen[c] = 0
    del tb.hands[seat][:]

