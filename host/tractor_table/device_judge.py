"""``tractor-table judge --engine device``: the conformance runner answered by
the device rules engine (``firmware/drules*.py``) under MicroPython.

The cases (docs/rules.md §13; JSON lines in the format of ``tractor-table judge --help``) are passed one by one to a single
MicroPython unix-port process (``tractor_table.sim.engine.EngineProcess``, the
runner ``sim/engine/mpy/judge_mp.py``); its answers are written back in the same
order, normalised (compact JSON as the full engine's runner prints it). The
runner answers a malformed line with an error and goes on; should the
MicroPython process itself die (a crash, memory exhausted), the line gets an
error answer and a fresh process takes the next one.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any, TextIO

from shengji.conformance import read_case

from .sim.engine import EngineProcess, EngineStopped

#: what a case gets when the process stopped on it (EngineStopped.reason)
_STOPPED = {
    "stopped": "the device engine stopped on this case",
    "crashed": "the device engine crashed on this case",
    "no answer": "the device engine gave no answer",
}


def judge_process(heapsize: str = "1M") -> EngineProcess:
    """The judge's process: the "judge" runner, restarted should it die."""
    return EngineProcess("judge", heapsize=heapsize, close_timeout=5.0)


def answer(runner: EngineProcess, case: Any, case_id: Any) -> dict[str, Any]:
    """The device engine's answer to one case, or an error answer should its
    process stop on it (the next case gets a fresh process)."""
    try:
        return runner.ask(case)
    except EngineStopped as exc:
        return {"id": case_id, "error": _STOPPED[exc.reason]}


def answer_lines(lines: Iterable[str], runner: EngineProcess) -> Iterable[str]:
    """One answer line (JSON, no newline) per non-blank input line."""
    for raw in lines:
        text = raw.strip()
        if not text:
            continue
        case = read_case(text)
        if isinstance(case, str):  # not a case: its error answer
            yield case
            continue
        out = answer(runner, case, case.get("id"))
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
    runner = judge_process()
    try:
        for line in answer_lines(stdin, runner):
            stdout.write(line + "\n")
            stdout.flush()
    except BrokenPipeError:
        return 0
    finally:
        runner.close()
    return 0
