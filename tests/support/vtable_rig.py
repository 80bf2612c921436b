"""The virtual table as the end-to-end tests set it up (CPython only).

The firmware is compiled once per test module (the `compiled` fixture in
tests/conftest.py, as `make firmware` does but for this CPU); each table then
runs in a work folder of its own under that compile, with the compiled
firmware linked in, so that several tables (or one restarted on its kept
flash) share one compile."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from tractor_table.virtual.runner import VirtualTable, compile_for_host


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
