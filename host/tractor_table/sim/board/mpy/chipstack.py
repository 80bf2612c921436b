# mypy: ignore-errors
# (MicroPython code, run by the unix port: not part of the typed host package.)
# The RP2040's C stack on the unix port: run a function with as much C stack
# before the port's check as the chip allows, so that what recurses too deep
# for the chip raises "RuntimeError: maximum recursion depth exceeded" here
# too, in every run (docs/firmware.md, "The C stack").
#
# The chip: 8 KiB of C stack on core 0 ("stack: 524 out of 7936" at idle,
# micropython.mem_info() on the rp2 port). The model states it as the stack a
# unix-port thread of STACK bytes would leave a function the thread starts:
# the port checks such a thread at STACK less its 8 KiB overflow margin
# (THREAD_MARGIN), with 64-bit frames (about twice the chip's). Calibrated on
# both ports:
#   - a plain recursive function: depth 30 on the chip's REPL, 28 with a
#     20 KiB thread's stack here, 23 with an 18 KiB one;
#   - the device rules engine as it was at main a676471: with an 18 KiB
#     thread's stack the two follows that fail on the chip (adv-21,
#     adv-beyond-1) fail, with 20 KiB adv-beyond-1 passes.
# So STACK = 18 KiB: on the engine's frames it fails where the chip fails (and a
# plain recursion a little earlier: the safe side).
#
# Where fn runs: on the process's main thread, below padding frames, not on a
# thread of STACK bytes. A thread's check cannot be relied on here, for two
# reasons found with core dumps (issue 21, 2026-12-06):
#   - the limit a new thread gets is racy: _thread.start_new_thread passes the
#     thread the size it asked for, and the creator takes the 8 KiB margin off
#     only after pthread_create returned; a thread that starts first reads the
#     whole size as its limit, beyond its real stack (the thread's TLS and
#     descriptor take about 6.5 KiB of it), and recursion ends in SIGSEGV on
#     the guard page (66 cores of 66: limit 18432, not 10240);
#   - below its limit a thread has only about 3.6 KiB of real stack, less than
#     the signal frame of the port's collector (a thread that collects sends
#     every other thread SIGRTMIN+5, whose handler runs on that thread's stack:
#     about 3.5 KiB with AVX-512 state): a collection during an import made a
#     frame or two above the limit ends the process with SIGSEGV every time.
# The main thread is checked at MAIN_LIMIT (80,000 B) of a real stack of
# megabytes. run() measures, once per process, what a thread's function has
# used when it starts, and pads the main thread with small frames until the
# frame that calls fn has exactly as much stack before the check as it would
# have on a STACK-byte thread (to the byte class the check can see: frames are
# 16-byte aligned). Whatever C code runs below the check (the collector, its
# signal handler, nlr, a C library call) has megabytes under it.
#
# Imports are made on another thread: the unix port's import machinery takes
# several KiB of C stack per nested import (its path buffers are PATH_MAX
# long; the rp2 port's are short), so while fn runs an import made on the main
# thread is done by a helper thread with a large stack (builtins.__import__
# forwards it and waits): the module's own code runs there, everything else on
# the chip's stack.
#
# One helper for the process, started once and never ended, and nothing of it
# runs beside the main thread: this build's threads have no GIL (_thread
# "unsafe"), so a thread that starts or ends while the main thread runs
# allocates and frees beside it (a thread's entry and its functions' frames
# are heap blocks), in an order the machine's load decides. It did: with a
# thread per load(), one to measure a thread's stack and one started (and
# ended) by each run(), the live figures the boards measure moved from run
# to run (the fast board's sim_bytes by 640 B; docs/firmware.md, "The C
# stack"). Here the helper starts, makes its frames and reports its stack's
# use at its start (the reference for run()'s padding) while the main thread
# waits; after that it only ever runs while the main thread waits for its
# answer, and allocates nothing between the answer and its next wait.
#
# Used by the board in both modes (start.py: the fast board and the board model)
# for the whole firmware, and by the tests for the device engine's checks
# (sim/engine/mpy/chipjudge_mp.py). Call run() from the process's main thread.
import _thread
import builtins
import sys

