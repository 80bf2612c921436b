# PN532 chip model: the frames, the RF field, NTAG213 tags, faults, and the
# three host interfaces (SPI, I2C, HSU/UART) at byte level.
#
# This module is written in the subset of Python that both CPython and
# MicroPython accept (no typing at run time, no dataclasses, no f-string
# tricks), so the firmware's driver tests can run the very same chip model
# under MicroPython's unix port. Host-only helpers (threads, pseudo-terminals,
# Blinka-style bus objects) live in the other modules of this package.
#
# Byte-level facts modelled (PN532 User Manual UM0701-02):
#   normal information frame  00 00 FF LEN LCS TFI PD0..PDn DCS 00
#     LEN counts TFI + PD bytes, LEN + LCS == 0 (mod 256),
#     TFI + PD0 + ... + PDn + DCS == 0 (mod 256); TFI D4 host->chip, D5 chip->host
#   ACK 00 00 FF 00 FF 00, NACK 00 00 FF FF 00 00, error frame 00 00 FF 01 FF 7F 81 00
#   SPI: mode 0, LSB first; first byte of a transfer says what it is:
#     02 status read (chip answers 01 when a frame is ready), 01 data write, 03 data read
#   I2C: address 0x24; every read starts with a status byte (01 = ready) then the frame
#   HSU: 115200 8N1; the host wakes the chip with 55 55 00 00 ...
#   After a hard reset (RSTPD_N low then high) the chip is in LowVbat mode: the
#   model accepts only SAMConfiguration there (the host must configure it first).
#
# Timings are modelled, not measured: every figure is a class attribute of Chip
# (microseconds) and docs/readers.md lists them with their sources.

try:
    from collections.abc import Callable
    from typing import Any  # noqa: F401  (used in type comments)
except ImportError:
    pass

ACK = b"\x00\x00\xff\x00\xff\x00"
NACK = b"\x00\x00\xff\xff\x00\x00"
ERROR_FRAME = b"\x00\x00\xff\x01\xff\x7f\x81\x00"

SPI_STATUS_READ = 0x02
SPI_DATA_WRITE = 0x01
SPI_DATA_READ = 0x03

I2C_ADDRESS = 0x24

TFI_HOST = 0xD4
TFI_CHIP = 0xD5

CMD_GET_FIRMWARE_VERSION = 0x02
CMD_SAM_CONFIGURATION = 0x14
CMD_POWER_DOWN = 0x16
CMD_RF_CONFIGURATION = 0x32
CMD_IN_DATA_EXCHANGE = 0x40
CMD_IN_DESELECT = 0x44
CMD_IN_LIST_PASSIVE_TARGET = 0x4A
CMD_IN_RELEASE = 0x52

NTAG_READ = 0x30
NTAG_WRITE = 0xA2

#: Firmware version answered by GetFirmwareVersion: IC, Ver, Rev, Support.
FIRMWARE_VERSION = b"\x32\x01\x06\x07"

# Fault kinds that can be injected into a chip.
FAULT_NONE = "none"
FAULT_SILENT = "silent"  # no answer: MISO/RX stay idle, I2C does not acknowledge
FAULT_GARBAGE = "garbage"  # every byte the chip sends is noise
FAULT_BUSY = "busy"  # takes commands, never becomes ready again
FAULT_SLOW = "slow"  # answers, but slow_us later than usual
FAULTS = (FAULT_NONE, FAULT_SILENT, FAULT_GARBAGE, FAULT_BUSY, FAULT_SLOW)


def reverse_bits(b: int) -> int:
    """The byte with its bit order reversed (LSB-first <-> MSB-first)."""
    r = 0
    for _ in range(8):
        r = (r << 1) | (b & 1)
        b >>= 1
    return r


def checksum(data: "bytes | bytearray", start: int = 0) -> int:
    """The byte that makes ``start + sum(data)`` zero modulo 256."""
    s = start
    for b in data:
        s += b
    return (-s) & 0xFF


def frame(tfi_and_data: bytes) -> bytes:
    """A normal information frame around TFI + data."""
    n = len(tfi_and_data)
    if not 1 <= n <= 254:
        raise ValueError("frame data must be 1..254 bytes, not " + str(n))
    out = bytearray(b"\x00\x00\xff")
    out.append(n)
    out.append((-n) & 0xFF)
    out.extend(tfi_and_data)
    out.append(checksum(tfi_and_data))
    out.append(0)
    return bytes(out)


