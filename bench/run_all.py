"""Run the benchmarks (``bench/bench_*.py``) in turn; each writes its own
section of ``docs/performance.md``. Benchmarks are not part of ``make test``.

Usage: ``bench/run_all.py [NAME ...]`` (``make bench``): without names, every
benchmark but the soaks (:data:`SOAKS`), which take minutes and have their own
target (``make soak-flash``); with names (``engine``, ``flash``, ...), those,
soaks too."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent

#: benchmarks left out unless named: ``flash``, the power-cut soak (about 4
#: minutes; ``make soak-flash``)
SOAKS = frozenset({"flash"})


def main(argv: list[str]) -> int:
    wanted = set(argv[1:])
    failed: list[str] = []
    scripts = select(sorted(HERE.glob("bench_*.py")), wanted)
    if wanted and len(scripts) < len(wanted):
        known = sorted(s.stem.removeprefix("bench_") for s in HERE.glob("bench_*.py"))
        unknown = sorted(wanted - {s.stem.removeprefix("bench_") for s in scripts})
        print(f"no benchmark {', '.join(unknown)}; they are: {', '.join(known)}", file=sys.stderr)
        return 2
    try:
        _run(scripts, failed)
    except KeyboardInterrupt:
        print(f"interrupted (Ctrl-C); failed so far: {', '.join(failed) or 'none'}; the sections of "
              "docs/performance.md written so far are kept", file=sys.stderr)
        return 130
    if failed:
        print("failed: " + ", ".join(failed), file=sys.stderr)
        return 1
    return 0


def select(scripts: list[Path], wanted: set[str]) -> list[Path]:
    """The scripts named in ``wanted``; with none, all but the soaks."""
    names = {s: s.stem.removeprefix("bench_") for s in scripts}
    if wanted:
        return [s for s in scripts if names[s] in wanted]
    return [s for s in scripts if names[s] not in SOAKS]


def _run(scripts: list[Path], failed: list[str]) -> None:
    """Each script in turn: a bar with the rate and the time left on a terminal
    (each benchmark's lines above it), plain lines otherwise."""
    from tractor_table.progress import Progress

    with Progress("benchmarks", len(scripts), unit="benchmarks", stream=sys.stderr) as bar:
        for k, script in enumerate(scripts):
            bar.say(f"== {script.name}")
            proc = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE,
                                    stderr=subprocess.STDOUT, text=True)
            assert proc.stdout is not None
            for line in proc.stdout:
                bar.say(line.rstrip("\n"))
            if proc.wait() != 0:
                failed.append(script.name)
            bar.update(k + 1)


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
