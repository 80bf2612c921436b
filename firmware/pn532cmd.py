# The PN532 driver's blocking commands and its set-up (pn532.PN532's
# methods of the same names: PN532.__getattr__ loads this module when one is
# asked for). The set-up of a reader (at the board's start, after a reset),
# the self-test and a tag's pages (pn532tag) use them; the polling path
# (PN532.poll_begin, step) never does, so the scanner drops the module after
# each reader's set-up (scanner.Scanner._setup) and the play's heap does not
# hold its code (docs/firmware.md, "Heap"). Each function takes the driver as
# its first argument.
from micropython import const
import time

# pn532's byte-reversal table and 106 kbps type A analog settings, given
# by pn532._cmd at the load (bind): this module does not import pn532
_REV = b""
_RF_ANALOG_106A = b""


def bind(rev, rf_analog):
    global _REV, _RF_ANALOG_106A
    _REV = rev
    _RF_ANALOG_106A = rf_analog

OK = const(0)
_ERR_NO_ACK = const(-1)
_ERR_BAD_ACK = const(-2)
_ERR_TIMEOUT = const(-3)
_ERR_RESPONSE = const(-5)

_STATUS_READ = const(0x02)
_DATA_WRITE = const(0x01)
_DATA_READ = const(0x03)
_TFI_HOST = const(0xD4)
_GET_FIRMWARE_VERSION = const(0x02)
_SAM_CONFIGURATION = const(0x14)
_RF_CONFIGURATION = const(0x32)
_IN_LIST_PASSIVE_TARGET = const(0x4A)
_POLL_READ = const(40)  # pn532's: a poll answer with two 10-byte UIDs
_SHORT_READ = const(14)  # version (6 data bytes) and the configuration answers

_ACK = b"\x00\x00\xff\x00\xff\x00"


def _wire_frame(data):
    # SPI bytes for a data write of the frame around ``data`` (TFI + command
    # + parameters): the data-write byte, the frame, every byte bit-reversed.
    n = len(data)
    out = bytearray(n + 8)
    out[0] = _REV[_DATA_WRITE]
    out[1] = 0x00
    out[2] = 0x00
    out[3] = 0xFF  # _REV[0xFF] == 0xFF
    out[4] = _REV[n]
    out[5] = _REV[(-n) & 0xFF]
    s = 0
    for i in range(n):
        s += data[i]
        out[6 + i] = _REV[data[i]]
    out[6 + n] = _REV[(-s) & 0xFF]
    out[7 + n] = 0x00
    return out


