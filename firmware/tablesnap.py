# Snapshots of the table core: the state at a trick boundary as nested lists
# of ints (what persist.py writes to flash and what the host may push).
#
# Layout (index: field): 0 version, 1 decks, 2 phase, 3 hand_no, 4 first_hand,
# 5 dealer, 6 level side 0, 7 level side 1, 8 trump, 9 declarer, 10 attackers'
# score, 11 kitty points, 12 match winner, 13 next event index, 14 state hash,
# 15 bids [[seat, cards]], 16 kitty cards, 17 tricks [[leader, winner,
# points, forced, p0, p1, p2, p3]], 18 revokes reported [[trick, seat]],
# 19 the hand's result (HAND_END event) or None, 20 the trick in progress
# [leader, forced, throw_open, p0, p1, p2, p3] (a seat's play or None) or None,
# 21 the kitty as turned up in order (no_bid = "kitty" with no bid; [] else);
# and only in hand_scan mode 22 [1, seats scanned (bits), hand0, .., hand3]
# (the cards each seat still holds); and last, only with partners = "called",
# [2, call (a face, -1 before the call), partner (-2 unknown, -1 alone),
# level seat 2, level seat 3] (fields 6 and 7 are then seats 0 and 1; the
# points by seat are rebuilt from the tricks, field 10 is -1 while the partner
# is unknown); then, only once time is called (CMD_CALL_TIME), [4] (a table
# restarted after the call still starts no new deal); and last, when the table knows its rules digest
# (tableconfig.Options.digest), [3, digest] (tablerestore refuses a snapshot
# whose digest is another's). Version 2 (version 1 had no field 21).
# Restoring one is tablerestore.py's (loaded only for that, then dropped).
# The index of every field is named in snaplayout.py (the table never loads
# it; the host reads it, and tests/foundation/test_one_vocabulary.py reads a
# real snapshot by its names).
# A part of the table core (tablebase.py): a function of the table's state.
import tablebase as T


# --- snapshots (persistence, and the host's snapshot push) ---------------
def snapshot(tb: "T.TableBase", packed=False):
    """The state as nested lists of ints (JSON-able), the trick in progress
    included (a save follows a trick's end but begins at the loop's first
    quiet turn, main.App.step: it may hold the next trick's first plays).
    packed: the tricks as the table keeps them (T.Tricks), for
    persist.Store.save(snap), which writes them packed one trick at a time
    (no copy of the hand's tricks at once)."""
    ph = tb.phase
    d = getattr(tb.rules, "digest", "")
    cur = None
    if ph == T.PLAY and tb.lead is not None:
        cur = [tb.leader, 1 if tb.forced else 0, 1 if tb.throw_open else 0]
        for p in tb.plays:
            cur.append(p)
    return [
        T.SNAPSHOT_VERSION,
        tb.decks,
        ph,
        tb.hand_no,
        1 if tb.first_hand else 0,
        tb.dealer,
        tb.levels[0],
        tb.levels[1],
        tb.trump,
        tb.declarer,
        tb.score,
        tb.kitty_points,
        tb.match_winner,
        tb.ev_index,
        tb.ev_hash,
        tb.bids,
        tb.kitty,
        tb.tricks if packed else [T.trick_unpack(tr) for tr in tb.tricks],
        tb.revoked,
        tb.result,
        cur,
        tb.kitty_up,
    ] + (
        [[1, tb.scan_done, tb.hands[0], tb.hands[1], tb.hands[2], tb.hands[3]]]
        if tb.hand_scan
        else []
    ) + ([[2, tb.call, tb.partner, tb.levels[2], tb.levels[3]]] if tb.friend else []) + (
        [[4]] if tb.time_called else []
    ) + ([[3, d]] if d else [])
