# Plays and tricks in the table core: a lead or a follow
# committed, a challenge of a throw (docs/rules.md §5 and §10), the trick's
# winner and points, revokes proven by later plays (the end of the hand is
# tablehandend.py's). A part of the table core
# (tablebase.py): functions of the table's state. commit_lead and
# commit_follow count a play (its PLAY event, its sound) and say whether its
# revokes are to be checked; table.Table runs the rest after them
# (check_revokes, end_trick; the hand's end, tablehandend.end_hand, after a
# play that ends the hand: its last card, or a revoke that loses it), at once
# or a piece per turn of the main loop after the play's frame (Table.work,
# issue 22), with tableforfeit's functions when they are needed;
# find-a-friend's are tb.friend's.
#
# check_revokes: every card played now was held at every earlier trick (no
# cards are drawn during play), so an earlier follow that is illegal even
# against the cards known now is a proven revoke.
import events as E
import tablebase as T


def commit_lead(tb: "T.TableBase", seat, now_ms):
    pend = tb.pending[seat]
    suit = tb.rules.suit_of(pend[0])
    for c in pend:
        if tb.rules.suit_of(c) != suit:
            tb.refuse(seat, E.MIXED_LEAD, pend, now_ms)
            del pend[:]
            return False
    cards = list(pend)
    del pend[:]
    tb.lead = cards
    tb.plays[seat] = cards
    for c in cards:
        tb.seen[c] = T.SEEN_PLAYED
    tb.throw_open = tb.rules.is_throw(cards)
    tb.forced = False
    play_event(tb, seat, cards, now_ms)
    tb.turn = (seat + 1) & 3
    tb.beep(E.SND_OK)
    if tb.hand_scan:
        # every hand is known: a failing throw is forced now, not challenged
        if tb.throw_open:
            forced = tb.rules.throw(seat, cards, tb.hands)
            if forced is not None:
                force(tb, forced, now_ms)
        tb.throw_open = False
        h = tb.hands[seat]
        for c in tb.lead:
            if c in h:
                h.remove(c)
        return False
    # a lead is a later play too: it may prove an earlier follow illegal
    # (revoke = "forfeit": then the Table ends the hand): check_revokes is due
    return True


def play_event(tb: "T.TableBase", seat, cards, now_ms):
    ev = [E.PLAY, len(tb.tricks), seat]
    for c in cards:
        ev.append(c)
    tb.emit(ev)
    tb.undo_seat = seat  # a long press may take it back (tableundo.py) until something follows
    if tb.friend:
        tb.friend.played(tb, seat, cards, now_ms)  # the partner may be known now


def commit_follow(tb: "T.TableBase", seat, now_ms):
    # True: check_revokes is due for the play. The trick's last card leaves
    # turn at -1: end_trick is due, which gives the turn to the winner
    pend = tb.pending[seat]
    cards = list(pend)
    del pend[:]
    why = 0
    if tb.hand_scan:
        why = tb.rules.check_follow(tb.lead, tb.hands[seat], cards)
        if why and tb.rules.revoke != 1:
            tb.refuse(seat, E.REVOKE_FOLLOW, cards, now_ms)
            return False
        h = tb.hands[seat]
        for c in cards:
            if c in h:
                h.remove(c)
    tb.plays[seat] = cards
    for c in cards:
        tb.seen[c] = T.SEEN_PLAYED
    tb.throw_open = False
    if tb.challenger >= 0:
        del tb.pending[tb.challenger][:]
        tb.challenger = -1
    play_event(tb, seat, cards, now_ms)
    if why:
        # hand_scan mode, revoke = "forfeit": the play stands and loses the hand
        # (docs/rules.md §10): REVOKE of this very trick
        n = len(tb.tricks)
        tb.revoked.append([n, seat])
        tb.emit([E.REVOKE, n, seat, n, why])
        tb.beep(E.SND_ERROR)
        tb.forfeit = [n, seat]
    tb.turn = (seat + 1) & 3
    if tb.turn == tb.leader:
        tb.turn = -1
    tb.beep(E.SND_OK)
    return not why


