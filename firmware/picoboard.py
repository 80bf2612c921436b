# The real table's board for main.App (the interface is described in
# main.py): pins from hwconfig.py, the PN532 readers (picohw.readers) through
# the scanner, the display on I2C (the panel the pin map names: ssd1306.py or
# ssd1309.py), four buttons (ButtonDecoder), a PWM buzzer, flash
# (persist.Store) and the USB serial (ttlink_io.StdioPort).
#
# Loaded only on the Pico, by main.main() (mainstart.pico_app): the virtual
# table brings its own board (host/tractor_table/sim/board/mpy/vboard.py). Its
# set-up, which runs once, is picostart.py's, loaded for it and dropped.
import sys

import events as E
import tablebase as T

try:
    from micropython import const
except ImportError:

    def const(x):  # type: ignore[no-redef]
        return x


try:
    from typing import Any  # noqa: F401 - the annotations' (the type checker's only)
except ImportError:
    pass

try:
    from time import ticks_diff  # type: ignore[attr-defined]
except ImportError:

    def ticks_diff(a, b):  # type: ignore[no-redef]
        # a - b for ticks that wrap as the rp2 port's ticks_ms (period 2**30)
        return ((a - b + 0x20000000) & 0x3FFFFFFF) - 0x20000000


# Button timing (ms): a press shorter than LONG_MS is a click; two clicks
# within DOUBLE_MS are a double press (challenge); a press held LONG_MS or more
# is an undo. A click is reported once DOUBLE_MS passed without a second one.
LONG_MS = const(800)
DOUBLE_MS = const(350)
DEBOUNCE_MS = const(20)
# a change this soon after the last one (ms, ticks_diff) is contact bounce;
# one stamped before it (the level read at the turn's ``now``, an edge stamped
# later in the turn) is too, up to LONG_MS before: a last change stamped days
# ago (ticks_ms wraps every 2**30 ms) is no bounce, whatever its difference
_BOUNCE_MIN = const(-LONG_MS)
# the buttons' edges timestamped by their pin interrupts, kept until the main
# loop's next turn (a power of two): a turn of the loop can last hundreds of
# ms (a save's erase), a click must still be judged by its real edges
_EDGES = const(16)
# Pin.IRQ_FALLING | Pin.IRQ_RISING on the rp2 port (GPIO_IRQ_EDGE_FALL 4,
# GPIO_IRQ_EDGE_RISE 8): an interrupt's flags when both edges came
_IRQ_BOTH = const(12)
# the watchdog's timeout: picostart.WDT_MS
# after an I2C error the display is set up again this often (ms)
_DISPLAY_RETRY_MS = const(5000)
# the snapshot on littlefs, in a directory of its own (persist.py; an older
# firmware's /table.json is read until the first save: picostart.setup)
STORE_PATH = "/save/table.json"


class ButtonDecoder:
    """Turns raw button levels into clicks, double presses and long presses.

    feed(seat, pressed, now) with the level of each button at each poll;
    take(now) returns the [(seat, kind)] decided by now, the caller's to keep,
    or () when none (shared: never the decoder's own list, which a caller
    could change). Sans-IO, no allocation per poll but for a result. Times are ticks_ms values, compared with
    ticks_diff: a press across the wrap of ticks_ms (every 2**30 ms, 12.4
    days) is judged as any other."""

    def __init__(self, seats=4):
        self.down_at = [-1] * seats  # when the current press began, -1 up
        self.last_change = [-(1 << 29)] * seats
        self.clicks = [0] * seats
        self.click_at = [0] * seats
        self.long_sent = [False] * seats
        self.out = []

    def feed(self, seat, pressed, now):
        if (self.down_at[seat] >= 0) == bool(pressed):
            if pressed and not self.long_sent[seat] and ticks_diff(now, self.down_at[seat]) >= LONG_MS:
                self.long_sent[seat] = True
                self.clicks[seat] = 0
                self.out.append((seat, E.BTN_UNDO))
            return
        if _BOUNCE_MIN < ticks_diff(now, self.last_change[seat]) < DEBOUNCE_MS:
            return  # contact bounce
        self.last_change[seat] = now
        if pressed:
            self.down_at[seat] = now
            self.long_sent[seat] = False
            return
        held = ticks_diff(now, self.down_at[seat])
        self.down_at[seat] = -1
        if self.long_sent[seat]:
            return
        if held >= LONG_MS:
            # held long, and released before a poll saw it held (a press
            # wholly inside one long turn of the main loop): still an undo
            self.clicks[seat] = 0
            self.out.append((seat, E.BTN_UNDO))
            return
        self.clicks[seat] += 1
        self.click_at[seat] = now
        if self.clicks[seat] >= 2:
            self.clicks[seat] = 0
            self.out.append((seat, E.BTN_CHALLENGE))

    def take(self, now):
        for s in range(len(self.clicks)):
            if self.clicks[s] and self.down_at[s] < 0 and ticks_diff(now, self.click_at[s]) >= DOUBLE_MS:
                self.clicks[s] = 0
                self.out.append((s, E.BTN_OK))
        out = self.out
        if not out:
            return ()  # the empty tuple: a constant, no allocation
        self.out = []
        return out


