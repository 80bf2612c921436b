"""Run every benchmark (``bench/bench_*.py``) in turn; each writes its own
section of ``docs/performance.md``. Benchmarks are not part of ``make test``."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent


def main(argv: list[str]) -> int:
    wanted = set(argv[1:])
    failed: list[str] = []
    scripts = [s for s in sorted(HERE.glob("bench_*.py"))
               if not wanted or s.stem.removeprefix("bench_") in wanted]
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
