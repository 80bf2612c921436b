"""The ``tractor-table`` command line: a table of commands, each a module.

Every command lives in ``tractor_table.commands.<module>`` and provides
``configure(parser)`` (its options) and ``run(args) -> int`` (its handler).
The command modules themselves are imported to build the parser, so they stay
light: what a command needs (engines, bots, mpremote, MicroPython) is imported
inside its ``run``, and one command's dependencies never slow down or break
another (``tests/foundation/test_cli.py`` checks it). A :class:`CommandError` ends
the command with one clear line on stderr and exit status 1.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Sequence
from types import ModuleType
from typing import NamedTuple

from . import __version__
from .errors import CommandError


class Command(NamedTuple):
    module: str
    help: str


#: name -> where its handler lives. Keep sorted by how a user meets them.
COMMANDS: dict[str, Command] = {
    "demo": Command("demo", "run the most complete end-to-end demonstration"),
    "virtual": Command("virtual", "run the real firmware on a virtual table (bots play, the host checks)"),
    "link": Command("link", "follow a table over USB and check every event with the full engine"),
    "records": Command("records", "the hands the host recorded (SQLite): list, show, export, check"),
    "club": Command("club", "the club server: every table of a room live in a browser; tokens; upload"),
    "console": Command("console", "the operator's console (a terminal UI) for a real or virtual table"),
    "firmware": Command("firmware", "compile the firmware with mpy-cross into build/firmware"),
    "simulate": Command("simulate", "bots play a match with the full rules engine; prints the score sheet"),
    "deploy": Command("deploy", "compile the firmware and copy it, the card set and the configuration to a Pico"),
    "judge": Command("judge", "answer rules conformance cases (JSON lines on stdin)"),
    "fuzz-rules": Command("fuzz_rules", "differential fuzzing: full engine bots vs the device rules engine"),
    "soak-flash": Command("soak_flash", "power cuts at random flash operations while the table saves on littlefs"),
    "enroll": Command("enroll", "map each card's NFC tag to its card, guided, on a PN532 reader"),
    "deckcheck": Command("deckcheck", "check a card set (missing, duplicate, unknown tags); export cards.bin"),
    "pn532sim": Command("pn532sim", "a simulated USB-UART PN532 on a pseudo-terminal: tap cards from the keyboard or a script"),
}


def build_parser() -> argparse.ArgumentParser:
    from .commands._rules import presets_text

    parser = argparse.ArgumentParser(
        prog="tractor-table",
        description="Host tool of the smart Tractor table (拖拉机 / 升级 / 80 points).",
        epilog=f"The rules, every option and preset: docs/rules.md (§0). Presets (--rules): {presets_text()}. "
        "'tractor-table COMMAND --help' for each command.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, cmd in COMMANDS.items():
        p = sub.add_parser(name, help=cmd.help, description=cmd.help)
        p.set_defaults(_module=cmd.module)
        module = _load(cmd.module)
        if module is not None:
            module.configure(p)
    return parser


def _load(module: str) -> ModuleType | None:
    try:
        return importlib.import_module(f"{__package__}.commands.{module}")
    except ModuleNotFoundError as exc:
        if exc.name == f"{__package__}.commands.{module}":
            return None
        raise


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return 2
    module = _load(args._module)
    if module is None:
        print(f"tractor-table: '{args.command}' is not available in this build", file=sys.stderr)
        return 2
    try:
        status = int(module.run(args))
        sys.stdout.flush()  # a closed pipe shows here, not in the interpreter's exit
        return status
    except CommandError as exc:
        print(f"tractor-table {args.command}: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print(f"tractor-table {args.command}: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # the reader of our output went away (`| head`): stop quietly, as a
        # program killed by SIGPIPE would, and keep the interpreter's final
        # flush of stdout from failing again
        _silence_stdout()
        return 141


def _silence_stdout() -> None:
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError, AttributeError):  # no real stdout (captured in tests)
        pass


if __name__ == "__main__":
    raise SystemExit(main())
