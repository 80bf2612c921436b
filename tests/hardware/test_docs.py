"""The bill of materials and the builder's README agree with the pin map, the
commands and the make targets they mention."""

from __future__ import annotations

import argparse
import csv
import re
from typing import cast

from tractor_table import cli, hardware

ROOT = hardware.PINMAP_PATH.parents[1]


def bom() -> list[dict[str, str]]:
    with (ROOT / "hardware" / "bom.csv").open(newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def quantity(word: str) -> int:
    rows = [r for r in bom() if word.lower() in r["part"].lower()]
    assert len(rows) == 1, (word, rows)
    return int(rows[0]["quantity"])


def test_bom_rows_are_complete() -> None:
    rows = bom()
    assert [r["item"] for r in rows] == [str(i) for i in range(1, len(rows) + 1)]
    for r in rows:
        assert set(r) == {"item", "quantity", "part", "specification", "notes"}
        assert int(r["quantity"]) > 0, r
        assert r["part"].strip() and r["specification"].strip() and r["notes"].strip(), r


def test_bom_matches_the_pin_map_and_the_game() -> None:
    pm = hardware.load()
    assert quantity("PN532 NFC reader board") == len(pm.readers) == 4
    assert quantity("push button") == len(pm.buttons)
    assert quantity("Seat cable") == len(pm.readers)
    assert quantity("Resistor 10 kohm") == len(pm.readers)  # one CS pull-up per reader
    assert quantity("Capacitor 10 uF") == len(pm.readers)
    assert quantity("NTAG213") >= 2 * 54 + 10  # two decks with jokers, and spares
    assert quantity("Playing card deck") * 54 == 108
    display = next(r for r in bom() if "SSD1306" in r["part"])
    assert "128x64" in display["specification"] and f"0x{pm.display_address:02X}" in display["specification"]
    assert "SPI" in next(r for r in bom() if "PN532 NFC reader board" == r["part"])["notes"]


def readme() -> str:
    return (ROOT / "hardware" / "README.md").read_text(encoding="utf-8")


def test_readme_commands_exist() -> None:
    used = set(re.findall(r"tractor-table ([a-z][a-z-]+)", readme()))
    assert {"deploy", "enroll", "deckcheck"} <= used
    assert used <= set(cli.COMMANDS), used - set(cli.COMMANDS)


def test_readme_make_targets_exist() -> None:
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    targets = set(re.findall(r"^([a-z-]+):", makefile, re.M))
    used = set(re.findall(r"`make ([a-z-]+)", readme())) | set(re.findall(r"^make ([a-z-]+)", readme(), re.M))
    assert {"deploy", "hardware", "firmware"} <= used
    assert used <= targets, used - targets


def test_readme_options_exist() -> None:
    # every --option the README gives to deploy, enroll or deckcheck is one the command takes
    parser = cli.build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    choices = cast(dict[str, argparse.ArgumentParser], sub.choices)
    for line in readme().splitlines():
        for cmd, rest in re.findall(r"tractor-table (deploy|enroll|deckcheck)((?: [^`|]*)?)", line):
            options = {s for a in choices[cmd]._actions for s in a.option_strings}
            for opt in re.findall(r"(--[a-z-]+)", rest):
                assert opt in options, (cmd, opt, line)


def test_readme_covers_what_a_builder_needs() -> None:
    text = readme()
    for heading in (
        "## Assembly",
        "## Reader placement and spacing",
        "## Power budget over USB",
        "## Stickers on the cards",
        "## Enrolling the cards",
        "## Deploying the firmware",
        "## The first-boot self-test",
        "## Troubleshooting",
    ):
        assert heading in text
    for symptom in ("reader: no answer", "misreads", "blank display", "table not seen by the host"):
        assert symptom in text
