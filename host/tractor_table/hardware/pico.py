"""The Raspberry Pi Pico as the pin map is read against: its 40-pin header,
the GPIOs it keeps for itself, and the RP2040's GPIO functions (SPI, I2C,
PWM) by MicroPython's rp2 port's rules (see the package's docs)."""

from __future__ import annotations

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
