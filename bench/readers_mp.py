# The reader benchmark's MicroPython side (also runs under CPython).
#
#   micropython readers_mp.py BAUD CARDS TICKS SCALE [irq]
#
# ("irq": the drivers read each reader's P70_IRQ line instead of polling the
# SPI status byte)
#
# (with firmware/, host/tractor_table/sim/pn532sim/ and bench/ on MICROPYPATH)
#
# 1. Timing model: four firmware drivers and the scanner against four simulated
#    PN532s (host/tractor_table/sim/pn532sim/chip.py) on a simulated SPI bus at BAUD;
#    the simulated clock advances by every byte's transfer time and by every
#    modelled chip delay, so the cycle time it shows is bus + chip time.
# 2. Firmware CPU time: the same run is recorded byte for byte, then replayed to
#    fresh drivers and a fresh scanner through a bus that only hands back the
#    recorded bytes (and advances the same clock), timed with ticks_us: what the
#    driver and scanner cost in Python, without the chip model.
# 3. Device estimate: the simulated run again, with the clock also advanced by
#    what the firmware's Python costs on an RP2040 (the unix costs of step 2
#    times SCALE, the calibration factor bench_readers.py passes: the generic
#    factor of bench/rp2040.py, measured on the real rp2 port, x1.3 for flash
#    wait states): every status poll costs its share, and every seat poll the
#    rest. Waiting and computing then interleave as they would on the device.
# Prints one JSON line.
import json
import sys
import time

import cardmap
import chip
import pn532
import scanner


class RecordingBus(chip.SimSpiBus):
    def __init__(self, clock, baudrate):
        super().__init__(clock, baudrate)
        self.miso = bytearray()
        self.calls = 0

    def write(self, buf):
        self.calls += 1
        for b in buf:
            self._byte(b)

    def readinto(self, buf, write=0x00):
        self.calls += 1
        for i in range(len(buf)):
            buf[i] = self._byte(write)
            self.miso.append(buf[i])

    def write_readinto(self, wbuf, rbuf):
        self.calls += 1
        for i in range(len(wbuf)):
            rbuf[i] = self._byte(wbuf[i])
            self.miso.append(rbuf[i])


# Calls into the stand-ins for what is C on the Pico (pins, SPI bus, time
# functions): counted, so that their Python cost can be taken out again.
CALLS = [0]
#: Assumed cost of one such C call on an RP2040 (method lookup + call).
C_CALL_US = 5


class CountingClock(chip.SimClock):
    def ticks_us(self):
        CALLS[0] += 1
        return self.now_us

    def ticks_diff(self, a, b):
        CALLS[0] += 1
        return a - b

    def sleep_us(self, us):
        CALLS[0] += 1
        if us > 0:
            self.now_us += us


class ReplayBus:
    # Hands back recorded bytes; advances the clock as the simulated bus did.
    def __init__(self, clock, baudrate, miso):
        self.clock = clock
        self.byte_us = (8 * 1000000 + baudrate - 1) // baudrate
        self.miso = miso
        self.pos = 0

    def write(self, buf):
        CALLS[0] += 1
        self.clock.now_us += len(buf) * self.byte_us

    def readinto(self, buf, write=0x00):
        CALLS[0] += 1
        n = len(buf)
        buf[:] = self.miso[self.pos : self.pos + n]
        self.pos += n
        self.clock.now_us += n * self.byte_us

    def write_readinto(self, wbuf, rbuf):
        self.readinto(rbuf)


class BusyBus(ReplayBus):
    # A chip that stays busy: every status read answers 0x00.
    def __init__(self, clock, baudrate):
        super().__init__(clock, baudrate, b"")

    def readinto(self, buf, write=0x00):
        CALLS[0] += 1
        buf[0] = 0
        self.clock.now_us += len(buf) * self.byte_us

    def write_readinto(self, wbuf, rbuf):
        CALLS[0] += 1
        rbuf[0] = rbuf[-1] = 0
        self.clock.now_us += len(rbuf) * self.byte_us


