"""Pictures of the display: firmware/display.py draws every screen (the real
table core playing a scripted hand under MicroPython), the frames become PNG
files through the host's frame decoder (monoframe), docs/display.md shows them
all (make screens), and the console's half blocks come from the same pixels.
The second panel's pictures: each frame through its firmware driver into the
board model's panel, read back from its glass."""

from __future__ import annotations

import re
from pathlib import Path

from tractor_table import png, screens
from tractor_table.monoframe import OFF, ON, Frame

ROOT = Path(__file__).resolve().parents[2]

#: every kind of screen the docs must show (issue 16)
KINDS = ("draw", "bid", "burial", "hand scan", "play", "challenge", "kitty turned up", "hand end",
         "enrollment", "self-test")
#: each kind of error the table tells on its display
ERRORS = ("not a bid", "bid too weak", "kitty count", "out of turn", "mixed suits",
          "no cards", "unknown card", "reader fault", "seen twice", "wrong count",
          "beats nothing", "not in hand")


def test_every_screen_is_drawn_by_the_firmware_and_the_docs_show_it(tmp_path: Path) -> None:
    shots = screens.render_all()
    names = [s.name for s in shots]
    for kind in KINDS:
        assert any(kind in n for n in names), kind
    for err in ERRORS:
        (shot,) = [s for s in shots if s.name.startswith(f"error: {err}")]
        # the message line says it whole (16 characters at most), in inverse video
        assert shot.lines[7][3:].rstrip() == err, (err, shot.lines)
        band = Frame(shot.frame).lit(0, 56)
        assert band > 128 * 8 // 2, (err, band)
    (revoke,) = [s for s in shots if s.name.startswith("error: a revoke proven")]
    assert revoke.lines[2] == "revoke S2 OK=nxt" and revoke.lines[7].startswith("S2 revoke")
    for s in shots:
        # the console composes the same frame from the lines, in framebuf's own font
        assert screens.frame_of_lines(s.lines) == s.frame, s.name
        lit = Frame(s.frame).lit()
        assert 200 < lit < 128 * 64 - 200, s.name
    im = png.decode(Frame(shots[0].frame).png(scale=2))
    assert (im.width, im.height) == ((128 + 4) * 2, (64 + 4) * 2)
    assert im.pixel(4 + 1, 4 + 1) in (ON, OFF)
    lit = Frame(shots[0].frame).lit()
    assert sum(p == ON for p in im.pixels()) == 4 * lit

    # docs/display.md: generated from these very screens (make screens)
    page = (ROOT / "docs" / "display.md").read_text(encoding="utf-8")
    assert re.findall(r"^## \d+\. (.+)$", page, re.M) == names, "run 'make screens'"
    for s in shots:
        block = "\n".join("|" + line.ljust(16) + "|" for line in s.lines)
        assert block in page, f"{s.name}: docs/display.md is stale; run 'make screens'"
    pics = re.findall(r"\]\((display/[^/)]+\.png)\)", page)
    assert len(pics) == len(shots)
    for pic, s in zip(pics, shots, strict=True):
        assert (ROOT / "docs" / pic).read_bytes() == Frame(s.frame).png(), pic


def test_the_second_panel_shows_every_frame_as_drawn() -> None:
    # each frame through firmware/ssd1309.py (its reset, power-up, window and
    # the pages that changed) into the board model's SSD1309: its glass shows
    # the frame display.py drew, screen after screen
    drawn = screens.render_all()
    for kind, (on, off) in screens.PANELS.items():
        shown = screens.render_all(kind)
        assert [s.name for s in shown] == [s.name for s in drawn]
        for a, b in zip(drawn, shown, strict=True):
            assert b.frame == a.frame, (kind, a.name)
        # docs/display.md shows them from docs/display/<kind>/ (make screens)
        page = (ROOT / "docs" / "display.md").read_text(encoding="utf-8")
        pics = re.findall(rf"\]\((display/{kind.lower()}/[^)]+\.png)\)", page)
        assert len(pics) == len(shown), "run 'make screens'"
        for pic, s in zip(pics, shown, strict=True):
            assert (ROOT / "docs" / pic).read_bytes() == Frame(s.frame).png(on=on, off=off), pic


def test_half_blocks_show_two_pixel_rows_per_character() -> None:
    frame = bytearray(1024)
    frame[0] = 0b01  # (0, 0) lit
    frame[1] = 0b10  # (1, 1) lit
    frame[2] = 0b11  # (2, 0) and (2, 1)
    rows = Frame(bytes(frame)).half_blocks()
    assert len(rows) == 32 and all(len(r) == 128 for r in rows)
    assert rows[0][:4] == "▀▄█ " and rows[1] == " " * 128
