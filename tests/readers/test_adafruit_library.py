"""The simulator proven by the real ``adafruit_pn532`` library on all three
transports: SPI and I2C through busio-style buses that relay to the chip model,
UART through pyserial on a real pseudo-terminal."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest
import serial
from adafruit_pn532.adafruit_pn532 import PN532
from adafruit_pn532.i2c import PN532_I2C
from adafruit_pn532.spi import PN532_SPI
from adafruit_pn532.uart import PN532_UART
from tractor_table.sim.pn532sim.buses import SimBusioI2C, SimBusioSPI, SimDigitalInOut
from tractor_table.sim.pn532sim.chip import FAULT_GARBAGE, FAULT_SILENT, Chip, Tag
from tractor_table.sim.pn532sim.clock import RealClock
from tractor_table.sim.pn532sim.serve import PtyPN532

UID_A = bytes.fromhex("04a1b2c3d4e5f6")
UID_B = bytes.fromhex("04112233445566")


def _spi(chip: Chip) -> PN532:
    bus = SimBusioSPI(chip)
    return PN532_SPI(bus, bus.cs)


def _i2c(chip: Chip) -> PN532:
    return PN532_I2C(SimBusioI2C(chip))


@pytest.fixture(params=["spi", "i2c", "uart"])
def reader(request: pytest.FixtureRequest) -> Iterator[tuple[PN532, Chip, object]]:
    if request.param == "uart":
        with PtyPN532() as sim:
            port = serial.Serial(sim.port, 115200, timeout=0.05)
            try:
                yield PN532_UART(port), sim.chip, sim.lock
            finally:
                port.close()
        return
    chip = Chip(RealClock(), name=request.param)
    make = _spi if request.param == "spi" else _i2c
    import threading

    yield make(chip), chip, threading.RLock()


def test_firmware_version(reader: tuple[PN532, Chip, object]) -> None:
    pn, chip, _ = reader
    assert pn.firmware_version == (0x32, 1, 6, 7)
    assert 0x14 in chip.commands  # the library configured the SAM first (LowVbat)


def test_detects_and_reads_cards(reader: tuple[PN532, Chip, object]) -> None:
    pn, chip, lock = reader
    pn.SAM_configuration()
    # Bounded retries, as the table's enrollment sets them: no card -> None quickly.
    assert pn.call_function(0x32, params=[0x05, 0xFF, 0x01, 0x02]) == b""
    # No card: the chip answers NbTg=0 at once (the library's read_passive_target
    # would call that "More than one card", so ask through call_function).
    assert pn.call_function(0x4A, response_length=20, params=[0x01, 0x00]) == b"\x00"
    tag = Tag(UID_A)
    with lock:  # type: ignore[attr-defined]
        chip.place(tag)
    assert bytes(pn.read_passive_target(timeout=0.5) or b"") == UID_A
    assert pn.ntag2xx_write_block(4, b"TT\x01\x02")
    assert tag.page(4) == b"TT\x01\x02"
    assert bytes(pn.ntag2xx_read_block(4) or b"") == b"TT\x01\x02"
    page0 = pn.ntag2xx_read_block(0)
    assert page0 is not None and bytes(page0[:3]) == UID_A[:3]
    assert not pn.ntag2xx_write_block(44, b"\x00\x00\x00\x00")  # config page: refused
    with lock:  # type: ignore[attr-defined]
        chip.remove(tag)
        chip.place(Tag(UID_B))
    assert bytes(pn.read_passive_target(timeout=0.5) or b"") == UID_B


def test_two_cards_listed_when_asked_for_two(reader: tuple[PN532, Chip, object]) -> None:
    pn, chip, lock = reader
    with lock:  # type: ignore[attr-defined]
        chip.place(Tag(UID_A))
        chip.place(Tag(UID_B))
    resp = pn.call_function(0x4A, response_length=40, params=[0x02, 0x00])
    assert resp is not None and resp[0] == 2
    assert bytes(resp[6:13]) == UID_A and resp[13] == 2 and bytes(resp[18:25]) == UID_B


def test_infinite_retries_without_card_times_out_then_a_card_is_found() -> None:
    chip = Chip(RealClock())
    pn = _spi(chip)
    t0 = time.monotonic()
    assert pn.read_passive_target(timeout=0.2) is None  # chip keeps searching
    assert time.monotonic() - t0 >= 0.2
    chip.place(Tag(UID_A))
    assert bytes(pn.read_passive_target(timeout=0.5) or b"") == UID_A


def test_silent_chip_is_not_detected() -> None:
    chip = Chip(RealClock())
    chip.inject(FAULT_SILENT)
    with pytest.raises((RuntimeError, ValueError)):
        _spi(chip)
    with pytest.raises(ValueError, match="No I2C device"):
        _i2c(chip)  # no address acknowledge: bus_device's probe fails


def test_garbage_is_rejected_by_the_library() -> None:
    chip = Chip(RealClock())
    pn = _spi(chip)
    chip.inject(FAULT_GARBAGE)
    with pytest.raises(RuntimeError):
        for _ in range(20):  # noise looks "ready" now and then; its frames never pass
            pn.firmware_version  # noqa: B018


def test_spi_needs_lsb_first() -> None:
    """Without the bit reversal the chip hears nothing sensible (wire is LSB first)."""
    from tractor_table.sim.pn532sim.chip import SpiPort, frame

    chip = Chip(RealClock())
    port = SpiPort(chip)
    port.cs(0)
    for b in b"\x01" + frame(b"\xd4\x14\x01\x14\x01"):  # MSB-first: wrong
        port.transfer(b)
    port.cs(1)
    assert chip.commands == []
    port.cs(0)
    for b in b"\x01" + frame(b"\xd4\x14\x01\x14\x01"):
        from tractor_table.sim.pn532sim.chip import reverse_bits

        port.transfer(reverse_bits(b))
    port.cs(1)
    assert chip.commands == [0x14]


def test_reset_pin_through_the_library() -> None:
    chip = Chip(RealClock())
    bus = SimBusioSPI(chip)
    rst = SimDigitalInOut(chip.set_rstpd)
    pn = PN532_SPI(bus, bus.cs, reset=rst)
    assert chip.resets == 1  # the library pulsed RSTPD_N in its constructor
    assert pn.firmware_version == (0x32, 1, 6, 7)
