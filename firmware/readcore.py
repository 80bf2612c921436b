"""The readers on the Pico's second core (issue 22; docs/readers.md, "The
readers on core 1").

The RP2040 has two cores; MicroPython's rp2 port runs ``_thread``'s one
thread on core 1, beside the main loop on core 0, with no GIL. Here core 1
does nothing but poll the four readers through the scanner: a group's polls
begun (a pair: seats 0 + 2, then 1 + 3), each reader served as its answer is
ready, its field switched off, the next group begun. The main loop's work (the
table core's checks, a frame on the display, the link, a save) no longer sits
between two polls: the four-seat cycle is the readers' own.

What the two cores share:
- the scanner's event queue, under one lock (``Scanner.lock``: core 1's
  ``_emit``, core 0's ``pop``; nothing else is done while it is held);
- words core 0 only reads: ``Scanner.shown`` (the card each seat saw once),
  ``Scanner._pend`` (a card waiting for its confirming poll: no save begins),
  and ``ctl`` below.

Core 1 allocates nothing while it polls with no card (the scanner's polling
path and the driver's; a sighting's bytecode takes a frame or two from the
heap), so a collection on core 0 rarely stops it. Its stack is the port's
default, 4 KiB of the heap: the polling path uses about 2.4 KB of it (the
board model: 3,040 B of the unix port's, cores.py), a reader's set-up (the
driver's pn532cmd, many calls deep) would not fit, so core 1 asks the main
loop for it (``Scanner.setup_due``) and polls nothing until it is done: a
set-up's commands on core 0, which loads and drops pn532cmd as before (an
import on core 1 would change sys.modules beside core 0's imports). The
flash's erases and programs stop core 1 for their atomic sections (the rp2
port's multicore lockout).

The control bytes (``b`` below, a bytearray of 4): [0] 1 while core 1 is to
run (0 ends its loop), [1] its turns (each group polled, mod 256: the main
loop sees it is alive), [2] exceptions it caught (mod 256), [3] 1 while its
loop runs. (Its names are few and old ones, its constants private: each new
name is a qstr in the chip's heap, and the worst match's are 10 short of a
seventh pool: host/tractor_table/chip_qstrs.py.)
"""

import sys

from display import COLS, card_name
from micropython import const

_RUN = const(0)
_TURNS = const(1)
_ERRORS = const(2)
_ALIVE = const(3)
# the dwell (Scanner.confirm_ms) with the readers here: less than a cycle
# (17.2 ms at least, two pairs' polls with no card, on the emulated RP2040:
# tools/rp2emu/readers.mjs), so that a card's next poll confirms it
_DWELL_MS = const(15)


def start(s, time, b, v=None, d=None):
    """The scanner ``s``'s readers polled on core 1 from now on, ``b`` the
    control bytes; the dwell set to less than a cycle (table.cfg's
    reader_dwell_ms, set after, still rules). With the board ``v`` (its
    display's driver, ``v.panel``) and the display model ``d`` (main.App's:
    its seat lines), core 1 draws a card seen once on the display itself
    (``mark``), and the panel's driver gets a lock that core 0 takes for
    each frame (PicoBoard.show)."""
    import _thread

    s.lock = _thread.allocate_lock()
    s.confirm_ms = _DWELL_MS
    if v is not None and d is not None and v.panel is not None:
        import framebuf

        v.panel.lock = _thread.allocate_lock()
        # made once: the glyphs of " (AS)" (5 characters, 40 columns of page
        # bits), the window's command, each face's tag text; a mark on core 1
        # then allocates only the line it records (a collection that core
        # 1's allocation sets off is core 1's to make, tens of ms)
        buf = bytearray(5 * 8)
        tags = []
        for c in range(54):
            tags.append("(" + card_name(c) + ")")
        v = (v, d, framebuf.FrameBuffer(buf, 40, 8, framebuf.MONO_VLSB), buf,
             bytearray((0, 0x21, 0, 0, 0x22, 0, 0)), [b"\x40", buf], [0] * s.seats, tags)
    else:
        v = None
    b[_RUN] = 1
    b[_ALIVE] = 1
    _thread.start_new_thread(run, (s, time, b, v))


