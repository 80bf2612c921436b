# mypy: ignore-errors
# (MicroPython code, run by the unix port: not part of the typed host package.)
# The board model's virtual clock, in microseconds.
#
# Two things move it:
# - the device models charge what the hardware takes: every SPI byte at the
#   bus's baud rate, every I2C byte at the bus frequency, the PN532's command
#   and RF times (pn532sim/chip.py), the flash's erase and program times, and
#   every sleep the firmware asks for;
# - the firmware's own CPU time: the time the process runs outside the models
#   (between leaving one model call and entering the next), less the measured
#   cost of a call into a (Python) model (``overhead_us``: calibrate()'s
#   figure, a tight loop of calls, or, once measured, the in-situ one if
#   larger: the mean of the firmware's shortest stretches, a pin written then
#   an SPI transfer and the other way round, a few bytecodes each, the smaller
#   of the two; where the firmware runs the caches are colder than in a tight
#   loop: 1.7-2.2 us against 1.2-1.4 us, on a loaded machine), scaled by ``cpu_factor``, the
#   RP2040's time per unix-port time (bench/rp2040.py: GENERIC x FLASH_WAIT =
#   125 x 1.3 = 162.5 by default), plus ``call_us`` per call (the rp2 port's C
#   call). The models' own time is never charged: it is not the Pico's.
#
# CPU time, not wall time: a stretch is measured on the wall clock, and the
# time the process spent waiting for a CPU meanwhile (preempted by the
# machine's other work) is taken off. That time comes from the kernel's
# per-task run delay (``run_delay()``: the second field of
# /proc/thread-self/schedstat, nanoseconds spent runnable but not running,
# updated when the task gets a CPU back), read after every stretch longer than
# ``long_us`` and after every model call longer than ``long_call_us`` (a
# preemption there is the model's, not the next stretch's): a preemption
# lasts longer than that (another task's turn), so a shorter stretch held
# none worth reading for. Virtual
# time then no longer depends on how busy the machine is, only on the
# firmware's own work. Two bounds remain for what a machine does to a process
# that is not waiting for a CPU (interrupts, the hypervisor taking the virtual
# CPU away: tens of microseconds now and then, x162.5 on the board):
# - while a device model holds a frame the firmware has not read yet
#   (``waiting()``) and the firmware runs native code (the PN532 driver's
#   wait loop, a few lines between two status reads) a stretch is charged at
#   most ``wait_cap_us``: without it one such stall between a status read and
#   the driver's deadline check timed out a 5 ms ACK wait (a reader fault at
#   the table) on a loaded machine. Bytecode is charged whole: since the
#   scanner leaves a group's poll running through the main loop's turn, a
#   frame waits during most of the table core's and the display's work, and
#   the cap charged each of their long stretches as 16 us (2.6 ms of board
#   time: the hand's end's audit, text_lines) until 2026-12-06;
# - any stretch is charged at most ``cpu_cap_us``.
#
# The interface is pn532sim's SimClock (now_us, ticks_us, ticks_ms,
# ticks_diff, sleep_us, advance_us) plus enter()/leave() around model calls.
import gc as _gc

import micropython
import utime

_NONE = object()
# bytes ever requested from the allocator (MICROPY_MEM_STATS: about 0.1 us a
# call, allocates nothing; gc.mem_alloc() walks the allocation table)
_mem_total = micropython.mem_total
# ... less what was freed explicitly (a frame on the heap, freed at its
# function's return); a collection does not lower it
_mem_current = micropython.mem_current


class TimedGC:
    """The firmware's ``gc`` (sys.modules["gc"]): collect() timed apart and
    charged at the clock's c_factor; with the allocator model on
    (VClock.gc_model) collect(), threshold(), mem_alloc() and mem_free() are
    the chip's heap's (the firmware's share, in this port's bytes);
    everything else the built-in's."""

    def __init__(self, clock, gc):
        self._clock = clock
        self._gc = gc

    def collect(self):
        c = self._clock
        if c.gcm:
            c.enter()
            try:
                c.fw_collect(False)
            finally:
                c.leave()
            return None
        return c.c_call(self._gc.collect, _NONE, 0)

    def threshold(self, *a):
        c = self._clock
        if not c.gcm:
            return self._gc.threshold(*a)
        if a:
            n = a[0]
            c.fw_thresh = -1 if n < 0 else n
            c._set_due()
            return None
        return c.fw_thresh

    def mem_alloc(self):
        c = self._clock
        if not c.gcm:
            return self._gc.mem_alloc()
        return c.fw_live + int(c.fw_net * c.ratio)

    def mem_free(self):
        c = self._clock
        if not c.gcm:
            return self._gc.mem_free()
        f = c.fw_heap - c.fw_live - int(c.fw_net * c.ratio)
        return f if f > 0 else 0

    def __getattr__(self, name):
        return getattr(self._gc, name)


class TimedJson:
    """The firmware's ``json``: dumps() and loads() (C code) timed apart; what
    they allocate is the firmware's (VClock.c_begin)."""

    def __init__(self, clock, json):
        self._clock = clock
        self._json = json

    def dumps(self, x, separators=None):
        c = self._clock
        c.c_begin()
        try:
            return self._json.dumps(x) if separators is None else self._json.dumps(x, separators=separators)
        finally:
            c.c_end(1)

    def loads(self, x):
        c = self._clock
        c.c_begin()
        try:
            return self._json.loads(x)
        finally:
            c.c_end(1)

    def __getattr__(self, name):
        return getattr(self._json, name)


