"""The pin map: checked against the Pico's real pinout, and every check has a failing case."""

from __future__ import annotations

import copy
import tomllib
from pathlib import Path
from typing import Any

import pytest
from tractor_table.hardware import checks as hw_checks
from tractor_table.hardware import hwconfig as hw_hwconfig
from tractor_table.hardware import pico as hw_pico
from tractor_table.hardware import pinmap as hw_pinmap
from tractor_table.hardware import svg as hw_svg
from tractor_table.hardware.pinmap import PinMapError

# The Raspberry Pi Pico pinout (Pico-R3-A4-Pinout.pdf, Raspberry Pi), written out
# by hand and independently of tractor_table.hardware's formulas: header pin -> GPIO, and
# the SPI/I2C function of every GPIO on the header.
PICO_PINOUT = {
    1: 0, 2: 1, 4: 2, 5: 3, 6: 4, 7: 5, 9: 6, 10: 7, 11: 8, 12: 9, 14: 10, 15: 11,
    16: 12, 17: 13, 19: 14, 20: 15, 21: 16, 22: 17, 24: 18, 25: 19, 26: 20, 27: 21,
    29: 22, 31: 26, 32: 27, 34: 28,
}
SPI_FUNCTIONS = {
    (0, "miso"): {0, 4, 16, 20}, (0, "csn"): {1, 5, 17, 21}, (0, "sck"): {2, 6, 18, 22},
    (0, "mosi"): {3, 7, 19}, (1, "miso"): {8, 12, 28}, (1, "csn"): {9, 13},
    (1, "sck"): {10, 14, 26}, (1, "mosi"): {11, 15, 27},
}
I2C_FUNCTIONS = {
    (0, "sda"): {0, 4, 8, 12, 16, 20, 28}, (0, "scl"): {1, 5, 9, 13, 17, 21},
    (1, "sda"): {2, 6, 10, 14, 18, 22, 26}, (1, "scl"): {3, 7, 11, 15, 19, 27},
}


def raw_pinmap() -> dict[str, Any]:
    return tomllib.loads(hw_pinmap.PINMAP_PATH.read_text(encoding="utf-8"))


def problems_of(raw: dict[str, Any]) -> str:
    with pytest.raises(PinMapError) as exc:
        hw_pinmap.parse(raw)
    return str(exc.value)


# ---------------------------------------------------------------- the tables themselves


def test_header_table_matches_the_pico_pinout() -> None:
    assert hw_pico.GPIO_HEADER_PIN == {g: p for p, g in PICO_PINOUT.items()}
    assert sorted(hw_pico.HEADER) == list(range(1, 41))
    assert [p for p, n in hw_pico.HEADER.items() if n == "GND"] == [3, 8, 13, 18, 23, 28, 38]
    assert hw_pico.HEADER[36] == "3V3(OUT)" and hw_pico.HEADER[40] == "VBUS"
    assert set(hw_pico.RESERVED_GPIO) == {23, 24, 25, 29}
    assert not set(hw_pico.RESERVED_GPIO) & set(hw_pico.GPIO_HEADER_PIN)


def test_function_formulas_match_the_pinout_for_every_header_gpio() -> None:
    for gpio in PICO_PINOUT.values():
        spi = [k for k, pins in SPI_FUNCTIONS.items() if gpio in pins]
        i2c = [k for k, pins in I2C_FUNCTIONS.items() if gpio in pins]
        assert [hw_pico.spi_function(gpio)] == spi, gpio
        assert [hw_pico.i2c_function(gpio)] == i2c, gpio


# ---------------------------------------------------------------- the real pin map


