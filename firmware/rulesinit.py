# TableRules.__init__'s body (tablerules.py, the table's rules adapter): run
# once, when the table is made, then dropped with this module. Not in
# drules_hand, where the adapter's settlement and declaring are: the device
# rules engine's flash (every drules*.py, docs/firmware.md "Budgets") holds the
# engine, not the table's adapter.
from drules_hand import FD_FIRST, LL_FULL, LT_CLASSIC, NB_NT


def table_init(
    tr,
    decks=2,
    permanent_twos=False,
    same_shape_only=False,
    kitty_multiplier=0,  # drules.KM_STRUCTURE
    kitty_requires_trump=False,
    throw_penalty=0,
    level_table=LT_CLASSIC,
    level_ladder=LL_FULL,
    must_play=0,
    allow_self_override=True,
    no_bid=NB_NT,
    first_dealer=FD_FIRST,
    revoke=0,
    partners=0,
):
    """TableRules.__init__'s body (tablerules.py: the table's rules adapter)."""
    tr.decks = decks
    # drules.Engine's options, for TableRules.e() to build it when first needed
    tr._opts = (decks, permanent_twos, same_shape_only, kitty_multiplier, kitty_requires_trump, throw_penalty)
    tr.throw_penalty = throw_penalty
    tr.engine = None  # the drules.Engine once loaded (e())
    tr._trump = (0, 4)  # begin_hand's (level, trump): 2s, no trump
    tr.level_table = level_table
    tr.level_ladder = level_ladder
    tr.must_play = must_play
    tr.allow_self_override = allow_self_override
    tr.no_bid = no_bid
    tr.first_dealer = first_dealer
    # revoke (docs/rules.md §10): 0 "flag" (reported), 1 "forfeit" (the
    # hand is lost); the table core plays it (tabletrick.py, tableforfeit.py)
    tr.revoke = revoke
    # partners (docs/rules.md §9): 0 "fixed", 1 "called" (find-a-friend,
    # the table core plays it: tablefriend.py, settling by settle_seats)
    tr.partners = partners
    tr._hands = [bytearray(54), bytearray(54), bytearray(54), bytearray(54)]
    # a failed throw's forced cards: one unit of the lead (drules_play._emit_unit),
    # at most 18 positions of 4 copies, not the 216 cards of 4 decks
    tr._forced = bytearray(72)
    tr._order = [(), (), (), ()]
    tr._settled = [0, 0, 0, -1]
    # table_declare(): the last bid was refused as a self-override (its reason)
    tr.refused_self = False
