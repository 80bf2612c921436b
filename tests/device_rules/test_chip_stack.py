"""The device engine on the RP2040's C stack: every case of every corpus (the
adversarial regression data and the conformance cases) answered by the device
engine with the chip's stack (``sim/board/mpy/chipstack.py``, the
mechanism the virtual table and the board model run the firmware under), so
that a check that recurses deeper than the chip allows fails here as on the
chip. Before the sweep was made iterative, ``adv-21`` and ``adv-beyond-1``
failed here with "maximum recursion depth exceeded", as on the chip
(docs/firmware.md, "The C stack"). CPython test driving MicroPython."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tractor_table import mpy
from tractor_table.sim.engine import CHIPSTACK_DIR, MPY_DIR, EngineProcess

ROOT = Path(__file__).resolve().parents[2]
FIRMWARE = ROOT / "firmware"
CORPORA = [
    *sorted((ROOT / "tests" / "device_rules" / "data").glob("*.jsonl")),
    *sorted((ROOT / "tests" / "engine" / "conformance").glob("*.jsonl")),
    *sorted((ROOT / "tests" / "match" / "data").glob("*.jsonl")),
]


def chip_answers(lines: list[str], stack: int | None = None) -> list[dict[str, Any]]:
    """Each case answered by the device engine on the chip's stack (the
    "chipjudge" runner; a process that stops fails the test with its error)."""
    args = [] if stack is None else [str(stack)]
    with EngineProcess("chipjudge", args=args, heapsize="4M") as dev:
        return [dev.ask(json.loads(x)) for x in lines]


def corpus_lines() -> list[str]:
    out = []
    for f in CORPORA:
        out += [x for x in f.read_text().splitlines() if x.strip()]
    return out


def test_every_case_of_every_corpus_runs_on_the_chips_stack() -> None:
    lines = corpus_lines()
    assert len(lines) > 200
    answers = chip_answers(lines)
    assert len(answers) == len(lines)
    failed = [(a["id"], a["error"]) for a in answers if a.get("error")]
    assert failed == []  # no recursion too deep for the chip, nor any other error
    # in order, one answer a case
    assert [a.get("id") for a in answers] == [json.loads(x).get("id") for x in lines]
    # and the same answers as the engine gives on the unix port's own stack
    # (the "judge" runner): the chip's stack changes no verdict
    with EngineProcess("judge", heapsize="4M") as dev:
        assert answers == [dev.ask(json.loads(x)) for x in lines]


def test_every_case_runs_on_the_chips_stack_as_the_board_model_runs_the_engine(firmware_build: Path) -> None:
    # The board model runs the engine compiled (.mpy for this machine, its
    # native methods as this machine's code), whose frames are not those of
    # the source above: at the start of issue 21's work the engine of main
    # a676471 failed adv-21 on the chip's stack only so (from source it
    # answered; adv-beyond-1 failed both ways: docs/firmware.md, "The C
    # stack", the recorded run). The same corpora, the same answers.
    lines = corpus_lines()
    board = EngineProcess("chipjudge", heapsize="4M")
    board.path = [firmware_build, MPY_DIR, CHIPSTACK_DIR]  # (before it starts)
    with board as dev:
        answers = [dev.ask(json.loads(x)) for x in lines]
    # and it ran the compiled engine: the runner finds the .mpy first on that path
    proc = mpy.run(code="import drules\nprint(drules.__file__)\n", path=board.path)
    assert proc.stdout.strip() == str(firmware_build / "drules.mpy"), proc.stdout
    assert [a.get("id") for a in answers] == [json.loads(x).get("id") for x in lines]
    assert [(a["id"], a["error"]) for a in answers if a.get("error")] == []
    with EngineProcess("judge", heapsize="4M") as dev:
        assert answers == [dev.ask(json.loads(x)) for x in lines]


PLAIN = """
import _thread, chipstack
from micropython import stack_use
d = [0]
def f(n):
    d[0] = n
    f(n + 1)
def plain():
    try:
        f(1)
    except RuntimeError:
        return d[0]
def pa(na, nb):
    if nb:
        return pb(na, nb - 1)
    if na:
        return pa(na - 1, nb)
    return plain()
def pb(na, nb):
    _x = na
    _y = nb
    if nb:
        return pb(na, nb - 1)
    if na:
        return pa(na - 1, nb)
    return plain()
def g(u0, most):
    if stack_use() - u0 > most:
        return False
    return g(u0, most)
def probe():
    # None if nothing refused a call before the stack's use passed what a
    # thread of STACK bytes is checked at (the port's race gave the thread
    # its whole size as its limit); else the depth at which a plain
    # recursion fails, and the same below n padding frames, k of them 16
    # bytes larger than the others: where the depth drops places the check
    # to 16 bytes
    try:
        if not g(stack_use(), chipstack.STACK - chipstack.THREAD_MARGIN):
            return None
    except RuntimeError:
        pass
    return [plain(), [[pa(n - k, k) for k in range(n + 1)] for n in (10, 11, 12)]]
