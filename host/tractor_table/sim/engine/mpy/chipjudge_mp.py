# The device engine's conformance runner on the chip's C stack: as judge_mp.py
# (the same cases, the same answers), but each case is answered with the
# RP2040's stack (sim/board/mpy/chipstack.py, as the virtual table and
# the board model run the firmware) and its checks asked as the table asks
# them (tablerules.ask: the heap locked, every bytecode frame of the check on
# the C stack; docs/firmware.md, "The checks with the heap locked"), so that
# a check that needs more stack than the chip has fails here as it fails on
# the chip:
#   {"id", "error": "RuntimeError: maximum recursion depth exceeded"}.
# PAD_BYTES: that much less room for each case (the table's main loop's
# frames, below where it asks the checks: docs/firmware.md, "The checks with
# the heap locked"), to 16 bytes.
# Runs under MicroPython (unix port) with firmware/, this folder and
# sim/board/mpy/ on the module path:
#   micropython chipjudge_mp.py [STACK_BYTES [PAD_BYTES]] < cases > answers
import sys

import chipstack  # type: ignore[import-not-found]
import judge_mp  # type: ignore[import-not-found]
from serve_mp import serve  # type: ignore[import-not-found]


def less_room(pad: int) -> None:
    """The chip's stack with pad bytes less room (to 16 bytes): chipstack's
    STACK less pad, its floor (a real thread's least size, THREAD_MIN) lowered
    to the port's margin: the padding chipstack.run puts below the firmware
    is the main thread's, not a thread, so any size above the margin can be
    modelled (this runner's only)."""
    if pad:
        chipstack.THREAD_MIN = chipstack.THREAD_MARGIN + 16
        chipstack.STACK -= pad


def main(argv: list) -> None:  # type: ignore[type-arg]
    if len(argv) > 1:
        chipstack.STACK = int(argv[1])
    less_room(int(argv[2]) if len(argv) > 2 else 0)
    judge_mp.LOCKED[0] = True
    # the loop of every runner (serve_mp.py), each case on the chip's stack;
    # a recursion too deep for it is the case's error, as on the chip
    serve(lambda case: chipstack.run(judge_mp.one, case), (RuntimeError,))


if __name__ == "__main__":
    main(sys.argv)
