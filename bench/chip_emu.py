"""The device rules engine's checks timed on the real MicroPython rp2 port, on an
emulated RP2040 (tools/rp2emu: v1.26.1, RPI_PICO, built from Debian's sources,
booted on rp2040js), as the chip audits timed them (docs/performance.md, "Device rules on the emulated RP2040").

    python bench/chip_emu.py [--build build/rp2emu] [--cases ID,...] [--engine DIR | --commit REV] [--repeat R] [--write]

Each case gets a board of its own (one boot, a fresh heap): the engine's
``drules*`` (of ``--engine``, a folder, or of ``--commit``, taken from the
repository with ``git archive``; default: ``firmware/``) and what the case
runner imports besides (today's ``tablerules``, ``ruleopts``, ``tableconfig``;
the device engine client's "adversary" runner, ``tractor_table.sim.engine.RUNNERS``,
and the modules of its folder that it imports) compiled with ``mpy-cross -march=armv6m -O3``
as the firmware is, written through the REPL to a littlefs on a RAM block device
(the emulated flash's filesystem is not there), a block of 16 KB kept free from the
boot given back (the search's buffers, about 6 KB in one block, need that room),
then
the case answered by ``adversary_mp.answer`` R times locked (``tablerules.ask``,
the heap locked, as the table asks) and R times unlocked (the engine's method
called directly, as the audits ran it); ``time.ticks_us`` on the board, the
emulator's clock. A case's figure is the median of its R calls.

What the figures are: the emulated RP2040 at 125 MHz charges no flash wait
states (every XIP read a cache hit), as the audits' did; a real chip's are not
in them. The port is v1.26.1, not the audits' v1.28.0 (Debian's newest source);
the same engine (``--commit a676471``, the audited one) reads 1.1-1.4x the
audit's chip times here (docs/performance.md, "Device rules on the emulated
RP2040"): these figures are on the pessimistic side of the audits'.
"""

from __future__ import annotations

import argparse
import base64
import io
import json
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from tractor_table import adversarial, firmware_build, perfdoc
from tractor_table.paths import FIRMWARE_DIR
from tractor_table.sim import engine

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
DATA = REPO / "tests" / "device_rules" / "data"
CORPORA = (DATA / "adversarial.jsonl", DATA / "adversarial-host.jsonl")
RUNNER = REPO / "tools" / "rp2emu" / "run.mjs"
#: the slowest follows of the corpora on the unix port and the emulated chip
#: (docs/performance.md, "Device rules engine"), and the issue-12 example
DEFAULT_CASES = ("adv-66", "adv-51", "host-11-3972", "host-31-7983", "adv-60", "adv-52", "adv-39", "issue-12")
#: the runner's imports besides the engine's drules*: today's (as bench/chipref.py runs an old engine)
TODAY = ("tablerules.py", "ruleopts.py", "tableconfig.py")
#: base64 characters a REPL line carries (run.mjs refuses lines over 510 bytes)
CHUNK = 128

# The RAM block device and littlefs the files go to (no block of the emulated
# flash's filesystem is needed); typed in 100-character pieces, then run.
_BDEV = """import vfs, binascii
class RB:
 def __init__(s, n):
  s.d = bytearray(512 * n)
 def readblocks(s, b, buf, off=0):
  a = b * 512 + off
  buf[:] = s.d[a:a + len(buf)]
 def writeblocks(s, b, buf, off=0):
  a = b * 512 + off
  s.d[a:a + len(buf)] = buf
 def ioctl(s, op, arg):
  if op == 4: return len(s.d) // 512
  if op == 5: return 512
  if op == 6: return 0
bd = RB(%d)
vfs.VfsLfs2.mkfs(bd)
vfs.mount(vfs.VfsLfs2(bd), '/ram')
import sys
sys.path.insert(0, '/ram')
def w(x):
 f.write(binascii.a2b_base64(x))
"""


def typed(src: str, lines: list[str]) -> None:
    """Lines that build ``src`` in a variable piece by piece, then exec it."""
    lines.append("s=''")
    for i in range(0, len(src), 100):
        lines.append(f"s+={src[i : i + 100]!r}")
    lines.append("exec(s)")


