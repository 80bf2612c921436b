"""``tractor-table firmware``: compile the firmware into ``build/firmware``."""

from __future__ import annotations

import argparse

from .. import firmware_build


def configure(parser: argparse.ArgumentParser) -> None:
    del parser  # no options


def run(args: argparse.Namespace) -> int:
    del args
    return firmware_build.main()
