"""A running table can be stopped for maintenance (deploy needs its REPL), over
its own link, by the real firmware under MicroPython; and a maintenance start
(seat 0's button held at power-up) keeps the table from starting."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
from tractor_table.errors import CommandError
from tractor_table.link.maintenance import stop_table
from tractor_table.paths import FIRMWARE_DIR
from vtable_rig import table_in


def test_a_running_table_stops_when_asked_over_its_link(compiled: Path) -> None:
    vt = table_in(compiled, "stop", keep=True, readers="direct").start()
    try:
        assert vt.link is not None
        port = os.ttyname(vt._slave)
        vt.link.close()  # the operator's console lets go of the port
        vt.link = None
        assert vt.alive()
        stop_table(port, timeout=10)
        assert vt.proc is not None
        assert vt.proc.wait(timeout=10) == 0  # main() returned: the REPL would be free
        assert (vt.store).exists()  # the game state stays saved for the next start
    finally:
        vt.close()


def test_a_table_that_does_not_answer_is_a_clear_error(tmp_path: Path) -> None:
    import pty

    master, slave = pty.openpty()
    try:
        with pytest.raises(CommandError, match="maintenance start"):
            stop_table(os.ttyname(slave), timeout=1.0)
    finally:
        os.close(master)
        os.close(slave)


class _Pin:
    IN = 0
    PULL_UP = 1

    def __init__(self, level: int) -> None:
        self.level = level

    def value(self) -> int:
        return self.level


def _machine(level: int) -> object:
    class Machine:
        class Pin(_Pin):
            def __init__(self, pin: int, mode: int, pull: int) -> None:
                assert (mode, pull) == (_Pin.IN, _Pin.PULL_UP)
                super().__init__(level)

    return Machine


def test_maintenance_start_reads_seat_zero_button() -> None:
    sys.path.insert(0, str(FIRMWARE_DIR))
    try:
        import hwconfig
        import picohw
    finally:
        sys.path.remove(str(FIRMWARE_DIR))
    pressed = hwconfig.BUTTON_PRESSED
    assert picohw.maintenance_start(_machine(pressed)) is True
    assert picohw.maintenance_start(_machine(1 - pressed)) is False
