"""The board's self-test after a deploy (``firmware/selftest.py``, run over
the raw REPL with its output shown as it comes)."""

from __future__ import annotations

from typing import TextIO

from ..errors import CommandError
from .transport import DeployBoard


def run_self_test(board: DeployBoard, *, interactive: bool, out: TextIO) -> None:
    """Run firmware/selftest.py on the board, showing its lines as they come."""
    print("self-test" + (" (interactive: follow the prompts)" if interactive else ""), file=out)

    def echo(chunk: bytes) -> None:
        out.write(chunk.decode("utf-8", "replace").replace("\r\n", "\n"))
        out.flush()

    err = board.run(f"import selftest\nselftest.main(interactive={interactive})\n", echo)
    if err.strip():
        last = err.decode("utf-8", "replace").strip().splitlines()[-1]
        raise CommandError(f"the self-test could not run on the board: {last}")
