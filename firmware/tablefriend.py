# Find-a-friend (partners = "called", docs/rules.md §9)
# in the table core. A part of the table core (tablebase.py):
# functions of the table's state, loaded by table.Table only at a table that
# plays this option, when it is built, and kept as tb.friend, where the other
# parts find them (tabletrick, tablecall, tablerestore; display.py too).
#
# The call itself (the gesture on the dealer's reader and button) is
# tablecall.py's, loaded for the phase CALL only; restoring the state from a
# snapshot is tablerestore.py's (field, restored).
#
# The partner (drules_friend.friend_partner's reading, the full engine's
# shengji.hand._resolve_friend): the nearest seat after the dealer in play
# order that holds a copy of the called face (the holder of the other copy
# when the dealer holds one); nobody: the dealer plays alone. In hand_scan
# mode the table knows it at the call. Otherwise it is known when the seat
# next after the dealer plays a copy, or when every copy is located (played,
# or buried in the kitty): then the first seat after the dealer that played
# one, or nobody. PARTNER [trick_no, partner or -1, attackers' score] says it;
# until then the tricks are kept by seat (tb.spts, tb.spen) and the
# attackers' score is -1 ("partner unknown") in TRICK events and snapshots.
import drules_friend as DF
import events as E
import tablebase as T


def init(tb: "T.TableBase"):
    """The Table's find-a-friend state: the call (a face, -1 none), the call
    being built, the partner (T.PARTNER_UNKNOWN until known, -1 the dealer
    alone), the defenders' seats (bits), the points won and failed throws'
    penalties by seat, the seat + 1 that played each copy of the called face."""
    tb.spts = [0, 0, 0, 0]
    tb.spen = [0, 0, 0, 0]
    tb.fby = bytearray(tb.decks)
    new_hand(tb)


def new_hand(tb: "T.TableBase"):
    tb.call = -1
    tb.building = -1
    tb.partner = DF.FRIEND_UNKNOWN
    tb.defmask = 0
    for i in range(4):
        tb.spts[i] = 0
        tb.spen[i] = 0
    for k in range(tb.decks):
        tb.fby[k] = 0


def face_name(f):
    if f < 0:
        return "?"
    if f >= 52:
        return "SJ" if f == 52 else "BJ"
    return "23456789TJQKA"[f % 13] + "SHDC"[f // 13]


def display(t, lines, trump, dealer):
    """display.DisplayModel's lines at a find-a-friend table: the levels of
    seats 0 to 3; the dealer, the call and the partner (or who is next); in
    CALL the call as it is built; while the partner is unknown each seat's
    points on its line (when it shows nothing else); at the match's end the
    seats that won."""
    r = "23456789TJQKA"
    lv = t.levels
    # no line is cut here: display.DisplayModel counts the ones too long
    lines[0] = "H%d %s%s%s%s %s" % (t.hand_no, r[lv[0]], r[lv[1]], r[lv[2]], r[lv[3]], trump)
    ph = t.phase
    call = face_name(t.call)
    if ph == T.HAND_END or ph == T.MATCH_END:
        lines[1] = "next %s pts%d" % (dealer, t.score)  # the dealer is the next hand's
    elif t.call < 0:
        lines[1] = "dealer %s" % dealer
    elif t.partner == DF.FRIEND_UNKNOWN:
        lines[1] = "%s %s partner ?" % (dealer, call)
    elif t.partner < 0:
        lines[1] = "%s alone pts%d" % (dealer, t.score)
    else:
        lines[1] = "%s+S%d %s pts%d" % (dealer, t.partner, call, t.score)
    if ph == T.PLAY and t.partner == DF.FRIEND_UNKNOWN:
        for i in range(4):  # the tricks kept by seat: each seat's points so far
            if len(lines[3 + i]) == 4 and t.spts[i]:
                lines[3 + i] += "%dp" % t.spts[i]
    if ph == T.CALL:
        b = t.building
        lines[2] = "S%d call %s" % (t.dealer, face_name(b) + " OK?" if b >= 0 else "tap card")
    elif ph == T.MATCH_END:
        won = ""
        for s in range(4):
            if t.match_winner >= 0 and (t.match_winner >> s) & 1:
                won += "S%d" % s
        lines[2] = "match: %s" % won


def played(tb: "T.TableBase", seat, cards, now_ms):
    """A play accepted (PLAY sent): it may locate a copy of the called face."""
    if tb.partner != DF.FRIEND_UNKNOWN:
        return
    f = tb.call
    hit = False
    for c in cards:
        if c % 54 == f:
            tb.fby[c // 54] = seat + 1
            hit = True
    if hit:
        resolve(tb, now_ms)


def holders(tb: "T.TableBase", final=False):
    """Copies of the called face per seat as the table knows them (-1: not
    known), for drules_friend.friend_partner."""
    f = tb.call
    h = [0, 0, 0, 0]
    if tb.hand_scan:
        for s in range(4):
            for c in tb.hands[s]:
                if c % 54 == f:
                    h[s] += 1
    located = 0
    for k in range(tb.decks):
        c = k * 54 + f
        if tb.seen[c] == T.SEEN_PLAYED:  # played (and standing), or buried
            located += 1
            if tb.fby[k]:
                h[tb.fby[k] - 1] += 1
    if not tb.hand_scan and located < tb.decks and not final:
        for s in range(4):
            if not h[s]:
                h[s] = -1  # may hold one yet
    return h


def resolve(tb: "T.TableBase", now_ms, final=False):
    if tb.partner != DF.FRIEND_UNKNOWN:
        return
    h = holders(tb, final)
    p = DF.friend_partner(tb.dealer, h)
    if p == DF.FRIEND_UNKNOWN:
        if not final:
            return
        p = DF.FRIEND_ALONE
    set_partner(tb, p)
    tb.emit([E.PARTNER, len(tb.tricks), p, tb.score])
    tb.say(("S%d partner S%d" % (tb.dealer, p)) if p >= 0 else ("S%d alone" % tb.dealer), now_ms)


def set_partner(tb: "T.TableBase", p):
    tb.partner = p
    tb.defmask = (1 << tb.dealer) | ((1 << p) if p >= 0 else 0)
    rescore(tb)


def rescore(tb: "T.TableBase"):
    """The attackers' score from the points kept by seat (-1 while unknown)."""
    if tb.partner == DF.FRIEND_UNKNOWN:
        tb.score = -1
        return
    s = 0
    for i in range(4):
        if (tb.defmask >> i) & 1:
            s += tb.spen[i]  # a defender's failed throw counts for the attackers
        else:
            s += tb.spts[i] - tb.spen[i]
    tb.score = s


def trick(tb: "T.TableBase", winner, points):
    tb.spts[winner] += points
    rescore(tb)


def penalty(tb: "T.TableBase", leader, pen):
    tb.spen[leader] += pen
    rescore(tb)


def settle(tb: "T.TableBase", won_by):
    """(next dealer, levels per seat, match winners as a bit mask or -1)."""
    kitty_j = False
    for c in won_by or ():
        f = c % 54
        if f < 52 and f % 13 == 9:
            kitty_j = True
    r = tb.rules
    out = r.hand_rules().settle_seats(  # drules_hand: the engine leaves the heap first
        tb.score if tb.score > 0 else 0,
        tb.dealer,
        tb.levels,
        tb.defmask,
        r.decks,
        r.level_table,
        r.level_ladder,
        r.must_play,
        kitty_j,
    )
    return out[0], [out[1], out[2], out[3], out[4]], out[5] if out[5] else -1
