# Restoring a snapshot of the table core (layout: tablesnap.py), every check
# made before anything is changed. Needed only at a start from flash or when
# the host pushes a state: table.Table.restore loads this module for the one
# call and drops it from sys.modules after, so its code leaves the heap.
# A part of the table core (tablebase.py): a function of the table's state;
# find-a-friend's functions are tb.friend's (tablefriend.py).
import tablebase as T


def restore(tb: "T.TableBase", snap):
    """Take a snapshot(); raises T.TableError (state unchanged) if it does not fit."""
    scan = None
    friend = None
    x = snap[-1] if isinstance(snap, list) and len(snap) > 22 else None
    if isinstance(x, list) and len(x) == 2 and x[0] == 3:  # the rules digest, last
        mine = getattr(tb.rules, "digest", "")
        if mine and x[1] != mine:
            raise T.TableError("snapshot: saved under other rules (%s), this table plays %s" % (x[1], mine))
        snap = snap[:-1]
    called = False  # [4]: time was called (CMD_CALL_TIME), before the digest
    x = snap[-1] if isinstance(snap, list) and len(snap) > 22 else None
    if isinstance(x, list) and len(x) == 1 and x[0] == 4:
        called = True
        snap = snap[:-1]
    if tb.friend:  # partners = "called": the last field [2, call, partner, level 2, level 3]
        friend, snap = _friend_field(snap)
    if isinstance(snap, list) and len(snap) == 23:
        scan = snap[22]
        snap = snap[:22]
    try:
        (
            ver,
            decks,
            ph,
            hand_no,
            first,
            dealer,
            l0,
            l1,
            trump,
            declarer,
            score,
            kpts,
            mw,
            idx,
            h,
            bids,
            kitty,
            tricks,
            revoked,
            result,
            cur,
            kitty_up,
        ) = snap
    except (TypeError, ValueError):
        raise T.TableError("snapshot: not a table snapshot (wrong shape)") from None
    if ver != T.SNAPSHOT_VERSION:
        raise T.TableError(
            "snapshot: version %r, this firmware reads %d" % (ver, T.SNAPSHOT_VERSION)
        )
    if decks != tb.decks:
        raise T.TableError("snapshot: %r decks, this table plays %d" % (decks, tb.decks))
    if ph not in (T.DEAL, T.KITTY, T.PLAY, T.HAND_END, T.MATCH_END, T.SCAN, T.REVEAL, T.CALL):
        raise T.TableError("snapshot: bad phase %r" % (ph,))
    if kitty_up or ph == T.REVEAL:
        # no_bid = "kitty" (tablereveal.py): no kitty turned up during the reveal
        # (nor any bid), else the kitty's size, each card once
        bad = len(kitty_up) not in (0, tb.kitty_size) or (ph == T.REVEAL and (kitty_up or bids))
        for c in kitty_up:
            if c < 0 or c >= tb.ncards or kitty_up.count(c) > 1:
                bad = True
        if bad:
            raise T.TableError("snapshot: bad kitty turned up %r" % (kitty_up,))
    seen = bytearray(tb.ncards)
    played = 0
    for c in kitty:
        if c < 0 or c >= tb.ncards or seen[c]:
            raise T.TableError("snapshot: bad kitty card %r" % (c,))
        seen[c] = 1
    for tr in tricks:
        if (
            not isinstance(tr, list)
            or len(tr) != 8
            or not _ints(tr, 4)
            or not 0 <= tr[0] < 4
            or not 0 <= tr[1] < 4
            or not 0 <= tr[2] < 65536
            or tr[3] not in (0, 1)
        ):
            raise T.TableError("snapshot: bad trick %r" % (tr,))
        for s in range(4):
            for c in tr[4 + s]:
                if c < 0 or c >= tb.ncards or seen[c]:
                    raise T.TableError("snapshot: card %r played twice" % (c,))
                seen[c] = 1
        played += len(tr[4 + tr[0]])
    if len(tricks) > tb.hand_size:
        raise T.TableError("snapshot: %d tricks, a hand has at most %d" % (len(tricks), tb.hand_size))
    if cur is not None:
        if ph != T.PLAY or len(cur) != 7 or cur[3 + cur[0]] is None:
            raise T.TableError("snapshot: bad trick in progress %r" % (cur,))
        for s in range(4):
            for c in cur[3 + s] or ():
                if c < 0 or c >= tb.ncards or seen[c]:
                    raise T.TableError("snapshot: card %r played twice" % (c,))
                seen[c] = 1
    hands = [[], [], [], []]
    scan_done = 0
    if scan is not None:
        if not isinstance(scan, list) or len(scan) != 6 or scan[0] != 1:
            raise T.TableError("snapshot: bad hand-scan field %r" % (scan,))
        scan_done = scan[1]
        held = bytearray(tb.ncards)
        for s in range(4):
            for c in scan[2 + s]:
                if c < 0 or c >= tb.ncards or held[c] or (seen[c] and ph != T.SCAN):
                    raise T.TableError("snapshot: card %r held twice or held and played" % (c,))
                held[c] = 1
            hands[s] = list(scan[2 + s])
    if (T.PLAY <= ph <= T.SCAN or ph == T.CALL) and trump < 0:
        raise T.TableError("snapshot: no trump in play")
    # all checks passed: swap in
    tb.phase = ph
    tb.time_called = called
    tb.hand_no = hand_no
    tb.first_hand = bool(first)
    tb.dealer = dealer
    tb.levels = [l0, l1, friend[3], friend[4]] if friend is not None else [l0, l1]
    tb.trump = trump
    tb.declarer = declarer
    tb.score = score
    tb.kitty_points = kpts
    tb.match_winner = mw
    tb.ev_index = idx
    tb.ev_hash = h
    tb.bids = [[b[0], list(b[1])] for b in bids]
    tb.kitty = list(kitty)
    tb.kitty_up = list(kitty_up)
    tt = T.Tricks(tb.hand_size, tb.ncards)  # a new one: a save under way may hold the old
    for tr in tricks:
        tt.add(tr[0], tr[1], tr[2], tr[3], tr[4:])
    tb.tricks = tt
    tb.revoked = [list(r) for r in revoked]
    tb.forfeit = None
    tb.result = list(result) if result else None
    tb.seen[:] = seen
    tb.played = played
    tb.hands = hands
    tb.scan_done = scan_done
    if scan is not None:
        tb.hand_scan = bool(scan[0])
    if ph == T.SCAN:
        for h in hands:
            for c in h:
                tb.seen[c] = 2  # scanned (tablescan._SEEN_SCANNED)
    tb.plays = [None, None, None, None]
    tb.lead = None
    tb.throw_open = False
    tb.forced = False
    tb.challenger = -1
    tb.undo_seat = -1  # a play restored stands (tableundo.py)
    for p in tb.pending:
        del p[:]
    tb.last_winner = tb.tricks[-1][1] if tb.tricks else -1
    if ph == T.PLAY:
        tb.leader = tb.turn = tb.last_winner if tb.tricks else dealer
        if cur is not None:
            tb.leader = cur[0]
            tb.forced = bool(cur[1])
            tb.throw_open = bool(cur[2])
            tb.plays = [None if p is None else list(p) for p in cur[3:]]
            tb.lead = tb.plays[tb.leader]
            tb.turn = tb.leader
            while tb.plays[tb.turn] is not None:
                tb.turn = (tb.turn + 1) & 3
    elif ph == T.KITTY or ph == T.REVEAL:
        tb.leader = -1
        tb.turn = dealer
    else:
        tb.leader = tb.turn = -1
    if friend is not None:
        _friend_restored(tb, friend[1], friend[2], ph)
    if trump >= 0:
        tb.rules.begin_hand(tb.level(), trump)
    tb.take_events()  # the events before it are not the link's any more


