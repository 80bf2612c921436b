"""The four seat readers: which card was put down where, once.

Sans-IO-ish: the scanner owns no clock and no pins. The main loop calls
``tick(now_ms)`` as often as it can; each call serves one reader (round
robin), so a slow or broken reader delays the loop by at most one
transaction, and then drains the events with ``pop()``:

    n = scanner.tick(time.ticks_ms())
    while scanner.pop():
        if scanner.kind == EV_CARD:
            table.tap(scanner.seat, scanner.card, now)

Readers are ``pn532.PN532`` drivers (or anything with the same methods),
injected, one per seat. Only one reader's RF field is on at any time: each
poll (InListPassiveTarget, which switches the field on) is followed by
RFConfiguration field-off before the next reader is touched.

Events (``kind``; the fields that matter):

- ``EV_CARD``: a known tag appeared at ``seat``: ``card`` (card id), ``uid``.
- ``EV_UNKNOWN``: a tag that is not in the card map appeared: ``uid``/``uid_len``.
- ``EV_TWO``: two tags on one reader at once, or two tags alternating on it:
  an error, never two plays. The seat reports nothing more until it has been
  clear of tags for ``away_ms``.
- ``EV_CROSSTALK``: a tag that ``other`` seat saw within ``crosstalk_ms`` was
  seen at ``seat`` too (a card lying between two readers): not a play.
- ``EV_FAULT``: the reader at ``seat`` stopped answering or answers garbage
  (``code`` is the driver's ``ERR_*``); it is being reset and set up again,
  while the other seats keep being served. Reported once per outage.
- ``EV_RECOVERED``: the reader at ``seat`` answers again.

Timings (all parameters of the constructor; defaults in brackets):

- ``confirm_ms`` [20]: a new tag is reported only when a second poll of the
  seat, at least this long after the first that saw it, sees it again (a card
  of a fanned hand swept over the reader is seen by one poll, and is not a
  play); 0 reports at the first sight. At most a four-seat cycle (about 25 ms
  on the board model), so that the seat's next poll confirms; at most 50 ms
  (issue 22). With the readers on the Pico's second core the table sets 15
  ms (readcore._DWELL_MS: less than a cycle there, 17.2 ms at least on the
  emulated RP2040).
- ``away_ms`` [500]: a tag must be unseen at a seat this long before the same
  tag there counts as a new tap (a card resting on the reader, or bouncing at
  the edge of the field, is reported once). Unseen means a poll of the seat
  found it gone: a tag seen by two polls with no poll between them is still
  there, however long apart they came (a long turn of the main loop: a save's
  erase, with a launched group's answers read after it).
- ``alternate_ms`` [300]: tag A, then B, then A again at one seat within this
  time is two tags on the reader (``EV_TWO``).
- ``crosstalk_ms`` [300]: the same tag at two seats within this time is crosstalk.
- ``fault_after`` [2]: consecutive failed transactions before a reader is reset.
- ``reset_low_ms`` [10]: how long RSTPD_N is held low.
- ``boot_ms`` [20]: wait after releasing RSTPD_N before setting the chip up.
  Both back off while set-ups keep failing: x1, x2.5, then x10 (boot 20 ->
  50 -> 200 ms), back to x1 once a set-up works (a chip slow to come out of
  power-down gets longer to boot, instead of the same 20 ms again).
- ``retry_ms`` [1000]: wait before the next reset when set-up failed.
- ``max_targets`` [2]: targets asked for per poll; 2 lets the chip itself
  report two tags on one reader.
- ``rx_gain`` (attribute) [-1]: the readers' receiver gain code, set after
  each set-up (``pn532.PN532.set_rx_gain``; table.cfg ``reader_gain=low``
  sets 4, 33 dB); -1 leaves the chip's default (38 dB).
- ``max_retries`` [0]: extra passive-activation attempts per poll (0 = one
  attempt, so a poll without a card returns in a few ms).
"""

import sys

import micropython
from micropython import const

try:
    from typing import Any  # noqa: F401 - the annotations' (the type checker's only)
except ImportError:
    pass

EV_NONE = const(0)
EV_CARD = const(1)
EV_UNKNOWN = const(2)
EV_TWO = const(3)
EV_CROSSTALK = const(4)
EV_FAULT = const(5)
EV_RECOVERED = const(6)
EV_SEEN = const(7)
EV_GONE = const(8)

