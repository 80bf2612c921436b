# The draw and the burial of the table core (firmware/table.py): bids tapped
# during the draw, the end of the draw (trump, declarer, dealer, or a redeal;
# with no_bid = "kitty" and no bid, the kitty turned up first: tablereveal.py),
# and the dealer's burial of the kitty. Functions of the Table object, kept in
# their own module so that each firmware module compiles in a small heap.
import events as E
import table as T


def bid(tb, seat, now_ms):
    pend = tb.pending[seat]
    cards = list(pend)
    del pend[:]
    face = cards[0] % 54
    ok = True
    for c in cards:
        if c % 54 != face:
            ok = False
    if face < 52 and face % 13 != tb.level():
        ok = False
    if face >= 52 and len(cards) < 2:
        ok = False  # one joker is no bid at all (jokers bid in pairs: docs/rules.md)
    reason = E.OK
    if not ok:
        reason = E.BID_CARDS
    else:
        tb.bids.append([seat, cards])
        acc = tb.rules.declare(tb.first_hand, tb.dealer, tb.level(), tb.bids)[0]
        if not acc[-1]:
            tb.bids.pop()
            # the standing declarer's bid that does not reinforce it, where
            # allow_self_override = false; else no stronger than the standing bid
            reason = E.BID_SELF if getattr(tb.rules, "refused_self", False) else E.BID_WEAK
    ev = [E.BID, seat, 1 if reason == E.OK else 0, reason]
    for c in cards:
        ev.append(c)
    tb._emit(ev)
    if reason == E.OK:
        tb._save = True
        tb._beep(E.SND_OK)
        tb._say("S%d bids" % seat, now_ms)
    else:
        tb._beep(E.SND_ERROR)
        tb._say("S%d %s" % (seat, E.REASONS[reason]), now_ms)


def end_draw(tb, now_ms, kitty=None):
    # kitty: the kitty as turned up, in order (no_bid = "kitty", tablereveal.py)
    for p in tb.pending:
        del p[:]
    if kitty is None and tb.rules.no_bid == 1 and not tb.bids and not tb.first_hand:
        T._opt("tablereveal").start(tb, now_ms)  # no bid: the kitty names trump
        return
    _acc, trump, declarer, dealer = tb.rules.declare(
        tb.first_hand, tb.dealer, tb.level(), tb.bids, kitty
    )
    if trump < 0:
        tb._emit([E.REDEAL, tb.hand_no])
        tb._say("no bid: redeal", now_ms)
        tb._beep(E.SND_ERROR)
        tb.hand_no -= 1
        tb._start_hand()
        return
    tb.trump = trump
    tb.declarer = declarer
    tb.dealer = dealer
    tb.rules.begin_hand(tb.level(), trump)
    tb._emit([E.TRUMP, trump, declarer, dealer])
    tb._save = True
    if tb.hand_scan:
        tb.phase = T.SCAN  # every seat scans its hand first (tablescan.py)
        tb.turn = -1
    else:
        tb.phase = T.KITTY
        tb.turn = dealer
    tb._beep(E.SND_OK)


def bury(tb, now_ms):
    pend = tb.pending[tb.dealer]
    if len(pend) != tb.kitty_size:
        tb._refuse(tb.dealer, E.KITTY_COUNT, pend, now_ms)
        del pend[:]
        return
    tb.kitty = list(pend)
    del pend[:]
    if tb.hand_scan:
        h = tb.hands[tb.dealer]
        for c in tb.kitty:
            h.remove(c)
    for c in tb.kitty:
        tb.seen[c] = T.SEEN_PLAYED
    tb.kitty_points = tb.rules.points(tb.kitty)
    ev = [E.KITTY, tb.dealer, tb.kitty_points]
    for c in tb.kitty:
        ev.append(c)
    tb._emit(ev)
    tb.phase = T.PLAY
    tb.leader = tb.turn = tb.dealer
    if tb.called:
        T._opt("tablecall").start(tb)  # the dealer names a card first (tablecall.py)
    tb._beep(E.SND_OK)
    tb._save = True
