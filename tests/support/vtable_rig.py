"""The virtual table as the end-to-end tests set it up (CPython only).

The firmware is compiled once per test process (the `firmware_build` fixture
in tests/conftest.py, as `make firmware` does but for this CPU) and copied for
each test module (the `compiled` fixture); each table then runs in a work
folder of its own under the module's copy, with the compiled firmware linked
in, so that several tables (or one restarted on its kept flash) share one
compile."""

from __future__ import annotations

import os
import shutil
import sys
import time
from pathlib import Path

from tractor_table.sim.virtual.runner import VirtualTable, compile_for_host
from tractor_table.vocab.snapshot import saved_snapshot


def board_saved_tricks(image: Path, scratch: Path) -> int:
    """How many tricks the snapshot on a board model's flash holds (-1: none
    whole): save/table.json (firmware/persist.py, picoboard.STORE_PATH; read by
    vocab.snapshot.saved_snapshot, index 17 the tricks) read from a copy of the
    image in ``scratch``, so that the board's own flash is never touched."""
    from tractor_table.errors import CommandError
    from tractor_table.sim.board import flashimage

    copy = scratch / "saved-tricks-copy.img"
    shutil.copyfile(image, copy)
    try:
        return len(saved_snapshot(flashimage.read(copy, "save/table.json").decode())[17])
    except (CommandError, ValueError, IndexError, TypeError, UnicodeDecodeError):
        return -1


def wait_board_saved(image: Path, scratch: Path, tricks: int, timeout: float = 30.0) -> None:
    """Wait (bounded) until the board's flash holds the snapshot after ``tricks`` tricks."""
    deadline = time.monotonic() + timeout
    while board_saved_tricks(image, scratch) != tricks:
        assert time.monotonic() < deadline, f"the save after trick {tricks} never reached the flash"
        time.sleep(0.1)


def compile_firmware(out: Path) -> Path:
    """Compile the firmware into ``out/firmware``; ``out`` is the base the tables use."""
    compile_for_host(out / "firmware")
    return out


def table_in(
    base: Path, name: str, decks: int = 1, *, keep: bool = False, readers: str = "spi"
) -> VirtualTable:
    """A virtual table (not started) in ``base/name``; the same name again is the
    same table's folder (its flash, with ``keep``)."""
    work = base / name
    work.mkdir(exist_ok=True)
    fw = work / "firmware"
    if not fw.exists():
        fw.symlink_to(base / "firmware")
    return VirtualTable(decks, workdir=work, keep_state=keep, readers=readers)


def let_go(vt: VirtualTable) -> str:
    """The table's port, freed by the virtual table's own host link (as an
    operator closes the console before running another command on the port)."""
    assert vt.link is not None
    port = os.ttyname(vt._slave)
    vt.link.close()
    vt.link = None
    return port


def cli_command(*args: str) -> list[str]:
    """``tractor-table ARGS`` as a subprocess command, with this interpreter."""
    return [sys.executable, "-m", "tractor_table.cli", *args]


def board_workdir(compiled: Path, name: str) -> Path:
    """A board-model test's work folder under the module's copy of the compiled
    firmware (tests/conftest.py's ``compiled``), its firmware linked in."""
    work = compiled / name
    work.mkdir(exist_ok=True)
    if not (work / "firmware").exists():
        (work / "firmware").symlink_to(compiled / "firmware")
    return work
