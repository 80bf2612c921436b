"""A rules check made deliberately too deep for the RP2040's C stack, for the
end-to-end tests of the chip's stack in the virtual table and the board model
(tests/table/test_virtual_chip_stack.py, tests/board/test_board_chip_stack.py;
issue 21: "a check that would exceed the RP2040's 8 KiB fails there as it
fails on the chip"; docs/firmware.md, "The C stack").

The table's own copy of the compiled firmware gets a variant of the device
engine's ``drules_hand`` whose ``end_of_draw`` (the check at the end of the
draw: trump, declarer, dealer, or a redeal) first recurses ``DEPTH`` Python
frames, then answers as the real one. The chip fails a plain recursion at
depth 30 from its REPL (docs/firmware.md); the main loop is already about ten
frames deep when the draw ends, so 40 more fail on the chip. The firmware
itself is not changed: the variant is the real module's source with the
wrapper appended, compiled as the table compiles the firmware. A second copy
of the board's ``chipstack`` with a large stack (the same code, only its
``STACK`` changed) shows the same variant answering: what fails is the
chip's stack, not the variant."""

from __future__ import annotations

import random
import shutil
from pathlib import Path
from typing import Any

from shengji import Rules
from shengji.hand import EndDraw, Hand
from shengji.match import Match, deal_cards
from tractor_table import events as E
from tractor_table import paths
from tractor_table.events import EV
from tractor_table.link.notes import DeviceLine
from tractor_table.sim.virtual import runner as vr

#: the wrapper's frames on top of the main loop's (the chip fails at about 30 in all)
DEPTH = 40
#: a stack far beyond the chip's (KiB): the variant's frames (about 20 KB with
#: the main loop's below them) fit in it more than twice; at most about 88 KiB
#: (chipstack.py: the unix port checks its main thread at 80,000 B)
LARGE_STACK_KIB = 64
#: what the chip's stack model says when a check goes too deep (MicroPython's message)
TOO_DEEP = "RuntimeError: maximum recursion depth exceeded"
#: the display's last line after a failed turn of the main loop: "err: " and
#: the exception's name cut to 11 characters (firmware/main.py, App.step_safe)
ERR_LINE = "err: " + "RuntimeError"[:11]

_WRAPPER = """

# --- test-only (tests/support/deep_check.py): end_of_draw, DEPTH frames deep
_real_end_of_draw = end_of_draw


def _deep(n, a):
    if n:
        return _deep(n - 1, a)
    return _real_end_of_draw(*a)


def end_of_draw(*a):
    return _deep(DEPTH, a)
"""


def variant_table_dir(compiled: Path, name: str, module: str, wraps: str, wrapper: str) -> Path:
    """A table's work folder under ``compiled`` (tests/conftest.py) with its
    own copy of the compiled firmware, ``module`` replaced by a test-only
    variant: the real module's source (which must hold ``wraps``, the start of
    the function the wrapper wraps) with ``wrapper`` appended, compiled as the
    table compiles the firmware (its source in the folder's ``src``)."""
    work = compiled / name
    shutil.rmtree(work, ignore_errors=True)
    src = work / "src"
    src.mkdir(parents=True)
    fw = work / "firmware"
    shutil.copytree(compiled / "firmware", fw)
    variant = src / f"{module}.py"
    real = (paths.FIRMWARE_DIR / f"{module}.py").read_text()
    assert wraps in real, f"firmware/{module}.py no longer has {wraps.strip()!r}: the variant's wrapper needs it"
    variant.write_text(real + wrapper)
    vr.compile_for_host(fw, variant)
    return work


def deep_table_dir(compiled: Path, name: str, board_folder: str, large_stack: bool) -> Path:
    """A table's work folder under ``compiled`` (tests/conftest.py) with its own
    copy of the compiled firmware, ``drules_hand`` replaced by the deep variant;
    with ``large_stack``, the board's ``chipstack`` compiled into
    ``board_folder`` ("sim" for the virtual table, "board" for the board model)
    with a stack of LARGE_STACK_KIB. The runner compiles a board module again
    only when its source is newer than the compiled one, so this one is kept."""
    work = variant_table_dir(compiled, name, "drules_hand", "\ndef end_of_draw(", _WRAPPER.replace("DEPTH", str(DEPTH)))
    src = work / "src"
    if large_stack:
        chip = (vr.MPY_DIR / "chipstack.py").read_text()
        assert chip.count("\nSTACK = 18 * 1024\n") == 1  # the chip's stack, as the model states it
        stack = src / "chipstack.py"
        stack.write_text(chip.replace("\nSTACK = 18 * 1024\n", f"\nSTACK = {LARGE_STACK_KIB} * 1024\n"))
        vr.compile_for_host(work / board_folder, stack)
    return work


def too_deep_lines(notes: list[object]) -> int:
    """How many of the link's device lines (the USB serial's text: the
    firmware's tracebacks) say the recursion went too deep."""
    return sum(1 for n in notes if isinstance(n, DeviceLine) and n.text == TOO_DEEP)


def full_engine_redeals(rules: Rules) -> bool:
    """What the full engine says of a match's first hand whose draw ends with
    no bid: a redeal (the answer the variant gives when its frames fit)."""
    m = Match(rules)
    hand = Hand(rules, level=m.hand_level(), dealer=m.dealer, first_hand=m.first_hand)
    hand.apply(deal_cards(rules, random.Random(1)))
    hand.apply(EndDraw())
    return bool(hand.redeal)


class ErrSeen:
    """Mixed into a table class before it (``class T(ErrSeen, VirtualTable)``):
    ``err_seen`` turns True when any frame shows ERR_LINE, so that a test
    that cleared it before a press sees the error whether or not the message
    (3 s of board time, tablebase.MESSAGE_MS) is still up when it looks. (A
    failure while the same message is up may draw no frame: the display is
    unchanged; the line shown then is the error's.)"""

    err_seen = False
    lines: list[str]

    def _out_line(self, line: str) -> None:
        super()._out_line(line)  # type: ignore[misc]
        if self.lines and self.lines[-1] == ERR_LINE:
            self.err_seen = True


def presses_fail(vt: Any, presses: int, timeout: float) -> None:
    """``presses`` presses of OK that end the first hand's draw, each failing
    in the engine's end of the draw as the chip would: the traceback on the
    USB serial, the display's error, the App going on with the table as it
    was (still the draw, no event). Any other ending fails the test, a
    process that ended with SIGSEGV at the stack's limit included (the unix
    port's artefact the model avoids: docs/firmware.md, "The C stack")."""
    start = vt.next_event(timeout)
    assert isinstance(start, E.HandStart) and start.first_hand
    draw = vt.lines[2]
    assert draw.startswith("draw")
    for k in range(1, presses + 1):
        vt.err_seen = False
        vt.press(0, EV.BTN_OK)  # the draw is over, nobody bid: the engine's end of the draw
        failed = vt.wait(lambda k=k: too_deep_lines(vt.notes) == k and (vt.err_seen or vt.lines[-1] == ERR_LINE), timeout)
        ended = None if vt.proc is None else vt.proc.poll()
        assert failed, (f"press {k}: the table's process ended with {ended} (-11: SIGSEGV)", vt.lines, vt.firmware_errors())
        assert vt.settle(timeout)
        assert vt.alive() and vt.lines[2] == draw
        assert vt.events.empty()
