# no_bid = "kitty" (docs/rules.md §8.1) at the table: nobody bid by
# the end of the draw (on a hand other than the match's first, which is
# redealt), so the kitty's cards are turned up in order and the first one's
# suit is trump (a joker, a level card, or with permanent_twos a 2: NT; docs/
# rules.md, "Declaring trump"; the engine decides, drules_hand.end_of_draw).
#
# The table learns the kitty's order from the dealer, who turns the kitty's
# cards face up one by one, tapping each at its own reader (the display says
# "S<dealer> kitty up n/N" and shows the cards as they come). With the last
# card the rules name trump: KITTY_UP (the cards, in order), then TRUMP as at
# any end of the draw. Another seat's tap is refused (REJECT, "not now"); the
# dealer's OK before the last card is refused (REJECT, "wrong kitty size")
# and keeps the cards tapped; a long press takes them back (start again). A
# power cut during the reveal resumes at its start (the phase is saved, the
# cards tapped are not).
# Functions of the Table object (firmware/table.py), loaded only when a hand
# goes without a bid at a table that plays this option.
import events as E
import table as T
import tabledeal


def check(tb, ph, bids, kitty_up):
    """A snapshot's kitty turned up (tablesnap.restore, before anything changes):
    none during the reveal (nor any bid), else the kitty's size, each card once."""
    bad = len(kitty_up) not in (0, tb.kitty_size) or (ph == T.REVEAL and (kitty_up or bids))
    for c in kitty_up:
        if c < 0 or c >= tb.ncards or kitty_up.count(c) > 1:
            bad = True
    if bad:
        raise T.TableError("snapshot: bad kitty turned up %r" % (kitty_up,))


def start(tb, now_ms):
    tb.phase = T.REVEAL
    tb.turn = tb.dealer
    tb._save = True
    tb._beep(E.SND_OK)
    tb._say("S%d turn kitty up" % tb.dealer, now_ms)


def tap(tb, seat, card, now_ms):
    if seat != tb.dealer:
        tb._refuse(seat, E.WRONG_PHASE, (card,), now_ms)
        return
    pend = tb.pending[seat]
    pend.append(card)
    tb._beep(E.SND_TAP)
    if len(pend) == tb.kitty_size:
        finish(tb, now_ms)


def ok(tb, now_ms):
    pend = tb.pending[tb.dealer]
    if len(pend) != tb.kitty_size:
        tb._refuse(tb.dealer, E.KITTY_COUNT, pend, now_ms)  # the cards tapped stay
        return
    finish(tb, now_ms)


def finish(tb, now_ms):
    cards = list(tb.pending[tb.dealer])
    tb.kitty_up = cards
    ev = [E.KITTY_UP, tb.dealer]
    for c in cards:
        ev.append(c)
    tb._emit(ev)
    tabledeal.end_draw(tb, now_ms, cards)  # the rules name trump from the first card
