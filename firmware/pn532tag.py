# NTAG pages through a PN532 driver (pn532.PN532): READ (30) and WRITE (A2)
# by InDataExchange with target 1, the tag the driver's last poll() listed
# (docs/readers.md). The table's play never reads a tag's pages (a card is its
# UID: cardmap.py), so this is not in the driver every reader holds: a tool
# that needs pages imports this module (issue 21, a heap that fits: its code
# and its two buffers per driver were in the heap all the time). Blocking,
# outside the polling path; each call makes its own buffers.
from micropython import const

import pn532

_DATA_WRITE = const(0x01)
_TFI_HOST = const(0xD4)
_IN_DATA_EXCHANGE = const(0x40)
_NTAG_READ = const(0x30)
_NTAG_WRITE = const(0xA2)
_PAGE_READ = const(26)  # InDataExchange READ: 2 + 1 + 16 data bytes + 7 framing


def _exchange(drv, op, page, data4):
    # InDataExchange with target 1: a READ (op 0x30) or WRITE (0xA2) of a page.
    rev = pn532._REV
    w = bytearray(17)  # op + 5 header + 9 body (write) + DCS + postamble
    body = 5 if data4 is None else 9
    n = body
    w[0] = rev[_DATA_WRITE]
    w[1] = 0x00
    w[2] = 0x00
    w[3] = 0xFF
    w[4] = rev[n]
    w[5] = rev[(-n) & 0xFF]
    s = _TFI_HOST + _IN_DATA_EXCHANGE + 0x01 + op + page
    w[6] = rev[_TFI_HOST]
    w[7] = rev[_IN_DATA_EXCHANGE]
    w[8] = rev[0x01]
    w[9] = rev[op]
    w[10] = rev[page]
    k = 11
    if data4 is not None:
        for j in range(4):
            s += data4[j]
            w[k] = rev[data4[j]]
            k += 1
    w[k] = rev[(-s) & 0xFF]
    w[k + 1] = 0x00
    cs = drv._cs
    drv.commands += 1
    cs.value(0)
    drv._spi.write(memoryview(w)[: k + 2])
    cs.value(1)
    # The rest as in PN532._call, without re-sending.
    if not drv._wait(drv.ack_timeout_us, 10):
        return drv._fail(pn532.ERR_NO_ACK)
    drv._read(drv._ack)
    if drv._ack != drv._ack_wire:
        return drv._fail(pn532.ERR_BAD_ACK)
    if not drv._wait(drv.tag_timeout_us, 11):
        drv._write(drv._w_abort)
        return drv._fail(pn532.ERR_TIMEOUT)
    buf = bytearray(_PAGE_READ)
    drv._read(buf)
    n = drv._parse(buf, _IN_DATA_EXCHANGE)
    if n < 0:
        return n
    if n < 1 or drv.data[drv.data_at] != 0x00:
        return drv._fail(pn532.ERR_TAG)
    return n - 1


def read_page(drv, page, out):
    """NTAG READ of 4 pages from ``page`` (16 bytes) into ``out``; OK or an error.
    Needs a tag listed by the driver's last ``poll()`` (target 1)."""
    n = _exchange(drv, _NTAG_READ, page, None)
    if n < 0:
        return n
    if n != 16:
        return drv._fail(pn532.ERR_RESPONSE)
    base = drv.data_at + 1
    for k in range(min(16, len(out))):
        out[k] = drv.data[base + k]
    return pn532.OK


def write_page(drv, page, data4):
    """NTAG WRITE of 4 bytes to ``page``; OK or an error."""
    n = _exchange(drv, _NTAG_WRITE, page, data4)
    return n if n < 0 else pn532.OK
