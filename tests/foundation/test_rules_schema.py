"""One rules schema (shengji.rules.OPTIONS): the firmware's option table is
generated from it (and checked for staleness, as hwconfig.py is), the host's
codec (tractor_table.rulescodec) and the docs check follow it, and the table's
reader of table.cfg (firmware/tableconfig.py, under MicroPython) gives the
digest the host computes. A made-up option added to the schema is followed by
each, or named by what is missing."""

from __future__ import annotations

import dataclasses
import shutil
from pathlib import Path

import pytest
from shengji.rules import OPTIONS, PRESETS, Option, OptionKind, Rules
from tractor_table import mpy, rulescodec, ruletable
from tractor_table.paths import FIRMWARE_DIR
from tractor_table.vocab import loader

#: the made-up option: a flag of §2, off by default
MADE_UP = Option("jokers_low", OptionKind.FLAG, False, "§2", "the jokers rank below the level cards")
#: and a made-up choice, to see a choice's numbers follow
MADE_UP_CHOICE = Option("deal_order", OptionKind.CHOICE, "left", "§1", "which way the cards go", ("left", "right", "across"))
EXTENDED = (*OPTIONS, MADE_UP, MADE_UP_CHOICE)


def _firmware_reads(cfg_text: str, src: Path, decks: int = 2) -> tuple[str, list[str], dict[str, object]]:
    """(digest, problems, TableRules arguments) of firmware/tableconfig.py reading ``cfg_text``, under MicroPython."""
    cfg = src / "table.cfg"
    cfg.write_text(cfg_text)
    code = (
        "import tableconfig as t\n"
        f"o = t.Options(t.read({str(cfg)!r}), {decks})\n"
        "print(repr((o.digest, o.problems, o.rules)))\n"
    )
    proc = mpy.run(code=code, path=[src], heapsize="128K", timeout=30)
    assert proc.returncode == 0, proc.stderr
    import ast

    digest, problems, rules = ast.literal_eval(proc.stdout.strip())
    return digest, problems, rules


def test_the_schema_is_every_option_of_rules_in_order() -> None:
    assert [o.name for o in OPTIONS] == [f.name for f in dataclasses.fields(Rules)]
    plain = Rules().to_dict()
    for o in OPTIONS:
        assert plain[o.name] == o.default, o.name
        assert o.section.startswith("§"), o.name


def test_the_firmware_table_is_what_the_schema_generates() -> None:
    assert ruletable.stale() == [], "run 'make rules' and commit firmware/ruleopts.py"


