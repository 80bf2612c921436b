# The table core's base: its constants, its packed tricks and the declaration
# of its state.
#
# The table core is layered as the device rules engine is (drules_base.py,
# drules*.py; docs/firmware.md, "Table core"):
#   tablebase.py   this module: the phases' and commands' constants, the packed
#                  tricks (Tricks), TableError, and TableBase, which declares for the
#                  type checker the state every part reads and writes and the
#                  outputs every part uses (emit, beep, say, refuse, save_due):
#                  at run time on the device it is object. It imports no part.
#   the parts      functions over the state (their `tb`), each module
#                  importing only this one, events.py and the rules engine
#                  (drules*.py), never another part: tablestart (a new
#                  match, a hand's start), tabledeal (the draw, the
#                  burial), tabletrick (plays, tricks, the hand's end),
#                  tablesnap (snapshots), tablerestore (restoring one),
#                  tablescan (SCAN), tablereveal (REVEAL), tablecall (CALL),
#                  tablefriend (partners = "called"), tableforfeit (revoke =
#                  "forfeit"), tableundo (a take-back).
#   table.py       table.Table(TableBase): the state itself, its outputs, the
#                  inputs (tap, button, tick, command), snapshot and restore,
#                  and the one place that loads the parts and hands over
#                  between them (a part's answer says what comes next).
#                  main.py, enrollmode.py and display.py use Table and these
#                  names only.
# A part that needs find-a-friend's functions finds them in tb.friend (the
# module tablefriend, set by table.Table when the table plays that option,
# else None); the forfeit's are passed to tablehandend.end_hand by the Table.
from array import array

try:
    from micropython import const
except ImportError:

    def const(x):  # type: ignore[no-redef]
        return x



DEAL = const(0)
KITTY = const(1)
PLAY = const(2)
HAND_END = const(3)
MATCH_END = const(4)
SCAN = const(5)  # hand_scan mode: the seats scan their hands (after DEAL, before KITTY)
REVEAL = const(6)  # no_bid = "kitty": nobody bid, the dealer turns the kitty up (tablereveal.py)
CALL = const(7)  # partners = "called": the dealer names a card (tablecall.py)
PHASE_NAMES = ("deal", "kitty", "play", "hand end", "match end", "scan", "kitty up", "call")
PARTNER_UNKNOWN = const(-2)  # drules_friend.FRIEND_UNKNOWN

NT = const(4)
UNKNOWN_TAG = const(-1)
READER_ERROR = const(-2)

# Link-level commands (the host's requests): [CMD_*, ...]
CMD_NEW_MATCH = const(1)  # [1] start a new match (levels 2, first hand)
CMD_RESTORE = const(2)  # [2, snapshot...] replace the state by a snapshot
CMD_NEXT_HAND = const(3)  # [3] as OK after the hand's end
CMD_CALL_TIME = const(4)  # [4] time called: the deal in progress is the last one

SNAPSHOT_VERSION = const(2)
MESSAGE_MS = const(3000)

# cards per hand and kitty size by deck count (docs/rules.md §1)
HAND_SIZE = (0, 12, 25, 39, 52)
KITTY_SIZE = (0, 6, 8, 6, 8)

# TableBase.seen[card]: 0 not seen, played (or buried), 2 scanned (hand_scan
# mode, during SCAN only: tablescan.py)
SEEN_PLAYED = const(1)


# The hand's completed tricks, packed one after another in one bytearray
# (a bytearray and a list slot per trick took about 56 bytes a trick on the
# 64-bit port, 2.1 KB for a 3-deck hand; this is one buffer of 9 bytes a
# trick and a byte a card, for the most a hand can hold, made at the hand's
# start: docs/firmware.md, "The save's frozen form"). A trick: 0 leader,
# 1 winner, 2 forced (1: a failed throw's forced lead), 3-4 points
# (big-endian), 5-8 the number of cards each seat played, then the cards of
# seats 0..3. tricks[t] is trick t as a memoryview (tricks[-1] the last), len()
# their count; only add() changes it, after the tricks it holds, so that a
# save under way (persist.Store: this object and the count when it began)
# writes the tricks as they were. A new hand or a restore makes a new one.
class Tricks:
    def __init__(self, hand_size, ncards):
        # at most hand_size tricks (each takes a card a seat), ncards cards
        self.buf = bytearray(9 * hand_size + ncards)
        self.at = array("H", bytes(2 * hand_size + 2))  # where trick t starts; at[n]: the end
        self.n = 0

    def __len__(self):
        return self.n

    def __getitem__(self, t):
        n = self.n
        if t < 0:
            t += n
        if t < 0 or t >= n:
            raise IndexError
        at = self.at
        return memoryview(self.buf)[at[t] : at[t + 1]]

    def add(self, leader, winner, points, forced, plays):
        n = self.n
        tr = self.buf
        i = self.at[n]
        tr[i] = leader
        tr[i + 1] = winner
        tr[i + 2] = forced
        tr[i + 3] = points >> 8
        tr[i + 4] = points & 255
        at = i + 9
        for s in range(4):
            p = plays[s]
            tr[i + 5 + s] = len(p)
            for c in p:
                tr[at] = c
                at += 1
        self.at[n + 1] = at
        self.n = n + 1


