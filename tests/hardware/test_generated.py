"""What is generated from the pin map: firmware/hwconfig.py, wiring.svg, the README pin table."""

from __future__ import annotations

import re
import shutil
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path
from types import ModuleType

import pytest
from tractor_table import mpy
from tractor_table.hardware import generate as hw_generate
from tractor_table.hardware import hwconfig as hw_hwconfig
from tractor_table.hardware import pinmap as hw_pinmap
from tractor_table.hardware import readme as hw_readme
from tractor_table.hardware import svg as hw_svg

SVG_NS = "{http://www.w3.org/2000/svg}"


def load_hwconfig(text: str) -> ModuleType:
    module = ModuleType("hwconfig")
    exec(compile(text, "hwconfig.py", "exec"), module.__dict__)
    return module


def test_checked_in_files_are_what_the_pin_map_generates() -> None:
    pm = hw_pinmap.load()
    assert hw_generate.stale(pm) == [], "run 'make hardware' and commit the result"


def test_hwconfig_values_are_the_pin_map() -> None:
    pm = hw_pinmap.load()
    hw = load_hwconfig(hw_hwconfig.HWCONFIG_PATH.read_text(encoding="utf-8"))
    assert (hw.SPI_ID, hw.SPI_SCK, hw.SPI_MOSI, hw.SPI_MISO) == (pm.spi_id, pm.spi_sck, pm.spi_mosi, pm.spi_miso)
    assert hw.SPI_BAUDRATE == pm.spi_baudrate
    assert hw.READER_CS == tuple(r.cs for r in pm.readers)
    assert hw.READER_RSTPD_N == tuple(r.rstpd_n for r in pm.readers)
    assert [getattr(hw, f"READER{s}_CS") for s in range(4)] == list(hw.READER_CS)
    assert hw.BUTTONS == pm.buttons
    assert (hw.I2C_ID, hw.I2C_SDA, hw.I2C_SCL, hw.DISPLAY_ADDR) == (pm.i2c_id, pm.i2c_sda, pm.i2c_scl, 0x3C)
    assert (hw.BUZZER, hw.LED, hw.SEATS) == (pm.buzzer, pm.led, 4)
    assert hw.PINMAP_DIGEST == pm.digest and len(pm.digest) == 12


def test_a_changed_pin_map_makes_hwconfig_stale(tmp_path: Path) -> None:
    text = hw_pinmap.PINMAP_PATH.read_text(encoding="utf-8")
    moved = tmp_path / "pinmap.toml"
    moved.write_text(text.replace("[led]\n# Status LED", "[led]\n# Status LED").replace("pin = 19", "pin = 20"))
    pm = hw_pinmap.load(moved)
    assert pm.led == 20
    generated = hw_hwconfig.render_hwconfig(pm)
    assert generated != hw_hwconfig.HWCONFIG_PATH.read_text(encoding="utf-8")
    assert "LED = const(20)" in generated
    assert hw_svg.render_svg(pm) != hw_svg.WIRING_PATH.read_text(encoding="utf-8")


def test_hwconfig_imports_under_micropython(tmp_path: Path) -> None:
    proc = mpy.run(
        code="import hwconfig as h\nprint(h.READER_CS, h.READER_RSTPD_N, h.BUTTONS, h.SPI_SCK, h.I2C_SDA, h.CARDS_FILE)",
        path=[hw_hwconfig.HWCONFIG_PATH.parent],
        heapsize="32K",
        timeout=30,
    )
    assert proc.returncode == 0, proc.stderr
    pm = hw_pinmap.load()
    expect = f"{tuple(r.cs for r in pm.readers)} {tuple(r.rstpd_n for r in pm.readers)} {pm.buttons} {pm.spi_sck} {pm.i2c_sda} cards.bin"
    assert proc.stdout.strip() == expect


def test_wiring_svg_is_well_formed_and_names_every_signal() -> None:
    text = hw_svg.WIRING_PATH.read_text(encoding="utf-8")
    root = ET.fromstring(text)
    assert root.tag == f"{SVG_NS}svg"
    assert root.get("viewBox") == f"0 0 {root.get('width')} {root.get('height')}"
    labels = " ".join(t.text or "" for t in root.iter(f"{SVG_NS}text"))
    pm = hw_pinmap.load()
    for sig in pm.signals():
        assert f"GP{sig.gpio}" in labels, sig
    for seat in range(4):
        assert f"Seat {seat}: PN532" in labels
    assert "SSD1306" in labels and "3V3(OUT)" in labels
    # one drawn wire per signal, plus one per seat for each of the three shared bus lines
    lines = list(root.iter(f"{SVG_NS}polyline"))
    assert len(lines) >= len(pm.signals()) + 3 * 4


@pytest.mark.skipif(shutil.which("rsvg-convert") is None, reason="rsvg-convert (librsvg2-bin) not installed")
def test_wiring_svg_renders(tmp_path: Path) -> None:
    png = tmp_path / "wiring.png"
    subprocess.run(["rsvg-convert", str(hw_svg.WIRING_PATH), "-o", str(png)], check=True, timeout=30)
    data = png.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")
    assert (width, height) == (1240, 1040)


