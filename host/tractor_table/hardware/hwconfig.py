"""Generated from the pin map: ``firmware/hwconfig.py``, the firmware's board
configuration (``const()`` values and tuples, nothing to parse on the device)."""

from __future__ import annotations

from ..paths import CARDS_FILE, CONFIG_FILE, FIRMWARE_DIR
from .pico import SEATS
from .pinmap import PinMap

HWCONFIG_PATH = FIRMWARE_DIR / "hwconfig.py"


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
