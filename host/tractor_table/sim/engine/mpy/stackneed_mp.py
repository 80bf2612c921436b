# How much of the chip's C stack each case's checks take, asked as the table
# asks them (tablerules.ask: the heap locked, the engine's bytecode frames on
# the C stack) and unlocked (each frame's state from the GC heap): the least
# room on the chip's stack (sim/board/mpy/chipstack.py, its STACK lowered:
# chipjudge_mp.less_room) with which the case still answers, found by
# bisection to 16 bytes (over the room the model gives the firmware, the
# case's error: more than the chip has). Runs under MicroPython
# (unix port) with firmware/, this folder and sim/board/mpy/ on the path:
#   micropython stackneed_mp.py < cases > one line per case
# Each answer (serve_mp.py's loop): {"id", "kind", "locked": the need locked,
# "unlocked": the need unlocked, each from where the case's check enters
# tablerules.ask (null: a case with no check: settle, compare, ...), "room":
# the bytes from where chipstack.run calls the firmware to the stack's check,
# "at_ask": the room where the check enters tablerules.ask, with all of it}.
# A try that ran out of stack and was asked again (tablerules.ask's retry)
# does not count as answered: the need is the first try's.
# (unix-port bytes: 64-bit frames; docs/firmware.md, "The checks with the
# heap locked", gives them in the chip's.)
import chipjudge_mp  # type: ignore[import-not-found]
import chipstack  # type: ignore[import-not-found]
import judge_mp  # type: ignore[import-not-found]
import tablerules  # type: ignore[import-not-found]
from micropython import stack_use  # type: ignore[attr-defined]
from serve_mp import serve  # type: ignore[import-not-found]

_box = [0]
#: the least room where tablerules.ask was entered (in the probe's frame: the
#: same wrapper as tests/support/stack_probe.py's in the table's firmware)
_at_ask = [1 << 30]
_real_ask = tablerules.ask
_lock = (tablerules.heap_lock, tablerules.heap_unlock)


def _none() -> int:
    return 0


def _probe_ask(e, what, a, b=None, c=0, d=None):  # type: ignore[no-untyped-def]
    room = chipstack.MAIN_LIMIT - stack_use()
    if room < _at_ask[0]:
        _at_ask[0] = room
    return _real_ask(e, what, a, b, c, d)


def _locking(locked: bool) -> None:
    # the checks through tablerules.ask either way (the same frames), the
    # heap locked or not
    tablerules.ask = _probe_ask
    judge_mp.LOCKED[0] = True
    if locked:
        tablerules.heap_lock, tablerules.heap_unlock = _lock
    else:
        tablerules.heap_lock = tablerules.heap_unlock = _none


def _start() -> None:
    _box[0] = stack_use()


def room() -> int:
    """The bytes from where chipstack.run calls its function to the stack's
    check (the chip's room for the firmware, in this port's bytes)."""
    chipstack.run(_start)
    return int(chipstack.MAIN_LIMIT - _box[0])


def answers(case: dict, pad: int) -> bool:  # type: ignore[type-arg]
    """Does the case answer with pad bytes less room, its checks not asked
    again (tablerules.ask asks a check again unlocked when it runs out of
    stack locked: the need measured is the first try's)?"""
    stack = chipstack.STACK
    chipjudge_mp.less_room(pad)
    n0 = tablerules.retries
    try:
        chipstack.run(judge_mp.one, case)
        return bool(tablerules.retries == n0)
    except RuntimeError:
        return False
    finally:
        chipstack.STACK = stack


def need(case: dict, r: int, locked: bool) -> int | None:  # type: ignore[type-arg]
    """The least room (to 16 bytes) with which the case answers, counted
    from where its first check enters tablerules.ask (None: no check)."""
    got: int | None = need_at(case, r, locked)[0]
    return got


def need_at(case: dict, r: int, locked: bool) -> tuple:  # type: ignore[type-arg]
    """(need, the room where its check enters tablerules.ask with all the
    room): need() and where it is counted from."""
    _locking(locked)
    _at_ask[0] = 1 << 30
    lo = 0  # answers with this much less room
    hi = r - 32  # fails with this much less (or is the least the model can give)
    if not answers(case, lo):
        return r + 1, None
    at = _at_ask[0]
    if at == 1 << 30:
        return None, None
    while hi - lo > 16:
        mid = (lo + hi) // 2
        if answers(case, mid):
            lo = mid
        else:
            hi = mid
    return at - lo, at


def main() -> None:
    r = room()

    def one(case: dict) -> dict:  # type: ignore[type-arg]
        locked, at = need_at(case, r, True)
        return {"kind": case.get("kind"), "room": r, "at_ask": at, "locked": locked, "unlocked": need(case, r, False)}

    serve(one)


if __name__ == "__main__":
    main()
