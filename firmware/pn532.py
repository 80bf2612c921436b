"""PN532 NFC reader over SPI, for the table's seat readers.

Hardware:
    A PN532 breakout in SPI mode (on most boards: SEL0 low, SEL1 high), wired
    to the Pico's SPI bus (SCK, MOSI, MISO shared by all four readers) with its
    own chip-select (NSS) line and, for hard resets, its RSTPD_N line. The bus
    must be set up by the caller in mode 0 (polarity 0, phase 0), MSB first,
    at up to 5 MHz (1 MHz is the documented default): the rp2 SPI has no
    LSB-first mode, so this driver reverses every byte itself, through a
    256-byte table.

Dependencies:
    None but ``micropython.const`` and ``time``: the bus (``machine.SPI``-like:
    ``write``, ``readinto``) and the pins (``machine.Pin``-like: ``value(v)``)
    are passed in, and so is, optionally, a clock (``ticks_us``,
    ``ticks_diff``, ``sleep_us``) so that tests can run on simulated time.

Protocol (PN532 User Manual UM0701-02): each command is a normal information
frame ``00 00 FF LEN LCS D4 CMD ... DCS 00`` written after the SPI data-write
byte 0x01; the host polls the status byte (SPI status-read byte 0x02; the chip
answers 0x01 when it has something) and reads, after the data-read byte 0x03,
first an ACK ``00 00 FF 00 FF 00`` and later the response frame ``D5 CMD+1 ...``.

Errors are returned, not raised (no allocation on the polling path): every
command returns ``OK`` (0) or a count (>= 0) on success and one of the
negative ``ERR_*`` codes on failure; ``last_error`` keeps the latest one.
"""

import sys

import micropython
from micropython import const

try:
    from typing import Any  # noqa: F401 - the annotations' (the type checker's only)
except ImportError:
    pass

OK = const(0)
ERR_NO_ACK = const(-1)  # nothing acknowledged the command in time (no answer, stuck busy)
ERR_BAD_ACK = const(-2)  # the chip said something, but not an ACK (garbage)
ERR_TIMEOUT = const(-3)  # ACK came, the response did not in time (slow, stuck)
ERR_FRAME = const(-4)  # response frame broken: preamble, length or data checksum
ERR_RESPONSE = const(-5)  # frame fine but not the expected answer (error frame, wrong code)
ERR_TAG = const(-6)  # the tag did not do what was asked (InDataExchange status != 0)
#: what ``step()`` returns while the command is still running
PENDING = const(-100)

_STATUS_READ = const(0x02)
_DATA_WRITE = const(0x01)
_DATA_READ = const(0x03)
_TFI_HOST = const(0xD4)
_TFI_CHIP = const(0xD5)

_GET_FIRMWARE_VERSION = const(0x02)
_SAM_CONFIGURATION = const(0x14)
_RF_CONFIGURATION = const(0x32)
_IN_LIST_PASSIVE_TARGET = const(0x4A)

# ticks_us() wraps at 2**30 (the rp2 port's ticks period)
_TICKS_MASK = const(0x3FFFFFFF)
# a poll that finds a card answers this long (us) after one that finds none:
# the two cascade levels of a 7-byte UID (NTAG213), 2 x 2.1 ms, and 0.1 ms
# (the learned wait is a little short of a poll without a card's time)
_CARD_US = const(4300)
# a look that finds the chip ready within this (us) of the last that found
# it busy moves the learned wait half-way between them; from looks further
# apart (after the jump to a tag's answer) the wait is the busy look's
_LEARN_US = const(1500)

# Bytes sent and received, per command, through the fixed-size buffers below.
# A poll answer holds at most two targets with 10-byte UIDs:
# 2 (TFI, code) + 1 (NbTg) + 2 * (1 + 2 + 1 + 1 + 10) = 33 data bytes + 7 framing.
_POLL_READ = const(40)  # (pn532cmd.init's buffers: the same figures there)
_SHORT_READ = const(14)  # version (6 data bytes) and the configuration answers

