# The layout of the table core's snapshot (tablesnap.py lays it out,
# tablerestore.py reads it back, persist.py and main.py touch the event index
# and hash): the index of every field, and of the parts of the nested ones.
#
# The table never imports this module: its code writes the fields in this
# order by position (names compiled from source cost heap, and a name of one
# module is a dict entry in another's; the Pico runs main.py from source), and
# tests/foundation/test_one_vocabulary.py reads a real snapshot by these names.
# The host reads them (tractor_table.vocab: SnapshotField and Snapshot) and
# defines none of them again. Change the layout here, in tablesnap.py and
# tablerestore.py, and bump table.SNAPSHOT_VERSION.
try:
    from micropython import const
except ImportError:

    def const(x):  # type: ignore[no-redef]
        return x


# the fields, by index
F_VERSION = const(0)  # table.SNAPSHOT_VERSION
F_DECKS = const(1)
F_PHASE = const(2)  # table.DEAL ... table.CALL
F_HAND_NO = const(3)
F_FIRST_HAND = const(4)  # 1 on the match's first hand
F_DEALER = const(5)
F_LEVEL0 = const(6)  # side 0 (partners = "called": seat 0)
F_LEVEL1 = const(7)  # side 1 (partners = "called": seat 1)
F_TRUMP = const(8)  # 0-3 S H D C, 4 NT, -1 before the draw ends
F_DECLARER = const(9)
F_SCORE = const(10)  # the attackers' score (-1 while a called partner is unknown)
F_KITTY_POINTS = const(11)
F_MATCH_WINNER = const(12)
F_EV_INDEX = const(13)  # the next event's index (the link's numbering)
F_EV_HASH = const(14)  # the state hash (the link's chain)
F_BIDS = const(15)  # [[seat, cards], ...]
F_KITTY = const(16)  # the cards buried
F_TRICKS = const(17)  # the completed tricks (T_*)
F_REVOKED = const(18)  # the revokes reported: [[trick, seat], ...]
F_RESULT = const(19)  # the hand's HAND_END event, or None
F_CURRENT = const(20)  # the trick in progress (C_*), or None
F_KITTY_UP = const(21)  # no_bid = "kitty": the kitty as turned up ([] else)
F_EXTRA = const(22)  # the optional fields from here (X_*): hand_scan, partners = "called", the rules digest
# a completed trick: [leader, winner, points, forced, p0, p1, p2, p3]
T_LEADER = const(0)
T_WINNER = const(1)
T_POINTS = const(2)
T_FORCED = const(3)  # 1: a failed throw's forced lead
T_PLAYS = const(4)  # the four seats' plays from here, in seat order
# the trick in progress: [leader, forced, throw_open, p0, p1, p2, p3]
C_LEADER = const(0)
C_FORCED = const(1)
C_THROW_OPEN = const(2)
C_PLAYS = const(3)  # each seat's play, or None before it plays
# the optional fields, each tagged by its first item
X_SCAN = const(1)  # hand_scan mode: [1, seats scanned (bits), hand0, .., hand3]
X_FRIEND = const(2)  # partners = "called": [2, call, partner, level seat 2, level seat 3]
X_TIME = const(4)  # time called (CMD_CALL_TIME): [4], after X_FRIEND, before X_RULES
X_RULES = const(3)  # the table's rules digest (docs/protocol.md), last: [3, digest]
RULES_DIGEST = const(1)
SCAN_DONE = const(1)
SCAN_HANDS = const(2)  # the cards each seat still holds
FRIEND_CALL = const(1)  # a face 0..53, -1 before the call
FRIEND_PARTNER = const(2)  # table.PARTNER_UNKNOWN, -1 the dealer alone
FRIEND_LEVELS = const(3)  # seats 2 and 3