def uid7(n):
    return bytes((0x04, 0x10, 0, n, 0x21, 0x32, 0x43))


def cmap():
    import binascii

    recs = []
    for i in range(54):
        recs.append(bytes((7,)) + uid7(i) + bytes(3) + bytes((i, 0)))
    recs.sort()
    body = b"".join(recs)
    crc = binascii.crc32(body) & 0xFFFFFFFF
    head = b"TTCM" + bytes((1, 13, 54, 0, 1, 5, 0, 0))
    head += bytes((crc & 0xFF, (crc >> 8) & 0xFF, (crc >> 16) & 0xFF, crc >> 24)) + b"bench" + bytes(27)
    return cardmap.CardMap(head + body)


class Pin:
    def __init__(self):
        self.level = 1

    def value(self, v=None):
        CALLS[0] += 1
        if v is None:
            return self.level
        self.level = v
        return v


def drive(sc, clock, ticks, per_poll_us=0):
    for _ in range(ticks):
        t = clock.now_us
        p = sc.polls
        sc.tick(clock.now_us // 1000)
        while sc.pop():
            pass
        if sc.polls != p:
            clock.now_us += per_poll_us
        if clock.now_us == t:
            clock.now_us += 1000


def now_us():
    return time.ticks_us() if hasattr(time, "ticks_us") else int(time.perf_counter() * 1e6)


class RecordingIrq:
    # The chip's IRQ line, every level read recorded.
    def __init__(self, c, log):
        self.pin = chip.SimIrqPin(c)
        self.log = log

    def value(self, v=None):
        level = self.pin.value()
        self.log.append(level)
        return level


class ReplayIrq:
    # Hands back the recorded IRQ levels (shared log, in order of reading).
    def __init__(self, log, cursor):
        self.log = log
        self.cursor = cursor

    def value(self, v=None):
        CALLS[0] += 1
        k = self.cursor[0]
        self.cursor[0] = k + 1
        return self.log[k]


class HighPin(Pin):
    # An IRQ line that never goes low (chip busy).
    def value(self, v=None):
        CALLS[0] += 1
        return 1


def wait_iteration_us(baud, irq):
    # Unix cost of one turn of the driver's status-polling loop (chip busy),
    # and the stand-in calls it makes.
    clock = CountingClock(0)
    bus = BusyBus(clock, baud)
    d = pn532.PN532(bus, Pin(), Pin(), clock=clock, irq=HighPin() if irq else None)
    turn = d.poll_us + 2 * bus.byte_us
    n = 20000
    c0 = CALLS[0]
    start = now_us()
    d._wait(n * turn - 1, 0)
    return (now_us() - start) / n, (CALLS[0] - c0) / n


def stand_in_call_us():
    # Unix cost of one stand-in call (pin, bus, clock), averaged over the three.
    clock = CountingClock(0)
    bus = BusyBus(clock, 1000000)
    pin = Pin()
    one = bytearray(1)
    n = 10000
    start = now_us()
    for _ in range(n):
        pin.value(0)
        bus.readinto(one)
        clock.ticks_us()
    return (now_us() - start) / (3 * n)


def build(baud, cards, bus_class=chip.SimSpiBus, irq_log=None):
    clock = chip.SimClock(1000000)
    bus = bus_class(clock, baud)
    drivers = []
    chips = []
    for _ in range(4):
        c = chip.Chip(clock)
        cs, rst = bus.attach(c)
        chips.append(c)
        irq = RecordingIrq(c, irq_log) if irq_log is not None else None
        drivers.append(pn532.PN532(bus, cs, rst, clock=clock, irq=irq))
    for s in range(cards):
        chips[s].place(chip.Tag(uid7(s)))
    return clock, bus, drivers, scanner.Scanner(drivers, cmap())


def count_ready(drivers, counter, extra_us, clock):
    for d in drivers:
        inner = d._ready

        def wrapped(inner=inner):
            counter[0] += 1
            clock.now_us += extra_us
            return inner()

        d._ready = wrapped


def main(argv):
    baud = int(argv[1])
    cards = int(argv[2])
    ticks = int(argv[3])
    scale = float(argv[4])
    warm = 40
    # 1. simulated run, recorded
    irq = len(argv) > 5 and argv[5] == "irq"
    irq_log = bytearray() if irq else None
    clock, bus, drivers, sc = build(baud, cards, RecordingBus, irq_log)
    readies = [0]
    count_ready(drivers, readies, 0, clock)
    drive(sc, clock, warm)
    p0, b0, t0, r0 = sc.polls, bus.bytes, clock.now_us, readies[0]
    drive(sc, clock, ticks)
    polls = sc.polls - p0
    sim_us = clock.now_us - t0
    nbytes = bus.bytes - b0
    ready_per_poll = (readies[0] - r0) / polls
    # 2. replay for the firmware's own CPU time
    runs = []
    for _ in range(5):
        rclock = CountingClock(1000000)
        rbus = ReplayBus(rclock, baud, bus.miso)
        cursor = [0]
        rdrivers = [
            pn532.PN532(rbus, Pin(), Pin(), clock=rclock, irq=ReplayIrq(irq_log, cursor) if irq else None)
            for _ in range(4)
        ]
        rsc = scanner.Scanner(rdrivers, cmap())
        drive(rsc, rclock, warm)
        q0 = rsc.polls
        c0 = CALLS[0]
        start = now_us()
        drive(rsc, rclock, ticks)
        us = now_us() - start
        calls_per_poll = (CALLS[0] - c0) / polls
        assert rsc.polls - q0 == polls, "replay diverged"
        runs.append(us / polls)
    runs.sort()
    cpu = runs[0]  # fastest run: least disturbed by other processes
    turns = []
    units = []
    for _ in range(5):
        turns.append(wait_iteration_us(baud, irq))
        units.append(stand_in_call_us())
    turns.sort()
    units.sort()
    unit = units[0]
    turn, turn_calls = turns[0]
    # Firmware-only Python time: minus the stand-ins' own Python cost.
    fw_poll = max(cpu - calls_per_poll * unit, 0.0)
    fw_turn = max(turn - turn_calls * unit, 0.0)
    fw_other = max(fw_poll - ready_per_poll * fw_turn, 0.0)
    other_calls = max(calls_per_poll - ready_per_poll * turn_calls, 0.0)
    # 3. device estimate
    if True:
        dclock, dbus, ddrivers, dsc = build(baud, cards, chip.SimSpiBus, bytearray() if irq else None)
        dev_turn = int(fw_turn * scale + turn_calls * C_CALL_US)
        dev_other = int(fw_other * scale + other_calls * C_CALL_US)
        count_ready(ddrivers, [0], dev_turn, dclock)
        drive(dsc, dclock, warm, dev_other)
        e0, ep = dclock.now_us, dsc.polls
        drive(dsc, dclock, ticks, dev_other)
        device_cycle_ms = (dclock.now_us - e0) / 1000 / ((dsc.polls - ep) / 4)
    print(
        json.dumps(
            {
                "baud": baud,
                "irq": irq,
                "cards": cards,
                "polls": polls,
                "cycle_ms": sim_us / 1000 / (polls / 4),
                "bytes_per_poll": nbytes / polls,
                "status_polls_per_poll": ready_per_poll,
                "cpu_us_per_poll": cpu,
                "stand_in_calls_per_poll": calls_per_poll,
                "stand_in_call_us": unit,
                "firmware_us_per_poll": fw_poll,
                "device_cpu_ms_per_poll": (fw_poll * scale + calls_per_poll * C_CALL_US) / 1000,
                "device_status_poll_us": dev_turn,
                "device_cycle_ms": device_cycle_ms,
                "scale": scale,
                "max_fields_on": bus.max_fields_on,
            }
        )
    )


if __name__ == "__main__":
    main(sys.argv)
