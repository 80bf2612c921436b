"""The names a match loads later are interned at the start (docs/firmware.md,
"Names interned at the start").

A module loaded for the first time late in a match interns its names; when
the qstr pool is full that takes a new pool in one block (1,280 entries, 14 KB
on the unix port), which a heap a match has cut up may not have: the import
fails with MemoryError and the input that loaded it is lost (CI, 2026-12-06:
find-a-friend's call tap). ``mainstart._names`` loads at the start every
module that every match of the rules loads later. Here, on the compiled
firmware (as the Pico and the virtual table run it) and the virtual table's
board: the App is made by ``main.configured_app`` from a ``table.cfg`` of the
rules, then the parts the rules' matches load and the rules engine as the
draw's end builds it: no load may intern a name."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from shengji import Rules
from tractor_table import mpy, rulescodec
from tractor_table.sim.virtual.runner import MPY_DIR, compile_for_host

_SCRIPT = """
import sys
import micropython

def count(label):
    print("Q", label)
    micropython.qstr_info()

import vboard
store = sys.argv[1]
ctl = store + ".ctl"
open(ctl, "wb").close()
board = vboard.VirtualBoard(ctl, ctl + ".out", store, int(sys.argv[2]), None)
import main as M
app = M.configured_app(board, sys.argv[3])
count("start")
for name in sys.argv[4:]:
    __import__(name)
    count(name)
app.table.rules.e()
count("engine")
"""


def _later(rules: Rules, hand_scan: bool) -> list[str]:
    """The table's parts every match of these rules loads after its start."""
    names = []
    if hand_scan:
        names.append("tablescan")
    if rules.no_bid == "kitty":
        names.append("tablereveal")
    if rules.partners == "called":
        names.append("tablecall")
    if rules.revoke == "forfeit":
        names.append("tableforfeit")
    return names


@pytest.mark.parametrize(
    ("preset", "hand_scan"),
    [("friend", False), ("tournament", False), ("tournament", True), ("xuwen", False), ("classic", False)],
)
def test_no_name_is_interned_after_the_start(compiled: Path, tmp_path: Path, preset: str, hand_scan: bool) -> None:
    rules = Rules.preset(preset)
    sim = tmp_path / "sim"
    for src in (MPY_DIR / "vboard.py", MPY_DIR / "hands.py"):
        compile_for_host(sim, src)
    flash = tmp_path / "flash"
    flash.mkdir()
    cfg = flash / "table.cfg"
    cfg.write_text(rulescodec.table_cfg(rules, hand_scan=hand_scan, writer="the test"))
    later = _later(rules, hand_scan)
    script = tmp_path / "names.py"
    script.write_text(_SCRIPT)
    proc = mpy.run(
        script,
        path=[compiled / "firmware", sim],
        heapsize="1M",
        args=[str(flash / "table.json"), str(rules.decks), str(cfg), *later],
        timeout=120,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    counts: list[tuple[str, int]] = []
    label = ""
    for line in proc.stdout.splitlines():
        if line.startswith("Q "):
            label = line[2:]
        m = re.search(r"n_qstr=(\d+)", line)
        if m and label:
            counts.append((label, int(m.group(1))))
    assert [c[0] for c in counts] == ["start", *later, "engine"], proc.stdout
    start = counts[0][1]
    assert start > 500  # the count was read
    grew = [(label, n - start) for label, n in counts[1:] if n != start]
    assert grew == [], f"names interned after the start ({preset}, hand_scan={hand_scan}): {grew}"
