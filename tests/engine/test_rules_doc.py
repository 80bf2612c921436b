"""docs/rules.md's tables of options and presets say what shengji.rules does:
every option with its values (default first), every preset with its decks and
exactly the options it changes."""

from __future__ import annotations

import dataclasses
import enum
import re
from pathlib import Path
from typing import Any

from shengji.rules import PRESETS, Rules

DOC = Path(__file__).resolve().parents[2] / "docs" / "rules.md"


def _table(heading_line: str) -> list[list[str]]:
    """The rows (cells stripped) of the first table after the line starting with ``heading_line``."""
    lines = DOC.read_text(encoding="utf-8").splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(heading_line))
    rows: list[list[str]] = []
    for line in lines[start + 1 :]:
        if line.startswith("|"):
            rows.append([c.strip() for c in line.strip().strip("|").split("|")])
        elif rows:
            break
    return rows[1:]  # without the rule line under the header


def _plain(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, enum.Enum):
        return str(value.value)
    return str(value)


def test_every_option_is_listed_with_its_values_default_first() -> None:
    rows = _table("| option |")
    listed = [r[0].strip("`") for r in rows]
    fields = [f.name for f in dataclasses.fields(Rules)]
    assert listed == fields
    default = Rules()
    for row in rows:
        name = row[0].strip("`")
        values = [v.strip().strip("`") for v in row[1].split(",")]
        value = getattr(default, name)
        if isinstance(value, enum.Enum):
            assert values == [m.value for m in type(value)], name
        elif isinstance(value, bool):
            assert values == [_plain(value), _plain(not value)], name
        elif name == "must_play":
            assert values[0] == "none" and value == ()
        else:
            assert values[0] == _plain(value), name


def test_every_preset_is_listed_with_exactly_what_it_changes() -> None:
    rows = _table("| preset |")
    assert [r[0].strip("`") for r in rows] == list(PRESETS)
    default = Rules()
    for name, decks, changes in rows:
        name = name.strip("`")
        rules = Rules.preset(name)
        assert int(decks) == rules.decks, name
        changed = {
            f.name
            for f in dataclasses.fields(Rules)
            if f.name != "decks" and getattr(rules, f.name) != getattr(default, f.name)
        }
        said = dict(re.findall(r"`([a-z_]+)(?:=([^`]+))?`", changes))
        said.pop("classic", None)
        assert set(said) == changed, name
        for option, text in said.items():
            value = getattr(rules, option)
            if option == "must_play":
                assert text.split() == [r.letter for r in value], name
            elif text:
                assert text == _plain(value), (name, option)
            else:
                assert value is True, (name, option)  # a bare `option` means it is turned on


def test_the_table_of_options_follows_the_schema() -> None:
    # the same check, from the schema (shengji.rules.OPTIONS): each option's row,
    # its values with the default first and the section it cites
    from tractor_table.ruletable import docs_problems

    assert docs_problems() == []
