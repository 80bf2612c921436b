# The device engine's process loop, shared by every runner of this folder
# (judge_mp.py, adversary_mp.py, chipjudge_mp.py): runs under MicroPython (unix
# port). Reads one case a line on stdin (JSON), writes one answer a line on
# stdout (JSON, flushed), the case's "id" in it; a blank line is skipped; a
# line "quit" or the end of input ends it. A case the runner cannot answer
# gets {"id", "error"}: the runner's CaseError as it says, a missing field, a
# bad value, memory exhausted; anything else ends the process (the client,
# tractor_table.sim.engine, says so and starts a fresh one).
import gc
import json
import sys


class CaseError(Exception):
    """A case the runner cannot answer: its message is the answer's "error"."""


def serve(answer, errors=()):  # type: ignore[no-untyped-def]
    """Answer every case with answer(case) -> dict; exceptions in ``errors``
    (besides the usual ones) are answered as errors too."""
    plain = (ValueError, TypeError, IndexError) + tuple(errors)
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
            out = answer(case)
        except CaseError as exc:
            out = {"error": str(exc)}
        except KeyError as exc:
            out = {"error": "missing field " + str(exc)}
        except plain as exc:
            out = {"error": type(exc).__name__ + ": " + str(exc)}
        except MemoryError:
            out = {"error": "out of memory"}
        out["id"] = cid
        sys.stdout.write(json.dumps(out))
        sys.stdout.write("\n")
        sys.stdout.flush()
        del out
        gc.collect()
