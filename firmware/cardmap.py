"""The card map: which tag UID is which card, as a compact binary file.

Made by the host (``tractor-table deckcheck --export``) from an enrolled card
set and copied to the Pico (``cards.bin``). Looking a tag up allocates
nothing: the records are sorted keys, searched by bisection in the compact
copy ``CardMap`` keeps of them (a run of records per UID length, each its
UID and the card id: 8 bytes a card with 7-byte UIDs, not the file's 13).

Format (all integers little-endian)::

    offset size  field
    0      4     magic b"TTCM"
    4      1     format version (1)
    5      1     record size (13)
    6      2     record count N
    8      1     decks (1..4)
    9      1     name length L (0..31)
    10     2     reserved (0)
    12     4     CRC-32 of the N records
    16     32    set name, UTF-8, L bytes then zero padding
    48     13*N  records: UID length (4, 7 or 10), UID zero-padded to 10 bytes,
                 card id (u16); sorted by (length, UID bytes)

Card ids as in docs/protocol.md: copy * 54 + suit * 13 + rank, jokers 52/53.
"""

import sys

from micropython import const

try:
    from typing import Any  # noqa: F401
except ImportError:
    pass

MAGIC = b"TTCM"
VERSION = const(1)
HEADER = const(48)
RECORD = const(13)
UID_MAX = const(10)
_NAME_MAX = const(31)
# the runs of records by UID length kept (0 unused, 1..UID_MAX)
_RUNS = const(11)


class CardMapError(ValueError):
    pass


class CardMap:
    """A loaded map. ``lookup(uid, n)`` -> card id, or -1 for a tag not in the set.

    The records are kept compact, not as the file has them (issue 21: the
    file's 13 bytes a card, 2,856 B with 4 decks, held as long as the table
    runs): by UID length, each length's records one run in the file's order
    (sorted, as the file is by (length, UID)), a record its UID's n bytes
    then the card id in one byte (two, little-endian, if an id needs them):
    8 bytes a card with 7-byte UIDs."""

    # what cardmapload.init sets, declared for the type checker only (bare
    # annotations: MicroPython keeps nothing of them)
    count: int
    decks: int
    name: str
    _at: "Any"  # array('H')
    _w: int
    _k: bytearray

    def __init__(self, data):
        # the file checked and its records copied compact: cardmapload's,
        # loaded for it and dropped after (once at boot: the table does not
        # hold that code through the match; docs/firmware.md, "Heap")
        import cardmapload

        cardmapload.init(self, data, MAGIC, CardMapError)
        _drop("cardmapload")

    def lookup(self, uid, n):
        """The card id of the tag whose UID is ``uid[:n]``, or -1. No allocation."""
        if n < 1 or n > UID_MAX:
            return -1
        at = self._at
        w = self._w
        size = n + w
        start = at[n]
        k = self._k
        lo = 0
        hi = at[n + _RUNS] - 1
        while lo <= hi:
            mid = (lo + hi) >> 1
            base = start + mid * size
            c = 0
            for i in range(n):
                c = k[base + i] - uid[i]
                if c:
                    break
            if c == 0:
                base += n
                return k[base] | (k[base + 1] << 8) if w == 2 else k[base]
            if c < 0:
                lo = mid + 1
            else:
                hi = mid - 1
        return -1


def _drop(name):
    # a module loaded for one step leaves the heap if it came from a .mpy
    # file (the Pico, the virtual table); one compiled from source (tests
    # under MicroPython) is kept: compiling it again costs more than it frees
    m = sys.modules.get(name)
    if m is not None and not getattr(m, "__file__", ".py").endswith(".py"):
        del sys.modules[name]


def load(path):
    """Read and check the card map file at ``path`` (e.g. "cards.bin")."""
    with open(path, "rb") as f:
        return CardMap(f.read())