class SimClock:
    """Simulated time in microseconds; sleeping advances it (no real waiting)."""

    def __init__(self, start_us: int = 0) -> None:
        self.now_us = start_us

    def ticks_us(self) -> int:
        return self.now_us

    def ticks_ms(self) -> int:
        return self.now_us // 1000

    def ticks_diff(self, a: int, b: int) -> int:
        return a - b

    def sleep_us(self, us: int) -> None:
        if us > 0:
            self.now_us += us

    def sleep_ms(self, ms: int) -> None:
        self.sleep_us(ms * 1000)

    def advance_us(self, us: int) -> None:
        self.sleep_us(us)


class Tag:
    """An ISO/IEC 14443-A tag: NTAG213 (7-byte UID, 45 pages of 4 bytes) by
    default, or a MIFARE Classic-like card (4-byte UID, no NTAG memory)."""

    NTAG213_PAGES = 45
    USER_FIRST = 4
    USER_LAST = 39

    def __init__(self, uid: bytes, ntag: bool = True) -> None:
        if len(uid) not in (4, 7, 10):
            raise ValueError("a UID is 4, 7 or 10 bytes, not " + str(len(uid)))
        self.uid = bytes(uid)
        self.ntag = ntag and len(uid) == 7
        if self.ntag:
            self.sens_res = b"\x00\x44"
            self.sel_res = 0x00
        else:
            self.sens_res = b"\x00\x04"
            self.sel_res = 0x08
        self.memory = bytearray(self.NTAG213_PAGES * 4)
        if self.ntag:
            u = self.uid
            self.memory[0:4] = bytes((u[0], u[1], u[2], 0x88 ^ u[0] ^ u[1] ^ u[2]))
            self.memory[4:8] = u[3:7]
            self.memory[8] = u[3] ^ u[4] ^ u[5] ^ u[6]
            self.memory[9] = 0x48
            self.memory[12:16] = b"\xe1\x10\x12\x00"  # capability container, NTAG213
            self.memory[16:20] = b"\x03\x00\xfe\x00"  # empty NDEF message TLV

    def __repr__(self) -> str:
        return f"Tag({self.uid!r})"

    def read(self, page: int) -> "bytes | None":
        """READ (0x30): 16 bytes from ``page`` on, wrapping; None (NAK) if out of range."""
        if not self.ntag or not 0 <= page < self.NTAG213_PAGES:
            return None
        out = bytearray(16)
        for i in range(16):
            out[i] = self.memory[(page * 4 + i) % len(self.memory)]
        return bytes(out)

    def write(self, page: int, data: bytes) -> bool:
        """WRITE (0xA2) of 4 bytes to a user page; False (NAK) otherwise."""
        if not self.ntag or len(data) != 4 or not self.USER_FIRST <= page <= self.USER_LAST:
            return False
        self.memory[page * 4 : page * 4 + 4] = data
        return True

    def page(self, page: int) -> bytes:
        return bytes(self.memory[page * 4 : page * 4 + 4])


# The virtual deck: the tags of the cards at the virtual table (sim/board/mpy/vboard.py),
# the modelled Pico (board/mpy/picoboot.py) and the simulated USB PN532
# (pn532sim/taps.py); the host's card map for it is made from deck_uid
# (tractor_table.sim.virtual.runner.virtual_card_map).
UNKNOWN_UID = b"\x04\xee\xee\x00\x00\x5a\xa5"  # a tag that is no card of the deck
OTHER_UID = b"\x04\xee\xee\x00\x01\x5a\xa5"  # a second such tag


def deck_uid(card: int) -> bytes:
    """The 7-byte NTAG UID of card id ``card`` of the virtual deck."""
    return bytes((0x04, 0x54, 0x54, card >> 8, card & 0xFF, 0x5A, 0xA5))


