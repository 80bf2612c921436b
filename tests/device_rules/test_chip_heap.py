"""bench/chip_heap.py: the REPL script that measures the firmware's modules in
the heap of an emulated RP2040 (the board itself, tools/rp2emu, is built by
hand). What it must hold without the board: the files each import reads,
found on the unix port; each written before its import and removed after;
lines the runner accepts."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT / "bench") not in sys.path:
    sys.path.insert(0, str(ROOT / "bench"))

import chip_emu  # noqa: E402
import chip_heap  # noqa: E402
from tractor_table.paths import FIRMWARE_DIR  # noqa: E402
from tractor_table.sim.virtual.runner import compile_for_host  # noqa: E402

NAMES = ("events", "table", "drules")


@pytest.fixture(scope="module")
def need_and_lines(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, list[str]], list[str]]:
    fw = tmp_path_factory.mktemp("host")
    compile_for_host(fw)
    need = chip_heap.files_read(fw, NAMES)
    mods = sorted({m for v in need.values() for m in v})
    mpys = {p.stem: p for p in chip_emu.compile_mpy([FIRMWARE_DIR / (m + ".py") for m in mods], tmp_path_factory.mktemp("arm"))}
    return need, chip_heap.script(NAMES, need, mpys).splitlines()


def test_each_import_reads_its_own_files_once(need_and_lines: tuple[dict[str, list[str]], list[str]]) -> None:
    need, _ = need_and_lines
    # events first: table's import does not read it again; table reads its
    # parts (tablebase, tabletrick, ...) and drules its own (drules_base, ...)
    assert need["events"] == ["events"]
    assert "table" in need["table"] and "tablebase" in need["table"] and "events" not in need["table"]
    assert "drules" in need["drules"] and "drules_base" in need["drules"]
    every = [m for v in need.values() for m in v]
    assert len(every) == len(set(every))


def test_files_are_written_before_their_import_and_removed_after(need_and_lines: tuple[dict[str, list[str]], list[str]]) -> None:
    need, lines = need_and_lines
    at = {line: i for i, line in enumerate(lines)}
    for n in NAMES:
        imp = next(i for i, line in enumerate(lines) if f"__import__({n!r})" in line)
        for m in need[n]:
            assert at[f"f=open('/ram/{m}.mpy','wb')"] < imp < at[f"os.remove('/ram/{m}.mpy')"]
    assert lines[-1].startswith("micropython.qstr_info()")
    assert max(len(line.encode()) for line in lines) <= 510  # tools/rp2emu/run.mjs's limit


def test_an_unknown_module_is_refused_before_any_board_is_started(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    (tmp_path / "firmware.uf2").write_bytes(b"")
    (tmp_path / "node_modules" / "rp2040js").mkdir(parents=True)
    assert chip_heap.main(["--build", str(tmp_path), "--modules", "table,no_such_module"]) == 2
    assert "no module no_such_module" in capsys.readouterr().err


def test_the_objects_are_measured_on_the_unix_port_by_part(tmp_path: Path) -> None:
    (tmp_path / "two").mkdir()
    (tmp_path / "four").mkdir()
    two = chip_heap.unix_objects(2, tmp_path / "two")
    four = chip_heap.unix_objects(4, tmp_path / "four")
    assert set(four) == {"drivers", "cardmap", "scanner", "rules", "engine"}
    assert all(v > 0 for v in four.values())
    # a card map holds a record a card: four decks' is about twice two decks'
    assert 1.6 < four["cardmap"] / two["cardmap"] < 2.4
    # four decks' engine holds the ladders' buffers, two decks' does not
    assert four["engine"] > two["engine"]
