"""The board's control protocol (docs/firmware.md, "The control protocol") on
the fast board, the real firmware running: a line that is not the grammar's,
or that the mode does not have, is answered with a line naming it and
skipped; the table goes on taking what follows, and "P n" is still answered
after them. CPython test driving MicroPython."""

from __future__ import annotations

from pathlib import Path

from vtable_rig import table_in


def test_bad_control_lines_are_named_and_skipped(compiled: Path) -> None:
    with table_in(compiled, "control", readers="direct") as vt:
        for line in (b"T 7 3\n", b"T 0 x\n", b"Z 1\n", b"H\n", b"U 0 04a1b2c3d4e5f6\n", b"B 1\n", b"K 1 2 3\n"):
            vt._send(line)
        assert vt.settle(20), vt.firmware_errors()
        said = list(vt.board_says)
        assert len(said) == 7, said
        for got, line in zip(said, ("T 7 3", "T 0 x", "Z 1", "H", "U 0 04a1b2c3d4e5f6", "B 1", "K 1 2 3"), strict=True):
            assert got.startswith("control: ") and got.endswith(": " + line), (got, line)
        assert "not on this board" in said[3] and "no readers" in said[4] and "no readers" in said[6]
        # what follows is taken as before: a 2S tapped at seat 1 in the draw
        # sounds (every tap the table takes does) and shows on its seat's line
        sounds, seat1 = len(vt.sounds), vt.lines[4]
        vt.tap(1, 0)
        assert vt.settle(20), vt.firmware_errors()
        assert len(vt.sounds) == sounds + 1 and vt.lines[4] != seat1, vt.lines
        assert vt.alive() and len(vt.board_says) == 7
