# mypy: ignore-errors
# (MicroPython code, run by the unix port: not part of the typed host package.)
# The board model: a Raspberry Pi Pico with the table's parts, on which the
# real firmware (boot.py, main.py, picoboard.py, picohw.py, ...) runs unchanged.
#
#   micropython start.py pico CTL_IN CTL_OUT IMAGE CPU_FACTOR DECKS [CAUSE BOOTS] [events] [missing=S,S]
# (start.py, the launcher of both modes, measures the heap the models take
# and calls main())
#
# - machine.py and time.py (this folder, ahead of the unix port's built-ins on
#   MICROPYPATH) model the rp2 port's machine module and a virtual clock
#   (vclock.py); this file wires the device models to the pins of the pin map
#   (hwconfig.py, generated from hardware/pinmap.toml):
#   - four PN532 chips (tractor_table/sim/pn532sim/chip.py, byte-accurate) on SPI0,
#     each behind its chip select and RSTPD_N line;
#   - the display the pin map names, an SSD1306 (ssd1306sim.py) or an SSD1309
#     (ssd1309sim.py, its RES# on the pin map's reset pin), on I2C0 at its address;
#   - the four seat buttons: switches to GND, open when released (only the
#     Pico's pull-up makes them read 1), held by a "person" for a click, a
#     double press or a long press;
#   - the buzzer on PWM, the LED;
#   - the flash: the NOR flash model (norflash.NorFlash: the Pico's 352 x
#     4 KiB blocks, NOR semantics, the chip's erase and program times charged
#     to the virtual clock) in the file IMAGE, with littlefs2 on it as
#     `tractor-table deploy` leaves it (board/flashimage.py builds it).
# - It boots as a Pico does: littlefs mounted at /, boot.py, then main.py,
#   whose imports load the .mpy files from flash. machine.reset(), an expired
#   WDT and machine.soft_reset() boot it again (BoardReset); "Q" on the control
#   FIFO cuts the power.
# - The host drives it through the control FIFO and reads the output FIFO as
#   it does the fast board (vboard.py): one protocol, parsed in hands.py, the
#   tags put down by hands.Hands; the grammar, and what only this mode
#   answers ("H", "I", "C", "G", "?"; the display's RAM "P hex", the board's
#   figures "V ..."), in docs/firmware.md, "The control protocol". A power cut
#   ("C n") ends the process at the cut ("C op kind pct" on the output FIFO):
#   the host (board/runner.py) starts a new one on the image as the cut left
#   it, the same USB pty staying plugged in. At the end this mode also
#   writes "Y taps module ..." and "Q hex" (at the heap's live peak: the taps
#   done, the firmware's modules loaded, the display's RAM) and in "V" the
#   platform's share ("platform_bytes": the littlefs mount, apart).
import gc
import os  # noqa: E402
import select
import sys
import time  # noqa: E402  (board/mpy/time.py)
from array import array

import chip as C  # noqa: E402  (pn532sim/chip.py)
import cores  # noqa: E402  (the second core)
import hands  # noqa: E402  (the control protocol, the tags put down: shared with vboard.py)
import machine  # noqa: E402  (board/mpy/machine.py)
import norflash  # noqa: E402
import ssd1306sim  # noqa: E402
import utime  # noqa: E402
import vclock  # noqa: E402
import vfs  # noqa: E402

# a person's pace at a reader: the scanner's defaults (firmware/scanner.py)
# plus 50 ms, as the old virtual board spaced its taps
_ALTERNATE_MS = 300 + 50
_AWAY_MS = 500 + 50
_CROSSTALK_MS = 300 + 50
# a tap: the card lies on the reader at least this long (ms), and until read
# by two polls at least the scanner's confirm_ms apart (20 ms, the larger of
# its two: 15 with the readers on core 1, readcore._DWELL_MS; a card held
# until a third read is counted all the same)
_HOLD_MS = 250
_CONFIRM_MS = 20
# a person's button presses (ms): each phase lasts this long (from the
# model call at which it began: at least this long)
_CLICK_MS = 150
_LONG_MS = 1200
_DOUBLE_ON_MS = 120
_DOUBLE_GAP_MS = 150
# after a press, the person waits for the table to take it before the next
# action: a click is decided DOUBLE_MS (350) after the release, and taken at
# the next read of the button after that
_DECIDED_MS = 400
_AFTER_OTHER_MS = 100
# through a flash erase or program (interrupts off) the person's hands move
# at this step of the chip's time (FlashCalls.advance_us)
_HANDS_US = 1000
# buzzer frequency -> events.SND_* (picoboard._TONES): the host hears which sound
_TONES = {2000: 1, 1500: 2, 400: 3, 2500: 4, 3000: 5}

# board time may run this far ahead of real time since the host's link last
# wrote (Board._pace): a third of the firmware link's DOWN_MS (3 s)
LINK_LEAD_US = 1000000

class PowerOff(BaseException):
    pass


class _Sink:
    # the output FIFO of a board built without the host (tests): kept, last lines
    def __init__(self):
        self.lines = []

    def write(self, b, off=0, n=-1):
        # as a stream's write(buf, off, len) (vevents writes from the link's ring)
        self.lines.append(bytes(b[off:] if n < 0 else b[off : off + n]))
        del self.lines[:-8]


