"""The pin map's model: ``hardware/pinmap.toml`` loaded and parsed into a
:class:`PinMap` (the readers' bus, the seats' wiring, the buttons, the display,
the power), with the Pico's header and the RP2040's GPIO functions it is read
against (``pico``)."""

from __future__ import annotations

import hashlib
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..paths import HARDWARE_DIR
from .checks import check
from .pico import GPIO_HEADER_PIN

PINMAP_PATH = HARDWARE_DIR / "pinmap.toml"


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


def load(path: Path = PINMAP_PATH) -> PinMap:
    data = path.read_bytes()
    try:
        raw = tomllib.loads(data.decode("utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise PinMapError(f"{path.name}: not valid TOML: {exc}") from None
    return parse(raw, digest=hashlib.sha256(data).hexdigest()[:12])
