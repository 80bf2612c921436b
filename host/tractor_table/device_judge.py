"""``tractor-table judge --engine device``: the conformance runner answered by
the device rules engine (``firmware/drules*.py``) under MicroPython.

The cases (docs/rules.md §13; JSON lines in the format of ``tractor-table judge --help``) are passed one by one to a single
MicroPython unix-port process running ``device_runner/judge_mp.py`` with
``firmware/`` on its module path; its answers are written back in the same
order, normalised (compact JSON as the full engine's runner prints it). The
runner answers a malformed line with an error and goes on; should the
MicroPython process itself die (a crash, memory exhausted), the line gets an
error answer and a fresh process takes the next one.
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterable
from pathlib import Path
from typing import IO, Any, TextIO

from shengji.conformance import read_case

from . import mpy
from .paths import FIRMWARE_DIR

RUNNER = Path(__file__).resolve().parent / "device_runner" / "judge_mp.py"

#: Heap of the judging process. The engine itself fits in far less (see
#: docs/performance.md); JSON parsing of large cases needs the room.
HEAP = "1M"


class DeviceRunner:
    """One MicroPython process answering cases, restarted if it dies."""

    def __init__(self, heapsize: str = HEAP) -> None:
        self.heapsize = heapsize
        self.proc: subprocess.Popen[bytes] | None = None

    def _start(self) -> subprocess.Popen[bytes]:
        if self.proc is None or self.proc.poll() is not None:
            self.proc = mpy.popen(
                RUNNER,
                path=[FIRMWARE_DIR, RUNNER.parent],
                heapsize=self.heapsize,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
            )
        return self.proc

    def answer(self, case: Any, case_id: Any) -> dict[str, Any]:
        proc = self._start()
        stdin: IO[bytes] | None = proc.stdin
        stdout: IO[bytes] | None = proc.stdout
        assert stdin is not None and stdout is not None
        try:
            stdin.write(json.dumps(case, separators=(",", ":")).encode() + b"\n")
            stdin.flush()
            line = stdout.readline()
        except (BrokenPipeError, OSError):
            line = b""
        if not line:
            self.close()
            return {"id": case_id, "error": "the device engine stopped on this case"}
        try:
            out = json.loads(line)
        except ValueError:
            self.close()
            return {"id": case_id, "error": "the device engine crashed on this case"}
        if not isinstance(out, dict):
            return {"id": case_id, "error": "the device engine gave no answer"}
        return out

    def close(self) -> None:
        proc, self.proc = self.proc, None
        if proc is None:
            return
        if proc.poll() is None:
            try:
                assert proc.stdin is not None
                proc.stdin.write(b"quit\n")
                proc.stdin.close()
                proc.wait(timeout=5)
            except (OSError, subprocess.TimeoutExpired):
                proc.kill()
                proc.wait()


def answer_lines(lines: Iterable[str], runner: DeviceRunner) -> Iterable[str]:
    """One answer line (JSON, no newline) per non-blank input line."""
    for raw in lines:
        text = raw.strip()
        if not text:
            continue
        case = read_case(text)
        if isinstance(case, str):  # not a case: its error answer
            yield case
            continue
        out = runner.answer(case, case.get("id"))
        # MicroPython's dicts keep no order: put the fields in the conformance format's
        order = _FIELDS.get(str(case.get("kind")), ())
        rank = {k: i for i, k in enumerate(order)}
        fields = sorted((k for k in out if k != "id"), key=lambda k: (rank.get(k, len(order)), k))
        result = {"id": case.get("id"), **{k: out[k] for k in fields}}
        yield json.dumps(result, ensure_ascii=False)


#: Each kind's answer fields in the order the conformance format lists them (``commands/judge.py`` ``CASE_FORMAT``).
_FIELDS: dict[str, tuple[str, ...]] = {
    "compare": ("cmp",),
    "shape": ("suit", "shape"),
    "throw": ("ok", "play"),
    "follow": ("legal",),
    "trick": ("winner", "points"),
    "kitty": ("multiplier", "bonus"),
    "settle": ("dealer", "levels", "winner"),
    "declare": ("accepted", "trump", "declarer", "dealer"),
}


def main(stdin: TextIO, stdout: TextIO) -> int:
    """Answer every case on ``stdin`` with the device engine; 0 when all answered."""
    runner = DeviceRunner()
    try:
        for line in answer_lines(stdin, runner):
            stdout.write(line + "\n")
            stdout.flush()
    except BrokenPipeError:
        return 0
    finally:
        runner.close()
    return 0
