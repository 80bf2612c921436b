# Device rules engine, the hand around the play: settlement and levels,
# declaring trump, find-a-friend's settlement (docs/rules.md §8-9). Not hot paths: called once a
# hand (settle), or once per bid.
#
# API:
#   settle(score, dealer, levels, decks=2, table=LT_CLASSIC, ladder=LL_FULL,
#          must_play=0, out=None)
#       -> out = [next_dealer, level_side0, level_side1, winner (-1 = none)]
#       levels are ranks 0 (=2) .. 12 (=A); must_play is a bit mask of ranks.
#   level_gain(score, decks, table) -> (side, gain, take_over)
#   Bidding(decks, level, allow_self_override=True)
#       .bid(seat, cards) -> bool     (docs/rules.md §8 declaring; cards are ids)
#       .refused                      why the last bid was refused: BR_NONE,
#                                     BR_CARDS (not a bid), BR_WEAK (no stronger
#                                     class), BR_SELF (a self-override, not allowed)
#       .declarer, .face (standing bid's face, -1 none), .count, .klass
#       .first_seat                   seat of the first accepted bid
#       .trump_of_bid() -> suit 0-3, NT, or -1
#   end_of_draw(bidding, first_hand, dealer, no_bid=NB_NT, first_dealer=FD_FIRST,
#               kitty=None, permanent_twos=False) -> (trump, declarer, dealer);
#               trump -1 = redeal; with no_bid=NB_KITTY the kitty's first card
#               names trump: its suit, or NT for a joker, a level card, or
#               with permanent_twos a 2 (docs/rules.md, "Declaring trump")
#   The called partner (find-a-friend) is drules_friend.py's: the table asks
#   it during the play, when this module is not loaded (tablerules.py).

from micropython import const

try:
    from typing import Sequence  # noqa: F401
except ImportError:
    pass

NT = const(4)
RANK_A = const(12)
RANK_J = const(9)

# level_table presets.
LT_CLASSIC = const(0)
LT_LIANZHONG = const(1)
LT_QQ = const(2)
LT_TOURNAMENT = const(3)
LT_ONEDECK = const(4)
LT_XUWEN = const(5)

# level_ladder.
LL_FULL = const(0)
LL_TOURNAMENT = const(1)

# no_bid and first_dealer.
NB_NT = const(0)
NB_KITTY = const(1)
FD_FIRST = const(0)
FD_FINAL = const(1)

# Bidding.refused: why the last bid was refused.
BR_NONE = const(0)
BR_CARDS = const(1)
BR_WEAK = const(2)
BR_SELF = const(3)

# The tournament ladder: 2, 5, T, J, Q, K, A.
_TLADDER = b"\x00\x03\x08\x09\x0a\x0b\x0c"


def level_gain(score, decks=2, table=LT_CLASSIC):
    # type: (int, int, int) -> tuple[int, int, bool]
    """(side, gain, take_over): side 0 = the defenders, 1 = the attackers."""
    s = score if score > 0 else 0
    step = 20 * decks
    if table == LT_TOURNAMENT:
        # 2 decks: 0: +3; 5-35: +2; 40-75: +1; 80-115 take over; 120-145 +2;
        # >= 150 +3 (thresholds scale with the decks, a 2-deck table).
        u = decks * 5  # 10 points in a 2-deck game
        if s == 0:
            return 0, 3, False
        if s < 4 * u:
            return 0, 2, False
        if s < 8 * u:
            return 0, 1, False
        if s < 12 * u:
            return 1, 0, True
        if s < 15 * u:
            return 1, 2, True
        return 1, 3, True
    if table == LT_ONEDECK:
        if s == 0:
            return 0, 2, False
        if s < 40:
            return 0, 1, False
        if s < 80:
            return 1, 0, True
        if s < 100:
            return 1, 1, True
        return 1, 2, True
    if table == LT_XUWEN:
        # xuwen (docs/rules.md §8.4), 4 decks: 0: +3; < 80: +2; < 160: +1; then take over, +1
        # per further 40 (other deck counts scale by decks/4).
        if s == 0:
            return 0, 3, False
        if s < 20 * decks:
            return 0, 2, False
        if s < 40 * decks:
            return 0, 1, False
        return 1, (s - 40 * decks) // (10 * decks), True
    if s == 0:
        return 0, 3, False
    if s < step:
        return 0, 2, False
    if s < 2 * step:
        return 0, 1, False
    if table == LT_LIANZHONG:
        return 1, s // step - 1, True
    g = s // step - 2
    if table == LT_QQ and g > 6:
        g = 6
    return 1, g, True


