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


#: What each preset of shengji.rules.PRESETS is, in a few words (docs/rules.md
#: §0, "Presets"); tests/foundation/test_messages.py checks that every
#: preset is here.
PRESET_WORDS = {
    "classic": "2 decks, every default",
    "qq": "2 decks, QQ game rooms",
    "lianzhong": "2 decks, Lianzhong online",
    "tournament": "2 decks, tournament ladder and penalties",
    "onedeck": "1 deck, 40 points",
    "titanic": "3 decks, triples and Titanics",
    "friend": "2 decks, the dealer calls a card for its partner",
    "xuwen": "4 decks, Xuwen",
}


def presets_text() -> str:
    """The presets, each with a few words: for --help."""
    return "; ".join(f"{name} ({words})" for name, words in PRESET_WORDS.items())


def rules_help(what: str = "the rules the table plays", default: str | None = "classic") -> str:
    """--rules' help: what it is, the presets and where the rules are written."""
    tail = f"; default {default}" if default else ""
    return f"{what}: a preset of docs/rules.md §0: {presets_text()}{tail}"
