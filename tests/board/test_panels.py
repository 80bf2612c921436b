"""The second display panel on the board model (docs/display.md, Panels):
the pin map names an SSD1309 with its RES# on GP20, ``make hardware``'s
generator writes the firmware's hwconfig.py for it, and the real firmware
boots on a board whose display is the SSD1309 model (ssd1309sim.py: no
charge pump, the reset it needs before any command). The table's frames are
read back from that model's RAM through the host's frame decoder."""

from __future__ import annotations

import tomllib
from pathlib import Path

from shengji import Rules
from tractor_table import hardware
from tractor_table.monoframe import Frame
from tractor_table.sim.board.runner import PicoTable
from tractor_table.sim.virtual.game import BotGame


def ssd1309_pinmap(reset: int | None = 20) -> hardware.PinMap:
    raw = tomllib.loads(hardware.PINMAP_PATH.read_text(encoding="utf-8"))
    raw["display"]["kind"] = "SSD1309"
    if reset is not None:
        raw["display"]["reset"] = reset
    return hardware.parse(raw)


def test_the_firmware_runs_on_an_ssd1309(tmp_path: Path) -> None:
    rules = Rules(decks=1)
    vt = PicoTable(1, workdir=tmp_path, rules=rules, pinmap=ssd1309_pinmap())
    with vt:
        # the firmware's own hwconfig names the panel: picoboard.py loaded its
        # driver and reset it through GP20 (the model ignores every byte
        # before that reset: an empty RAM would read as blank lines)
        assert 'DISPLAY_KIND = "SSD1309"' in (tmp_path / "hwconfig.py").read_text()
        assert vt.wait(lambda: vt.lines[2] == "draw: no bid", 30), vt.lines
        game = BotGame(vt, rules, seed=3, strength=1, say=lambda _s: None, event_timeout=20)
        assert game.start_hand(vt.next_event(20)) == "play"
        frames = vt.frames
        for _ in range(6):
            game.play_one()
        hand = game.hand
        assert hand is not None
        # every frame drawn on the SSD1309: the text read back from its RAM
        # is the table's state (whose turn, the cards on the table)
        assert vt.wait(lambda: vt.lines[2].startswith(f"trick2 S{hand.next_seat()}")
                       or vt.lines[2].startswith(f"trick3 S{hand.next_seat()}"), 20), vt.lines
        assert vt.frames > frames
        ram = Frame(vt.pixels)
        assert ram.text_lines(vt.font) == vt.lines and ram.lit() > 200
    # after the first, whole, frame the driver sent only the pages that changed
    assert vt.figures["frames_full"] >= 1 and vt.figures["frames_part"] > vt.figures["frames_full"]


def test_an_ssd1309_with_an_rc_reset_needs_no_pin(tmp_path: Path) -> None:
    # RES# on the module's RC network: no pin in the map, none driven; the
    # model starts reset, as the module does
    vt = PicoTable(1, workdir=tmp_path, rules=Rules(decks=1), pinmap=ssd1309_pinmap(reset=None))
    with vt:
        assert vt.wait(lambda: vt.lines[2] == "draw: no bid", 30), vt.lines
        assert Frame(vt.pixels).lit() > 100
