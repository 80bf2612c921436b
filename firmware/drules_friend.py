# Device rules engine: find-a-friend's called partner (docs/rules.md §9).
#
# Apart from drules_hand.py (bids and settlement) because the table asks it
# during the play (tablefriend.resolve, when a copy of the called card is
# played), when drules_hand is not in the heap (tablerules.py: drules_hand
# and the engine come by turns; docs/firmware.md, "Heap").
#
# API:
#   friend_partner(dealer, holders) -> partner seat, FRIEND_ALONE or FRIEND_UNKNOWN
#       holders: copies of the called card held per seat (4 ints, -1 = unknown)

from micropython import const

try:
    from typing import Sequence  # noqa: F401
except ImportError:
    pass

FRIEND_ALONE = const(-1)
FRIEND_UNKNOWN = const(-2)


def friend_partner(dealer, holders):
    # type: (int, Sequence[int]) -> int
    """The dealer's partner when partners are called (docs/rules.md §9).

    holders[seat] = copies of the called card that seat holds (-1: not known
    yet). If the dealer holds every copy it plays alone; otherwise the partner
    is the nearest holder after the dealer in play order (with two decks: the
    holder of the other copy when the dealer holds one)."""
    total = 0
    known = True
    for c in holders:
        if c < 0:
            known = False
        else:
            total += c
    if holders[dealer] > 0 and known and total == holders[dealer]:
        return FRIEND_ALONE
    for i in range(1, 4):
        seat = (dealer + i) & 3
        c = holders[seat]
        if c > 0:
            return seat
        if c < 0:
            return FRIEND_UNKNOWN
    return FRIEND_ALONE if known else FRIEND_UNKNOWN
