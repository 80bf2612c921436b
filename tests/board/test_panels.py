"""The second display panel on the board model (docs/display.md, Panels):
the pin map names an SSD1309 with its RES# on GP20, ``make hardware``'s
generator writes the firmware's hwconfig.py for it, and the real firmware
boots on a board whose display is the SSD1309 model (ssd1309sim.py: no
charge pump, the reset it needs before any command). The table's frames are
read back from that model's RAM through the host's frame decoder."""

from __future__ import annotations

import shutil
import textwrap
import tomllib
from pathlib import Path

from board_rig import BOARD, FIRMWARE, PN532SIM, PRELUDE
from shengji import Rules
from tractor_table import mpy
from tractor_table.events import EV
from tractor_table.hardware import hwconfig as hw_hwconfig
from tractor_table.hardware import pinmap as hw_pinmap
from tractor_table.monoframe import Frame
from tractor_table.sim.board.runner import PicoTable


def ssd1309_pinmap(reset: int | None = 20) -> hw_pinmap.PinMap:
    raw = tomllib.loads(hw_pinmap.PINMAP_PATH.read_text(encoding="utf-8"))
    raw["display"]["kind"] = "SSD1309"
    if reset is not None:
        raw["display"]["reset"] = reset
    return hw_pinmap.parse(raw)


def _workdir(compiled: Path, tmp_path: Path) -> Path:
    # the module's compiled firmware, copied: this board's hwconfig replaces its own
    shutil.copytree(compiled / "firmware", tmp_path / "firmware")
    return tmp_path


def test_the_firmware_runs_on_an_ssd1309(compiled: Path, tmp_path: Path) -> None:
    vt = PicoTable(1, workdir=_workdir(compiled, tmp_path), rules=Rules(decks=1), pinmap=ssd1309_pinmap())
    with vt:
        # the firmware's own hwconfig names the panel: picoboard.py loaded its
        # driver and reset it through GP20 (the model ignores every byte
        # before that reset: an empty RAM would read as blank lines)
        assert 'DISPLAY_KIND = "SSD1309"' in (tmp_path / "hwconfig.py").read_text()
        assert vt.wait(lambda: vt.lines[2] == "draw: no bid" and vt.lines[0].startswith("H1"), 30), vt.lines
        full = Frame(vt.pixels)
        assert full.text_lines(vt.font) == vt.lines and full.lit() > 100
        # a bid at the table: S1 shows the 2 of hearts, the level card, and
        # presses OK (the person in the board model waits for the tap to be taken)
        frames = vt.frames
        vt.tap(1, 13)  # 2H
        vt.press(1, EV.BTN_OK)
        assert vt.wait(lambda: vt.lines[2] == "bid S1 2H", 30), vt.lines
        assert vt.frames > frames
        ram = Frame(vt.pixels)
        assert ram.text_lines(vt.font) == vt.lines
        # line 2 was drawn again; line 1 (dealer ? pts0) kept what the first frame drew
        assert ram.cell(2, 0) != full.cell(2, 0) and ram.cell(1, 0) == full.cell(1, 0)
    # after the first, whole, frame the driver sent only the pages that changed
    assert vt.figures["frames_full"] >= 1 and vt.figures["frames_part"] >= 2


def test_an_ssd1309_with_an_rc_reset_needs_no_pin(compiled: Path, tmp_path: Path) -> None:
    # RES# on the module's RC network: no pin in the map, none driven; the
    # model starts reset, as the module does
    vt = PicoTable(1, workdir=_workdir(compiled, tmp_path), rules=Rules(decks=1), pinmap=ssd1309_pinmap(reset=None))
    with vt:
        assert vt.wait(lambda: vt.lines[2] == "draw: no bid", 30), vt.lines
        assert Frame(vt.pixels).lit() > 100


def test_the_selftest_releases_an_ssd1309_from_reset(tmp_path: Path) -> None:
    # the Pico's pins are pulled down from power-up: an SSD1309 with RES# on
    # a pin is held in reset, and does not answer on I2C, until the pin is
    # driven high (the self-test does it before it looks for the display);
    # then picoboard.PicoBoard loads the SSD1309's driver, and only it
    (tmp_path / "hwconfig.py").write_text(hw_hwconfig.render_hwconfig(ssd1309_pinmap()), encoding="utf-8")
    code = PRELUDE + textwrap.dedent("""
    import selftest
    print("failures", selftest.main(interactive=False))
    print("kind", board.oled.__class__.__name__, "resets", board.oled.resets)
    # the Pico's board: the SSD1309's driver, set up (a reset more), and not the SSD1306's
    import sys
    import picoboard
    pb = picoboard.PicoBoard(store_path="/tmp/tt_panels_%d.json" % id(board))
    print("drivers", "ssd1306" in sys.modules, "ssd1309" in sys.modules, pb.oled is not None, board.oled.resets)
    """)
    r = mpy.run(code=code, path=[BOARD, PN532SIM, tmp_path, FIRMWARE], heapsize="512K", timeout=120)
    out = r.stdout + r.stderr
    assert r.returncode == 0, out
    assert "kind SSD1309Chip resets 1" in out and "display: answers at 0x3c" in out, out
    assert "failures 0" in out, out
    assert "drivers False True True 2" in out, out