class FrameParser:
    """Finds frames in a byte stream: normal frames, ACK and NACK. Incremental,
    so it serves a UART stream as well as one SPI/I2C write transaction."""

    HUNT = 0
    LEN = 1
    LCS = 2
    DATA = 3
    DCS = 4

    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        self.state = self.HUNT
        self.prev = -1
        self.length = 0
        self.data = bytearray()
        self.errors = 0
        self.reason = ""

    def feed(self, b: int) -> "tuple[str, bytes] | None":
        """Feed one byte; returns ("frame", data) / ("ack", b"") / ("nack", b"")
        when something complete arrived, ("error", reason) on a bad checksum."""
        st = self.state
        if st == self.HUNT:
            if self.prev == 0x00 and b == 0xFF:
                self.state = self.LEN
            self.prev = b
            return None
        if st == self.LEN:
            self.length = b
            self.state = self.LCS
            return None
        if st == self.LCS:
            n = self.length
            self.prev = -1
            self.state = self.HUNT
            if n == 0x00 and b == 0xFF:
                return ("ack", b"")
            if n == 0xFF and b == 0x00:
                return ("nack", b"")
            if (n + b) & 0xFF != 0 or n == 0:
                self.errors += 1
                self.reason = "length checksum"
                return ("error", b"")
            self.data = bytearray()
            self.state = self.DATA
            return None
        if st == self.DATA:
            self.data.append(b)
            if len(self.data) == self.length:
                self.state = self.DCS
            return None
        # DCS
        self.state = self.HUNT
        self.prev = -1
        if checksum(self.data) != b:
            self.errors += 1
            self.reason = "data checksum"
            return ("error", b"")
        return ("frame", bytes(self.data))


