"""Output files of the commands, written whole or not at all.

:func:`write_atomic` writes beside the target and renames over it, so a
command that fails (a full disk, a folder where the file should go, Ctrl-C)
leaves the old file, or none, never a truncated one; and it turns the OS error
into a :class:`CommandError` that names the file and the option it came from.
:func:`check_writable` finds, before any work is done, an output path that
cannot be written.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

from ..errors import CommandError


def _why(exc: OSError) -> str:
    return exc.strerror or str(exc)


def check_writable(path: Path, option: str) -> None:
    """CommandError unless a file could be written (or appended to) at ``path``.

    Nothing is created: the folder must exist and be writable, and a file that
    is already there must be a file that may be written."""
    if path.is_dir():
        raise CommandError(f"{option} {path}: is a folder; give a file name")
    if path.exists():
        if not os.access(path, os.W_OK):
            raise CommandError(f"{option} {path}: the file is not writable")
        return
    parent = path.parent if str(path.parent) else Path(".")
    if not parent.is_dir():
        raise CommandError(f"{option} {path}: no folder {parent}; create it first or give another path")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise CommandError(f"{option} {path}: no permission to write in {parent}")


def write_atomic(path: Path, data: bytes, option: str) -> None:
    """Write ``data`` to ``path`` whole: beside it first, flushed, then renamed over it."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        with open(tmp, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except OSError as exc:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise CommandError(f"{option} {path}: cannot write it ({_why(exc)})") from None
    except BaseException:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise
