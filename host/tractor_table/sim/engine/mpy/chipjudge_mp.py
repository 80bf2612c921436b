# The device engine's conformance runner on the chip's C stack: as judge_mp.py
# (the same cases, the same answers), but each case is answered with the
# RP2040's stack (sim/board/mpy/chipstack.py, as the virtual table and
# the board model run the firmware), so that a check that recurses deeper than
# the chip allows fails here as it fails on the chip:
#   {"id", "error": "RuntimeError: maximum recursion depth exceeded"}.
# Runs under MicroPython (unix port) with firmware/, this folder and
# sim/board/mpy/ on the module path:
#   micropython chipjudge_mp.py [STACK_BYTES] < cases > answers
import sys

import chipstack  # type: ignore[import-not-found]
from judge_mp import one  # type: ignore[import-not-found]
from serve_mp import serve  # type: ignore[import-not-found]


def main(argv: list) -> None:  # type: ignore[type-arg]
    if len(argv) > 1:
        chipstack.STACK = int(argv[1])
    # the loop of every runner (serve_mp.py), each case on the chip's stack;
    # a recursion too deep for it is the case's error, as on the chip
    serve(lambda case: chipstack.run(one, case), (RuntimeError,))


if __name__ == "__main__":
    main(sys.argv)
