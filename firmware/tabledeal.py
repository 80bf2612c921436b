# The draw and the burial of the table core: bids tapped during the draw, the
# end of the draw (trump, declarer, dealer, or a redeal; with no_bid = "kitty"
# and no bid, the kitty turned up first: tablereveal.py), and the dealer's
# burial of the kitty. A part of the table core (tablebase.py): functions of
# the table's state; table.Table loads it for the draw and the burial and
# drops it when the play starts, and does what end_draw's answer says; a new
# match and a hand's start are here too (the draw follows them at once), so
# that the table does not keep their code through the play.
import events as E
import tablebase as T


def new_match(tb: "T.TableBase"):
    """A new match: levels 2, no dealer yet, the first hand's draw (table.Table.new_match)."""
    tb.levels = [0, 0, 0, 0] if tb.friend else [0, 0]
    tb.hand_no = 0
    tb.first_hand = True
    tb.dealer = -1
    tb.match_winner = -1
    tb.time_called = False  # CMD_CALL_TIME: no new deal after this one
    tb.message = ""  # what the display shows on its last line
    tb.message_until = 0
    start_hand(tb)


def start_hand(tb: "T.TableBase"):
    """A hand's draw begins (table.Table.start_hand): the hand's state reset, HAND_START."""
    tb.phase = T.DEAL
    tb.hand_no += 1
    tb.trump = -1
    tb.declarer = -1
    tb.bids = []  # [seat, cards] in time order (for rules.declare)
    tb.score = 0  # attackers' points
    tb.kitty = []
    tb.kitty_points = 0
    if len(tb.tricks):
        # the last hand's may be in a save under way (persist.Store): a new one
        tb.tricks = T.Tricks(tb.hand_size, tb.ncards)
    tb.plays = [None, None, None, None]  # current trick, by seat
    tb.lead = None
    tb.leader = -1
    tb.turn = -1
    tb.throw_open = False
    tb.forced = False
    tb.challenger = -1
    tb.played = 0  # cards each seat has played this hand
    tb.last_winner = -1
    tb.revoked = []  # [trick_no, seat] already reported
    tb.result = None  # HAND_END fields once settled
    tb.forfeit = None  # revoke = "forfeit": [trick, seat] of the revoke that lost the hand
    tb.kitty_up = []  # no_bid = "kitty": the kitty as turned up, in order
    tb.undo_seat = -1  # the seat whose last play a long press may take back (tableundo.py)
    for i in range(tb.ncards):
        tb.seen[i] = 0
    for p in tb.pending:
        del p[:]
    for h in tb.hands:
        del h[:]
    tb.scan_done = 0
    if tb.friend:
        tb.friend.new_hand(tb)
    # with partners = "called" the levels are per seat: seats 2 and 3 last
    tb.emit(
        [
            E.HAND_START,
            tb.hand_no,
            tb.dealer,
            tb.decks,
            tb.levels[0],
            tb.levels[1],
            1 if tb.first_hand else 0,
        ]
        + tb.levels[2:]
    )
    tb.save_due = True  # a power cut during the draw keeps the bids from here on


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
    tb.phase = T.PLAY  # partners = "called": the Table starts the call (tablecall.py)
    tb.leader = tb.turn = tb.dealer
    tb.beep(E.SND_OK)
    tb.save_due = True
