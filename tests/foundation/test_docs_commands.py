"""The commands, options and make targets that README.md and the pages in
docs/ tell a reader to type exist: every ``tractor-table COMMAND`` is a
command, every ``--option`` after it is one that command takes, every ``make
TARGET`` is a target of the Makefile, and README's table of commands lists
exactly the commands there are."""

from __future__ import annotations

import argparse
import re
from pathlib import Path
from typing import cast

import pytest
from tractor_table import cli

ROOT = Path(__file__).resolve().parents[2]
PAGES = [ROOT / "README.md", ROOT / "hardware" / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def _commands() -> dict[str, argparse.ArgumentParser]:
    parser = cli.build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    return cast(dict[str, argparse.ArgumentParser], sub.choices)


def _code_spans(text: str) -> list[str]:
    """Inline code and the lines of fenced or indented code blocks."""
    spans = re.findall(r"`([^`\n]+)`", text)
    block = False
    for line in text.splitlines():
        if line.startswith("```"):
            block = not block
            continue
        if (block or line.startswith("    ")) and not line.strip().startswith("#"):
            spans.append(line.strip())
    return spans


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_commands_and_options_in_the_docs_exist(page: Path) -> None:
    commands = _commands()
    for span in _code_spans(page.read_text(encoding="utf-8")):
        for name, rest in re.findall(r"tractor-table ([a-z][a-z0-9-]*)((?: [^|;#]*)?)", span):
            if name in ("COMMAND", "card"):  # the placeholder; a card-set file's first line
                continue
            assert name in commands, (page.name, span)
            options = {s for a in commands[name]._actions for s in a.option_strings}
            for opt in re.findall(r"(?<![\w-])(--[a-z][a-z-]*)", rest):
                assert opt in options, (page.name, name, opt, span)


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_make_targets_in_the_docs_exist(page: Path) -> None:
    targets = set(re.findall(r"^([a-z-]+):", (ROOT / "Makefile").read_text(encoding="utf-8"), re.M))
    for span in _code_spans(page.read_text(encoding="utf-8")):
        if span.startswith("#"):
            continue  # a comment in a shell block
        for target in re.findall(r"^make ([a-z][a-z-]*)", span):
            assert target in targets, (page.name, span)


def test_readme_lists_every_command() -> None:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text.split("## Commands", 1)[1].split("\n## ", 1)[0]
    listed = set(re.findall(r"^\| `([a-z0-9-]+)`(?:, `([a-z0-9-]+)`)? \|", section, re.M))
    names = {n for pair in listed for n in pair if n}
    assert names == set(cli.COMMANDS)