# What PicoBoard.taps() returns when no card came: shared, never appended to.
_NO_TAPS = ()

# The main loop's period (ms) with the readers on the second core (main.App.run:
# 5 ms otherwise): what core 1 saw waits for the loop's next turn, half of it
# on average
_CORE1_PACE_MS = const(2)

# Sounds: (frequency Hz, length ms) by events.SND_*.
_TONES = ((0, 0), (2000, 15), (1500, 60), (400, 400), (2500, 120), (3000, 400))


class PicoBoard:
    """The real table: pins from hwconfig.py, PN532 readers on SPI through the
    scanner, the display's panel on I2C, four buttons, a PWM buzzer, flash, USB serial."""

    # what __init__ sets (picostart.setup), for the type checker only:
    # MicroPython discards a class body's bare annotations
    _time: "Any"
    _pressed: int
    _scanner_mod: "Any"
    cards: "Any"
    problem: str
    decks: int
    scanner: "Any"
    shown: "Any"
    readers_down: int
    view_changed: bool
    tag_sink: "Any"
    oled: "Any"
    display_errors: int
    display_inits: int
    _display_retry: int
    panel: "Any"
    buttons: "list[Any]"
    decoder: ButtonDecoder
    _edge_t: "Any"
    _edge_v: bytearray
    _edge_r: int
    pwm: "Any"
    _tone_until: int
    led: "Any"
    port: "Any"
    store: "Any"
    rand: "Any"
    uid: "bytes | None"
    _machine: "Any"
    wdt: "Any"

    # the group taps() set to work was read between a frame's pages and the
    # next one set to work there (serve_readers): mid_readers() leaves it to the
    # next turn's taps(); an instance's own True while so
    _served = False
    # the readers on the second core (readers_core1): readcore's control bytes
    core1 = None

    def __init__(self, machine=None, store_path=STORE_PATH):
        # machine: the rp2 port's module, or (tests) a stand-in with the same
        # classes. The set-up runs once: its code is picostart.py's, loaded
        # for it and dropped after it if it came from a .mpy file (the Pico;
        # one compiled from source, the tests, is kept), as main.py's start is
        # mainstart's
        import picostart

        picostart.setup(self, machine, store_path, ButtonDecoder, _DISPLAY_RETRY_MS, _EDGES)
        m = sys.modules.get("picostart")
        if m is not None and not getattr(m, "__file__", ".py").endswith(".py"):
            del sys.modules["picostart"]

    def feed(self):
        self.wdt.feed()

    def reset(self):
        self._machine.reset()

    def readers_core1(self, d=None):
        # the readers polled on the second core from now on (readcore.py,
        # issue 22): taps() takes what they saw, the main loop's turn no
        # longer polls them; with main.App's display model d, a card seen
        # once is drawn by core 1 at once (readcore.mark)
        import readcore

        ctl = bytearray(4)
        readcore.start(self.scanner, self._time, ctl, self, d)
        self.core1 = ctl
        self.pace_ms = _CORE1_PACE_MS

    def deinit(self):
        # the table stops (a maintenance stop: main.App.run returns to the
        # REPL): core 1's loop ends after its pair in hand, the readers' bus
        # is free again
        if self.core1 is not None:
            import readcore

            readcore.stop(self.core1)

    def busy(self, now):
        sc = self.scanner
        if self.core1 is not None:
            # core 1 saw something, or asks for a reader's set-up: at once
            return sc._q_len > 0 or sc.setup_due >= 0
        return sc.due(now)

    def card_pending(self, now):
        # a reader saw a tag once and its confirming poll is to come: no save
        # may start now (main.App.step); the group launched this turn is read
        # first (no field on, no answer unread, through a flash erase)
        sc = self.scanner
        if self.core1 is not None:
            # (core 1's: the flash's work would stop it until done) read
            # under the queue's lock: asked only when a save step or a
            # collection is due, and then what core 1 has seen by now counts
            # (the board model's cores meet at a lock: cores.py)
            lk = sc.lock
            lk.acquire()
            p = sc._q_len > 0 or max(sc._pend) > 0
            lk.release()
            return p
        p = getattr(sc, "seen_once", None)
        return p is not None and p(now)

    def display_due(self, now):
        # the display is down and its next set-up is due: draw a frame now
        return self.oled is None and self._time.ticks_diff(now, self._display_retry) >= 0

    def ticks_ms(self):
        return self._time.ticks_ms()

    def sleep_ms(self, ms):
        self._time.sleep_ms(ms)

    def running(self):
        return True

    def taps(self, now):
        sc = self.scanner
        S = self._scanner_mod
        out = None  # the idle poll (nearly every call) allocates nothing
        n = sc._q_len  # what the turn's second group saw (mid_readers()): taken first
        if self.core1 is not None:
            # the readers are core 1's: what they saw is taken below; a
            # reader's set-up it asked for is made here (Scanner._bring_up)
            s = sc.setup_due
            if s >= 0:
                sc._setup(s, now)
                sc.setup_due = -1
                n = sc._q_len
        elif not n:
            # the group launched in the last turn (mid_readers()) read; with
            # none launched (the first turn, a group read before a save step,
            # all four at once) a poll of the next group
            n = sc.tick(now, sc._flight < 0)
        if sc._groups > 1 and self.core1 is None:
            # the next group's polls begin now and are read in the middle of
            # the turn (mid_readers()), so that the buttons, the table's work
            # and a tap's frame run while those chips search, and the link
            # while the other group's do: a four-seat cycle is one turn of
            # the main loop, and a card seen once is looked at again by the
            # next turn (its confirming poll a cycle later, not two). Before
            # a save step they are read at once (card_pending:
            # Scanner.seen_once), and a sighting read late is judged by its
            # launch's time: the clock now, after the read above (up to a
            # pair's search and more after the turn's ``now``), so that a
            # card seen once whose dwell is over by then has its confirming
            # poll launched here, not a pair later (Scanner._repoll; issue 22)
            sc.launch(self._time.ticks_ms())
        if n:  # events waiting (pop is not called for none)
            out = []
            while sc.pop():
                if self.tag_sink is not None:
                    self.tag_sink(sc)
                k = sc.kind
                if k == S.EV_CARD:
                    out.append((sc.seat, sc.card))
                    self.view_changed = True  # off the display as seen once
                elif k == S.EV_SEEN or k == S.EV_GONE:
                    self.view_changed = True
                elif k == S.EV_UNKNOWN:
                    out.append((sc.seat, T.UNKNOWN_TAG))
                    self.view_changed = True
                elif k == S.EV_TWO or k == S.EV_CROSSTALK or k == S.EV_FAULT:
                    out.append((sc.seat, T.READER_ERROR))
                    self.view_changed = True
                    if k == S.EV_FAULT:
                        self.readers_down |= 1 << sc.seat
                elif k == S.EV_RECOVERED:
                    self.readers_down &= ~(1 << sc.seat)
                    self.view_changed = True
        if self._tone_until and self._time.ticks_diff(now, self._tone_until) >= 0:
            self.pwm.duty_u16(0)
            self._tone_until = 0
        return _NO_TAPS if out is None else out

    def mid_readers(self, confirm=False):
        # the turn's middle (main.App.step): the group taps() launched read
        # (its fields off), the next one launched, read by the next turn's
        # taps() (or, before a save step, by card_pending: no field is on
        # through the flash's work); True when it saw something (the next
        # turn takes it first, before its work, and nothing is launched).
        # confirm: only if that group is a card's confirming poll, or the
        # group launched after it is, its dwell over (read as soon as its
        # seat's line is drawn, not after the turn's buttons and clock: the
        # confirming poll then searches through them; issue 22), else None
        if self.core1 is not None:
            return None if confirm else False  # the readers are core 1's
        sc = self.scanner
        now = self._time.ticks_ms()
        if confirm and (self._served or not sc.confirming(now)):
            return None
        if self._served:
            # the group taps() set to work was read between the frame's
            # pages: the one set to work then is the next turn's taps()'s
            self._served = False
            return sc._q_len > 0
        if sc._flight < 0:
            return False  # all four at once: polled by taps()
        seen = sc.tick(now, False)
        # the clock after that read (as in taps()): the launch below is
        # stamped with the time its polls begin, and the dwell is measured
        # from it, not from before the read (a read of a pair takes 1-3 ms)
        now = self._time.ticks_ms()
        if seen:
            if confirm:
                # the confirming poll took the other pair's turn: that pair
                # searches now (the next taps() hands these events over
                # without reading it), not from the next turn on
                sc.launch(now)
            return True
        w = sc.dwell_left(now)
        if w:
            # the next group's card seen once: its dwell ends first (a few ms
            # at most), so that this poll confirms it
            self._time.sleep_ms(w)
            now = self._time.ticks_ms()
        sc.launch(now)
        return False

    def serve_readers(self):
        # between two pages of a frame (the display driver's update, a window
        # of the changed columns a line): the readers' group in flight served
        # without waiting, and the next one set to work once it is done, so
        # that a long frame (a trick's end) does not hold the readers up
        # (issue 22, cycle4; served at more points of the main loop's turn
        # too, the first sightings came later: docs/firmware.md, cycle5)
        sc = self.scanner
        if self.core1 is None and sc._flight >= 0 and sc.serve(self._time.ticks_ms()):
            # done: the next group set to work now searches through the
            # frame's last pages and the link; the next turn's taps() reads
            # it (mid_readers() does not wait for it)
            self._served = True

    def _edge(self, pin):
        # a button's pin interrupt (hard: runs at the edge, or as soon as the
        # flash's atomic section around an erase or program ends; the heap is
        # locked): note the edge's time, no allocation
        t = self._time.ticks_ms()
        b = self.buttons
        s = 0
        n = len(b)
        while s < n and b[s] is not pin:
            s += 1
        if s == n:
            return
        et = self._edge_t
        ev = self._edge_v
        p = 1 if pin.value() == self._pressed else 0
        if _BOUNCE_MIN < ticks_diff(t, et[_EDGES + s]) < DEBOUNCE_MS:
            return  # contact bounce: the turn's read of the level settles it
        i = et[_EDGES + n]
        if p == ev[_EDGES + s]:
            # no change of level: nothing, unless both edges came while the
            # interrupts were off (a flash erase or program, up to 400 ms:
            # the IO bank latched both, one interrupt): a whole press (or
            # let-go) inside it, its first edge noted DEBOUNCE_MS before
            if pin.irq().flags() != _IRQ_BOTH:
                return
            et[i & (_EDGES - 1)] = t - DEBOUNCE_MS
            ev[i & (_EDGES - 1)] = s | ((1 - p) << 2)
            i += 1
        ev[_EDGES + s] = p
        et[_EDGES + s] = t
        et[i & (_EDGES - 1)] = t
        ev[i & (_EDGES - 1)] = s | (p << 2)
        et[_EDGES + n] = i + 1

    def presses(self, now):
        pressed = self._pressed
        d = self.decoder
        down = d.down_at
        # the edges since the last turn, in order, at their own times: a click
        # made while the loop was busy (a save's erase) is still a click, a
        # long press still a long press
        et = self._edge_t
        n = et[_EDGES + len(self.buttons)]
        r = self._edge_r
        if n - r > _EDGES:
            r = n - _EDGES  # more than the ring holds: the oldest are gone
        while r != n:
            v = self._edge_v[r & (_EDGES - 1)]
            d.feed(v & 3, v >> 2, et[r & (_EDGES - 1)])
            r += 1
        self._edge_r = r
        for s in range(len(self.buttons)):
            p = self.buttons[s].value() == pressed
            if p or down[s] >= 0:  # up and still up: nothing for the decoder
                d.feed(s, p, now)
        return d.take(now)

    def show(self, buf, lines):
        self.led.value(1)
        t = self._time
        if self.oled is None and t.ticks_diff(t.ticks_ms(), self._display_retry) >= 0:
            # down since an I2C error: set it up again, from time to time
            # (core 1 draws nothing while it is down: readcore.mark)
            try:
                self.panel.init()  # its RAM is unknown: the next frame is whole
                self.oled = self.panel
                self.display_inits += 1
                print("display: back after %d I2C error(s)" % self.display_errors)
            except OSError:
                self._display_retry = t.ticks_add(t.ticks_ms(), _DISPLAY_RETRY_MS)
        if self.oled is not None:
            # the readers on core 1 draw a card seen once themselves
            # (readcore.mark: a few columns of a seat's line): the panel
            # is one core's at a time
            lk = self.oled.lock
            if lk is not None:
                lk.acquire()
            try:
                # the pages whose text line changed, the columns of the
                # characters that differ (the driver's update); line 7 is in
                # inverse video exactly when it holds a message
                # (display.DisplayModel.render): its page goes whole (the
                # driver's default)
                self.oled.update(buf, lines)
            except OSError:
                # the display went away: play on without it, try again later
                self.oled = None
                self.display_errors += 1
                self._display_retry = t.ticks_add(t.ticks_ms(), _DISPLAY_RETRY_MS)
                print("display: I2C error %d, set up again in %d ms" % (self.display_errors, _DISPLAY_RETRY_MS))
            finally:
                if lk is not None:
                    lk.release()
        self.led.value(0)

    def beep(self, sound):
        freq, ms = _TONES[sound]
        if freq:
            self.pwm.freq(freq)
            self.pwm.duty_u16(32768)
            self._tone_until = self._time.ticks_add(self._time.ticks_ms(), ms)