def challenge(tb: "T.TableBase", seat, now_ms):
    pend = tb.pending[seat]
    shown = list(pend)
    del pend[:]
    tb.challenger = -1
    trick_no = len(tb.tricks)
    if not shown or not tb.throw_open:
        tb.refuse(seat, E.EMPTY if not shown else E.WRONG_PHASE, shown, now_ms)
        return
    hands = [[], [], [], []]
    hands[tb.leader] = tb.lead
    hands[seat] = shown
    forced = tb.rules.throw(tb.leader, tb.lead, hands)
    ev = [E.CHALLENGE, trick_no, seat, 0 if forced is None else 1]
    for c in shown:
        ev.append(c)
    tb.emit(ev)
    if forced is None:
        tb.beep(E.SND_ERROR)
        tb.say("S%d %s" % (seat, E.REASONS[E.CHALLENGE_FAILED]), now_ms)
        return
    force(tb, forced, now_ms)


def force(tb: "T.TableBase", forced, now_ms):
    """A failed throw: `forced` stands as the lead (docs/rules.md §5)."""
    trick_no = len(tb.tricks)
    # the rest of the throw goes back to the leader's hand
    for c in tb.lead:
        tb.seen[c] = 0
    forced = list(forced)
    for c in forced:
        tb.seen[c] = T.SEEN_PLAYED
    pen = tb.throw_penalty
    if pen:
        if tb.friend:
            tb.friend.penalty(tb, tb.leader, pen)
        elif (tb.leader & 1) == tb.defenders():
            tb.score += pen
        else:
            tb.score -= pen
    ev = [E.FORCED, trick_no, tb.leader, pen]
    for c in forced:
        ev.append(c)
    tb.emit(ev)
    tb.lead = forced
    tb.plays[tb.leader] = forced
    tb.throw_open = False
    tb.forced = True
    tb.turn = (tb.leader + 1) & 3
    del tb.pending[tb.turn][:]
    tb.beep(E.SND_OK)
    tb.say("throw fails", now_ms)


def end_trick(tb: "T.TableBase", now_ms):
    plays = tb.plays
    winner, points = tb.rules.trick(tb.leader, plays)
    if tb.friend:
        tb.friend.trick(tb, winner, points)  # kept by seat
    elif (winner & 1) != tb.defenders():
        tb.score += points
    tb.tricks.add(tb.leader, winner, points, 1 if tb.forced else 0, plays)
    tb.played += len(tb.lead)
    trick_no = len(tb.tricks) - 1
    tb.emit([E.TRICK, trick_no, winner, points, tb.score])
    tb.last_winner = winner
    tb.plays = [None, None, None, None]
    tb.lead = None
    tb.forced = False
    tb.leader = tb.turn = winner
    tb.beep(E.SND_TRICK)
    tb.save_due = True
    tb.say("S%d wins %d" % (winner, points), now_ms)


def check_revokes(tb: "T.TableBase", seat, cards, now_ms):
    # Every card played now was held at every earlier trick of the hand, so
    # an earlier follow that is illegal even against the cards known now is
    # a proven revoke (docs/rules.md §10). Only tricks whose lead suit
    # the new cards touch can change their verdict. The cards known at trick t
    # are built once, walking back from the last trick (no list per trick).
    rules = tb.rules
    tricks = tb.tricks
    n = len(tricks)
    known = list(cards)
    found = None
    for t in range(n - 1, -1, -1):
        tr = tricks[t]
        at = T.trick_at(tr, seat)
        for i in range(at, at + tr[5 + seat]):
            known.append(tr[i])
        if tr[0] == seat:
            continue
        lsuit = rules.suit_of(tr[T.trick_at(tr, tr[0])])
        touch = False
        for c in cards:
            if rules.suit_of(c) == lsuit:
                touch = True
                break
        if not touch or _revoked(tb, t, seat):
            continue
        why = rules.check_follow(T.trick_play(tr, tr[0]), known, T.trick_play(tr, seat))
        if why:
            if found is None:
                found = []
            found.append((t, why))
    if found is None:
        return
    for k in range(len(found) - 1, -1, -1):  # earliest trick first
        t, why = found[k]
        tb.revoked.append([t, seat])
        tb.emit([E.REVOKE, n, seat, t, why])
        tb.beep(E.SND_ERROR)
        tb.say("S%d revoke t%d" % (seat, t + 1), now_ms)
    if tb.rules.revoke == 1 and not tb.forfeit:
        tb.forfeit = [found[-1][0], seat]  # revoke = "forfeit": lost (the caller ends the hand)


def _revoked(tb: "T.TableBase", t, seat):
    for r in tb.revoked:
        if r[0] == t and r[1] == seat:
            return True
    return False