def typed_file(lines: list[str], path: Path, step: int = CHUNK // 4 * 3) -> None:
    """Lines that write the file ``path`` to the board's RAM disk (``/ram``,
    ``_BDEV``'s), in base64 pieces the runner takes."""
    data = path.read_bytes()
    lines.append(f"f=open('/ram/{path.name}','wb')")
    for i in range(0, len(data), step):
        lines.append(f"w({base64.b64encode(data[i : i + step]).decode()!r})")
    lines.append("f.close()")


def no_board(build: Path) -> str | None:
    """What is missing for an emulated board in ``build`` (None: nothing)."""
    if not (build / "firmware.uf2").exists() or not (build / "node_modules" / "rp2040js").exists():
        return f"no emulated board in {build}: run tools/rp2emu/build.sh {build} first (about 3 minutes)"
    return None



def board_args(ap: argparse.ArgumentParser, argv: list[str] | None, script: str) -> tuple[argparse.Namespace, str] | None:
    """``ap``'s options parsed, and the command to name in the figures (``python
    bench/SCRIPT``, with ``--build`` if not the default); None, with what is
    missing said on stderr, when there is no emulated board to run on."""
    args = ap.parse_args(argv)
    missing = no_board(args.build)
    if missing:
        print(missing, file=sys.stderr)
        return None
    return args, f"python bench/{script}" + (f" --build {args.build}" if args.build != REPO / "build" / "rp2emu" else "")


def emu_parser(doc: str, section: str, timeout: int) -> argparse.ArgumentParser:
    """The options every bench on the emulated chip has: --build, --timeout,
    --json, --write (docs/performance.md's ``section``)."""
    ap = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    ap.add_argument("--build", type=Path, default=REPO / "build" / "rp2emu", help="tools/rp2emu/build.sh's folder")
    ap.add_argument("--timeout", type=int, default=timeout, help="wall seconds the emulator may take")
    ap.add_argument("--json", action="store_true", help="print the figures as JSON, write nothing")
    ap.add_argument("--write", action="store_true", help=f"write the table to docs/performance.md (section {section})")
    return ap

def runner_sources() -> list[Path]:
    """The client's "adversary" runner (tractor_table.sim.engine: the one place
    that names the runners) and the modules of its folder it imports, each once."""
    import ast

    script = engine.RUNNERS["adversary"][0]
    todo, seen = [script], []
    while todo:
        path = todo.pop()
        if path in seen:
            continue
        seen.append(path)
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module or ""] if isinstance(node, ast.ImportFrom) else []
            for name in names:
                dep = script.parent / (name + ".py")
                if dep.exists():
                    todo.append(dep)
    return sorted(seen)


def compile_mpy(sources: list[Path], out: Path) -> list[Path]:
    out.mkdir(parents=True, exist_ok=True)
    done = []
    for src in sources:
        target = out / (src.stem + ".mpy")
        subprocess.run(
            [firmware_build.mpy_cross_binary(), "-march=armv6m", firmware_build.OPT, "-s", src.stem, "-o", str(target), str(src)],
            check=True,
        )
        done.append(target)
    return done


