"""The rules a command judges a table by: ``--rules PRESET`` with ``--decks``
(shared by link, console and virtual)."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from ..errors import CommandError

if TYPE_CHECKING:
    from shengji.rules import Rules


def table_rules(args: argparse.Namespace) -> Rules:
    """The full engine's rules: the preset ``args.rules``, with ``args.decks`` if
    given; an impossible pair is one line naming both options."""
    from shengji.rules import InvalidRulesError, Rules

    try:
        return Rules.preset(args.rules, **({"decks": args.decks} if args.decks else {}))
    except InvalidRulesError as exc:
        raise CommandError(f"--rules/--decks: {exc}") from None
