# mypy: ignore-errors
# (MicroPython code, run by the unix port: not part of the typed host package.)
# The board model's virtual clock, in microseconds.
#
# Two things move it:
# - the device models charge what the hardware takes: every SPI byte at the
#   bus's baud rate, every I2C byte at the bus frequency, the PN532's command
#   and RF times (pn532sim/chip.py), the flash's erase and program times, and
#   every sleep the firmware asks for;
# - the firmware's own CPU time: the real time the process spends outside the
#   models (between leaving one model call and entering the next), less the
#   measured real cost of a call into a (Python) model, scaled by
#   ``cpu_factor``, the RP2040's time per unix-port time (bench/rp2040.py:
#   GENERIC x FLASH_WAIT = 125 x 1.3 = 162.5 by default), plus ``call_us`` per
#   call (the rp2 port's C call). The models' own real time is never charged:
#   it is not the Pico's. On a loaded machine the process is preempted: a
#   stretch longer than ``long_us`` during which the process's involuntary
#   context switches grew (``preemptions``, from /proc/self/status) is charged
#   as ``preempted_us``, and so is any stretch while a PN532 model has a
#   command in flight (``waiting``: the firmware is in the driver's few-line
#   wait loop); any stretch is charged at most ``cpu_cap_us``.
#
# The interface is pn532sim's SimClock (now_us, ticks_us, ticks_ms,
# ticks_diff, sleep_us, advance_us) plus enter()/leave() around model calls.
import utime


class VClock:
    def __init__(self, cpu_factor=162.5, start_us=0, cpu_cap_us=1000, long_us=300):
        self.now_us = start_us
        self.factor = cpu_factor
        self.cap = cpu_cap_us
        self.long = long_us
        # preemptions(): the process's count of involuntary context switches
        # (Linux /proc/self/status), or None: a stretch longer than long_us
        # during which it grew was the machine's, not the firmware's
        self.preemptions = None
        self._pc = 0
        # what a preempted stretch is charged (real us): the firmware's own
        # stretches are nearly all under 16 us; the rest of a preempted one is
        # the machine's (charged more, a preemption in the PN532 driver's 5 ms
        # wait for an ACK timed it out)
        self.preempted_us = 16
        self.preempted = 0  # long stretches charged as preempted_us (the process was preempted)
        # waiting(): True while a device model has a command in flight (the
        # firmware waits for its answer); a longer stretch then is not the firmware's
        self.waiting = None
        self.in_wait = 0
        self.cpu_us = 0  # virtual us charged for the firmware's own work
        self.model_us = 0  # virtual us charged by the models and sleeps
        self._depth = 0
        self._mark = utime.ticks_us()
        # real us that one call into a model costs the firmware's side here (a
        # Python call where the rp2 port has a C one): measured by calibrate(),
        # taken off each charge; the RP2040's own cost of such a call instead
        self.overhead_us = 0.0
        self.call_us = 5  # as bench_readers.py charges a C call on the RP2040
        self._cal = -1  # while calibrating: the real us summed
        self.segments = 0  # stretches of firmware work charged
        self.long_segments = 0  # of them longer than 100 us of real time
        self.capped = 0  # of them longer than cpu_cap_us (charged as cpu_cap_us)

    def calibrate(self, call, n=500, rounds=5):
        """Measure overhead_us: the real time, outside the models, of one call
        of ``call`` (a model call doing nothing) in a loop; the smallest of
        ``rounds`` tries of ``n`` calls."""
        best = -1.0
        self.overhead_us = 0.0
        for _ in range(rounds):
            self._cal = 0
            for _ in range(n):
                call()
            per = self._cal / n
            if best < 0 or per < best:
                best = per
        self._cal = -1
        self.overhead_us = best
        return best

    def enter(self):
        """The firmware calls into a model: its CPU time since leave() is charged."""
        if self._depth == 0:
            d = utime.ticks_diff(utime.ticks_us(), self._mark)
            if self._cal >= 0:
                self._cal += d
            elif self.factor:
                d -= self.overhead_us
                self.segments += 1
                if d > 100:
                    self.long_segments += 1
                if d > self.preempted_us and self.waiting is not None and self.waiting():
                    # the firmware is blocked in a driver's wait for a chip's
                    # answer (a loop of a few lines): the rest is the machine's
                    self.in_wait += 1
                    d = self.preempted_us
                elif d > self.long and self.preemptions is not None:
                    c = self.preemptions()
                    if c != self._pc:
                        self._pc = c
                        self.preempted += 1
                        d = self.preempted_us
                if d > self.cap:
                    self.capped += 1
                    d = self.cap
                v = self.call_us
                if d > 0:
                    v += int(d * self.factor)
                self.now_us += v
                self.cpu_us += v
        self._depth += 1

    def mark(self):
        """Called between two turns of the firmware (in its sleeps): the
        preemption count from which the next long stretch is judged."""
        if self.preemptions is not None:
            self._pc = self.preemptions()

    def leave(self):
        self._depth -= 1
        if self._depth <= 0:
            self._depth = 0
            self._mark = utime.ticks_us()

    # --- pn532sim.SimClock's interface
    def ticks_us(self):
        return self.now_us

    def ticks_ms(self):
        return self.now_us // 1000

    def ticks_diff(self, a, b):
        return a - b

    def advance_us(self, us):
        if us > 0:
            self.now_us += us
            self.model_us += us

    def sleep_us(self, us):
        self.advance_us(us)

    def sleep_ms(self, ms):
        self.advance_us(ms * 1000)