def on_thread():
    # as the model was before issue 21's fix: probe on a thread of STACK bytes
    box = [False, None, None]
    done = _thread.allocate_lock()
    done.acquire()
    _thread.stack_size(chipstack.STACK)
    _thread.start_new_thread(chipstack._body(probe, (), box, done), ())
    _thread.stack_size(0)
    done.acquire()
    return box[1]
print(chipstack.run(probe))
for _ in range(30):
    r = on_thread()
    if r is not None:
        print(r)
        break
"""


def test_the_chips_stack_fails_a_deep_recursion_where_a_thread_of_its_size_would() -> None:
    # the mechanism itself, run once: a plain recursion deeper than the
    # chip's stack fails with RuntimeError, never with SIGSEGV (it did in about
    # half the runs on a busy machine while the firmware ran on a thread:
    # docs/firmware.md, "The C stack"), and at the depth where it fails on a
    # thread of chipstack.STACK bytes whose limit came out as the port means
    # it (the size less its 8 KiB margin), in the same process: the same
    # depth, and the same place of the check to 16 bytes below the padding
    # frames of the probe
    proc = mpy.run(code=PLAIN, path=[CHIPSTACK_DIR])
    assert proc.returncode == 0, (proc.returncode, proc.stdout, proc.stderr)
    lines = proc.stdout.splitlines()
    assert len(lines) == 2, proc.stdout  # the model's, then a thread's (one of 30 without the race)
    model, thread = (json.loads(x) for x in lines)
    assert model == thread
    depth, where = model
    # the chip's REPL reaches 30; the model fails a plain recursion a little earlier (safe side)
    assert 18 <= depth <= 30, depth
    # the probe sees the check move: the depth drops within the padding it tries
    assert len({x for row in where for x in row}) > len(where)


DEEP_ON_CHIP = """
import json, chipstack, drules, deep_sweep
from judge_mp import one
if DEEP:
    drules.Engine = deep_sweep.deep_engine_class()
for s in CASES:
    c = json.loads(s)
    try:
        a = chipstack.run(one, c)
        print("answer", c["id"], a.get("legal"), a.get("error"))
    except RuntimeError as e:
        print("failed", c["id"], e)
"""


def test_the_recursive_sweep_fails_on_the_chips_stack_where_the_iterative_one_answers() -> None:
    # issue 21: a check that would exceed the RP2040's 8 KiB fails on the
    # model as on the chip. tests/device_rules/deep_sweep.py is the sweep as
    # it was before it was made iterative (56 frames deep on adv-46, 50 on
    # adv-30: tests/device_rules/test_call_depth.py); on the chip's stack it
    # fails those cases, which the engine as it is answers there, as expected
    cases = [json.loads(x) for x in corpus_lines()]
    pick = [c for c in cases if c.get("id") in ("adv-46", "adv-30")]
    assert len(pick) == 2
    path = [ROOT / "firmware", MPY_DIR, CHIPSTACK_DIR, ROOT / "tests" / "device_rules"]

    def run(deep: bool, chosen: list[dict[str, Any]]) -> Any:
        head = f"DEEP = {deep}\nCASES = {[json.dumps(c) for c in chosen]!r}\n"
        return mpy.run(code=head + DEEP_ON_CHIP, path=path, heapsize="4M", timeout=120)

    proc = run(False, pick)
    assert proc.returncode == 0, proc.stderr
    for c in pick:
        legal = "True" if c["expect"] == ["ok"] else "False"
        assert f"answer {c['id']} {legal} None" in proc.stdout, proc.stdout
    for c in pick:
        proc = run(True, [c])
        # "maximum recursion depth exceeded", never SIGSEGV
        assert proc.returncode == 0 and f"failed {c['id']} maximum recursion depth exceeded" in proc.stdout, (
            proc.returncode,
            proc.stdout,
            proc.stderr,
        )
        assert "answer" not in proc.stdout, proc.stdout


LOADED = """
import chipstack
def fn():
    import chipstack  # loaded before: no import made
    import tt_probe_mod  # new: made on the import thread
    import tt_probe_mod  # loaded now
    return tt_probe_mod.X
print(chipstack.run(fn))
print(chipstack.forwarded)
"""


def test_an_import_of_a_loaded_module_waits_for_no_thread(tmp_path: Path) -> None:
    # issue 22: on the chip an import of a module in sys.modules is a lookup
    # (C); the model forwarded every import to its import thread and waited
    # for it, a wake-up of over 1 ms at times on a loaded machine that the
    # board charged as the firmware's work (88 ms at C_FACTOR: a save's
    # snapshot's part, a function's `import json`: the board's json is in
    # sys.modules). Only an import that is not loaded goes to the thread now.
    (tmp_path / "tt_probe_mod.py").write_text("X = [1, 2]\n", encoding="utf-8")
    proc = mpy.run(code=LOADED, path=[CHIPSTACK_DIR, tmp_path])
    assert proc.returncode == 0, (proc.returncode, proc.stdout, proc.stderr)
    out = proc.stdout.splitlines()
    assert out[0] == "[1, 2]"
    assert out[1] == "1"  # tt_probe_mod's first import only


def stack_needs(path: list[Path], lines: list[str]) -> tuple[int, list[dict[str, Any]]]:
    """The room the model gives the firmware and each case's stack need,
    locked and unlocked, from where its check enters tablerules.ask
    (``sim/engine/mpy/stackneed_mp.py``)."""
    proc = mpy.run(MPY_DIR / "stackneed_mp.py", path=path, heapsize="4M", input="\n".join(lines) + "\n", timeout=600)
    assert proc.returncode == 0, proc.stderr[-2000:]
    out = [json.loads(x) for x in proc.stdout.splitlines()]
    return int(out[0]["room"]), out


def test_every_locked_check_fits_the_chips_stack_where_the_table_asks_it(firmware_build: Path) -> None:
    # issue 21, the checks with the heap locked (docs/firmware.md): locked,
    # every bytecode frame of a check over 11 words is on the C stack; each
    # case's least room, found on the chip's stack model with the compiled
    # engine (as the board runs it), must be within the least room the table
    # leaves where it asks a check (stack_probe.TABLE_ROOM, measured in the
    # virtual table: tests/table/test_virtual_chip_stack.py)
    from stack_probe import TABLE_ROOM

    lines = corpus_lines()
    room, needs = stack_needs([firmware_build, FIRMWARE, MPY_DIR, CHIPSTACK_DIR], lines)
    assert len(needs) == len(lines)
    asked = [n for n in needs if n["locked"] is not None]
    assert len(asked) > 150  # follows, throws, tricks, shapes
    worst = max(asked, key=lambda n: n["locked"])
    assert worst["locked"] <= TABLE_ROOM, (worst, TABLE_ROOM)
    # the measure sees the lock: the deepest checks need more stack locked
    # (their frames' state on the C stack) than unlocked, and the worst is a
    # ladder follow (the engine's deepest chain: "The C stack")
    assert all(n["locked"] >= n["unlocked"] for n in asked)
    assert worst["locked"] > max(n["unlocked"] for n in asked) + 512
    assert worst["kind"] == "follow"
    assert room > TABLE_ROOM


def test_a_check_that_needs_more_than_the_table_leaves_fails_the_stack_test() -> None:
    # the measure fails where it must: the recursive sweep (deep_sweep.py,
    # 56 frames on adv-46) needs more than the table leaves, locked, from source
    from stack_probe import TABLE_ROOM

    pick = [x for x in corpus_lines() if json.loads(x).get("id") == "adv-46"]
    code = (
        "import sys, drules, deep_sweep\n"
        "drules.Engine = deep_sweep.deep_engine_class()\n"
        "import stackneed_mp\n"
        "stackneed_mp.main()\n"
    )
    proc = mpy.run(code=code, path=[FIRMWARE, MPY_DIR, CHIPSTACK_DIR, ROOT / "tests" / "device_rules"], heapsize="4M", input=pick[0] + "\n", timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    (need,) = (json.loads(x) for x in proc.stdout.splitlines())
    assert need["id"] == "adv-46"
    assert need["locked"] > TABLE_ROOM, need


RETRIED = """
import json, sys, chipstack, chipjudge_mp, judge_mp, tablerules
case = json.loads(sys.stdin.readline())
chipjudge_mp.less_room(PAD)
judge_mp.LOCKED[0] = True
n0 = tablerules.retries
print(json.dumps([chipstack.run(judge_mp.one, case), tablerules.retries - n0]))
"""


def test_a_check_with_room_unlocked_but_not_locked_is_answered_on_its_retry(firmware_build: Path) -> None:
    # the table must not lose a check: one whose frames, locked, would take
    # more of the chip's stack than is left where it is asked is asked again
    # unlocked (less stack: its frames' state in the heap), and answers
    path = [firmware_build, FIRMWARE, MPY_DIR, CHIPSTACK_DIR]
    line = next(x for x in corpus_lines() if json.loads(x).get("id") == "adv-52")
    _room, (need,) = stack_needs(path, [line])
    assert need["locked"] > need["unlocked"] + 512
    # the room where the check is asked halfway between its two needs
    pad = need["at_ask"] - (need["locked"] + need["unlocked"]) // 2
    proc = mpy.run(code=RETRIED.replace("PAD", str(pad)), path=path, heapsize="4M", input=line + "\n")
    assert proc.returncode == 0, proc.stderr[-2000:]
    answer, retries = json.loads(proc.stdout)
    assert retries == 1  # cut short locked, asked again unlocked
    with EngineProcess("judge", heapsize="4M") as dev:
        assert {**answer, "id": "adv-52"} == dev.ask(json.loads(line))  # the engine's answer
