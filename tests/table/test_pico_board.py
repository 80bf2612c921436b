# runs-under: micropython heapsize=192K
# picoboard.PicoBoard, the real table's board, built on a stand-in for the rp2
# port's machine module: pins from hwconfig.py, buttons through the decoder,
# the buzzer on PWM, the display on I2C, and readers that do not answer (an
# SPI bus with no chip on it) reported as reader faults, not a crash.
# Needs MicroPython's time (ticks_ms...): under CPython it only checks that the
# board is not built without it.
import sys
import time

import events as E
import hwconfig as H
import picoboard as M
import table as T


class Pin:
    OUT = 1
    IN = 0
    PULL_UP = 1
    IRQ_FALLING = 4
    IRQ_RISING = 8
    made = {}

    def __init__(self, pid, mode=None, pull=None, value=None):
        self.id = pid
        self.level = 1 if value is None else value
        self.handler = None
        self.last = 0  # the flags of the last interrupt
        Pin.made[pid] = self

    def irq(self, handler=None, trigger=12, hard=False):
        # with a handler: set up; without: the irq object (here the pin), whose
        # flags() are the last interrupt's, as on the rp2 port
        if handler is not None:
            self.handler = handler
        return self

    def flags(self):
        return self.last

    def edge(self, level, flags=0):
        # the level changes: the pin's interrupt runs, as on the rp2 port;
        # flags: the edges it saw (default: the one to this level)
        self.level = level
        self.last = flags or (self.IRQ_RISING if level else self.IRQ_FALLING)
        self.handler(self)

    def value(self, v=None):
        if v is None:
            return self.level
        self.level = v
        return v


class SPI:
    """A bus with nothing on it: every byte read is 0x00."""

    def __init__(self, sid, baudrate=0, polarity=0, phase=0, sck=None, mosi=None, miso=None):
        self.id = sid
        self.baudrate = baudrate
        self.written = 0

    def write(self, buf):
        self.written += len(buf)

    def readinto(self, buf, write=0):
        for i in range(len(buf)):
            buf[i] = 0

    def write_readinto(self, wbuf, rbuf):
        self.written += len(wbuf)
        for i in range(len(rbuf)):
            rbuf[i] = 0


class I2C:
    last = None

    def __init__(self, iid, sda=None, scl=None, freq=0):
        self.writes = []
        I2C.last = self

    def writeto(self, addr, buf):
        self.writes.append((addr, bytes(buf)))

    def writevto(self, addr, bufs):
        data = b""
        for b in bufs:
            data += bytes(b)
        self.writes.append((addr, data))


class PWM:
    last = None

    def __init__(self, pin):
        self.f = 0
        self.duty = -1
        PWM.last = self

    def freq(self, f):
        self.f = f

    def duty_u16(self, d):
        self.duty = d


class Machine:
    pass


class WDT:
    made = None

    def __init__(self, id=0, timeout=5000):
        self.timeout = timeout
        self.feeds = 0
        WDT.made = self

    def feed(self):
        self.feeds += 1


def machine():
    m = Machine()
    m.WDT = WDT
    m.Pin = Pin
    m.SPI = SPI
    m.I2C = I2C
    m.PWM = PWM
    return m


