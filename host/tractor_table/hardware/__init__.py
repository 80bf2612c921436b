"""The table's wiring: the pin map, its checks, and what is generated from it.

``hardware/pinmap.toml`` is the one source of truth for which Pico pin does
what. This module loads it, checks it against the Raspberry Pi Pico's header
and the RP2040's GPIO functions, and generates from it:

- ``firmware/hwconfig.py``, the firmware's board configuration (``const()``
  values and tuples, nothing to parse on the device);
- ``hardware/wiring.svg``, the wiring diagram;
- the pin table between the ``pins`` markers in ``hardware/README.md``.

A module for each job (import from the module): ``pinmap`` (the model and its
loading), ``checks`` (its checks), ``hwconfig``, ``svg`` and ``readme`` (the
three generators) and ``generate`` (the command).
``python -m tractor_table.hardware`` (``make hardware``) rewrites all three;
``--check`` only reports what is out of date (the tests do the same).

The GPIO function rules are the RP2040 datasheet's function table, as
MicroPython's rp2 port enforces them (``ports/rp2/machine_spi.c`` and
``machine_i2c.c``): SPI0 on GP0-7 and GP16-23, SPI1 on GP8-15 and GP24-29,
with RX (MISO) on ``n % 4 == 0``, SCK on ``n % 4 == 2``, TX (MOSI) on
``n % 4 == 3``; I2C SDA on even and SCL on odd pins, I2C0 when ``n % 4`` is 0
or 1 and I2C1 when it is 2 or 3. The RP2350 of the Pico 2 keeps the same
mapping on these pins.
"""
