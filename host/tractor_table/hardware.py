"""The table's wiring: the pin map, its checks, and what is generated from it.

``hardware/pinmap.toml`` is the one source of truth for which Pico pin does
what. This module loads it, checks it against the Raspberry Pi Pico's header
and the RP2040's GPIO functions, and generates from it:

- ``firmware/hwconfig.py``, the firmware's board configuration (``const()``
  values and tuples, nothing to parse on the device);
- ``hardware/wiring.svg``, the wiring diagram;
- the pin table between the ``pins`` markers in ``hardware/README.md``.

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

from __future__ import annotations

import argparse
import hashlib
import html
import sys
import tomllib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .paths import CARDS_FILE, CONFIG_FILE, FIRMWARE_DIR, HARDWARE_DIR

PINMAP_PATH = HARDWARE_DIR / "pinmap.toml"
HWCONFIG_PATH = FIRMWARE_DIR / "hwconfig.py"
WIRING_PATH = HARDWARE_DIR / "wiring.svg"
README_PATH = HARDWARE_DIR / "README.md"

#: Seats at the table (one reader and one button each).
SEATS = 4

#: The Pico's 40-pin header: physical pin -> what is on it. Pins 1-20 run down
#: the left edge (USB at the top), 21-40 up the right edge.
HEADER: dict[int, str] = {
    1: "GP0", 2: "GP1", 3: "GND", 4: "GP2", 5: "GP3", 6: "GP4", 7: "GP5", 8: "GND",
    9: "GP6", 10: "GP7", 11: "GP8", 12: "GP9", 13: "GND", 14: "GP10", 15: "GP11",
    16: "GP12", 17: "GP13", 18: "GND", 19: "GP14", 20: "GP15",
    21: "GP16", 22: "GP17", 23: "GND", 24: "GP18", 25: "GP19", 26: "GP20", 27: "GP21",
    28: "GND", 29: "GP22", 30: "RUN", 31: "GP26", 32: "GP27", 33: "AGND", 34: "GP28",
    35: "ADC_VREF", 36: "3V3(OUT)", 37: "3V3_EN", 38: "GND", 39: "VSYS", 40: "VBUS",
}

#: GPIOs that exist on the RP2040 but are wired inside the Pico, not to the header:
#: GP23 (power-supply mode), GP24 (VBUS sense), GP25 (LED), GP29 (VSYS/3 sense).
#: The Pico W and Pico 2 W use them for the radio.
RESERVED_GPIO: dict[int, str] = {
    23: "drives the Pico's power-supply mode (the radio on a Pico W)",
    24: "senses VBUS (the radio on a Pico W)",
    25: "drives the on-board LED (the radio on a Pico W)",
    29: "measures VSYS (the radio on a Pico W)",
}

#: header pin of each GPIO that is on the header
GPIO_HEADER_PIN: dict[int, int] = {
    int(name[2:]): pin for pin, name in HEADER.items() if name.startswith("GP")
}

_SPI_ROLE = {0: "miso", 1: "csn", 2: "sck", 3: "mosi"}


def spi_function(gpio: int) -> tuple[int, str]:
    """(SPI instance, role) of a GPIO: role is ``miso`` (RX), ``csn``, ``sck`` or ``mosi`` (TX)."""
    return (gpio >> 3) & 1, _SPI_ROLE[gpio & 3]


def i2c_function(gpio: int) -> tuple[int, str]:
    """(I2C instance, role) of a GPIO: role is ``sda`` (even pins) or ``scl`` (odd pins)."""
    return (gpio >> 1) & 1, "scl" if gpio & 1 else "sda"


def pwm_slice(gpio: int) -> tuple[int, str]:
    """(PWM slice, channel) of a GPIO on the RP2040."""
    return (gpio >> 1) & 7, "B" if gpio & 1 else "A"


class PinMapError(ValueError):
    """The pin map is wrong; the message lists every problem found."""


@dataclass(frozen=True)
class Reader:
    seat: int
    cs: int
    rstpd_n: int


@dataclass(frozen=True)
class Power:
    """The readers' own 3.3 V rail (``[power]``)."""

    reader_regulator: str  # part number of the regulator, e.g. "MCP1826S-3302E/AB"
    reader_regulator_ma: int  # its rated output current
    reader_supply_pin: int  # header pin that feeds it (40, VBUS)
    bulk_capacitor_uf: int  # at the hub, on the regulator's output
    seat_capacitor_uf: int  # at each reader