def test_the_pin_map_is_valid() -> None:
    pm = hw_pinmap.load()
    signals = pm.signals()
    gpios = [s.gpio for s in signals]
    assert len(gpios) == len(set(gpios)) == 3 + 4 * 2 + 4 + 2 + 2
    assert all(g in hw_pico.GPIO_HEADER_PIN for g in gpios)
    assert not set(gpios) & {23, 24, 25, 29}
    assert pm.spi_sck in SPI_FUNCTIONS[(pm.spi_id, "sck")]
    assert pm.spi_mosi in SPI_FUNCTIONS[(pm.spi_id, "mosi")]
    assert pm.spi_miso in SPI_FUNCTIONS[(pm.spi_id, "miso")]
    assert pm.i2c_sda in I2C_FUNCTIONS[(pm.i2c_id, "sda")]
    assert pm.i2c_scl in I2C_FUNCTIONS[(pm.i2c_id, "scl")]
    assert [r.seat for r in pm.readers] == [0, 1, 2, 3]
    assert len(pm.buttons) == 4
    assert pm.spi_baudrate <= 5_000_000
    assert (pm.display_width, pm.display_height, pm.display_address) == (128, 64, 0x3C)


def test_every_seat_wire_is_on_the_left_header() -> None:
    # the README promises one 8-wire cable per seat from header pins 1-20
    pm = hw_pinmap.load()
    for sig in pm.signals():
        if "seat" in sig.name or sig.name.startswith("SPI"):
            assert sig.header_pin <= 20, sig


# ---------------------------------------------------------------- each check can fail


def test_a_pin_used_twice_is_an_error() -> None:
    raw = raw_pinmap()
    raw["button"][2]["pin"] = raw["reader"][1]["rstpd_n"]
    msg = problems_of(raw)
    assert f"GP{raw['reader'][1]['rstpd_n']} is used twice: RSTPD_N seat 1 and button seat 2" in msg


@pytest.mark.parametrize("gpio", [23, 24, 25, 29])
def test_reserved_pins_are_refused(gpio: int) -> None:
    raw = raw_pinmap()
    raw["led"]["pin"] = gpio
    msg = problems_of(raw)
    assert f"status LED: GP{gpio}" in msg and "not on the header" in msg


def test_a_gpio_that_does_not_exist_is_refused() -> None:
    raw = raw_pinmap()
    raw["buzzer"]["pin"] = 30
    assert "buzzer (PWM): GP30 is not a GPIO on the Pico's header" in problems_of(raw)


def test_spi_pins_must_carry_their_role() -> None:
    raw = raw_pinmap()
    raw["spi"]["sck"], raw["spi"]["mosi"] = raw["spi"]["mosi"], raw["spi"]["sck"]
    msg = problems_of(raw)
    assert "spi.sck: GP7 is SPI0 MOSI, not SPI0 SCK; SPI0 SCK can be GP2, GP6, GP18, GP22" in msg
    assert "spi.mosi: GP6 is SPI0 SCK, not SPI0 MOSI" in msg


def test_spi_pins_must_belong_to_the_chosen_instance() -> None:
    raw = raw_pinmap()
    raw["spi"]["miso"] = 12  # SPI1 RX
    raw["reader"][0]["cs"] = 4  # keep pins distinct
    assert "spi.miso: GP12 is SPI1 MISO, not SPI0 MISO" in problems_of(raw)


def test_i2c_pins_must_carry_their_role() -> None:
    raw = raw_pinmap()
    raw["i2c"]["sda"], raw["i2c"]["scl"] = raw["i2c"]["scl"], raw["i2c"]["sda"]
    msg = problems_of(raw)
    assert "i2c.sda: GP17 is I2C0 SCL, not I2C0 SDA" in msg
    assert "i2c.scl: GP16 is I2C0 SDA, not I2C0 SCL" in msg


def test_i2c_instance_must_match() -> None:
    raw = raw_pinmap()
    raw["i2c"]["id"] = 1
    assert "i2c.sda: GP16 is I2C0 SDA, not I2C1 SDA; I2C1 SDA can be GP2, GP6" in problems_of(raw)