from micropython import stack_use

STACK = 18 * 1024
#: the overflow margin the unix port takes off a thread's size to check it
#: (ports/unix/mpthreadport.c, mp_thread_create)
THREAD_MARGIN = 8192
#: a thread's least size (glibc's PTHREAD_STACK_MIN on x86-64; the port
#: raises a smaller size to it)
THREAD_MIN = 16384
#: where the unix port checks its main thread (ports/unix/main.c: 40,000 x
#: the word's bytes / 4 on a 64-bit build; read in a core dump, 80000)
MAIN_LIMIT = 80000
#: the import thread's stack: far beyond an import's (about 28 KiB the deepest)
IMPORT_STACK = 256 * 1024
#: while run() runs: its builtins.__import__ (reading builtins.__import__
#: gives the built-in, not what was put there): for a wrapper of it
#: (vclock.timed_import), which must keep the imports on the import thread
forward = None

_MAIN = _thread.get_ident()
#: the built-in import (what the helper runs for the main thread)
_IMPORT = builtins.__import__
#: stack_use() of a thread's function where it calls fn (measured once, by the helper)
_thread_use = -1
#: the helper thread, once started: (wake, reply, req), req = [import
#: arguments, result, exception]
_helper = None
#: (STACK, run()'s own stack_use()) -> (A frames, B frames, the use reached)
_plans = {}


def _body(fn, args, box, done=None, then=None):
    # the frame that calls fn: the same function on a thread (the reference)
    # and on the main thread; then (the helper's loop) runs after it
    def body():
        try:
            box[1] = fn(*args)
        except BaseException as exc:  # noqa: BLE001 - handed to the caller
            box[2] = exc
        box[0] = True
        if done is not None:
            done.release()
        if then is not None:
            then()

    return body


def _pa(na, nb, body):
    # a padding frame (A); the last one calls body
    if nb:
        return _pb(na, nb - 1, body)
    if na:
        return _pa(na - 1, nb, body)
    return body()


def _pb(na, nb, body):
    # a padding frame (B): as A, with two words more of state (16 bytes)
    _x = na
    _y = nb
    if nb:
        return _pb(na, nb - 1, body)
    if na:
        return _pa(na - 1, nb, body)
    return body()


def _helper_up():
    """The helper thread (IMPORT_STACK), started at the first need and kept
    for the process: (wake, reply, req). Its entry is a frame of _body that
    first calls stack_use() (the stack a thread's function has used where it
    calls fn: the same on every thread, whatever its size), then serves
    imports; it reports that figure only once its loop's frame is made, so
    that it has allocated all it ever holds while the main thread waited."""
    global _helper, _thread_use
    if _helper is None:
        wake = _thread.allocate_lock()  # an import asked
        reply = _thread.allocate_lock()  # the answer (and, first, the helper up)
        wake.acquire()
        reply.acquire()
        req = [None, None, None]
        box = [False, None, None]

        def serve():
            reply.release()
            while True:
                wake.acquire()
                a = req[0]
                req[0] = None
                try:
                    req[1] = _IMPORT(*a)
                except BaseException as exc:  # noqa: BLE001 - raised on the main thread
                    req[2] = exc
                reply.release()

        _thread.stack_size(IMPORT_STACK)
        try:
            _thread.start_new_thread(_body(stack_use, (), box, None, serve), ())
        finally:
            _thread.stack_size(0)
        reply.acquire()
        _thread_use = box[1]
        _helper = (wake, reply, req)
    return _helper


def _ask(a):
    # an import (the arguments of __import__) made by the helper, the caller
    # waiting; its module, or its exception raised here
    wake, reply, req = _helper_up()
    req[0] = a
    wake.release()
    reply.acquire()
    exc = req[2]
    mod = req[1]
    req[1] = req[2] = None
    if exc is not None:
        raise exc
    return mod


