# Makes the PN532 chip model (host/tractor_table/sim/pn532sim/chip.py, written in
# the subset both runtimes run) importable from the reader tests under CPython
# (as tractor_table.sim.pn532sim.chip) and under MicroPython (as a top-level module
# found beside the test files' folder).
try:
    from tractor_table.sim.pn532sim import chip  # CPython: the installed package
except ImportError:
    import sys

    _here = __file__.rsplit("/", 1)[0] if "/" in __file__ else "."
    sys.path.append(_here + "/../../host/tractor_table/sim/pn532sim")
    import chip  # type: ignore[no-redef]


def rig(seats=4, baudrate=1000000):
    """A simulated bus with ``seats`` PN532s; returns (clock, bus, chips, cs pins, rst pins)."""
    clock = chip.SimClock(1000000)
    bus = chip.SimSpiBus(clock, baudrate)
    chips = []
    css = []
    rsts = []
    for i in range(seats):
        c = chip.Chip(clock, "seat" + str(i))
        cs, rst = bus.attach(c)
        chips.append(c)
        css.append(cs)
        rsts.append(rst)
    return clock, bus, chips, css, rsts


def uid7(n):
    """A 7-byte NTAG-style UID (NXP manufacturer byte 0x04) made from n."""
    return bytes((0x04, (n >> 16) & 0xFF, (n >> 8) & 0xFF, n & 0xFF, 0x5A, 0xA5, n & 0x7F))


def build_map(pairs, decks=1, name="test"):
    """A card map file (firmware/cardmap.py format) from (uid bytes, card id) pairs,
    written here independently of the host's exporter so each checks the other."""
    import binascii

    recs = []
    for uid, card in pairs:
        key = bytes((len(uid),)) + bytes(uid) + bytes(10 - len(uid))
        recs.append(key + bytes((card & 0xFF, card >> 8)))
    recs.sort()
    body = b"".join(recs)
    crc = binascii.crc32(body) & 0xFFFFFFFF
    nm = name.encode()
    head = b"TTCM" + bytes((1, 13, len(recs) & 0xFF, len(recs) >> 8, decks, len(nm), 0, 0))
    head += bytes((crc & 0xFF, (crc >> 8) & 0xFF, (crc >> 16) & 0xFF, crc >> 24))
    head += nm + bytes(32 - len(nm))
    return head + body


def table(seats=4, cards=8, **kw):
    """Four readers, their drivers, a scanner with a map of ``cards`` tags (card i = uid7(i))."""
    import cardmap
    import pn532
    import scanner

    clock, bus, chips, css, rsts = rig(seats)
    drivers = [pn532.PN532(bus, css[i], rsts[i], clock=clock) for i in range(seats)]
    cm = cardmap.CardMap(build_map([(uid7(i), i) for i in range(cards)]))
    sc = scanner.Scanner(drivers, cm, **kw)
    return Table(clock, bus, chips, drivers, sc)


class Table:
    def __init__(self, clock, bus, chips, drivers, sc):
        self.clock = clock
        self.bus = bus
        self.chips = chips
        self.drivers = drivers
        self.sc = sc
        self.events = []
        # EV_SEEN / EV_GONE (what the display shows as seen once), with the
        # simulated ms each was popped at: (kind, seat, card, ms)
        self.shown = []
        self.ticks = 0
        # the main loop's pattern (picoboard.PicoBoard.taps): "" one tick a
        # turn; "launch": every tick is followed by launch() (the next
        # group's polls left running), "twice": a tick that saw nothing by a
        # second tick; each turn then lasts turn_us more (the main loop's
        # own work)
        self.then = ""
        self.turn_us = 0

    def run(self, ms):
        """Drive the scanner for ``ms`` of simulated time; collect its events as
        tuples (kind, seat, card, other, code, uid)."""
        import scanner

        clock = self.clock
        sc = self.sc
        end = clock.ticks_ms() + ms
        while clock.ticks_ms() < end:
            t = clock.ticks_us()
            n = sc.tick(clock.ticks_ms())
            self.ticks += 1
            if self.then == "launch":
                sc.launch(clock.ticks_ms())
            elif not n and self.then == "twice":
                sc.tick(clock.ticks_ms())
            if self.turn_us:
                clock.advance_us(self.turn_us)
            while sc.pop():
                e = (sc.kind, sc.seat, sc.card, sc.other, sc.code, bytes(sc.uid[: sc.uid_len]))
                if sc.kind == scanner.EV_SEEN or sc.kind == scanner.EV_GONE:
                    self.shown.append(e[:3] + (clock.ticks_ms(),))  # the display's: apart
                else:
                    self.events.append(e)
            if clock.ticks_us() == t:
                clock.advance_us(1000)  # every reader waiting: let time pass

    def take(self):
        ev = self.events
        self.events = []
        return ev

    def kinds(self, events, kind):
        return [e for e in events if e[0] == kind]


class RecordingBus(chip.SimSpiBus):
    """The simulated bus, also recording every byte the chips sent back."""

    def __init__(self, clock, baudrate=1000000):
        super().__init__(clock, baudrate)
        self.miso = bytearray()

    def readinto(self, buf, write=0x00):
        for i in range(len(buf)):
            buf[i] = self._byte(write)
            self.miso.append(buf[i])

    def write_readinto(self, wbuf, rbuf):
        for i in range(len(wbuf)):
            rbuf[i] = self._byte(wbuf[i])
            self.miso.append(rbuf[i])


class ReplayBus:
    """Hands back recorded bytes, one by one (allocates nothing), advancing the
    clock exactly as the simulated bus did."""

    def __init__(self, clock, miso, baudrate=1000000):
        self.clock = clock
        self.byte_us = (8 * 1000000 + baudrate - 1) // baudrate
        self.miso = miso
        self.pos = 0

    def write(self, buf):
        self.clock.now_us += len(buf) * self.byte_us

    def readinto(self, buf, write=0x00):
        miso = self.miso
        pos = self.pos
        for i in range(len(buf)):
            buf[i] = miso[pos]
            pos += 1
        self.pos = pos
        self.clock.now_us += len(buf) * self.byte_us

    def write_readinto(self, wbuf, rbuf):
        self.readinto(rbuf)


class PlainPin:
    """An output pin that only remembers its level."""

    def __init__(self):
        self.level = 1

    def value(self, v=None):
        if v is None:
            return self.level
        self.level = v
        return v