def _ints(xs, n):
    """The first n items of xs are ints (a trick's leader, winner, points, forced)."""
    for i in range(n):
        if type(xs[i]) is not int:
            return False
    return True


# --- find-a-friend (partners = "called"): the snapshot's last field
def _friend_field(snap):
    """(the find-a-friend field, the rest) of a snapshot for this table; raises
    T.TableError if it has none or a bad one (tablerestore.py, before any change)."""
    f = snap[-1] if isinstance(snap, list) and len(snap) > 22 else None
    if not isinstance(f, list) or not f or f[0] != 2:
        raise T.TableError("snapshot: partners fixed, this table plays called")
    ok = len(f) == 5
    for x in f if ok else ():
        if type(x) is not int:
            ok = False
    if not ok or not -1 <= f[1] < 54 or not -2 <= f[2] < 4 or (f[1] < 0 and f[2] != -2):
        raise T.TableError("snapshot: bad find-a-friend field %r" % (f,))
    return f, snap[:-1]


def _friend_restored(tb: "T.TableBase", call, partner, ph):
    """After a restore: the points by seat and who played each copy, from the tricks."""
    tb.call = call
    tb.building = -1
    for i in range(4):
        tb.spts[i] = 0
        tb.spen[i] = 0
    for k in range(tb.decks):
        tb.fby[k] = 0
    pen = tb.throw_penalty
    for tr in tb.tricks:
        tb.spts[tr[1]] += (tr[3] << 8) | tr[4]
        if tr[2] and pen:
            tb.spen[tr[0]] += pen
        for s in range(4):
            at = T.trick_at(tr, s)
            for i in range(at, at + tr[5 + s]):
                if call >= 0 and tr[i] % 54 == call:
                    tb.fby[tr[i] // 54] = s + 1
    score = tb.score
    F = tb.friend
    tb.partner = T.PARTNER_UNKNOWN
    if partner != T.PARTNER_UNKNOWN:
        F.set_partner(tb, partner)
    else:
        F.rescore(tb)
    if ph != T.PLAY:
        tb.score = score  # a settled hand's score has its kitty bonus
    if ph == T.CALL:
        tb.leader = -1
        tb.turn = tb.dealer
