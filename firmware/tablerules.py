# The device rules engine (drules.py, drules_hand.py) behind the narrow
# interface that the table core asks (see the top of table.py).
#
# The table speaks in card lists by seat; the engine wants face-count arrays
# and plays in play order. This adapter converts, keeping its own scratch
# buffers so that a check allocates little. It holds no rule of its own:
# every verdict is the engine's.
#
# The engine (drules.py and its parts, about 28 KB of code and 8 KB of
# buffers on the unix port) is loaded at the first question that needs it
# (the end of the draw, the burial's points, the first play), not at start:
# a start from flash restores the snapshot before any of it is in the heap,
# and enroll mode, which plays no card, drops it (unload()). Bids and
# settlement are drules_hand.py's. The two are never needed together, so
# each leaves the heap when the other comes (docs/firmware.md, "Heap", "The
# rules engine by turns, and its parts as they are asked"): drules_hand at the end of the
# draw (begin_hand), the engine at the hand's settlement (hand_rules), each
# loaded again by the next question that needs it.
import sys

# (heap_lock, heap_unlock: the rp2 port's; the type checker finds Adafruit
# Blinka's micropython, which has neither)
from micropython import const, heap_lock, heap_unlock  # pyright: ignore[reportAttributeAccessIssue]

try:
    from typing import Any  # noqa: F401
except ImportError:
    pass

# The rules engine's parts (docs/firmware.md, "The firmware's parts"): the
# modules drules.Engine is assembled from (drules_base under each of them).
# The table loads drules when it first needs the engine and drops it with
# these when the engine goes (unload: the hand's end, enroll mode); kept
# here, not in drules, so that their names are not in the engine's flash.
# The ladders (drules_ladder) and the placement oracle (drules_place,
# drules_memo) come only with the rules or the check that asks them (_parts,
# Engine._oracle): with 1-2 decks and no same_shape_only nothing asks the
# ladders, and the oracle only a follow or a trick that the short direct
# searches do not settle (none in 15,031 checks of bot play). The oracle's
# search (drules_sweep) comes only at a question that the placement's greedy
# tries do not settle (the stub Engine._feasible): none in bot play, with
# any number of decks.
PARTS = (
    "drules_play", "drules_match", "drules_ladder", "drules_place", "drules_sweep", "drules_memo", "drules_base",
    "drules_init",
)


class TableRules:
    # the rules digest (tableconfig.Options.digest; main.configured_app sets it):
    # in the snapshot, so that a state saved under other rules is not resumed
    digest = ""

    # what rulesinit.table_init sets, declared for the type checker only
    # (bare annotations: MicroPython keeps nothing of them)
    decks: int
    _opts: "tuple"
    throw_penalty: int
    engine: "Any"
    _trump: "tuple"
    level_table: int
    level_ladder: int
    must_play: int
    allow_self_override: bool
    no_bid: int
    first_dealer: int
    revoke: int
    partners: int
    _hands: "list"
    _forced: bytearray
    _order: "list"
    _settled: "list"
    refused_self: bool

    def __init__(self, *a, **k):
        # the set-up is rulesinit.table_init's (its parameters and their
        # defaults there, drules_hand's constants), loaded for it and dropped
        # after with drules_hand unless the draw had it already: once at the
        # start, not held through the match
        had = "drules_hand" in sys.modules
        import rulesinit

        rulesinit.table_init(self, *a, **k)
        _drop("rulesinit", True)
        if not had:
            _drop("drules_hand", True)

    def e(self):
        """The engine, loaded (and set to the hand's trump) if it is not."""
        e = self.engine
        if e is None:
            import drules as D

            e = self.engine = D.Engine(*self._opts)
            e.set_trump(self._trump[0], self._trump[1])
            _drop("drules_init", True)  # the engine's set-up: once a hand
        return e

    def unload(self, mpy_only=False):
        """Drop the engine and its modules from the heap (enroll mode: no card
        is played; the hand's end: mpy_only); the next question loads them
        again (e()). mpy_only: modules compiled from source stay (the table
        tests under MicroPython: compiling them again would take more heap
        than it frees), as table._done keeps the table's parts."""
        self.engine = None
        D = _drop("drules", mpy_only)
        if D is not None:
            for name in PARTS:  # the modules the engine is assembled from
                _drop(name, mpy_only)

    def hand_rules(self):
        """drules_hand for the hand's settlement and the next draw's bids: the
        engine's work for the hand is done (the last trick, the kitty, the
        audit), so it leaves the heap first."""
        self.unload(True)
        import drules_hand

        return drules_hand

    def begin_hand(self, level, trump, load=False):
        # The hand's trump. At the end of the draw (load: tabledeal.end_draw,
        # the seat's OK that ends it) the bids are over: drules_hand leaves
        # the heap and the engine is loaded for the burial and the play, so
        # that no card's tap loads it. A restore (tablerestore) loads nothing:
        # the engine comes after it (mainstart.build).
        self._trump = (level, trump)
        if load:
            _drop("drules_hand", True)
            self.e()
        elif self.engine is not None:
            self.engine.set_trump(level, trump)
            _drop("drules_init", True)

    def suit_of(self, card):
        return self.e().suit_of(card)

    # The checks on a player's input (a lead's decomposition, a throw, a
    # follow, a trick): asked with the heap locked (ask, below)

    def is_throw(self, cards):
        return ask(self.e(), DECOMPOSE, cards) > 1

    def throw(self, leader, lead, hands):
        e = self.e()
        hs = self._hands
        for s in range(4):
            _count(hands[s], hs[s])
        r = ask(e, LEAD, lead, hs, leader, self._forced)
        if r != 11:  # drules.R_THROW_FAILED
            return None
        return list(self._forced[: e.nforced])

    def check_follow(self, lead, hand, play):
        e = self.e()
        h = self._hands[0]
        _count(hand, h)
        return ask(e, FOLLOW, lead, h, play)

    def trick(self, leader, plays):
        e = self.e()
        order = self._order
        pts = 0
        for i in range(4):
            p = plays[(leader + i) & 3]
            order[i] = p
            pts += e.points(p)
        w = ask(e, TRICK, order)
        for i in range(4):
            order[i] = ()
        return (leader + w) & 3, pts

    def points(self, cards):
        return self.e().points(cards)

    def kitty(self, lead, winner_play, kitty):
        e = self.e()
        return e.kitty_multiplier(lead), e.kitty_bonus(lead, winner_play, kitty)

    def settle(self, score, dealer, levels, won_by=None):
        # (drules_hand.table_settle's, loaded for it: once a hand, not held
        # through the play) won_by: the attackers' play that won the last
        # trick, or None (the tournament rule's "kitty won by a J")
        return self.hand_rules().table_settle(self, score, dealer, levels, won_by)

    def declare(self, first_hand, dealer, level, bids, kitty=None):
        # (drules_hand.table_declare's: the draw's, where the engine is not
        # loaded) kitty: the kitty turned up, in order (no_bid = "kitty")
        return self.hand_rules().table_declare(self, first_hand, dealer, level, bids, kitty)

