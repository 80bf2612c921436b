# The device engine's conformance runner on the chip's C stack: as judge_mp.py
# (the same cases, the same answers), but each case is answered on a thread
# with the RP2040's stack (sim/board/mpy/chipstack.py, as the virtual table and
# the board model run the firmware), so that a check that recurses deeper than
# the chip allows fails here as it fails on the chip:
#   {"id", "error": "RuntimeError: maximum recursion depth exceeded"}.
# Runs under MicroPython (unix port) with firmware/, this folder and
# sim/board/mpy/ on the module path:
#   micropython chipjudge_mp.py [STACK_BYTES] < cases > answers
import gc
import json
import sys

import chipstack  # type: ignore[import-not-found]
from judge_mp import CaseError, answer, hand_answer  # type: ignore[import-not-found]


def one(case: dict) -> dict:  # type: ignore[type-arg]
    if case.get("kind") == "hand":
        return hand_answer(case)  # type: ignore[no-any-return]
    return answer(case)  # type: ignore[no-any-return]


def main(argv: list) -> None:  # type: ignore[type-arg]
    if len(argv) > 1:
        chipstack.STACK = int(argv[1])
    while True:
        line = sys.stdin.readline()
        if not line:
            break
        line = line.strip()
        if not line:
            continue
        if line == "quit":
            break
        cid = None
        try:
            case = json.loads(line)
            if not isinstance(case, dict):
                raise CaseError("a case must be a JSON object")
            cid = case.get("id")
            out = chipstack.run(one, case)
        except CaseError as exc:
            out = {"error": str(exc)}
        except KeyError as exc:
            out = {"error": "missing field " + str(exc)}
        except (ValueError, TypeError, IndexError, RuntimeError) as exc:
            out = {"error": type(exc).__name__ + ": " + str(exc)}
        except MemoryError:
            out = {"error": "out of memory"}
        out["id"] = cid
        sys.stdout.write(json.dumps(out))
        sys.stdout.write("\n")
        sys.stdout.flush()
        del out
        gc.collect()


if __name__ == "__main__":
    main(sys.argv)