@dataclass(frozen=True)
class SeatWiring:
    """The seat cable and the parts on its lines at the hub (``[seat_cable]``, ``[button_filter]``)."""

    order: tuple[str, ...]  # conductor 1..N of every seat cable
    max_length_cm: int
    series_ohms: int  # at the hub, on SCK and MOSI of each seat
    button_series_ohms: int
    button_capacitor_nf: int


#: What a seat cable must carry, once each (plus at least one GND).
CABLE_SIGNALS = ("3V3", "SCK", "MOSI", "MISO", "SS", "RSTPDN", "button")

#: The display panels the firmware has a driver for (firmware/ssd1306.py, firmware/ssd1309.py).
DISPLAY_KINDS = ("SSD1306", "SSD1309")

#: The ranges the checks enforce (issue 15: a power and wiring review).
READER_REGULATOR_MIN_MA = 500
SERIES_OHMS_RANGE = (33, 100)
BULK_UF_RANGE = (47, 470)


@dataclass(frozen=True)
class Signal:
    """One GPIO in use: what it carries and where it goes."""

    gpio: int
    name: str  # e.g. "SPI0 SCK", "CS seat 2"
    part: str  # e.g. "PN532 seat 2", "all four PN532"
    terminal: str  # the pin's name on that part, e.g. "SCK", "SSEL", "RSTPDN"

    @property
    def header_pin(self) -> int:
        return GPIO_HEADER_PIN[self.gpio]


@dataclass(frozen=True)
class PinMap:
    board: str
    compatible: tuple[str, ...]
    spi_id: int
    spi_sck: int
    spi_mosi: int
    spi_miso: int
    spi_baudrate: int
    spi_polarity: int
    spi_phase: int
    i2c_id: int
    i2c_sda: int
    i2c_scl: int
    i2c_freq: int
    display_kind: str
    display_width: int
    display_height: int
    display_address: int
    display_reset: int  # GPIO of the panel's RES# line, -1 none (an SSD1306, or an RC reset)
    readers: tuple[Reader, ...]
    buttons: tuple[int, ...]  # GPIO of seat 0..3
    buzzer: int
    led: int
    digest: str  # sha256 of the pin map file, first 12 hex digits
    power: Power
    seat_wiring: SeatWiring

    def signals(self) -> list[Signal]:
        """Every GPIO in use, in a stable order (shared bus, per seat, then the rest)."""
        s = self.spi_id
        out = [
            Signal(self.spi_sck, f"SPI{s} SCK", "PN532 x4", "SCK"),
            Signal(self.spi_mosi, f"SPI{s} MOSI", "PN532 x4", "MOSI"),
            Signal(self.spi_miso, f"SPI{s} MISO", "PN532 x4", "MISO"),
        ]
        for r in self.readers:
            out.append(Signal(r.cs, f"CS seat {r.seat}", f"PN532 seat {r.seat}", "SS"))
            out.append(Signal(r.rstpd_n, f"RSTPD_N seat {r.seat}", f"PN532 seat {r.seat}", "RSTPDN"))
        for seat, pin in enumerate(self.buttons):
            out.append(Signal(pin, f"button seat {seat}", f"button seat {seat}", "switch"))
        i = self.i2c_id
        out += [
            Signal(self.i2c_sda, f"I2C{i} SDA", self.display_kind, "SDA"),
            Signal(self.i2c_scl, f"I2C{i} SCL", self.display_kind, "SCL"),
        ]
        if self.display_reset >= 0:
            out.append(Signal(self.display_reset, "display reset", self.display_kind, "RES"))
        out += [
            Signal(self.buzzer, "buzzer (PWM)", "piezo buzzer", "+"),
            Signal(self.led, "status LED", "status LED", "anode (via 330 R)"),
        ]
        return out


# --------------------------------------------------------------------------- loading


def _get(raw: dict[str, Any], path: str, kind: type, problems: list[str]) -> Any:
    node: Any = raw
    for key in path.split("."):
        if not isinstance(node, dict) or key not in node:
            problems.append(f"{path}: missing")
            return None
        node = node[key]
    if kind is int and (isinstance(node, bool) or not isinstance(node, int)):
        problems.append(f"{path}: must be an integer, not {node!r}")
        return None
    if kind is str and not isinstance(node, str):
        problems.append(f"{path}: must be a string, not {node!r}")
        return None
    return node


