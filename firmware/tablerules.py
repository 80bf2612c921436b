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

from micropython import const

# drules_hand's constants (const() does not cross modules): the options' defaults
_LT_CLASSIC = const(0)
_LL_FULL = const(0)
_NB_NT = const(0)
_FD_FIRST = const(0)
_BR_SELF = const(3)


class TableRules:
    # the rules digest (tableconfig.Options.digest; main.configured_app sets it):
    # in the snapshot, so that a state saved under other rules is not resumed
    digest = ""

    def __init__(
        self,
        decks=2,
        permanent_twos=False,
        same_shape_only=False,
        kitty_multiplier=0,  # drules.KM_STRUCTURE
        kitty_requires_trump=False,
        throw_penalty=0,
        level_table=_LT_CLASSIC,
        level_ladder=_LL_FULL,
        must_play=0,
        allow_self_override=True,
        no_bid=_NB_NT,
        first_dealer=_FD_FIRST,
        revoke=0,
        partners=0,
    ):
        self.decks = decks
        # drules.Engine's options, for e() to build it when first needed
        self._opts = (decks, permanent_twos, same_shape_only, kitty_multiplier,
                      kitty_requires_trump, throw_penalty)
        self.throw_penalty = throw_penalty
        self.engine = None  # the drules.Engine once loaded (e())
        self._trump = (0, 4)  # begin_hand's (level, trump): 2s, no trump
        self.level_table = level_table
        self.level_ladder = level_ladder
        self.must_play = must_play
        self.allow_self_override = allow_self_override
        self.no_bid = no_bid
        self.first_dealer = first_dealer
        # revoke (docs/rules.md §10): 0 "flag" (reported), 1 "forfeit" (the
        # hand is lost); the table core plays it (tabletrick.py, tableforfeit.py)
        self.revoke = revoke
        # partners (docs/rules.md §9): 0 "fixed", 1 "called" (find-a-friend,
        # the table core plays it: tablefriend.py, settling by settle_seats)
        self.partners = partners
        self._hands = [bytearray(54), bytearray(54), bytearray(54), bytearray(54)]
        self._forced = bytearray(54 * 4)
        self._order = [(), (), (), ()]
        self._settled = [0, 0, 0, -1]
        # declare(): the last bid was refused as a self-override (its reason)
        self.refused_self = False

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
            for name in D.PARTS:  # the modules the engine is assembled from
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

    def is_throw(self, cards):
        return self.e().decompose(cards) > 1

    def throw(self, leader, lead, hands):
        e = self.e()
        hs = self._hands
        for s in range(4):
            _count(hands[s], hs[s])
        r = e.check_lead(lead, hs, leader, self._forced)
        if r != 11:  # drules.R_THROW_FAILED
            return None
        return list(self._forced[: e.nforced])

    def check_follow(self, lead, hand, play):
        e = self.e()
        h = self._hands[0]
        _count(hand, h)
        return e.check_follow(lead, h, play)

    def trick(self, leader, plays):
        e = self.e()
        order = self._order
        pts = 0
        for i in range(4):
            p = plays[(leader + i) & 3]
            order[i] = p
            pts += e.points(p)
        w = e.trick_winner(order)
        for i in range(4):
            order[i] = ()
        return (leader + w) & 3, pts

    def points(self, cards):
        return self.e().points(cards)

    def kitty(self, lead, winner_play, kitty):
        e = self.e()
        return e.kitty_multiplier(lead), e.kitty_bonus(lead, winner_play, kitty)

    def settle(self, score, dealer, levels, won_by=None):
        # won_by: the attackers' play that won the last trick, or None; a J in
        # it is the tournament rule's "kitty won by a J" (the engine decides
        # whether the rule applies)
        kitty_j = False
        if won_by is not None:
            for c in won_by:
                f = c % 54
                if f < 52 and f % 13 == 9:
                    kitty_j = True
        out = self.hand_rules().settle(
            score,
            dealer,
            levels,
            self.decks,
            self.level_table,
            self.level_ladder,
            self.must_play,
            self._settled,
            kitty_j,
        )
        return out[0], [out[1], out[2]], out[3]

    def declare(self, first_hand, dealer, level, bids, kitty=None):
        # The bids are replayed in order (a handful per hand): the engine's
        # Bidding decides each, and the end of the draw from the standing one
        # (kitty: the kitty turned up, in order, with no_bid = "kitty").
        DH = self.hand_rules()  # the engine is not needed in the draw
        b = DH.Bidding(self.decks, level, self.allow_self_override)
        acc = []
        for bid in bids:
            acc.append(b.bid(bid[0], bid[1]))
        self.refused_self = b.refused == _BR_SELF
        trump, declarer, dealer = DH.end_of_draw(
            b, first_hand, dealer, self.no_bid, self.first_dealer, kitty, bool(self._opts[1])
        )
        return acc, trump, declarer, dealer


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
