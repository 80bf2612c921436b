# mypy: ignore-errors
# The board model's entry point (picoboot.py has the board):
#   micropython pico.py CTL_IN CTL_OUT IMAGE CPU_FACTOR DECKS [CAUSE BOOTS]
# What the heap holds before the models load is the firmware's baseline; what
# the models take is measured from here and reported apart ("R" line).
import gc
import sys

gc.collect()
_start = gc.mem_alloc()
import picoboot  # noqa: E402

picoboot.main(sys.argv, _start)