def _optional_pin(raw: dict[str, Any], table: str, key: str, problems: list[str]) -> int:
    """``table.key`` if the pin map gives it (an integer), else -1."""
    node = raw.get(table)
    if not isinstance(node, dict) or key not in node:
        return -1
    v = _get(raw, f"{table}.{key}", int, problems)
    return -1 if v is None else int(v)


def parse(raw: dict[str, Any], digest: str = "") -> PinMap:
    """Build and check a :class:`PinMap` from the TOML document; :class:`PinMapError` lists all problems."""
    problems: list[str] = []

    def gi(path: str) -> int:
        v = _get(raw, path, int, problems)
        return -1 if v is None else int(v)

    def gs(path: str) -> str:
        v = _get(raw, path, str, problems)
        return "" if v is None else str(v)

    readers: list[Reader] = []
    raw_readers = raw.get("reader")
    if not isinstance(raw_readers, list):
        problems.append("reader: missing (one [[reader]] table per seat)")
        raw_readers = []
    for k, r in enumerate(raw_readers):
        if not isinstance(r, dict):
            problems.append(f"reader[{k}]: must be a table")
            continue
        vals = [_get(r, key, int, problems) for key in ("seat", "cs", "rstpd_n")]
        if None not in vals:
            readers.append(Reader(*vals))
    buttons: dict[int, int] = {}
    seat_problems: list[str] = []
    raw_buttons = raw.get("button")
    if not isinstance(raw_buttons, list):
        problems.append("button: missing (one [[button]] table per seat)")
        raw_buttons = []
    for k, b in enumerate(raw_buttons):
        if not isinstance(b, dict):
            problems.append(f"button[{k}]: must be a table")
            continue
        seat, pin = _get(b, "seat", int, problems), _get(b, "pin", int, problems)
        if seat is not None and pin is not None:
            if seat in buttons:
                seat_problems.append(f"button: seat {seat} has two buttons")
            buttons[seat] = pin
    compatible = raw.get("board", {}).get("compatible", [])
    order = raw.get("seat_cable", {}).get("order") if isinstance(raw.get("seat_cable"), dict) else None
    if not isinstance(order, list) or not all(isinstance(c, str) for c in order):
        problems.append("seat_cable.order: missing (a list of the cable's conductors, e.g. [\"3V3\", \"GND\", ...])")
        order = []
    power = Power(
        reader_regulator=gs("power.reader_regulator"),
        reader_regulator_ma=gi("power.reader_regulator_ma"),
        reader_supply_pin=gi("power.reader_supply_pin"),
        bulk_capacitor_uf=gi("power.bulk_capacitor_uf"),
        seat_capacitor_uf=gi("power.seat_capacitor_uf"),
    )
    seat_wiring = SeatWiring(
        order=tuple(order),
        max_length_cm=gi("seat_cable.max_length_cm"),
        series_ohms=gi("seat_cable.series_ohms"),
        button_series_ohms=gi("button_filter.series_ohms"),
        button_capacitor_nf=gi("button_filter.capacitor_nf"),
    )
    pm = PinMap(
        board=gs("board.name"),
        compatible=tuple(str(c) for c in compatible) if isinstance(compatible, list) else (),
        spi_id=gi("spi.id"),
        spi_sck=gi("spi.sck"),
        spi_mosi=gi("spi.mosi"),
        spi_miso=gi("spi.miso"),
        spi_baudrate=gi("spi.baudrate"),
        spi_polarity=gi("spi.polarity"),
        spi_phase=gi("spi.phase"),
        i2c_id=gi("i2c.id"),
        i2c_sda=gi("i2c.sda"),
        i2c_scl=gi("i2c.scl"),
        i2c_freq=gi("i2c.freq"),
        display_kind=gs("display.kind"),
        display_width=gi("display.width"),
        display_height=gi("display.height"),
        display_address=gi("display.address"),
        display_reset=_optional_pin(raw, "display", "reset", problems),
        readers=tuple(sorted(readers, key=lambda r: r.seat)),
        buttons=tuple(buttons[s] for s in sorted(buttons)),
        buzzer=gi("buzzer.pin"),
        led=gi("led.pin"),
        digest=digest,
        power=power,
        seat_wiring=seat_wiring,
    )
    if problems:  # missing or mistyped keys: the pin checks below would only add noise
        raise PinMapError("pin map: " + "; ".join(problems))
    problems += seat_problems + check(pm, button_seats=sorted(buttons))
    if problems:
        raise PinMapError("pin map: " + "; ".join(problems))
    return pm


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


