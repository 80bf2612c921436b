# mypy: ignore-errors
# (MicroPython code, run by the unix port: not part of the typed host package.)
# The virtual table's process: runs the board (vboard.py) that the host's
# runner compiled into the table's sim folder (vboard.mpy); the runner copies
# this file there, as MicroPython looks for modules in the script's folder
# first. Kept this small: this file alone is compiled from source in the
# firmware's heap.
import sys

import chipstack
import vboard

# on the RP2040's C stack (chipstack.py): what recurses too deep for the chip
# fails here as it fails there
chipstack.run(vboard.main, sys.argv)
