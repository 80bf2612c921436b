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


def test_the_table_leaves_the_room_the_locked_checks_are_measured_against(compiled: Path) -> None:
    # issue 21, the checks with the heap locked: where the table asks the
    # engine a check (tablerules.ask, from the running main loop), the chip's
    # stack model has at least stack_probe.TABLE_ROOM left, the room every
    # check of every corpus must fit in locked (test_chip_stack.py). Bots of
    # strength 0 throw (checked, challenged, forced), follow and end tricks
    # through two hands; the deepest place is a follow's.
    from stack_probe import TABLE_ROOM, probe_table_dir, rooms
    from tractor_table.sim.virtual.game import BotGame

    work = probe_table_dir(compiled, "stack-probe")
    with VirtualTable(2, workdir=work) as vt:
        game = BotGame(vt, Rules(decks=2), seed=5, strength=0, say=lambda _s: None)
        game.play(2)
    assert game.disagreements == []
    got = rooms(vt.notes)
    assert got, vt.firmware_errors()  # the variant ran: it printed its least room
    least = min(r for r, _ in got)
    start = got[0][1]
    assert least >= TABLE_ROOM, (least, TABLE_ROOM, got)
    assert least < start - 1024  # it measures the main loop's frames below the checks
