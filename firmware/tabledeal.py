# The draw and the burial of the table core: bids tapped during the draw, the
# end of the draw (trump, declarer, dealer, or a redeal; with no_bid = "kitty"
# and no bid, the kitty turned up first: tablereveal.py), and the dealer's
# burial of the kitty. A part of the table core (tablebase.py): functions of
# the table's state; table.Table loads it for the draw and the burial and
# drops it when the play starts, and does what end_draw's answer says. The
# burial makes the hand's buffer of completed tricks (tablebase.Tricks): the
# draw and the burial hold none.
import events as E
import tablebase as T


def bid(tb: "T.TableBase", seat, now_ms):
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
    tb.emit(ev)
    if reason == E.OK:
        tb.save_due = True
        tb.beep(E.SND_OK)
        tb.say("S%d bids" % seat, now_ms)
    else:
        tb.beep(E.SND_ERROR)
        tb.say("S%d %s" % (seat, E.REASONS[reason]), now_ms)


def end_draw(tb: "T.TableBase", now_ms, kitty=None):
    """The end of the draw; kitty: the kitty as turned up, in order (no_bid =
    "kitty", tablereveal.py). None: trump is named (the phase is SCAN or
    KITTY); else what table.Table begins: T.REVEAL (nobody bid, the kitty is
    turned up: tablereveal.start) or T.DEAL (a redeal: the hand starts again)."""
    for p in tb.pending:
        del p[:]
    if kitty is None and tb.rules.no_bid == 1 and not tb.bids and not tb.first_hand:
        return T.REVEAL  # no bid: the kitty names trump
    _acc, trump, declarer, dealer = tb.rules.declare(
        tb.first_hand, tb.dealer, tb.level(), tb.bids, kitty
    )
    if trump < 0:
        tb.emit([E.REDEAL, tb.hand_no])
        tb.say("no bid: redeal", now_ms)
        tb.beep(E.SND_ERROR)
        tb.hand_no -= 1
        return T.DEAL
    tb.trump = trump
    tb.declarer = declarer
    tb.dealer = dealer
    tb.rules.begin_hand(tb.level(), trump, True)  # the engine for the burial and the play
    tb.emit([E.TRUMP, trump, declarer, dealer])
    tb.save_due = True
    if tb.hand_scan:
        tb.phase = T.SCAN  # every seat scans its hand first (tablescan.py)
        tb.turn = -1
    else:
        tb.phase = T.KITTY
        tb.turn = dealer
    tb.beep(E.SND_OK)


def bury(tb: "T.TableBase", now_ms):
    pend = tb.pending[tb.dealer]
    if len(pend) != tb.kitty_size:
        # too few (the last card buries at once, so never too many): the cards
        # tapped stay, and the display's "S1 bury 7/8" says how many more (a
        # long press of the dealer's button starts the burial again)
        tb.refuse(tb.dealer, E.KITTY_COUNT, pend, now_ms)
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
    tb.emit(ev)
    # the play's tricks (a new buffer: the last hand's may be in a save under way)
    tb.tricks = T.Tricks(tb.hand_size, tb.ncards)
    tb.phase = T.PLAY  # partners = "called": the Table starts the call (tablecall.py)
    tb.leader = tb.turn = tb.dealer
    tb.beep(E.SND_OK)
    tb.save_due = True
