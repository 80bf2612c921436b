"""Where the table asks the engine's checks on the chip's stack (issue 21,
the checks with the heap locked; docs/firmware.md, "The checks with the heap
locked"): a test-only variant of ``firmware/tablerules.py`` whose ``ask``
first prints the room left on the model's stack (``chipstack.MAIN_LIMIT``
less ``stack_use()``) each time it is the least seen, with the room the model
gives the firmware where it starts; the table's own copy of the compiled
firmware gets it, as ``deep_check.py`` gives its variant of ``drules_hand``.
The firmware itself is not changed."""

from __future__ import annotations

from pathlib import Path

from deep_check import variant_table_dir
from tractor_table.link.notes import DeviceLine

#: the least room (unix-port bytes, the chip's stack model) the table leaves
#: where it asks the engine a check (tablerules.ask entered): 6,368 B on the
#: virtual table (of 9,472 B where the firmware starts; a follow), 9,072 B on
#: the board model (of 13,568 B: 4 KiB more for its kinds.py wrappers, its
#: models' frames on the same stack), measured over bots' hands 2026-12-07,
#: rounded down. tests/table/test_virtual_chip_stack.py checks that the table
#: leaves at least this; tests/device_rules/test_chip_stack.py that every
#: check of every corpus, locked, needs no more from there.
TABLE_ROOM = 6144
#: the variant's line on the USB serial: "stack-room LEAST START"
MARK = "stack-room"

_WRAPPER = """

# --- test-only (tests/support/stack_probe.py): the room where ask is entered
import chipstack as _cs
from micropython import stack_use as _su

_real_ask = ask
_least = [1 << 30]


def ask(e, what, a, b=None, c=0, d=None):
    room = _cs.MAIN_LIMIT - _su()
    if room < _least[0]:
        _least[0] = room
        print("MARK", room, _cs.MAIN_LIMIT - _cs._target(), what)
    return _real_ask(e, what, a, b, c, d)
"""


def probe_table_dir(compiled: Path, name: str) -> Path:
    """A table's work folder under ``compiled`` with its own copy of the
    compiled firmware, ``tablerules`` replaced by the probe's variant."""
    return variant_table_dir(compiled, name, "tablerules", "\ndef ask(e, what, a, b=None, c=0, d=None):", _WRAPPER.replace("MARK", MARK))


def rooms(notes: list[object]) -> list[tuple[int, int]]:
    """The variant's (least room at ask, room at the firmware's start), in order."""
    out = []
    for n in notes:
        if isinstance(n, DeviceLine) and n.text.startswith(MARK + " "):
            _, least, start = n.text.split()[:3]
            out.append((int(least), int(start)))
    return out
