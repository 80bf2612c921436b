# Device rules engine: the Pico's own implementation of docs/rules.md (§1-§10).
#
# Written for an RP2040 under MicroPython, separately from the host engine
# `shengji` (two independent engines that must agree is the point: see
# tractor_table/difffuzz.py). Cards are small ints, hands are count arrays,
# nothing is allocated per card or per play.
#
# Cards (docs/rules.md §1): face = suit*13 + rank (S=0 H=1 D=2 C=3; rank 2=0 ..
# A=12), SJ = 52, BJ = 53; card id = copy*54 + face. Every function that takes
# "cards" takes any sequence of card ids (bytes, bytearray, list); copies of
# one face are interchangeable, so the engine works on face counts.
#
# API (for the table core, firmware/table.py):
#
#   e = Engine(decks=2, permanent_twos=False, same_shape_only=False,
#              kitty_multiplier=KM_STRUCTURE, kitty_requires_trump=False,
#              throw_penalty=0)
#   e.set_trump(level, trump)      level: rank 0 (=2) .. 12 (=A); trump: 0-3 or NT
#   e.suit_of(card)                effective suit: 0-3, or TRUMP (4)
#   e.compare(a, b)                1 / 0 / -1, or CMP_NONE (different side suits)
#   e.lead_suit(cards)             effective suit of a play, or MIXED
#   e.decompose(cards)             number of units; e.units holds (m, k, top)
#                                  triples, most demanding first (docs/rules.md §4)
#   e.check_lead(cards, hands, leader, forced)
#                                  reason code (OK, R_EMPTY, R_NOT_IN_HAND,
#                                  R_MIXED_SUIT, R_THROW_FAILED);
#                                  hands: 4 face-count arrays (or None: no check);
#                                  on R_THROW_FAILED the forced cards (ids from
#                                  `cards`) are written to `forced` (a bytearray)
#                                  and e.nforced is their number (docs/rules.md §5)
#   e.check_follow(lead, hand, play)
#                                  reason code, OK if legal (docs/rules.md §6); hand is
#                                  the follower's face-count array, holding play
#   e.trick_winner(plays)          index of the winning play (docs/rules.md §7); plays
#                                  in play order, the lead first
#   e.points(cards)                point total of the cards
#   e.kitty_multiplier(lead)       multiplier of the last trick's lead (§8)
#   e.kitty_bonus(lead, winner_play, kitty)
#   hand_add(hand, card) / hand_remove(hand, card) / hand_clear(hand)
#                                  maintain a face-count array (bytearray(54))
#
# Settlement (settle, settle_seats for find-a-friend), bids (Bidding,
# end_of_draw) and the called partner (friend_partner) are not hot paths: they
# are in drules_hand.py, documented at its top. The Engine class is assembled from parts, each its own module so that
# MicroPython compiles it in a small heap: drules_play.py (decomposition,
# leads, follows), drules_match.py (the t-search, matching, tricks, kitty),
# drules_ladder.py (3-4 deck ladders, same_shape_only), drules_place.py (the
# ladders' placement oracle), drules_sweep.py (its sweep), drules_memo.py
# (its failed states, its greedy first try).
#
# Reason codes are small ints, in the order of the full engine's Reason enum
# (the host-side runner maps them to its names). Everything here is integer
# arithmetic on preallocated bytearrays; the hot paths (check_follow,
# check_lead, trick_winner) allocate nothing.

# (heap_lock, heap_unlock: the rp2 port's; the type checker finds Adafruit
# Blinka's micropython, which has neither)
from micropython import const, heap_lock, heap_unlock  # pyright: ignore[reportAttributeAccessIssue]

from drules_match import Matching
from drules_play import Plays

# The engine's parts, the modules Engine is assembled from (drules_base
# under each of them), are listed in tablerules.PARTS, which loads this
# module and drops it with them (the table's, not the engine's: their names
# out of the engine's flash, issue 21).

try:
    from typing import Any, Sequence  # noqa: F401
except ImportError:
    pass

# Suits and the trump pseudo-suit.
_S_SPADES = const(0)
_S_HEARTS = const(1)
_S_DIAMONDS = const(2)
_S_CLUBS = const(3)
TRUMP = const(4)  # effective suit of trump cards
NT = const(4)  # trump option: no trump suit
MIXED = const(5)  # lead_suit() of cards spanning several effective suits

