# The end of a hand in the table core: the audit of every hand, the kitty
# bonus, the settlement, a piece per call (table.Table.work: its due 6-8).
# A part of the table core (tablebase.py), loaded when a hand's end begins and
# dropped when the hand is settled (table.PARTS, _END: issue 21, its code is
# not in the heap through the play, where the heap's peak is). The audit: at
# the hand's end every hand is known, so every follow and every unchallenged
# throw is checked.
import events as E
import tablebase as T


def end_hand(tb: "T.TableBase", now_ms, step, forfeits):
    # Every card played: the audit, the kitty bonus, the settlement, a piece
    # per call (issue 22: at once it was about 150 ms of the chip's time in
    # one turn of the main loop); returns the next piece's step (the Table's
    # due), 0 once the hand is settled. Step 6 begins, 7 audits one trick
    # (the last first), 8 settles. A hand lost by a revoke (revoke =
    # "forfeit") before its last trick ends here too, with neither kitty
    # bonus nor audit (docs/rules.md §10). forfeits: tableforfeit's functions
    # where revoke = "forfeit" (a revoke known, or one the audit may find),
    # else None: given by table.Table to step 8.
    if step == 6:
        if tb.friend:
            tb.friend.resolve(tb, now_ms, True)  # every copy is located by now
        if tb.played < tb.hand_size:
            return 8
        # the audit's walk: the trick after the next one, the hands, its
        # findings (a block per trick with any, the latest first)
        # (each hand a bytearray of card ids, not a list: a byte a card where
        # a list takes a word, and the audit's hands are the heap's largest
        # new data at a hand's end, 4 x 54 cards with 4 decks: issue 21)
        tb.aud = [len(tb.tricks), [bytearray(), bytearray(), bytearray(), bytearray()], []]
        return 7
    rules = tb.rules
    if step == 7:
        # Every hand is known now: seat s held at trick t what it played
        # from t on, so the hands grow as the walk goes back.
        a = tb.aud
        t = a[0] - 1
        a[0] = t
        hands = a[1]
        tr = tb.tricks[t]
        at = 9
        for s in range(4):
            h = hands[s]
            for i in range(at, at + tr[5 + s]):
                h.append(tr[i])
            at += tr[5 + s]
        leader = tr[0]
        lead = T.trick_play(tr, leader)
        block = None
        if not tr[2] and rules.is_throw(lead):
            if rules.throw(leader, lead, hands) is not None:
                block = [[E.AUDIT, t, leader, E.THROW_FAILED, 0]]
        for s in range(4):
            if s == leader:
                continue
            why = rules.check_follow(lead, hands[s], T.trick_play(tr, s))
            if why:
                if block is None:
                    block = []
                block.append([E.AUDIT, t, s, E.REVOKE_FOLLOW, why])
        if block is not None:
            a[2].append(block)
        return 7 if t else 8
    mult = bonus = 0
    won_by = None  # the attackers' play that took the last trick (and the kitty)
    if tb.played >= tb.hand_size:
        found = tb.aud[2]
        tb.aud = None
        for k in range(len(found) - 1, -1, -1):  # in trick order
            for ev in found[k]:
                tb.emit(ev)
        last = tb.tricks[-1]
        if not _defends(tb, last[1]):
            won_by = T.trick_play(last, last[1])
            mult, bonus = rules.kitty(T.trick_play(last, last[0]), won_by, tb.kitty)
            tb.score += bonus
        if rules.revoke == 1 and not tb.forfeit:
            forfeits.from_audit(tb, found)
    if tb.forfeit:
        nd, levels, winner = forfeits.settle(tb, won_by, now_ms)
    else:
        if tb.friend:
            nd, levels, winner = tb.friend.settle(tb, won_by)
        else:
            nd, levels, winner = rules.settle(tb.score if tb.score > 0 else 0, tb.dealer, tb.levels, won_by)
        tb.say("hand over: %d" % tb.score, now_ms)
    tb.dealer = nd
    tb.levels = list(levels)
    tb.match_winner = winner
    tb.result = [
        E.HAND_END,
        tb.score,
        tb.kitty_points,
        mult,
        bonus,
        nd,
        levels[0],
        levels[1],
        winner,
    ] + tb.levels[2:]  # partners = "called": levels per seat, seats 2 and 3 last
    tb.emit(list(tb.result))
    tb.first_hand = False
    tb.phase = T.MATCH_END if winner >= 0 else T.HAND_END
    tb.turn = -1
    tb.beep(E.SND_HAND)
    tb.save_due = True
    return 0


def _defends(tb: "T.TableBase", seat):
    """Is `seat` on the dealer's side (partners = "called": as the partner is known)?"""
    if tb.friend:
        return (tb.defmask >> seat) & 1 == 1
    return (seat & 1) == tb.defenders()