#: how many readers are polled at once (``Scanner(group=...)``, table.cfg
#: ``reader_groups``): one at a time, in pairs (seats 0+2, then 1+3), or all four
GROUP_ONE = const(1)
GROUP_PAIRS = const(2)
GROUP_ALL = const(4)

_PENDING = const(-100)  # pn532.PENDING: the command is still running
_P_IDLE = const(0)  # a reader's part in the group poll: not polled
_P_POLL = const(1)  # its InListPassiveTarget (and then its field-off) is running
_P_OFF = const(2)  # its answer (a tag) taken, its field-off running
_OP_OFF = const(3)  # pn532.PN532._op while its field-off runs (the answer read)

_INIT = const(0)  # needs set-up
_OK = const(1)  # polled in turn
_RESET = const(2)  # RSTPD_N held low until _due
_BOOT = const(3)  # booting until _due, then set-up
_WAIT = const(4)  # set-up failed; next reset at _due

_UID_MAX = const(10)
# how long after confirm_ms a tag seen once still counts as pending (ms): a
# four-seat cycle and then some; a stray read that never comes back holds
# the saves off this long at most
_PENDING_SLACK_MS = const(200)


def ticks_diff(a, b):
    # a - b for millisecond ticks that wrap like MicroPython's (period 2**30).
    return ((a - b + 0x20000000) & 0x3FFFFFFF) - 0x20000000


def _same(a, alen, b, blen):
    if alen != blen or alen == 0:
        return False
    for i in range(alen):
        if a[i] != b[i]:
            return False
    return True


def _back_off(ms, step):
    # x1, x2.5, x10 after 0, 1, 2+ failed set-ups in a row
    return ms if step == 0 else (ms * 5) // 2 if step == 1 else ms * 10


def _part():
    # what the scanner runs once (its set-up, the grouping): scanstart.py,
    # loaded for it
    import scanstart

    return scanstart


def _done():
    # scanstart out of the heap if it came from a .mpy file (the Pico, the
    # virtual table); compiled from source (the tests under MicroPython,
    # CPython) it stays, as table._done keeps a table part
    m = sys.modules.get("scanstart")
    if m is not None and not getattr(m, "__file__", ".py").endswith(".py"):
        del sys.modules["scanstart"]


