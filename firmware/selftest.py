"""The table's self-test: is every part there, and wired to the pin the map says?

Hardware:
    Everything in hwconfig.py: four PN532 readers on SPI (each answers
    GetFirmwareVersion after a hard reset through its RSTPD_N line, then takes
    its set-up), the display on I2C (answers at its address), four seat
    buttons (read released at rest), the LED and the buzzer (switched on for
    the builder to see and hear). Interactive mode then asks for a card tap and
    a button press at each seat, which proves the whole path from sticker to
    firmware.

Run it after building and after every change to the wiring:

    tractor-table deploy --port PORT --self-test
    mpremote connect PORT exec "import selftest; selftest.main()"

Dependencies:
    pn532.py; on the Pico, machine (SPI, I2C, Pin, PWM) and hwconfig.py, built
    by main() only. SelfTest itself takes its hardware as arguments, so tests
    run it against simulated readers under CPython and MicroPython.
"""

try:
    from micropython import const
except ImportError:  # CPython (tests)

    def const(x):  # type: ignore[no-redef]
        return x


import pn532

PASS = const(0)
FAIL = const(1)
INFO = const(2)
_MARK = ("ok  ", "FAIL", "    ")
_PN532_IC = const(0x32)
# the four-seat poll cycle the table needs (docs/performance.md)
_CYCLE_TARGET_MS = const(50)


class _MsClock:
    def __init__(self):
        import time

        self._t = time

    def ticks_ms(self):
        return self._t.ticks_ms()  # type: ignore[attr-defined]

    def ticks_diff(self, a, b):
        return self._t.ticks_diff(a, b)  # type: ignore[attr-defined]

    def sleep_ms(self, ms):
        self._t.sleep_ms(ms)  # type: ignore[attr-defined]


