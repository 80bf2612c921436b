"""The bill of materials and the builder's README agree with the pin map, the
commands and the make targets they mention."""

from __future__ import annotations

import argparse
import csv
import re
from typing import cast

from tractor_table import cli
from tractor_table.hardware import pinmap as hw_pinmap
from tractor_table.hardware import svg as hw_svg

ROOT = hw_pinmap.PINMAP_PATH.parents[1]


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
        assert int(r["quantity"]) > 0, r
        assert r["part"].strip() and r["specification"].strip() and r["notes"].strip(), r


def test_bom_matches_the_pin_map_and_the_game() -> None:
    pm = hw_pinmap.load()
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
        "## The reader's RSTPDN",
        "### A larger display (option)",
        "## Stickers on the cards",
        "## Enrolling the cards",
        "## Deploying the firmware",
        "## The first-boot self-test",
        "## Troubleshooting",
    ):
        assert heading in text
    for symptom in ("reader: no answer", "misreads", "blank display", "table not seen by the host"):
        assert symptom in text


def cents(text: str) -> int:
    assert re.fullmatch(r"\d+\.\d\d", text), text
    return int(text.replace(".", ""))


def row(word: str) -> dict[str, str]:
    rows = [r for r in bom() if word.lower() in r["part"].lower()]
    assert len(rows) == 1, (word, rows)
    return rows[0]


def test_bom_prices_add_up() -> None:
    for r in bom():
        assert set(r) == {"item", "quantity", "part", "specification", "notes", "unit_usd", "line_usd", "optional"}
        assert r["optional"] in ("yes", "no"), r
        # every row has a price, and its line is quantity x unit price, to the cent
        assert cents(r["unit_usd"]) > 0, r
        assert cents(r["line_usd"]) == int(r["quantity"]) * cents(r["unit_usd"]), r


def test_bom_total_in_the_readme_adds_up() -> None:
    rows = bom()
    total = sum(cents(r["line_usd"]) for r in rows if r["optional"] == "no")
    text = readme()
    marker = text.index("<!-- bom-total")
    stated = re.search(r"costs about \*\*\$(\d+\.\d\d)\*\*", text[marker:])
    assert stated is not None
    assert cents(stated.group(1)) == total, (stated.group(1), total / 100)
    options = [r for r in rows if r["optional"] == "yes"]
    assert len(options) >= 2
    for r in options:  # each option's price is named where the total is
        assert f"(${r['line_usd']}" in text[marker : marker + 1500], r["part"]


def test_bom_has_the_build_review_parts() -> None:
    pm = hw_pinmap.load()
    pw, sw = pm.power, pm.seat_wiring
    reg = row("Voltage regulator")
    assert pw.reader_regulator in reg["specification"] and reg["optional"] == "no"
    assert "VBUS" in reg["notes"] and "500 mA" in reg["notes"]
    bulk = row(f"Capacitor {pw.bulk_capacitor_uf} uF")
    assert int(bulk["quantity"]) == 1 and "hub" in bulk["notes"]
    assert quantity(f"Capacitor {pw.seat_capacitor_uf} uF") == len(pm.readers)
    series = row(f"Resistor {sw.series_ohms} ohm")
    assert int(series["quantity"]) == 2 * len(pm.readers)  # SCK and MOSI of each seat
    assert "SCK" in series["notes"] and "MOSI" in series["notes"]
    assert quantity(f"Resistor {hw_svg.ohms(sw.button_series_ohms).replace(' k', ' kohm')}") == len(pm.buttons)
    assert quantity(f"Capacitor {sw.button_capacitor_nf} nF") == len(pm.buttons)
    cable = row("Seat cable")
    assert f"{len(sw.order)}-conductor" in cable["specification"]
    assert f"at most {sw.max_length_cm} cm" in cable["specification"]
    order = ", ".join(f"{k + 1} {c}" for k, c in enumerate(sw.order))
    assert order.replace("1 3V3", "1 3V3 (readers' regulator)") in cable["notes"]
    tags = row("NTAG213")
    assert "25 mm" in tags["specification"] and "or smaller" not in tags["specification"]
    assert "PET" in tags["specification"] + tags["notes"]
    assert quantity("Card sleeve") >= 108
    assert row("enclosure")["optional"] == "no" and row("Strain relief")["optional"] == "no"
    big = row("SSD1309")
    assert big["optional"] == "yes" and "2.42" in big["specification"] and "firmware" in big["notes"]
    enroll = row("enrollment reader")
    assert enroll["optional"] == "yes" and "5V pin" in enroll["notes"]


