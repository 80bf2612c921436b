# The table core: a sans-IO state machine of one Tractor match at the table.
#
# Inputs (all plain calls, no I/O, no clock of its own):
#   tap(seat, card, now_ms)     a card id 0..54*decks-1 read at a seat's reader,
#                               or UNKNOWN_TAG / READER_ERROR (negative)
#   button(seat, kind, now_ms)  events.BTN_OK / BTN_UNDO / BTN_CHALLENGE
#   tick(now_ms)                time passes (expires messages on the display)
#   command(cmd)                link-level commands from the host (CMD_*)
# Outputs (the caller drains them):
#   take_events()  -> list of (index, state_hash, event)   game events for the link
#   take_sound()   -> events.SND_*                          for the buzzer
#   take_save()    -> True after a state worth keeping (a hand's start, an
#                     accepted bid, the end of the draw, the burial, each
#                     trick, the hand's end): persist snapshot()
#   the public attributes below, which display.py renders.
#
# Phases: DEAL (cards are drawn; taps are bids, OK with no bid pending ends the
# draw) -> [REVEAL, no_bid = "kitty" and nobody bid: the dealer taps the kitty
# face up, in order; its first card names trump] -> [SCAN, hand_scan mode:
# every seat taps its hand] -> KITTY (the dealer taps the cards buried) ->
# [CALL, partners = "called": the dealer names a card, tablecall.py] -> PLAY
# (tricks) -> HAND_END (settled; OK starts the next hand) ... -> MATCH_END.
# With partners = "called" the levels are kept per seat (self.levels has 4).
# With revoke = "forfeit" a revoke ends the hand as soon as the table knows it
# (at once in hand_scan mode, when a later play proves it, or at the audit):
# FORFEIT, then HAND_END settled by tableforfeit.levels.
#
# The rules are not here. The table asks a rules object with this narrow
# interface (docs/rules.md sections in brackets); firmware/tablerules.py adapts the
# device rules engine (firmware/drules*.py) to it:
#   begin_hand(level, trump)                 level 0..12 (2..A), trump 0-3 S H D C, 4 NT
#   suit_of(card) -> 0-3 or 4 (trump)        effective suit [2]
#   is_throw(cards) -> bool                  more than one unit [4, 5]
#   throw(leader, lead, hands) -> None | forced cards      [5]; hands: 4 lists
#   check_follow(lead, hand, play) -> 0 legal, else the rules' reason [6]
#   trick(leader, plays) -> (winner, points) [7]; plays: 4 lists in seat order
#   points(cards) -> int
#   kitty(lead, winner_play, kitty) -> (multiplier, bonus)  [8]
#   settle(score, dealer, levels, won_by) -> (next_dealer, [l0, l1], match_winner or -1) [8]
#                                            won_by: the attackers' play that took the
#                                            last trick (the kitty), else None
#   declare(first_hand, dealer, level, bids, kitty=None) -> (accepted flags, trump or
#                                         -1 (redeal), declarer or -1, dealer or -1)  [8]
#                                         kitty: the kitty turned up (no_bid = "kitty")
#   no_bid, revoke, partners              attributes: 1 for "kitty", "forfeit", "called"
#                                         (else 0): the options the table core plays itself
#                                         (partners = "called" settles by
#                                         drules_hand.settle_seats with decks, level_table,
#                                         level_ladder, must_play: tablefriend.py) [9]
#   level_table, level_ladder, must_play  attributes (drules_hand's): a forfeit's
#                                         levels (tableforfeit.py)
#
# What the table can know (docs/rules.md §10, without hand scans): count,
# cards seen twice, out of turn, mixed-suit leads at once; a follow that a
# later play proves illegal when that play is made (REVOKE); throws stand
# unless challenged; the whole hand is audited at its end (AUDIT events).
# With hand scans (tablescan.py) every rule is checked at the play itself.
try:
    from micropython import const
except ImportError:

    def const(x):  # type: ignore[no-redef]
        return x


import gc
import sys

import events as E
import tabledeal
import tablesnap
import tabletrick

DEAL = const(0)
KITTY = const(1)
PLAY = const(2)
HAND_END = const(3)
MATCH_END = const(4)
SCAN = const(5)  # hand_scan mode: the seats scan their hands (after DEAL, before KITTY)
REVEAL = const(6)  # no_bid = "kitty": nobody bid, the dealer turns the kitty up (tablereveal.py)
CALL = const(7)  # partners = "called": the dealer names a card (tablecall.py)
PHASE_NAMES = ("deal", "kitty", "play", "hand end", "match end", "scan", "kitty up", "call")
PARTNER_UNKNOWN = const(-2)  # drules_hand.FRIEND_UNKNOWN
_PHASE_MOD = ("tablescan", "tablereveal", "tablecall")  # phases SCAN, REVEAL, CALL