class SelfTest:
    """Checks one table; ``results`` collects ``[status, text]`` pairs.

    :param readers: one ``pn532.PN532`` per seat
    :param i2c: the display's bus (``scan()``)
    :param display_addr: where the display must answer
    :param buttons: one pin per seat (``value()``: 1 released, 0 pressed)
    :param pins: (cs, rstpd_n, button) GPIO numbers per seat, for the hints
    :param led: the LED pin (``value(v)``) or None
    :param beep: ``beep(ms)`` sounding the buzzer, or None
    :param clock: ``ticks_ms``/``ticks_diff``/``sleep_ms`` (default: time)
    :param out: called with each result line as it is found
    """

    def __init__(self, readers, i2c, display_addr, buttons, pins=None, led=None, beep=None, clock=None, out=print):
        self.readers = readers
        self.i2c = i2c
        self.display_addr = display_addr
        self.buttons = buttons
        self.pins = pins
        self.led = led
        self.beep = beep
        self.clock = clock if clock is not None else _MsClock()
        self.out = out
        self.results = []
        self.failures = 0
        self.cycle_ms = (-1, -1)  # the poll cycle measured: median, worst (ms)
        self.seat_errors = []  # each seat's errors in it
        self.dead = []  # seats whose reader did not answer at all

    def _say(self, status, text):
        self.results.append([status, text])
        if status == FAIL:
            self.failures += 1
        self.out(_MARK[status] + " " + text)

    def _pin(self, seat, k):
        if self.pins is None:
            return ""
        return " (GP%d)" % self.pins[seat][k]

    def check_readers(self):
        self.dead = []
        for seat, r in enumerate(self.readers):
            r.hard_reset()
            # A PN532 leaves reset in LowVbat mode, where SAMConfiguration must
            # come first: set-up (wake, SAM, retries, field off), then the version.
            err = r.setup()
            if err == pn532.OK:
                err = r.firmware_version()
            if err != pn532.OK:
                self._say(
                    FAIL,
                    "seat %d reader: no answer (error %d): check its cable, its SS wire%s, "
                    "its RSTPDN wire%s and that its switches select SPI" % (seat, err, self._pin(seat, 0), self._pin(seat, 1)),
                )
                self.dead.append(seat)
                continue
            v = r.version
            if v[0] != _PN532_IC:
                self._say(FAIL, "seat %d reader: answers as IC 0x%02x, not a PN532" % (seat, v[0]))
                continue
            self._say(PASS, "seat %d reader: PN532 firmware %d.%d" % (seat, v[1], v[2]))

    def check_cycle(self, rounds=20):
        """The four-seat poll cycle as measured here (poll and field-off of
        each reader in turn, as the scanner serves them), and each seat's
        errors in it: what the table will see, not what it should."""
        c = self.clock
        n = len(self.readers)
        errors = [0] * n
        times = []
        for _ in range(rounds):
            t0 = c.ticks_ms()
            for seat in range(n):
                if seat in self.dead:
                    continue  # failed above: not counted twice
                r = self.readers[seat]
                if r.poll(1) < 0:
                    errors[seat] += 1
                if r.field_off() < 0:
                    errors[seat] += 1
            times.append(c.ticks_diff(c.ticks_ms(), t0))
        times.sort()
        mid = times[len(times) // 2]
        worst = times[-1]
        self.cycle_ms = (mid, worst)
        self.seat_errors = errors
        status = PASS if worst < _CYCLE_TARGET_MS else FAIL
        self._say(status, "poll cycle: median %d ms, worst %d ms over %d rounds of the %d seats (target < %d ms)"
                  % (mid, worst, rounds, n, _CYCLE_TARGET_MS))
        for seat in range(n):
            if seat in self.dead:
                continue
            self._say(PASS if errors[seat] == 0 else FAIL,
                      "seat %d reader: %d error(s) in %d polls" % (seat, errors[seat], rounds))

    def check_display(self):
        found = self.i2c.scan()
        if self.display_addr in found:
            self._say(PASS, "display: answers at 0x%02x" % self.display_addr)
        elif found:
            self._say(FAIL, "display: nothing at 0x%02x, but something at %s: wrong address setting?" % (self.display_addr, " ".join("0x%02x" % a for a in found)))
        else:
            self._say(FAIL, "display: no answer on I2C: check VCC, GND, and SDA/SCL (not swapped)")

    def check_buttons(self):
        for seat, b in enumerate(self.buttons):
            if b.value():
                self._say(PASS, "seat %d button: released" % seat)
            else:
                self._say(FAIL, "seat %d button%s reads pressed at rest: shorted to GND, or a wire on the wrong pin" % (seat, self._pin(seat, 2)))

    def show_and_sound(self):
        if self.led is not None:
            self.led.value(1)
            self._say(INFO, "LED: on now (it should be lit)")
        if self.beep is not None:
            self.beep(150)
            self._say(INFO, "buzzer: beeped (you should have heard it)")
        if self.led is not None:
            self.clock.sleep_ms(300)
            self.led.value(0)

    def _wait(self, seat, what, done, timeout_ms):
        c = self.clock
        start = c.ticks_ms()
        while c.ticks_diff(c.ticks_ms(), start) < timeout_ms:
            r = done()
            if r:
                return r
            c.sleep_ms(50)
        self._say(FAIL, "seat %d: no %s within %d s" % (seat, what, timeout_ms // 1000))
        return 0

    def check_taps(self, timeout_ms=10000):
        for seat, r in enumerate(self.readers):
            self.out("     seat %d: put a card on the reader" % seat)

            def seen(r=r):
                n = r.poll(1)
                return 1 if n == 1 else 0

            if self._wait(seat, "card", seen, timeout_ms):
                uid = "".join("%02x" % r.uid[k] for k in range(r.uid_len))
                self._say(PASS, "seat %d reader: read tag %s" % (seat, uid))
            r.field_off()

    def check_presses(self, timeout_ms=10000):
        for seat, b in enumerate(self.buttons):
            self.out("     seat %d: press the seat button" % seat)

            def pressed(b=b):
                return 1 if not b.value() else 0

            if self._wait(seat, "button press", pressed, timeout_ms):
                self._say(PASS, "seat %d button: press seen" % seat)

    def run(self, interactive=False, timeout_ms=10000):
        """All checks; the number of failures (0: the table is good)."""
        self.check_readers()
        self.check_cycle()
        self.check_display()
        self.check_buttons()
        self.show_and_sound()
        if interactive:
            self.check_taps(timeout_ms)
            self.check_presses(timeout_ms)
        if self.failures:
            self.out("self-test: %d problem(s); see hardware/README.md, troubleshooting" % self.failures)
        else:
            self.out("self-test: all good")
        return self.failures


def main(interactive=True):
    """Build the table's hardware from hwconfig.py and test it (on the Pico)."""
    try:
        import machine
        from machine import I2C, PWM, Pin
    except ImportError:
        print("self-test: needs the Pico's hardware (machine.SPI, I2C, Pin); nothing to test here")
        return -1
    import time

    import hwconfig as H
    import picohw

    readers = picohw.readers(machine)
    i2c = I2C(H.I2C_ID, sda=Pin(H.I2C_SDA), scl=Pin(H.I2C_SCL), freq=H.I2C_FREQ)
    if H.DISPLAY_RESET >= 0:
        # an SSD1309's RES#: the pin's pull-down holds it in reset (no answer
        # on I2C) until it is driven high
        Pin(H.DISPLAY_RESET, Pin.OUT, value=1)
    buttons = [Pin(p, Pin.IN, Pin.PULL_UP) for p in H.BUTTONS]
    led = Pin(H.LED, Pin.OUT, value=0)
    pwm = PWM(Pin(H.BUZZER))

    def beep(ms):
        pwm.freq(2000)
        pwm.duty_u16(32768)
        time.sleep_ms(ms)
        pwm.duty_u16(0)

    pins = [(H.READER_CS[s], H.READER_RSTPD_N[s], H.BUTTONS[s]) for s in range(H.SEATS)]
    return SelfTest(readers, i2c, H.DISPLAY_ADDR, buttons, pins, led, beep).run(interactive)