def _card_name(card):
    # display.card_name, as bytes: "AS", "TH", "SJ", "BJ"
    f = card % 54
    if f == 52:
        return b"SJ"
    if f == 53:
        return b"BJ"
    return b"23456789TJQKA"[f % 13 : f % 13 + 1] + b"SHDC"[f // 13 : f // 13 + 1]


def _rev_table():
    t = bytearray(256)
    for b in range(256):
        r = 0
        x = b
        for _ in range(8):
            r = (r << 1) | (x & 1)
            x >>= 1
        t[b] = r
    return bytes(t)


_REV = _rev_table()


def _rev(b):
    return _REV[b]


# the chip model reverses bits in a Python loop: the same, from a table
C.reverse_bits = _rev


def _counting_receive(board, seat, chip):
    orig = chip.receive

    def receive(kind, data):
        if kind == "ack":
            chip.aborts += 1
        elif kind == "frame" and len(data) > 1 and data[1] == C.CMD_IN_LIST_PASSIVE_TARGET:
            board.polled(seat)
        orig(kind, data)

    return receive


class SpiBus:
    """SPI0's wires: every chip's SpiPort; the one selected answers."""

    def __init__(self, board):
        self.board = board
        self.ports = []
        self.bytes = 0
        self.collisions = 0
        self.mode_errors = 0

    def transfer(self, spi, src, dst, fill):
        sel = None
        count = 0
        for p in self.ports:
            if p.selected:
                sel = p
                count += 1
        # the PN532 samples in mode 0, 8-bit words, up to 5 MHz: anything
        # else and it clocks in shifted bits
        ok = spi.polarity == 0 and spi.phase == 0 and spi.bits == 8 and spi.baudrate <= 5000000
        if not ok:
            self.mode_errors += 1
        n = len(src) if src is not None else len(dst)
        self.bytes += n
        if count > 1:
            self.collisions += 1
        for i in range(n):
            w = src[i] if src is not None else fill
            if not ok:
                w = (w >> 1) | 0x80
            r = 0x00  # MISO undriven: the RP2040 pad's reset pull-down
            if count == 1:
                r = sel.transfer(w)
            elif count > 1:
                r = 0xFF
                for p in self.ports:
                    if p.selected:
                        r &= p.transfer(w)  # open outputs fighting: the zeros win
            if not ok:
                r = (r << 1) & 0xFF
            if dst is not None:
                dst[i] = r


class Person(hands.Hands):
    """The players' hands: tags put on readers (hands.Hands: which tags, when),
    buttons pressed, in the order the host sent them, at a person's pace (see
    the module's comment)."""

    def __init__(self, board, decks):
        hands.Hands.__init__(self, board.chips, decks, _ALTERNATE_MS, _AWAY_MS, _CROSSTALK_MS)
        self.board = board
        self.placed_at = [0, 0, 0, 0]
        self.read_at = [-1, -1, -1, -1]  # when the Pico first read the tags placed
        self.read_again = [False] * 4  # ... and read them again confirm_ms later
        self.fifo = []
        # the button being pressed: [seat, kind, phases [(low, ms)], phase, since_us, samples]
        self.press = None
        self.pressed = [False, False, False, False]
        self.busy_until = 0
        self.ping_turn = -1  # a "P n" at the head: answered at this turn of the main loop
        self.taps = TapLog(board)  # each tag put down, until a frame shows it

    def now_ms(self):
        return self.board.clock.now_us // 1000

    def idle(self):
        return not self.fifo and self.press is None and self.readers_idle()

    def update(self, now_ms):
        fifo = self.fifo
        while fifo and self.press is None and now_ms >= self.busy_until:
            op, seat, arg = fifo[0]
            if op == b"T":
                self.waiting[seat].append(arg)
                fifo.pop(0)
                continue
            if not self.readers_idle():
                break
            if op == b"P":
                # every input before it taken: answered two turns of the
                # main loop later (the turn that took the last, and one more)
                turns = self.board.feeds
                if self.ping_turn < 0:
                    self.ping_turn = turns + 2
                if turns < self.ping_turn:
                    break
                tap = self.board.tap
                if tap is not None and tap.working():
                    break  # and the table's work from a play done (virtual --serve)
                self.ping_turn = -1
                self.board._out.write(b"A %d\n" % seat)
                fifo.pop(0)
                continue
            fifo.pop(0)
            self._start_press(seat, arg)
            break
        for s in range(4):
            if self.placed[s] is not None:
                if self.read_again[s] and now_ms * 1000 - self.placed_at[s] >= _HOLD_MS * 1000:
                    self._lift(s)
            elif self.waiting[s] and now_ms >= self.due(s):
                self._place(s)
        if self.press is not None:
            self._press_step()

    def _place(self, s):
        now = self.board.clock.now_us
        card = self.place(s, now // 1000)
        self.placed_at[s] = now
        self.taps.placed(s, card if isinstance(card, int) else -1, now)

    def found(self, s):
        """The Pico read the seat's poll answer listing the tags on it: the
        person takes the card away once it has lain there _HOLD_MS and two
        such reads came at least _CONFIRM_MS apart (a read that timed out, or
        that the firmware dropped, is read again meanwhile). Apart by the
        firmware's own clock: the scanner judges a sighting by the main loop's
        ``now`` of its turn (Board.poll_ms), which can be long before the
        answer is read (a turn that saved or drew first); judged by the board's
        clock, a card was taken away before its confirming poll."""
        self.taps.read(s, self.board.clock.now_us)
        at = self.board.poll_ms[s] * 1000
        if self.read_at[s] < 0:
            self.read_at[s] = at
        elif at - self.read_at[s] >= _CONFIRM_MS * 1000:
            self.read_again[s] = True

    def _lift(self, s):
        self.read_at[s] = -1
        self.read_again[s] = False
        card = self.placed[s][0]
        known = isinstance(card, int) and card >= 0
        wait = 0 if known or (isinstance(card, tuple) and len(card) == 1) else _AWAY_MS
        self.lift(s, self.now_ms(), card if known else -9, wait)

    # --- buttons
    def _start_press(self, seat, kind):
        if kind == 1:  # BTN_UNDO: a long press
            phases = [(True, _LONG_MS)]
        elif kind == 2:  # BTN_CHALLENGE: a double press
            phases = [(True, _DOUBLE_ON_MS), (False, _DOUBLE_GAP_MS), (True, _DOUBLE_ON_MS)]
        else:
            phases = [(True, _CLICK_MS)]
        # released at the end, until the firmware has seen the button up
        phases.append((False, 0))
        self.press = [seat, kind, phases, 0, self.board.clock.now_us, 0]
        self._set_button(seat, phases[0][0])

    def _set_button(self, seat, down):
        if self.pressed[seat] != down:
            self.pressed[seat] = down
            machine._edge(self.board.buttons[seat])

    def sampled(self, seat):
        p = self.press
        if p is None or p[0] != seat:
            return
        p[5] += 1
        if p[3] == len(p[2]) and self.board.clock.now_us >= p[4]:
            # the firmware read the button after the click's decision time:
            # it has taken the click (picoboard.ButtonDecoder.take)
            self.press = None

    def _press_step(self):
        p = self.press
        seat, kind, phases, i, since, _samples = p
        if i >= len(phases):
            return  # waiting for the firmware to take the click
        now = self.board.clock.now_us
        # each phase lasts its time, whatever the firmware is doing: a person
        # does not wait for the main loop (a click made during a long turn, a
        # save's erase, is a click: the firmware timestamps the edges in its
        # pins' interrupts, picoboard.PicoBoard._edge)
        if now - since < phases[i][1] * 1000:
            return
        i += 1
        p[3] = i
        p[4] = now
        p[5] = 0
        if i < len(phases):
            self._set_button(seat, phases[i][0])
            return
        if kind == 0:
            # a click is decided DOUBLE_MS (350 ms) after its release: the
            # person waits until the firmware has read the button after that
            p[4] = since + _DECIDED_MS * 1000
        else:
            self.press = None
        self.busy_until = now // 1000 + _AFTER_OTHER_MS


class Board:
    """The Pico's pins and buses, and the parts wired to them."""

    def __init__(self, ctl_in, ctl_out, image, cpu_factor, c_factor=None, flash_times="typ"):
        import hwconfig as H  # the pin map (generated from hardware/pinmap.toml)

        self.H = H
        self.clock = vclock.VClock(cpu_factor)
        if c_factor is not None:
            self.clock.c_factor = c_factor
        try:
            # the firmware's CPU time: wall time less the waits for a CPU
            self.clock.run_delay = vclock.RunDelay()
            self.clock.mark()
        except OSError:
            self.clock.run_delay = None
        # the RP2040's second core (cores.py): the firmware's _thread runs
        # its function there, on board time of its own
        self.cores = cores.Cores(self.clock)
        # (tests build a board without the host: ctl_in/ctl_out None)
        self._in = open(ctl_in, "rb") if ctl_in else None
        self._out = open(ctl_out, "wb") if ctl_out else _Sink()
        self._ctl = select.poll()  # the control FIFO alone
        self._poll = select.poll()  # the FIFO or the USB serial: the host has something
        if self._in is not None:
            self._ctl.register(self._in, select.POLLIN)
            self._poll.register(self._in, select.POLLIN)
            self._poll.register(sys.stdin, select.POLLIN)
        self._usb = select.poll()  # the USB serial alone: the host's link wrote
        if self._in is not None:
            self._usb.register(sys.stdin, select.POLLIN)
        self.run = True
        self.spibus = SpiBus(self)
        self.spi1 = SpiBus(self)  # SPI1: nothing wired to it
        self.chips = []
        self.cs = {}
        self.rst = {}
        for s in range(H.SEATS):
            c = C.Chip(self.clock, "seat%d" % s)
            c.aborts = 0  # commands the Pico gave up on (an ACK frame sent to abort)
            c.receive = _counting_receive(self, s, c)
            c.on_rf = self._rf
            port = C.SpiPort(c)
            self.spibus.ports.append(port)
            self.chips.append(c)
            self.cs[H.READER_CS[s]] = (s, port)
            self.rst[H.READER_RSTPD_N[s]] = c
        self.max_fields_on = 0
        self.clock.waiting = self._in_flight
        # the display the pin map names (hwconfig.DISPLAY_KIND), RES# on its pin
        self.oled_reset = getattr(H, "DISPLAY_RESET", -1)
        if getattr(H, "DISPLAY_KIND", "SSD1306") == "SSD1309":
            import ssd1309sim

            self.oled = ssd1309sim.SSD1309Chip(H.DISPLAY_ADDR, reset_wired=self.oled_reset >= 0)
        else:
            self.oled = ssd1306sim.SSD1306Chip(H.DISPLAY_ADDR)
        self.oled.on_frame = self._frame
        self.oled.on_window = self._window
        self.i2c_bus = H.I2C_ID
        self.buttons = list(H.BUTTONS)
        self.button_seat = {}
        for s in range(len(self.buttons)):
            self.button_seat[self.buttons[s]] = s
        self.led_pin = H.LED
        self.buzzer_pin = H.BUZZER
        self.led_changes = 0
        self.person = Person(self, 2)
        self.hands = self.person  # the tags' hands, for the control protocol (hands.control)
        # opened before littlefs is mounted at / (norflash.py: the image is a host file)
        self.flash = norflash.NorFlash(image, times=flash_times) if image else None
        self.flash_calls = FlashCalls(self)  # (made with the models: not the firmware's heap)
        self.cut = None  # the norflash.PowerCut that ended the board
        self.hang_next = False  # "H": the next model call never returns
        self.probe_n = -1  # "G n" pending: probe_due answers it
        self._svc = 0  # model calls (_service)
        self.mounted = False  # littlefs mounted at / (the firmware is booting)
        self._pace_n = 0  # board time kept to real time (_pace)
        self._pace_v = 0
        self._pace_w = utime.ticks_us()
        self._rx_v = 0  # board time and real time when the host's link last wrote
        self._rx_w = self._pace_w
        self.link_waits = 0  # real waits for the host's link (_pace)
        self.oled_back_at = -1  # "I": when the display answers again
        self.wdt_due = -1
        self.wdt_ms = 0
        self.feeds = 0
        self.timers = []
        self._updating = False
        self.sleeps = 0
        self.frames = 0
        self.peak = 0
        self.sim_bytes = 0
        self.tap = None  # vevents.BoardTap: the events beside the link (virtual --serve)
        self.trace = None  # taptrace.Trace (TT_TAPTRACE): a timeline of the long things
        # the chip's heap (issue 21): what the process holds beyond the
        # firmware's cap, so that the firmware runs out where the chip would
        self.ballast = None
        self.held = 0
        # bytes of the heap beyond the firmware's (the chip's) kept free for
        # the garbage between two of the process's collections (the
        # allocator model, vclock.VClock.gc_model); 0 without a cap
        self.slack = 0
        # what the process holds at the first boot before boot.py that is not
        # the firmware's: the littlefs mount (on the rp2 port _boot.py mounts
        # it before the 240,720 B free a script finds: it is not in the
        # firmware's budget) and the board's own bookkeeping; -1 until measured
        self.platform = -1
        self.start_alloc = 0
        # the heap's peak, where it was (issue 21): the display's RAM then, the
        # taps done, the firmware's modules loaded (names, space-separated);
        # preallocated with the models, filled without keeping anything new
        self.peak_ram = bytearray(len(self.oled.ram))
        self.peak_taps = 0
        self.peak_mods = bytearray(1024)
        self.peak_mods_n = 0
        self.keep = ()  # the models' modules (main() sets it): not the firmware's
        self.reported = False
        self.restored = False
        self.boots = 0
        self.poll_cycle = Hist()  # between two polls of seat 0's reader: the four-seat cycle
        self._seat0_at = -1
        self._last_polled = -1
        self.poll_ms = [0, 0, 0, 0]  # the firmware's ticks_ms of each seat's last poll
        del sys.modules["hwconfig"]  # the firmware imports its own, from flash

    def set_decks(self, decks):
        self.person.card_at = [-(1 << 40)] * (54 * decks)

    # --- pins (machine.Pin)
    def pin_in(self, n):
        s = self.button_seat.get(n)
        if s is not None:
            return 0 if self.person.pressed[s] else None  # switch to GND, else open
        return None

    def pin_read(self, n):
        s = self.button_seat.get(n)
        if s is not None:
            self.person.sampled(s)

    def pin_out(self, n, level):
        x = self.cs.get(n)
        if x is not None:
            s, port = x
            c = port.chip
            got = False
            if level and self.person.placed[s] is not None and port.selected and port.op == C.SPI_DATA_READ and port.read_any:
                # the Pico is reading a frame: is it the poll answer listing the tags?
                h = c.head()
                got = len(h) > 7 and h[5] == C.TFI_CHIP and h[6] == C.CMD_IN_LIST_PASSIVE_TARGET + 1 and h[7] >= 1
            port.cs(level)
            if level:
                if got:
                    # the Pico has the tags' UIDs: the person takes the card away
                    self.person.found(s)
                if len(c.commands) > 16:
                    del c.commands[:]
            return
        c = self.rst.get(n)
        if c is not None:
            c.set_rstpd(level)
            return
        if n == self.oled_reset:
            self.oled.set_reset(level)
            return
        if n == self.led_pin:
            self.led_changes += 1

    def polled(self, s):
        """Seat s's reader got a poll (InListPassiveTarget)."""
        # the firmware's own time of this poll: its last time.ticks_ms(), the
        # main loop's ``now`` that the scanner judges its sightings by
        self.poll_ms[s] = self.clock.last_ms
        if s == 0:
            # seat 0's reader polled again in its turn (after seat 3's): one
            # turn of the four seats (an out-of-turn poll is not a cycle's end)
            now = self.clock.now_us
            if self._last_polled == 3:
                if self._seat0_at >= 0:
                    self.poll_cycle.add(now - self._seat0_at)
                    if self.trace is not None:
                        self.trace.add(89, self._seat0_at, now - self._seat0_at)  # Y: a cycle
                self._seat0_at = now
            elif self._seat0_at < 0:
                self._seat0_at = now
        self._last_polled = s

    def _in_flight(self):
        # a PN532 model holds an ACK or an answer the Pico has not read yet
        for c in self.chips:
            if c.queue:
                return True
        return False

    def _rf(self, chip, on):
        n = 0
        for c in self.chips:
            if c.rf_on:
                n += 1
        if n > self.max_fields_on:
            self.max_fields_on = n

    def spi_bus(self, bus):
        return self.spibus if bus == 0 else self.spi1



    def i2c_device(self, bus, addr):
        if bus == self.i2c_bus and addr == self.oled.addr:
            return self.oled
        return None

    def pwm(self, pin, freq, duty):
        if pin == self.buzzer_pin and duty:
            # a sound: the table took what it was given this turn
            self.person.taps.sound(self.clock.now_us)
            self._out.write(b"S %d\n" % _TONES.get(freq, 0))

    # --- the display
    def _window(self, oled):
        # a frame (whole or some pages) begins: the RAM window is set
        self.person.taps.window(self.clock.now_us)
        if self.trace is not None:
            self.trace.window(self.clock.now_us)

    def _frame(self, oled):
        self.frames += 1
        p = self.person
        now = self.clock.now_us
        p.taps.frame(oled, now)
        if self.trace is not None:
            self.trace.frame(now)
        # the RAM as it is: the host reads the text back from it (tractor_table.monoframe)
        import binascii

        out = self._out
        ram = memoryview(oled.ram)
        out.write(b"P ")
        for i in range(0, len(ram), 128):
            out.write(binascii.hexlify(ram[i : i + 128]))
        out.write(b"\n")

    # --- WDT and timers (machine.WDT, machine.Timer)
    def wdt_start(self, ms):
        self.wdt_ms = ms
        self.wdt_due = self.clock.now_us + ms * 1000

    def wdt_feed(self):
        self.feeds += 1  # the main loop feeds it once a turn
        if self.trace is not None:
            self.trace.turn()
        self.person.taps.turn_end()
        if self.tap is not None:
            self.tap.turn()  # before any "A n" of this turn (Person.update)
        if self.wdt_due >= 0:
            self.wdt_due = self.clock.now_us + self.wdt_ms * 1000

    def timer_add(self, t):
        if t not in self.timers:
            self.timers.append(t)

    def timer_remove(self, t):
        if t in self.timers:
            self.timers.remove(t)

    def hands_move(self):
        """The person's part of update() alone (the flash's block calls,
        FlashCalls): a card put down or taken away, a button pressed or let
        go when due; the rest (the host's lines, the ready report, the
        timers, the watchdog) waits for the next call into machine's models."""
        if self._updating:
            return
        self._updating = True
        try:
            if self._person_due():
                self.person.update(self.clock.now_us // 1000)
        finally:
            self._updating = False

    def _person_due(self):
        # With core 1 running, the person acts at the model calls of the core
        # that is behind (or level): a tag is put down at a board time both
        # cores have reached. At the core ahead's calls (up to a stretch of
        # its code ahead: the other runs only at its model calls, cores.py) a
        # tag put down there was read by the other core at board times before
        # it: first sightings 15 ms before the card lay there (a tap's
        # placed -> first sighting below zero)
        c = self.clock
        cs = c.cores
        return cs is None or not cs.alive1 or cs.kill or c.now_us <= cs.other_now

    def update(self):
        """Called at every entry into a model: what is due happens."""
        if self._updating:
            return
        self._updating = True
        try:
            now = self.clock.now_us
            if self.oled_back_at >= 0 and now >= self.oled_back_at:
                self.oled.present = True
                self.oled_back_at = -1
            if self.hang_next:
                # stuck: the clock runs on, the firmware gets nowhere
                self.hang_next = False
                print("board: the firmware hangs")
                start = now
                while self.wdt_due < 0 or now < self.wdt_due:
                    self.clock.advance_us(100000)
                    now = self.clock.now_us
                    if self.wdt_due < 0 and now - start > 60000000:
                        break  # no watchdog: a minute stuck, then on
            if self.wdt_due >= 0 and now >= self.wdt_due:
                self.wdt_due = -1
                raise machine.BoardReset(machine.WDT_RESET, "the watchdog expired")
            for t in list(self.timers) if self.timers else ():
                # every period that passed (a sleep is one step of the clock)
                while t._due >= 0 and now >= t._due:
                    t._fire(now)
            tap = self.tap
            if tap is not None and (tap.caught is None or tap.table is None):
                tap.watch()  # the firmware's link and table, caught as they are made
            if self._person_due():
                self.person.update(now // 1000)
            if self._in is not None:
                self._service()
                self._pace(now)
        finally:
            self._updating = False

    def platform_share(self):
        """At the first boot, after the mount and before boot.py: what the
        process holds beyond the models' and the held block is reported
        apart with the models' (sim_bytes), and the held block gives it back,
        so that the firmware's cap (chip_cap) is what it was."""
        gc.collect()
        self.platform = max(0, gc.mem_alloc() - self.start_alloc - self.sim_bytes - self.held)
        self.sim_bytes += self.platform
        if self.ballast is not None and self.platform > 0:
            n = len(self.ballast) - self.platform
            self.ballast = None
            gc.collect()
            self.ballast = bytearray(n if n > 0 else 0)
            gc.collect()
            self.held = gc.mem_alloc() - self.start_alloc - self.sim_bytes
        c = self.clock
        if c.gcm:
            # the mount is the platform's, not the firmware's (its heap as it was)
            c.models_bytes = self.sim_bytes + self.held
            a = gc.mem_alloc()
            c.fw_live = a - c.models_bytes
            c.collected(a)
            c._set_due()

    def _service(self):
        """What idle() does at each sleep, done also from the model calls
        now and then: the firmware polls its readers without sleeping (as on
        a Pico), so the host's input, the ready report and the heap's live
        peak cannot wait for a sleep."""
        self._svc += 1
        if self._svc & 15:
            return
        self.control()
        if not self.run:
            raise PowerOff()
        self.probe_due()
        if not self.reported and self.mounted:
            self.reported = True
            gc.collect()
            self._out.write(b"R %d %d %d %d\n" % (gc.mem_alloc(), 1 if self.restored else 0, self.sim_bytes + self.held, self.held))
        if self._svc & 1023 == 0:
            a = self._collect()
            if a > self.peak:
                self.peak = a
                self._peak_at()

    def _collect(self):
        # the model's own collection (uncharged; the live peak's measure):
        # the heap in use after it
        c = self.clock
        if c.gcm:
            a = c._real()[0]
        else:
            gc.collect()
            a = gc.mem_alloc()
        if self.trace is not None:
            self.trace.add(67, c.now_us, 0)  # C: the model's own collection
        return a

    def _pace(self, now):
        """With a host on the link, board time must not run far ahead of real
        time: the link's timers run on board time here (the firmware's
        ttlink: a frame from the host at least every DOWN_MS, 3 s) and on real
        time on the host (a PING after 1 s of silence). Two rules:
        - nobody at the table: the firmware polls its readers without
          sleeping (as on a Pico); ahead by more than 10 ms, wait for real
          (the host's input ends the wait);
        - always: since the host's link last wrote on the USB serial, board
          time may run at most LINK_LEAD_US ahead of real time; beyond that
          the board waits for real until the host writes (its PING comes
          after 0.5 s of real time: board/runner.py, PicoTable.link_timing),
          so that a quiet link is never timed out by board time racing ahead
          of a busy host."""
        self._pace_n += 1
        if self._pace_n & 15:
            return
        w = utime.ticks_us()
        usb = self._usb
        if usb.poll(0):
            self._rx_v = now
            self._rx_w = w
        else:
            lead = (now - self._rx_v) - utime.ticks_diff(w, self._rx_w)
            if lead > LINK_LEAD_US:
                self.link_waits += 1
                # until the host writes, or real time has caught up
                if usb.poll((lead - LINK_LEAD_US) // 1000 + 1):
                    self._rx_v = now
                    self._rx_w = utime.ticks_us()
                self.clock.mark()
        ahead = (now - self._pace_v) - utime.ticks_diff(w, self._pace_w)
        if ahead < 0:
            self._pace_v = now
            self._pace_w = w
            return
        if ahead > 10000 and self.person.idle():
            self._poll.poll(ahead // 1000)
            self.clock.mark()  # the wait is not the firmware's CPU time
            self._pace_v = now
            self._pace_w = utime.ticks_us()

    # --- the host's control FIFO (hands.control parses it)
    def control(self):
        if self._in is not None and not hands.control(self, self.person.fifo, 8):
            self.run = False

    def hang(self):
        # "H": the firmware hangs in its next call into a model (a stuck bus
        # transaction): only the watchdog gets it out
        self.hang_next = True

    def display_off(self, ms):
        # "I n": the display stops answering on I2C for n ms (a loose cable)
        self.oled.present = False
        self.oled_back_at = self.clock.now_us + ms * 1000

    def cut_power(self, n):
        # "C n": a power cut at the n-th erase or program from now
        if self.flash is not None:
            self.flash.cut_at(self.flash.ops + n)

    def reader_missing(self, seat, missing):
        # "N seat 1|0": the seat's reader unplugged (it never answers, a reset
        # does not bring it back) or plugged in again
        if not 0 <= seat < len(self.chips):
            raise ValueError("seat")
        self.chips[seat].inject(C.FAULT_SILENT if missing else C.FAULT_NONE, cleared_by_reset=False)

    def cut_in_flight(self, stage):
        # "J stage": a power cut when the next card put down reaches the
        # stage (1-5, CUT_STAGES), wherever the firmware is then
        if not 1 <= stage <= len(CUT_STAGES):
            raise ValueError("stage")
        t = self.person.taps
        t.cut_stage = stage
        t.cut_slot = -1

    def heap_probe(self, n):
        # "G n": the heap as the firmware finds it (issue 21's chip cap),
        # answered by probe_due. Control lines are also read from inside the
        # firmware's calls into a model (_service), as deep as a reader's SPI
        # write, where the probe's own frames can pass the chip's stack (the
        # firmware's thread is the chip's size): uncaught, the firmware took
        # the model's RuntimeError for its own and the answer was lost.
        self.probe_n = n

    def probe_due(self):
        """Answer a pending "G n" (heap_probe), where the host's input is
        served (a sleep, a model call now and then). A RuntimeError (the
        chip's stack, too deep there) leaves it pending for the next time."""
        n = self.probe_n
        if n < 0:
            return
        try:
            self._probe(n)
        except RuntimeError:
            return
        self.probe_n = -1

    def _probe(self, n):
        # free bytes, live bytes, and n bytes of the heap taken in small
        # pieces (what fragments leave is used too). With the allocator
        # model the heap has room beyond the chip's for the garbage
        # (Board.slack): the free heap reported is the chip's, and n bytes
        # the firmware's live heap cannot hold on the chip are a
        # MemoryError, as the model's collections judge it (vclock.fw_collect)
        gc.collect()
        c = self.clock
        got = b"-"
        if n:
            held = []
            try:
                a0 = gc.mem_alloc()
                while gc.mem_alloc() - a0 < n:
                    held.append(bytearray(480))
                got = b"ok"
                if c.gcm and gc.mem_alloc() - c.models_bytes > c.fw_heap:
                    got = b"MemoryError"
            except MemoryError:
                got = b"MemoryError"
            held = None
            gc.collect()
        free = gc.mem_free() - self.slack
        alloc = gc.mem_alloc()
        if c.gcm:
            c._real()
        self._out.write(b"G %d %d %d %s\n" % (free, alloc, n, got))

    def state(self):
        # "?": the person's state, for a host that waits in vain
        p = self.person
        self._out.write(("X now=%d fifo=%r waiting=%r placed=%r press=%r busy=%d pressed=%r\n" % (
            self.clock.now_us // 1000, p.fifo, p.waiting, [x[0] if x else None for x in p.placed],
            p.press, p.busy_until, p.pressed)).encode())

    def idle(self, us):
        """time.sleep_us(us): the virtual clock moves on; the models are served;
        when nothing is due, the process really waits (the host's input wakes it)."""
        self.clock.advance_us(us)
        self.clock.mark()
        self.sleeps += 1
        self.control()
        if not self.run:
            raise PowerOff()
        self.probe_due()
        self.update()
        if _kinds is not None and _kinds.todo:
            _kinds.install()
        if _prof is not None:
            _prof.install(_prof.main)
        if not self.reported:
            self.reported = True
            gc.collect()
            self._out.write(b"R %d %d %d %d\n" % (gc.mem_alloc(), 1 if self.restored else 0, self.sim_bytes + self.held, self.held))
        if self.sleeps % 64 == 0:
            a = self._collect()
            if a > self.peak:
                self.peak = a
                self._peak_at()
        if us >= 1000 and self._in is not None and self.person.idle():
            # nothing to do for the person: wait for real (the host's input
            # ends the wait), so that an idle table does not spin
            self._poll.poll(us // 1000)

    def _peak_at(self):
        # a new live peak: what the table showed, the taps done and the
        # firmware's modules loaded then (main.py runs as __main__, outside
        # sys.modules), into the preallocated buffers
        self.peak_ram[:] = self.oled.ram
        self.peak_taps = self.person.taps_done
        buf = self.peak_mods
        n = 0
        keep = self.keep
        for name in sys.modules:
            if name in keep or n + len(name) + 1 > len(buf):
                continue
            b = name.encode()
            buf[n : n + len(b)] = b
            buf[n + len(b)] = 32
            n += len(b) + 1
        self.peak_mods_n = n

    def report(self):
        gc.collect()
        a = gc.mem_alloc()
        self._out.write(b"M %d %d %d %d\n" % (max(self.peak, a), a, self.max_fields_on, self.spibus.collisions))
        if self.peak_mods_n:
            import binascii

            self._out.write(b"Y %d " % self.peak_taps)
            self._out.write(memoryview(self.peak_mods)[: self.peak_mods_n])
            self._out.write(b"\nQ ")
            self._out.write(binascii.hexlify(self.peak_ram))
            self._out.write(b"\n")
        tl = self.person.taps
        lat = tl.counted
        cyc = self.poll_cycle
        c = self.clock
        aborts = 0
        bad = 0
        for ch in self.chips:
            aborts += ch.aborts
            bad += ch.bad_frames
        self._out.write(
            b"V virtual_us %d cpu_us %d taps %d frames %d boots %d lat_n %d lat_p50 %d lat_p99 %d lat_max %d "
            b"cycle_n %d cycle_p50 %d cycle_p99 %d cycle_max %d flash_erases %d flash_programs %d aborts %d bad_frames %d "
            b"overhead_ns %d segments %d long_segments %d capped %d preempted %d preempted_us %d rd_reads %d wait_capped %d link_waits %d turns %d"
            % (
                c.now_us, c.cpu_us, self.person.taps_done, self.frames, self.boots,
                lat.n, lat.pct(50), lat.pct(99), lat.max,
                cyc.n, cyc.pct(50), cyc.pct(99), cyc.max, getattr(self.flash, "erases", -1), getattr(self.flash, "programs", -1),
                aborts, bad, int(c.overhead_us * 1000), c.segments, c.long_segments, c.capped, c.preempted, c.preempted_us, c.rd_reads, c.wait_capped, self.link_waits, self.feeds,
            )
        )
        out = self._out
        for name, h in (("shown", tl.shown), ("st1", tl.st1), ("st2", tl.st2), ("st3", tl.st3), ("saving", tl.saving)):
            out.write(b" %s_n %d %s_p50 %d %s_p99 %d %s_max %d" % (
                name.encode(), h.n, name.encode(), h.pct(50), name.encode(), h.pct(99), name.encode(), h.max))
        out.write(b" flash_on_path %d gc_on_path %d placed_saving %d platform_bytes %d early %d" % (
            tl.flash_on_path, tl.gc_on_path, tl.placed_saving, self.platform, tl.early))
        out.write(b" unclosed %d gc_us %d gc_n %d json_us %d frames_full %d frames_part %d flash_busy_us %d" % (
            tl.unclosed + tl.open_count(), c.gc_us, c.gc_n, c.json_us, self.oled.full_frames,
            self.frames - self.oled.full_frames, getattr(self.flash, "busy_us", 0)))
        out.write(b" fb_us %d cal_ns %d situ_ns %d native_us %d switches %d switch_ns %d switch_situ_ns %d" % (
            c.fb_us, int(c.cal_us * 1000), int(c.situ_us * 1000), c.native_us, c.switches, int(c.switch_us * 1000), int(c.switch_situ * 1000)))
        # the allocator model: the chip's own collections (charged), the
        # process's for the models' garbage (uncharged), the allocator's own
        # (none expected), the block rounding (x1000), what the firmware
        # requested, the most in one stretch, the fit of a collection's time
        # (ns, ps per byte live and garbage), and the real time of the
        # collections charged against the fit's for the process's whole heap
        out.write(b" gc_auto_n %d gc_auto_thr %d gc_auto_us %d gc_real_n %d gc_backstop %d gc_ratio_m %d gc_threshold %d"
                  b" fw_req %d fw_kept %d fw_stretch_max %d gc_a_ns %d gc_b_ps %d gc_c_ps %d gc_situ_us %d gc_fit_us %d\n" % (
            c.auto_n, c.auto_thr, c.auto_us, c.real_n, c.backstop, int(c.ratio * 1000), c.fw_thresh,
            c.fw_req_all + c.fw_req, c.fw_net_all + c.fw_net, c.fw_stretch_max,
            int(c.gc_a * 1000), int(c.gc_b * 1e6), int(c.gc_c * 1e6), c.situ_gc_us, int(c.fit_gc_us)))
        # the second core (cores.py): its starts, the hand-overs between the
        # cores, its stack's deepest (this port's bytes, at its model calls)
        # and its limit, the flash's sections that stopped it, what it
        # requested from the heap
        k = self.cores
        out.write(b"V core1_starts %d core1_hand_overs %d core1_stack_max %d core1_stack_limit %d core1_stalls %d"
                  b" core1_stalled_us %d core1_requested %d core1_stretches %d core1_cpu_us %d core0_cpu_us %d\n" % (
            k.started, k.hand_overs, k.stack_max, k.stack_limit, k.stalled_n, k.stalled_us, k.mt1, k.stretches1,
            k.cpu[1], k.cpu[0]))


_TAP_SLOTS = 8  # taps followed at once
#: a power cut with a card in flight ("J stage", TapLog): the card put down
#: (not read yet), seen once (the Pico read the first poll answer listing
#: it), shown (a frame shows it, not counted yet: the provisional display),
#: read again (the confirming poll's answer read, the table not told yet),
#: counted (its sound: the table took it; its frame not drawn yet); and
#: "tap-saving": the first card put down while a save is being written (its
#: steps begun, not finished: persist.writing.busy()), cut as it is put down
#: (no flash operation begins while a card is in flight: a whole bots' hand
#: at the flash's typical and maximum times gave none, so a cut in one with a
#: card in flight cannot be waited for)
CUT_STAGES = ("tap-placed", "tap-seen", "tap-shown", "tap-confirming", "tap-counted", "tap-saving")


class TapLog:
    """Each tag put down, from the moment it lies on the reader until a frame
    on the display shows it (fixed memory: preallocated lists of small ints).

    - placed: the tag is put on the seat's reader;
    - read: the Pico read a poll answer listing it (the first such read is
      the first sighting);
    - sound: the buzzer starts: the firmware took what its readers gave it
      this turn (every tap the table takes makes a sound: a tap, an error,
      a trick); a tap read at least twice by then is counted. Its confirming
      poll is its second read: the seat's next poll after the first
      sighting, which confirms it (the dwell is shorter than a cycle:
      docs/readers.md), not the last read before the sound (until
      2026-12-08: the polls of a card lying there while the main loop had
      not yet taken it moved core 0's wait from st3 into st2);
    - window/frame: a frame begins (the RAM window is set) and ends. A tap is
      *shown* at the end of the first frame begun after its first sighting
      whose seat line holds the card's name (a provisional display), or at
      its counted frame; *counted and shown* at the end of the first frame
      begun after it was counted (a frame rendered before cannot show it)
      whose window holds the seat's line.
    Stages: st1 placed -> first sighting, st2 first sighting -> confirming
    poll, st3 confirming poll -> counted and shown; saving: counted and
    shown, for the taps during which the flash was erased or programmed."""

    def __init__(self, board):
        n = _TAP_SLOTS
        self.board = board
        self.seat = [-1] * n  # -1: a free slot
        self.card = [-1] * n
        self.placed_at = [0] * n
        self.first = [-1] * n
        self.reads = [0] * n
        self.counted_at = [-1] * n  # the sound
        self.confirm = [-1] * n  # the second read: the confirming poll
        self.shown_at = [-1] * n
        self.flash_ops = [0] * n  # the flash's ops when put down
        self.ops_counted = [0] * n  # ... and when counted
        # the firmware's gc.collect() calls (VClock.gc_n) at a tap's first
        # sighting: one between it and the end of the turn that counted the
        # tap is a collection on the tap's path (gc_on_path)
        self.gc_seen = [0] * n
        self.gc_on_path = 0
        # taps with a flash erase or program between their count and the end
        # of the main loop's turn that counted them (the turn that draws their
        # frame; the watchdog is fed once a turn): flash work on the tap's path
        self.flash_on_path = 0
        # taps put down while the firmware had a save in steps begun and not
        # finished (persist.writing.busy()): cards laid during a save
        self.placed_saving = 0
        self.in_turn = [False] * n  # counted, its turn not over yet
        # "J stage" (Board.cut_in_flight): the power goes when the next card
        # put down reaches this stage (CUT_STAGES), in the model call where
        # it does; the slot of that card once put down
        self.cut_stage = 0
        self.cut_slot = -1
        self.frame_start = -1
        self.unclosed = 0  # taps never counted (dropped for a newer one)
        # taps whose first sighting's board time came before they were put
        # down (the person acting at the core ahead's time: Board._person_due)
        self.early = 0
        self.shown = Hist()
        self.counted = Hist()
        self.st1 = Hist()
        self.st2 = Hist()
        self.st3 = Hist()
        self.saving = Hist()
        # framebuf's font cells -> character codes: the seat lines read back
        # (built here, with the models, not in the firmware's heap later)
        self._cells = {}
        font = font_table()
        for i in range(95):
            self._cells[bytes(font[i * 8 : i * 8 + 8])] = 32 + i
        self._text = bytearray(16)

    def _ops(self):
        f = self.board.flash
        return f.ops if f is not None else 0

    def open_count(self):
        k = 0
        for i in range(_TAP_SLOTS):
            if self.seat[i] >= 0:
                k += 1
        return k

    def placed(self, s, card, now):
        p = sys.modules.get("persist")
        w = getattr(p, "writing", None) if p is not None else None
        saving = w is not None and w.busy()
        if saving:
            self.placed_saving += 1
        free = -1
        oldest = -1
        for i in range(_TAP_SLOTS):
            if self.seat[i] < 0:
                if free < 0:
                    free = i
            elif oldest < 0 or self.placed_at[i] < self.placed_at[oldest]:
                oldest = i
        if free < 0:
            free = oldest
            self.unclosed += 1
        if self.in_turn[free]:
            # its counting turn is not over: judged now, before the slot is reused
            self.in_turn[free] = False
            if self._ops() != self.ops_counted[free]:
                self.flash_on_path += 1
            if self.board.clock.gc_n != self.gc_seen[free]:
                self.gc_on_path += 1
        self.seat[free] = s
        self.card[free] = card
        self.placed_at[free] = now
        self.first[free] = -1
        self.reads[free] = 0
        self.counted_at[free] = -1
        self.confirm[free] = -1
        self.shown_at[free] = -1
        self.flash_ops[free] = self._ops()
        if self.cut_stage:
            self.cut_slot = free
            if self.cut_stage == 1 or (self.cut_stage == 6 and saving):
                self._cut(free)

    def _cut(self, i):
        # the power goes now, with the card of slot i in flight: the flash
        # dead from here on (norflash: every later call raises the cut
        # again), the board ends at boot()'s handler, which reports the
        # stage, the seat and the card ("C op kind 0 seat card")
        stage = self.cut_stage
        self.cut_stage = 0
        self.cut_slot = -1
        f = self.board.flash
        cut = norflash.PowerCut(f.ops if f is not None else 0, CUT_STAGES[stage - 1], -1, "", 0.0)
        cut.seat = self.seat[i]
        cut.card = self.card[i]
        if f is not None:
            f.cut = cut
        raise cut

    def read(self, s, now):
        # the newest tap of the seat not yet counted
        j = -1
        for i in range(_TAP_SLOTS):
            if self.seat[i] == s and self.counted_at[i] < 0:
                if j < 0 or self.placed_at[i] > self.placed_at[j]:
                    j = i
        if j < 0:
            return
        if self.first[j] < 0:
            self.first[j] = now
            self.gc_seen[j] = self.board.clock.gc_n
        self.reads[j] += 1
        if self.reads[j] == 2:
            self.confirm[j] = now
        if j == self.cut_slot and self.reads[j] == (1 if self.cut_stage == 2 else 2 if self.cut_stage == 4 else -1):
            self._cut(j)

    def sound(self, now):
        for i in range(_TAP_SLOTS):
            if self.seat[i] >= 0 and self.counted_at[i] < 0 and self.reads[i] >= 2:
                self.counted_at[i] = now
                self.ops_counted[i] = self._ops()
                self.in_turn[i] = True
                if i == self.cut_slot and self.cut_stage == 5:
                    self._cut(i)

    def turn_end(self):
        # the main loop fed the watchdog: the turn that counted a tap is over
        ops = -1
        for i in range(_TAP_SLOTS):
            if self.in_turn[i]:
                self.in_turn[i] = False
                if ops < 0:
                    ops = self._ops()
                if ops != self.ops_counted[i]:
                    self.flash_on_path += 1
                if self.board.clock.gc_n != self.gc_seen[i]:
                    self.gc_on_path += 1

    def window(self, now):
        if self.frame_start < 0:
            self.frame_start = now

    def _line(self, ram, page):
        cells = self._cells
        out = self._text
        base = page * 128
        for col in range(16):
            cell = bytes(ram[base + col * 8 : base + col * 8 + 8])
            out[col] = cells.get(cell, 63)
        return out

    def frame(self, oled, now):
        start = self.frame_start
        self.frame_start = -1
        if start < 0:
            start = now
        for i in range(_TAP_SLOTS):
            s = self.seat[i]
            if s < 0:
                continue
            if self.shown_at[i] < 0 and self.first[i] >= 0 and start >= self.first[i] and self.card[i] >= 0:
                name = _card_name(self.card[i])
                if name in self._line(oled.ram, 3 + s):
                    self.shown_at[i] = now
                    if i == self.cut_slot and self.cut_stage == 3 and self.counted_at[i] < 0:
                        self._cut(i)
            c = self.counted_at[i]
            # counted and shown: a frame begun after the count that wrote the
            # seat's line (a frame is a window: the display's driver sends the
            # changed columns of each line, a window for each, issue 22; a
            # window of another line that ends first shows nothing of it)
            if c >= 0 and start >= c and oled.page_start <= 3 + s <= oled.page_end:
                if self.shown_at[i] < 0:
                    self.shown_at[i] = now
                p = self.placed_at[i]
                self.shown.add(self.shown_at[i] - p)
                self.counted.add(now - p)
                if self.first[i] < p:
                    self.early += 1
                self.st1.add(self.first[i] - p)
                self.st2.add(self.confirm[i] - self.first[i])
                self.st3.add(now - self.confirm[i])
                if self._ops() != self.flash_ops[i]:
                    self.saving.add(now - p)
                tr = self.board.trace
                if tr is not None:
                    tr.tap(p, self.first[i], self.confirm[i], c, self.shown_at[i], now)
                self.seat[i] = -1


class Hist:
    """Durations in 1 ms buckets up to 1 s (longer ones in the last) (fixed memory: no list that grows
    in the heap the firmware shares); percentiles to the bucket's top. A percentile that falls
    among the durations of 1 s or more is the longest of all (an upper bound), not the 1 s at
    which the buckets end: the flash's maximum times (a 400 ms erase) made such taps, and the
    bench printed 1000 ms for a p99 whose taps took up to 1.3 s."""

    def __init__(self, buckets=1000):
        self.b = array("H", bytes(2 * buckets))
        self.n = 0
        self.max = -1

    def add(self, us):
        i = us // 1000
        if i >= len(self.b):
            i = len(self.b) - 1
        if self.b[i] < 65535:
            self.b[i] += 1
        self.n += 1
        if us > self.max:
            self.max = us

    def pct(self, p):
        if not self.n:
            return -1
        want = (self.n * p + 99) // 100
        seen = 0
        last = len(self.b) - 1
        for i in range(last):
            seen += self.b[i]
            if seen >= want:
                return (i + 1) * 1000
        return self.max


def font_table():
    """framebuf's 8x8 font, characters 32-126, 8 column bytes each (MONO_VLSB):
    sent to the host once, which reads the display's text back with it."""
    import framebuf

    out = bytearray(95 * 8)
    cell = bytearray(8)
    fb = framebuf.FrameBuffer(cell, 8, 8, framebuf.MONO_VLSB)
    for code in range(32, 127):
        fb.fill(0)
        fb.text(chr(code), 0, 0, 1)
        out[(code - 32) * 8 : (code - 31) * 8] = cell
    return out


# --- power-up


def mount_flash(board):
    """littlefs2 on the flash at /, as the rp2 port's _boot.py mounts it
    (formatting a blank chip); the host's files stay reachable at /host.
    The image holds what deploy wrote (board/flashimage.py builds it)."""
    bd = board.flash
    bd.clock = None  # mounting: no virtual time (the rp2 port does it before main.py)
    bd.calls = None
    try:
        vfs.umount("/")
    except OSError:
        pass
    try:
        vfs.mount(vfs.VfsPosix("/"), "/host")
    except OSError:
        pass
    try:
        fs = vfs.VfsLfs2(bd, progsize=256)
    except OSError:
        vfs.VfsLfs2.mkfs(bd, progsize=256)
        fs = vfs.VfsLfs2(bd, progsize=256)
    vfs.mount(fs, "/")
    # the snapshot in its directory (picoboard.STORE_PATH), or an older
    # firmware's in the root
    board.restored = "table.json" in os.listdir("/") or ("save" in os.listdir("/") and "table.json" in os.listdir("/save"))
    os.chdir("/")
    if board.platform < 0:
        board.platform_share()
    bd.clock = board.clock
    # each block call a model call: rp2.Flash is C on the chip; the model's
    # Python and its host file I/O are not the Pico's time (norflash.py);
    # the board is served at each, as at any model call (FlashCalls)
    bd.calls = board.flash_calls
    board.mounted = True


class FlashCalls:
    """The flash's block calls (norflash.NorFlash.calls) as calls into a
    model: the clock's enter() and leave(), and the person's hands moved on
    at both ends (Board.hands_move). A save step of the firmware is
    littlefs's block calls, no pin or bus touched: with the clock alone the
    person stood still through it (issue 22: a click begun just before a
    step of two 400 ms erases was let go after it, held 1.1 s: an undo, the
    bid never made, the table waiting for it). On the chip the hand lets go
    whatever the CPU does, and the pin's edge is taken as the erase's or
    program's atomic section ends.

    Each erase and each program is such a section (norflash's section():
    rp2_flash.c keeps interrupts off through it, the CPU waits for the
    flash): the person's hands move through it, every _HANDS_US of its time
    (advance_us), and a pin's edges meanwhile are latched by machine's model
    and taken once at its end, as the IO bank latches them: a click wholly
    inside a 400 ms erase is one interrupt with both edges in its flags."""

    def __init__(self, board):
        self.board = board
        self.clock = board.clock
        self._sec = 0

    def enter(self):
        c = self.clock
        c.enter()
        try:
            self.board.hands_move()
        except BaseException:
            c.leave()
            raise

    def leave(self):
        try:
            self.board.hands_move()
        finally:
            self.clock.leave()

    def section(self, on, ok=True):
        if on:
            self._sec = self.clock.now_us
            machine._irq_hold()
        else:
            # core 1 stood still through it (multicore lockout: cores.py)
            self.board.cores.stall(self._sec, self.clock.now_us)
            machine._irq_release(ok)

    def advance_us(self, us):
        c = self.clock
        b = self.board
        while us > 0:
            d = us if us < _HANDS_US else _HANDS_US
            c.advance_us(d)
            us -= d
            b.hands_move()


def unmount_flash():
    try:
        vfs.umount("/")
    except OSError:
        pass


def _run_file(name):
    # as pyexec_file: the file run as __main__, its source read by the lexer
    # from the file as it goes (execfile: mp_lexer_new_from_file, as the rp2
    # port's pyexec_file), never whole in the heap. Read whole (f.read(), then
    # compile()), main.py's 21 KB of source needed one block of that size and
    # more while the string grew, in a heap the models' objects had cut up:
    # under load a boot found no such block (MemoryError, about 1 boot in 20
    # with a 400K heap), the table stopped at the REPL before its link was up
    gc.collect()
    g = {"__name__": "__main__", "__file__": name}
    if _prof is not None:
        _prof.main = g  # (cpuprof.py: main.py's classes)
    execfile(name, g)  # noqa: F821 - MicroPython's builtin (MICROPY_PY_BUILTINS_EXECFILE)


def boot(board, cause):
    """One power-up or reset: mount, boot.py, main.py."""
    machine._attach(board, cause)
    board.wdt_due = -1  # a reset stops the watchdog and the timers: the firmware starts them again
    board.timers = []
    board.boots += 1
    board.clock._depth = 0
    mount_flash(board)
    sys.path[:] = ["", ".frozen", "/lib"]
    files = os.listdir("/")
    try:
        if "boot.py" in files:
            _run_file("boot.py")
        if "main.py" in files:
            _run_file("main.py")
    except (machine.BoardReset, PowerOff, norflash.PowerCut):
        raise
    except Exception as exc:  # noqa: BLE001 - as the Pico: traceback, then the REPL
        sys.print_exception(exc)
        # and on stderr: the USB serial's copy is lost when the host's link
        # opens the port after it (pyserial flushes what waits there), and
        # the host then saw only "no message from the firmware"
        sys.print_exception(exc, sys.stderr)
    # main.py returned (a maintenance stop): the REPL has the USB serial
    while True:
        time.sleep_ms(100)


def _probe(spi, buf):
    def call():
        spi.write(buf)

    return call


_prof = None  # cpuprof.Prof, when TT_CPUPROF names a file
_kinds = None  # kinds.Kinds: the firmware's native code charged as native


def _run_delay():
    # (core 1's thread: its own /proc/thread-self/schedstat)
    try:
        return vclock.RunDelay()
    except OSError:
        return None


def _no_run_delay():
    return None


def _kinds_on(argv):
    # the firmware's native code charged as native (kinds.py): with the
    # RP2040's factors (a C factor apart from the bytecode's), unless
    # TT_NOKINDS (the model as it was, for comparison)
    spec = argv[4].split(",")
    return len(spec) > 1 and spec[1] != "None" and float(spec[1]) != float(spec[0]) and not os.getenv("TT_NOKINDS")


def kinds_stack(argv):
    """C stack (bytes) the chip's thread gets beyond the chip's for kinds.py's
    wrappers: a frame of the model's per wrapped call, at most KINDS_DEPTH
    of them nested on any path of the firmware (Scanner.tick, then _setup,
    then PN532._write; or tick, then _report, then _emit), about 700 B each
    on this port (chipstack.py: 28 plain frames in 20 KiB)."""
    return KINDS_DEPTH * 1024 if argv[0] == "pico" and _kinds_on(argv) else 0


#: wrapped calls nested at most (kinds_stack)
KINDS_DEPTH = 4

#: bytes left free when the process collects the models' garbage (the
#: allocator model: vclock.VClock.gc_model): more than a stretch of the
#: firmware's between two model calls allocates (``fw_stretch_max`` in the
#: board's figures)
GC_MARGIN = 32 * 1024


def _gc_point():
    # (live bytes, us): the best of a few collections of the heap as it is
    gc.collect()
    live = gc.mem_alloc()
    return live, vclock.gc_time()


def _like_state(n):
    # about n bytes of objects as the firmware's state holds them: lists of
    # small ints, tuples, short strings, small buffers
    out = []
    for i in range(n // 160):
        out.append([i, (i, i + 1), "c%d" % i, bytearray(24), [i, i]])
    return out


def calibrate_gc(clock, p0):
    """The fit of a collection's time on this port (VClock.calibrate_gc), at
    start-up: the heap before the models were made (p0), with them, and with
    64 KB more of state-like objects; then garbage of such objects."""
    p1 = _gc_point()
    keep = _like_state(64 * 1024)
    p2 = _gc_point()
    best = -1
    g = 0
    for _ in range(5):
        _like_state(32 * 1024)
        a = gc.mem_alloc()
        t = utime.ticks_us()
        gc.collect()
        d = utime.ticks_diff(utime.ticks_us(), t)
        g = a - gc.mem_alloc()
        if best < 0 or d < best:
            best = d
    del keep
    clock.calibrate_gc([p0, p1, p2], (g, best - p2[1]))


def main(argv, start_alloc):
    global _prof, _kinds
    p0 = _gc_point()  # the fit of a collection's time: without the models
    ctl_in, ctl_out, image = argv[1], argv[2], argv[3]
    # CPU_FACTOR is "bytecode[,c[,flash times]]": the firmware's stretches,
    # its C calls timed apart (gc.collect, json), the flash's "typ" or "max" times
    spec = argv[4].split(",")
    factor = float(spec[0])
    c_factor = float(spec[1]) if len(spec) > 1 else None
    times = spec[2] if len(spec) > 2 else "typ"
    # DECKS or DECKS/CAP: CAP, the firmware's share of the heap in this
    # port's bytes (board/runner.py, chip_cap: the chip's 240 KiB with the
    # firmware's native code counted at the chip's size)
    # DECKS/CAP/SLACK: SLACK, room beyond the cap for the garbage between two
    # of the process's collections (runner.GC_SLACK)
    d, _, cap = (argv[5] if len(argv) > 5 else "2").partition("/")
    decks = int(d)
    cap, _, slack = cap.partition("/")
    cap = int(cap) if cap else 0
    slack = int(slack) if slack else 0
    board = Board(ctl_in, ctl_out, image, factor, c_factor, times)
    board.set_decks(decks)
    import binascii

    board._out.write(b"F " + binascii.hexlify(font_table()) + b"\n")
    time.install(board.clock, board.idle)
    # what a call into the models costs here that a C call on the rp2 port
    # does not: measured on a 40-byte SPI write to no chip (SPI1: nothing on
    # it), whose model runs a Python loop between two calls as the chips do,
    # so that the caches are as cold as in the firmware's real calls
    machine._attach(board)
    board.clock.calibrate(_probe(machine.SPI(1), bytearray(40)))
    if os.getenv("TT_CPUPROF"):
        import cpuprof

        _prof = cpuprof.Prof(board.clock, os.getenv("TT_CPUPROF"))
        _prof.main = None
    if _kinds_on(argv):
        # the firmware's native methods charged at the native factor
        # (kinds.py; the wrappers made now: the models' heap, not the firmware's)
        try:
            import fwkinds
        except ImportError:
            fwkinds = None
        if fwkinds is not None:
            import kinds

            _kinds = kinds.Kinds(board.clock, factor if os.getenv("TT_KINDS_SAME") else c_factor, fwkinds.KINDS)
    if os.getenv("TT_TAPTRACE"):
        import taptrace

        board.trace = taptrace.Trace(os.getenv("TT_TAPTRACE"), board.clock)
        taptrace.current = board.trace
        if board.flash is not None:
            board.flash.trace = board.trace
        board.clock.trace = board.trace
    if c_factor is not None:
        # the firmware's gc.collect() and json calls: C code, timed apart
        import json

        sys.modules["gc"] = vclock.TimedGC(board.clock, gc)
        sys.modules["json"] = vclock.TimedJson(board.clock, json)
        import framebuf

        sys.modules["framebuf"] = vclock.TimedFramebuf(board.clock, framebuf)
        # the firmware's imports: littlefs's lookups and the .mpy loader are
        # C on the rp2 port (vclock.timed_import; chipstack's forward inside)
        import builtins

        import chipstack

        builtins.__import__ = vclock.timed_import(board.clock, chipstack.forward or builtins.__import__)
        # littlefs's own code (its metadata, CRCs, commits: C on the rp2
        # port) at c_factor too, not the bytecode factor: the firmware's
        # files and os calls (vclock.TimedFile, TimedOs; builtins were
        # already overridden, so the lookup cost of an override is not new)
        builtins.open = vclock.timed_open(board.clock, builtins.open)
        sys.modules["os"] = vclock.TimedOs(board.clock, os)
    # "events" (virtual --serve): the events beside the link, the simulation's
    # heap (loaded before the timed sys below: the tap's own calls are not the firmware's)
    # "missing=S,S": these seats' readers unplugged from power-up on (Board.reader_missing)
    for a in argv[6:]:
        if a.startswith("missing="):
            for s in a[8:].split(","):
                board.reader_missing(int(s), 1)
    rest = [a for a in argv[6:] if a != "events" and not a.startswith("missing=")]
    if "events" in argv[6:]:
        import vevents

        board.tap = vevents.BoardTap(board._out, board.clock)
    # the USB serial: C calls on the rp2 port, not the unix port's system
    # calls at the bytecode factor (about 1 ms a turn of the loop before)
    sys.modules["_thread"] = cores.ThreadModule(board.cores, _run_delay if board.clock.run_delay is not None else _no_run_delay)
    sys.modules["sys"] = vclock.TimedSys(board.clock, sys)
    sys.modules["select"] = vclock.TimedSelect(board.clock, select)
    gcm = c_factor is not None
    if gcm:
        # the fit of a collection's time, with the models' data
        calibrate_gc(board.clock, p0)
    else:
        slack = 0
    gc.collect()
    board.sim_bytes = gc.mem_alloc() - start_alloc
    board.start_alloc = start_alloc
    board.slack = slack if cap else 0
    if cap:
        # what is free beyond the firmware's cap (and the room kept for the
        # garbage) is held, from here on, by one block the firmware cannot
        # use: it gets the chip's heap, no more
        # (the firmware's names, interned by start.py before the models,
        # fwnames.took, are already the firmware's: its cap less them is left)
        fw = sys.modules.get("fwnames")
        extra = gc.mem_free() - (cap - (fw.took if fw is not None else 0)) - board.slack
        if extra > 64:
            board.ballast = bytearray(extra - 64)
            gc.collect()
            board.held = gc.mem_alloc() - start_alloc - board.sim_bytes
    if gcm:
        # the firmware's collections as the chip makes them (vclock.gc_model)
        gc.collect()
        models = board.sim_bytes + board.held
        board.clock.gc_model(gc.mem_free() - board.slack + gc.mem_alloc() - models, models, GC_MARGIN)
    keep = set(sys.modules)
    board.keep = keep
    # a process started after a reset (the host's relaunch): its cause and
    # the boots so far
    cause = int(rest[0]) if rest else machine.PWRON_RESET
    board.boots = int(rest[1]) if len(rest) > 1 else 0
    wall0 = utime.ticks_ms()

    def clean():
        board.cores.stop()
        board.mounted = False
        unmount_flash()
        for name in list(sys.modules):
            if name not in keep:
                del sys.modules[name]
        gc.collect()
        board.reported = False

    try:
        while True:
            try:
                boot(board, cause)
            except machine.BoardReset as r:
                print("board: reset (%s)" % r.why)
                cause = r.cause if r.cause > 0 else cause
                if board._in is not None:
                    # with a host: the process ends and the host starts a new
                    # one (a reset gives the RP2040 a fresh heap; this process
                    # cannot), on the same USB pty
                    board._out.write(b"Z %d %d\n" % (cause, board.boots))
                    break
                clean()
            except norflash.PowerCut as cut:
                # the power went during a flash operation: the board stops
                # there, the image as the cut left it; the dead board's open
                # files fail (EIO) instead of raising when gc closes them
                # (norflash.py: off()). The process ends: the host starts a
                # new one on the image (a fresh heap, as after a power-up)
                print("board: %s" % cut)
                board.cut = (cut.op, cut.kind, cut.part)
                board.flash.off()
                board._out.write(b"C %d %s %d %d %d\n" % (
                    cut.op, cut.kind.encode(), int(cut.part * 100), getattr(cut, "seat", -1), getattr(cut, "card", -1)))
                break
    except PowerOff:
        pass
    board.cores.stop()
    board.report()
    if _prof is not None:
        _prof.write()
    if board.trace is not None:
        board.trace.write()
    board._out.write(b"V wall_ms %d\n" % utime.ticks_diff(utime.ticks_ms(), wall0))
    unmount_flash()