def test_the_check_mode_reports_a_stale_table(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    fake = tmp_path / "ruleopts.py"
    fake.write_text("# edited by hand\n")
    monkeypatch.setattr(ruletable, "RULEOPTS_PATH", fake)
    assert ruletable.main(["--check"]) == 1
    assert "ruleopts.py (run 'make rules')" in capsys.readouterr().err
    monkeypatch.setattr(ruletable, "FIRMWARE_DIR", tmp_path.parent)
    assert ruletable.main([]) == 0 and ruletable.main(["--check"]) == 0
    assert fake.read_text() == ruletable.render()


def test_choice_numbers_are_the_device_engines_constants() -> None:
    # a choice's device number is its index in the schema: the firmware's constants agree
    dh, dr = loader.firmware("drules_hand"), loader.firmware("drules")
    prefixes = {"kitty_multiplier": (dr, "KM_"), "level_table": (dh, "LT_"), "level_ladder": (dh, "LL_"),
                "no_bid": (dh, "NB_"), "first_dealer": (dh, "FD_")}
    for o in OPTIONS:
        if o.name in prefixes:
            module, prefix = prefixes[o.name]
            for k, value in enumerate(o.values):
                assert getattr(module, prefix + value.upper()) == k, (o.name, value)


def test_the_docs_follow_the_schema() -> None:
    assert ruletable.docs_problems() == []


@pytest.mark.parametrize("preset", list(PRESETS))
def test_codec_round_trips_every_preset(preset: str) -> None:
    rules = Rules.preset(preset)
    text = rulescodec.table_cfg(rules)
    assert Rules.from_dict(rulescodec.read_cfg(text)) == rules
    assert rulescodec.rules_of_digest(rulescodec.digest(rules)) == rules
    assert rulescodec.differences(rules, rules) == []


def test_the_firmware_digest_is_the_hosts_for_every_preset(tmp_path: Path) -> None:
    # one MicroPython run per preset would be slow: all presets in one program
    import ast

    lines = []
    for name in PRESETS:
        rules = Rules.preset(name)
        cfg = tmp_path / f"{name}.cfg"
        cfg.write_text(rulescodec.table_cfg(rules))
        lines.append(f"print(repr(t.Options(t.read({str(cfg)!r}), {rules.decks}).digest))")
    proc = mpy.run(code="import tableconfig as t\n" + "\n".join(lines) + "\n", path=[FIRMWARE_DIR], heapsize="128K", timeout=60)
    assert proc.returncode == 0, proc.stderr
    got = [ast.literal_eval(line) for line in proc.stdout.split()]
    assert got == [rulescodec.digest(Rules.preset(name)) for name in PRESETS]


def test_a_mismatch_names_the_options_that_differ_and_what_to_do() -> None:
    line = rulescodec.mismatch_line(rulescodec.digest(Rules()), Rules.preset("onedeck"), "--rules onedeck")
    assert line.startswith("the table plays other rules than --rules onedeck (decks 1 here, 2 on the table; "
                           "level_table onedeck here, classic on the table)")
    assert "run with --rules classic" in line and "\n" not in line
    tour = rulescodec.mismatch_line(rulescodec.digest(Rules.preset("tournament")), Rules())
    assert "must_play none here, 2 A on the table" in tour and "run with --rules tournament" in tour
    odd = Rules.preset("classic", permanent_twos=True)
    assert "run without --rules" in rulescodec.mismatch_line(rulescodec.digest(odd), Rules())


def test_a_digest_from_another_schema_is_refused_with_what_to_do() -> None:
    with pytest.raises(rulescodec.RulesCodecError, match="has 16 options, this host knows 15"):
        rulescodec.read_digest(rulescodec.digest(Rules(), EXTENDED[:16]))
    with pytest.raises(rulescodec.RulesCodecError, match="level_table: 9 is not a value"):
        rulescodec.read_digest("2.0.0.0.0.0.9.0.0.1.0.0.0.0.0")
    with pytest.raises(rulescodec.RulesCodecError, match="level_table"):
        rulescodec.rules_of_digest("2.0.0.0.0.0.4.0.0.1.0.0.0.0.0")  # the one-deck table with 2 decks


# ---- a made-up option --------------------------------------------------------------------------


def test_a_made_up_option_reaches_the_firmware_table_the_codec_and_the_table(tmp_path: Path) -> None:
    # the generated table gains its rows, and the checked-in one is then stale, by name
    text = ruletable.render(EXTENDED)
    assert '("jokers_low", FLAG, (), 0),  # docs/rules.md §2' in text
    assert '("deal_order", CHOICE, ("left", "right", "across"), 0),  # docs/rules.md §1' in text
    assert ruletable.stale(EXTENDED) == [ruletable.RULEOPTS_PATH]
    # the codec writes it into table.cfg and into the digest, and reads both back
    values = {**Rules.preset("tournament").to_dict(), "jokers_low": True, "deal_order": "across"}
    cfg = rulescodec.table_cfg(values, schema=EXTENDED)
    assert "jokers_low=1\ndeal_order=across\n" in cfg
    assert rulescodec.read_cfg(cfg, EXTENDED) == rulescodec.plain(values, EXTENDED)
    digest = rulescodec.digest(values, EXTENDED)
    assert digest.endswith(".1.2") and rulescodec.read_digest(digest, EXTENDED) == rulescodec.plain(values, EXTENDED)
    assert rulescodec.differences({"jokers_low": False}, values, EXTENDED)[-2:] == [
        ("jokers_low", "false", "true"), ("deal_order", "left", "across")]
    # the table's reader, with the generated table, reads it and says it in its digest
    src = tmp_path / "firmware"
    src.mkdir()
    for name in ("tableconfig.py", "drules_hand.py"):
        shutil.copy(FIRMWARE_DIR / name, src)
    (src / "ruleopts.py").write_text(text)
    got, problems, rules = _firmware_reads(cfg, src)
    assert problems == [] and got == digest
    assert rules["jokers_low"] is True and rules["deal_order"] == 2  # TableRules' new arguments
    # a bad value of it is named as any other option's
    _, problems, _ = _firmware_reads("deal_order=sideways\njokers_low=maybe\n", src)
    assert problems == ["jokers_low: not 0 or 1: maybe", "deal_order: unknown value sideways"]
    # without the new table the firmware does not know it: the host's digest has two options more
    got, _, _ = _firmware_reads(cfg, _plain_copy(tmp_path))
    with pytest.raises(rulescodec.RulesCodecError, match="has 15 options, this host knows 17"):
        rulescodec.read_digest(got, EXTENDED)


def _plain_copy(tmp_path: Path) -> Path:
    src = tmp_path / "checked-in"
    src.mkdir()
    for name in ("tableconfig.py", "drules_hand.py", "ruleopts.py"):
        shutil.copy(FIRMWARE_DIR / name, src)
    return src


def test_a_made_up_option_missing_from_the_docs_is_named() -> None:
    problems = ruletable.docs_problems(EXTENDED)
    assert problems == [
        "docs/rules.md §0: option jokers_low is not in the table of options (add its row)",
        "docs/rules.md §0: option deal_order is not in the table of options (add its row)",
    ]
    # with its row added (default first, its section) the check passes
    doc = ruletable.RULES_DOC.read_text(encoding="utf-8")
    row = next(line + "\n" for line in doc.splitlines() if line.startswith("| `revoke` |"))
    added = doc.replace(row, row + "| `jokers_low` | false, true | the jokers rank low | §2 | made up |\n"
                        "| `deal_order` | `left`, `right`, `across` | which way | §1 | made up |\n")
    assert ruletable.docs_problems(EXTENDED, added) == []
    # a wrong section or the default not first is named
    wrong = added.replace("| the jokers rank low | §2 |", "| the jokers rank low | §3 |").replace(
        "`left`, `right`, `across`", "`right`, `left`, `across`")
    assert ruletable.docs_problems(EXTENDED, wrong) == [
        "docs/rules.md §0: jokers_low cites §3, the schema §2",
        "docs/rules.md §0: deal_order lists right, left, across, the schema left, right, across (default first)",
    ]


def test_the_engine_refuses_a_made_up_option_by_name() -> None:
    # the engine's logic is the one part a new option needs by hand: until then Rules names it
    from shengji.rules import InvalidRulesError

    with pytest.raises(InvalidRulesError, match="jokers_low: unknown option"):
        Rules.from_dict(rulescodec.plain({"jokers_low": True}, EXTENDED))