def trick_at(tr, s):
    """Where seat s's cards start in a packed trick (tr[5 + s] of them)."""
    at = 9
    for i in range(s):
        at += tr[5 + i]
    return at


def trick_play(tr, s):
    """The cards seat s played in a packed trick, as a new list."""
    at = trick_at(tr, s)
    return [tr[i] for i in range(at, at + tr[5 + s])]


def trick_unpack(tr):
    """A packed trick as the snapshot's [leader, winner, points, forced, p0, p1, p2, p3]."""
    return [
        tr[0],
        tr[1],
        (tr[3] << 8) | tr[4],
        tr[2],
        trick_play(tr, 0),
        trick_play(tr, 1),
        trick_play(tr, 2),
        trick_play(tr, 3),
    ]


class TableError(ValueError):
    """A command or snapshot the table cannot take; the state is left unchanged."""


try:  # the type checker's (and CPython's); at run time on the device TableBase is object
    from typing import Any, Callable  # noqa: F401

    class TableBase:
        """The state of one match at the table, as the parts and display.py see
        it, and the outputs they report through. As drules_base.EngineBase,
        this class only declares, for the type checker, the attributes that
        table.Table.__init__, new_match and start_hand create and the methods
        a part calls on the Table (the parts' `tb`); MicroPython has no typing
        module, so there it is not even built."""

        # the table (Table.__init__)
        rules: "Any"  # the rules object (table.py's header lists what it answers)
        decks: int
        throw_penalty: int
        ncards: int  # 54 * decks
        hand_size: int
        kitty_size: int
        hand_scan: bool  # every seat scans its hand after the draw (tablescan.py)
        friend: "Any"  # partners = "called": the module tablefriend (set by table.Table), else None
        # the link's bookkeeping
        ev_index: int  # index of the next event
        ev_hash: int  # state hash after the last event
        chain_hash: "Any"  # the state hash's function, or None (main.App makes the hash)
        _out: "list[Any]"  # events not taken yet (take_events)
        _sound: int  # the sound due (take_sound)
        save_due: bool  # take_save()'s answer: a state worth keeping since the last call
        # what the last play left to do (Table.work): 0 nothing, 1-4 revokes, 5 the trick's end, 6-8 the hand's end
        due: int
        due_ms: int
        split: bool  # a piece per work() (main.App), else at once
        # the match (new_match)
        levels: "list[int]"  # by side, or by seat where called
        hand_no: int
        first_hand: bool
        dealer: int
        match_winner: int  # a side, or where called the winning seats' bits; -1 none yet
        message: str  # the display's last line
        message_until: int
        time_called: bool  # CMD_CALL_TIME: no new deal after the one in progress
        # the hand (start_hand; preallocated where the table is built)
        phase: int  # DEAL .. CALL
        trump: int
        declarer: int
        bids: "list[list[Any]]"  # [seat, cards] in time order
        score: int  # the attackers' points (-1 where called and the partner is unknown)
        kitty: "list[int]"
        kitty_points: int
        kitty_up: "list[int]"  # no_bid = "kitty": the kitty as turned up, in order
        tricks: "Tricks"  # completed, packed (Tricks)
        plays: "list[Any]"  # the current trick's plays by seat, None not yet
        lead: "Any"  # the current trick's lead, None before it
        leader: int
        turn: int
        throw_open: bool  # the lead is a throw that may be challenged
        forced: bool  # the lead is a failed throw's forced cards
        challenger: int
        played: int  # cards each seat has played this hand
        last_winner: int
        revoked: "list[list[int]]"  # [trick_no, seat] reported
        result: "Any"  # the HAND_END event's fields once settled, else None
        aud: "Any"  # the hand's end: the audit's walk (tablehandend.end_hand), else None
        forfeit: "Any"  # revoke = "forfeit": [trick, seat] of the revoke that lost the hand
        seen: bytearray  # by card: 0, SEEN_PLAYED, 2 scanned (tablescan.py)
        pending: "list[list[int]]"  # cards tapped, not yet committed, by seat
        hands: "list[list[int]]"  # hand_scan mode: each seat's cards still held
        scan_done: int  # hand_scan mode: bit per seat whose hand is scanned
        undo_seat: int  # the seat whose last play a long press may take back (tableundo.py)
        # find-a-friend's (tablefriend.init)
        call: int
        building: int
        partner: int
        defmask: int
        spts: "list[int]"
        spen: "list[int]"
        fby: bytearray
        # the outputs and facts the parts use (table.Table's)
        emit: "Callable[[list[Any]], None]"  # a game event (take_events), chained into the hash
        beep: "Callable[[int], None]"  # a sound (events.SND_*) unless a more urgent one is due
        say: "Callable[[str, int], None]"  # text on the display's last line for MESSAGE_MS
        refuse: "Callable[[int, int, Any, int], None]"  # REJECT, the error sound, the reason shown
        take_events: "Callable[[], list[Any]]"
        defenders: "Callable[[], int]"
        level: "Callable[[], int]"
        finish: "Callable[[], None]"  # what the last play left to do, done now
        restore: "Callable[[list[Any]], None]"  # a snapshot taken (tablerestore)
except ImportError:
    TableBase = object  # pyright: ignore[reportAssignmentType]