# The byte with its bits in reverse order: _REV[b] (LSB-first <-> MSB-first).
_REV = (
    b"\x00\x80\x40\xc0\x20\xa0\x60\xe0\x10\x90\x50\xd0\x30\xb0\x70\xf0"
    b"\x08\x88\x48\xc8\x28\xa8\x68\xe8\x18\x98\x58\xd8\x38\xb8\x78\xf8"
    b"\x04\x84\x44\xc4\x24\xa4\x64\xe4\x14\x94\x54\xd4\x34\xb4\x74\xf4"
    b"\x0c\x8c\x4c\xcc\x2c\xac\x6c\xec\x1c\x9c\x5c\xdc\x3c\xbc\x7c\xfc"
    b"\x02\x82\x42\xc2\x22\xa2\x62\xe2\x12\x92\x52\xd2\x32\xb2\x72\xf2"
    b"\x0a\x8a\x4a\xca\x2a\xaa\x6a\xea\x1a\x9a\x5a\xda\x3a\xba\x7a\xfa"
    b"\x06\x86\x46\xc6\x26\xa6\x66\xe6\x16\x96\x56\xd6\x36\xb6\x76\xf6"
    b"\x0e\x8e\x4e\xce\x2e\xae\x6e\xee\x1e\x9e\x5e\xde\x3e\xbe\x7e\xfe"
    b"\x01\x81\x41\xc1\x21\xa1\x61\xe1\x11\x91\x51\xd1\x31\xb1\x71\xf1"
    b"\x09\x89\x49\xc9\x29\xa9\x69\xe9\x19\x99\x59\xd9\x39\xb9\x79\xf9"
    b"\x05\x85\x45\xc5\x25\xa5\x65\xe5\x15\x95\x55\xd5\x35\xb5\x75\xf5"
    b"\x0d\x8d\x4d\xcd\x2d\xad\x6d\xed\x1d\x9d\x5d\xdd\x3d\xbd\x7d\xfd"
    b"\x03\x83\x43\xc3\x23\xa3\x63\xe3\x13\x93\x53\xd3\x33\xb3\x73\xf3"
    b"\x0b\x8b\x4b\xcb\x2b\xab\x6b\xeb\x1b\x9b\x5b\xdb\x3b\xbb\x7b\xfb"
    b"\x07\x87\x47\xc7\x27\xa7\x67\xe7\x17\x97\x57\xd7\x37\xb7\x77\xf7"
    b"\x0f\x8f\x4f\xcf\x2f\xaf\x6f\xef\x1f\x9f\x5f\xdf\x3f\xbf\x7f\xff"
)


# RFConfiguration CfgItem 0x0A, the chip's defaults (UM0701-02 section 7.3.1):
# CIU_RFCfg, CIU_GsNOn, CIU_CWGsP, CIU_ModGsP, CIU_Demod (own RF on),
# CIU_RxThreshold, CIU_Demod (own RF off), CIU_GsNOff, CIU_ModWidth,
# CIU_MifNFC, CIU_TxBitPhase
RF_ANALOG_106A = b"\x59\xf4\x3f\x11\x4d\x85\x61\x6f\x26\x62\x87"
#: RxGain codes (CIU_RFCfg bits 6-4): the default, and the lower setting the
#: table offers (table.cfg rx_gain; docs/readers.md)
_RX_GAIN_DEFAULT = const(5)  # 38 dB
RX_GAIN_LOW = const(4)  # 33 dB


# The driver's blocking commands and its set-up, pn532cmd.py's (PN532.__getattr__):
# loaded when one is asked for, dropped after a reader's set-up (drop_cmd)
_CMDS = ("hard_reset", "wake", "_ready", "_wait", "_read", "_call", "firmware_version", "set_max_retries",
         "set_rx_gain", "setup", "field_off", "poll")


def _cmd():
    import pn532cmd

    if not pn532cmd._REV:
        pn532cmd.bind(_REV, RF_ANALOG_106A)
    return pn532cmd


def drop_cmd():
    """pn532cmd out of the heap (the scanner, after a reader's set-up), if it
    came from a .mpy file: one compiled from source (the tests under
    MicroPython, CPython) stays, as table._done keeps a table part."""
    m = sys.modules.get("pn532cmd")
    if m is not None and not getattr(m, "__file__", ".py").endswith(".py"):
        del sys.modules["pn532cmd"]