class _TimedStream:
    """The USB serial's stream (sys.stdin.buffer / sys.stdout.buffer) as the
    firmware sees it: each call a model call (a C call on the rp2 port, whose
    USB stack reads from and writes to RAM buffers), not the unix port's
    system call charged at the bytecode factor; a write also charges its
    bytes at USB_US_PER_BYTE."""

    def __init__(self, clock, stream):
        self._clock = clock
        self._s = stream

    def readinto(self, buf, n=-1):
        c = self._clock
        c.enter()
        try:
            return self._s.readinto(buf) if n < 0 else self._s.readinto(buf, n)
        finally:
            c.leave()

    def write(self, data):
        c = self._clock
        c.enter()
        try:
            c.advance_us(len(data) * USB_US_PER_BYTE)
            return self._s.write(data)
        finally:
            c.leave()

    def __getattr__(self, name):
        return getattr(self._s, name)


class _TimedStdio:
    def __init__(self, clock, f):
        self._f = f
        self.buffer = _TimedStream(clock, f.buffer)

    def __getattr__(self, name):
        return getattr(self._f, name)


class TimedSys:
    """The firmware's ``sys``: its stdin and stdout timed as model calls
    (_TimedStream); everything else the built-in's."""

    def __init__(self, clock, sys):
        self._sys = sys
        self.stdin = _TimedStdio(clock, sys.stdin)
        self.stdout = _TimedStdio(clock, sys.stdout)

    def __getattr__(self, name):
        return getattr(self._sys, name)


class _TimedPoll:
    def __init__(self, clock, p):
        self._clock = clock
        self._p = p

    def register(self, obj, *a):
        return self._p.register(getattr(obj, "_f", obj), *a)

    def poll(self, timeout=-1):
        c = self._clock
        c.enter()
        try:
            return self._p.poll(timeout)
        finally:
            c.leave()

    def __getattr__(self, name):
        return getattr(self._p, name)


class TimedSelect:
    """The firmware's ``select``: poll() objects whose poll() is a model call
    (on the rp2 port a look at the USB serial's receive buffer, in C)."""

    def __init__(self, clock, select):
        self._clock = clock
        self._select = select

    def poll(self):
        return _TimedPoll(self._clock, self._select.poll())

    def __getattr__(self, name):
        return getattr(self._select, name)


#: µs per byte the firmware writes to the USB serial: full-speed USB CDC
#: moves about 1 MB/s (the rp2 port's write returns once TinyUSB took the bytes)
USB_US_PER_BYTE = 1


class _TimedFrameBuffer:
    # each method's arguments named (no tuple of them made before the call:
    # what the firmware allocates is counted, VClock.gc_model); native code
    # (no frame on the heap) with no try (a native try allocates): framebuf's
    # drawing does not raise
    def __init__(self, clock, fb):
        self._clock = clock
        self._fb = fb

    def fill(self, col):
        c = self._clock
        c.c_begin()
        self._fb.fill(col)
        c.c_end(2)

    def fill_rect(self, x, y, w, h, col):
        c = self._clock
        c.c_begin()
        self._fb.fill_rect(x, y, w, h, col)
        c.c_end(2)

    def text(self, s, x, y, col=1):
        c = self._clock
        c.c_begin()
        self._fb.text(s, x, y, col)
        c.c_end(2)

    def __getattr__(self, name):
        return getattr(self._fb, name)


class TimedFramebuf:
    """The firmware's ``framebuf``: a FrameBuffer's fill, fill_rect and text
    (C code) timed apart, at c_factor."""

    def __init__(self, clock, framebuf):
        self._clock = clock
        self._m = framebuf

    def FrameBuffer(self, *a):
        return _TimedFrameBuffer(self._clock, self._m.FrameBuffer(*a))

    def __getattr__(self, name):
        return getattr(self._m, name)


def timed_import(clock, imp):
    """The firmware's ``builtins.__import__``: ``imp`` (the built-in, or
    chipstack's forward) with its stretches charged at the clock's
    c_factor. An import on the rp2 port is C code: the module's lookup in
    littlefs (three stats a module, each a walk of the root directory's
    metadata with its CRCs: 100-180 block reads, 40-50 KB, for one of the
    firmware's modules) and the .mpy loader; the module's own body is
    bytecode, 13-30 us of the 300-500 us of an engine module's import on
    this port (body alone against the import: the body's share is charged
    at c_factor too, under 5 %). The flash's reads stay model calls
    (norflash.py). The rp2 port's C was not timed apart: c_factor is the
    nearest measured figure (the rp2 port's native code, docs/performance.md
    "Calibration": rules_native x FLASH_WAIT),
    as for gc.collect() and json. Imports made inside a model call, and
    with the CPU charged as free (factor 0), are left as they are."""

    def imp_c(*a):
        c = clock
        if not c.factor or c._depth:
            return imp(*a)
        p = c.switch(c.c_factor)
        try:
            return imp(*a)
        finally:
            c.switch(p)

    return imp_c


