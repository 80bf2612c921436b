# A new match and a hand's start of the table core: the state reset, the
# hand's HAND_START. A part of the table core (tablebase.py): functions of the
# table's state; table.Table loads it for a new match or a hand's start
# (once a hand, at the OK after the hand's end or the host's command) and
# drops it at once, so that the table does not keep its code through the play.
import events as E
import tablebase as T


def init(tb: "T.TableBase", rules, decks, throw_penalty, chain_hash, hand_scan):
    """The table's state made (table.Table.__init__; the parts' options after it)."""
    if decks < 1 or decks > 4:
        raise T.TableError("decks must be 1..4, got %r" % (decks,))
    tb.rules = rules
    tb.decks = decks
    tb.throw_penalty = throw_penalty
    tb.chain_hash = chain_hash
    tb.ncards = 54 * decks
    tb.hand_size = T.HAND_SIZE[decks]
    tb.kitty_size = T.KITTY_SIZE[decks]
    # link bookkeeping
    tb.ev_index = 0  # index of the next event
    tb.ev_hash = 0  # state hash after the last event
    # (the events not taken yet and the sound due: table.Table.__init__'s)
    tb.save_due = False  # take_save()'s answer: a state worth keeping is due
    # what the last play left to do (issue 22): 0 nothing, 1-4 the revokes
    # of seat due-1's play, 5 the trick's end, 6-8 the hand's end
    # (tablehandend.end_hand); at once unless split (main.App): then a
    # piece per work(), after its frame
    tb.due = 0
    tb.due_ms = 0
    tb.split = False
    # per hand (preallocated, reused every hand)
    tb.seen = bytearray(tb.ncards)
    tb.pending = [[], [], [], []]  # cards tapped, not yet committed, per seat
    tb.hand_scan = bool(hand_scan)
    tb.hands = [[], [], [], []]  # hand_scan mode: each seat's cards still held
    tb.scan_done = 0  # hand_scan mode: bit per seat whose hand is scanned


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
    # none until the burial (tabledeal.bury makes the play's buffer); a new
    # object: the last hand's may be in a save under way (persist.Store)
    tb.tricks = T.Tricks(0, 0)
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


def command(tb: "T.TableBase", cmd):
    """table.Table.command: a link-level command, [CMD_*, ...]; raises
    TableError if refused."""
    if not cmd:
        raise T.TableError("empty command")
    tb.finish()
    c = cmd[0]
    if c == T.CMD_NEW_MATCH:
        new_match(tb)
    elif c == T.CMD_RESTORE:
        tb.restore(cmd[1:])
    elif c == T.CMD_NEXT_HAND:
        if tb.phase != T.HAND_END:
            raise T.TableError("the hand is not over")
        if tb.time_called:
            raise T.TableError("time is called: no new deal")
        start_hand(tb)
    elif c == T.CMD_CALL_TIME:
        tb.time_called = True
        tb.save_due = True  # kept in the snapshot: a restart still starts no new deal
    else:
        raise T.TableError("unknown command %r" % (c,))
