# mypy: ignore-errors
# (MicroPython code, run by the unix port: not part of the typed host package.)
# The RP2040's second core on the board model (issue 22: the readers on core 1).
#
# On the chip, ``_thread.start_new_thread`` runs its function on core 1, beside
# core 0's main loop: two CPUs at once, no GIL (the rp2 port), one heap. The
# model runs the firmware on the unix port, whose threads would run at the
# machine's pace, not the chip's. Here each core has its own board time, and
# the two run in turn, never together (one baton): the core that runs is the
# one behind. At each call into a model (VClock._enter, once the stretch
# before it is charged to the core that ran it) the running core hands over
# when its time is more than ``quantum_us`` past the other's; at the firmware's
# locks (ModelLock.acquire, the points where the cores share state) with no
# quantum: a core reads what the other wrote only once the other's time has
# passed its own, so what one core sees of the other is exact at the locks and
# never more than a stretch and the quantum off elsewhere (a model's state seen
# at a model call: a tag put down by the person).
#
# What is the running core's, swapped at each hand-over (PER_CORE): its board
# time, its stretch's marks, the factor of the code it runs (kinds.py), its
# allocation marks, its run delay (a thread's own /proc/thread-self/schedstat).
# What is shared, as on the chip: the heap (the allocator model counts both
# cores' allocations: one heap), the models, the collections (a collection
# made by core 0 does not stop core 1 on the chip unless core 1 allocates;
# core 1's allocations are counted apart: ``alloc1``).
#
# What core 1 must do as the chip makes it:
# - the flash's erases and programs stop it (the rp2 port's flash writes take
#   core 1 into multicore lockout for their atomic section): core 0's sections
#   are noted (``stall``) and core 1's time jumps past each one it reaches;
# - its stack: 4,096 B from the heap by default (rp2 mpthreadport.c, checked
#   at 512 B less); here the thread has a large stack (the unix port's
#   collector signals every thread, whose handler needs room) and core 1's
#   stack use is checked at each model call against the chip's limit in this
#   port's bytes (CHIP_TO_UNIX: chipstack.py's calibration, a 10,240 B check
#   for the chip's 7,936): deeper raises RuntimeError as the chip would; the
#   stack's bytes are allocated in the firmware's heap (start_new_thread);
# - an uncaught exception ends its thread (printed); a reset of the board
#   (machine.BoardReset, the watchdog, a power cut) raised on core 1 is the
#   whole board's: core 0 raises it at its next model call.
import _thread
import sys

import micropython
import utime

#: the attributes of VClock that are a core's own
PER_CORE = (
    "now_us", "last_ms", "hard", "factor", "run_delay", "_rd", "waiting", "_depth", "_mark", "_in",
    "_kind", "mt_leave", "mc_leave", "_c_m", "_c_c", "_c_t", "last_v", "credit",
)

#: the rp2 port's default core-1 stack (mpthreadport.c) and what the stack
#: check leaves of it (512 B less)
CHIP_STACK = 4096
CHIP_STACK_MARGIN = 512
#: a byte of the chip's C stack in this port's bytes (chipstack.py: the
#: chip's 7,936 B checked like a 10,240 B budget here)
CHIP_TO_UNIX = 10240 / 7936
#: the unix thread that models core 1: large (the collector's signal frame,
#: the models' own calls below the firmware's frames)
THREAD_STACK = 256 * 1024
#: the heap bytes of a unix-port bytearray per chip byte of data (docs/firmware.md:
#: HEAP_DATA 0.89, chip bytes per unix byte)
HEAP_DATA = 0.89


class Baton:
    """Two threads take turns, each waiting while the other runs: three
    mutexes in rotation, so that each thread only ever unlocks a mutex it
    locked (a pthread mutex unlocked by another thread is undefined, and this
    port's locks are pthread mutexes: a first version, a lock per core
    released by the other, let both run). The runner holds two, the waiter
    one and waits for one of the runner's; a hand-over releases the one the
    waiter waits for, then waits for the one the waiter held."""

    def __init__(self):
        self.m = [_thread.allocate_lock(), _thread.allocate_lock(), _thread.allocate_lock()]
        self.m[0].acquire()  # (core 0, the runner)
        self.m[1].acquire()
        self.r = [0, 2]  # the mutex each core releases at its next hand-over
        self.ready = False

    def join(self):
        """Core 1's thread, at its start: waits for its first turn."""
        self.m[2].acquire()
        self.ready = True
        self.m[0].acquire()

    def wait_joined(self):
        while not self.ready:
            utime.sleep_ms(1)

    def pass_to_other(self, me):
        r = self.r[me]
        self.r[me] = (r + 1) % 3
        self.m[r].release()
        self.m[(r + 2) % 3].acquire()

    def leave(self, me):
        """The core's thread ends: the other runs, never to wait for it again."""
        r = self.r[me]
        self.m[r].release()
        self.m[(r + 1) % 3].release()


