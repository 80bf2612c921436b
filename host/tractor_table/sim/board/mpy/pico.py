# mypy: ignore-errors
# The board model's entry point (picoboot.py has the board):
#   micropython pico.py CTL_IN CTL_OUT IMAGE CPU_FACTOR DECKS [CAUSE BOOTS]
# What the heap holds before the models load is the firmware's baseline; what
# the models take is measured from here and reported apart ("R" line).
import gc
import sys

gc.collect()
_start = gc.mem_alloc()
import chipstack  # noqa: E402  (virtual/mpy/chipstack.py, compiled beside)
import picoboot  # noqa: E402

if picoboot.os.getenv("TT_CPUPROF"):
    chipstack.STACK *= 4  # cpuprof.py's wrappers: a frame more per call

# on the RP2040's C stack: what recurses too deep for the chip fails here too
chipstack.run(picoboot.main, sys.argv, _start)
