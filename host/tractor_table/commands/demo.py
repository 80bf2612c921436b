"""``tractor-table demo``: the most complete end-to-end run the project has.

In order of preference: the virtual table (the real firmware under
MicroPython with simulated readers and bots, followed by the host), else a
simulated bot match of the full rules engine.
"""

from __future__ import annotations

import argparse
import importlib

from ..errors import CommandError

#: (command module, argv for it), best first.
CANDIDATES: list[tuple[str, list[str]]] = [
    ("virtual", ["--bots", "--hands", "1"]),
    ("simulate", ["--hands", "4", "--seed", "1", "--rules", "classic"]),
]


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--list", action="store_true", help="show what the demo would run")


def run(args: argparse.Namespace) -> int:
    from .. import cli

    for module_name, argv in CANDIDATES:
        try:
            importlib.import_module(f"{__package__}.{module_name}")
        except ModuleNotFoundError:
            continue
        name = next(n for n, c in cli.COMMANDS.items() if c.module == module_name)
        if args.list:
            print("tractor-table " + " ".join([name, *argv]))
            return 0
        return cli.main([name, *argv])
    raise CommandError("nothing to demonstrate yet: neither the virtual table nor the simulator is built")
