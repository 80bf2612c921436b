"""Bus objects in the style of CircuitPython's ``busio`` / ``digitalio`` that
relay to simulated PN532 chips, so that unmodified drivers (Adafruit's
``adafruit_pn532.spi.PN532_SPI`` and ``adafruit_pn532.i2c.PN532_I2C``) talk to
the simulator exactly as they would talk to a chip on a Raspberry Pi.

They implement just what ``adafruit_bus_device`` and ``adafruit_pn532`` call:
``try_lock``/``unlock``/``configure``/``write``/``write_readinto``/``readinto``
for SPI, ``writeto``/``readfrom_into`` for I2C, and ``switch_to_output``,
``direction`` and ``value`` for pins. SPI transfers are checked against the
PN532's needs (mode 0); the bit order is left to the driver, as on real wires.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

from .chip import I2C_ADDRESS, Chip, I2cPort, SpiPort


class SimDigitalInOut:
    """A ``digitalio.DigitalInOut``-like pin; ``on_change(level)`` sees each edge."""

    def __init__(self, on_change: Callable[[int], None] | None = None, value: bool = True) -> None:
        self._value = value
        self.direction: object = None
        self.on_change = on_change
        self.history: list[bool] = []

    def switch_to_output(self, value: bool = False, drive_mode: object = None) -> None:
        self.value = value

    @property
    def value(self) -> bool:
        return self._value

    @value.setter
    def value(self, v: bool) -> None:
        v = bool(v)
        changed = v != self._value
        self._value = v
        self.history.append(v)
        if changed and self.on_change is not None:
            self.on_change(1 if v else 0)


class SimBusioSPI:
    """A ``busio.SPI``-like bus with one simulated PN532 behind ``cs``."""

    def __init__(self, chip: Chip) -> None:
        self.chip = chip
        self.port = SpiPort(chip)
        self.cs = SimDigitalInOut(self.port.cs)
        self._lock = threading.Lock()
        self.configured: dict[str, int] = {}

    def try_lock(self) -> bool:
        return self._lock.acquire(blocking=False)

    def unlock(self) -> None:
        self._lock.release()

    def configure(self, *, baudrate: int = 100000, polarity: int = 0, phase: int = 0, bits: int = 8) -> None:
        if polarity != 0 or phase != 0 or bits != 8:
            raise ValueError("the PN532 speaks SPI mode 0 with 8-bit words")
        self.configured = {"baudrate": baudrate, "polarity": polarity, "phase": phase}

    def write(self, buf: bytes | bytearray, *, start: int = 0, end: int | None = None) -> None:
        end = len(buf) if end is None else end
        for b in buf[start:end]:
            self.port.transfer(b)

    def readinto(self, buf: bytearray, *, start: int = 0, end: int | None = None, write_value: int = 0) -> None:
        end = len(buf) if end is None else end
        for i in range(start, end):
            buf[i] = self.port.transfer(write_value)

    def write_readinto(
        self,
        out_buf: bytes | bytearray,
        in_buf: bytearray,
        *,
        out_start: int = 0,
        out_end: int | None = None,
        in_start: int = 0,
        in_end: int | None = None,
    ) -> None:
        out_end = len(out_buf) if out_end is None else out_end
        in_end = len(in_buf) if in_end is None else in_end
        if out_end - out_start != in_end - in_start:
            raise ValueError("write_readinto needs buffers of the same length")
        data = bytes(out_buf[out_start:out_end])
        for i, b in enumerate(data):
            in_buf[in_start + i] = self.port.transfer(b)


class SimBusioI2C:
    """A ``busio.I2C``-like bus with one simulated PN532 at address 0x24."""

    def __init__(self, chip: Chip, address: int = I2C_ADDRESS) -> None:
        self.chip = chip
        self.port = I2cPort(chip)
        self.address = address
        self._lock = threading.Lock()
        self.transactions = 0

    def try_lock(self) -> bool:
        return self._lock.acquire(blocking=False)

    def unlock(self) -> None:
        self._lock.release()

    def _check(self, address: int) -> None:
        self.transactions += 1
        if address != self.address or not self.port.present():
            raise OSError(19, f"no I2C device answered at address 0x{address:02x}")

    def writeto(self, address: int, buffer: bytes | bytearray, *, start: int = 0, end: int | None = None) -> None:
        self._check(address)
        end = len(buffer) if end is None else end
        self.port.write(bytes(buffer[start:end]))

    def readfrom_into(self, address: int, buffer: bytearray, *, start: int = 0, end: int | None = None) -> None:
        self._check(address)
        end = len(buffer) if end is None else end
        data = self.port.read(end - start)
        if data is None:
            raise OSError(19, f"no I2C device answered at address 0x{address:02x}")
        buffer[start:end] = data
