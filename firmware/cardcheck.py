# The card map file's checks (cardmap.py, "Format"): its header, format
# version, length and CRC-32, and what the header says (record count, decks,
# the set's name).
#
# They run once, when the map is loaded (at the start): cardmap.CardMap loads
# this module for them and drops it after, so that the table keeps only the
# lookup in its heap (docs/firmware.md, "Heap"). The format's numbers come as
# arguments from cardmap (which imports this module: no import cycle).
#
# Dependencies: binascii (on the rp2 port).
import binascii


def check(data, magic, version, header, record, name_max):
    """(count, decks, name) of a whole, undamaged map; else why not (a str)."""
    if len(data) < header or data[0:4] != magic:
        return "not a card map (no TTCM header)"
    if data[4] != version or data[5] != record:
        return "card map format %d/%d not supported" % (data[4], data[5])
    count = data[6] | (data[7] << 8)
    if len(data) != header + count * record:
        return "card map truncated: %d records expected" % count
    crc = data[12] | (data[13] << 8) | (data[14] << 16) | (data[15] << 24)
    if binascii.crc32(memoryview(data)[header:]) & 0xFFFFFFFF != crc:
        return "card map damaged: CRC mismatch"
    return count, data[8], bytes(data[16 : 16 + min(data[9], name_max)]).decode()
