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
# A part of the table core (tablebase.py): functions of the table's state,
# loaded by table.Table only when a hand goes without a bid at a table that
# plays this option. tap answers True at the kitty's last card (the Table
# takes it as the dealer's OK); ok answers True once KITTY_UP is sent, and the
# Table then ends the draw with the kitty turned up (tabledeal.end_draw). A
# snapshot's kitty turned up is checked by tablerestore.py.
import events as E
import tablebase as T


def start(tb: "T.TableBase", now_ms):
    tb.phase = T.REVEAL
    tb.turn = tb.dealer
    tb.save_due = True
    tb.beep(E.SND_OK)
    tb.say("S%d turn kitty up" % tb.dealer, now_ms)


def tap(tb: "T.TableBase", seat, card, now_ms):
    if seat != tb.dealer:
        tb.refuse(seat, E.WRONG_PHASE, (card,), now_ms)
        return
    pend = tb.pending[seat]
    pend.append(card)
    tb.beep(E.SND_TAP)
    return len(pend) == tb.kitty_size  # the last card: the Table takes it as the dealer's OK


def ok(tb: "T.TableBase", now_ms):
    pend = tb.pending[tb.dealer]
    if len(pend) != tb.kitty_size:
        tb.refuse(tb.dealer, E.KITTY_COUNT, pend, now_ms)  # the cards tapped stay
        return False
    # KITTY_UP; then the Table ends the draw: the rules name trump from the first card
    cards = list(pend)
    tb.kitty_up = cards
    ev = [E.KITTY_UP, tb.dealer]
    for c in cards:
        ev.append(c)
    tb.emit(ev)
    return True
