# mypy: ignore-errors
# (MicroPython code, run by the unix port: not part of the typed host package.)
# The board model's ``time``: on MICROPYPATH ahead of the unix port's built-in
# module, which stays reachable as ``utime``. Everything but the tick and sleep
# functions is the built-in's; those read and advance the board's virtual
# clock (vclock.VClock) once the board installed it (install()), with the rp2
# port's wrap-around: ticks_ms/ticks_us are 30-bit (period 2**30).
import micropython
import utime as _u
from utime import *  # noqa: F401,F403  localtime, time, gmtime, mktime, ...

_MASK = 0x3FFFFFFF
_HALF = 0x20000000
_clock = None
_idle = None  # the board's sleep: idle(us) advances the clock and serves the models


def install(clock, idle):
    global _clock, _idle
    _clock = clock
    _idle = idle


def ticks_us():
    c = _clock
    if c is None:
        return _u.ticks_us()
    c.enter(5)  # a clock call (vclock.CALL_US)
    v = c.now_us & _MASK
    c.leave()
    return v


def ticks_ms():
    c = _clock
    if c is None:
        return _u.ticks_ms()
    c.enter(5)  # a clock call (vclock.CALL_US)
    ms = c.now_us // 1000
    c.last_ms = ms  # the firmware's last reading (picoboot.Person.found)
    c.leave()
    return ms & _MASK


def ticks_cpu():
    return ticks_us()


def ticks_diff(a, b):
    # C on the rp2 port: a model call (its arithmetic is not the firmware's
    # bytecode; before, about 30 us of board time a call)
    c = _clock
    if c is None:
        return ((a - b + _HALF) & _MASK) - _HALF
    c.enter(5)  # a clock call (vclock.CALL_US)
    v = ((a - b + _HALF) & _MASK) - _HALF
    c.leave()
    return v


def ticks_add(a, d):
    c = _clock
    if c is None:
        return (a + d) & _MASK
    c.enter(5)  # a clock call (vclock.CALL_US)
    v = (a + d) & _MASK
    c.leave()
    return v


@micropython.native  # no heap frame: allocates nothing in the firmware's stretch
def sleep_us(us):
    c = _clock
    if c is None:
        _u.sleep_us(us)
        return
    c.enter()
    try:
        _idle(int(us))
    finally:
        c.leave()


def sleep_ms(ms):
    sleep_us(int(ms) * 1000)


def sleep(s):
    sleep_us(int(s * 1000000))
