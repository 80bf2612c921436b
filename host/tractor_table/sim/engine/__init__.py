"""The device rules engine as a process: ``firmware/drules*.py`` under
MicroPython's unix port, answering cases one JSON line at a time.

One client, :class:`EngineProcess`, for every user: the device judge
(``tractor-table judge --engine device``, ``tractor_table.device_judge``), the
differential fuzzer (``difffuzz``), the adversarial search (``adversarial``),
the benches and the tests. It runs one of the runners of ``mpy/`` (the
process's side; each answers with the loop of ``mpy/serve_mp.py``):

- ``"judge"``: ``judge_mp.py``, the conformance cases (docs/rules.md §13) and
  the fuzzer's whole hands (kind ``"hand"``);
- ``"adversary"``: ``adversary_mp.py``, a follow, throw or trick check answered
  and timed (args: repeats, a cap in µs, and for the split by kind of code the
  engine's native and bytecode methods);
- ``"chipjudge"``: ``chipjudge_mp.py``, as ``"judge"`` with the RP2040's C
  stack (``sim/board/mpy/chipstack.py``; args: the stack's bytes).

The process is started at the first question, with ``firmware/`` and
``mpy/`` on its module path. Should it die (a crash, memory exhausted) or
answer what is not an answer, :meth:`EngineProcess.ask` raises
:class:`EngineStopped` with the end of its error output, and the next question
starts a fresh process (the judge answers that case with an error and goes on;
the fuzzer and the search stop with the message).
"""

from __future__ import annotations

import json
import subprocess
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import IO, Any

from ... import mpy
from ...errors import CommandError
from ...paths import FIRMWARE_DIR

#: the runners (the process's side of the protocol), beside this module
MPY_DIR = Path(__file__).resolve().parent / "mpy"
#: the chip's C stack for the "chipjudge" runner
CHIPSTACK_DIR = Path(__file__).resolve().parents[1] / "board" / "mpy"

#: runner name -> (script, its module path besides firmware/ and mpy/)
RUNNERS: dict[str, tuple[Path, tuple[Path, ...]]] = {
    "judge": (MPY_DIR / "judge_mp.py", ()),
    "adversary": (MPY_DIR / "adversary_mp.py", ()),
    "chipjudge": (MPY_DIR / "chipjudge_mp.py", (CHIPSTACK_DIR,)),
}

#: Heap of the process. The engine itself fits in far less (see
#: docs/performance.md); JSON parsing of large cases needs the room.
HEAP = "1M"


class EngineStopped(CommandError):
    """The device engine's process ended or answered what is not an answer.

    ``reason``: "stopped" (it ended: a crash, memory exhausted), "crashed" (a
    line that is not JSON: the port's own crash report), "no answer" (JSON that
    is not an object). The process is closed but for "no answer"; the next
    question starts a fresh one."""

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message)
        self.reason = reason


class EngineProcess:
    """One MicroPython process of the device engine, started when first asked
    and again after it stopped."""

    def __init__(
        self,
        runner: str = "judge",
        args: Sequence[str] = (),
        heapsize: str = HEAP,
        close_timeout: float = 30.0,
        drop: Sequence[str] = (),
    ) -> None:
        """``drop``: fields of a case that are the caller's, not sent."""
        if runner not in RUNNERS:
            raise ValueError(f"no device engine runner {runner!r}; the runners: {', '.join(RUNNERS)}")
        self.script, extra = RUNNERS[runner]
        self.path = [FIRMWARE_DIR, MPY_DIR, *extra]
        self.args = list(args)
        self.heapsize = heapsize
        self.close_timeout = close_timeout
        self.drop = frozenset(drop)
        self.proc: subprocess.Popen[bytes] | None = None
        self._stderr: IO[bytes] | None = None
        #: processes started so far (1 once asked; more after a restart)
        self.starts = 0

    def start(self) -> subprocess.Popen[bytes]:
        """The running process, started if there is none."""
        if self.proc is None or self.proc.poll() is not None:
            self.close()
            self._stderr = tempfile.TemporaryFile()
            self.proc = mpy.popen(
                self.script,
                args=self.args,
                path=self.path,
                heapsize=self.heapsize,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=self._stderr,
            )
            self.starts += 1
        return self.proc

    def ask(self, case: dict[str, Any]) -> dict[str, Any]:
        """The runner's answer to ``case`` (compact JSON on the wire)."""
        proc = self.start()
        assert proc.stdin is not None and proc.stdout is not None
        if self.drop:
            case = {k: v for k, v in case.items() if k not in self.drop}
        try:
            proc.stdin.write(json.dumps(case, separators=(",", ":")).encode() + b"\n")
            proc.stdin.flush()
            line = proc.stdout.readline()
        except OSError:  # BrokenPipeError: it ended before reading the case
            line = b""
        if not line:
            err = self.close()
            raise EngineStopped("stopped", "the MicroPython device engine stopped" + (f": {err}" if err else ""))
        try:
            out = json.loads(line)
        except ValueError:
            err = self.close()
            raise EngineStopped("crashed", f"the device engine answered {line[:300]!r} {err}".rstrip()) from None
        if not isinstance(out, dict):
            raise EngineStopped("no answer", f"the device engine answered {line[:300]!r}")
        return out

    def close(self) -> str:
        """End the process ("quit", then killed if it has not ended in
        close_timeout); the end of its error output."""
        proc, self.proc = self.proc, None
        if proc is not None and proc.poll() is None:
            try:
                assert proc.stdin is not None
                proc.stdin.write(b"quit\n")
                proc.stdin.close()
                proc.wait(timeout=self.close_timeout)
            except (OSError, subprocess.TimeoutExpired):
                proc.kill()
                proc.wait()
        if proc is not None:
            for pipe in (proc.stdin, proc.stdout):
                if pipe is not None and not pipe.closed:
                    try:
                        pipe.close()
                    except OSError:  # what was left to write to a process that ended
                        pass
        f, self._stderr = self._stderr, None
        if f is None:
            return ""
        f.seek(0)
        err = f.read().decode(errors="replace").strip()[-500:]
        f.close()
        return err

    def __enter__(self) -> EngineProcess:
        self.start()  # a missing MicroPython says so here, before any work
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