def stop(b):
    """Core 1's loop ends after its group in hand."""
    b[_RUN] = 0


def mark(v, s):
    # A card seen once, drawn on the display by core 1 at once (issue 22: a
    # card placed shows within 50 ms, and core 0 may be in a long turn: a
    # rules check, a frame, the link's work): " (AS)" after the seat's line,
    # where display.DisplayModel.seen_lines puts it, its 5 characters'
    # columns alone (40 bytes of I2C, about 1 ms). Only if core 0 is not
    # sending a frame (the panel's lock, not waited for: else the next group
    # tries again, and core 0's own frame draws it at its next turn anyway).
    # The line the panel then shows goes into the driver's record of what it
    # holds (its _sent): core 0's next frame sends only what differs.
    # v[6]: each seat's first sighting (Scanner._pend_at) drawn so
    pb, dm, fb, buf, win, vec, done, tags = v
    pend = s._pend
    for seat in range(s.seats):
        at = s._pend_at[seat]
        if not pend[seat] or done[seat] == at:
            continue
        drv = pb.oled
        if drv is None:
            return
        c = s.shown[seat]
        ln = dm._seat[seat]
        p = len(ln)
        if p > COLS - 5:
            p = COLS - 5  # where seen_lines puts the tag
        # (the literal display.py has: each new one is a qstr)
        tag = "(??)" if c < 0 else tags[c % 54]
        fb.fill_rect(0, 0, 40, 8, 0)
        fb.text(tag, 8, 0, 1)
        lk = drv.lock
        if lk is None or not lk.acquire(0):
            return
        try:
            sent = drv._sent
            old = sent[3 + seat] if sent is not None else None
            if old is None or old[p + 1:p + 5] != tag:
                # (not there already: core 0 may have drawn it first)
                win[2] = p << 3
                win[3] = ((p + 5) << 3) - 1
                win[5] = 3 + seat
                win[6] = 3 + seat
                drv.i2c.writeto(drv.addr, win)
                drv.i2c.writevto(drv.addr, vec)
                if sent is not None:
                    # the line the panel now shows: what the driver sent
                    # last, the mark's columns replaced (the record stays
                    # true if core 0 has made the seat's line anew and not
                    # sent it yet: its frame sends what differs)
                    if old is None:
                        old = ""
                    if len(old) < p:
                        old += " " * (p - len(old))
                    sent[3 + seat] = old[:p] + " " + tag + old[p + 5:]
            done[seat] = at
        except OSError:
            pass  # the display's errors are core 0's (its next frame)
        finally:
            lk.release()


def run(s, time, b, v=None):
    # (one frame for the whole loop, made once: a turn calls nothing that
    # takes a frame from the heap, so core 1 allocates nothing as it polls)
    ticks_ms = time.ticks_ms
    sleep_ms = time.sleep_ms
    while b[_RUN]:
        try:
            now = ticks_ms()
            if s.setup_due >= 0:
                # a reader's set-up asked of the main loop (Scanner._bring_up):
                # the bus is core 0's until it is done
                sleep_ms(1)
                continue
            if not s._all_up:
                s._bring_up(now)
                if s.setup_due >= 0:
                    continue
            # the groups in turn (a pair: seats 0 + 2, then 1 + 3), never one
            # twice in a row: a card seen once is confirmed by its seat's
            # next poll, a cycle later (the dwell, _DWELL_MS, is shorter than
            # a cycle), no sooner and no later
            g = s._group
            s._group = (g + 1) % s._groups
            if s._begin_group(g):
                if v is not None and max(s._pend):
                    # a card seen once (by the group before): drawn while
                    # this group's chips search (5.4 ms at least)
                    mark(v, s)
                s._serve_group(g, now)
            elif not s._all_up:
                sleep_ms(1)  # no reader of the group is up: a set-up's time is ms away
            b[_TURNS] = (b[_TURNS] + 1) & 0xFF
        except Exception as exc:  # noqa: BLE001 - the readers keep going
            b[_ERRORS] = (b[_ERRORS] + 1) & 0xFF
            sys.print_exception(exc)
            sleep_ms(10)
    b[_ALIVE] = 0
