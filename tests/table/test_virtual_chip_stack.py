"""The virtual table runs the firmware on the RP2040's C stack (issue 21;
docs/firmware.md, "The C stack"): a rules check too deep for the chip fails
in the table's running main loop as it fails on the chip (the main loop's
error path, firmware/main.py App.step_safe: the traceback on the USB serial,
"err: RuntimeErro" on the display, the App going on), and the same check
answers when the board's stack is made large. The deep check is a test-only
variant of the device engine's end of the draw (tests/support/deep_check.py)."""

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
from tractor_table.sim.virtual.runner import VirtualTable


class DeepVirtualTable(ErrSeen, VirtualTable):
    pass


def test_a_check_too_deep_for_the_chip_fails_in_the_virtual_tables_main_loop(compiled: Path) -> None:
    # Once, and it must go through the whole error path: a run that ends with
    # SIGSEGV fails (it did 1 run in 4 under -n 2 before the model ran the
    # firmware on the main thread: docs/firmware.md, "The C stack").
    rules = Rules(decks=1)
    work = deep_table_dir(compiled, "deep-chip", "sim", large_stack=False)
    with DeepVirtualTable(1, workdir=work, rules=rules) as vt:
        presses_fail(vt, 2, 20)
    # the traceback goes through the variant's frames, down from the main loop
    text = [getattr(n, "text", "") for n in vt.notes]
    assert sum(1 for t in text if "in _deep" in t) >= 2
    assert any("in end_draw" in t for t in text)


def test_the_same_check_answers_on_a_large_stack(compiled: Path) -> None:
    # the same firmware and variant, only the board's stack large: the end of
    # the draw answers as the full engine says (the first hand, no bid: a redeal)
    rules = Rules(decks=1)
    work = deep_table_dir(compiled, "deep-large", "sim", large_stack=True)
    with DeepVirtualTable(1, workdir=work, rules=rules) as vt:
        start = vt.next_event(20)
        assert isinstance(start, E.HandStart) and start.first_hand
        vt.press(0, EV.BTN_OK)
        end = vt.next_event(20)
        assert isinstance(end, E.Redeal) == full_engine_redeals(rules) is True, end
        assert too_deep_lines(vt.notes) == 0
        assert ERR_LINE not in vt.lines and not vt.err_seen
