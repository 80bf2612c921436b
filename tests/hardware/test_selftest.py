# The self-test (firmware/selftest.py) against simulated PN532 chips on a
# simulated SPI bus (host/tractor_table/sim/pn532sim/chip.py, byte-level), a fake
# I2C bus and fake pins: each check passes on a good table and names the fault
# on a bad one.
# runs-under: micropython

try:
    from tractor_table.sim.pn532sim import chip  # CPython: the installed package
except ImportError:
    import sys

    _here = __file__.rsplit("/", 1)[0] if "/" in __file__ else "."
    sys.path.append(_here + "/../../host/tractor_table/sim/pn532sim")
    import chip  # type: ignore[no-redef]

import pn532
import selftest


class FakeI2C:
    def __init__(self, present):
        self.present = present

    def scan(self):
        return list(self.present)


class Button:
    """Released until the clock reaches ``press_at_ms`` (never if None)."""

    def __init__(self, clock, press_at_ms=None, stuck=False):
        self.clock = clock
        self.press_at_ms = press_at_ms
        self.stuck = stuck

    def value(self):
        if self.stuck:
            return 0
        if self.press_at_ms is not None and self.clock.ticks_ms() >= self.press_at_ms:
            return 0
        return 1


class Led:
    def __init__(self):
        self.history = []

    def value(self, v):
        self.history.append(v)


def rig(faults=None):
    clock = chip.SimClock(1000000)
    bus = chip.SimSpiBus(clock, 1000000)
    chips = []
    readers = []
    for seat in range(4):
        c = chip.Chip(clock, "seat" + str(seat))
        cs, rst = bus.attach(c)
        if faults and seat in faults:
            c.inject(faults[seat], cleared_by_reset=False)
        chips.append(c)
        readers.append(pn532.PN532(bus, cs, rst, clock=clock))
    return clock, chips, readers


def make(readers, clock, present=(0x3C,), buttons=None, beeps=None):
    lines = []
    led = Led()
    test = selftest.SelfTest(
        readers,
        FakeI2C(present),
        0x3C,
        buttons if buttons is not None else [Button(clock) for _ in range(4)],
        pins=[(0, 8, 12), (1, 9, 13), (2, 10, 14), (3, 11, 15)],
        led=led,
        beep=(lambda ms: beeps.append(ms)) if beeps is not None else None,
        clock=clock,
        out=lines.append,
    )
    return test, lines, led


def test_a_good_table_passes():
    clock, chips, readers = rig()
    beeps = []
    test, lines, led = make(readers, clock, beeps=beeps)
    assert test.run() == 0
    assert lines[-1] == "self-test: all good"
    passed = [r[1] for r in test.results if r[0] == selftest.PASS]
    assert "seat 0 reader: PN532 firmware 1.6" in passed
    assert len([t for t in passed if "reader: PN532" in t]) == 4
    assert "display: answers at 0x3c" in passed
    assert beeps == [150] and led.history == [1, 0]
    for c in chips:
        assert not c.rf_on  # set-up leaves every field off
    # what it measured: the poll cycle, and each seat's errors (none here)
    mid, worst = test.cycle_ms
    assert 0 < mid <= worst < 50
    assert test.seat_errors == [0, 0, 0, 0]
    assert "seat 3 reader: 0 error(s) in 20 polls" in passed
    assert [t for t in passed if t.startswith(f"poll cycle: median {mid} ms")]


def test_a_seat_with_errors_is_counted():
    clock, chips, readers = rig()
    test, lines, led = make(readers, clock)
    test.check_readers()
    chips[1].fault = chip.FAULT_GARBAGE  # after the set-up: its polls fail
    test.check_cycle(rounds=4)
    assert test.seat_errors[1] > 0 and test.seat_errors[0] == 0
    failed = [r[1] for r in test.results if r[0] == selftest.FAIL]
    assert [t for t in failed if t.startswith("seat 1 reader: ")]


def test_a_silent_reader_is_named_with_its_pins():
    clock, chips, readers = rig({2: chip.FAULT_SILENT})
    test, lines, led = make(readers, clock)
    assert test.run() == 1
    fails = [r[1] for r in test.results if r[0] == selftest.FAIL]
    assert len(fails) == 1
    assert fails[0].startswith("seat 2 reader: no answer (error ")
    assert "its SS wire (GP2), its RSTPDN wire (GP10)" in fails[0]
    assert "problem(s)" in lines[-1]


def test_a_reader_talking_garbage_fails():
    clock, chips, readers = rig({0: chip.FAULT_GARBAGE})
    test, lines, led = make(readers, clock)
    assert test.run() == 1
    assert [r[1][:22] for r in test.results if r[0] == selftest.FAIL] == ["seat 0 reader: no answ"]


def test_display_missing_or_at_another_address():
    clock, chips, readers = rig()
    test, lines, led = make(readers, clock, present=())
    test.check_display()
    assert test.results[-1] == [selftest.FAIL, "display: no answer on I2C: check VCC, GND, and SDA/SCL (not swapped)"]
    test, lines, led = make(readers, clock, present=(0x3D,))
    test.check_display()
    assert test.results[-1][0] == selftest.FAIL and "something at 0x3d" in test.results[-1][1]


def test_a_stuck_button_is_found():
    clock, chips, readers = rig()
    buttons = [Button(clock), Button(clock), Button(clock, stuck=True), Button(clock)]
    test, lines, led = make(readers, clock, buttons=buttons)
    test.check_buttons()
    assert test.failures == 1
    assert test.results[2] == [selftest.FAIL, "seat 2 button (GP14) reads pressed at rest: shorted to GND, or a wire on the wrong pin"]


def test_interactive_taps_and_presses():
    clock, chips, readers = rig()
    uid = bytes((0x04, 0x10, 0x20, 0x30, 0x40, 0x50, 0x60))
    for seat in (0, 1, 3):  # nobody puts a card on seat 2
        chips[seat].place(chip.Tag(uid))
    now = clock.ticks_ms()
    buttons = [Button(clock, now + 500 + 1000 * s) for s in range(4)]
    test, lines, led = make(readers, clock, buttons=buttons)
    test.check_readers()
    test.check_taps(timeout_ms=2000)
    assert [r[1] for r in test.results[4:]] == [
        "seat 0 reader: read tag 04102030405060",
        "seat 1 reader: read tag 04102030405060",
        "seat 2: no card within 2 s",
        "seat 3 reader: read tag 04102030405060",
    ]
    assert [c.rf_on for c in chips] == [False, False, False, False]
    test.check_presses(timeout_ms=60000)
    assert [r[1] for r in test.results[-4:]] == ["seat " + str(s) + " button: press seen" for s in range(4)]
    assert test.failures == 1


def test_main_says_when_there_is_no_pico_hardware():
    # the unix port and CPython have no machine.SPI: main() explains instead of crashing
    assert selftest.main(interactive=False) == -1
