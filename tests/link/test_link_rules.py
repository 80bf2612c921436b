"""``tractor-table link`` meets the rules the table says it plays (the rules
digest of its WELCOME, docs/protocol.md): with ``--rules`` it compares and says
in one line which options differ; without, it takes the table's."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from shengji import Rules
from tractor_table import rulescodec
from tractor_table.cli import main
from tractor_table.sim.virtual.runner import VirtualTable


@pytest.fixture(scope="module")
def two_deck_table() -> Iterator[VirtualTable]:
    vt = VirtualTable(2, readers="direct", rules=Rules.preset("tournament"))
    vt.start(host_link=False)  # its terminal for the command's link
    try:
        yield vt
    finally:
        vt.close()


def _link(port: str, *args: str) -> list[str]:
    return ["link", "--port", port, "--seconds", "0.2", "--no-record", "--quiet", *args]


def test_link_with_other_rules_says_which_options_differ(
    two_deck_table: VirtualTable, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(_link(two_deck_table.port, "--rules", "onedeck")) == 0
    out = capsys.readouterr().out.splitlines()
    said = [line.strip() for line in out if line.startswith("  the table plays other rules")]
    assert len(said) == 1, out  # once, under "link up"
    line = said[0]
    assert line.startswith(
        "the table plays other rules than --rules onedeck (decks 1 here, 2 on the table; "
        "throw_penalty 0 here, 10 on the table; level_table onedeck here, tournament on the table; "
    )
    assert "must_play none here, 2 A on the table" in line and "revoke flag here, forfeit on the table" in line
    assert line.endswith("run with --rules tournament to judge by the table's rules, or redeploy the table "
                         "(tractor-table deploy --rules)")
    assert out[-1].startswith("not verifying: the table plays other rules than --rules onedeck")


def test_link_with_the_tables_rules_verifies(two_deck_table: VirtualTable, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(_link(two_deck_table.port, "--rules", "tournament")) == 0
    out = capsys.readouterr().out
    assert "other rules" not in out and "not verifying" not in out
    assert "disagreements" in out.splitlines()[-1]


def test_link_without_rules_takes_the_tables(two_deck_table: VirtualTable, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(_link(two_deck_table.port)) == 0
    out = capsys.readouterr().out
    assert "  rules: the table's, preset tournament" in out.splitlines()
    assert "not verifying" not in out


def test_the_tables_welcome_carries_its_digest(two_deck_table: VirtualTable) -> None:
    from tractor_table.link.notes import Up
    from tractor_table.link.serial_link import SerialLink

    ups: list[Up] = []
    with SerialLink(two_deck_table.port, on_note=lambda n: ups.append(n) if isinstance(n, Up) else None) as link:
        assert link.wait_synced(20)
    assert ups and ups[0].rules_digest == rulescodec.digest(Rules.preset("tournament"))
    assert len(ups[0].welcome) == 10


def test_the_snapshot_carries_the_digest_and_the_host_checks_it() -> None:
    import json

    from tractor_table.link.engine_replayer import EngineReplayer
    from tractor_table.vocab.enums import TablePhase
    from tractor_table.vocab.loader import firmware
    from tractor_table.vocab.snapshot import Snapshot

    # the table's own snapshot, made by the firmware's table core under CPython
    tablerules, table = firmware("tablerules"), firmware("table")
    r = tablerules.TableRules(2)
    r.digest = rulescodec.digest(Rules.preset("tournament"))
    t = table.Table(r, decks=2)
    raw = t.snapshot()
    snap = Snapshot.parse(raw)
    assert snap.rules_digest == r.digest and snap.phase == TablePhase.DEAL
    assert snap.to_list() == raw
    # the host judging by the same rules rebuilds from it; by other rules it says which differ
    same = EngineReplayer(Rules.preset("tournament"))
    same.reset(json.dumps(raw).encode())
    assert same.lost == ""
    other = EngineReplayer(Rules())
    other.reset(json.dumps(raw).encode())
    assert other.lost.startswith("cannot rebuild the hand from the table's snapshot (the table plays other rules "
                                 "than the host's rules (throw_penalty 0 here, 10 on the table;")