def _next_level(level, ladder):
    # type: (int, int) -> int
    if ladder == LL_TOURNAMENT:
        for r in _TLADDER:
            if r > level:
                return r
        return RANK_A
    return level + 1 if level < RANK_A else RANK_A


def advance(level, gain, ladder=LL_FULL, must_play=0):
    # type: (int, int, int, int) -> int
    """A side's level after gaining `gain` levels: never past A, and stopping
    at each level of must_play (a bit mask of ranks): a climb cannot pass a
    listed level in one hand; from a listed level it moves on as usual
    (docs/rules.md, "Levels and the match")."""
    for _ in range(gain):
        if level >= RANK_A:
            return RANK_A
        level = _next_level(level, ladder)
        if must_play & (1 << level):
            return level
    return level


def settle(score, dealer, levels, decks=2, table=LT_CLASSIC, ladder=LL_FULL, must_play=0, out=None, kitty_j=False):
    # type: (int, int, Sequence[int], int, int, int, int, list[int] | None, bool) -> list[int]
    """Settle a hand with fixed partners: [next dealer, level of side 0, level
    of side 1, winner side or -1]. kitty_j: the attackers won the last trick's
    kitty with a J (the tournament rule: a defending side at J goes back to 2)."""
    if out is None:
        out = [0, 0, 0, -1]
    side, gain, take_over = level_gain(score, decks, table)
    dside = dealer & 1
    out[1] = levels[0]
    out[2] = levels[1]
    out[3] = -1
    if take_over:
        aside = 1 - dside
        out[1 + aside] = advance(levels[aside], gain, ladder, must_play)
        out[0] = (dealer + 1) & 3
    else:
        if levels[dside] == RANK_A:
            out[3] = dside
        out[1 + dside] = advance(levels[dside], gain, ladder, must_play)
        out[0] = (dealer + 2) & 3
    if kitty_j and (table == LT_TOURNAMENT or ladder == LL_TOURNAMENT) and levels[dside] == RANK_J:
        out[1 + dside] = 0
    return out


def settle_seats(score, dealer, levels, defenders, decks=2, table=LT_CLASSIC, ladder=LL_FULL, must_play=0, kitty_j=False, out=None):
    # type: (int, int, Sequence[int], int, int, int, int, int, bool, list[int] | None) -> list[int]
    """Settle a find-a-friend hand (docs/rules.md §9): levels per seat; defenders is a bit
    mask of the dealer's side (the dealer alone, or with the called partner).
    Returns [next dealer, level of seat 0 .. 3, bit mask of the seats that won
    the match (0: none)]."""
    if out is None:
        out = [0, 0, 0, 0, 0, 0]
    side, gain, take_over = level_gain(score, decks, table)
    won = 0
    for seat in range(4):
        lv = levels[seat]
        out[1 + seat] = lv
        is_def = (defenders >> seat) & 1
        if take_over and not is_def:
            out[1 + seat] = advance(lv, gain, ladder, must_play)
        elif not take_over and is_def:
            if lv == RANK_A:
                won |= 1 << seat
            out[1 + seat] = advance(lv, gain, ladder, must_play)
        if kitty_j and is_def and lv == RANK_J and (table == LT_TOURNAMENT or ladder == LL_TOURNAMENT):
            out[1 + seat] = 0
    out[5] = won
    if take_over:
        out[0] = (dealer + 1) & 3
    else:
        out[0] = dealer
        for i in range(1, 4):
            if (defenders >> ((dealer + i) & 3)) & 1:
                out[0] = (dealer + i) & 3
                break
    return out


# ------------------------------------------------------------------- bids

_NOBID = const(-1)


def bid_class(face, count, level, decks):
    # type: (int, int, int, int) -> int
    """Class of a bid of `count` copies of `face` (docs/rules.md §8), -1 if no bid."""
    if count < 1 or count > decks:
        return -1
    if face == 52 or face == 53:
        if count < 2:
            return -1
        base = 2 if count == 2 else (5 if count == 3 else 8)
        return base + (face - 52)
    if face > 53 or face % 13 != level:
        return -1
    return (0, 1, 4, 7)[count - 1]