class PN532:
    """One PN532 on a shared SPI bus.

    :param spi: the bus (``machine.SPI`` in mode 0, MSB first)
    :param cs: this reader's chip-select pin, an output (idle high)
    :param rst: its RSTPD_N pin, an output (high = running), or None
    :param clock: ``ticks_us``/``ticks_diff``/``sleep_us`` provider (default: the
        ``time`` module itself: each a C call on the Pico, no Python in between)
    :param irq: its P70_IRQ pin, an input, or None: when given, readiness is
        read from the pin (low = ready) instead of an SPI status transaction
    :param poll_us: pause between two status polls while waiting
    :param ack_timeout_us: how long to wait for the ACK of a command
    :param timeout_us: how long to wait for a configuration command's answer
    :param poll_timeout_us: how long to wait for InListPassiveTarget's answer
    :param tag_timeout_us: how long to wait for a tag READ/WRITE answer
        (``pn532tag.read_page``/``write_page``: NTAG pages, which the table's
        play never reads, are that module's, not held by every driver)
    """

    # the constant frames, shared by every reader (built by the first __init__)
    _op_status: "Any" = None
    _op_read: "Any" = None
    _w_version: "Any" = None
    _w_field_off: "Any" = None
    _w_poll1: "Any" = None
    _w_poll2: "Any" = None
    _w_abort: "Any" = None
    _ack_wire: "Any" = None
    # the set-up's frames (pn532cmd.init), shared too: each reader's _w_sam
    # and _w_retries are one of these
    _w_sam_irq: "Any" = None
    _w_sam_plain: "Any" = None
    _w_retries_all: "Any" = None

    # what pn532cmd.init sets, declared for the type checker only (bare
    # annotations: MicroPython keeps nothing of them)
    _spi: "Any"
    _cs: "Any"
    _rst: "Any"
    _irq: "Any"
    _clock: "Any"
    sleep_us: "Any"
    poll_us: int
    ack_timeout_us: int
    timeout_us: int
    poll_timeout_us: int
    tag_timeout_us: int
    _status: bytearray
    _ack: bytearray
    _short: bytearray
    _long: bytearray
    _w_sam: bytearray
    _hints: "list[int]"
    _w_retries: bytearray
    data: bytearray
    data_at: int
    uid: bytearray
    uid_len: int
    uid2: bytearray
    uid2_len: int
    sens_res: int
    sel_res: int
    version: bytearray
    last_error: int
    errors: int
    commands: int
    _op: int
    _op_t0: int
    _op_last: int
    _op_miss: int
    found: int
    off: int
    step_us: int
    wait: int

    def __init__(self, *a, **k):
        # the set-up is pn532cmd's (once a reader, at the board's start): its
        # parameters and their defaults are pn532cmd.init's (above)
        _cmd().init(self, *a, **k)

    def __getattr__(self, name):
        # type: (str) -> Any
        # The blocking commands (the set-up, a self-test's, a tag's page) are
        # pn532cmd's, loaded when one is asked for: the polling path (step())
        # never asks them, and the scanner drops the module after each
        # reader's set-up (docs/firmware.md, "Heap"). Only their names: any
        # other missing attribute is an AttributeError, as before.
        if name in _CMDS:
            f = getattr(_cmd(), name)
            return lambda *a, **k: f(self, *a, **k)
        raise AttributeError(name)

    # ---- pins --------------------------------------------------------------
    def reset_begin(self):
        """Pull RSTPD_N low (the chip stops, its RF field goes off)."""
        for i in range(len(self._hints)):
            self._hints[i] = 0  # a fresh chip: learn its timings again
        self._op = 0  # a command in flight is lost with the chip's state
        if self._rst is not None:
            self._rst.value(0)

    def reset_end(self):
        """Release RSTPD_N; the chip boots (allow a few ms) and must be set up."""
        if self._rst is not None:
            self._rst.value(1)

    # ---- SPI transactions -------------------------------------------------
    # bytecode (issue 21, a heap that fits): a thin step (attribute stores, calls into machine.SPI)
    # or once per answer with a tag, where native buys little; native: 160 B of the chip's heap
    def _write(self, wire):
        cs = self._cs
        cs.value(0)
        self._spi.write(wire)
        cs.value(1)

    def _fail(self, err):
        self.last_error = err
        self.errors += 1
        return err

    @micropython.native
    def _parse(self, buf, cmd):
        # Check the raw frame in ``buf`` (bytes as read: bit-reversed); on
        # success un-reverse its data in place and return the data length.
        rev = _REV
        end = len(buf)
        i = 0
        while i < end and buf[i] == 0x00:  # 0x00 reversed is 0x00
            i += 1
        if i == 0 or i + 3 > end or buf[i] != 0xFF:
            return self._fail(ERR_FRAME)
        n = rev[buf[i + 1]]
        if (n + rev[buf[i + 2]]) & 0xFF != 0:
            return self._fail(ERR_FRAME)
        start = i + 3
        stop = start + n + 1
        if stop > end:
            return self._fail(ERR_FRAME)
        s = 0
        for k in range(start, stop):
            b = rev[buf[k]]
            buf[k] = b
            s += b
        if s & 0xFF != 0:
            return self._fail(ERR_FRAME)
        if n < 2 or buf[start] != _TFI_CHIP or buf[start + 1] != cmd + 1:
            return self._fail(ERR_RESPONSE)  # includes the error frame (LEN 1, 7F)
        self.data = buf
        self.data_at = start + 2
        self.last_error = OK
        return n - 2

    # ---- split phase: several readers at work at once --------------------------
    # ``poll_begin`` sends InListPassiveTarget and returns at once; ``step``
    # reads the status byte (not before the learned wait of the phase is over:
    # no SPI at all then, and ``wait`` says how long is left) and moves on when
    # the chip is ready: the poll's ACK, its answer, at once the field-off
    # (RFConfiguration: the answer is checked while the chip switches its field
    # off), its ACK and its answer. The caller serves several readers in turn
    # this way while each chip works (the scanner's poll groups). Every phase
    # is timed from its command, so that a look made late (the scanner left
    # the polls running through the main loop's turn: Scanner.launch) does not
    # push the next one later. Learned waits go down (by 20 us when the
    # first look, made on time, found the chip ready), and up only half-way
    # between two looks in a row, busy then ready (so that a phase is read
    # once, not twice); never to a poll with a card, which answers 4 ms later
    # than one without: the wait learned is the shorter. A reset forgets them.
    # bytecode (issue 21, a heap that fits): a thin step (attribute stores, a call into machine.SPI)
    def poll_begin(self, max_targets=2):
        """Send InListPassiveTarget (106 kbps type A) and return at once;
        ``step()`` until it is not PENDING: it then returns what ``poll()``
        returns, with the field switched off after it (``off``: the
        field-off's result, OK or an error)."""
        self.uid_len = 0
        self.uid2_len = 0
        self.commands += 1
        self._write(self._w_poll2 if max_targets == 2 else self._w_poll1)
        self._op = 1
        self._op_t0 = self._clock.ticks_us()
        self._op_last = -1
        self._op_miss = 0

    @micropython.native
    def step(self):
        """PENDING (``wait``: how long the poll can be left alone), or the
        end of the poll begun: the number of tags (UIDs in ``uid``/``uid2``)
        or an error, its field switched off (``off``: OK or an error)."""
        op = self._op
        if op == 0:
            return self._fail(ERR_RESPONSE)  # nothing in flight
        clock = self._clock
        hints = self._hints
        cs = self._cs
        spi = self._spi
        irq = self._irq
        # us since the phase's command (ticks_us wraps at 2**30 on the rp2
        # port): the subtraction here, not a call of ticks_diff
        el = (clock.ticks_us() - self._op_t0) & _TICKS_MASK  # pyright: ignore[reportOperatorIssue]
        while True:
            # one look a command: not before its answer's learned wait (the
            # ACK, due long before, is read at that look too: cycle4), the
            # learned-wait slots 7 (the poll's answer) and 9 (its field-off's)
            slot = op + 5  # 6 poll ACK, 7 its answer; 8 field-off ACK, 9 its answer
            hint = hints[slot | 1]
            if el < hint:
                self.wait = hint - el
                return PENDING  # the chip needed longer than this last time
            # the status byte (as _ready(), inlined: a call less per look)
            if irq is not None:
                ready = irq.value() == 0
            else:
                cs.value(0)
                spi.write_readinto(self._op_status, self._status)
                cs.value(1)
                ready = (self._status[1] & 0x80) != 0
            su = self.step_us
            if not ready:
                if el < (self.ack_timeout_us if op & 1 else self.poll_timeout_us if op == 2 else self.timeout_us):
                    if not op & 1:
                        self._op_last = el
                    m = self._op_miss + 1
                    self._op_miss = m
                    w = su << (m if m < 2 else 2)
                    if op == 2 and el - hint >= su << 1:
                        # the poll's answer still not there two step_us
                        # after the learned time (a poll without a card's):
                        # a tag's, two cascade levels of a 7-byte UID later
                        # (docs/readers.md, "Timings"), not a look every
                        # 0.8 ms until then; then every step_us for 1 ms
                        k = hint + _CARD_US - el
                        w = k if k > su else su if k > -1000 else w
                    self.wait = w
                    return PENDING
                hints[slot] = 0
                if op & 1:
                    return self._end(op, ERR_NO_ACK)
                self._write(self._w_abort)  # tell the chip to drop the command
                return self._end(op, ERR_TIMEOUT)
            # the ACK or the answer (as _read(), inlined)
            buf = self._ack if op & 1 else self._long if op == 2 else self._short
            cs.value(0)
            spi.write(self._op_read)
            spi.readinto(buf, 0)
            cs.value(1)
            if op & 1:
                if buf != self._ack_wire:
                    return self._end(op, ERR_BAD_ACK)
                op += 1
                self._op = op
                self._op_miss = 0
                continue  # its answer's status at once: the look is due (above)
            # the learned wait: the answer came after the last look that
            # found the chip busy and by this one
            last = self._op_last
            if last < 0:
                # ready at the first look: a little earlier next time, if the
                # look was made on time (one made late, the group read a turn
                # later, says nothing of when the chip answered)
                h = hint - 20 if el - hint <= su else hint
            elif el - last <= _LEARN_US:
                h = (last + el) >> 1  # busy, then ready soon after: half-way
            else:
                h = last
            if h < 0:
                h = 0
            if op == 4:
                self._op = 0
                hints[9] = h
                n = self._parse(buf, _RF_CONFIGURATION)
                self.off = n if n < 0 else OK
                return self.found
            # the field off first (RFConfiguration, inlined), then the
            # answer's check while it goes off
            cs.value(0)
            spi.write(self._w_field_off)
            cs.value(1)
            self.commands += 1
            self._op = 3
            self._op_t0 = clock.ticks_us()
            self._op_last = -1
            self._op_miss = 0
            n = self._parse(buf, _IN_LIST_PASSIVE_TARGET)
            if n > 0 and buf[self.data_at] == 0:
                # no tag: nothing to copy (uid_len is 0 since poll_begin);
                # the wait learned from polls without a tag only (one
                # with a tag answers 4.2 ms later)
                self.found = 0
                hints[7] = h
            else:
                self.found = self._targets(n)
            w = hints[9]
            self.wait = w if w > 0 else su
            return PENDING

    # bytecode: a failed phase (rare), out of step()'s native code
    def _end(self, op, err):
        # a poll's failure is its answer, and its field goes off all the same;
        # a field-off's failure ends the command
        self._fail(err)
        if op < 3:
            self.found = err
            return self._off_now(self._clock)
        self._op = 0
        self.off = err
        return self.found

    # bytecode (issue 21, a heap that fits): a thin step (attribute stores, a call into machine.SPI)
    def _off_now(self, clock):
        # RFConfiguration field off, its ACK and answer read by step()
        self.commands += 1
        self._write(self._w_field_off)
        self._op = 3
        self._op_t0 = clock.ticks_us()
        self._op_last = -1
        self._op_miss = 0
        w = self._hints[8]
        self.wait = w if w > 0 else self.step_us
        return PENDING

    # bytecode (issue 21, a heap that fits): a thin step (attribute stores, calls into machine.SPI)
    # or once per answer with a tag, where native buys little; native: 1,072 B of the chip's heap
    def _targets(self, n):
        # the poll's answer (n data bytes, or an error) into uid/uid2
        self.uid_len = 0
        self.uid2_len = 0
        if n < 0:
            return n
        d = self.data
        i = self.data_at
        end = i + n
        if n < 1:
            return self._fail(ERR_RESPONSE)
        count = d[i]
        i += 1
        if count > 2:
            return self._fail(ERR_RESPONSE)
        for t in range(count):
            if i + 5 > end:
                return self._fail(ERR_RESPONSE)
            if t == 0:
                self.sens_res = (d[i + 1] << 8) | d[i + 2]
                self.sel_res = d[i + 3]
            m = d[i + 4]
            i += 5
            if m > 10 or i + m > end:
                return self._fail(ERR_RESPONSE)
            dst = self.uid if t == 0 else self.uid2
            for k in range(m):
                dst[k] = d[i + k]
            if t == 0:
                self.uid_len = m
            else:
                self.uid2_len = m
            i += m
        return count