class Chip:
    """One PN532: host frames in, ACK and response frames out, an RF field
    with tags on it, a reset line and injectable faults.

    ``clock`` is any object with ``ticks_us()`` (SimClock, or a real clock).
    The interface classes below (SpiPort, I2cPort, UartPort) turn bus
    traffic into calls on this object.
    """

    # Modelled timings, microseconds (see docs/readers.md).
    ACK_US = 500  # frame received -> ACK readable
    CMD_US = 800  # simple command (version, SAM, RF configuration) after the ACK
    # InListPassiveTarget, ISO/IEC 14443-3 type A at 106 kbit/s (one bit =
    # 128/fc = 9.44 us; docs/readers.md, "Timings", has the sums). Its answer
    # is timed from the command frame (the chip acknowledges and starts the
    # RF work at once), not from the ACK.
    RF_SETTLE_US = 5000  # field switched on -> first REQA (a tag must answer within 5 ms)
    TRY_US = 400  # REQA sent, no ATQA within the PN532's wait: "no (more) card"
    LEVEL_US = 2100  # one cascade level: ANTICOLLISION + UID CLn + SELECT + SAK, with their FDTs
    TAG_READ_US = 1000  # InDataExchange READ (16 bytes)
    TAG_WRITE_US = 5000  # InDataExchange WRITE (NTAG EEPROM write ~4 ms)
    BOOT_US = 2000  # RSTPD_N released -> chip answers
    FOREVER = 1 << 62

    def __init__(self, clock: object, name: str = "pn532") -> None:
        self.clock = clock
        self.name = name
        self.tags = []  # type: list[Tag]
        self.listed = []  # type: list[Tag]
        self.fault = FAULT_NONE
        self.rf_cfg = 0x59  # CIU_RFCfg (RFConfiguration 0x0A): the chip's default
        self.rx_gain = 5  # its RxGain bits: 38 dB
        self.fault_cleared_by_reset = True
        self.slow_us = 0
        self.idle_byte = 0x00
        self.alternate = False  # with two tags and MaxTg=1, answer them in turn
        self._turn = 0
        self._noise = 12345
        self.commands = []  # type: list[int]
        self.bad_frames = 0
        self.resets = 0
        self.rf_on_changes = 0
        self.on_rf = None  # type: Callable[[Chip, bool], None] | None
        self._power_up()
        self.boot_until = 0

    # ---- power and reset -------------------------------------------------
    def _power_up(self) -> None:
        self.powered = True
        self.lowvbat = True
        self.asleep = True  # HSU: waits for a 0x55 wake-up byte
        self.rf_on = False
        self.max_retries = 0xFF
        self.irq_enabled = False  # SAMConfiguration's IRQ byte: drive P70_IRQ
        self.listed = []
        self.queue = []  # type: list[list[Any]]  # [ready_us, frame bytes, is_response]
        self.last_response = b""

    def set_rstpd(self, level: int) -> None:
        """Drive RSTPD_N: low holds the chip in reset (and turns its field off)."""
        if not level:
            if self.powered:
                self.resets += 1
            self.powered = False
            self._set_rf(False)
            self.queue = []
            self.listed = []
            if self.fault_cleared_by_reset:
                self.fault = FAULT_NONE
                self.slow_us = 0
        elif not self.powered:
            self._power_up()
            self.boot_until = self.now() + self.BOOT_US

    def now(self) -> int:
        return self.clock.ticks_us()  # type: ignore[attr-defined, no-any-return]

    def alive(self) -> bool:
        """Powered, booted and not silenced by a fault."""
        return self.powered and self.now() >= self.boot_until and self.fault != FAULT_SILENT

    # ---- scripting ---------------------------------------------------------
    def place(self, tag: Tag) -> None:
        if tag not in self.tags:
            self.tags.append(tag)

    def remove(self, tag: Tag) -> None:
        if tag in self.tags:
            self.tags.remove(tag)
        if tag in self.listed:
            self.listed.remove(tag)

    def clear(self) -> None:
        self.tags = []
        self.listed = []

    def inject(self, fault: str, cleared_by_reset: bool = True, slow_us: int = 50000) -> None:
        if fault not in FAULTS:
            raise ValueError(f"unknown fault {fault!r}; one of {FAULTS!r}")
        self.fault = fault
        self.fault_cleared_by_reset = cleared_by_reset
        self.slow_us = slow_us if fault == FAULT_SLOW else 0

    def noise(self) -> int:
        self._noise = (self._noise * 1103515245 + 12345) & 0x7FFFFFFF
        return (self._noise >> 16) & 0xFF

    def _set_rf(self, on: bool) -> None:
        if on != self.rf_on:
            self.rf_on = on
            self.rf_on_changes += 1
            if self.on_rf is not None:
                self.on_rf(self, on)

    # ---- output queue ------------------------------------------------------
    def ready(self) -> bool:
        """A frame is waiting to be read (the status byte would be 01)."""
        if not self.alive() or self.fault == FAULT_BUSY:
            return False
        return bool(self.queue) and self.queue[0][0] <= self.now()

    def irq(self) -> int:
        """Level of the P70_IRQ line: low while a frame is ready (when enabled)."""
        if self.irq_enabled and self.ready():
            return 0
        return 1

    def head(self) -> bytes:
        return bytes(self.queue[0][1]) if self.queue else b""

    def consume(self) -> None:
        """The host has read the frame at the head of the queue."""
        if self.queue:
            self.queue.pop(0)

    def due(self) -> "list[bytes]":
        """HSU: every frame whose time has come, in order (removed from the queue)."""
        out = []
        while self.queue and self.queue[0][0] <= self.now() and self.alive():
            if self.fault == FAULT_BUSY:
                break
            out.append(self.queue.pop(0)[1])
        return out

    def next_due_us(self) -> int:
        if not self.queue:
            return self.FOREVER
        return int(self.queue[0][0])

    # ---- input -------------------------------------------------------------
    def receive(self, kind: str, data: bytes) -> None:
        """A complete item from the host: ("frame", TFI+data), ("ack"|"nack"), ("error")."""
        if not self.alive():
            return
        if kind == "error":
            self.bad_frames += 1
            return
        if kind == "ack":  # the host aborts the command in progress
            self.queue = []
            return
        if kind == "nack":  # send the last response again
            if self.last_response:
                self.queue = [[self.now(), self.last_response, True]]
            return
        if len(data) < 2 or data[0] != TFI_HOST:
            self.bad_frames += 1
            return
        cmd = data[1]
        if self.lowvbat and cmd != CMD_SAM_CONFIGURATION:
            return  # LowVbat: only SAMConfiguration gets through
        self.commands.append(cmd)
        t = self.now() + self.ACK_US
        self.queue = [[t, ACK, False]]
        result = self.execute(cmd, data[2:])
        if result is None:
            return  # still working (e.g. waiting forever for a tag)
        delay, reply = result
        delay += self.slow_us
        if reply is None:
            out = ERROR_FRAME
        else:
            out = frame(bytes((TFI_CHIP, cmd + 1)) + reply)
        self.last_response = out
        self.queue.append([t + delay, out, True])

    def execute(self, cmd: int, p: bytes) -> "tuple[int, bytes | None] | None":
        """Carry out a command: (delay_us, response data or None for a syntax
        error), or None when the command does not finish by itself."""
        if cmd == CMD_GET_FIRMWARE_VERSION:
            return (self.CMD_US, FIRMWARE_VERSION)
        if cmd == CMD_SAM_CONFIGURATION:
            if len(p) < 1 or not 1 <= p[0] <= 4:
                return (self.CMD_US, None)
            self.irq_enabled = len(p) >= 3 and p[2] == 0x01
            self.lowvbat = False
            self.asleep = False
            return (self.CMD_US, b"")
        if cmd == CMD_RF_CONFIGURATION:
            return self._rf_configuration(p)
        if cmd == CMD_IN_LIST_PASSIVE_TARGET:
            return self._in_list(p)
        if cmd == CMD_IN_DATA_EXCHANGE:
            return self._in_data_exchange(p)
        if cmd in (CMD_IN_RELEASE, CMD_IN_DESELECT):
            if cmd == CMD_IN_RELEASE:
                self.listed = []
            return (self.CMD_US, b"\x00")
        if cmd == CMD_POWER_DOWN:
            self.asleep = True
            self._set_rf(False)
            return (self.CMD_US, b"\x00")
        return (self.CMD_US, None)

    def _rf_configuration(self, p: bytes) -> "tuple[int, bytes | None]":
        if len(p) < 2:
            return (self.CMD_US, None)
        item = p[0]
        if item == 0x01:  # RF field: bit 0 on/off, bit 1 auto RFCA
            self._set_rf(bool(p[1] & 1))
            if not self.rf_on:
                self.listed = []
            return (self.CMD_US, b"")
        if item == 0x05:  # MaxRetries: MxRtyATR, MxRtyPSL, MxRtyPassiveActivation
            if len(p) != 4:
                return (self.CMD_US, None)
            self.max_retries = p[3]
            return (self.CMD_US, b"")
        if item == 0x0A:
            # analog settings, 106 kbps type A: exactly 11 CIU registers
            # (UM0701-02 7.3.1), CIU_RFCfg first: RxGain is its bits 6-4
            if len(p) != 12:
                return (self.CMD_US, None)
            self.rf_cfg = p[1]
            self.rx_gain = (p[1] >> 4) & 7
            return (self.CMD_US, b"")
        # timings, retries; analog settings of 212/424 kbps (8 registers),
        # type B (3), ISO 14443-4 at 212/424/848 kbps (9)
        sizes = {0x02: 3, 0x04: 1, 0x0B: 8, 0x0C: 3, 0x0D: 9}
        if item in sizes:
            if len(p) != 1 + sizes[item]:
                return (self.CMD_US, None)
            return (self.CMD_US, b"")
        return (self.CMD_US, None)

    def _in_list(self, p: bytes) -> "tuple[int, bytes | None] | None":
        if len(p) < 2 or p[0] not in (1, 2) or p[1] > 4:
            return (self.CMD_US, None)
        max_tg = p[0]
        delay = 0
        if not self.rf_on:
            delay += self.RF_SETTLE_US
        self._set_rf(True)
        self.listed = []
        if p[1] != 0x00:  # only 106 kbps type A tags are modelled
            return (delay + (self.max_retries + 1) * self.TRY_US, b"\x00")
        found = list(self.tags)
        if len(found) > 1 and max_tg == 1 and self.alternate:
            self._turn = (self._turn + 1) % len(found)
            found = found[self._turn :] + found[: self._turn]
        found = found[:max_tg]
        if not found and self.max_retries == 0xFF:
            return None  # searches until a tag comes, or the host aborts
        tries = self.max_retries + 1 if self.max_retries != 0xFF else 1
        for tag in found:
            delay += self.select_us(tag)  # an NTAG213: 2 levels, 4.2 ms
        if len(found) < max_tg:
            delay += tries * self.TRY_US
        # timed from the frame: the ACK's time is part of it
        delay = delay - self.ACK_US if delay > self.ACK_US else 0
        out = bytearray((len(found),))
        for i, tag in enumerate(found):
            out.append(i + 1)
            out.extend(tag.sens_res)
            out.append(tag.sel_res)
            out.append(len(tag.uid))
            out.extend(tag.uid)
        self.listed = found
        return (delay, bytes(out))

    def select_us(self, tag: Tag) -> int:
        """Finding and selecting ``tag``: REQA/ATQA, then each cascade level's
        anticollision and select (4-, 7-, 10-byte UIDs: 1, 2, 3 levels)."""
        levels = 1 if len(tag.uid) == 4 else 2 if len(tag.uid) == 7 else 3
        return levels * self.LEVEL_US

    def _in_data_exchange(self, p: bytes) -> "tuple[int, bytes | None]":
        if len(p) < 2:
            return (self.CMD_US, None)
        tg = p[0] & 0x3F
        if not 1 <= tg <= len(self.listed):
            return (self.CMD_US, b"\x27")  # wrong context / no such target
        tag = self.listed[tg - 1]
        if tag not in self.tags or not self.rf_on:
            return (self.TRY_US, b"\x01")  # target gone: time-out
        op = p[1]
        if op == NTAG_READ and len(p) == 3:
            data = tag.read(p[2])
            if data is None:
                return (self.TAG_READ_US, b"\x01")
            return (self.TAG_READ_US, b"\x00" + data)
        if op == NTAG_WRITE and len(p) == 7:
            ok = tag.write(p[2], p[3:7])
            return (self.TAG_WRITE_US, b"\x00" if ok else b"\x01")
        return (self.TAG_READ_US, b"\x01")