def init(
    self,
    spi,
    cs,
    rst=None,
    clock=None,
    irq=None,
    poll_us=500,
    ack_timeout_us=5000,
    timeout_us=10000,
    poll_timeout_us=30000,
    tag_timeout_us=20000,
):
    # PN532.__init__ (the class's docstring names the parameters): the
    # driver's buffers and the frames it sends
    self._spi = spi
    self._cs = cs
    self._rst = rst
    self._irq = irq
    self._clock = clock if clock is not None else time
    #: wait on the reader's clock (the scanner owns none): the clock's own
    #: function, not a method around it (a Python call less per wait)
    self.sleep_us = self._clock.sleep_us
    self.poll_us = poll_us
    self.ack_timeout_us = ack_timeout_us
    self.timeout_us = timeout_us
    self.poll_timeout_us = poll_timeout_us
    self.tag_timeout_us = tag_timeout_us
    cs.value(1)
    if rst is not None:
        rst.value(1)
    # Preallocated: every command of the polling path is a constant frame.
    # The frames no command changes are built once, for the class, and
    # shared by the four readers (less heap: docs/firmware.md, "Heap").
    cls = type(self)
    if cls._w_poll1 is None:
        cls._op_status = bytes((_REV[_STATUS_READ], 0))  # the op, then the status byte's clocks
        cls._op_read = bytes((_REV[_DATA_READ],))
        cls._w_version = _wire_frame(b"\xd4\x02")
        cls._w_field_off = _wire_frame(b"\xd4\x32\x01\x00")
        cls._w_poll2 = _wire_frame(b"\xd4\x4a\x02\x00")  # up to 2 targets
        w = bytearray(7)  # data write of an ACK frame: abort the command
        w[0] = _REV[_DATA_WRITE]
        for i in range(6):
            w[1 + i] = _REV[_ACK[i]]
        cls._w_abort = w
        cls._ack_wire = bytes(_REV[b] for b in _ACK)
        cls._w_poll1 = _wire_frame(b"\xd4\x4a\x01\x00")  # 1 target, 106 kbps type A
    self._status = bytearray(2)
    self._ack = bytearray(6)
    self._short = bytearray(_SHORT_READ)
    self._long = bytearray(_POLL_READ)
    # The set-up's frames (setup, set_max_retries: blocking, one reader at a
    # time) are shared by the readers too, as the class's (issue 21: two
    # buffers less a reader; the attributes stay, so the instance's map keeps
    # its size): SAMConfiguration, normal mode, (timeout, unused), IRQ line
    # driven or not
    if irq is not None:
        if cls._w_sam_irq is None:
            cls._w_sam_irq = _wire_frame(b"\xd4\x14\x01\x14\x01")
        self._w_sam = cls._w_sam_irq
    else:
        if cls._w_sam_plain is None:
            cls._w_sam_plain = _wire_frame(b"\xd4\x14\x01\x14\x00")
        self._w_sam = cls._w_sam_plain
    # Learned waits (us) per slot: 2 * command slot + (0 ACK, 1 answer);
    # slots: 0 other, 1 poll, 2 field off, 5 tag exchange (blocking: the
    # answer timed from the ACK's read); 3 the split-phase poll, 4 its
    # field-off (both phases timed from the command: step()).
    self._hints = [0] * 12
    # MaxRetries: its count filled in by set_max_retries at each call
    if cls._w_retries_all is None:
        cls._w_retries_all = _wire_frame(b"\xd4\x32\x05\xff\x01\x00")
    self._w_retries = cls._w_retries_all
    #: Answer data of the last command: ``data[data_at : data_at + n]``.
    self.data = self._short
    self.data_at = 0
    #: UIDs of the targets found by the last poll (first, second).
    self.uid = bytearray(10)
    self.uid_len = 0
    self.uid2 = bytearray(10)
    self.uid2_len = 0
    self.sens_res = 0
    self.sel_res = 0
    #: IC, Ver, Rev, Support from the last firmware_version().
    self.version = bytearray(4)
    self.last_error = OK
    self.errors = 0
    self.commands = 0
    # The poll in flight (split phase: poll_begin, then step until done):
    # 0 none; 1 its ACK, 2 its answer, 3 the field-off's ACK, 4 its answer
    self._op = 0
    self._op_t0 = 0  # ticks_us when the phase's command was sent (ACK and answer timed from it)
    self._op_last = 0  # us into the command at the last status read (-1: none yet)
    self._op_miss = 0  # status reads that found the chip busy, this phase
    #: the poll's result while its field-off runs
    self.found = 0
    #: the field-off's result once ``step()`` returned: OK or an error
    self.off = OK
    #: status reads between two steps of a command in flight: every
    #: ``step_us`` once the learned wait is over
    self.step_us = 200
    #: after ``step()`` returned PENDING: how long the command can be left
    #: alone (us): what is left of its learned wait; past it, ``step_us``,
    #: doubled after each status read that found the chip busy, up to 4 x
    #: (a poll that finds a card answers 4.2 ms after one that finds none,
    #: whose time the wait learned: eight status reads then, not twenty;
    #: each costs the Pico an SPI transaction and some Python)
    self.wait = 0


def hard_reset(self, low_us=10000, boot_us=20000):
    """Blocking hard reset (outside the polling path)."""
    self.reset_begin()
    self._clock.sleep_us(low_us)
    self.reset_end()
    self._clock.sleep_us(boot_us)


def wake(self, us=1000):
    """Hold NSS low a moment: wakes a chip that sleeps (LowVbat, power-down)."""
    self._cs.value(0)
    self._clock.sleep_us(us)
    self._cs.value(1)

# bytecode (issue 22): blocking commands only (set-up, a tag's page); the
# polling path reads the status byte in step() itself
def _ready(self):
    irq = self._irq
    if irq is not None:
        return irq.value() == 0  # P70_IRQ low: a frame is ready
    cs = self._cs
    cs.value(0)
    self._spi.write_readinto(self._op_status, self._status)  # one transfer: op and status
    cs.value(1)
    # bit 0 (ready) of the status byte, LSB first: only that bit is tested
    return (self._status[1] & 0x80) != 0

# bytecode (issue 21, a heap that fits): blocking commands only (set-up, a tag's page), not the
# polling path; native: 656 B of the chip's heap
def _wait(self, timeout_us, slot):
    # Wait until the chip is ready, at most timeout_us. ``slot`` names the
    # kind of wait (which command, ACK or answer): it first sleeps the
    # learned hint for that slot, the time the chip needed last time less
    # a margin, so that a wait costs one or two status polls, not one per
    # poll_us (each poll is an SPI transaction and some Python on the Pico).
    clock = self._clock
    hints = self._hints
    t0 = clock.ticks_us()
    hint = hints[slot]
    if hint > 0:
        clock.sleep_us(hint)
    polls = 0
    ready = self._ready  # the driver's own (a test's), else _ready above
    while True:
        polls += 1
        if ready():
            if polls == 1:
                hints[slot] = hint - (hint >> 3) - 20  # maybe too long: creep down
            else:
                elapsed = clock.ticks_diff(clock.ticks_us(), t0)
                hints[slot] = elapsed - self.poll_us - (elapsed >> 4)
            if hints[slot] < 0:
                hints[slot] = 0
            return True
        if clock.ticks_diff(clock.ticks_us(), t0) >= timeout_us:
            hints[slot] = 0
            return False
        clock.sleep_us(self.poll_us)