def load(path: Path = PINMAP_PATH) -> PinMap:
    data = path.read_bytes()
    try:
        raw = tomllib.loads(data.decode("utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise PinMapError(f"{path.name}: not valid TOML: {exc}") from None
    return parse(raw, digest=hashlib.sha256(data).hexdigest()[:12])


# ------------------------------------------------------------------ firmware/hwconfig.py


def render_hwconfig(pm: PinMap) -> str:
    """The firmware's board configuration, as Python source for MicroPython."""
    rs = pm.readers
    lines = [
        "# Board configuration of the table: which Pico pin does what.",
        "#",
        "# GENERATED from hardware/pinmap.toml by `make hardware` -- do not edit;",
        "# tests/hardware fails when this file and the pin map differ.",
        "# Numbers are RP2040 GPIO numbers, as machine.Pin() takes them.",
        "",
        "try:",
        "    from micropython import const",
        "except ImportError:  # CPython: the virtual table and the host import this file too",
        "",
        "    def const(x):  # type: ignore[no-redef]",
        "        return x",
        "",
        "",
        f'BOARD = "{pm.board}"',
        f'PINMAP_DIGEST = "{pm.digest}"  # sha256 of hardware/pinmap.toml, first 12 hex digits',
        "",
        f"SEATS = const({SEATS})",
        "",
        "# PN532 readers on one SPI bus (mode 0; bits reversed in software for LSB-first)",
        f"SPI_ID = const({pm.spi_id})",
        f"SPI_SCK = const({pm.spi_sck})",
        f"SPI_MOSI = const({pm.spi_mosi})",
        f"SPI_MISO = const({pm.spi_miso})",
        f"SPI_BAUDRATE = const({pm.spi_baudrate})",
        f"SPI_POLARITY = const({pm.spi_polarity})",
        f"SPI_PHASE = const({pm.spi_phase})",
    ]
    for r in rs:
        lines.append(f"READER{r.seat}_CS = const({r.cs})")
    for r in rs:
        lines.append(f"READER{r.seat}_RSTPD_N = const({r.rstpd_n})")
    lines += [
        "# by seat: chip-select (idle high) and RSTPD_N (low = hard power-down / reset)",
        f"READER_CS = ({', '.join(str(r.cs) for r in rs)})",
        f"READER_RSTPD_N = ({', '.join(str(r.rstpd_n) for r in rs)})",
        "",
        f"# the display: an {pm.display_kind} panel on I2C (its driver: firmware/{pm.display_kind.lower()}.py)",
        f'DISPLAY_KIND = "{pm.display_kind}"',
        f"I2C_ID = const({pm.i2c_id})",
        f"I2C_SDA = const({pm.i2c_sda})",
        f"I2C_SCL = const({pm.i2c_scl})",
        f"I2C_FREQ = const({pm.i2c_freq})",
        f"DISPLAY_ADDR = const({pm.display_address:#04x})",
        f"DISPLAY_WIDTH = const({pm.display_width})",
        f"DISPLAY_HEIGHT = const({pm.display_height})",
        f"DISPLAY_RESET = const({pm.display_reset})  # RES#, -1: none (the module resets itself)",
        "",
        "# seat buttons: switch to GND, internal pull-up, pressed reads 0",
    ]
    for seat, pin in enumerate(pm.buttons):
        lines.append(f"BUTTON{seat} = const({pin})")
    lines += [
        f"BUTTONS = ({', '.join(str(p) for p in pm.buttons)})",
        "BUTTON_PRESSED = const(0)",
        "",
        "# passive piezo buzzer on PWM; status LED, high = on",
        f"BUZZER = const({pm.buzzer})",
        f"LED = const({pm.led})",
        "",
        "# files the deploy command copies next to the firmware",
        f'CARDS_FILE = "{CARDS_FILE}"',
        f'CONFIG_FILE = "{CONFIG_FILE}"',
        "",
    ]
    return "\n".join(lines)


# ------------------------------------------------------------------ README pin table

README_BEGIN = "<!-- pins:begin (generated from pinmap.toml by `make hardware`) -->"
README_END = "<!-- pins:end -->"


def render_pin_table(pm: PinMap) -> str:
    rows = ["| GPIO | header pin | signal | goes to | on that part |", "|---|---|---|---|---|"]
    for sig in sorted(pm.signals(), key=lambda s: s.header_pin):
        rows.append(f"| GP{sig.gpio} | {sig.header_pin} | {sig.name} | {sig.part} | {sig.terminal} |")
    pw = pm.power
    rows.append("| - | 36 | 3V3(OUT) | display VCC, the four CS pull-ups | VCC |")
    rows.append(
        f"| - | {pw.reader_supply_pin} | {HEADER[pw.reader_supply_pin]} | readers' regulator {pw.reader_regulator} "
        f"({pw.reader_regulator_ma} mA), {pw.bulk_capacitor_uf} uF at its output; its 3.3 V goes to every seat cable's 3V3 | IN |"
    )
    rows.append("| - | 38 (any GND) | GND | every part | GND |")
    return "\n".join(rows)


def with_pin_table(readme: str, pm: PinMap) -> str:
    """``readme`` with the text between the pins markers replaced by the generated table."""
    start = readme.find(README_BEGIN)
    end = readme.find(README_END)
    if start < 0 or end < start:
        raise PinMapError(f"{README_PATH.name}: the pins markers are missing")
    return readme[: start + len(README_BEGIN)] + "\n" + render_pin_table(pm) + "\n" + readme[end:]


# ------------------------------------------------------------------ hardware/wiring.svg

_COLOURS = {
    "SCK": "#d9480f", "MOSI": "#1971c2", "MISO": "#2f9e44", "CS": "#ae3ec9",
    "RST": "#8d5524", "BTN": "#495057", "SDA": "#0c8599", "SCL": "#5c940d",
    "BUZ": "#c2255c", "LED": "#f08c00", "3V3": "#e03131", "GND": "#212529",
}


def _colour(sig_name: str) -> str:
    if "SCK" in sig_name:
        return _COLOURS["SCK"]
    if "MOSI" in sig_name:
        return _COLOURS["MOSI"]
    if "MISO" in sig_name:
        return _COLOURS["MISO"]
    if sig_name.startswith("CS"):
        return _COLOURS["CS"]
    if sig_name.startswith(("RSTPD_N", "display reset")):
        return _COLOURS["RST"]
    if sig_name.startswith("button"):
        return _COLOURS["BTN"]
    if "SDA" in sig_name:
        return _COLOURS["SDA"]
    if "SCL" in sig_name:
        return _COLOURS["SCL"]
    if "buzzer" in sig_name:
        return _COLOURS["BUZ"]
    return _COLOURS["LED"]


def ohms(value: int) -> str:
    """A resistor value as a drawing labels it: 47 -> "47 R", 1000 -> "1 k", 10000 -> "10 k"."""
    if value >= 1000 and value % 100 == 0:
        return f"{value / 1000:g} k"
    return f"{value} R"


class _Svg:
    def __init__(self) -> None:
        self.parts: list[str] = []

    def rect(self, x: float, y: float, w: float, h: float, fill: str, stroke: str = "#333", rx: float = 4) -> None:
        self.parts.append(
            f'<rect x="{x:g}" y="{y:g}" width="{w:g}" height="{h:g}" rx="{rx:g}" fill="{fill}" stroke="{stroke}" stroke-width="1.5"/>'
        )

    def text(self, x: float, y: float, s: str, size: float = 11, anchor: str = "start", weight: str = "normal", fill: str = "#111") -> None:
        self.parts.append(
            f'<text x="{x:g}" y="{y:g}" font-size="{size:g}" text-anchor="{anchor}" font-weight="{weight}" fill="{fill}">{html.escape(s)}</text>'
        )

    def line(self, points: Sequence[tuple[float, float]], colour: str, width: float = 2) -> None:
        pts = " ".join(f"{x:g},{y:g}" for x, y in points)
        self.parts.append(f'<polyline points="{pts}" fill="none" stroke="{colour}" stroke-width="{width:g}" stroke-linejoin="round"/>')

    def dot(self, x: float, y: float, colour: str) -> None:
        self.parts.append(f'<circle cx="{x:g}" cy="{y:g}" r="3.5" fill="{colour}"/>')


def render_svg(pm: PinMap) -> str:
    """A wiring diagram: the Pico's header in the middle, seat modules left, display etc. right."""
    svg = _Svg()
    width, height = 1240, 1040
    sw, pwr = pm.seat_wiring, pm.power
    pitch = 26  # vertical distance between header pins
    px, py, pw = 520, 150, 170  # Pico body: x, y of pin 1, width
    top = py - 40
    svg.rect(px, top, pw, 20 * pitch + 50, "#2b8a3e", "#1b5e20", rx=8)
    svg.rect(px + pw / 2 - 22, top - 14, 44, 26, "#adb5bd", "#495057", rx=3)
    svg.text(px + pw / 2, top - 20, "USB (to the host)", 11, "middle")
    svg.text(px + pw / 2, top + 20 * pitch + 75, pm.board, 13, "middle", "bold")
    svg.text(px + pw / 2, top + 20 * pitch + 92, "top view, header pins numbered", 11, "middle")

    used = {s.header_pin: s for s in pm.signals()}

    def pin_xy(pin: int) -> tuple[float, float]:
        if pin <= 20:
            return px, py + (pin - 1) * pitch
        return px + pw, py + (40 - pin) * pitch

    for pin, name in HEADER.items():
        x, y = pin_xy(pin)
        left = pin <= 20
        fill = "#ffd43b" if pin in used else ("#868e96" if "GND" in name else "#dee2e6")
        if name in ("3V3(OUT)",):
            fill = "#ff8787"
        svg.rect(x - 6, y - 6, 12, 12, fill, "#333", rx=2)
        inner = x + 10 if left else x - 10
        svg.text(inner, y + 4, f"{pin} {name}" if left else f"{name} {pin}", 10, "start" if left else "end", fill="#fff")

    # Left: the four seat modules (PN532 + button), each fed by one cable.
    seat_x, seat_w, seat_h = 40, 210, 150
    bus_x = {"SCK": px - 150, "MOSI": px - 135, "MISO": px - 120}
    mod_terms = ["VCC", "GND", "SCK", "MOSI", "MISO", "SS", "RSTPDN", "button"]
    seat_term_y: dict[int, dict[str, float]] = {}
    for r in pm.readers:
        sy = 45 + r.seat * (seat_h + 45)
        svg.rect(seat_x, sy, seat_w, seat_h, "#e7f5ff", "#1c7ed6")
        svg.text(seat_x + 10, sy + 18, f"Seat {r.seat}: PN532 (SPI mode)", 12, weight="bold")
        svg.text(seat_x + 10, sy + 32, "+ seat button to GND", 10, fill="#495057")
        terms: dict[str, float] = {}
        for k, t in enumerate(mod_terms):
            ty = sy + 48 + k * 12.5
            terms[t] = ty
            svg.text(seat_x + seat_w - 8, ty + 3, t, 9, "end")
            svg.dot(seat_x + seat_w, ty, "#333")
        seat_term_y[r.seat] = terms

    # shared SPI bus: a vertical rail per signal, joined to every seat
    for sig in pm.signals()[:3]:
        key = sig.terminal
        colour = _colour(sig.name)
        hx, hy = pin_xy(sig.header_pin)
        rail = bus_x[key]
        ys = [seat_term_y[s][key] for s in seat_term_y]
        svg.line([(hx - 6, hy), (rail, hy)], colour)
        svg.line([(rail, min(ys + [hy])), (rail, max(ys + [hy]))], colour)
        svg.dot(rail, hy, colour)
        for y in ys:
            svg.line([(seat_x + seat_w, y), (rail, y)], colour)
            svg.dot(rail, y, colour)
            if key in ("SCK", "MOSI"):  # the series resistor at the hub, one per seat and line
                svg.rect(seat_x + seat_w + 14, y - 4, 22, 8, "#ffffff", colour, rx=1)
                svg.rect(seat_x + seat_w + 39, y - 4.5, 24, 9, "#ffffff", "#ffffff", rx=0)
                svg.text(seat_x + seat_w + 40, y + 3, ohms(sw.series_ohms), 8, fill=colour)
    # per-seat lines: each gets its own vertical lane
    lane = px - 105
    per_seat = [s for s in pm.signals() if s.name.startswith(("CS", "RSTPD_N", "button"))]
    for k, sig in enumerate(sorted(per_seat, key=lambda s: s.header_pin)):
        seat = int(sig.name.rsplit(" ", 1)[1])
        term = {"CS": "SS", "RSTPD_N": "RSTPDN", "button": "button"}[sig.name.split(" ")[0]]
        ty = seat_term_y[seat][term]
        hx, hy = pin_xy(sig.header_pin)
        x_lane = lane + k * 6
        colour = _colour(sig.name)
        svg.line([(hx - 6, hy), (x_lane, hy), (x_lane, ty), (seat_x + seat_w, ty)], colour, 1.6)
        if term == "button":  # the ESD filter at the hub: series resistor, capacitor to GND on the cable side
            svg.rect(seat_x + seat_w + 60, ty - 4, 22, 8, "#ffffff", colour, rx=1)
            svg.text(seat_x + seat_w + 14, ty + 11, f"{ohms(sw.button_series_ohms)} + {sw.button_capacitor_nf} nF to GND", 8, fill=colour)
    svg.text(seat_x + seat_w + 14, 30, f"seat cables ({len(sw.order)} conductors each, at most {sw.max_length_cm} cm)", 11, weight="bold")

    # Right: display, buzzer, LED, power.
    rx0 = px + pw + 200
    parts_right = [
        (pm.display_kind + f" {pm.display_width}x{pm.display_height} I2C @ {pm.display_address:#04x}",
         ["VCC", "GND", "SCL", "SDA"] + (["RES"] if pm.display_reset >= 0 else [])),
        ("passive piezo buzzer (100 R in series)", ["+", "-"]),
        ("status LED (330 R in series)", ["anode (via 330 R)", "cathode"]),
    ]
    right_terms: dict[str, tuple[float, float]] = {}
    ry = py - 10
    for title, part_terms in parts_right:
        h = 34 + len(part_terms) * 16
        svg.rect(rx0, ry, 300, h, "#fff9db", "#f08c00")
        svg.text(rx0 + 10, ry + 18, title, 12, weight="bold")
        for k, t in enumerate(part_terms):
            ty = ry + 36 + k * 16
            svg.text(rx0 + 12, ty + 3, t, 10)
            svg.dot(rx0, ty, "#333")
            right_terms[f"{title}:{t}"] = (rx0, ty)
        ry += h + 40
    rights = [s for s in pm.signals() if s.header_pin > 20]
    for k, sig in enumerate(sorted(rights, key=lambda s: -s.header_pin)):
        title = next(t for t, _ in parts_right if t.startswith(sig.part.split(" ")[0]) or sig.part in t)
        tx, ty = right_terms[f"{title}:{sig.terminal}"]
        hx, hy = pin_xy(sig.header_pin)
        x_lane = px + pw + 60 + k * 14
        svg.line([(hx + 6, hy), (x_lane, hy), (x_lane, ty), (tx, ty)], _colour(sig.name))
        svg.text(hx + 12, hy - 4, sig.name, 9, fill=_colour(sig.name))

    # The readers' own regulator, fed from VBUS: routed above the right-hand parts.
    reg_terms = ["IN: VBUS (5 V)", "OUT: 3.3 V to every seat cable's 3V3", "GND"]
    reg_h = 34 + len(reg_terms) * 16 + 18
    svg.rect(rx0, ry, 300, reg_h, "#ffe3e3", _COLOURS["3V3"])
    svg.text(rx0 + 10, ry + 18, f"{pwr.reader_regulator}: the readers' 3.3 V", 12, weight="bold")
    for k, t in enumerate(reg_terms):
        ty = ry + 36 + k * 16
        svg.text(rx0 + 12, ty + 3, t, 10)
    svg.text(rx0 + 12, ry + 36 + len(reg_terms) * 16 + 3,
             f"{pwr.reader_regulator_ma} mA; {pwr.bulk_capacitor_uf} uF bulk at OUT (at the hub)", 10)
    in_y = ry + 36
    vx, vy = pin_xy(pwr.reader_supply_pin)
    route = [(vx + 6, vy), (vx + 20, vy), (vx + 20, py - 30), (width - 25, py - 30), (width - 25, in_y), (rx0 + 300, in_y)]
    svg.line(route, _COLOURS["3V3"])
    svg.dot(rx0 + 300, in_y, "#333")
    svg.text(vx + 24, py - 34, f"{HEADER[pwr.reader_supply_pin]} (pin {pwr.reader_supply_pin}) to the readers' regulator", 9, fill=_COLOURS["3V3"])

    # Power: drawn as labelled rails to keep the picture readable.
    legend_y = 40 + SEATS * (seat_h + 45) + 20
    svg.text(40, legend_y, "Power and ground (not drawn as lines):", 12, weight="bold")
    notes = [
        f"Readers' 3.3 V ({pwr.reader_regulator} OUT)  ->  the 3V3 conductor of every seat cable, {pwr.seat_capacitor_uf} uF across VCC-GND at each PN532",
        "3V3(OUT), header pin 36  ->  the display's VCC and four 10 k pull-ups on the CS lines (never the readers)",
        "GND, header pin 38 (or any GND)  ->  GND of every part and the regulator; the seat buttons and the LED cathode return here",
        "Seat cable, the same at every seat: " + ", ".join(f"{k + 1} {c}" for k, c in enumerate(sw.order)),
        f"At the hub: {ohms(sw.series_ohms)} in series on SCK and on MOSI of each seat; "
        f"{ohms(sw.button_series_ohms)} in series and {sw.button_capacitor_nf} nF to GND on each button line.  Power off before reseating a seat cable.",
        "Set each PN532 board's interface switches to SPI (Elechouse V3: switch 1 OFF, switch 2 ON) before wiring.",
        f"SPI{pm.spi_id} at {pm.spi_baudrate // 1000} kHz, mode 0; I2C{pm.i2c_id} at {pm.i2c_freq // 1000} kHz.  "
        f"Generated from hardware/pinmap.toml (sha256 {pm.digest}) by `make hardware`.",
    ]
    for k, note in enumerate(notes):
        svg.text(40, legend_y + 20 + k * 17, note, 11)
    legend = [("SCK", "SPI SCK"), ("MOSI", "SPI MOSI"), ("MISO", "SPI MISO"), ("CS", "chip-select"),
              ("RST", "RSTPD_N"), ("BTN", "button"), ("SDA", "I2C SDA"), ("SCL", "I2C SCL"),
              ("BUZ", "buzzer"), ("LED", "LED")]
    for k, (key, label) in enumerate(legend):
        lx = 40 + k * 115
        ly = legend_y + 20 + len(notes) * 17 + 14
        svg.line([(lx, ly), (lx + 24, ly)], _COLOURS[key], 3)
        svg.text(lx + 30, ly + 4, label, 10)

    body = "\n  ".join(svg.parts)
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" font-family="DejaVu Sans, Arial, sans-serif">\n'
        f"  <title>tractor-table wiring: {html.escape(pm.board)}, four PN532 seat readers, {html.escape(pm.display_kind)} display</title>\n"
        f'  <rect x="0" y="0" width="{width}" height="{height}" fill="#ffffff"/>\n'
        f"  {body}\n</svg>\n"
    )


# ------------------------------------------------------------------ regenerate / check


def outputs(pm: PinMap) -> dict[Path, str]:
    """Every generated file with the text it must have."""
    return {
        HWCONFIG_PATH: render_hwconfig(pm),
        WIRING_PATH: render_svg(pm),
        README_PATH: with_pin_table(README_PATH.read_text(encoding="utf-8"), pm),
    }


def stale(pm: PinMap) -> list[Path]:
    """Generated files that differ from what the pin map produces."""
    return [p for p, text in outputs(pm).items() if not p.exists() or p.read_text(encoding="utf-8") != text]


def _rel(path: Path) -> str:
    try:
        return str(path.relative_to(PINMAP_PATH.parents[1]))
    except ValueError:
        return str(path)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tractor_table.hardware", description=__doc__.split("\n")[0])
    parser.add_argument("--check", action="store_true", help="only report generated files that are out of date")
    args = parser.parse_args(argv)
    try:
        pm = load()
    except PinMapError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    out_of_date = stale(pm)
    if args.check:
        for p in out_of_date:
            print(f"out of date: {_rel(p)} (run 'make hardware')", file=sys.stderr)
        return 1 if out_of_date else 0
    for path, text in outputs(pm).items():
        if path in out_of_date:
            path.write_text(text, encoding="utf-8")
            print(f"wrote {_rel(path)}")
    if not out_of_date:
        print("hwconfig.py, wiring.svg and the README pin table are up to date")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
