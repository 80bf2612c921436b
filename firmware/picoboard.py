# The real table's board for main.App (the interface is described in
# main.py): pins from hwconfig.py, the PN532 readers (picohw.readers) through
# the scanner, the display on I2C (the panel the pin map names: ssd1306.py or
# ssd1309.py), four buttons (ButtonDecoder), a PWM buzzer, flash
# (persist.Store) and the USB serial (ttlink_io.StdioPort).
#
# Loaded only on the Pico, by main.main(): the virtual table brings its own
# board (host/tractor_table/sim/board/mpy/vboard.py), and main.py, which the
# Pico compiles from source at every start, stays small.
import events as E
import tablebase as T

try:
    from micropython import const
except ImportError:

    def const(x):  # type: ignore[no-redef]
        return x


# Button timing (ms): a press shorter than LONG_MS is a click; two clicks
# within DOUBLE_MS are a double press (challenge); a press held LONG_MS or more
# is an undo. A click is reported once DOUBLE_MS passed without a second one.
LONG_MS = const(800)
DOUBLE_MS = const(350)
DEBOUNCE_MS = const(20)
# the buttons' edges timestamped by their pin interrupts, kept until the main
# loop's next turn (a power of two): a turn of the loop can last hundreds of
# ms (a save's erase), a click must still be judged by its real edges
_EDGES = const(16)
# the watchdog (machine.WDT, at most 8,388 ms on the RP2040): fed every turn
WDT_MS = const(8000)
# after an I2C error the display is set up again this often (ms)
DISPLAY_RETRY_MS = const(5000)


class ButtonDecoder:
    """Turns raw button levels into clicks, double presses and long presses.

    feed(seat, pressed, now) with the level of each button at each poll;
    take(now) returns the [(seat, kind)] decided by now. Sans-IO, no allocation
    per poll but for the result list."""

    def __init__(self, seats=4):
        self.down_at = [-1] * seats  # when the current press began, -1 up
        self.last_change = [-(1 << 29)] * seats
        self.clicks = [0] * seats
        self.click_at = [0] * seats
        self.long_sent = [False] * seats
        self.out = []

    def feed(self, seat, pressed, now):
        if (self.down_at[seat] >= 0) == bool(pressed):
            if pressed and not self.long_sent[seat] and now - self.down_at[seat] >= LONG_MS:
                self.long_sent[seat] = True
                self.clicks[seat] = 0
                self.out.append((seat, E.BTN_UNDO))
            return
        if now - self.last_change[seat] < DEBOUNCE_MS:
            return  # contact bounce
        self.last_change[seat] = now
        if pressed:
            self.down_at[seat] = now
            self.long_sent[seat] = False
            return
        held = now - self.down_at[seat]
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
            if self.clicks[s] and self.down_at[s] < 0 and now - self.click_at[s] >= DOUBLE_MS:
                self.clicks[s] = 0
                self.out.append((s, E.BTN_OK))
        out = self.out
        if out:
            self.out = []
        return out


# What PicoBoard.taps() returns when no card came: shared, never appended to.
_NO_TAPS = ()

# Sounds: (frequency Hz, length ms) by events.SND_*.
_TONES = ((0, 0), (2000, 15), (1500, 60), (400, 400), (2500, 120), (3000, 400))