# bytecode (issue 21, a heap that fits): a thin step (attribute stores, calls into machine.SPI)
# or once per answer with a tag, where native buys little; native: 192 B of the chip's heap
def _read(self, buf):
    # Raw (bit-reversed) bytes; _parse un-reverses only what it uses.
    cs = self._cs
    cs.value(0)
    self._spi.write(self._op_read)
    self._spi.readinto(buf, 0)
    cs.value(1)

# bytecode (issue 21, a heap that fits): blocking commands only (set-up), not the polling path;
# native: 576 B of the chip's heap
def _call(self, wire, buf, cmd, timeout_us, slot=0):
    # Send a command, check its ACK, wait for and check its answer.
    # Returns the number of answer data bytes (after D5 CMD+1) or an error.
    # ``slot`` (0..5) keys the learned waits of this kind of command.
    self.commands += 1
    self._write(wire)
    if not _wait(self, self.ack_timeout_us, 2 * slot):
        return self._fail(_ERR_NO_ACK)
    _read(self, self._ack)
    if self._ack != self._ack_wire:
        return self._fail(_ERR_BAD_ACK)
    if not _wait(self, timeout_us, 2 * slot + 1):
        self._write(self._w_abort)  # tell the chip to drop the command
        return self._fail(_ERR_TIMEOUT)
    _read(self, buf)
    return self._parse(buf, cmd)


def firmware_version(self):
    """GetFirmwareVersion into ``version`` (IC, Ver, Rev, Support); OK or an error."""
    n = _call(self, self._w_version, self._short, _GET_FIRMWARE_VERSION, self.timeout_us)
    if n < 0:
        return n
    if n != 4:
        return self._fail(_ERR_RESPONSE)
    for k in range(4):
        self.version[k] = self.data[self.data_at + k]
    return OK


def set_max_retries(self, passive_activation):
    """RFConfiguration MaxRetries: how many extra passive-activation attempts
    InListPassiveTarget makes (0 = one attempt, 0xFF = forever)."""
    w = self._w_retries
    # frame bytes: [6] D4 [7] 32 [8] 05 [9] MxRtyATR [10] MxRtyPSL [11] MxRtyPassiveActivation [12] DCS
    w[11] = _REV[passive_activation & 0xFF]
    s = _TFI_HOST + _RF_CONFIGURATION + 0x05 + 0xFF + 0x01 + (passive_activation & 0xFF)
    w[12] = _REV[(-s) & 0xFF]
    return _call(self, w, self._short, _RF_CONFIGURATION, self.timeout_us)


def set_rx_gain(self, gain):
    """RFConfiguration CfgItem 0x0A (the analog settings for 106 kbps type
    A: 11 CIU registers, UM0701-02 section 7.3.1) with the receiver gain
    RxGain (CIU_RFCfg bits 6-4) set to ``gain``: 0-7 (18, 23, 18, 23, 33,
    38, 43, 48 dB; the chip's default is 5, 38 dB, CIU_RFCfg 0x59). A
    lower gain hears a tag only closer to the antenna: a smaller read zone,
    so a hand fanned near the reader is not read. The other ten registers
    are sent at their defaults. OK or an error."""
    if gain < 0 or gain > 7:
        return _ERR_RESPONSE
    body = bytearray(b"\xd4\x32\x0a" + _RF_ANALOG_106A)
    body[3] = (gain << 4) | (_RF_ANALOG_106A[0] & 0x8F)
    return _call(self, _wire_frame(bytes(body)), self._short, _RF_CONFIGURATION, self.timeout_us)


def setup(self, max_retries=0):
    """Wake, SAMConfiguration (normal mode), bounded passive-activation
    retries, RF field off. OK or the first error."""
    wake(self)
    n = _call(self, self._w_sam, self._short, _SAM_CONFIGURATION, self.timeout_us)
    if n < 0:
        return n
    n = set_max_retries(self, max_retries)
    if n < 0:
        return n
    n = field_off(self)
    if n < 0:
        return n
    return OK

# bytecode (issue 21, a heap that fits): blocking (set-up, self-test), not the polling path;
# native: 176 B
def field_off(self):
    """RFConfiguration: switch the RF field off. OK or an error."""
    n = _call(self, self._w_field_off, self._short, _RF_CONFIGURATION, self.timeout_us, 2)
    return n if n < 0 else OK

# bytecode (issue 21, a heap that fits): blocking (self-test), not the polling path; native: 208 B
def poll(self, max_targets=2):
    """InListPassiveTarget at 106 kbps type A: the number of tags found
    (0, 1, 2) with their UIDs in ``uid``/``uid2``, or an error. The chip
    leaves its field on: call ``field_off()`` after."""
    wire = self._w_poll2 if max_targets == 2 else self._w_poll1
    n = _call(self, wire, self._long, _IN_LIST_PASSIVE_TARGET, self.poll_timeout_us, 1)
    return self._targets(n)
