# mypy: ignore-errors
# (MicroPython code, run by the unix port: not part of the typed host package.)
# The RP2040's C stack on the unix port: run a function on a thread whose stack
# the port checks as the chip checks its own, so that what recurses too deep
# for the chip raises "RuntimeError: maximum recursion depth exceeded" here too.
#
# The chip: 8 KiB of C stack on core 0 ("stack: 524 out of 7936" at idle,
# micropython.mem_info() on the rp2 port). The unix port checks a thread's C
# stack against what _thread.stack_size() gave it, less its 8 KiB overflow
# margin (ports/unix/mpthread.c), with 64-bit frames (about twice the chip's).
# Calibrated on both ports (docs/firmware.md, "The C stack"):
#   - a plain recursive function: depth 30 on the chip's REPL, 28 in a 20 KiB
#     unix-port thread, 23 in an 18 KiB one;
#   - the device rules engine as it was at main a676471: in an 18 KiB thread
#     the two follows that fail on the chip (adv-21, adv-beyond-1) fail in
#     every run, in 20 KiB adv-beyond-1 passes.
# So STACK = 18 KiB: on the engine's frames it fails where the chip fails (and a
# plain recursion a little earlier: the safe side).
#
# Imports are the exception: the unix port's import machinery takes several
# KiB of C stack per nested import (its path buffers are PATH_MAX long; the rp2
# port's are short): `import main` alone needs a 28 KiB thread here, and in
# 20-24 KiB it overflows the real stack before the port's check sees it.
# So while fn runs, an import made on its thread is done by the calling thread
# (builtins.__import__ forwards it and waits): the module's own code runs
# there, everything else on the chip's stack.
#
# Used by the board in both modes (start.py: the fast board and the board model)
# for the whole firmware, and by the tests for the device engine's checks
# (sim/engine/mpy/chipjudge_mp.py).
import _thread
import builtins

STACK = 18 * 1024
#: while run() runs: its builtins.__import__ (reading builtins.__import__
#: gives the built-in, not what was put there): for a wrapper of it
#: (vclock.timed_import), which must keep the imports on the calling thread
forward = None


def run(fn, *args):
    """fn(*args) on a thread with the chip's stack (imports on this one); its
    result, or its exception raised again here."""
    global forward
    main = _thread.get_ident()
    imp = builtins.__import__
    wake = _thread.allocate_lock()  # the thread asks (an import) or is done
    reply = _thread.allocate_lock()  # the import done
    wake.acquire()
    reply.acquire()
    # [done, result, exception, import args, import result, import exception]
    box = [False, None, None, None, None, None]

    def _forward(*a):
        if _thread.get_ident() == main:
            return imp(*a)
        box[3] = a
        wake.release()
        reply.acquire()
        exc = box[5]
        mod = box[4]
        box[4] = box[5] = None
        if exc is not None:
            raise exc
        return mod

    def body():
        try:
            box[1] = fn(*args)
        except BaseException as exc:  # noqa: BLE001 - handed to the caller
            box[2] = exc
        box[0] = True
        wake.release()

    builtins.__import__ = forward = _forward
    try:
        _thread.stack_size(STACK)
        _thread.start_new_thread(body, ())
        _thread.stack_size(0)
        while True:
            wake.acquire()
            if box[0]:
                break
            a = box[3]
            box[3] = None
            try:
                box[4] = imp(*a)
            except BaseException as exc:  # noqa: BLE001 - raised on the thread
                box[5] = exc
            reply.release()
    finally:
        builtins.__import__ = imp
        forward = None
    if box[2] is not None:
        raise box[2]
    return box[1]