class PicoBoard:
    """The real table: pins from hwconfig.py, PN532 readers on SPI through the
    scanner, the display's panel on I2C, four buttons, a PWM buzzer, flash, USB serial."""

    def __init__(self, machine=None, store_path="/table.json"):
        # machine: the rp2 port's module, or (tests) a stand-in with the same classes
        import time

        if machine is None:
            import machine
        I2C = machine.I2C
        PWM = machine.PWM
        Pin = machine.Pin

        import cardmap
        import hwconfig as H
        import persist
        import picohw
        import scanner
        import ttlink_io

        self._time = time
        self._pressed = H.BUTTON_PRESSED  # hwconfig is not kept (main.configured_app drops it)
        self._scanner_mod = scanner
        readers = picohw.readers(machine)
        self.cards = None
        self.problem = ""
        try:
            self.cards = cardmap.load(H.CARDS_FILE)
        except (OSError, cardmap.CardMapError) as exc:
            # without a card map every tag is "unknown": the display says why
            # the display says it in 16 columns, the USB serial says why
            print("no card map:", exc)
            self.problem = "no card map"
        self.decks = self.cards.decks if self.cards is not None else 2
        self.scanner = scanner.Scanner(readers, self.cards)  # in pairs (table.cfg: main.configured_app)
        # what the display shows beside the table core's state (main.App):
        # the card each seat's reader saw once, not counted yet (the
        # scanner's, -1 none), and the seats whose reader does not answer
        self.shown = self.scanner.shown
        self.readers_down = 0  # a bit per seat
        self.view_changed = False  # either changed since main.App looked
        self.tag_sink = None  # enrollmode: sees every scanner event first
        self.oled = None
        self.display_errors = 0  # I2C errors of the display
        self.display_inits = 0  # times it was set up again after one
        self._display_retry = 0  # ticks_ms of the next set-up, while it is down
        # the display's driver: the panel the pin map names, and only its module
        i2c = I2C(H.I2C_ID, sda=Pin(H.I2C_SDA), scl=Pin(H.I2C_SCL), freq=H.I2C_FREQ)
        if H.DISPLAY_KIND == "SSD1309":
            from ssd1309 import SSD1309

            rst = H.DISPLAY_RESET  # RES#, or -1: an RC power-on reset on the module
            self.panel = SSD1309(
                i2c, H.DISPLAY_ADDR, H.DISPLAY_WIDTH, H.DISPLAY_HEIGHT, Pin(rst, Pin.OUT, value=1) if rst >= 0 else None
            )
        else:
            from ssd1306 import SSD1306

            self.panel = SSD1306(i2c, H.DISPLAY_ADDR, H.DISPLAY_WIDTH, H.DISPLAY_HEIGHT)
        try:
            self.panel.init()
            self.oled = self.panel
        except OSError:
            self.display_errors += 1
            self._display_retry = time.ticks_add(time.ticks_ms(), DISPLAY_RETRY_MS)
            self.problem = self.problem or "no display (I2C)"
        self.buttons = [Pin(p, Pin.IN, Pin.PULL_UP) for p in H.BUTTONS]
        self.decoder = ButtonDecoder(H.SEATS)
        # each button's edges, timestamped in its pin's interrupt (_edge) and
        # fed to the decoder at the main loop's next turn (presses): a ring of
        # _EDGES (ticks_ms in _edge_t, seat | pressed << 2 in _edge_v); after
        # it, each seat's last edge kept (its ms, and 1 for a press), then (in
        # _edge_t) the edges written so far; _edge_r: those read
        from array import array

        n = H.SEATS
        self._edge_t = array("i", [0] * (_EDGES + n + 1))
        self._edge_v = bytearray(_EDGES + n)
        self._edge_r = 0
        for s in range(n):
            self._edge_t[_EDGES + s] = -(1 << 29)
        handler = self._edge  # one bound method, made here: the interrupt allocates nothing
        for b in self.buttons:
            b.irq(handler=handler, trigger=Pin.IRQ_FALLING | Pin.IRQ_RISING, hard=True)
        self.pwm = PWM(Pin(H.BUZZER))
        self.pwm.duty_u16(0)
        self._tone_until = 0
        self.led = Pin(H.LED, Pin.OUT, value=0)
        self.port = ttlink_io.StdioPort()
        self.store = persist.Store(store_path, in_place=True)  # littlefs: atomic at close
        self.rand = ttlink_io.random32
        # the table's identity (main.App sends it in the link's WELCOME)
        uid = getattr(machine, "unique_id", None)
        self.uid = bytes(uid()) if uid is not None else None
        self._machine = machine
        # the watchdog: it cannot be stopped (a maintenance stop is a reset)
        self.wdt = machine.WDT(timeout=WDT_MS)

    def feed(self):
        self.wdt.feed()

    def reset(self):
        self._machine.reset()

    def busy(self, now):
        return self.scanner.due(now)

    def card_pending(self, now):
        # a reader saw a tag once and its confirming poll is to come: no save
        # may start now (main.App.step)
        p = getattr(self.scanner, "seen_once", None)
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
        n = sc.tick(now)
        if not n and sc._groups > 1:
            # nothing seen: the next group's polls begin now and are read at
            # the next turn's tick, so that the rest of this turn (the link,
            # the buttons, the display) runs while those chips search: a
            # four-seat cycle is one turn of the main loop (a card seen is
            # judged and drawn right after the poll that read it)
            sc.launch(now)
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
        if p == ev[_EDGES + s] or t - et[_EDGES + s] < DEBOUNCE_MS:
            return  # no change, or contact bounce: the turn's read of the level settles it
        ev[_EDGES + s] = p
        et[_EDGES + s] = t
        i = et[_EDGES + n]
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
            try:
                self.panel.init()  # its RAM is unknown: the next frame is whole
                self.oled = self.panel
                self.display_inits += 1
                print("display: back after %d I2C error(s)" % self.display_errors)
            except OSError:
                self._display_retry = t.ticks_add(t.ticks_ms(), DISPLAY_RETRY_MS)
        if self.oled is not None:
            try:
                # the pages whose text line changed (the driver's update):
                # line 7 is in inverse video exactly when it holds a message
                # (display.DisplayModel.render), so its text is its page's key
                self.oled.update(buf, lines)
            except OSError:
                # the display went away: play on without it, try again later
                self.oled = None
                self.display_errors += 1
                self._display_retry = t.ticks_add(t.ticks_ms(), DISPLAY_RETRY_MS)
                print("display: I2C error %d, set up again in %d ms" % (self.display_errors, DISPLAY_RETRY_MS))
        self.led.value(0)

    def beep(self, sound):
        freq, ms = _TONES[sound]
        if freq:
            self.pwm.freq(freq)
            self.pwm.duty_u16(32768)
            self._tone_until = self._time.ticks_add(self._time.ticks_ms(), ms)