class SpiPort:
    """The chip's SPI slave: mode 0, LSB first on the wire.

    ``transfer(wire_byte)`` takes the byte the master clocked out (as the
    master's MSB-first shift register holds it) and returns the byte the chip
    clocked back, in the same convention; a master that does not reverse bits
    sees nonsense, exactly as on the real wire.
    """

    def __init__(self, chip: Chip) -> None:
        self.chip = chip
        self.selected = False
        self.op = -1
        self.index = 0
        self.read_any = False
        self.parser = FrameParser()
        self.bytes_in = 0

    def cs(self, level: int) -> None:
        if not level and not self.selected:
            self.selected = True
            self.op = -1
            self.index = 0
            self.read_any = False
            self.parser.reset()
            if self.chip.alive():
                self.chip.asleep = False  # NSS low wakes the chip
        elif level and self.selected:
            self.selected = False
            if self.op == SPI_DATA_READ and self.read_any:
                self.chip.consume()

    def transfer(self, wire: int) -> int:
        self.bytes_in += 1
        chip = self.chip
        if not self.selected or not chip.alive():
            return chip.idle_byte
        if chip.fault == FAULT_GARBAGE:
            if self.op < 0:
                self.op = reverse_bits(wire)
            return chip.noise()
        b = reverse_bits(wire)
        if self.op < 0:
            self.op = b
            return chip.idle_byte
        out = 0x00
        if self.op == SPI_STATUS_READ:
            out = 0x01 if chip.ready() else 0x00
        elif self.op == SPI_DATA_WRITE:
            item = self.parser.feed(b)
            if item is not None:
                chip.receive(item[0], item[1])
        elif self.op == SPI_DATA_READ:
            if chip.ready():
                head = chip.head()
                if self.index < len(head):
                    out = head[self.index]
                self.read_any = True
            self.index += 1
        return reverse_bits(out)


