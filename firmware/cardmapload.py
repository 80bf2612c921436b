# The card map's load (cardmap.CardMap's set-up): the file's header and
# records checked, the records copied into the compact runs that
# CardMap.lookup bisects (format: cardmap.py). Loaded for it and dropped after
# (cardmap._drop): once at boot (picostart), not held through the match.
from array import array
import binascii

from micropython import const

# cardmap's constants (const() does not cross modules)
_VERSION = const(1)
_HEADER = const(48)
_RECORD = const(13)
_UID_MAX = const(10)
_NAME_MAX = const(31)
_RUNS = const(11)


def init(cm, data, magic, err):
    """CardMap.__init__'s body: ``cm`` made from the file's bytes ``data``
    (``magic``: cardmap.MAGIC), or ``err`` (cardmap.CardMapError; given, so
    that this module imports nothing of cardmap: no import cycle)."""
    if len(data) < _HEADER or data[0:4] != magic:
        raise err("not a card map (no TTCM header)")
    if data[4] != _VERSION or data[5] != _RECORD:
        raise err("card map format %d/%d not supported" % (data[4], data[5]))
    count = data[6] | (data[7] << 8)
    if len(data) != _HEADER + count * _RECORD:
        raise err("card map truncated: %d records expected" % count)
    crc = data[12] | (data[13] << 8) | (data[14] << 16) | (data[15] << 24)
    if binascii.crc32(memoryview(data)[_HEADER:]) & 0xFFFFFFFF != crc:
        raise err("card map damaged: CRC mismatch")
    cm.count = count
    cm.decks = data[8]
    cm.name = bytes(data[16 : 16 + min(data[9], _NAME_MAX)]).decode()
    # _at[n]: where the run of n-byte UIDs starts in _k, _at[n + _RUNS]:
    # its records (n = 1..UID_MAX: the only lengths looked up)
    at = cm._at = array("H", bytes(4 * _RUNS))
    w = 1
    for i in range(count):
        base = _HEADER + i * _RECORD
        n = data[base]
        if 0 < n <= _UID_MAX:
            at[n + _RUNS] += 1
            if data[base + 2 + _UID_MAX]:
                w = 2
    cm._w = w
    pos = 0
    for n in range(1, _RUNS):
        at[n] = pos
        pos += at[n + _RUNS] * (n + w)
    k = cm._k = bytearray(pos)
    put = array("H", at)  # each run's next record
    for i in range(count):
        base = _HEADER + i * _RECORD
        n = data[base]
        if 0 < n <= _UID_MAX:
            p = put[n]
            k[p : p + n] = data[base + 1 : base + 1 + n]
            k[p + n : p + n + w] = data[base + 1 + _UID_MAX : base + 1 + _UID_MAX + w]
            put[n] = p + n + w