def _as_c(clock, fn, *a):
    # fn(*a) with its stretches charged at c_factor (as timed_import); inside
    # a model call, or with the CPU charged as free, as it is
    c = clock
    if not c.factor or c._depth:
        return fn(*a)
    p = c.switch(c.c_factor)
    try:
        return fn(*a)
    finally:
        c.switch(p)


class TimedFile:
    """A file of the firmware's on littlefs (builtins.open, timed_open): each
    call littlefs's C on the rp2 port (its metadata walks, CRCs and commits,
    a compaction of its metadata at a save's close), charged at c_factor
    like an import, not at the bytecode factor; the flash's block calls stay
    model calls (norflash.py)."""

    def __init__(self, clock, f):
        self._clock = clock
        self._f = f

    def read(self, *a):
        return _as_c(self._clock, self._f.read, *a)

    def readinto(self, *a):
        return _as_c(self._clock, self._f.readinto, *a)

    def readline(self, *a):
        return _as_c(self._clock, self._f.readline, *a)

    def write(self, b):
        return _as_c(self._clock, self._f.write, b)

    def flush(self):
        return _as_c(self._clock, self._f.flush)

    def seek(self, *a):
        return _as_c(self._clock, self._f.seek, *a)

    def close(self):
        return _as_c(self._clock, self._f.close)

    def __iter__(self):
        return self

    def __next__(self):
        line = self.readline()
        if not line:
            raise StopIteration
        return line

    def __enter__(self):
        return self

    def __exit__(self, *a):
        self.close()

    def __getattr__(self, name):
        return getattr(self._f, name)


def timed_open(clock, op):
    """The firmware's ``builtins.open``: the open (a lookup in littlefs's
    metadata) and the file's calls charged at c_factor (TimedFile). Files
    opened inside a model call, or with the CPU charged as free, are the
    built-in's."""

    def open_c(*a):
        c = clock
        if not c.factor or c._depth:
            return op(*a)
        return TimedFile(c, _as_c(c, op, *a))

    return open_c


class TimedOs:
    """The firmware's ``os``: littlefs's calls (remove, rename, stat, listdir,
    statvfs) charged at c_factor, as TimedFile's; the rest the built-in's."""

    def __init__(self, clock, os):
        self._clock = clock
        self._os = os

    def remove(self, path):
        return _as_c(self._clock, self._os.remove, path)

    def rename(self, a, b):
        return _as_c(self._clock, self._os.rename, a, b)

    def stat(self, path):
        return _as_c(self._clock, self._os.stat, path)

    def listdir(self, *a):
        return _as_c(self._clock, self._os.listdir, *a)

    def statvfs(self, path):
        return _as_c(self._clock, self._os.statvfs, path)

    def __getattr__(self, name):
        return getattr(self._os, name)


def gc_time(n=7):
    """The best of ``n`` collections' real time (us) of the heap as it is."""
    best = -1
    for _ in range(n):
        t = utime.ticks_us()
        _gc.collect()
        d = utime.ticks_diff(utime.ticks_us(), t)
        if best < 0 or d < best:
            best = d
    return best


class RunDelay:
    """The process's time waiting for a CPU, in ns (Linux schedstat; one
    thread: the unix port runs the firmware on its main thread)."""

    def __init__(self, path="/proc/thread-self/schedstat"):
        try:
            self.f = open(path, "rb")
        except OSError:
            self.f = open("/proc/self/schedstat", "rb")
        self.buf = bytearray(96)
        if self() < 0:
            raise OSError("no run delay in %s" % path)

    def __call__(self):
        f = self.f
        f.seek(0)
        n = f.readinto(self.buf)
        b = self.buf
        i = 0
        while i < n and b[i] != 32:  # the first field: time run
            i += 1
        i += 1
        if i >= n:
            return -1
        v = 0
        while i < n and 48 <= b[i] <= 57:
            v = v * 10 + b[i] - 48
            i += 1
        return v


#: stretches per in-situ measure of a model call's cost (VClock.enter)
SITU_WINDOW = 1024

#: a model call's kind -> its row in the driver's boundaries (VClock.cls_mean):
#: a pin 0, an SPI transfer 1, a clock call 2, anything else 3 (none)
_DRV = bytes((3, 0, 1, 3, 3, 2))
#: stretches per window of a boundary's mean
CLASS_WINDOW = 256

#: the most real us a short stretch banks for the next ones (VClock._charge)
CREDIT_US = 4.0

#: a C call's cost on the chip by the kind of model call (VClock.enter(kind)):
#: 0 anything else (I2C, the USB serial, a pin's set-up: call_us), 1 a pin's
#: value, 2 an SPI transfer (its bytes at the baud rate charged apart), 3
#: unused, 4 (a kind switch: no call), 5 a clock call (ticks_us, ticks_ms,
#: ticks_diff, ticks_add). The rp2 port on the emulated RP2040
#: (tools/rp2emu, 2,000 calls each from native code, the empty loop's time
#: taken off: docs/firmware.md, "Short stretches"): Pin.value(0) 3.87 us,
#: value() 3.51, SPI.write_readinto of 2 bytes 6.57, write of 2 bytes 5.39
#: (12 bytes 7.54), readinto of 20 bytes 13.1, ticks_us 0.96, ticks_ms 1.42,
#: ticks_diff 1.11; x 1.3 (FLASH_WAIT, bench/rp2040.py: the emulator charges
#: no flash wait states): a pin 5 us, an SPI call's fixed part 7, a clock
#: call 1.5 (rounded up to whole us: 2)
CALL_US = (5, 5, 7, 5, 0, 2)


