"""The board model runs the firmware on the RP2040's C stack (issue 21;
docs/firmware.md, "The C stack"): `tractor-table virtual --board pico`'s
board (boot.py and main.py from littlefs on a modelled Pico) fails a rules
check too deep for the chip in its running main loop as the chip does (the
main loop's error path, firmware/main.py App.step_safe: the traceback on the
USB serial, "err: RuntimeErro" on the display, the App going on; five
failures that are not in a row do not reset the board), and the same check
answers when the board's stack is made large. The deep check is a test-only
variant of the device engine's end of the draw (tests/support/deep_check.py),
on the board's flash as deploy would write it."""

from __future__ import annotations

from pathlib import Path

from deep_check import (
    ERR_LINE,
    ErrSeen,
    deep_table_dir,
    full_engine_redeals,
    presses_fail,
    too_deep_lines,
)
from shengji import Rules
from tractor_table import events as E
from tractor_table.events import EV
from tractor_table.sim.board import flashimage
from tractor_table.sim.board.runner import PicoTable


class DeepPicoTable(ErrSeen, PicoTable):
    pass


def test_a_check_too_deep_for_the_chip_fails_in_the_board_models_main_loop(compiled: Path) -> None:
    # Once, and it must go through the whole error path: a run that ends with
    # SIGSEGV fails (2-3 runs in 10 did before the model ran the firmware on
    # the main thread: docs/firmware.md, "The C stack").
    rules = Rules(decks=1)
    work = deep_table_dir(compiled, "deep-chip", "board", large_stack=False)
    with DeepPicoTable(1, workdir=work, rules=rules) as vt:
        presses_fail(vt, 5, 30)
    # five failures, each a turn of its own between turns that went
    # well: not five in a row, so no reset (machine.reset() on the chip)
    assert vt.resets == 0 and vt.power_ups == 1
    assert not any("failed turns in a row" in getattr(n, "text", "") for n in vt.notes)
    text = [getattr(n, "text", "") for n in vt.notes]
    assert sum(1 for t in text if "in _deep" in t) >= 5
    assert any("in end_draw" in t for t in text)
    # the variant is what the board ran: the deep drules_hand on its flash
    assert flashimage.read(vt.image, "drules_hand.mpy") == (vt.workdir / "firmware" / "drules_hand.mpy").read_bytes()


def test_the_same_check_answers_on_a_large_stack(compiled: Path) -> None:
    # the same firmware and variant on the flash, only the board's stack
    # large: the end of the draw answers as the full engine says (the first
    # hand, no bid: a redeal)
    rules = Rules(decks=1)
    work = deep_table_dir(compiled, "deep-large", "board", large_stack=True)
    with DeepPicoTable(1, workdir=work, rules=rules) as vt:
        start = vt.next_event(30)
        assert isinstance(start, E.HandStart) and start.first_hand
        vt.press(0, EV.BTN_OK)
        end = vt.next_event(30)
        assert isinstance(end, E.Redeal) == full_engine_redeals(rules) is True, end
        assert too_deep_lines(vt.notes) == 0
        assert ERR_LINE not in vt.lines and not vt.err_seen
        assert vt.resets == 0
    assert flashimage.read(vt.image, "drules_hand.mpy") == (work / "firmware" / "drules_hand.mpy").read_bytes()
