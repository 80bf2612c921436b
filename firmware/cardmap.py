"""The card map: which tag UID is which card, as a compact binary file.

Made by the host (``tractor-table deckcheck --export``) from an enrolled card
set and copied to the Pico (``cards.bin``). Looking a tag up allocates
nothing: the records are sorted fixed-width keys, searched by bisection
directly in the file's bytes.

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

from micropython import const
import binascii

MAGIC = b"TTCM"
VERSION = const(1)
HEADER = const(48)
RECORD = const(13)
UID_MAX = const(10)
NAME_MAX = const(31)


class CardMapError(ValueError):
    pass


class CardMap:
    """A loaded map. ``lookup(uid, n)`` -> card id, or -1 for a tag not in the set."""

    def __init__(self, data):
        if len(data) < HEADER or data[0:4] != MAGIC:
            raise CardMapError("not a card map (no TTCM header)")
        if data[4] != VERSION or data[5] != RECORD:
            raise CardMapError("card map format %d/%d not supported" % (data[4], data[5]))
        count = data[6] | (data[7] << 8)
        if len(data) != HEADER + count * RECORD:
            raise CardMapError("card map truncated: %d records expected" % count)
        crc = data[12] | (data[13] << 8) | (data[14] << 16) | (data[15] << 24)
        if binascii.crc32(memoryview(data)[HEADER:]) & 0xFFFFFFFF != crc:
            raise CardMapError("card map damaged: CRC mismatch")
        self._d = data
        self.count = count
        self.decks = data[8]
        self.name = bytes(data[16 : 16 + min(data[9], NAME_MAX)]).decode()

    def _cmp(self, rec, uid, n):
        # Compare record ``rec`` with the key (n, uid[:n]): <0, 0 or >0.
        d = self._d
        base = HEADER + rec * RECORD
        c = d[base] - n
        if c:
            return c
        for i in range(n):
            c = d[base + 1 + i] - uid[i]
            if c:
                return c
        return 0

    def lookup(self, uid, n):
        """The card id of the tag whose UID is ``uid[:n]``, or -1. No allocation."""
        if n < 1 or n > UID_MAX:
            return -1
        lo = 0
        hi = self.count - 1
        while lo <= hi:
            mid = (lo + hi) >> 1
            c = self._cmp(mid, uid, n)
            if c == 0:
                base = HEADER + mid * RECORD + 1 + UID_MAX
                return self._d[base] | (self._d[base + 1] << 8)
            if c < 0:
                lo = mid + 1
            else:
                hi = mid - 1
        return -1


def load(path):
    """Read and check the card map file at ``path`` (e.g. "cards.bin")."""
    with open(path, "rb") as f:
        return CardMap(f.read())