class VClock:
    def __init__(self, cpu_factor=162.5, start_us=0, cpu_cap_us=1000, long_us=20, long_call_us=200):
        self.now_us = start_us
        self.last_ms = start_us // 1000  # the firmware's last time.ticks_ms() (unwrapped)
        # in a hard pin interrupt's handler (machine._edge): the heap is locked
        # for the firmware's code, and unlocked for the models' (enter, leave)
        self.hard = False
        self.factor = cpu_factor
        self.cap = cpu_cap_us
        self.long = long_us
        self.long_call = long_call_us
        # run_delay(): ns the process waited for a CPU so far, or None (no
        # schedstat: wall time is charged, as on an idle machine)
        self.run_delay = None
        self._rd = 0  # run_delay() at the last read
        # waiting(): True while a device model holds a frame the firmware has
        # not read (it is in a driver's wait loop), or None
        self.waiting = None
        self.wait_cap_us = 16
        self.wait_capped = 0  # stretches charged as wait_cap_us there
        self.preempted = 0  # stretches from which a wait for the CPU was taken off
        self.preempted_us = 0  # real us taken off them
        self.rd_reads = 0  # run_delay() reads
        self.cpu_us = 0  # virtual us charged for the firmware's own work
        self.model_us = 0  # virtual us charged by the models and sleeps
        self._depth = 0
        self._mark = utime.ticks_us()
        self._in = self._mark  # when the current model call began
        # real us that one call into a model costs the firmware's side here (a
        # Python call where the rp2 port has a C one): measured by calibrate(),
        # taken off each charge; the RP2040's own cost of such a call instead
        self.overhead_us = 0.0
        self.cal_us = 0.0  # calibrate()'s figure (overhead_us: it, or the in-situ one if larger)
        self.call_us = 5  # a C call on the RP2040 (as the readers bench of 2026-12-01 charged it)
        # ... by the kind of call (enter(kind)): the rp2 port's own times on
        # the emulated RP2040 x FLASH_WAIT (CALL_US); call_us for the rest
        self.kind_us = list(CALL_US)
        self.credit = 0.0  # real us banked by short stretches below overhead_us (_charge)
        self.noise_n = 0  # the driver's stretches as long as a long one: charged as their boundary's mean
        # the driver's native stretches by boundary (a pin's, an SPI
        # transfer's, a clock's call before and after: 3 x 3): the short
        # ones' count and sum in the current window, the last window's mean
        self.cls_n = [0] * 9
        self.cls_sum = [0] * 9
        self.cls_mean = [0.0] * 9
        self._cal = -1  # while calibrating: the real us summed
        # C code the firmware calls that the model times apart (gc.collect,
        # json): charged x c_factor, the rp2 port's ratio for compiled code,
        # not the bytecode factor (board/__init__.py, C_FACTOR)
        self.c_factor = cpu_factor
        # the bytecode factor (self.factor while bytecode runs: switch() sets
        # the native factor while a native method of the firmware runs)
        self.byte_factor = cpu_factor
        self.native_us = 0  # virtual us charged at another factor than bytecode's
        self.switches = 0  # kind switches charged (kinds.py)
        self.switch_us = 0.0  # real us a switch costs here (calibrate_switch)
        # a switch's cost measured where the firmware runs (_situ_sw; 0: not
        # yet); the larger of it and switch_us is taken off each switch
        self.switch_situ = 0.0
        self.sw_n = [0, 0]
        self.sw_sum = [0, 0]
        self.sw_mean = [0.0, 0.0]
        self.gc_us = 0  # virtual us charged for gc.collect()
        self.gc_n = 0
        self.json_us = 0  # virtual us charged for json.dumps / json.loads
        self.fb_us = 0  # virtual us charged for framebuf drawing
        self.trace = None  # taptrace.Trace (TT_TAPTRACE), or None
        self.cores = None  # cores.Cores once the firmware starts core 1
        # --- the allocator model (gc_model(); docs/firmware.md, "The
        # firmware's collections"): the process's allocator never collects in
        # the firmware's stretches; the chip's collections are counted from
        # the firmware's own allocations and charged at c_factor
        self.gcm = False
        self.mt_leave = 0  # mem_total() when the firmware's stretch began (leave)
        self.mc_leave = 0  # mem_current() then
        # bytes the firmware requested since the chip's last collection (the
        # chip's gc.threshold() counts them all: a frame on the heap too)
        self.fw_req = 0
        # ... less what it freed explicitly (its frames): its garbage and new
        # state, what fills the chip's free heap
        self.fw_net = 0
        self.fw_req_all = 0  # ... since gc_model(), at the chip's collections (report)
        self.fw_net_all = 0  # fw_net likewise: what filled the chip's heap in all
        self.fw_stretch_max = 0  # the most one stretch of the firmware's requested
        self.fw_live = 0  # the firmware's live heap after the chip's last collection
        self.fw_heap = 0  # the firmware's whole heap (the chip's, in this port's bytes)
        self.fw_thresh = -1  # the firmware's gc.threshold() in bytes, -1 none
        self.models_bytes = 0  # what the process holds that is not the firmware's
        # allocator bytes (GC blocks) per byte requested, calibrated at each
        # real collection (_real): mem_total() counts the bytes asked for
        self.ratio = 1.25
        self._due = 1 << 60  # fw_req past which the chip collects (its threshold)
        self._due_net = 1 << 60  # fw_net past which it does (its heap full)
        self.heap_total = 0  # the process's heap (bytes)
        self.margin = 0  # left free when the models' garbage is collected
        self._real_alloc = 0  # gc.mem_alloc() after it
        self._real_cur = 0  # mem_current() then
        self._real_due = 1 << 60  # mem_current() past which the process collects
        # a collection's time on this port (us) = gc_a + gc_b x live bytes +
        # gc_c x garbage bytes (calibrate_gc)
        self.gc_a = 0.0
        self.gc_b = 0.0
        self.gc_c = 0.0
        self.auto_n = 0  # the chip's own collections (threshold, full heap) charged
        self.auto_thr = 0  # of them, at the firmware's gc.threshold()
        self.auto_us = 0
        self.real_n = 0  # the process's collections of the models' garbage (uncharged)
        self.situ_gc_us = 0  # real us of the collections the firmware was charged for
        self.fit_gc_us = 0.0  # the fit's us for the whole process's heap at them
        self.backstop = 0  # collections the process's allocator made on its own
        self._c_m = 0  # a C call's mem_total(), mem_current() and time at c_begin()
        self._c_c = 0
        self._c_t = 0
        self.last_v = 0  # the last stretch's charge (us)
        # the model call that began the current stretch: 1 a pin, 2 an SPI
        # transfer, 0 anything else (enter(kind))
        self._kind = 0
        # the two in-situ measures: [pin -> SPI, SPI -> pin]: stretches of
        # the current window (SITU_WINDOW), their sum (us), the last window's
        # mean (0: none yet)
        self.situ_n = [0, 0]
        self.situ_sum = [0, 0]
        self.situ_mean = [0.0, 0.0]
        self.situ_us = 0.0  # the smaller of the two means (0: none yet)
        self.segments = 0  # stretches of firmware work charged
        self.long_segments = 0  # of them longer than 100 us of CPU time
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
        self.overhead_us = self.cal_us = best
        return best

    def calibrate_switch(self, w, a, n=500, rounds=5):
        """Measure switch_us: the real time, outside the models, that one
        wrapped call ``w(a)`` of a method doing nothing adds, per switch (two
        a call: into it and back), in a loop; the smallest of ``rounds`` tries.
        Where the firmware runs the caches are colder: switch() takes off
        the in-situ figure (_situ_sw) once measured, if larger."""
        best = -1.0
        self.switch_us = 0.0
        for _ in range(rounds):
            self._cal = 0
            self._mark = utime.ticks_us()
            for _ in range(n):
                w(a)
            self.switch(self.factor)  # the last stretch
            per = self._cal / (2 * n)
            if best < 0 or per < best:
                best = per
        self._cal = -1
        self.switch_us = best
        return best

    def _situ_sw(self, i, d):
        # the in-situ measure of a switch's cost: the stretches [switch ->
        # pin] and [pin -> switch] (a wrapped _write or _ready: a few
        # bytecodes each side of ``cs.value()``) hold together a switch's and
        # a pin call's cost: their means' sum less overhead_us is the switch's
        n = self.sw_n[i] + 1
        sm = self.sw_sum[i] + d
        if n == SITU_WINDOW:
            m = self.sw_mean
            m[i] = sm / n
            if m[0] > 0 and m[1] > 0:
                self.switch_situ = m[0] + m[1] - self.overhead_us
            n = 0
            sm = 0
        self.sw_n[i] = n
        self.sw_sum[i] = sm

    def _situ(self, i, d):
        n = self.situ_n[i] + 1
        sm = self.situ_sum[i] + d
        if n == SITU_WINDOW:
            m = self.situ_mean
            m[i] = sm / n
            if m[0] > 0 and m[1] > 0:
                # the smaller: no stretch is charged less than its own
                # boundary's measured cost would leave it
                s = m[0] if m[0] < m[1] else m[1]
                self.situ_us = s
                self.overhead_us = s if s > self.cal_us else self.cal_us
            n = 0
            sm = 0
        self.situ_n[i] = n
        self.situ_sum[i] = sm

    def _waited_us(self):
        # real us the process waited for a CPU since the last read
        rd = self.run_delay()
        self.rd_reads += 1
        w = (rd - self._rd) // 1000
        self._rd = rd
        return w

    def enter(self, kind=0):
        """The firmware calls into a model: its CPU time since leave() is
        charged. kind: what the model call is (1 a pin, 2 an SPI transfer, 0
        anything else), for the in-situ measure of overhead_us. With the
        allocator model, what the firmware requested since leave() is
        counted, and a collection that is due is made (_collect_due)."""
        # (a small front: its frame on the C stack, not the heap, so that
        # what the firmware allocated is read before anything of the model's)
        self._enter(kind, _mem_total(), _mem_current())

    def _enter(self, kind, mt, mc):
        if self.hard:
            micropython.heap_unlock()  # the model's own work, not the handler's
        if self._depth == 0:
            t = utime.ticks_us()
            d = utime.ticks_diff(t, self._mark)
            if self._kind == 4 and kind == 1 and d < self.long:
                self._situ_sw(0, d)  # a switch, then a pin (kinds.py: into _write, _ready)
            elif self._kind + kind == 3 and d < self.long:
                # a pin written, then an SPI transfer, or the other way round:
                # the firmware's shortest stretches (``cs.value(0)``, then
                # ``spi.write(...)``; the transfer, then ``cs.value(1)``: a few
                # bytecodes), measured where the firmware runs
                self._situ(2 - kind, d)
            ov = self.overhead_us
            if self._kind + kind == 3:
                # a pin, then an SPI transfer, or the other way round: the
                # model's cost of that boundary is its own in-situ mean (the
                # SPI's is the larger: a Python method before its native
                # transfer), not the smaller of the two for both
                m = self.situ_mean[2 - kind]
                if m > ov:
                    ov = m
                if m > 0 and (d >= self.long or self.factor != self.byte_factor):
                    # a few bytecodes on the chip (``cs.value(0)`` then
                    # ``spi.write(...)``): what took longer here was the
                    # machine's (an interrupt, the hypervisor), not the
                    # firmware's work; from native code (the driver's step,
                    # most of them) a few instructions: always the mean (a
                    # stretch of several whole microseconds here when the
                    # machine was busy was charged up to 0.6 ms of board
                    # time: docs/firmware.md, "Short stretches")
                    if d >= self.long:
                        self.noise_n += 1
                    d = m
            elif self.factor != self.byte_factor:
                # native code between two of a pin's, an SPI transfer's or a
                # clock's calls (the readers' driver): a few instructions,
                # nothing measurable on the chip; here a whole microsecond or
                # several when the machine was busy, times the factor (up to
                # 0.6 ms of board time each, a cycle 20 ms longer). Each is
                # charged its boundary's mean (a window of 256 stretches
                # under long_us); one as long as a long stretch was the
                # machine's, and is not in the mean (docs/firmware.md,
                # "Short stretches")
                a = _DRV[self._kind]
                b = _DRV[kind]
                if a < 3 and b < 3:
                    ci = a * 3 + b
                    if d < self.long:
                        n = self.cls_n[ci] + 1
                        sm = self.cls_sum[ci] + d
                        if n == CLASS_WINDOW:
                            self.cls_mean[ci] = sm / n
                            n = 0
                            sm = 0
                        self.cls_n[ci] = n
                        self.cls_sum[ci] = sm
                    else:
                        self.noise_n += 1
                    if self.cls_mean[ci] > 0:
                        d = self.cls_mean[ci]
            self._kind = kind
            if self._cal >= 0:
                self._cal += d
            elif self.factor:
                self._charge(d, ov, self.kind_us[kind] if kind else self.call_us)
            cs = self.cores
            if cs is not None:
                if cs.cur:
                    cs.stretches1 += 1
                    cs.mt1 += mt - self.mt_leave
                    cs.check1()
                if cs.ahead(self.now_us) and not self.hard:
                    # the other core is behind: it runs up to here first
                    # (cores.py); this core's state is its own again after
                    cs.hand_over()
            # (before a collection made here: a long model call has its
            # preemptions taken as the model's, leave())
            self._in = utime.ticks_us()
            if self.gcm:
                n = mt - self.mt_leave
                self.fw_req += n
                self.fw_net += mc - self.mc_leave
                if n > self.fw_stretch_max:
                    self.fw_stretch_max = n
                if (self.fw_req > self._due or self.fw_net > self._due_net or mc > self._real_due) and not self.hard:
                    self._collect_due()
        self._depth += 1

    # --- the allocator model
    def gc_model(self, fw_heap, models_bytes, margin):
        """The firmware's collections modelled from here on: the process's
        allocator stops collecting by itself (gc.threshold(-1); the heap has
        room for the garbage between two real collections, made at the model
        calls: _collect_due). ``fw_heap``: the firmware's whole heap (the
        chip's, in this port's bytes); ``models_bytes``: what the process
        holds that is not the firmware's (the models, the held block);
        ``margin``: bytes left free when the models' garbage is collected
        (the most a stretch may allocate)."""
        _gc.threshold(-1)
        _gc.collect()
        a = _gc.mem_alloc()
        self.heap_total = a + _gc.mem_free()
        self.fw_heap = fw_heap
        self.models_bytes = models_bytes
        self.margin = margin
        self.fw_live = a - models_bytes
        self.fw_req = 0
        self.fw_net = 0
        self.gcm = True
        self.collected(a)
        self._set_due()
        self.mt_leave = _mem_total()
        self.mc_leave = _mem_current()

    def calibrate_gc(self, points, garbage):
        """The fit of a collection's time on this port: ``points``, (live
        bytes, us) of collections of the process's heap at start-up with and
        without the models' data (least squares: gc_a + gc_b x live);
        ``garbage``: (bytes, us) that many bytes of garbage added to a
        collection's time (gc_c)."""
        n = len(points)
        sx = sy = sxx = sxy = 0.0
        for x, y in points:
            sx += x
            sy += y
            sxx += x * x
            sxy += x * y
        den = n * sxx - sx * sx
        b = (n * sxy - sx * sy) / den if den > 0 else 0.0
        if b < 0:
            b = 0.0
        a = (sy - b * sx) / n
        self.gc_a = a if a > 0 else 0.0
        self.gc_b = b
        g, us = garbage
        c = us / g if g > 0 and us > 0 else 0.0
        # (freeing a block of garbage costs no more than marking and
        # sweeping a live one: a larger slope is the machine's noise)
        self.gc_c = c if c < b else b

    def gc_fit(self, live, garbage):
        """A collection's time on this port (us) by the fit."""
        return self.gc_a + self.gc_b * live + self.gc_c * garbage

    def _set_due(self):
        # the chip collects when an allocation finds no room, or (the
        # firmware's gc.threshold()) once it allocated that much since
        room = self.fw_heap - self.fw_live
        r = self.ratio
        self._due_net = int(room / r) if room > 0 else 0
        self._due = int(self.fw_thresh / r) if self.fw_thresh >= 0 else 1 << 60

    def collected(self, alloc):
        """The process collected (the models' own: the peak's measure, a
        probe), ``alloc`` its gc.mem_alloc() after: the next real collection
        is due when what is requested from here on nears the free heap."""
        mc = _mem_current()
        self._real_cur = mc
        self._real_alloc = alloc
        room = self.heap_total - alloc - self.margin
        self._real_due = mc + int(room / self.ratio) if room > 0 else mc

    def _real(self):
        # a real collection (model time); the block rounding calibrated from
        # what the heap held before it against what was requested since the
        # last (frees between them make it a little low: bounded); the live
        # bytes after it
        mc = _mem_current()
        before = _gc.mem_alloc()
        req = mc - self._real_cur
        if req > self.heap_total - self._real_alloc:
            # more was kept than the heap had free: the allocator collected
            # by itself somewhere (a stretch past the margin)
            self.backstop += 1
        else:
            if req > 16384:
                r = (before - self._real_alloc) / req
                if r < 1.0:
                    r = 1.0
                elif r > 2.0:
                    r = 2.0
                self.ratio = r
        t = utime.ticks_us()
        _gc.collect()
        d = utime.ticks_diff(utime.ticks_us(), t)
        a = _gc.mem_alloc()
        self.collected(a)
        self._set_due()
        return a, d, before - a

    def _collect_due(self):
        if self.fw_req > self._due or self.fw_net > self._due_net:
            if self.fw_net <= self._due_net:
                self.auto_thr += 1
            self.fw_collect(True)
        else:
            # the models' garbage (and the firmware's: the chip's heap is
            # not this one) collected, uncharged
            self._real()
            self.real_n += 1
            if self.trace is not None:
                self.trace.add(67, self.now_us, 0)  # C: the model's own collection

    def fw_collect(self, auto):
        """The chip collects: ``auto`` its allocator (the firmware's
        threshold passed, or no room for an allocation), else the firmware's
        gc.collect(). It runs here (a real collection, in model time) and
        the firmware is charged the chip's: the fitted time of a collection
        of its own live heap and of the garbage it made since its last
        (calibrate_gc), at c_factor. A firmware whose live heap is past the
        chip's gets MemoryError, as the chip's allocation would have."""
        garbage = int(self.fw_net * self.ratio) if self.fw_net > 0 else 0
        self.fw_req_all += self.fw_req
        self.fw_net_all += self.fw_net
        a, d, freed = self._real()
        live = a - self.models_bytes
        v = 0
        if self.factor:
            v = int(self.gc_fit(live, garbage) * self.c_factor)
            self.now_us += v
            self.cpu_us += v
            self.situ_gc_us += d
            self.fit_gc_us += self.gc_fit(a, freed)
        if auto:
            self.auto_n += 1
            self.auto_us += v
            if self.trace is not None:
                self.trace.add(88, self.now_us - v, v)  # X: the chip's own collection
        else:
            self.gc_n += 1
            self.gc_us += v
            if self.trace is not None:
                self.trace.collect(self.now_us - v, v)
        self.fw_live = live
        self.fw_req = 0
        self.fw_net = 0
        self._set_due()
        if auto and live > self.fw_heap:
            self._mark = utime.ticks_us()
            raise MemoryError("memory allocation failed: the chip's heap holds %d of the firmware's %d bytes" % (self.fw_heap, live))

    def _charge(self, d, overhead, call_us):
        # a stretch of d real us of firmware work, at the factor of the code
        # running it (self.factor), less the cost of the call that ends it here
        if d > self.long and self.run_delay is not None:
            w = self._waited_us()
            if w > 0:
                self.preempted += 1
                self.preempted_us += w if w < d else d
                d -= w
        d -= overhead
        if d < self.long:
            # a short stretch: the cost of its two model calls taken off is
            # a mean (overhead_us), so what one stretch measures below it is
            # banked and taken off the next short ones above it (at most
            # CREDIT_US): charged as max(0, d) each, the machine's noise
            # around that mean was all charged, none taken off: a status read
            # (three model calls) cost 49-137 us of board time against the
            # chip's 22 (docs/firmware.md, "Short stretches")
            cr = self.credit
            if d < 0:
                cr -= d
                self.credit = cr if cr < CREDIT_US else CREDIT_US
                d = 0
            elif cr > 0:
                if d <= cr:
                    self.credit = cr - d
                    d = 0
                else:
                    d -= cr
                    self.credit = 0
        # (the wait loop is the reader driver's native code: a stretch of
        # bytecode while a frame waits, the table core's or the display's
        # between two polls of a group Scanner.launch left running, is the
        # firmware's own work, charged whole)
        if d > self.wait_cap_us and self.factor != self.byte_factor and self.waiting is not None and self.waiting():
            self.wait_capped += 1
            d = self.wait_cap_us
        self.segments += 1
        if d > 100:
            self.long_segments += 1
        if d > self.cap:
            self.capped += 1
            d = self.cap
        v = call_us
        if d > 0:
            v += int(d * self.factor)
            if self.factor != self.byte_factor:
                self.native_us += int(d * self.factor)
        self.now_us += v
        self.cpu_us += v
        self.last_v = v

    def switch(self, factor):
        """The firmware's code changes kind (native code calls bytecode, or
        the other way round: kinds.py's wrappers): the stretch so far is
        charged at the kind that ran it, less what a wrapped call costs here
        (``switch_us``, calibrate_switch(), or the in-situ figure if larger:
        _situ_sw), with no C call's charge (a call
        between native code and bytecode is no call into C on the chip);
        the stretch from here on is charged at ``factor``. Returns the
        factor of the code that ran until now."""
        # (a small front: the work's frame on the heap is made and freed
        # between the two readings, neither counted as the firmware's)
        m = _mem_total()
        c = _mem_current()
        prev = self._switch(factor)
        if self.gcm and self._depth == 0:
            self.mt_leave += _mem_total() - m
            self.mc_leave += _mem_current() - c
        return prev

    def _switch(self, factor):
        prev = self.factor
        if self._depth == 0:
            t = utime.ticks_us()
            d = utime.ticks_diff(t, self._mark)
            if self._cal >= 0:
                self._cal += d
            elif prev:
                if self._kind == 1 and d < self.long:
                    self._situ_sw(1, d)  # a pin, then a switch (out of _write, _ready)
                self._charge(d, self.switch_situ if self.switch_situ > self.switch_us else self.switch_us, 0)
                self.switches += 1
            self._kind = 4
            self.factor = factor
            self._mark = utime.ticks_us()
        return prev

    def c_call(self, fn, arg, kind, kw=None):
        """fn(arg), a C function of the firmware's (gc.collect, json.dumps),
        its time charged at c_factor instead of the stretch's factor; kind 0
        gc, 1 json, 2 framebuf (arg: the tuple of arguments)."""
        self.c_begin()
        try:
            return fn() if arg is _NONE else fn(*arg) if kind == 2 else fn(arg, **kw) if kw else fn(arg)
        finally:
            self.c_end(kind)

    def c_begin(self):
        """A C call of the firmware's begins (then the call, then c_end): the
        firmware's stretch before it is charged."""
        self.enter()
        self._c_m = _mem_total()
        self._c_c = _mem_current()
        self._c_t = utime.ticks_us()

    def c_end(self, kind):
        """The C call begun by c_begin() returned: its time charged at
        c_factor; what it allocated (json's strings) is the firmware's. kind
        0 gc, 1 json, 2 framebuf."""
        self._c_end(kind, _mem_total(), _mem_current())
        self.leave()

    def _c_end(self, kind, mt, mc):
        d = utime.ticks_diff(utime.ticks_us(), self._c_t)
        if self.gcm:
            self.fw_req += mt - self._c_m
            self.fw_net += mc - self._c_c
        if self.run_delay is not None and d > self.long:
            d -= self._waited_us()
        if self.factor and d > 0:
            v = int(d * self.c_factor)
            self.now_us += v
            self.cpu_us += v
            if kind == 0:
                self.gc_us += v
                self.gc_n += 1
                if self.trace is not None:
                    self.trace.collect(self.now_us - v, v)
            elif kind == 1:
                self.json_us += v
            else:
                self.fb_us += v

    def mark(self):
        """The process waited for real (the board's own waits): a wait for the
        CPU before now is not the next stretch's."""
        if self.run_delay is not None:
            self._waited_us()

    def leave(self):
        # (a small front, as enter's: the frame of _leave is freed before
        # the firmware's allocations are counted from here)
        self._leave()
        if self.gcm and self._depth == 0:
            self.mt_leave = _mem_total()  # the firmware's allocations from here
            self.mc_leave = _mem_current()

    def _leave(self):
        self._depth -= 1
        if self._depth <= 0:
            self._depth = 0
            t = utime.ticks_us()
            if self.run_delay is not None and utime.ticks_diff(t, self._in) > self.long_call:
                # a long model call: a preemption in it was the model's
                self._waited_us()
                t = utime.ticks_us()
            self._mark = t
        if self.hard:
            micropython.heap_lock()  # back in the hard handler's code

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
