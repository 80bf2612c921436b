"""``tractor-table judge``: answer rules conformance cases (CONFORMANCE.md).

Reads one case per JSON line on standard input and writes one answer per line
on standard output, in the same order. A malformed line gets an error answer
and the runner goes on; it exits 0 when every line is answered.

``--engine full`` (default) answers with the host engine (``shengji``);
``--engine device`` hands the same streams to the device rules engine's runner
(``tractor_table.device_judge``).
"""

from __future__ import annotations

import argparse
import importlib
import json
import sys
from collections.abc import Iterable
from typing import TextIO

from ..errors import CommandError


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--engine",
        choices=("full", "device"),
        default="full",
        help="which rules engine answers: the full host engine (default) or the device engine",
    )


def judge_stream(stdin: TextIO, stdout: TextIO) -> int:
    """Answer every line of ``stdin`` on ``stdout`` with the full engine."""
    from shengji.conformance import answer_line

    raw = getattr(stdin, "buffer", None)
    lines: Iterable[str | bytes] = raw if raw is not None else stdin
    try:
        for line in lines:
            if isinstance(line, bytes):
                try:
                    text = line.decode("utf-8")
                except UnicodeDecodeError as exc:
                    stdout.write(
                        json.dumps({"id": None, "error": f"line is not UTF-8: {exc}"}) + "\n"
                    )
                    stdout.flush()
                    continue
            else:
                text = line
            out = answer_line(text)
            if out is not None:
                stdout.write(out + "\n")
                stdout.flush()
    except BrokenPipeError:
        # the reader went away (e.g. `| head`): nothing left to answer to
        return 0
    return 0


def run(args: argparse.Namespace) -> int:
    if args.engine == "device":
        try:
            device_judge = importlib.import_module("tractor_table.device_judge")
        except ModuleNotFoundError as exc:
            if exc.name == "tractor_table.device_judge":
                raise CommandError(
                    "the device engine's judge (tractor_table.device_judge) is not built yet; "
                    "use --engine full"
                ) from None
            raise
        return int(device_judge.main(sys.stdin, sys.stdout))
    return judge_stream(sys.stdin, sys.stdout)