def test_board_on_a_stand_in_machine():
    if not hasattr(time, "ticks_ms"):
        return  # CPython: no MicroPython clock; the MicroPython run checks the board
    b = M.PicoBoard(machine(), store_path="/tmp/tt_picoboard_" + str(id(Pin)) + ".json")
    # no card map on this "flash": the table will say so, and every tag is unknown
    assert b.cards is None and "card map" in b.problem
    assert b.decks == 2
    # the 8 s watchdog runs from the board's start, fed by the main loop
    assert WDT.made is not None and WDT.made.timeout == 8000
    b.feed()
    assert WDT.made.feeds == 1
    # the display (the pin map's panel: ssd1306.py, and not the other
    # driver) was set up over I2C at its address: command transactions,
    # display off first and on last
    bus = I2C.last
    assert H.DISPLAY_KIND == "SSD1306"
    assert "ssd1306" in sys.modules and "ssd1309" not in sys.modules
    assert bus.writes[0][0] == H.DISPLAY_ADDR and bus.writes[0][1][:2] == bytes((0x00, 0xAE))
    assert bus.writes[-1][0] == H.DISPLAY_ADDR and bus.writes[-1][1][0] == 0x00 and bus.writes[-1][1][-1] == 0xAF
    # chip selects idle high, buttons pulled up
    for p in H.READER_CS:
        assert Pin.made[p].level == 1
    # a button: pressed reads 0; a click is an OK once the double-press time passed
    btn = Pin.made[H.BUTTONS[2]]
    now = time.ticks_ms()
    btn.level = H.BUTTON_PRESSED
    assert b.presses(now) == ()
    btn.level = 1 - H.BUTTON_PRESSED
    assert b.presses(now + 100) == ()
    assert b.presses(now + 100 + M.DOUBLE_MS) == [(2, E.BTN_OK)]
    # a click whose press and release both came while the main loop was busy
    # (the interrupt timestamps each edge): still a click, taken at the next turn
    time.sleep_ms(150 + M.DOUBLE_MS)  # past the times the polls above were given
    btn.edge(H.BUTTON_PRESSED)
    time.sleep_ms(100)
    btn.edge(1 - H.BUTTON_PRESSED)
    now = time.ticks_ms()
    assert b.presses(now + 900) == [(2, E.BTN_OK)]
    # a long press made the same way: an undo, by its real duration
    time.sleep_ms(100)
    btn.edge(H.BUTTON_PRESSED)
    time.sleep_ms(M.LONG_MS + 50)
    btn.edge(1 - H.BUTTON_PRESSED)
    got = b.presses(time.ticks_ms() + 900)
    assert got == [(2, E.BTN_UNDO)], got
    # a press and release both while the interrupts were off (a flash erase):
    # one interrupt, both edges in its flags, the level as before: a click
    time.sleep_ms(100)
    btn.edge(1 - H.BUTTON_PRESSED, Pin.IRQ_FALLING | Pin.IRQ_RISING)
    got = b.presses(time.ticks_ms() + 900)
    assert got == [(2, E.BTN_OK)], got
    # one edge with no change of level (the other was bounce): nothing
    time.sleep_ms(100)
    btn.edge(1 - H.BUTTON_PRESSED, Pin.IRQ_RISING)
    assert b.presses(time.ticks_ms() + 900) == ()
    # the buzzer sounds without blocking and stops by itself
    b.beep(E.SND_ERROR)
    assert PWM.last.f == 400 and PWM.last.duty == 32768
    # readers that do not answer: faults, reported as reader errors, no crash;
    # in enroll mode (enrollmode.py) the tag sink sees each scanner event first
    assert b.tag_sink is None
    sunk = []
    b.tag_sink = lambda sc: sunk.append((sc.seat, sc.kind))
    seen = []
    t0 = time.ticks_ms()
    while time.ticks_diff(time.ticks_ms(), t0) < 1500 and len(seen) < 4:
        for seat, card in b.taps(time.ticks_ms()):
            seen.append((seat, card))
        time.sleep_ms(2)
    assert sorted(s for s, c in seen) == [0, 1, 2, 3], seen
    assert all(c == T.READER_ERROR for s, c in seen)
    assert sunk == [(s, b._scanner_mod.EV_FAULT) for s, c in seen], sunk
    b.tag_sink = None
    time.sleep_ms(450)
    b.taps(time.ticks_ms())
    assert PWM.last.duty == 0  # the 400 ms tone ended, checked by the loop
    # the frame goes out after the window's transaction, a data transaction
    # a page (the readers are served between two: PicoBoard.serve_readers)
    n = len(bus.writes)
    b.show(bytearray(1024), [""] * 8)
    assert bus.writes[n] == (H.DISPLAY_ADDR, bytes((0x00, 0x21, 0, 127, 0x22, 0, 7)))
    assert len(bus.writes) == n + 9 and all(len(w[1]) == 129 and w[1][0] == 0x40 for w in bus.writes[n + 1:])
    # the next frames: only the pages whose text line changed (a whole frame
    # is about 24 ms of I2C that the readers wait behind), the columns of the
    # characters that changed, in one transaction after a window of them
    frame = bytearray(1024)
    frame[2 * 128] = 0x7E
    lines = [""] * 8
    lines[2] = "trick1 S0"
    n = len(bus.writes)
    b.show(frame, lines)
    window = [(H.DISPLAY_ADDR, bytes((0x00, 0x21, 0, 71, 0x22, 2, 2)))]
    assert bus.writes[n:] == window + [(H.DISPLAY_ADDR, b"\x40" + bytes(frame[256:328]))], bus.writes[n:]
    n = len(bus.writes)
    b.show(frame, lines)
    assert len(bus.writes) == n  # nothing changed: nothing sent
    # a message on line 7, in inverse video (its last column lit): that page
    # alone goes out, whole (its inverse video spans it), not the whole frame
    # (issue 22: 13 % of frames were whole)
    frame[1023] = 0xFF
    lines[7] = "S1 out of turn"
    b.show(frame, lines)
    window = [(H.DISPLAY_ADDR, bytes((0x00, 0x21, 0, 127, 0x22, 7, 7)))]
    assert bus.writes[n:] == window + [(H.DISPLAY_ADDR, b"\x40" + bytes(frame[896:1024]))], bus.writes[n:]
    n = len(bus.writes)
    # a failed write leaves the display's RAM unknown: once the display is
    # back, the next frame is whole, though only one line changed
    def broken(addr, bufs):
        raise OSError(5)

    bus.writevto = broken
    lines[3] = "S1 2H"
    b.show(frame, lines)
    assert b.oled is None and b.display_errors == 1
    del bus.writevto
    b._display_retry = time.ticks_ms()
    lines[4] = "S2 3H"
    n = len(bus.writes)
    b.show(frame, lines)
    assert b.oled is not None and b.display_inits == 1
    assert bus.writes[-9][1] == bytes((0x00, 0x21, 0, 127, 0x22, 0, 7))  # whole: a window of the 8 pages
    assert all(len(w[1]) == 129 for w in bus.writes[-8:])
    b.store.clear()