def test_every_seat_needs_a_reader_and_a_button() -> None:
    raw = raw_pinmap()
    del raw["reader"][3]
    raw["button"][1]["seat"] = 0
    msg = problems_of(raw)
    assert "reader: need exactly one [[reader]] for each seat 0-3, got seats [0, 1, 2]" in msg
    assert "button: seat 0 has two buttons" in msg


def test_pn532_limits_are_enforced() -> None:
    raw = raw_pinmap()
    raw["spi"]["baudrate"] = 8_000_000
    raw["spi"]["phase"] = 1
    msg = problems_of(raw)
    assert "the PN532 takes at most 5 MHz" in msg
    assert "SPI mode 0 only" in msg


def test_missing_and_mistyped_keys_are_named() -> None:
    raw = raw_pinmap()
    del raw["i2c"]["scl"]
    raw["led"]["pin"] = "GP19"
    msg = problems_of(raw)
    assert "i2c.scl: missing" in msg
    assert "led.pin: must be an integer, not 'GP19'" in msg


def test_bad_toml_is_an_error_naming_the_file(tmp_path: Path) -> None:
    bad = tmp_path / "pinmap.toml"
    bad.write_text("[spi\nid = 0\n")
    with pytest.raises(PinMapError, match="pinmap.toml: not valid TOML"):
        hw_pinmap.load(bad)


def test_the_good_map_has_no_problems_after_a_round_trip() -> None:
    raw = raw_pinmap()
    pm = hw_pinmap.parse(copy.deepcopy(raw))
    assert hw_checks.check(pm) == []


# ---------------------------------------------------------------- power and seat wiring


def test_the_build_parts_of_the_pin_map() -> None:
    pm = hw_pinmap.load()
    assert hw_pico.HEADER[pm.power.reader_supply_pin] == "VBUS"
    assert pm.power.reader_regulator_ma >= 500
    assert 33 <= pm.seat_wiring.series_ohms <= 100
    order = pm.seat_wiring.order
    k = order.index("SCK")
    assert order[k - 1] == order[k + 1] == "GND"
    assert sorted(c for c in order if c != "GND") == sorted(hw_checks.CABLE_SIGNALS)


def test_a_weak_reader_regulator_is_refused() -> None:
    raw = raw_pinmap()
    raw["power"]["reader_regulator_ma"] = 300
    assert "power.reader_regulator_ma: 300 mA; the readers' regulator must give at least 500 mA" in problems_of(raw)


def test_the_readers_regulator_must_be_fed_from_vbus() -> None:
    raw = raw_pinmap()
    raw["power"]["reader_supply_pin"] = 36
    assert "power.reader_supply_pin: header pin 36 is 3V3(OUT); feed the readers' regulator from VBUS (pin 40)" in problems_of(raw)


@pytest.mark.parametrize("uf", [0, 10, 1000])
def test_the_bulk_capacitor_must_be_about_100uf(uf: int) -> None:
    raw = raw_pinmap()
    raw["power"]["bulk_capacitor_uf"] = uf
    assert f"power.bulk_capacitor_uf: {uf} uF; use about 100 uF" in problems_of(raw)


@pytest.mark.parametrize("ohms", [0, 22, 150])
def test_series_resistors_must_be_33_to_100_ohm(ohms: int) -> None:
    raw = raw_pinmap()
    raw["seat_cable"]["series_ohms"] = ohms
    assert f"seat_cable.series_ohms: {ohms} ohm; the SCK and MOSI series resistors must be 33-100 ohm" in problems_of(raw)


def test_sck_needs_a_ground_on_either_side() -> None:
    raw = raw_pinmap()
    order = raw["seat_cable"]["order"]
    k = order.index("SCK")
    order[k + 1], order[k + 2] = order[k + 2], order[k + 1]  # MOSI next to SCK
    assert "seat_cable.order: SCK needs a GND conductor on either side" in problems_of(raw)
    raw["seat_cable"]["order"] = ["SCK", "GND"] + [c for c in order if c != "SCK"]
    assert "seat_cable.order: SCK needs a GND conductor on either side" in problems_of(raw)