def _forward(*a):
    # builtins.__import__ while run() runs: the main thread's imports go to
    # the helper; the helper's own (a module importing another) are made there
    if _thread.get_ident() != _MAIN:
        return _IMPORT(*a)
    m = _loaded(a)
    if m is not None:
        # a module already loaded: on the chip a lookup in sys.modules (C),
        # not a wait for another thread (whose wake-up, over 1 ms at times on
        # a loaded machine, the board charged as the firmware's work: 88 ms
        # at C_FACTOR, issue 22)
        return m
    global forwarded
    forwarded += 1
    return _ask(a)


def _thread_start_use():
    """stack_use() in the frame that calls fn when a thread runs it: the
    stack the port counts before fn on a thread (measured once, by the
    helper at its start)."""
    _helper_up()
    return _thread_use


def _target():
    """stack_use() that the frame calling fn must have on the main thread to
    have as much stack before the check as on a STACK-byte thread: the same
    bytes to the limit, up to the 16-byte alignment of frames (calls are
    16-byte aligned: a check fires when the stack's use, counted to the byte,
    reaches the limit, and between two 16-byte classes it cannot tell).
    Returns the class's lowest use; the frame's use is in [that, that + 16)."""
    size = STACK if STACK > THREAD_MIN else THREAD_MIN
    if size <= THREAD_MARGIN:
        raise ValueError("chipstack.STACK %d: not more than the port's margin (%d B)" % (STACK, THREAD_MARGIN))
    room = size - THREAD_MARGIN - _thread_start_use()  # bytes to the check on the thread
    return MAIN_LIMIT - 16 * -(-room // 16)


def _solve(low, u0, a, b):
    """(A frames, B frames) of padding (a and b bytes each, from u0) that
    bring the frame calling fn to the use in [low, low + 16) it can reach, and
    that use; None if none."""
    target = low + (u0 - low) % 16
    need = target - u0
    if need < 0:
        raise ValueError(
            "chipstack.STACK %d B leaves more stack than the unix port checks on its main thread (%d B)" % (STACK, MAIN_LIMIT)
        )
    for nb in range(64):
        rest = need - nb * b
        if rest >= 0 and rest % a == 0:
            return rest // a, nb, target
    return None


def load(name):
    """The module ``name`` imported by the helper thread, not on this one:
    an import's C frames go several KiB deep and leave pointers to its
    garbage on the stack they used, which the padding of run() later covers
    and the collector scans (it would keep that garbage alive); the helper's
    stack is scanned from where it waits, above them."""
    if _thread.get_ident() != _MAIN:
        return _IMPORT(name)
    return _ask((name,))


#: imports run() forwarded to its import thread (tests)
forwarded = 0


def _loaded(a):
    # __import__(name, globals, locals, fromlist, level)'s result when name,
    # not dotted, is in sys.modules and the import is not relative; else None
    name = a[0]
    if (len(a) < 5 or a[4] == 0) and "." not in name:
        return sys.modules.get(name)
    return None


def run(fn, *args):
    """fn(*args) with the chip's stack (imports on another thread); its
    result, or its exception raised again here."""
    global forward
    if _thread.get_ident() != _MAIN:
        raise RuntimeError("chipstack.run: call it from the process's main thread (its check is the one modelled)")
    key = (STACK, stack_use())
    plan = _plans.get(key)
    if plan is None:
        # the padding frames measured from this frame, where fn's start
        low = _target()
        box = [False, None, None]
        probe = _body(stack_use, (), box)
        _pa(0, 0, probe)
        u0 = box[1]
        _pa(1, 0, probe)
        a = box[1] - u0
        _pa(0, 1, probe)
        plan = _solve(low, u0, a, box[1] - u0)
        if plan is not None:
            _pa(plan[0], plan[1], probe)
        if plan is None or box[1] != plan[2]:
            raise RuntimeError("chipstack: padding frames from %d B cannot reach [%d, %d) B of stack" % (u0, low, low + 16))
        _plans[key] = plan
    na, nb = plan[0], plan[1]
    _helper_up()
    imp = builtins.__import__
    box = [False, None, None]
    builtins.__import__ = forward = _forward
    try:
        _pa(na, nb, _body(fn, args, box))
    finally:
        builtins.__import__ = imp
        forward = None
    if box[2] is not None:
        raise box[2]
    return box[1]
