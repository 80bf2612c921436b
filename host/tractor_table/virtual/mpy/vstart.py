# mypy: ignore-errors
# (MicroPython code, run by the unix port: not part of the typed host package.)
# The virtual table's process: runs the board (vboard.py) that the host's
# runner compiled into the table's sim folder (vboard.mpy); the runner copies
# this file there, as MicroPython looks for modules in the script's folder
# first. Kept this small: this file alone is compiled from source in the
# firmware's heap.
import sys

import vboard

vboard.main(sys.argv)