def section(text: str, heading: str) -> str:
    body = text[text.index(heading) + len(heading) :]
    return body[: body.index("\n## ")] if "\n## " in body else body


def test_readme_has_the_build_review_points() -> None:
    text = readme()
    assert "**Power off before reseating a seat cable**" in text
    rst = section(text, "## The reader's RSTPDN")
    assert "pad on the back of the board" in rst and "RSTO" in rst
    assert "at least about 2.5 V" in rst and "Measure it" in rst
    assert "bridge" in rst and "Adafruit PN532 breakout" in rst
    budget = section(text, "## Power budget over USB")
    assert "| load | datasheet | measured (by others) |" in budget
    for part in ("polling reader, RF field on", "waiting readers", "SSD1306", "the Pico itself", "readers' rail total"):
        assert part in budget, part
    assert "Sources:" in budget
    big = section(text, "### A larger display (option)")
    assert "0x8D" in big and "firmware/ssd1309.py" in big and "RES" in big
    assert 'kind = "SSD1309"' in big and "reset = 20" in big
    pm = hw_pinmap.load()
    assert f"{pm.seat_wiring.series_ohms} Ω resistor in series on SCK and on MOSI" in text
    assert "SCK has a ground on either side" in text


def test_the_power_budget_of_each_reader_grouping_adds_up() -> None:
    # issue 22: hardware/README.md gives the current draw of each grouping
    # table.cfg accepts (firmware/tableconfig.py: reader_groups), from the
    # per-reader figures of its budget table, and says which one USB's
    # 500 mA cannot carry at worst
    text = readme()
    part = text[text.index("### How many fields at once") :]
    part = part[: part.index("\n#")]
    fw = (ROOT / "firmware" / "tableconfig.py").read_text(encoding="utf-8")
    accepted = re.search(r'if g not in \(([^)]*)\)', fw)
    assert accepted is not None
    groupings = re.findall(r'"(\w+)"', accepted.group(1))
    assert sorted(groupings) == ["all", "one", "pairs"]
    # the budget's figures: a reader with its field on (typical, worst), a
    # waiting one; 3V3(OUT) and the Pico at 5 V (typical / worst)
    m = re.search(r"\((\d+) mA worst, (\d+) mA\s+typical with the field on; (\d+) mA waiting\)", part)
    assert m is not None, part[:600]
    worst_on, typ_on, waiting = (int(x) for x in m.groups())
    rows = {r[0]: r for r in re.findall(r"^\| `(\w+)`[^|]*\| (\d) \| ([^|]*)\| ([^|]*)\| ([^|]*)\| ([^|]*)\|$", part, re.M)}
    assert sorted(rows) == sorted(groupings), rows
    for g, (_, fields, rail, usb_worst, usb_typ, verdict) in rows.items():
        n = int(fields)
        assert n == {"one": 1, "pairs": 2, "all": 4}[g]
        rail_worst = n * worst_on + (4 - n) * waiting
        assert rail.strip().endswith(f"= {rail_worst} mA"), (g, rail)
        worst = rail_worst + 21 + 38  # 3V3(OUT)'s 29 mA at 5 V, the Pico
        assert f"**{worst} mA**" in usb_worst, (g, usb_worst, worst)
        typical = n * typ_on + (4 - n) * waiting + 7 + 25
        assert usb_typ.strip().endswith(f"= {typical} mA"), (g, usb_typ, typical)
        assert ("over" in verdict) == (worst > 500), (g, verdict)
