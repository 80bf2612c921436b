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
#   work()         -> with split set (main.App): the next piece of what the
#                     last play left to do (the revokes it proves, the
#                     trick's end, the hand's end), True if one ran. Any
#                     other input, snapshot() and restore() finish it first:
#                     the events and the state are those of the play done at once
#   say(text, now_ms)  a message of the caller's own on the display's last line
#   the public attributes (tablebase.TableBase's), which display.py renders.
#
# The layers (tablebase.py says what each module holds): tablebase.py holds
# the constants and the packed tricks and declares the state (TableBase); the
# parts (tablestart, tabledeal, tabletrick, tablesnap, tablerestore, tablescan,
# tablereveal, tablecall, tablefriend, tableforfeit, tableundo) are functions
# over the state that import only tablebase, events and the rules engine; this
# module is the public surface (table.Table: the state, its outputs and its
# inputs; and the base's names as table.NAME) and the only one that loads the
# parts, each when its phase or option needs it: a part's answer says what
# comes next and the Table calls the next part.
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
import gc
import sys

import events as E
import tablebase as T
import tabletrick

from micropython import const

# The table core's parts that come and go (docs/firmware.md, "The firmware's
# parts"): the one list of what this module loads by name, each when its phase
# or option needs it (_opt), and drops when that is over (_done). tabletrick
# (imported above) stays; tablebase is the state they share.
PARTS = (
    "tablescan",  # _SCAN: hand_scan mode, the phase SCAN; dropped when every hand is scanned
    "tablereveal",  # _REVEAL: no_bid = "kitty", a hand nobody bid on (the phase REVEAL)
    "tablecall",  # _CALL: partners = "called", the phase CALL; drops itself at the confirmation
    "tabledeal",  # _DEAL: the draw and the burial; loaded with this module, dropped when the play starts
    "tablefriend",  # _FRIEND: partners = "called"; loaded with the Table and kept (Table.friend)
    "tableforfeit",  # _FORFEIT: revoke = "forfeit", a revoke known or a hand's end; dropped after it
    "tableundo",  # _UNDO: a long press's take-back; dropped after it
    "tablerestore",  # _RESTORE: a start from flash, a host's push; dropped after it
    "tablehandend",  # _HANDEND: a hand's end (the audit, the settlement); dropped when it is settled
    "tablestart",  # _START: a new match, a hand's start; dropped after it
    "tablesnap",  # _SNAP: a snapshot (a save's begin, the host's request); kept from a save's to the hand's end
)
_SCAN = const(0)  # the first three in the order of the phases SCAN, REVEAL, CALL
_REVEAL = const(1)
_CALL = const(2)
_DEAL = const(3)
_FRIEND = const(4)
_FORFEIT = const(5)
_UNDO = const(6)
_RESTORE = const(7)
_HANDEND = const(8)
_START = const(9)
_SNAP = const(10)


def __getattr__(name):
    # the base's names are the table's too (table.PLAY, table.TableError, ...):
    # one public surface without a second copy of each name in this module
    return getattr(T, name)


def _opt(part):
    # The part PARTS[part], loaded if it is not.
    return __import__(PARTS[part])


def _done(part):
    # A part whose phase is over leaves the heap if it was loaded from a .mpy
    # file (the Pico, the virtual table): loading it again costs its code only.
    # One compiled from source (the table tests under MicroPython) is kept:
    # compiling it again would take more heap than it frees.
    name = PARTS[part]
    m = sys.modules.get(name)
    if m is not None and not getattr(m, "__file__", ".py").endswith(".py"):
        del sys.modules[name]


def intern_parts(tb):
    # The parts every match of tb's options loads later, loaded once and
    # dropped (from .mpy files; mainstart._names, at the start): their names
    # are interned while the heap is in few pieces (docs/firmware.md, "Names
    # interned at the start")
    r = tb.rules
    for part, used in ((_SCAN, tb.hand_scan), (_REVEAL, r.no_bid), (_CALL, tb.friend), (_FORFEIT, r.revoke)):
        if used and PARTS[part] not in sys.modules:
            _opt(part)
            _done(part)