class Killed(BaseException):
    """Core 1's thread ended by a reset of the board."""


class Cores:
    def __init__(self, clock, quantum_us=1000):
        self.clock = clock
        self.q = quantum_us
        self.cur = 0
        self.alive1 = False
        self.other_now = 0  # the waiting core's board time
        self._saved = [None, None]
        self._baton = None  # Baton, while core 1 runs
        self.kill = False
        self.exc = None  # a board-wide exception raised on core 1, for core 0
        self.hand_overs = 0
        self.stalls = []  # [start, end] of core 0's flash sections core 1 has not passed
        self.stalled_us = 0  # core 1's board time spent waiting out flash sections
        self.stalled_n = 0
        self.stack_base = 0  # stack_use() where core 1's function began
        self.stack_limit = int((CHIP_STACK - CHIP_STACK_MARGIN) * CHIP_TO_UNIX)
        self.stack_max = 0  # the most core 1 used, this port's bytes (at model calls)
        self.stack_model = 0  # the model's own frames at a model call (taken off)
        self._probe = False
        self.stack_buf = None  # core 1's stack: the chip's bytes in the firmware's heap
        self.mt1 = 0  # bytes core 1 requested from the heap (its stretches)
        self.stretches1 = 0
        self.started = 0
        self.cpu = [0, 0]  # board us of CPU charged to each core while core 1 ran (hand-overs)
        self._cpu_mark = 0

    # --- the hand-over
    def _swap(self, to):
        c = self.clock
        me = self.cur
        self.cpu[me] += c.cpu_us - self._cpu_mark
        self._cpu_mark = c.cpu_us
        self._saved[me] = tuple(getattr(c, a) for a in PER_CORE)
        self.other_now = c.now_us
        s = self._saved[to]
        for i in range(len(PER_CORE)):
            setattr(c, PER_CORE[i], s[i])
        self.cur = to
        self.hand_overs += 1

    def hand_over(self):
        """The running core waits; the other runs (its state restored). Returns
        when the other hands back."""
        me = self.cur
        self._swap(1 - me)
        self._baton.pass_to_other(me)
        self._resumed(me)

    def _resumed(self, me):
        if me == 1:
            if self.kill:
                raise Killed()
            self._passed_stalls()
        elif self.exc is not None:
            e = self.exc
            self.exc = None
            raise e

    def ahead(self, now):
        # (VClock._enter, at depth 0, after the stretch's charge): the running
        # core is more than a quantum past the other
        return self.alive1 and not self.kill and now > self.other_now + self.q

    def sync(self):
        """The running core's time is the later one once this returns (the
        other core ran up to it, or ended): what it reads of the other's is
        what the other had written by then (the firmware's locks)."""
        c = self.clock
        while self.alive1 and not self.kill and c.now_us > self.other_now:
            self.hand_over()

    # --- core 1's work
    def stall(self, start, end):
        """Core 0 held the flash from ``start`` to ``end`` (an erase's or a
        program's atomic section): core 1 stops through it."""
        if self.alive1 and end > start:
            self.stalls.append([start, end])

    def _passed_stalls(self):
        c = self.clock
        st = self.stalls
        while st:
            a, b = st[0]
            if c.now_us < a:
                return
            if c.now_us < b:
                self.stalled_us += b - c.now_us
                self.stalled_n += 1
                c.now_us = b
            st.pop(0)

    def check1(self):
        """At core 1's model calls: its stack against the chip's; its flash stalls."""
        u = micropython.stack_use() - self.stack_base
        if self._probe:
            self.stack_model = u
            return
        u -= self.stack_model
        if u > self.stack_max:
            self.stack_max = u
            if u > self.stack_limit:
                self.clock._mark = utime.ticks_us()
                raise RuntimeError("maximum recursion depth exceeded (core 1: %d B of this port's stack, the chip's %d B like %d; model frames %d)" % (u, CHIP_STACK - CHIP_STACK_MARGIN, self.stack_limit, self.stack_model))
        if self.stalls:
            self._passed_stalls()

    def start(self, fn, args, stack_size, make_run_delay):
        """_thread.start_new_thread on the chip: fn(*args) on core 1, from the
        running core's time on."""
        if self.alive1 or self.cur != 0:
            raise OSError(16, "core1 in use")  # the rp2 port: one thread, on core 1
        size = stack_size or CHIP_STACK
        if size < 2048:
            size = 2048
        self.stack_limit = int((size - CHIP_STACK_MARGIN) * CHIP_TO_UNIX)
        # the chip's core-1 stack is a block of the firmware's heap
        self.stack_buf = bytearray(int(size / HEAP_DATA))
        c = self.clock
        s = [getattr(c, a) for a in PER_CORE]
        s[PER_CORE.index("_depth")] = 1  # core 1 begins inside this model call
        s[PER_CORE.index("run_delay")] = None
        s[PER_CORE.index("waiting")] = c.waiting
        self._saved[1] = tuple(s)
        self.other_now = c.now_us
        # the readers' wait loop (VClock.wait_cap_us) is core 1's from here on
        c.waiting = None
        self.kill = False
        self.stalls = []
        self._cpu_mark = c.cpu_us
        self.alive1 = True
        self.started += 1
        c.cores = self  # (VClock._enter hands over from here on)
        b = self._baton = Baton()
        old = _thread.stack_size(THREAD_STACK)
        try:
            _thread.start_new_thread(self._entry, (b, fn, args, make_run_delay))
        finally:
            _thread.stack_size(old)
        b.wait_joined()

    def _entry(self, b, fn, args, make_run_delay):
        b.join()  # core 1's first turn: its state is restored
        c = self.clock
        err = None
        try:
            if self.kill:
                raise Killed()
            rd = make_run_delay()
            c.run_delay = rd
            if rd is not None:
                c._rd = rd()
            self.stack_base = micropython.stack_use()
            # the model's own frames under check1 (enter, _enter, check1's),
            # measured from this frame: taken off each reading
            self.stack_model = 0
            self._probe = True
            c.leave()
            c.enter()
            self._probe = False
            c.leave()  # out of the model call that started it: core 1's stretch begins
            fn(*args)
            c.enter()
        except (Killed, SystemExit):
            pass
        except BaseException as e:  # noqa: BLE001
            if isinstance(e, Exception):
                # as the chip: the thread ends, its traceback printed
                sys.print_exception(e)
            else:
                # the board's own (machine.BoardReset, norflash.PowerCut,
                # picoboot.PowerOff: BaseException): core 0 raises it
                err = e
        self.alive1 = False
        self.stack_buf = None
        if not self.kill:
            # (killed: stop() restores core 0's own state)
            self.exc = err
            self._swap(0)
        b.leave(1)

    def stop(self):
        """A reset of the board: core 1's thread ends where it waits."""
        if not self.alive1 or self.cur != 0:
            return
        c = self.clock
        mine = tuple(getattr(c, a) for a in PER_CORE)
        self.kill = True
        self._baton.pass_to_other(0)
        for i in range(len(PER_CORE)):
            setattr(c, PER_CORE[i], mine[i])
        self.kill = False
        self.alive1 = False
        self.stalls = []


