# mypy: ignore-errors
# (MicroPython code, run by the unix port: not part of the typed host package.)
# The board's process, in either mode (docs/firmware.md, "Board model"):
#   micropython start.py fast CTL_IN CTL_OUT STORE DECKS READERS CARDS CONFIG [heap] [events]
#   micropython start.py pico CTL_IN CTL_OUT IMAGE CPU_FACTOR DECKS [CAUSE BOOTS] [events] [missing=S,S]
# fast: vboard.py gives the firmware's App its board directly; pico: the board
# model (picoboot.py) boots boot.py and main.py on a modelled Pico. The runner
# copies this file beside the compiled board (MicroPython looks in the
# script's folder first). What the heap holds before the board loads is the
# firmware's baseline (the board model measures its models from here). Kept
# this small: this file alone is compiled from source in the firmware's heap.
import gc
import sys

gc.collect()
_start = gc.mem_alloc()
# the firmware's names first, as on the chip (fwnames.py): theirs, not the
# board's (``_start`` moves past them)
import fwnames  # noqa: E402

_start = fwnames.intern(sys.argv[0], _start)
import chipstack  # noqa: E402

if sys.argv[1] == "pico":
    board = chipstack.load("picoboot")

    if board.os.getenv("TT_CPUPROF"):
        chipstack.STACK *= 4  # cpuprof.py's wrappers: a frame more per call
    chipstack.STACK += board.kinds_stack(sys.argv[1:])  # kinds.py's wrappers
else:
    board = chipstack.load("vboard")

# on the RP2040's C stack (chipstack.py): what recurses too deep for the chip
# fails here as it fails there
chipstack.run(board.main, sys.argv[1:], _start)
