# How much of the chip's C stack each case's checks take, asked as the table
# asks them (tablerules.ask: the heap locked, the engine's bytecode frames on
# the C stack) and unlocked (each frame's state from the GC heap): the least
# room on the chip's stack (sim/board/mpy/chipstack.py, its STACK lowered:
# chipjudge_mp.less_room) with which the case still answers, found by
# bisection to 16 bytes (over the room the model gives the firmware, the
# case's error: more than the chip has). Runs under MicroPython
# (unix port) with firmware/, this folder and sim/board/mpy/ on the path:
#   micropython stackneed_mp.py < cases > one line per case
# Each line: {"id", "kind", "locked": the need locked, "unlocked": the need
# unlocked}; first a line {"room": the bytes from where chipstack.run calls
# the firmware to the stack's check}.
# (unix-port bytes: 64-bit frames; docs/firmware.md, "The checks with the
# heap locked", gives them in the chip's.)
import json
import sys

import chipjudge_mp  # type: ignore[import-not-found]
import chipstack  # type: ignore[import-not-found]
import judge_mp  # type: ignore[import-not-found]
from micropython import stack_use  # type: ignore[import-not-found]

_box = [0]


def _start():  # type: ignore[no-untyped-def]
    _box[0] = stack_use()


def room():  # type: ignore[no-untyped-def]
    """The bytes from where chipstack.run calls its function to the stack's
    check (the chip's room for the firmware, in this port's bytes)."""
    chipstack.run(_start)
    return chipstack.MAIN_LIMIT - _box[0]


def answers(case, pad):  # type: ignore[no-untyped-def]
    stack = chipstack.STACK
    chipjudge_mp.less_room(pad)
    try:
        chipstack.run(judge_mp.one, case)
        return True
    except RuntimeError:
        return False
    finally:
        chipstack.STACK = stack


def need(case, r, locked):  # type: ignore[no-untyped-def]
    """The least room (to 16 bytes) with which the case answers."""
    judge_mp.LOCKED[0] = locked
    lo = 0  # answers with this much less room
    hi = r - 32  # fails with this much less (or is the least the model can give)
    if not answers(case, lo):
        return r + 1
    while hi - lo > 16:
        mid = (lo + hi) // 2
        if answers(case, mid):
            lo = mid
        else:
            hi = mid
    return r - lo


def main():  # type: ignore[no-untyped-def]
    r = room()
    print(json.dumps({"room": r}))
    for line in sys.stdin:
        line = line.strip()
        if not line:
            continue
        case = json.loads(line)
        out = {"id": case.get("id"), "kind": case.get("kind")}
        out["locked"] = need(case, r, True)
        out["unlocked"] = need(case, r, False)
        print(json.dumps(out))


main()
