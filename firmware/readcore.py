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

from micropython import const

_RUN = const(0)
_TURNS = const(1)
_ERRORS = const(2)
_ALIVE = const(3)
# the dwell (Scanner.confirm_ms) with the readers here: less than a cycle
# (17.2 ms at least, two pairs' polls with no card, on the emulated RP2040:
# tools/rp2emu/readers.mjs), so that a card's next poll confirms it
_DWELL_MS = const(15)


def start(s, time, b):
    """The scanner ``s``'s readers polled on core 1 from now on, ``b`` the
    control bytes; the dwell set to less than a cycle (table.cfg's
    reader_dwell_ms, set after, still rules)."""
    import _thread

    s.lock = _thread.allocate_lock()
    s.confirm_ms = _DWELL_MS
    b[_RUN] = 1
    b[_ALIVE] = 1
    _thread.start_new_thread(run, (s, time, b))


def stop(b):
    """Core 1's loop ends after its group in hand."""
    b[_RUN] = 0


def run(s, time, b):
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
                s._serve_group(g, now)
            elif not s._all_up:
                sleep_ms(1)  # no reader of the group is up: a set-up's time is ms away
            b[_TURNS] = (b[_TURNS] + 1) & 0xFF
        except Exception as exc:  # noqa: BLE001 - the readers keep going
            b[_ERRORS] = (b[_ERRORS] + 1) & 0xFF
            sys.print_exception(exc)
            sleep_ms(10)
    b[_ALIVE] = 0
