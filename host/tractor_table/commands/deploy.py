"""``tractor-table deploy``: compile the firmware and copy it, the card set and
the configuration to a Pico over USB, with progress, then verify every file."""

from __future__ import annotations

import argparse
from pathlib import Path

from ..errors import CommandError
from ._rules import rules_help


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--port", required=True, help="the Pico's serial port, e.g. /dev/ttyACM0 or COM5")
    parser.add_argument("--cards", type=Path, help="the card set: the file from tractor-table enroll, or its exported card map (cards.bin)")
    parser.add_argument(
        "--rules",
        metavar="PRESET",
        help=rules_help("rules the table plays, written into table.cfg", None)
        + "; default: the table's own (classic)",
    )
    parser.add_argument("--config", type=Path, help="a table.cfg of your own to copy instead of the generated one")
    parser.add_argument("--no-reset", action="store_true", help="leave the board in the REPL instead of restarting it")
    parser.add_argument(
        "--self-test",
        nargs="?",
        const="quick",
        choices=["quick", "interactive"],
        help="after copying, run the table's self-test (interactive: also tap a card and press the button at each seat)",
    )
    parser.add_argument("--timeout", type=float, default=10.0, help="seconds to wait for the board's REPL (default 10)")


def check_inputs(args: argparse.Namespace) -> None:
    """The files and names given on the command line, checked before the port is
    touched, so that a mistyped path or preset is said at once, with or without a
    board plugged in (the card set's contents are checked later, by the
    firmware's own parser)."""
    from shengji.rules import PRESETS

    if args.config is not None and args.rules:
        raise CommandError("give either --config FILE or --rules PRESET, not both (the rules go into table.cfg)")
    if args.rules and args.rules not in PRESETS:
        raise CommandError(f"--rules {args.rules}: unknown preset; choose one of {', '.join(PRESETS)}")
    for option, path, what in (
        ("--cards", args.cards, "make one with 'tractor-table enroll'"),
        ("--config", args.config, "give a table.cfg file, or leave --config out"),
    ):
        if path is None:
            continue
        if path.is_dir():
            raise CommandError(f"{option} {path}: is a folder, not a file")
        if not path.is_file():
            raise CommandError(f"{option} {path}: no such file ({what})")
    if not args.timeout > 0:
        raise CommandError(f"--timeout must be a number of seconds above 0, not {args.timeout:g}")


def run(args: argparse.Namespace) -> int:
    from ..deploy.run import deploy  # mpremote and the build load only when this command runs

    check_inputs(args)
    deploy(
        args.port,
        cards=args.cards,
        config=args.config,
        reset=not args.no_reset,
        timeout=args.timeout,
        self_test=args.self_test or "",
        rules=args.rules or "",
    )
    return 0