_opt(_DEAL)  # loaded with the table (its names interned at the start), not kept by it
# the hand's end: its names interned at the start too (at a hand's end its
# load then takes only its code, no new qstr pool in a heap a hand has used)
_opt(_HANDEND)
_done(_HANDEND)
_opt(_START)  # the same for a hand's start (the Table's first is at once)
_done(_START)
_opt(_SNAP)  # and for a snapshot (each save's begin)
_done(_SNAP)

# Which sound wins when several happen in one turn of the loop: an error
# always (it asks the players to look), then the end of a hand or trick.
# Indexed by events.SND_*: none, tap, ok, error, trick, hand.
_PRIORITY = (0, 1, 2, 5, 3, 4)

# What take_events() returns when there is nothing: shared, never appended to.
_NONE = []


class Table(T.TableBase):
    def __init__(self, rules, decks=2, throw_penalty=0, chain_hash=None, hand_scan=False):
        # the state's set-up is tablestart's (loaded for it, as for new_match)
        _opt(_START).init(self, rules, decks, throw_penalty, chain_hash, hand_scan)
        self._out = []  # events not taken yet (take_events)
        self._sound = E.SND_NONE  # the sound due (take_sound)
        # partners = "called": levels per seat, the call and the partner (tablefriend.py)
        self.friend = None  # partners = "called": find-a-friend's functions (tablefriend.py)
        if getattr(rules, "partners", 0) == 1:
            self.friend = _opt(_FRIEND)
            self.friend.init(self)
        self.new_match()

    # --- match and hand set-up (tablestart.py's: loaded for it) ---------------
    def new_match(self):
        _opt(_START).new_match(self)
        _done(_START)

    def start_hand(self):
        _opt(_START).start_hand(self)
        _done(_START)

    # --- outputs -------------------------------------------------------------
    def emit(self, ev):
        """A game event for the link (take_events), chained into the state hash."""
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

    def beep(self, s):
        """Sound s (events.SND_*) unless a more urgent one is due."""
        if _PRIORITY[s] > _PRIORITY[self._sound]:
            self._sound = s

    def take_save(self):
        s = self.save_due
        self.save_due = False
        return s

    def say(self, text, now_ms):
        """Show text on the display's last line for MESSAGE_MS."""
        self.message = text
        self.message_until = (now_ms + T.MESSAGE_MS) & 0x3FFFFFFF

    def refuse(self, seat, reason, cards, now_ms):
        """REJECT [trick_no, seat, reason, cards...], the error sound, and the reason shown."""
        trick_no = len(self.tricks)
        ev = [E.REJECT, trick_no, seat, reason]
        for c in cards:
            ev.append(c)
        self.emit(ev)
        self.beep(E.SND_ERROR)
        self.say("S%d %s" % (seat, E.REASONS[reason]), now_ms)

    # --- derived facts -------------------------------------------------------
    def defenders(self):
        """The dealer's side (0 or 1); -1 before the first dealer is known."""
        return self.dealer & 1 if self.dealer >= 0 else -1

    def level(self):
        """The hand's level: the dealer side's level (side 0's on the first hand);
        with partners = "called" the dealer's own."""
        if self.dealer < 0:
            return self.levels[0]
        return self.levels[self.dealer] if self.friend else self.levels[self.dealer & 1]

    def tick(self, now_ms):
        # MicroPython's ticks_ms wraps at 2**30: compare as time.ticks_diff does
        if self.message and ((now_ms - self.message_until + 0x20000000) & 0x3FFFFFFF) >= 0x20000000:
            self.message = ""

    # --- what a play leaves to do (issue 22) ----------------------------------
    def work(self):
        d = self.due
        if not d:
            return False
        now = self.due_ms
        if d < 5:
            self.due = 5
            s = d - 1
            tabletrick.check_revokes(self, s, self.plays[s], now)
        elif d == 5:
            self.due = 0
            if self.turn < 0:
                tabletrick.end_trick(self, now)  # the trick's last card
            # the hand's last card, or a revoke that loses it
            if self.phase == T.PLAY and (self.forfeit or self.played >= self.hand_size):
                self.turn = -1  # nobody plays now (the display)
                self.due = 6
                _done(_SNAP)  # the saves' snapshot code leaves for the hand's end
        else:
            # the hand's end, a piece a call (tablehandend.end_hand: 6 begins,
            # 7 audits a trick, 8 settles); its code only until it is settled
            f = None
            if d == 8 and (self.forfeit or self.rules.revoke == 1):
                f = _opt(_FORFEIT)  # given to end_hand (revoke = "forfeit")
            self.due = _opt(_HANDEND).end_hand(self, now, d, f)
            if f is not None:
                _done(_FORFEIT)
            if not self.due:
                _done(_HANDEND)
        return True

    def finish(self):
        while self.work():
            pass

    def _played(self, seat, check, now_ms):
        # after a play counted (tabletrick.commit_*): check its revokes
        self.due = seat + 1 if check else 5
        self.due_ms = now_ms
        if not self.split:
            self.finish()

    # --- inputs --------------------------------------------------------------
    def tap(self, seat, card, now_ms):
        self.finish()
        if seat < 0 or seat > 3:
            return
        if card == T.UNKNOWN_TAG or card >= self.ncards:
            self.refuse(seat, E.UNKNOWN_CARD, (), now_ms)
            return
        if card < 0:
            self.refuse(seat, E.READER_FAULT, (), now_ms)
            return
        pend = self.pending[seat]
        if card in pend:
            return  # the same card lifted and put back: nothing new
        ph = self.phase
        if ph >= T.SCAN:  # SCAN, REVEAL, CALL: their own modules take the taps
            if _opt(ph - T.SCAN).tap(self, seat, card, now_ms):
                self.button(seat, E.BTN_OK, now_ms)  # the kitty's last card: as the dealer's OK
            elif ph == T.SCAN and self.phase != T.SCAN:
                _done(_SCAN)  # every hand scanned
            return
        if self.hand_scan and ph != T.DEAL and card not in self.hands[seat]:
            self.refuse(
                seat, E.NOT_HELD if ph == T.KITTY or ph == T.PLAY else E.WRONG_PHASE, (card,), now_ms
            )
            return
        if ph == T.DEAL:
            pend.append(card)  # a bid being shown
            self.beep(E.SND_TAP)
            return
        if ph == T.KITTY:
            if seat != self.dealer:
                self.refuse(seat, E.WRONG_PHASE, (card,), now_ms)
                return
            if self.seen[card]:
                self.refuse(seat, E.SEEN_TWICE, (card,), now_ms)
                return
            pend.append(card)
            self.beep(E.SND_TAP)
            if len(pend) == self.kitty_size:
                self.button(seat, E.BTN_OK, now_ms)  # the last card buried: as the dealer's OK
            return
        if ph != T.PLAY:
            self.refuse(seat, E.WRONG_PHASE, (card,), now_ms)
            return
        if seat == self.challenger:
            if self.seen[card]:
                self.refuse(seat, E.SEEN_TWICE, (card,), now_ms)
                return
            pend.append(card)
            self.beep(E.SND_TAP)
            return
        if seat != self.turn:
            self.refuse(seat, E.OUT_OF_TURN, (card,), now_ms)
            return
        if self.seen[card]:
            self.refuse(seat, E.SEEN_TWICE, (card,), now_ms)
            return
        self.undo_seat = -1  # the next seat tapped: the last play stands
        pend.append(card)
        self.beep(E.SND_TAP)
        if self.lead is not None and len(pend) == len(self.lead):
            self._played(seat, tabletrick.commit_follow(self, seat, now_ms), now_ms)

    def button(self, seat, kind, now_ms):
        self.finish()
        if seat < 0 or seat > 3:
            return
        pend = self.pending[seat]
        if self.phase == T.CALL:
            _opt(_CALL).button(self, seat, kind, now_ms)
            return
        if kind == E.BTN_UNDO:
            if not pend and self.phase == T.PLAY and seat != self.challenger:
                _opt(_UNDO).undo(self, seat, now_ms)
                sys.modules.pop(PARTS[_UNDO], None)
                return
            del pend[:]
            if self.phase == T.SCAN:
                _opt(_SCAN).undo(self, seat)
            if seat == self.challenger:
                self.challenger = -1
            return
        ph = self.phase
        if kind == E.BTN_CHALLENGE:
            if ph == T.PLAY and self.throw_open and seat != self.leader and self.challenger < 0:
                nxt = (self.leader + 1) & 3
                if self.plays[nxt] is None:
                    del self.pending[nxt][:]
                del pend[:]
                self.challenger = seat
                self.undo_seat = -1
                self.say("S%d challenges" % seat, now_ms)
            else:
                self.refuse(seat, E.WRONG_PHASE, (), now_ms)
            return
        if kind != E.BTN_OK:
            return
        if ph == T.DEAL or ph == T.REVEAL or ph == T.KITTY:
            self._draw(seat, ph, pend, now_ms)
            return
        if ph == T.HAND_END:
            if self.time_called:
                self.say("time up: no deal", now_ms)
            else:
                self.start_hand()
            return
        if ph != T.PLAY:
            return
        if seat == self.challenger:
            tabletrick.challenge(self, seat, now_ms)
            return
        if seat != self.turn:
            return  # only the seat to play ends a play; other presses do nothing
        if not pend:
            self.refuse(seat, E.EMPTY, (), now_ms)
        elif self.lead is None:
            self._played(seat, tabletrick.commit_lead(self, seat, now_ms), now_ms)
        else:
            self.refuse(seat, E.COUNT, pend, now_ms)
            del pend[:]

    def command(self, cmd):
        """A link-level command: a list [CMD_*, ...]; raises TableError if refused.
        (tablestart's: a host's command is rare, its code is not kept.)"""
        try:
            _opt(_START).command(self, cmd)
        finally:
            _done(_START)

    # --- hand-overs between the parts ----------------------------------------
    def _draw(self, seat, ph, pend, now_ms):
        # OK in the phases DEAL (a bid, or the end of the draw), REVEAL (the
        # kitty is up: no_bid = "kitty", tablereveal.py) and KITTY (the burial)
        if ph == T.KITTY:
            if seat == self.dealer:
                _opt(_DEAL).bury(self, now_ms)
                if self.phase != T.KITTY:
                    _done(_DEAL)  # the draw and the burial are over (PLAY, or CALL: tablecall.py)
            return
        kitty = None
        if ph == T.DEAL:
            if pend:
                _opt(_DEAL).bid(self, seat, now_ms)
                return
        elif seat != self.dealer or not _opt(_REVEAL).ok(self, now_ms):
            return
        else:
            kitty = self.kitty_up
        ph = _opt(_DEAL).end_draw(self, now_ms, kitty)
        if ph == T.REVEAL:
            _opt(_REVEAL).start(self, now_ms)  # nobody bid: the kitty names trump
        elif ph == T.DEAL:
            self.start_hand()  # nobody bid on the match's first hand: dealt again

    # --- snapshots (persistence, and the host's snapshot push) ---------------
    def snapshot(self, packed=False):
        """The state at a trick boundary as nested lists of ints (JSON-able);
        packed: the tricks as kept (T.Tricks), for persist.Store.save,
        which writes them packed one at a time."""
        # a save's (packed) keeps tablesnap loaded until the hand's end begins
        # (work(), due 6): its import is a lookup in littlefs and a .mpy load,
        # 25-200 ms of board time in one piece (C on the chip), which a save a
        # trick put in a poll cycle each (issue 22); the hand's end, the
        # heap's peak with 3-4 decks (issue 21), runs without it
        self.finish()
        had = packed or PARTS[_SNAP] in sys.modules
        snap = _opt(_SNAP).snapshot(self, packed)
        if not had:
            _done(_SNAP)  # the host's request (rare), not kept for it
        return snap

    def restore(self, snap):
        """Take a snapshot(); raises TableError (state unchanged) if it does not fit.
        tablerestore.py is loaded for this call only (a start from flash, a
        host's push), and dropped after it (unless it was imported before)."""
        self.finish()
        had = PARTS[_RESTORE] in sys.modules  # imported by someone else: kept
        if not had:
            gc.collect()  # room for its code (rare: worth a collection)
        try:
            _opt(_RESTORE).restore(self, snap)
        finally:
            if not had:
                sys.modules.pop(PARTS[_RESTORE], None)
