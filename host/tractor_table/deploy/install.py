"""Copying a manifest onto a board as one step (:func:`deploy_to`): every file
written under a temporary name with a progress bar, verified on the board
(size and SHA-256), then renamed into place together, the stale and orphaned
files removed and the final files verified again; a failure before the
renames leaves the old firmware as it was."""

from __future__ import annotations

import contextlib
import sys
import time
from collections.abc import Iterator, Sequence
from typing import TextIO

from ..errors import CommandError
from ..paths import CARDS_FILE
from .abi import board_info, check_abi
from .manifest import DEPLOYED_FILE, TEMP_SUFFIX, Item, Result, check_space, orphans, stale_files
from .selftest import run_self_test
from .transport import DeployBoard, Progress, literal

_LIST_CODE = f"""import os
try:
    with open({DEPLOYED_FILE!r}) as _f:
        _old = _f.read().split()
except OSError:
    _old = []
try:
    _s = os.statvfs('.')
    print(repr((os.listdir(), _s[0], _s[0] * _s[4], _old)))
except AttributeError:
    print(repr((os.listdir(), 4096, 1 << 30, _old)))
"""


def _commit_code(items: Sequence[Item], stale: Sequence[str]) -> str:
    names = [i.name for i in items]
    return (
        "import os\n"
        f"for n in {names!r}:\n"
        "    try:\n"
        "        os.remove(n)\n"
        "    except OSError:\n"
        "        pass\n"
        f"    os.rename(n + {TEMP_SUFFIX!r}, n)\n"
        f"for n in {list(stale)!r}:\n"
        "    try:\n"
        "        os.remove(n)\n"
        "    except OSError:\n"
        "        pass\n"
    )


def _remove_code(names: Sequence[str]) -> str:
    return (
        "import os\n"
        f"for n in {list(names)!r}:\n"
        "    try:\n"
        "        os.remove(n)\n"
        "    except OSError:\n"
        "        pass\n"
    )


def _sizes(board: DeployBoard, names: Sequence[str]) -> dict[str, int]:
    out = board.exec(
        "import os\n"
        f"print(repr([os.stat(n)[6] if n in os.listdir() else -1 for n in {list(names)!r}]))\n"
    )
    sizes = literal(out)
    return dict(zip(names, sizes, strict=True))


def verify(board: DeployBoard, items: Sequence[Item], suffix: str = "") -> list[str]:
    """Problems found comparing the files on the board with ``items`` (empty when all match)."""
    problems = []
    sizes = _sizes(board, [i.name + suffix for i in items])
    for item in items:
        name = item.name + suffix
        size = sizes[name]
        if size < 0:
            problems.append(f"{name} is missing")
        elif size != len(item.data):
            problems.append(f"{name} has {size} bytes, expected {len(item.data)}")
        elif board.sha256(name) != item.sha256:
            problems.append(f"{name} differs from what was sent (SHA-256)")
    return problems


class ProgressPrinter:
    """One line per file: a bar while it is written (redrawn in place on a terminal)."""

    WIDTH = 24

    def __init__(self, out: TextIO, total_files: int) -> None:
        self.out = out
        self.total = total_files
        self.tty = out.isatty()

    def file(self, index: int, item: Item) -> Progress:
        label = f"[{index:>2}/{self.total}] {item.name:<16} {len(item.data):>7,} B"

        def show(done: int, total: int) -> None:
            if not self.tty and done < total:
                return
            filled = self.WIDTH * done // max(total, 1)
            end = "\n" if done >= total else ""
            self.out.write(f"\r  {label} [{'#' * filled}{'.' * (self.WIDTH - filled)}]{end}")
            self.out.flush()

        return show


class _BytesBar:
    """On a terminal: one bar over every byte copied, with the rate and the time
    left (tractor_table.progress), in place of ProgressPrinter's lines."""

    def __init__(self, out: TextIO, items: Sequence[Item]) -> None:
        from ..progress import Progress as Bar

        self.bar = Bar("copying", sum(len(i.data) for i in items), unit="bytes", stream=out,
                            say_stream=out)
        self.base = 0

    def file(self, item: Item) -> Progress:
        base = self.base
        self.base += len(item.data)

        def show(done: int, total: int) -> None:
            self.bar.update(base + min(done, len(item.data)))
            if done >= total:
                self.bar.say(f"  {item.name:<16} {len(item.data):>7,} B")

        return show


@contextlib.contextmanager
def _copy_bar(out: TextIO, items: Sequence[Item]) -> Iterator[_BytesBar | None]:
    if not out.isatty():
        yield None  # plain lines: ProgressPrinter
        return
    bar = _BytesBar(out, items)
    with bar.bar:
        yield bar


def deploy_to(
    board: DeployBoard,
    items: Sequence[Item],
    *,
    out: TextIO | None = None,
    reset: bool = True,
    self_test: str = "",
) -> Result:
    """Copy ``items`` to ``board`` (all or nothing), verify, optionally run the
    self-test (``"quick"`` or ``"interactive"``) and reset the board."""
    out = out or sys.stdout
    start = time.monotonic()
    info = board_info(board)
    check_abi(items, info)  # before anything is written
    print(f"board: {info.describe()}", file=out)
    on_board, block, free, last_deployed = literal(board.exec(_LIST_CODE))
    stale = stale_files(items, on_board) + orphans(items, on_board, last_deployed)
    if not any(i.name == CARDS_FILE for i in items):
        if CARDS_FILE in on_board:
            print(f"keeping the card map already on the board ({CARDS_FILE})", file=out)
        else:
            print("note: no card map on the board: the table cannot name cards until one is deployed (--cards)", file=out)
    leftovers = [n for n in stale if n.endswith(TEMP_SUFFIX)]
    if leftovers:
        board.exec(_remove_code(leftovers))
        free += sum(block for _ in leftovers)
    check_space(items, free, block)

    temps = [i.name + TEMP_SUFFIX for i in items]
    progress = ProgressPrinter(out, len(items))
    print(f"copying {len(items)} files, {sum(len(i.data) for i in items):,} bytes", file=out)
    try:
        with _copy_bar(out, items) as bar:
            for k, item in enumerate(items, 1):
                show = progress.file(k, item) if bar is None else bar.file(item)
                show(0, len(item.data))
                board.write_file(item.name + TEMP_SUFFIX, item.data, show)
                if not item.data:
                    show(1, 1)
        print("verifying (size and SHA-256 of each file, computed on the board)", file=out)
        problems = verify(board, items, TEMP_SUFFIX)
        if problems:
            raise CommandError("copy check failed, nothing was changed: " + "; ".join(problems))
    except BaseException:
        with contextlib.suppress(Exception):
            board.exec(_remove_code(temps))
        raise
    board.exec(_commit_code(items, [n for n in stale if not n.endswith(TEMP_SUFFIX)]))
    problems = verify(board, items)
    if problems:
        raise CommandError("files changed while being put in place: " + "; ".join(problems) + "; deploy again")
    removed = tuple(stale)
    for name in removed:
        print(f"  removed {name}", file=out)
    result = Result(tuple(items), removed, time.monotonic() - start)
    print(
        f"deployed {len(items)} files, {result.total_bytes:,} bytes, all verified, in {result.seconds:.1f} s",
        file=out,
    )
    if self_test:
        run_self_test(board, interactive=self_test == "interactive", out=out)
    if reset:
        board.reset()
        print("reset the board: the table starts", file=out)
    return result