def test_every_seat_signal_is_in_the_cable_once() -> None:
    raw = raw_pinmap()
    order = raw["seat_cable"]["order"]
    order.remove("RSTPDN")
    order.append("MISO")
    order.append("IRQ")
    msg = problems_of(raw)
    assert "seat_cable.order: RSTPDN must be on exactly one conductor, found 0" in msg
    assert "seat_cable.order: MISO must be on exactly one conductor, found 2" in msg
    assert "seat_cable.order: unknown conductor(s) IRQ" in msg


def test_button_filter_values_are_checked() -> None:
    raw = raw_pinmap()
    raw["button_filter"]["series_ohms"] = 0
    raw["button_filter"]["capacitor_nf"] = 1000
    msg = problems_of(raw)
    assert "button_filter.series_ohms: 0 ohm; use about 1 kohm" in msg
    assert "button_filter.capacitor_nf: 1000 nF; use about 100 nF" in msg


def test_missing_build_sections_are_named() -> None:
    raw = raw_pinmap()
    del raw["power"]
    del raw["seat_cable"]["order"]
    msg = problems_of(raw)
    assert "power.reader_regulator: missing" in msg and "power.reader_regulator_ma: missing" in msg
    assert "seat_cable.order: missing" in msg


def test_ohms_labels() -> None:
    assert [hw_svg.ohms(v) for v in (47, 100, 330, 1000, 4700, 10000)] == ["47 R", "100 R", "330 R", "1 k", "4.7 k", "10 k"]


# ---------------------------------------------------------------- the display panel


def test_the_display_kind_picks_a_driver_the_firmware_has() -> None:
    raw = raw_pinmap()
    assert hw_pinmap.parse(raw).display_kind == "SSD1306" and hw_pinmap.parse(raw).display_reset == -1
    raw["display"]["kind"] = "SH1106"
    msg = problems_of(raw)
    assert "display.kind: 'SH1106' has no driver" in msg and "'SSD1306', 'SSD1309'" in msg


def test_an_ssd1309_with_its_reset_line() -> None:
    raw = raw_pinmap()
    raw["display"]["kind"] = "SSD1309"
    raw["display"]["reset"] = 20
    pm = hw_pinmap.parse(raw)
    assert (pm.display_kind, pm.display_reset) == ("SSD1309", 20)
    assert any(s.gpio == 20 and s.terminal == "RES" and s.part == "SSD1309" for s in pm.signals())
    # the firmware's configuration names the panel and its reset line
    src = hw_hwconfig.render_hwconfig(pm)
    assert 'DISPLAY_KIND = "SSD1309"' in src and "DISPLAY_RESET = const(20)" in src
    assert "firmware/ssd1309.py" in src
    # the wiring diagram draws the RES line
    assert ">RES<" in hw_svg.render_svg(pm) and "display reset" in hw_svg.render_svg(pm)
    # an RC power-on reset on the module: no pin
    del raw["display"]["reset"]
    assert hw_pinmap.parse(raw).display_reset == -1
    assert "DISPLAY_RESET = const(-1)" in hw_hwconfig.render_hwconfig(hw_pinmap.parse(raw))


def test_the_display_reset_pin_is_checked_as_every_pin() -> None:
    raw = raw_pinmap()
    raw["display"]["kind"] = "SSD1309"
    raw["display"]["reset"] = 19  # the LED's
    assert "GP19 is used twice: display reset and status LED" in problems_of(raw)
    raw["display"]["reset"] = 24
    assert "display reset: GP24" in problems_of(raw)
    raw["display"]["reset"] = "GP20"
    assert "display.reset: must be an integer" in problems_of(raw)
    # an SSD1306 module resets itself: a reset pin is a mistake in the map
    raw["display"]["kind"] = "SSD1306"
    raw["display"]["reset"] = 20
    assert "an SSD1306 module resets itself" in problems_of(raw)
