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

from array import array
from micropython import const
import binascii

MAGIC = b"TTCM"
VERSION = const(1)
HEADER = const(48)
RECORD = const(13)
UID_MAX = const(10)
NAME_MAX = const(31)
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
        self.count = count
        self.decks = data[8]
        self.name = bytes(data[16 : 16 + min(data[9], NAME_MAX)]).decode()
        # _at[n]: where the run of n-byte UIDs starts in _k, _at[n + _RUNS]:
        # its records (n = 1..UID_MAX: the only lengths looked up)
        at = self._at = array("H", bytes(4 * _RUNS))
        w = 1
        for i in range(count):
            base = HEADER + i * RECORD
            n = data[base]
            if 0 < n <= UID_MAX:
                at[n + _RUNS] += 1
                if data[base + 2 + UID_MAX]:
                    w = 2
        self._w = w
        pos = 0
        for n in range(1, _RUNS):
            at[n] = pos
            pos += at[n + _RUNS] * (n + w)
        k = self._k = bytearray(pos)
        put = array("H", at)  # each run's next record
        for i in range(count):
            base = HEADER + i * RECORD
            n = data[base]
            if 0 < n <= UID_MAX:
                p = put[n]
                k[p : p + n] = data[base + 1 : base + 1 + n]
                k[p + n : p + n + w] = data[base + 1 + UID_MAX : base + 1 + UID_MAX + w]
                put[n] = p + n + w

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


def load(path):
    """Read and check the card map file at ``path`` (e.g. "cards.bin")."""
    with open(path, "rb") as f:
        return CardMap(f.read())
