"""The virtual table runs the firmware on the RP2040's C stack (issue 21;
docs/firmware.md, "The C stack"): a rules check too deep for the chip fails
in the table's running main loop as it fails on the chip (the main loop's
error path, firmware/main.py App.step_safe: the traceback on the USB serial,
"err: RuntimeErro" on the display, the App going on), and the same check
answers when the board's stack is made large. The deep check is a test-only
variant of the device engine's end of the draw (tests/support/deep_check.py)."""

from __future__ import annotations

from pathlib import Path

from deep_check import ERR_LINE, ErrSeen, deep_table_dir, full_engine_redeals, too_deep_lines
from shengji import Rules
from tractor_table import events as E
from tractor_table.events import EV
from tractor_table.sim.virtual.runner import VirtualTable


class DeepVirtualTable(ErrSeen, VirtualTable):
    pass


def test_a_check_too_deep_for_the_chip_fails_in_the_virtual_tables_main_loop(compiled: Path) -> None:
    rules = Rules(decks=1)
    work = deep_table_dir(compiled, "deep-chip", "sim", large_stack=False)
    with DeepVirtualTable(1, workdir=work, rules=rules) as vt:
        start = vt.next_event(20)
        assert isinstance(start, E.HandStart) and start.first_hand
        draw = vt.lines[2]
        assert draw.startswith("draw")
        for k in (1, 2):
            vt.err_seen = False
            vt.press(0, EV.BTN_OK)  # the draw is over, nobody bid: the engine's end of the draw
            # the traceback on the USB serial (the host link's device lines), the display's error
            assert vt.wait(lambda k=k: too_deep_lines(vt.notes) == k and (vt.err_seen or vt.lines[-1] == ERR_LINE), 20), (
                vt.lines,
                vt.firmware_errors(),
            )
            # the App goes on, the table as it was: still the draw, no event; the
            # same press fails the same way again
            assert vt.settle(20)
            assert vt.alive() and vt.lines[2] == draw
            assert vt.events.empty()
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
