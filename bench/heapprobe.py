# The live heap at chosen points of a run, on the unix port and on the
# webassembly port alike (bench/heap32_mp.py, bench/table_mp.py).
#
# A run is a generator: each `yield` is a point where the live heap is taken,
# and `last()` (after the yield) is what it was there. `drive(gen)` runs it.
#
# Why a generator: the webassembly port (built with MICROPY_GC_SPLIT_HEAP_AUTO)
# does not collect inside gc.collect(); it only notes that a collection is due
# and collects when the next call from JavaScript comes in, at the top level,
# where no stack holds a pointer. So there, drive() only keeps the generator,
# and tools/wasm/run.mjs resumes it with step() from the top level, again and
# again: each step() is entered after the collection the previous one asked for.
# On the unix port, drive() runs it here: gc.collect() (twice) at every point.
import gc
import sys

WASM = sys.platform == "webassembly"
# [the last point's live heap, the largest], kept in place: a growing list of
# samples would itself be part of what is measured
_heap = [0, 0]
_run = [None]
_started = [False]


def last():
    return _heap[0]


def peak():
    return _heap[1]


def _sample():
    a = gc.mem_alloc()
    _heap[0] = a
    if a > _heap[1]:
        _heap[1] = a


def drive(gen):
    if WASM:
        _run[0] = gen
        return
    for _ in gen:
        gc.collect()
        gc.collect()
        _sample()


def step():
    # Called by tools/wasm/run.mjs from the top level until it returns False.
    gen = _run[0]
    if gen is None:
        return False
    if _started[0]:
        _sample()  # the heap at the point the run yielded, collected
    _started[0] = True
    try:
        next(gen)
    except StopIteration:
        _run[0] = None
        return False
    gc.collect()  # asks for the collection that happens before the next step() runs
    return True

