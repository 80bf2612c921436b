"""The pin map's checks: every pin on the header, free, and able to do its job
by the RP2040's function table (:func:`check`), and the build's electrical
figures (:func:`check_build`); :func:`valid_pins` names the pins that would do."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from .pico import GPIO_HEADER_PIN, HEADER, RESERVED_GPIO, SEATS, i2c_function, spi_function

if TYPE_CHECKING:
    from .pinmap import PinMap

#: What a seat cable must carry, once each (plus at least one GND).
CABLE_SIGNALS = ("3V3", "SCK", "MOSI", "MISO", "SS", "RSTPDN", "button")
#: The display panels the firmware has a driver for (firmware/ssd1306.py, firmware/ssd1309.py).
DISPLAY_KINDS = ("SSD1306", "SSD1309")
#: The ranges the checks enforce (issue 15: a power and wiring review).
READER_REGULATOR_MIN_MA = 500
SERIES_OHMS_RANGE = (33, 100)
BULK_UF_RANGE = (47, 470)


def check(pm: PinMap, button_seats: Sequence[int] | None = None) -> list[str]:
    """Every problem with a pin map, each naming the signal and what to do (empty when good)."""
    problems: list[str] = []
    seats = [r.seat for r in pm.readers]
    if sorted(seats) != list(range(SEATS)):
        problems.append(f"reader: need exactly one [[reader]] for each seat 0-{SEATS - 1}, got seats {sorted(seats)}")
    if button_seats is not None and sorted(button_seats) != list(range(SEATS)):
        problems.append(f"button: need exactly one [[button]] for each seat 0-{SEATS - 1}, got seats {sorted(button_seats)}")
    signals = pm.signals()
    users: dict[int, list[str]] = {}
    for sig in signals:
        users.setdefault(sig.gpio, []).append(sig.name)
        if sig.gpio in RESERVED_GPIO:
            problems.append(f"{sig.name}: GP{sig.gpio} {RESERVED_GPIO[sig.gpio]} and is not on the header; pick another pin")
        elif sig.gpio not in GPIO_HEADER_PIN:
            problems.append(f"{sig.name}: GP{sig.gpio} is not a GPIO on the Pico's header (GP0-GP22, GP26-GP28)")
    for gpio, names in sorted(users.items()):
        if len(names) > 1:
            problems.append(f"GP{gpio} is used twice: {' and '.join(names)}")
    if pm.spi_id not in (0, 1):
        problems.append(f"spi.id: the RP2040 has SPI0 and SPI1, not SPI{pm.spi_id}")
    for role, gpio in (("sck", pm.spi_sck), ("mosi", pm.spi_mosi), ("miso", pm.spi_miso)):
        if gpio in GPIO_HEADER_PIN or gpio in RESERVED_GPIO:
            inst, have = spi_function(gpio)
            if (inst, have) != (pm.spi_id, role):
                problems.append(
                    f"spi.{role}: GP{gpio} is SPI{inst} {have.upper()}, not SPI{pm.spi_id} {role.upper()}; "
                    f"SPI{pm.spi_id} {role.upper()} can be GP{', GP'.join(str(g) for g in valid_pins('spi', pm.spi_id, role))}"
                )
    if pm.i2c_id not in (0, 1):
        problems.append(f"i2c.id: the RP2040 has I2C0 and I2C1, not I2C{pm.i2c_id}")
    for role, gpio in (("sda", pm.i2c_sda), ("scl", pm.i2c_scl)):
        if gpio in GPIO_HEADER_PIN or gpio in RESERVED_GPIO:
            inst, have = i2c_function(gpio)
            if (inst, have) != (pm.i2c_id, role):
                problems.append(
                    f"i2c.{role}: GP{gpio} is I2C{inst} {have.upper()}, not I2C{pm.i2c_id} {role.upper()}; "
                    f"I2C{pm.i2c_id} {role.upper()} can be GP{', GP'.join(str(g) for g in valid_pins('i2c', pm.i2c_id, role))}"
                )
    if not 0 < pm.spi_baudrate <= 5_000_000:
        problems.append(f"spi.baudrate: {pm.spi_baudrate} Hz; the PN532 takes at most 5 MHz")
    if (pm.spi_polarity, pm.spi_phase) != (0, 0):
        problems.append("spi.polarity/phase: the PN532 (C106) speaks SPI mode 0 only (polarity 0, phase 0)")
    if pm.i2c_freq not in (100_000, 400_000):
        problems.append(f"i2c.freq: {pm.i2c_freq} Hz; use 100000 or 400000 (the SSD1306 takes up to 400 kHz)")
    if pm.display_kind not in DISPLAY_KINDS:
        problems.append(
            f"display.kind: {pm.display_kind!r} has no driver in the firmware; use one of "
            f"{', '.join(repr(k) for k in DISPLAY_KINDS)} (docs/display.md, Panels)"
        )
    if pm.display_address not in (0x3C, 0x3D):
        problems.append(f"display.address: {pm.display_address:#x}; an {pm.display_kind} answers at 0x3c (or 0x3d)")
    if (pm.display_width, pm.display_height) != (128, 64):
        problems.append(f"display: {pm.display_width}x{pm.display_height}; the table's screen is laid out for a 128x64 panel")
    if pm.display_reset >= 0 and pm.display_kind == "SSD1306":
        problems.append("display.reset: an SSD1306 module resets itself at power-up; remove the reset pin")
    return problems + check_build(pm)


def check_build(pm: PinMap) -> list[str]:
    """Problems with the power and seat wiring (``[power]``, ``[seat_cable]``, ``[button_filter]``)."""
    problems: list[str] = []
    pw, sw = pm.power, pm.seat_wiring
    if HEADER.get(pw.reader_supply_pin) != "VBUS":
        problems.append(
            f"power.reader_supply_pin: header pin {pw.reader_supply_pin} is "
            f"{HEADER.get(pw.reader_supply_pin, 'not on the header')}; feed the readers' regulator from VBUS (pin 40)"
        )
    if pw.reader_regulator_ma < READER_REGULATOR_MIN_MA:
        problems.append(
            f"power.reader_regulator_ma: {pw.reader_regulator_ma} mA; the readers' regulator must give at least "
            f"{READER_REGULATOR_MIN_MA} mA (one field on at up to 150 mA plus three awake readers and margin)"
        )
    lo, hi = BULK_UF_RANGE
    if not lo <= pw.bulk_capacitor_uf <= hi:
        problems.append(f"power.bulk_capacitor_uf: {pw.bulk_capacitor_uf} uF; use about 100 uF ({lo}-{hi}) at the hub")
    if pw.seat_capacitor_uf < 1:
        problems.append(f"power.seat_capacitor_uf: {pw.seat_capacitor_uf} uF; fit about 10 uF at each reader")
    lo, hi = SERIES_OHMS_RANGE
    if not lo <= sw.series_ohms <= hi:
        problems.append(f"seat_cable.series_ohms: {sw.series_ohms} ohm; the SCK and MOSI series resistors must be {lo}-{hi} ohm")
    for name in CABLE_SIGNALS:
        if sw.order.count(name) != 1:
            problems.append(f"seat_cable.order: {name} must be on exactly one conductor, found {sw.order.count(name)}")
    unknown = sorted(set(sw.order) - set(CABLE_SIGNALS) - {"GND"})
    if unknown:
        problems.append(f"seat_cable.order: unknown conductor(s) {', '.join(unknown)}; use {', '.join(CABLE_SIGNALS)} and GND")
    if "SCK" in sw.order:
        k = sw.order.index("SCK")
        if not (0 < k < len(sw.order) - 1 and sw.order[k - 1] == sw.order[k + 1] == "GND"):
            problems.append("seat_cable.order: SCK needs a GND conductor on either side")
    if not 0 < sw.max_length_cm <= 100:
        problems.append(f"seat_cable.max_length_cm: {sw.max_length_cm} cm; keep seat cables at most 100 cm (50 cm is what was sized)")
    if not 470 <= sw.button_series_ohms <= 4700:
        problems.append(f"button_filter.series_ohms: {sw.button_series_ohms} ohm; use about 1 kohm in series with each button")
    if not 10 <= sw.button_capacitor_nf <= 220:
        problems.append(f"button_filter.capacitor_nf: {sw.button_capacitor_nf} nF; use about 100 nF on each button line")
    return problems


def valid_pins(bus: str, instance: int, role: str) -> list[int]:
    """Header GPIOs that can carry ``role`` of ``bus`` instance ``instance``."""
    fn = spi_function if bus == "spi" else i2c_function
    return [g for g in sorted(GPIO_HEADER_PIN) if fn(g) == (instance, role)]