NT = const(4)
UNKNOWN_TAG = const(-1)
READER_ERROR = const(-2)

# Link-level commands (the host's requests): [CMD_*, ...]
CMD_NEW_MATCH = const(1)  # [1] start a new match (levels 2, first hand)
CMD_RESTORE = const(2)  # [2, snapshot...] replace the state by a snapshot
CMD_NEXT_HAND = const(3)  # [3] as OK after the hand's end

SNAPSHOT_VERSION = const(2)
MESSAGE_MS = const(3000)

# Which sound wins when several happen in one turn of the loop: an error
# always (it asks the players to look), then the end of a hand or trick.
# Indexed by events.SND_*: none, tap, ok, error, trick, hand.
_PRIORITY = (0, 1, 2, 5, 3, 4)

# cards per hand and kitty size by deck count (docs/rules.md §1)
HAND_SIZE = (0, 12, 25, 39, 52)
KITTY_SIZE = (0, 6, 8, 6, 8)

SEEN_PLAYED = const(1)


def _opt(name):
    # The optional parts, each loaded only when used: "tablescan" (hand_scan
    # mode), "tablereveal" (no_bid = "kitty", a hand without a bid),
    # "tableforfeit" (revoke = "forfeit", a revoke known), "tablefriend"
    # (partners = "called", at a table that plays it), "tablecall" (its call,
    # for the phase CALL only: dropped at the confirmation).
    return __import__(name)


# A completed trick, packed in one bytearray (a list of lists per trick took
# about 350 bytes of heap on the 64-bit port; this takes about 70): 0 leader,
# 1 winner, 2 forced (1: a failed throw's forced lead), 3-4 points (big-endian),
# 5-8 the number of cards each seat played, then the cards of seats 0..3.
def trick_pack(leader, winner, points, forced, plays):
    n = 9
    for p in plays:
        n += len(p)
    tr = bytearray(n)
    tr[0] = leader
    tr[1] = winner
    tr[2] = forced
    tr[3] = points >> 8
    tr[4] = points & 255
    at = 9
    for s in range(4):
        p = plays[s]
        tr[5 + s] = len(p)
        for c in p:
            tr[at] = c
            at += 1
    return tr


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


# What take_events() returns when there is nothing: shared, never appended to.
_NONE = []

class TableError(ValueError):
    """A command or snapshot the table cannot take; the state is left unchanged."""