# The engine's checks, as the table asks them (docs/firmware.md, "The checks
# with the heap locked"): the heap locked, so that every bytecode frame of the
# check over 11 words is made on the C stack (MicroPython's fun_bc_call:
# alloca when the heap gives none), not taken from the GC heap and given back
# on every call; a check's time then does not depend on the heap's holes
# (the chip's heap is kept near full). The engine allocates nothing in a
# check but where it loads a part at its first question (drules._load,
# which unlocks the heap for it). Anything else that allocates under the
# lock raises MemoryError: the heap is unlocked, the engine's scratch put
# back (_scrub) and the check asked again unlocked (the same answer, the
# slower way), counted in `retries` (the tests and the bench read it). So
# is a check whose frames, on the C stack, would take more of it than the
# chip has (RuntimeError: maximum recursion depth exceeded): unlocked, its
# frames' state is in the heap and it takes less (docs/firmware.md, "The
# checks with the heap locked": the worst check of the corpora fits the
# model's stack locked, by a few hundred bytes).
FOLLOW = const(0)  # e.check_follow(lead, hand, play)
LEAD = const(1)  # e.check_lead(cards, hands, leader, forced)
TRICK = const(2)  # e.trick_winner(plays)
DECOMPOSE = const(3)  # e.decompose(cards)

#: checks asked again unlocked since the start (a MemoryError or a
#: RuntimeError under the lock)
retries = 0


def ask(e, what, a, b=None, c=0, d=None):
    """The engine e's check `what` (FOLLOW, LEAD, TRICK, DECOMPOSE) of the
    arguments a, b, c, d (the engine method's, in its order), the heap
    locked; its answer. The heap is never left locked (finally), nor locked
    twice: the table's is the one lock (a check from a hard interrupt's
    handler, locked already, would not be asked here)."""
    global retries
    lock = True
    while True:
        if lock:
            heap_lock()
        try:
            if what == FOLLOW:
                return e.check_follow(a, b, c)
            if what == LEAD:
                return e.check_lead(a, b, c, d)
            if what == TRICK:
                return e.trick_winner(a)
            return e.decompose(a)
        except MemoryError:
            if not lock:
                raise  # the heap is full: the main loop's error path, as before
        except RuntimeError:
            # "maximum recursion depth exceeded", the C stack: locked, the
            # check's frames are on it; unlocked they take less of it. (Two
            # clauses: a tuple of the two would be made under the lock.)
            if not lock:
                raise
        finally:
            if lock:
                heap_unlock()
        # (here after a MemoryError or a RuntimeError under the lock, the heap unlocked)
        lock = False
        retries += 1
        _scrub(e)


def _scrub(e):
    # The engine's scratch put back as a check leaves it, after a check cut
    # short: the counts it clears at its end (drules_play.check_follow,
    # check_lead, decompose; drules_match.trick_winner, _match_key) and,
    # when the oracle is loaded, its placement (cleared by the questions that
    # fill it: drules_place._uzero) and the trick's lowest starts; the stack
    # of faces _fits placed emptied. Every other buffer a check sets before
    # it reads it (tests/table/test_table_locked.py cuts checks short at every
    # engine method and asks the corpora again).
    z = e._zf
    e._lc[:] = z
    e._pc[:] = z
    e._wc[:] = z
    if e._qm:  # the oracle's placement is loaded (drules_place._place_init)
        e._uzero()
        e._ql[:] = bytes(len(e._ql))


def _drop(name, mpy_only):
    # the module `name` out of sys.modules (its code leaves the heap when
    # nothing else holds it); mpy_only: only if it was loaded from a .mpy file
    m = sys.modules.get(name)
    if m is not None and not (mpy_only and getattr(m, "__file__", ".py").endswith(".py")):
        del sys.modules[name]
    return m


def _count(cards, hand):
    # a face-count array of the cards (drules.hand_from, without the engine's module)
    for i in range(54):
        hand[i] = 0
    for c in cards:
        hand[c % 54] += 1
