# Runs first at every power-up and reset, before main.py.
#
# Kept minimal: anything that fails here would stop the board before the
# table (and its error display) even starts. It only makes the garbage
# collector run early, so that the heap stays unfragmented for the table's
# long-lived buffers (display frame, link ring, scanner queues).
import gc

gc.collect()
gc.threshold(gc.mem_free() // 4 + gc.mem_alloc())