class Bidding:
    """The bids of one draw: who stands, with what (docs/rules.md §8)."""

    def __init__(self, decks, level, allow_self_override=True):
        # type: (int, int, bool) -> None
        self.decks = decks
        self.level = level
        self.allow_self_override = bool(allow_self_override)
        self.reset()

    def reset(self):
        # type: () -> None
        self.declarer = -1
        self.face = -1
        self.count = 0
        self.klass = -1
        self.first_seat = -1
        self.refused = BR_NONE

    def bid(self, seat, cards):
        # type: (int, Sequence[int]) -> bool
        """Offer a bid; True if it stands (it then becomes the standing bid).
        A bid by the standing declarer that does not reinforce its bid (another
        suit, NT by jokers, the other kind of joker) is a self-override."""
        self.refused = BR_CARDS
        if len(cards) == 0:
            return False
        face = cards[0] % 54
        for c in cards:
            if c % 54 != face:
                return False
        if face > 53 or (face < 52 and face % 13 != self.level):
            return False
        count = len(cards)
        if seat == self.declarer and face == self.face:
            count += self.count  # reinforcement: adds to the cards shown
        elif seat == self.declarer and not self.allow_self_override:
            self.refused = BR_SELF
            return False
        k = bid_class(face, count, self.level, self.decks)
        if k < 0 or k <= self.klass:
            self.refused = BR_WEAK
            return False
        self.refused = BR_NONE
        if self.first_seat < 0:
            self.first_seat = seat
        self.declarer = seat
        self.face = face
        self.count = count
        self.klass = k
        return True

    def trump_of_bid(self):
        # type: () -> int
        if self.face < 0:
            return -1
        if self.face >= 52:
            return NT
        return self.face // 13


def end_of_draw(bidding, first_hand, dealer, no_bid=NB_NT, first_dealer=FD_FIRST, kitty=None, permanent_twos=False):
    # type: (Bidding, bool, int, int, int, Sequence[int] | None, bool) -> tuple[int, int, int]
    """(trump, declarer, dealer) at the end of the draw; trump -1 means redeal."""
    if bidding.declarer >= 0:
        if first_hand:
            dealer = bidding.first_seat if first_dealer == FD_FIRST else bidding.declarer
        return bidding.trump_of_bid(), bidding.declarer, dealer
    if first_hand:
        return -1, -1, -1
    if no_bid == NB_KITTY:
        if kitty is None or len(kitty) == 0:
            raise ValueError("no_bid=kitty needs the kitty")
        f = kitty[0] % 54
        # a card trump in every suit (a joker, a level card, a permanent 2) names NT
        if f >= 52 or f % 13 == bidding.level or (permanent_twos and f % 13 == 0):
            return NT, -1, dealer
        return f // 13, -1, dealer
    return NT, -1, dealer


# --- the table's rules adapter (tablerules.TableRules): its settlement and
# declaring, here, loaded with the hand's rules for them, not in tablerules,
# which the table holds through the play (docs/firmware.md, "Heap"); its
# set-up is rulesinit's (run once: not the engine's flash)


def table_settle(tr, score, dealer, levels, won_by):
    """TableRules.settle: (next dealer, [l0, l1], match winner or -1); won_by:
    the attackers' play that won the last trick, or None (a J in it is the
    tournament rule's "kitty won by a J": the rules decide whether it applies)."""
    kitty_j = False
    if won_by is not None:
        for c in won_by:
            f = c % 54
            if f < 52 and f % 13 == 9:
                kitty_j = True
    out = settle(
        score,
        dealer,
        levels,
        tr.decks,
        tr.level_table,
        tr.level_ladder,
        tr.must_play,
        tr._settled,
        kitty_j,
    )
    return out[0], [out[1], out[2]], out[3]


def table_declare(tr, first_hand, dealer, level, bids, kitty):
    """TableRules.declare: the bids replayed in order (a handful per hand),
    Bidding deciding each, and the end of the draw from the standing one
    (kitty: the kitty turned up, in order, with no_bid = "kitty")."""
    b = Bidding(tr.decks, level, tr.allow_self_override)
    acc = []
    for bid in bids:
        acc.append(b.bid(bid[0], bid[1]))
    tr.refused_self = b.refused == BR_SELF
    trump, declarer, dealer = end_of_draw(
        b, first_hand, dealer, tr.no_bid, tr.first_dealer, kitty, bool(tr._opts[1])
    )
    return acc, trump, declarer, dealer