class Scanner:
    # what __init__ sets (scanstart.init), for the type checker only:
    # MicroPython discards a class body's bare annotations
    readers: "Any"
    cardmap: "Any"
    confirm_ms: int
    away_ms: int
    alternate_ms: int
    crosstalk_ms: int
    fault_after: int
    reset_low_ms: int
    boot_ms: int
    retry_ms: int
    max_targets: int
    max_retries: int
    rx_gain: int
    seats: int
    group: int
    _groups: int
    _group: int
    _next: int
    _flight: int
    _flight_at: int
    _phase: bytearray
    shown: "list[int]"
    _state: bytearray
    _all_up: bool
    _due: "list[int]"
    _fails: bytearray
    _backoff: bytearray
    _faulted: bytearray
    _two: bytearray
    _cur: "list[bytearray]"
    _cur_len: bytearray
    _cur_seen: "list[int]"
    _missed: bytearray
    _pend: bytearray
    _pend_at: "list[int]"
    unconfirmed: int
    _prev: "list[bytearray]"
    _prev_len: bytearray
    _prev_seen: "list[int]"
    _q: int
    _q_head: int
    _q_len: int
    _q_kind: bytearray
    _q_seat: bytearray
    _q_arg: "Any"  # array("i")
    _q_t: "Any"  # array("i")
    _q_uid: bytearray
    _q_uid_len: bytearray
    dropped: int
    lock: "Any"
    setup_due: int
    kind: int
    seat: int
    card: int
    other: int
    code: int
    t_ms: int
    uid: bytearray
    uid_len: int
    polls: int
    off_failures: int
    faults: int
    recoveries: int

    def __init__(
        self,
        readers,
        cardmap=None,
        confirm_ms=20,
        away_ms=500,
        alternate_ms=300,
        crosstalk_ms=300,
        fault_after=2,
        reset_low_ms=10,
        boot_ms=20,
        retry_ms=1000,
        max_targets=2,
        max_retries=0,
        queue=16,
        group=GROUP_PAIRS,
    ):
        # the set-up is scanstart's (loaded for it and dropped after)
        _part().init(
            self, readers, cardmap, confirm_ms, away_ms, alternate_ms, crosstalk_ms, fault_after, reset_low_ms,
            boot_ms, retry_ms, max_targets, max_retries, queue, group,
        )
        _done()

    def set_group(self, group):
        """How many readers are polled at once: GROUP_ONE, GROUP_PAIRS (seats
        0 + 2, then 1 + 3) or GROUP_ALL (more current: hardware/README.md)."""
        try:
            _part().set_group(self, group)
        finally:
            _done()

    # ---- events ---------------------------------------------------------------
    def _emit(self, kind, seat, arg, uid, uid_len, now):
        lk = self.lock
        if lk is not None:
            # the readers on the second core (readcore.py): the main loop's
            # pop() on the other core takes the same lock
            lk.acquire()
        try:
            if self._q_len == self._q:
                self.dropped += 1
                return
            k = (self._q_head + self._q_len) % self._q
            self._q_kind[k] = kind
            self._q_seat[k] = seat
            self._q_arg[k] = arg
            self._q_t[k] = now
            dst = self._q_uid
            o = k * _UID_MAX
            for i in range(uid_len):
                dst[o + i] = uid[i]
            self._q_uid_len[k] = uid_len
            self._q_len += 1
        finally:
            if lk is not None:
                lk.release()

    def pending(self):
        return self._q_len

    def pop(self):
        """Take the oldest event into ``kind``, ``seat``, ``card``/``other``/
        ``code``, ``uid``/``uid_len``, ``t_ms``; returns ``kind`` (EV_NONE if none)."""
        lk = self.lock
        if lk is not None:
            # (the readers on the second core: their _emit takes it too)
            lk.acquire()
        try:
            if self._q_len == 0:
                self.kind = EV_NONE
                return EV_NONE
            k = self._q_head
            self._q_head = (k + 1) % self._q
            self._q_len -= 1
            kind = self._q_kind[k]
            arg = self._q_arg[k]
            self.kind = kind
            self.seat = self._q_seat[k]
            self.t_ms = self._q_t[k]
            self.card = -1
            self.other = -1
            self.code = 0
            if kind == EV_CARD or kind == EV_SEEN:
                self.card = arg
            elif kind == EV_CROSSTALK:
                self.other = arg & 0xFF
                self.card = (arg >> 8) - 1
            elif kind == EV_FAULT:
                self.code = arg
            n = self._q_uid_len[k]
            src = self._q_uid
            o = k * _UID_MAX
            uid = self.uid
            for i in range(n):
                uid[i] = src[o + i]
            self.uid_len = n
            return kind
        finally:
            if lk is not None:
                lk.release()

    def seen_once(self, now):
        """True while a seat saw a new tag by one poll and its confirming poll
        may still come (confirm_ms and a cycle's allowance after it): the main
        loop starts no save then, so that the tap's frame is not kept waiting.
        A group that ``launch()`` left running is read first: its
        answers may hold a first sighting, and no field stays on, no reader
        waits half-read, through the flash work that a False lets begin.
        True as well while events wait for ``pop()`` (a card that group
        confirmed: counted and drawn first, then the flash)."""
        f = self._flight
        if f >= 0:
            # the launched group read now (its answers, its fields off), judged
            # by its launch's time as at a tick; its events wait for pop()
            self._flight = -1
            self._serve_group(f, self._flight_at)
        if self._q_len:
            return True
        if not max(self._pend):
            return False  # nearly every turn: one C call, not a loop over the seats
        for s in range(self.seats):
            if self._pend[s] and ticks_diff(now, self._pend_at[s]) <= self.confirm_ms + _PENDING_SLACK_MS:
                return True
        return False

    def confirming(self, now):
        """True while the group in flight holds a seat that saw a new tag once
        (its confirming poll), or the group launched after it would (that
        seat's dwell over by ``now``): read it as soon as the turn can, and
        that poll set to work then (main.App.step)."""
        f = self._flight
        if f < 0 or not max(self._pend):
            return False
        groups = self._groups
        for s in range(self.seats):
            if self._pend[s]:
                g = s % groups
                if g == f:
                    return True
                # what launch() polls next: the next group in turn, or a
                # pending seat's out of turn (_repoll)
                if (g == self._group or not self._again) and ticks_diff(now, self._pend_at[s]) >= self.confirm_ms:
                    return True
        return False

    def due(self, now):
        """True when a reader has something to do now (a poll, a set-up, a
        reset's next step): the main loop must not sleep then."""
        for seat in range(self.seats):
            st = self._state[seat]
            if st == _OK or st == _INIT or ticks_diff(now, self._due[seat]) >= 0:
                return True
        return False

    # ---- reader health -----------------------------------------------------
    def reader_ok(self, seat):
        return self._state[seat] == _OK

    def _lookup(self, uid, n):
        if self.cardmap is None:
            return -1
        return self.cardmap.lookup(uid, n)

    def _failed(self, seat, code, now):
        self._fails[seat] += 1
        if self._fails[seat] >= self.fault_after:
            self._start_reset(seat, code, now)

    def _start_reset(self, seat, code, now, keep=False):
        # keep: the tags the seat saw stay remembered (a card resting on the
        # reader through the reset is not a new tap)
        if not self._faulted[seat]:
            self._faulted[seat] = 1
            self.faults += 1
            self._emit(EV_FAULT, seat, code, self._cur[seat], 0, now)
        self._fails[seat] = 0
        if not keep:
            self._cur_len[seat] = 0
            self._prev_len[seat] = 0
            self._two[seat] = 0
            self._pend[seat] = 0
            self.shown[seat] = -1  # (its EV_FAULT says the seat shows nothing)
        self.readers[seat].reset_begin()
        self._state[seat] = _RESET
        self._all_up = False
        self._due[seat] = now + _back_off(self.reset_low_ms, self._backoff[seat])

    def _setup(self, seat, now):
        # (resident, not scanstart's: a reader's set-up mid-match, after a
        # reset, loads the driver's pn532cmd only, not the scanner's set-up too)
        rd = self.readers[seat]
        r = rd.setup(self.max_retries)
        if r >= 0 and self.rx_gain >= 0:
            r = rd.set_rx_gain(self.rx_gain)
        # the driver's set-up code leaves the heap (pn532.drop_cmd): the
        # polling path does not use it, a reset loads it again
        drv = sys.modules.get("pn532")
        if drv is not None:
            drv.drop_cmd()
        if r < 0:
            if not self._faulted[seat]:
                self._faulted[seat] = 1
                self.faults += 1
                self._emit(EV_FAULT, seat, r, self._cur[seat], 0, now)
            self._state[seat] = _WAIT
            self._all_up = False
            self._due[seat] = now + self.retry_ms
            if self._backoff[seat] < 2:
                self._backoff[seat] += 1
            return
        self._state[seat] = _OK
        self._fails[seat] = 0
        self._backoff[seat] = 0
        if self._faulted[seat]:
            self._faulted[seat] = 0
            self.recoveries += 1
            self._emit(EV_RECOVERED, seat, 0, self._cur[seat], 0, now)

    # ---- the loop ---------------------------------------------------------------
    # bytecode since 2026-12-07 (issue 21: its 1,058 B of machine code paid for the rules
    # engine's worst follow in the chip's heap; a call a turn, its work in the calls it makes)
    def tick(self, now, poll=True):
        """One step of the readers that are not polled (a set-up, a reset's
        next step: at most one set-up), the group ``launch()`` left running
        read, then (unless that group brought events: they go to the main
        loop first; or ``poll`` is False: the caller launches the next group,
        main.App's turn in two halves) one poll of the next group of readers,
        all of them at once; returns the number of events waiting. Does
        nothing (cheaply) while every reader waits."""
        # (the frame of this bytecode method holds at most 11 words, so that
        # it is on the C stack, not a heap block, each turn: the rare set-ups
        # are _bring_up's; rp2 port, py/objfun.c VM_MAX_STATE_ON_STACK)
        if not self._all_up:
            self._bring_up(now)
        f = self._flight
        if f >= 0:
            # the group launch() left running: its answers and field-offs
            # first (two groups' fields are never on together)
            self._flight = -1
            self._serve_group(f, self._flight_at)
            if self._q_len or not poll:
                # it saw something: no blocking poll before the main loop
                # takes it (a card seen once is drawn now, not a group's
                # search later); the next group is launch()'s
                return self._q_len
        i = self._groups
        while i:
            g = self._group
            self._group = (g + 1) % self._groups
            if self._begin_group(g):
                self._serve_group(g, now)
                break
            i -= 1
        return self._q_len

    def _bring_up(self, now):
        # the readers that are not polled: a set-up, a reset's next step
        # (at most one set-up); skipped while every reader is up
        n = self.seats
        down = False
        for _ in range(n):
            seat = self._next
            self._next = (seat + 1) % n
            st = self._state[seat]
            if st == _OK:
                continue
            down = True
            if st == _INIT or (st == _BOOT and ticks_diff(now, self._due[seat]) >= 0):
                # its set-up now, or (the readers on the second core,
                # readcore.py) asked of the main loop: its commands go many
                # calls deep (pn532cmd), deeper than core 1's 4 KiB of stack,
                # and load pn532cmd, an import core 1 must not make beside
                # core 0's; core 1 polls nothing until it is done
                # (picoboard.PicoBoard.taps)
                if self.lock is None:
                    self._setup(seat, now)
                else:
                    self.setup_due = seat
                break
            if ticks_diff(now, self._due[seat]) < 0:
                continue
            if st == _RESET:
                self.readers[seat].reset_end()
                self._state[seat] = _BOOT
                self._due[seat] = now + _back_off(self.boot_ms, self._backoff[seat])
                continue  # releasing the pin is cheap: serve another reader
            if st == _WAIT:
                self._start_reset(seat, 0, now)
                continue
        if not down:
            self._all_up = True

    def launch(self, now):
        """Begin the polls of the next group of readers (at ``now``, the main
        loop's time that their sightings are judged by) and return at once
        (no SPI after the commands are written): the next ``tick()`` reads
        their answers and switches their fields off before it polls another
        group, so that the main loop's own work runs while these chips search
        for tags (docs/readers.md, "Scanner"). True if a group was begun."""
        if self._flight >= 0:
            return False
        g = self._repoll(now)
        if g >= 0:
            self._flight = g
            self._flight_at = now
            return True
        groups = self._groups
        for _ in range(groups):
            g = self._group
            self._group = (g + 1) % groups
            if self._begin_group(g):
                self._flight = g
                self._flight_at = now
                return True
        return False

    def dwell_left(self, now):
        """ms until the group launch() polls next may poll a seat that saw a
        new tag once (its dwell, confirm_ms, since that poll): launched
        sooner, that poll would not confirm it, and the seat would wait for
        one more. 0 when none waits."""
        left = 0
        if self._flight < 0 and max(self._pend):
            seat = self._group
            while seat < self.seats:
                if self._pend[seat]:
                    w = self.confirm_ms - ticks_diff(now, self._pend_at[seat])
                    if w > left:
                        left = w
                seat += self._groups
        return left if left <= self.confirm_ms else self.confirm_ms

    def _repoll(self, now):
        # A seat that saw a new tag once is polled again as soon as its dwell
        # allows (confirm_ms since the poll that saw it), before the group
        # whose turn it is: its confirming poll a group sooner (issue 22). The
        # order then goes on where it was (that group is next), and never two
        # such polls in a row, so every group is polled at least every other
        # poll. The group begun, or -1
        groups = self._groups
        if groups < 2 or self._again or not max(self._pend):
            self._again = False
            return -1
        for s in range(self.seats):
            g = s % groups
            if (
                self._pend[s]
                and g != self._group
                and ticks_diff(now, self._pend_at[s]) >= self.confirm_ms
                and self._begin_group(g)
            ):
                self._again = True
                return g
        return -1

    # bytecode: twice a cycle, a few lines (native: more of the chip's heap)
    def _begin_group(self, g):
        # InListPassiveTarget to every reader of group g (seats g, g + groups,
        # ...) that is up; False: none is
        n = self.seats
        step = self._groups
        readers = self.readers
        phase = self._phase
        active = False
        seat = g
        while seat < n:
            if self._state[seat] == _OK:
                self.polls += 1
                readers[seat].poll_begin(self.max_targets)
                phase[seat] = _P_POLL
                active = True
            else:
                phase[seat] = _P_IDLE
            seat += step
        return active

    def serve(self, now):
        """The group ``launch()`` left running served without waiting (a
        look at each reader whose answer may be in: its answer read, its
        field switched off, its field-off's answer read), and once all have
        answered and brought no event the next group launched at ``now``:
        for the main loop's long work, between a frame's pages (issue 22).
        True once the group in flight is done."""
        f = self._flight
        if f < 0 or not self._serve_group(f, self._flight_at, False):
            return False
        self._flight = -1
        if not self._q_len:
            self.launch(now)
        return True

    @micropython.native
    def _serve_group(self, g, now, block=True):
        # Serve the readers of group g, whose polls are running, at once: each
        # is served as its answer is ready; the driver switches its field off
        # at once (a field is on from its poll's start to its field-off's
        # answer) and returns the poll's answer once the field is off; an
        # answer with a tag is taken as soon as the field-off is sent. Not
        # ``block``: False at once when no reader is ready (serve())
        n = self.seats
        step = self._groups
        readers = self.readers
        phase = self._phase
        active = 0
        seat = g
        while seat < n:
            if phase[seat] != _P_IDLE:
                active += 1
            seat += step
        while active:
            wait = 1 << 30
            moved = False
            seat = g
            while seat < n:
                if phase[seat] != _P_IDLE:
                    rd = readers[seat]
                    r = rd.step()
                    if r == _PENDING:
                        if rd._op == _OP_OFF and phase[seat] == _P_POLL and rd.found > 0:
                            # the poll's answer is in, a tag in it, and its
                            # field going off: what it saw is taken now, while
                            # the chip switches the field off, not after the
                            # field-off's answer (1.3 ms; issue 22)
                            phase[seat] = _P_OFF
                            self._fails[seat] = 0
                            self._seen_found(seat, rd.found, now)
                        w = rd.wait
                        if w < wait:
                            wait = w
                    else:
                        moved = True
                        if phase[seat] == _P_OFF:
                            if rd.off < 0:
                                self._polled(seat, 0, now)  # the field-off failed: a reset
                        else:
                            self._polled(seat, r, now)
                        phase[seat] = _P_IDLE
                        active -= 1
                seat += step
            if active and not moved:
                if not block:
                    return False
                readers[g].sleep_us(wait)
        return True

    # bytecode since 2026-12-07 (issue 21: machine code in the chip's heap for the rules
    # engine's worst follow; a few tests and one call a poll)
    def _polled(self, seat, found, now):
        # a poll's answer (found: tags or an error) and its field-off's (the
        # driver's off); few arguments: a frame of 11 words or less is on the
        # C stack, not a heap block, each poll (as _seen_found's)
        off = self.readers[seat].off
        if off < 0:
            # the field may still be on: reset the reader at once (RSTPD_N low
            # turns its field off), so that no field stays on; a good answer
            # of the poll still counts (a dropped read was a card lost at the
            # table: the board model showed it)
            if found > 0:
                self._seen_found(seat, found, now)
            self.off_failures += 1
            self._start_reset(seat, off, now, True)
            return
        if found < 0:
            self._failed(seat, found, now)
            return
        self._fails[seat] = 0
        self._seen_found(seat, found, now)

    # bytecode since 2026-12-07 (issue 21: machine code in the chip's heap for the rules
    # engine's worst follow; a few tests and one call a poll)
    def _seen_found(self, seat, found, now):
        if found == 0:
            if self._pend[seat]:
                self._drop(seat, now)  # seen once, gone before it was confirmed
            if self._two[seat] and ticks_diff(now, self._cur_seen[seat]) > self.away_ms:
                self._two[seat] = 0  # clear again: the next tap counts
            self._missed[seat] = 1  # its tag is not seen: its away time runs
            return
        if found >= 2:
            self._cur_seen[seat] = now
            if self._pend[seat]:
                self._pend[seat] = 0
                self._gone(seat, now)
            if not self._two[seat]:
                self._two[seat] = 1
                self._two_seen(seat, now)
            return
        rd = self.readers[seat]
        self._seen(seat, rd.uid, rd.uid_len, now)

    def _two_seen(self, seat, now):
        # two tags at once (rare): EV_TWO with the tag the driver read first
        rd = self.readers[seat]
        self._emit(EV_TWO, seat, 0, rd.uid, rd.uid_len, now)

    def _seen(self, seat, uid, n, now):
        cur = self._cur[seat]
        if self._two[seat]:
            self._cur_seen[seat] = now
            return
        recent = ticks_diff(now, self._cur_seen[seat])
        missed = self._missed[seat]
        self._missed[seat] = 0
        if _same(uid, n, cur, self._cur_len[seat]) and (recent <= self.away_ms or not missed):
            # still there (or back within the hold-off; or seen by the seat's
            # very next poll, however late it came: never found gone)
            self._cur_seen[seat] = now
            if self._pend[seat] and ticks_diff(now, self._pend_at[seat]) >= self.confirm_ms:
                self._pend[seat] = 0  # seen again, long enough after: a tap
                # its card as looked up at the first sighting (shown: -2 a
                # tag not in the card map), not looked up again
                c = self.shown[seat]
                self._report(seat, uid, n, now, self._pend_at[seat], c if c >= 0 else -1)
            return
        prev_same = _same(uid, n, self._prev[seat], self._prev_len[seat])
        if prev_same and self._pend[seat] and recent <= self.alternate_ms:
            # the tag before is back, and the one between was seen by one poll
            # only (a stray read): the tag before is still there, no error
            self._pend[seat] = 0
            self.unconfirmed += 1
            prev = self._prev[seat]
            self._prev[seat] = cur
            self._prev_len[seat] = self._cur_len[seat]
            self._cur[seat] = prev
            self._cur_len[seat] = n
            self._cur_seen[seat] = now
            self._gone(seat, now)
            return
        if (
            prev_same
            and self._cur_len[seat]
            and recent <= self.alternate_ms
            and ticks_diff(now, self._prev_seen[seat]) <= self.alternate_ms
        ):
            self._two[seat] = 1
            self._cur_seen[seat] = now
            self._emit(EV_TWO, seat, 0, uid, n, now)
            return
        # A new appearance at this seat: remember it (cur becomes prev).
        prev = self._prev[seat]
        self._prev[seat] = cur
        self._prev_len[seat] = self._cur_len[seat]
        self._prev_seen[seat] = self._cur_seen[seat]
        self._cur[seat] = prev
        for i in range(n):
            prev[i] = uid[i]
        self._cur_len[seat] = n
        self._cur_seen[seat] = now
        if self._pend[seat]:
            self.unconfirmed += 1  # the tag before was seen by one poll only
        if self.confirm_ms > 0:
            # seen once: shown at once, counted once a poll confirm_ms later
            # sees it again (a card swept over the reader is not a play)
            self._pend[seat] = 1
            self._pend_at[seat] = now
            card = self._lookup(uid, n)
            self.shown[seat] = card if card >= 0 else -2
            self._emit(EV_SEEN, seat, card, uid, n, now)
            return
        self._report(seat, uid, n, now, now, self._lookup(uid, n))

    def _gone(self, seat, now):
        # the card shown as seen once is not shown any more
        if self.shown[seat] != -1:
            self.shown[seat] = -1
            self._emit(EV_GONE, seat, 0, self._cur[seat], 0, now)

    def _drop(self, seat, now):
        # The tag seen by one poll is gone before a second one confirmed it:
        # as if it had never been seen (the tag before it is the seat's again:
        # a card resting there is no new tap when it is seen again; the tag
        # itself, put down again, is a new appearance, shown and confirmed anew).
        self._pend[seat] = 0
        self.unconfirmed += 1
        cur = self._cur[seat]
        self._cur[seat] = self._prev[seat]
        self._cur_len[seat] = self._prev_len[seat]
        self._cur_seen[seat] = self._prev_seen[seat]
        self._prev[seat] = cur
        self._prev_len[seat] = 0
        self._gone(seat, now)

    # bytecode (issue 21, the heap): once a counted tap, not once a poll; as
    # native 912 B of the chip's heap for 186 B of bytecode
    def _report(self, seat, uid, n, now, since, card):
        # since: when this seat first saw the tag; another seat that saw the
        # same tag first (and still sees it) makes this one crosstalk; card:
        # its card id (-1: not in the card map)
        self.shown[seat] = -1  # counted (or refused): not shown as seen once
        for other in range(self.seats):
            if other == seat or self._state[other] != _OK:
                continue
            if self._pend[other] and ticks_diff(self._pend_at[other], since) >= 0:
                continue  # the other seat saw it later, not reported yet
            if _same(uid, n, self._cur[other], self._cur_len[other]) and (
                ticks_diff(now, self._cur_seen[other]) <= self.crosstalk_ms
            ):
                self._emit(EV_CROSSTALK, seat, ((card + 1) << 8) | other, uid, n, now)
                return
        if card >= 0:
            self._emit(EV_CARD, seat, card, uid, n, now)
        else:
            self._emit(EV_UNKNOWN, seat, -1, uid, n, now)
