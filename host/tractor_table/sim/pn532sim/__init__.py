"""A byte-accurate PN532 simulator.

- :mod:`.chip` — the chip model (frames, RF field, NTAG213 tags, faults) and its
  SPI, I2C and HSU interfaces; written in the subset MicroPython also runs, so
  the firmware tests use it under both runtimes.
- :mod:`.buses` — ``busio``-style SPI/I2C objects and pins for unmodified host
  drivers such as Adafruit's ``adafruit_pn532``.
- :mod:`.serve` — the HSU interface on a pseudo-terminal, for pyserial.

See ``docs/readers.md``.
"""

from .chip import (
    FAULT_BUSY,
    FAULT_GARBAGE,
    FAULT_NONE,
    FAULT_SILENT,
    FAULT_SLOW,
    Chip,
    SimClock,
    SimPin,
    SimSpiBus,
    Tag,
)

__all__ = [
    "FAULT_BUSY",
    "FAULT_GARBAGE",
    "FAULT_NONE",
    "FAULT_SILENT",
    "FAULT_SLOW",
    "Chip",
    "SimClock",
    "SimPin",
    "SimSpiBus",
    "Tag",
]