class ModelLock:
    """_thread's lock for the firmware: a point where the cores meet (Cores.sync)."""

    def __init__(self, cores):
        self._cores = cores
        self._held = False

    def acquire(self, waitflag=1, timeout=-1):
        cs = self._cores
        c = cs.clock
        c.enter()
        try:
            cs.sync()
            while self._held:
                # held by the other core across a model call: it runs on
                if not waitflag or not cs.alive1 or cs.kill:
                    return False
                cs.hand_over()
            self._held = True
            return True
        finally:
            c.leave()

    def release(self):
        if not self._held:
            raise RuntimeError("release unlocked lock")
        self._held = False

    def locked(self):
        return self._held

    def __enter__(self):
        self.acquire()
        return self

    def __exit__(self, *a):
        self.release()


class ThreadModule:
    """The firmware's ``_thread`` (sys.modules["_thread"] on the board model)."""

    def __init__(self, cores, make_run_delay):
        self._cores = cores
        self._rd = make_run_delay
        self._size = 0

    def start_new_thread(self, fn, args, kw=None):
        c = self._cores.clock
        c.enter()
        try:
            self._cores.start(fn, args, self._size, self._rd)
        finally:
            c.leave()
        return 1

    def stack_size(self, n=None):
        old = self._size
        if n is not None:
            self._size = n
        return old

    def allocate_lock(self):
        return ModelLock(self._cores)

    def get_ident(self):
        return self._cores.cur + 1

    def exit(self):
        raise SystemExit