def test_readme_pin_table_lists_every_signal_once() -> None:
    readme = hw_readme.README_PATH.read_text(encoding="utf-8")
    table = readme[readme.index(hw_readme.README_BEGIN) : readme.index(hw_readme.README_END)]
    pm = hw_pinmap.load()
    for sig in pm.signals():
        assert len(re.findall(rf"\| GP{sig.gpio} \| {sig.header_pin} \| {re.escape(sig.name)} \|", table)) == 1


def test_check_mode_reports_stale_files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    fake_hw = tmp_path / "hwconfig.py"
    fake_hw.write_text("# edited by hand\n")
    monkeypatch.setattr(hw_generate, "HWCONFIG_PATH", fake_hw)  # where main() writes it
    assert hw_generate.main(["--check"]) == 1
    assert "hwconfig.py (run 'make hardware')" in capsys.readouterr().err
    assert hw_generate.main([]) == 0
    assert fake_hw.read_text() == hw_hwconfig.render_hwconfig(hw_pinmap.load())
    assert hw_generate.main(["--check"]) == 0


def test_every_hwconfig_name_the_firmware_uses_exists() -> None:
    # main.py, selftest.py and the rest import hwconfig (usually as H): a renamed or
    # removed constant must fail here, not on the Pico
    hw = load_hwconfig(hw_hwconfig.HWCONFIG_PATH.read_text(encoding="utf-8"))
    used: set[tuple[str, str]] = set()
    for py in sorted(hw_hwconfig.HWCONFIG_PATH.parent.glob("*.py")):
        text = py.read_text(encoding="utf-8")
        for alias in re.findall(r"^\s*import hwconfig as (\w+)", text, re.M) + ["hwconfig"]:
            for name in re.findall(rf"\b{alias}\.([A-Z][A-Z0-9_]*)\b", text):
                used.add((py.name, name))
        for names in re.findall(r"^\s*from hwconfig import ([^\n]+)", text, re.M):
            used |= {(py.name, n.strip().split(" as ")[0]) for n in names.split(",")}
    assert any(f == "selftest.py" for f, _ in used) and len({n for _, n in used}) >= 15
    missing = sorted((f, n) for f, n in used if not hasattr(hw, n))
    assert missing == []


def test_wiring_svg_draws_the_power_and_seat_parts() -> None:
    root = ET.fromstring(hw_svg.WIRING_PATH.read_text(encoding="utf-8"))
    texts = [t.text or "" for t in root.iter(f"{SVG_NS}text")]
    labels = " ".join(texts)
    pm = hw_pinmap.load()
    pw, sw = pm.power, pm.seat_wiring
    # the readers' own regulator, fed from VBUS, with its bulk capacitor
    assert f"{pw.reader_regulator}: the readers' 3.3 V" in texts
    assert f"VBUS (pin {pw.reader_supply_pin}) to the readers' regulator" in texts
    assert f"{pw.reader_regulator_ma} mA; {pw.bulk_capacitor_uf} uF bulk at OUT (at the hub)" in texts
    # a series resistor on SCK and MOSI of every seat, and the RC filter on every button line
    assert texts.count(hw_svg.ohms(sw.series_ohms)) == 2 * len(pm.readers)
    assert texts.count(f"{hw_svg.ohms(sw.button_series_ohms)} + {sw.button_capacitor_nf} nF to GND") == len(pm.buttons)
    # the cable's conductor order, and the warning
    assert ", ".join(f"{k + 1} {c}" for k, c in enumerate(sw.order)) in labels
    assert "Power off before reseating a seat cable." in labels
    assert "3V3(OUT), header pin 36  ->  the display's VCC" in labels


def test_readme_pin_table_names_the_readers_supply() -> None:
    readme = hw_readme.README_PATH.read_text(encoding="utf-8")
    table = readme[readme.index(hw_readme.README_BEGIN) : readme.index(hw_readme.README_END)]
    pm = hw_pinmap.load()
    assert f"| - | {pm.power.reader_supply_pin} | VBUS | readers' regulator {pm.power.reader_regulator} " in table
    assert "| - | 36 | 3V3(OUT) | display VCC, the four CS pull-ups | VCC |" in table


def test_a_changed_series_resistor_makes_the_diagram_stale(tmp_path: Path) -> None:
    text = hw_pinmap.PINMAP_PATH.read_text(encoding="utf-8")
    assert text.count("series_ohms = 47") == 1
    moved = tmp_path / "pinmap.toml"
    moved.write_text(text.replace("series_ohms = 47", "series_ohms = 68"))
    pm = hw_pinmap.load(moved)
    svg = hw_svg.render_svg(pm)
    assert svg != hw_svg.WIRING_PATH.read_text(encoding="utf-8")
    assert svg.count(">68 R</text>") == 8