class I2cPort:
    """The chip's I2C slave at address 0x24 (7-bit)."""

    def __init__(self, chip: Chip) -> None:
        self.chip = chip
        self.parser = FrameParser()

    def present(self) -> bool:
        """Whether the chip acknowledges its address."""
        return self.chip.alive()

    def write(self, data: bytes) -> bool:
        if not self.present():
            return False
        self.chip.asleep = False
        self.parser.reset()
        for b in data:
            item = self.parser.feed(b)
            if item is not None:
                self.chip.receive(item[0], item[1])
        return True

    def read(self, n: int) -> "bytes | None":
        """A read transaction of n bytes: status byte, then the ready frame."""
        chip = self.chip
        if not self.present():
            return None
        out = bytearray(n)
        if chip.fault == FAULT_GARBAGE:
            for i in range(n):
                out[i] = chip.noise()
            return bytes(out)
        if n == 0:
            return b""
        if not chip.ready():
            return bytes(out)
        out[0] = 0x01
        head = chip.head()
        for i in range(1, n):
            if i - 1 < len(head):
                out[i] = head[i - 1]
        if n > 1:
            chip.consume()
        return bytes(out)


class UartPort:
    """The chip's HSU (UART) side: a byte stream in, frames out when due."""

    def __init__(self, chip: Chip) -> None:
        self.chip = chip
        self.parser = FrameParser()

    def feed(self, data: bytes) -> None:
        chip = self.chip
        for b in data:
            if not chip.alive():
                continue
            if chip.asleep:
                if b == 0x55:
                    chip.asleep = False
                    self.parser.reset()
                continue
            item = self.parser.feed(b)
            if item is not None:
                chip.receive(item[0], item[1])

    def output(self) -> bytes:
        """Bytes the chip sends now (frames whose time has come)."""
        chip = self.chip
        frames = chip.due()
        out = bytearray()
        for f in frames:
            if chip.fault == FAULT_GARBAGE:
                for _ in range(len(f)):
                    out.append(chip.noise())
            else:
                out.extend(f)
        return bytes(out)