SMALL_JOKER = const(52)
BIG_JOKER = const(53)
FACES = const(54)

CMP_NONE = const(2)  # compare(): different non-trump suits

# Kitty multiplier policies (docs/rules.md §8).
KM_STRUCTURE = const(0)
KM_LINEAR = const(1)
KM_CARDS = const(2)

# Reason codes (0 = legal), in the order of the full engine's Reason enum;
# the host-side runner maps them to its names (empty, not_in_hand, ...).
OK = const(0)
R_EMPTY = const(1)  # an empty play
R_NOT_IN_HAND = const(2)  # a card the seat does not hold
R_MIXED_SUIT = const(3)  # a lead spanning several effective suits
R_WRONG_COUNT = const(4)  # a follow of another number of cards than the lead
R_FOLLOW_SUIT = const(5)  # fewer cards of the led suit than held
R_PAIRS = const(6)  # pairs held (and led) were not played
R_TRACTOR = const(7)  # a tractor held (and led) was not played
R_TRIPLES = const(8)  # 3-4 decks: a triple held (and led) was not played
R_TITANIC = const(9)  # 3-4 decks: a Titanic held (and led) was not played
R_SAME_SHAPE = const(10)  # same_shape_only / quads: the led shape was held
R_THROW_FAILED = const(11)  # a throw that another seat can beat

# Sizes of the scratch buffers.
_NPOS = const(18)  # positions per effective suit (at most 17 used, and one past the last)
_MAXU = const(64)  # units of one play
_MAXB = const(16)  # tractors of one lead (bins of the t-search)
_VW = const(24)  # non-single units of a lead in the ladder vector

# Points per rank (5, T, K).
_PTS = b"\x00\x00\x00\x05\x00\x00\x00\x00\x0a\x00\x00\x0a\x00"


def hand_clear(hand):
    # type: (bytearray) -> None
    for i in range(FACES):
        hand[i] = 0


def hand_add(hand, card):
    # type: (bytearray, int) -> None
    hand[card % FACES] += 1


def hand_remove(hand, card):
    # type: (bytearray, int) -> None
    hand[card % FACES] -= 1


def hand_from(cards, hand=None):
    # type: (Sequence[int], bytearray | None) -> bytearray
    """A face-count array holding the cards (allocates when hand is None)."""
    if hand is None:
        hand = bytearray(FACES)
    else:
        hand_clear(hand)
    for c in cards:
        hand[c % FACES] += 1
    return hand


def _put(part):
    # A part's methods put on Engine itself (looked up first, before any base:
    # the parts' methods are the ones the slowest checks call most); kept if
    # there (a benchmark's wrapper). The module stays loaded for as long as
    # Engine holds its functions (dropped with drules: tablerules.unload).
    # The class's own names (its __dict__: MicroPython's dir() tries every
    # interned name, about 120 us a class on the unix port, 20-40 ms on the chip)
    # (and the stubs Engine._feasible and _tpoly, which the search's own replace)
    for name in part.__dict__:
        if name[:2] != "__" and (name == "_feasible" or name == "_tpoly" or not hasattr(Engine, name)):
            setattr(Engine, name, getattr(part, name))


def _parts(ladders):
    """The placement oracle's methods on Engine (its placement and its greedy
    tries; the search comes at its first question: Engine._feasible), and with
    ladders (3-4 decks, same_shape_only: the only rules that reach
    _structure's ladder, a led triple or a same shape) the ladders'
    (docs/firmware.md, "Heap")."""
    from drules_memo import Memo
    from drules_place import Placer

    if ladders:
        from drules_ladder import Ladders

        _put(Ladders)
    _put(Placer)
    _put(Memo)


def _load(e, search):
    # A part at its first question, the heap unlocked for it: the oracle's
    # placement (search False: drules_place, drules_memo, e's buffers for
    # them) or its search (drules_sweep on Engine, e's buffers for it: the
    # stubs Engine._feasible and Engine._tpoly). The table asks its checks
    # with the heap locked (tablerules.ask: their frames on the C stack, not
    # taken from the GC heap; docs/firmware.md, "The checks with the heap
    # locked"). heap_unlock() gives the lock's depth left: 0 when the
    # table's was the one lock (unlocked for the load, locked again after);
    # any other figure (not locked: the tests, the host; locked twice) and
    # the lock is put back as it was at once (an unlock of an unlocked heap
    # wraps its count, which the lock brings back), the load as asked: a
    # MemoryError under a second lock is the table's to retry.
    n = heap_unlock()
    if n:
        heap_lock()
    try:
        if search:
            from drules_sweep import Sweep

            _put(Sweep)
            e._sweep_init()
        else:
            _parts(False)
            e._place_init()
    finally:
        if not n:
            heap_lock()


