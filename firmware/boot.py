# Runs first at every power-up and reset, before main.py.
#
# Kept minimal: anything that fails here would stop the board before the
# table (and its error display) even starts. It makes the garbage collector
# run early, so that the heap stays unfragmented for the table's long-lived
# buffers (display frame, link ring, scanner queues), and has main.py (the
# one module the Pico compiles from source, and keeps for as long as the
# table runs) compiled as the .mpy modules are (mpy-cross -O3): no
# line-number table in its bytecode, about 0.4 KB less heap (issue 21,
# docs/firmware.md "Bytecode without line numbers").
import gc
import micropython

# (the rp2 port's micropython.opt_level: the CPython shim the checks use has none)
level = getattr(micropython, "opt_level", None)
if level is not None:
    level(3)
del level
gc.collect()
gc.threshold(gc.mem_free() // 4 + gc.mem_alloc())