class SimPin:
    """A machine.Pin-like output pin: ``value()`` reads, ``value(v)`` drives.
    ``on_change(level)`` is called on every change (chip select, RSTPD_N)."""

    def __init__(self, level: int = 1, on_change: "Callable[[int], None] | None" = None) -> None:
        self.level = level
        self.on_change = on_change
        self.changes = 0

    def value(self, v: "int | None" = None) -> int:
        if v is None:
            return self.level
        v = 1 if v else 0
        if v != self.level:
            self.level = v
            self.changes += 1
            if self.on_change is not None:
                self.on_change(v)
        return v

    def __call__(self, v: "int | None" = None) -> int:
        return self.value(v)

    def on(self) -> None:
        self.value(1)

    def off(self) -> None:
        self.value(0)


class SimIrqPin:
    """A machine.Pin-like input that reads a chip's IRQ line."""

    def __init__(self, chip: Chip) -> None:
        self.chip = chip
        self.reads = 0

    def value(self, v: "int | None" = None) -> int:
        self.reads += 1
        return self.chip.irq()

    def __call__(self, v: "int | None" = None) -> int:
        return self.value(v)


class SimSpiBus:
    """A machine.SPI-like master bus shared by several chips, each behind its
    own chip-select SimPin. Every byte advances the clock by its transfer time
    at ``baudrate`` (8 bits per byte, no gaps), so timing figures include the
    bus. Two chip selects low at once is recorded as a collision."""

    def __init__(self, clock: SimClock, baudrate: int = 1000000) -> None:
        self.clock = clock
        self.baudrate = baudrate
        self.ports = []  # type: list[SpiPort]
        self.collisions = 0
        self.bytes = 0
        self.max_fields_on = 0
        self.chips = []  # type: list[Chip]

    def attach(self, chip: Chip) -> "tuple[SimPin, SimPin]":
        """Connect a chip; returns (cs_pin, rstpd_pin) to hand to the driver."""
        port = SpiPort(chip)
        self.ports.append(port)
        self.chips.append(chip)
        chip.on_rf = self._rf_changed
        cs = SimPin(1, port.cs)
        rst = SimPin(1, chip.set_rstpd)
        return cs, rst

    def _rf_changed(self, chip: Chip, on: bool) -> None:
        n = 0
        for c in self.chips:
            if c.rf_on:
                n += 1
        if n > self.max_fields_on:
            self.max_fields_on = n

    def _byte(self, w: int) -> int:
        self.bytes += 1
        self.clock.advance_us((8 * 1000000 + self.baudrate - 1) // self.baudrate)
        selected = None
        count = 0
        for p in self.ports:
            if p.selected:
                selected = p
                count += 1
        if count > 1:
            self.collisions += 1
            for p in self.ports:
                if p.selected:
                    p.transfer(w)
            return 0xFF
        if selected is None:
            return 0xFF
        return selected.transfer(w)

    def write(self, buf: bytes) -> None:
        for b in buf:
            self._byte(b)

    def readinto(self, buf: bytearray, write: int = 0x00) -> None:
        for i in range(len(buf)):
            buf[i] = self._byte(write)

    def write_readinto(self, wbuf: bytes, rbuf: bytearray) -> None:
        for i in range(len(wbuf)):
            rbuf[i] = self._byte(wbuf[i])