class Table:
    def __init__(self, rules, decks=2, throw_penalty=0, chain_hash=None, hand_scan=False):
        if decks < 1 or decks > 4:
            raise TableError("decks must be 1..4, got %r" % (decks,))
        self.rules = rules
        self.decks = decks
        self.throw_penalty = throw_penalty
        self.chain_hash = chain_hash
        self.ncards = 54 * decks
        self.hand_size = HAND_SIZE[decks]
        self.kitty_size = KITTY_SIZE[decks]
        # link bookkeeping
        self.ev_index = 0  # index of the next event
        self.ev_hash = 0  # state hash after the last event
        self._out = []
        self._sound = E.SND_NONE
        self._save = False
        # per hand (preallocated, reused every hand)
        self.seen = bytearray(self.ncards)
        self.pending = [[], [], [], []]  # cards tapped, not yet committed, per seat
        self.hand_scan = bool(hand_scan)
        self.hands = [[], [], [], []]  # hand_scan mode: each seat's cards still held
        self.scan_done = 0  # hand_scan mode: bit per seat whose hand is scanned
        # partners = "called": levels per seat, the call and the partner (tablefriend.py)
        self.called = getattr(rules, "partners", 0) == 1
        if self.called:
            _opt("tablefriend").init(self)
        self.new_match()

    # --- match and hand set-up ----------------------------------------------
    def new_match(self):
        self.levels = [0, 0, 0, 0] if self.called else [0, 0]
        self.hand_no = 0
        self.first_hand = True
        self.dealer = -1
        self.match_winner = -1
        self.message = ""  # what the display shows on its last line
        self.message_until = 0
        self._start_hand()

    def _start_hand(self):
        self.phase = DEAL
        self.hand_no += 1
        self.trump = -1
        self.declarer = -1
        self.bids = []  # [seat, cards] in time order (for rules.declare)
        self.score = 0  # attackers' points
        self.kitty = []
        self.kitty_points = 0
        self.tricks = []  # completed, each packed (trick_pack)
        self.plays = [None, None, None, None]  # current trick, by seat
        self.lead = None
        self.leader = -1
        self.turn = -1
        self.throw_open = False
        self.forced = False
        self.challenger = -1
        self.played = 0  # cards each seat has played this hand
        self.last_winner = -1
        self.revoked = []  # [trick_no, seat] already reported
        self.result = None  # HAND_END fields once settled
        self.forfeit = None  # revoke = "forfeit": [trick, seat] of the revoke that lost the hand
        self.kitty_up = []  # no_bid = "kitty": the kitty as turned up, in order
        self.undo_seat = -1  # the seat whose last play a long press may take back (tableundo.py)
        for i in range(self.ncards):
            self.seen[i] = 0
        for p in self.pending:
            del p[:]
        for h in self.hands:
            del h[:]
        self.scan_done = 0
        if self.called:
            _opt("tablefriend").new_hand(self)
        # with partners = "called" the levels are per seat: seats 2 and 3 last
        self._emit(
            [
                E.HAND_START,
                self.hand_no,
                self.dealer,
                self.decks,
                self.levels[0],
                self.levels[1],
                1 if self.first_hand else 0,
            ]
            + self.levels[2:]
        )
        self._save = True  # a power cut during the draw keeps the bids from here on

    # --- outputs -------------------------------------------------------------
    def _emit(self, ev):
        if ev[0] != E.REJECT:
            self.undo_seat = -1  # anything but a refusal after a play: it stands
        if self.chain_hash is not None:
            self.ev_hash = self.chain_hash(self.ev_hash, ev)
        self._out.append((self.ev_index, self.ev_hash, ev))
        self.ev_index += 1

    def take_events(self):
        out = self._out
        if not out:
            return _NONE  # the idle loop's call (nearly every one) allocates nothing
        self._out = []
        return out

    def take_sound(self):
        """The sound to play now: the most urgent one since the last call."""
        s = self._sound
        self._sound = E.SND_NONE
        return s

    def _beep(self, s):
        if _PRIORITY[s] > _PRIORITY[self._sound]:
            self._sound = s

    def take_save(self):
        s = self._save
        self._save = False
        return s

    def _say(self, text, now_ms):
        self.message = text
        self.message_until = (now_ms + MESSAGE_MS) & 0x3FFFFFFF

    def _refuse(self, seat, reason, cards, now_ms):
        trick_no = len(self.tricks)
        ev = [E.REJECT, trick_no, seat, reason]
        for c in cards:
            ev.append(c)
        self._emit(ev)
        self._beep(E.SND_ERROR)
        self._say("S%d %s" % (seat, E.REASONS[reason]), now_ms)

    # --- derived facts -------------------------------------------------------
    def defenders(self):
        """The dealer's side (0 or 1); -1 before the first dealer is known."""
        return self.dealer & 1 if self.dealer >= 0 else -1

    def level(self):
        """The hand's level: the dealer side's level (side 0's on the first hand);
        with partners = "called" the dealer's own."""
        if self.dealer < 0:
            return self.levels[0]
        return self.levels[self.dealer] if self.called else self.levels[self.dealer & 1]


    def trick_no(self):
        return len(self.tricks)

    def tick(self, now_ms):
        # MicroPython's ticks_ms wraps at 2**30: compare as time.ticks_diff does
        if self.message and ((now_ms - self.message_until + 0x20000000) & 0x3FFFFFFF) >= 0x20000000:
            self.message = ""

    # --- inputs --------------------------------------------------------------
    def tap(self, seat, card, now_ms):
        if seat < 0 or seat > 3:
            return
        if card == UNKNOWN_TAG or card >= self.ncards:
            self._refuse(seat, E.UNKNOWN_CARD, (), now_ms)
            return
        if card < 0:
            self._refuse(seat, E.READER_FAULT, (), now_ms)
            return
        pend = self.pending[seat]
        if card in pend:
            return  # the same card lifted and put back: nothing new
        ph = self.phase
        if ph >= SCAN:  # SCAN, REVEAL, CALL: their own modules take the taps
            _opt(_PHASE_MOD[ph - SCAN]).tap(self, seat, card, now_ms)
            return
        if self.hand_scan and ph != DEAL and card not in self.hands[seat]:
            self._refuse(
                seat, E.NOT_HELD if ph == KITTY or ph == PLAY else E.WRONG_PHASE, (card,), now_ms
            )
            return
        if ph == DEAL:
            pend.append(card)  # a bid being shown
            self._beep(E.SND_TAP)
            return
        if ph == KITTY:
            if seat != self.dealer:
                self._refuse(seat, E.WRONG_PHASE, (card,), now_ms)
                return
            if self.seen[card]:
                self._refuse(seat, E.SEEN_TWICE, (card,), now_ms)
                return
            pend.append(card)
            self._beep(E.SND_TAP)
            if len(pend) == self.kitty_size:
                tabledeal.bury(self, now_ms)
            return
        if ph != PLAY:
            self._refuse(seat, E.WRONG_PHASE, (card,), now_ms)
            return
        if seat == self.challenger:
            if self.seen[card]:
                self._refuse(seat, E.SEEN_TWICE, (card,), now_ms)
                return
            pend.append(card)
            self._beep(E.SND_TAP)
            return
        if seat != self.turn:
            self._refuse(seat, E.OUT_OF_TURN, (card,), now_ms)
            return
        if self.seen[card]:
            self._refuse(seat, E.SEEN_TWICE, (card,), now_ms)
            return
        self.undo_seat = -1  # the next seat tapped: the last play stands
        pend.append(card)
        self._beep(E.SND_TAP)
        if self.lead is not None and len(pend) == len(self.lead):
            tabletrick.commit_follow(self, seat, now_ms)

    def button(self, seat, kind, now_ms):
        if seat < 0 or seat > 3:
            return
        pend = self.pending[seat]
        if self.phase == CALL:
            _opt("tablecall").button(self, seat, kind, now_ms)
            return
        if kind == E.BTN_UNDO:
            if not pend and self.phase == PLAY and seat != self.challenger:
                _opt("tableundo").undo(self, seat, now_ms)
                sys.modules.pop("tableundo", None)
                return
            del pend[:]
            if self.phase == SCAN:
                _opt("tablescan").undo(self, seat)
            if seat == self.challenger:
                self.challenger = -1
            return
        ph = self.phase
        if kind == E.BTN_CHALLENGE:
            if ph == PLAY and self.throw_open and seat != self.leader and self.challenger < 0:
                nxt = (self.leader + 1) & 3
                if self.plays[nxt] is None:
                    del self.pending[nxt][:]
                del pend[:]
                self.challenger = seat
                self.undo_seat = -1
                self._say("S%d challenges" % seat, now_ms)
            else:
                self._refuse(seat, E.WRONG_PHASE, (), now_ms)
            return
        if kind != E.BTN_OK:
            return
        if ph == DEAL:
            if pend:
                tabledeal.bid(self, seat, now_ms)
            else:
                tabledeal.end_draw(self, now_ms)
            return
        if ph == KITTY:
            if seat == self.dealer:
                tabledeal.bury(self, now_ms)
            return
        if ph == REVEAL:
            if seat == self.dealer:
                _opt("tablereveal").ok(self, now_ms)
            return
        if ph == HAND_END:
            self._next_hand()
            return
        if ph != PLAY:
            return
        if seat == self.challenger:
            tabletrick.challenge(self, seat, now_ms)
            return
        if seat != self.turn:
            return  # only the seat to play ends a play; other presses do nothing
        if not pend:
            self._refuse(seat, E.EMPTY, (), now_ms)
        elif self.lead is None:
            tabletrick.commit_lead(self, seat, now_ms)
        else:
            self._refuse(seat, E.COUNT, pend, now_ms)
            del pend[:]

    def command(self, cmd):
        """A link-level command: a list [CMD_*, ...]; raises TableError if refused."""
        if not cmd:
            raise TableError("empty command")
        c = cmd[0]
        if c == CMD_NEW_MATCH:
            self.new_match()
        elif c == CMD_RESTORE:
            self.restore(cmd[1:])
        elif c == CMD_NEXT_HAND:
            if self.phase != HAND_END:
                raise TableError("the hand is not over")
            self._next_hand()
        else:
            raise TableError("unknown command %r" % (c,))

    # --- the draw: bids and the end of the draw ------------------------------
    # --- tricks --------------------------------------------------------------
    def _next_hand(self):
        if self.phase != HAND_END:
            return
        self._start_hand()

    # --- snapshots (persistence, and the host's snapshot push): tablesnap.py --
    def snapshot(self, packed=False):
        """The state at a trick boundary as nested lists of ints (JSON-able);
        packed: the tricks as kept (bytearrays, trick_unpack each), for
        persist.Store.save, which unpacks them one at a time."""
        return tablesnap.snapshot(self, packed)

    def restore(self, snap):
        """Take a snapshot(); raises TableError (state unchanged) if it does not fit.
        tablerestore.py is loaded for this call only (a start from flash, a
        host's push), and dropped after it (unless it was imported before)."""
        had = "tablerestore" in sys.modules  # imported by someone else: kept
        if not had:
            gc.collect()  # room for its code (rare: worth a collection)
        try:
            __import__("tablerestore").restore(self, snap)
        finally:
            if not had:
                sys.modules.pop("tablerestore", None)
