"""bench/chip_emu.py: the REPL script a fresh emulated board is typed (the board
itself, tools/rp2emu, is built by hand: docs/performance.md, "Device rules on
the emulated RP2040"). What it must hold without the board: lines the runner
accepts, code that compiles once its pieces are joined, the case as sent."""

from __future__ import annotations

import ast
import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT / "bench") not in sys.path:
    sys.path.insert(0, str(ROOT / "bench"))

import chip_emu  # noqa: E402

#: tools/rp2emu/run.mjs refuses a longer line (rp2040js's CDC queue is 512 bytes)
RUNNER_MAX = 510


def _pieces(lines: list[str]) -> list[str]:
    """The sources typed with ``typed()``: each ``s=''``, ``s+=...`` run up to ``exec(s)``."""
    out, cur = [], None
    for line in lines:
        if line == "s=''":
            cur = ""
        elif cur is not None and line.startswith("s+="):
            cur += ast.literal_eval(line[3:])
        elif line == "exec(s)":
            assert cur is not None
            out.append(cur)
            cur = None
    return out


@pytest.fixture(scope="module")
def case_and_lines(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict, list[str], list[Path]]:
    pool = {c["id"]: c for p in chip_emu.CORPORA for c in chip_emu.adversarial.read_cases(p) if "id" in c}
    case = pool["adv-66"]
    out = tmp_path_factory.mktemp("mpy")
    src = [chip_emu.FIRMWARE_DIR / "drules.py", chip_emu.FIRMWARE_DIR / "drules_base.py"]
    mpys = chip_emu.compile_mpy(src, out)
    return case, chip_emu.script(mpys, case, 3).splitlines(), mpys


def test_every_line_fits_the_runner(case_and_lines: tuple[dict, list[str], list[Path]]) -> None:
    _, lines, _ = case_and_lines
    assert max(len(line.encode()) for line in lines) <= RUNNER_MAX
    assert all(line.strip() for line in lines)  # the runner types non-empty lines only


def test_the_typed_code_compiles_and_the_case_is_sent_whole(case_and_lines: tuple[dict, list[str], list[Path]]) -> None:
    case, lines, _ = case_and_lines
    pieces = _pieces(lines)
    assert len(pieces) == 2  # the RAM disk, then the case
    for src in pieces:
        compile(src, "<typed>", "exec")
    sent = json.loads(ast.literal_eval(pieces[1][len("c=json.loads(") : -1]))
    assert sent == {k: v for k, v in case.items() if k not in chip_emu.adversarial._NOT_FOR_DEVICE}
    assert "expect" not in sent


def test_each_file_is_written_whole(case_and_lines: tuple[dict, list[str], list[Path]]) -> None:
    import base64

    _, lines, mpys = case_and_lines
    for m in mpys:
        start = lines.index(f"f=open('/ram/{m.name}','wb')")
        end = lines.index("f.close()", start)
        data = b"".join(base64.b64decode(ast.literal_eval(line[2:-1])) for line in lines[start + 1 : end])
        assert data == m.read_bytes()


def test_no_board_is_one_clear_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert chip_emu.main(["--build", str(tmp_path / "none"), "--cases", "adv-66"]) == 2
    err = capsys.readouterr().err
    assert "tools/rp2emu/build.sh" in err and "none" in err


def test_an_unknown_case_is_named(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "node_modules" / "rp2040js").mkdir(parents=True)
    (tmp_path / "firmware.uf2").write_bytes(b"")
    assert chip_emu.main(["--build", str(tmp_path), "--cases", "adv-66,no-such-case"]) == 2
    assert "no-such-case" in capsys.readouterr().err
