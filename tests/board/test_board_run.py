"""The real firmware on the board model, end to end: `tractor-table virtual
--board pico` (bots, the verifier), a restart from the flash it left, and the
main loop's pace (a fix the board model showed)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from vtable_rig import board_workdir, cli_command

ROOT = Path(__file__).resolve().parents[2]


def test_bots_play_on_the_board_model_with_no_disagreement(tmp_path: Path) -> None:
    # strength 0: failed throws get challenged (a double press held as a person would)
    png = tmp_path / "display.png"
    proc = subprocess.run(
        cli_command("virtual", "--board", "pico", "--bots", "--hands", "1", "--decks", "1",
                    "--rules", "onedeck", "--seed", "2", "--strength", "0", "--no-record", "--png", str(png)),
        capture_output=True, text=True, timeout=300, check=False,
    )
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out
    assert "0 disagreement(s)" in out and "0 disagreements" in out
    assert "the board model (boot.py, main.py and picoboard.py from littlefs" in out
    assert "1 boot(s)" in out
    assert "challenged at the table" in out, out
    programs = int(out.split(" erases, ")[1].split()[0])
    assert programs > 0  # the snapshots went to littlefs on the flash model
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_png_needs_the_board_model(tmp_path: Path) -> None:
    proc = subprocess.run(
        cli_command("virtual", "--bots", "--png", str(tmp_path / "x.png"), "--no-record"),
        capture_output=True, text=True, timeout=60, check=False,
    )
    assert proc.returncode == 1
    assert "--png needs --board pico" in proc.stderr
    assert not (tmp_path / "x.png").exists()



def test_restart_from_the_flash_it_left(compiled: Path) -> None:
    from shengji import Rules
    from tractor_table.events import EV
    from tractor_table.sim.board.runner import PicoTable

    tmp_path = board_workdir(compiled, "restart")
    with PicoTable(1, workdir=tmp_path, rules=Rules(decks=1)) as vt:
        assert not vt.restored
        assert vt.wait(lambda: vt.lines[0].startswith("H1"), 20), vt.lines
        assert len(vt.pixels) == 1024
        ev = vt.next_event(20)
        assert ev.kind == EV.HAND_START
        vt.press(0, EV.BTN_OK)  # the dealer ends a draw nobody bid in: the kitty is up to the dealer
        vt.wait(lambda: vt.figures != {}, 1)
    assert vt.figures["boots"] == 1
    assert (tmp_path / "flash.img").stat().st_size == 352 * 4096
    with PicoTable(1, workdir=tmp_path, rules=Rules(decks=1), keep_state=True) as vt2:
        # littlefs mounted from the image as it was left: the saved table comes back
        assert vt2.wait(lambda: vt2.lines[0].startswith("H1"), 20), vt2.lines
    assert vt2.figures["boots"] == 1


def test_main_loop_pace_is_a_period_not_a_pause() -> None:
    sys.path.insert(0, str(ROOT / "firmware"))
    try:
        import main
    finally:
        sys.path.pop(0)

    class Board:
        def __init__(self) -> None:
            self.now = 0
            self.slept: list[int] = []
            self.turns = 0

        def ticks_ms(self) -> int:
            return self.now

        def sleep_ms(self, ms: int) -> None:
            self.slept.append(ms)
            self.now += ms

        def running(self) -> bool:
            return self.turns < 4

    class App:
        def __init__(self, step_ms: list[int]) -> None:
            self.board = Board()
            self.steps = step_ms
            self.stop_at = -1

        def step_safe(self, now: int) -> bool:
            self.board.now += self.steps[self.board.turns]
            self.board.turns += 1
            return True

        def stopped(self, now: int) -> bool:
            return False

    app = App([9, 1, 0, 12])  # a reader poll, a quick turn, an instant one, a slow one
    main.App.run(app, pace_ms=5)  # type: ignore[arg-type]
    assert app.board.slept == [0, 4, 5, 0]


def test_console_board_option() -> None:
    proc = subprocess.run(
        cli_command("console", "--port", "/nonexistent", "--board", "pico"),
        capture_output=True, text=True, timeout=60, check=False,
    )
    assert proc.returncode == 1 and "--board needs --virtual" in proc.stderr


def test_console_source_on_the_board_model(compiled: Path) -> None:
    from shengji import Rules
    from tractor_table.commands.virtual import make_table
    from tractor_table.sim.board.runner import PicoTable
    from tractor_table.sim.virtual.source import VirtualSource

    rules = Rules(decks=1)
    assert isinstance(make_table("pico", rules), PicoTable)  # what console --virtual --board pico builds
    table = PicoTable(1, rules=rules, workdir=board_workdir(compiled, "console"))
    source = VirtualSource(rules, table=table)
    source.start()
    try:
        assert source.link is not None and source.link.synced()
        assert table.wait(lambda: (source.display() or [""])[0].startswith("H1"), 20)
    finally:
        source.close()
