"""Board models for the unix port: the real Pico firmware (``boot.py``,
``main.py``, ``picoboard.py``) on a modelled Raspberry Pi Pico, its flash and
the power-cut soak.

- ``mpy/``: MicroPython code run by the unix port, started by ``start.py``
  in one of the board's two modes: "pico", the board model (the rp2 port's
  ``machine`` module, ``machine.py``; a virtual clock, ``vclock.py``,
  ``time.py``; the display panels, ``ssd1306sim.py`` and ``ssd1309sim.py``; the NOR flash, ``norflash.py``;
  the board itself, ``picoboot.py``: the pin map's wiring, the boot), or
  "fast", the virtual table's board (``vboard.py``: no machine model, the
  readers' clock jumps ahead). Both share ``hands.py``, the host's control
  protocol and the hands that put the tags down (docs/firmware.md, "The
  control protocol");
- :mod:`.runner`: :class:`PicoTable`, the host's handle on the board model (a
  :class:`~tractor_table.sim.virtual.runner.VirtualTable`, the fast mode's
  handle, in the pico mode);
- :mod:`.flashimage`: littlefs images of what deploy puts on a Pico;
- :mod:`.flashsoak`: power cuts at random flash operations.

The display's frames are read on the host by :mod:`tractor_table.monoframe`.

See ``docs/firmware.md``, "Board model" and "Flash and power cuts".
"""

#: The virtual clock's charge for the firmware's own work: RP2040 time per
#: unix-port time, bench/rp2040.py's GENERIC x FLASH_WAIT (125 x 1.3), the
#: factor for generic firmware work (tests/board checks it stays equal).
CPU_FACTOR = 125.0 * 1.3

#: The charge for C code the model times apart (the firmware's gc.collect()
#: and json.dumps/loads): the rp2 port's measured ratio for compiled code, the
#: native emitter's 57-68 on the rules engine's adversarial follows (the top,
#: 68), x 1.3 for flash wait states (the rp2 port audit of 2026-12-01,
#: evening; docs/performance.md, "Board model"). The bytecode factor
#: (CPU_FACTOR) overstates compiled code about 1.6-2x. The rp2 port's GC and
#: C library were not timed alone: this is the nearest measured figure.
C_FACTOR = 68.0 * 1.3