def script(mpys: list[Path], case: dict[str, Any], repeat: int) -> str:
    lines = ["import gc, json; hole = bytearray(16384)"]
    typed(_BDEV % (sum(m.stat().st_size for m in mpys) // 512 + 40), lines)
    for m in mpys:
        typed_file(lines, m)
    # a block kept free from the start, given back before the check: the
    # engine's buffers (the search's, about 6 KB in one block) need room that
    # the disk's 60 KB and the typed pieces' garbage would otherwise split
    lines.append(f"import {engine.RUNNERS['adversary'][0].stem} as A, tablerules, drules, drules_sweep, drules_place, drules_memo, drules_ladder; s = None")
    c = {k: v for k, v in case.items() if k not in adversarial._NOT_FOR_DEVICE}
    typed(f"c=json.loads({json.dumps(c)!r})", lines)
    lines.append(
        f"hole = None; gc.collect(); r=A.answer(c, {repeat}, 0); "
        "print('CASE', json.dumps([c['id'], r[0], r[1], r[2], gc.mem_free()]))"
    )
    return "\n".join(lines) + "\n"


def engine_sources(args: argparse.Namespace, tmp: Path) -> Path:
    if args.commit:
        out = tmp / "commit"
        out.mkdir()
        tar = subprocess.run(["git", "-C", str(REPO), "archive", args.commit, "firmware"], check=True, capture_output=True).stdout
        with tarfile.open(fileobj=io.BytesIO(tar)) as t:
            t.extractall(out, filter="data")
        return out / "firmware"
    return Path(args.engine)


def run_case(build: Path, case: dict[str, Any], mpys: list[Path], repeat: int, tmp: Path, timeout: int) -> dict[str, Any]:
    path = tmp / ("{}.txt".format(case["id"]))
    path.write_text(script(mpys, case, repeat))
    t0 = time.monotonic()
    proc = subprocess.run(["node", str(RUNNER), str(build), str(path), str(timeout)], capture_output=True, text=True, check=False)
    wall = time.monotonic() - t0
    for line in proc.stdout.splitlines():
        if line.startswith("CASE "):
            cid, ans, locked, unlocked, free = json.loads(line[5:])
            return {
                "id": cid,
                "answer": ans,
                "agrees": adversarial.agree(case, list(case["expect"]), ans) if "expect" in case else None,
                "locked_ms": statistics.median(locked) / 1000.0,
                "unlocked_ms": statistics.median(unlocked) / 1000.0,
                "locked_us": locked,
                "unlocked_us": unlocked,
                "free_after": free,
                "wall_s": round(wall, 1),
            }
    # no answer: the board's last words (an error names what failed), the case kept as a row
    err = [ln for ln in proc.stdout.splitlines() if "Error" in ln] or [f"exit {proc.returncode}"]
    print(f"case {case['id']}: no answer from the emulated board: {err[-1]}", file=sys.stderr)
    return {"id": case["id"], "error": err[-1], "wall_s": round(wall, 1)}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--build", type=Path, default=REPO / "build" / "rp2emu", help="tools/rp2emu/build.sh's folder")
    ap.add_argument("--cases", default=",".join(DEFAULT_CASES), help="case ids of the corpora, comma-separated")
    g = ap.add_mutually_exclusive_group()
    g.add_argument("--engine", default=str(FIRMWARE_DIR), help="a folder with the engine's drules*.py (default: firmware/)")
    g.add_argument("--commit", help="the engine of a commit (git archive), e.g. a676471, the audited one")
    ap.add_argument("--repeat", type=int, default=5, help="calls of each check, each way (the median is taken)")
    ap.add_argument("--jobs", type=int, default=2, help="boards at once")
    ap.add_argument("--timeout", type=int, default=600, help="wall seconds a board may take")
    ap.add_argument("--json", action="store_true", help="print the figures as JSON, write nothing")
    ap.add_argument("--write", action="store_true", help="write the table to docs/performance.md (section chip-emu)")
    args = ap.parse_args(argv)
    missing = no_board(args.build)
    if missing:
        print(missing, file=sys.stderr)
        return 2
    pool = {}
    for path in CORPORA:
        for c in adversarial.read_cases(path):
            if "id" in c:
                pool[str(c["id"])] = c
    ids = [i for i in args.cases.split(",") if i]
    missing = [i for i in ids if i not in pool]
    if missing:
        print(f"no case {', '.join(missing)} in {', '.join(p.name for p in CORPORA)}", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="tt-chipemu-") as td:
        tmp = Path(td)
        src = engine_sources(args, tmp)
        sources = sorted(src.glob("drules*.py")) + [FIRMWARE_DIR / n for n in TODAY] + runner_sources()
        mpys = compile_mpy(sources, tmp / "mpy")
        with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as ex:
            rows = list(ex.map(lambda i: run_case(args.build, pool[i], mpys, args.repeat, tmp, args.timeout), ids))
    what = f"--commit {args.commit}" if args.commit else ("" if Path(args.engine) == FIRMWARE_DIR else f"--engine {args.engine}")
    cmd = "python bench/chip_emu.py" + (f" {what}" if what else "") + (f" --cases {args.cases}" if args.cases != ",".join(DEFAULT_CASES) else "")
    if args.json:
        print(json.dumps({"command": cmd, "rows": rows}, indent=1))
        return 0
    done = [r for r in rows if "error" not in r]
    if not done:
        print("no case answered", file=sys.stderr)
        return 1
    worst = max(done, key=lambda r: r["locked_ms"])
    out = [
        f"Command: `{cmd}`. {perfdoc.machine_line()}",
        "",
        "The real MicroPython rp2 port (v1.26.1, RPI_PICO, tools/rp2emu) on an emulated RP2040 at 125 MHz, no flash wait states;"
        f" each case on a fresh board, the median of {args.repeat} calls each way, ms on the board's own clock:",
        "",
        "| case | answer | locked (as the table asks) | unlocked (the method called) |",
        "|---|---|---:|---:|",
    ]
    for r in rows:
        if "error" in r:
            out.append(f"| {r['id']} | no answer: {r['error']} | - | - |")
            continue
        ok = "" if r["agrees"] in (None, True) else " (**differs from expect**)"
        out.append(f"| {r['id']} | {' '.join(map(str, r['answer']))}{ok} | {r['locked_ms']:.2f} | {r['unlocked_ms']:.2f} |")
    out += ["", f"Worst, locked: **{worst['locked_ms']:.2f} ms** ({worst['id']}); target 20 ms (issue 21)."]
    body = "\n".join(out)
    print(body)
    if args.write:
        perfdoc.write_section("chip-emu", body)
    return 0


if __name__ == "__main__":
    sys.exit(main())