def _init():
    # the engine's set-up and its order tables (drules_init: once a hand)
    import drules_init

    return drules_init


# The parts in the order a method is looked up in (each part passed costs a
# map probe or two a call): the plays' first (every check calls them; bot
# play's checks are short), then the t-search's and the tricks'; the
# oracle's and the ladders' on the class itself when they come (_parts).
class Engine(Plays, Matching):
    """The rules of one table: options, then per hand the level and trump."""

    def __init__(self, *a, **k):
        # type: (Any, Any) -> None
        # the engine's set-up (its buffers, the first order) is drules_init's,
        # loaded for it: tablerules drops it once the hand's engine is made
        # (its parameters and their defaults there)
        _init().init(self, _parts, *a, **k)

    def _feasible(self, fa, fb):
        # type: (int, int) -> bool
        """The oracle's search, at its first question: its code
        (drules_sweep: _feasible's bounds and the sweep, 14.6 KB of armv6m
        viper code; its own _feasible goes on the class in place of this
        one) and its buffers; dropped with the engine at the hand's end
        (tablerules), as the rest of the oracle. The ladders and the
        oracle's placement ask it only for a placement that their greedy
        tries and _tail do not settle: none of the 37,724 checks of the
        difffuzz corpus (150 hands, seed 1000, 1-4 decks, every variant);
        near-miss follows do (the adversarial corpora)."""
        _load(self, True)
        return self._feasible(fa, fb)

    def _tpoly(self, cnt, s, cap, lo):
        # type: (bytearray, int, int, int) -> int
        """t on the oracle (drules_sweep's: its questions go to the search
        at once, _pfit's _feasible), at its first call: the search loaded,
        as the stub _feasible does; dropped with the engine."""
        _load(self, True)
        return self._tpoly(cnt, s, cap, lo)

    def _oracle(self):
        # type: () -> None
        """The placement oracle's code (drules_place, drules_memo; its
        search, drules_sweep, at the first question that reaches it:
        _feasible) and buffers, at the first question to it of an engine
        without ladders: a follow or a trick that the direct searches do not
        settle (drules_match: _t, _match_key). Loaded once; dropped with the
        engine at the hand's end (tablerules)."""
        _load(self, False)

    # ----------------------------------------------------------------- order

    def set_trump(self, level, trump):
        # type: (int, int) -> None
        """Build the order tables for a hand at `level` (rank 0-12) and `trump` (0-3 or NT)."""
        _init().set_trump(self, level, trump)

    def suit_of(self, card):
        # type: (int) -> int
        return self.eff[card % FACES]

    def is_trump(self, card):
        # type: (int) -> bool
        return self.eff[card % FACES] == TRUMP

    def compare(self, a, b):
        # type: (int, int) -> int
        fa = a % FACES
        fb = b % FACES
        ea = self.eff[fa]
        eb = self.eff[fb]
        if ea != eb:
            if ea == TRUMP:
                return 1
            if eb == TRUMP:
                return -1
            return CMP_NONE
        pa = self.pos[fa]
        pb = self.pos[fb]
        return 1 if pa > pb else (-1 if pa < pb else 0)

    def lead_suit(self, cards):
        # type: (Sequence[int]) -> int
        # (an index loop: a for loop's iterator takes 4 slots of the frame,
        # and a bytecode frame over 11 words is taken from the GC heap on
        # every call, a gc_alloc whose scan grows with the heap's holes;
        # issue 21, docs/firmware.md "2026-12-06 (night)")
        eff = self.eff
        n = len(cards)
        if n == 0:
            return MIXED
        s = eff[cards[0] % FACES]
        i = 1
        while i < n:
            if eff[cards[i] % FACES] != s:
                return MIXED
            i += 1
        return s

    def points(self, cards):
        # type: (Sequence[int]) -> int
        t = 0
        for c in cards:
            f = c % FACES
            if f < SMALL_JOKER:
                t += _PTS[f % 13]
        return t
