"""End to end: hands on the virtual table (the real firmware under
MicroPython, its events over the link on a pty, the full engine judging
them) recorded in SQLite, then read back with ``tractor-table records``; and
``tractor-table link`` recording a table that reboots with another history."""

from __future__ import annotations

import json
import os
import sqlite3
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from records_device import PtyTable
from records_notes import hand_events
from shengji import Rules
from shengji import record as erecord
from tractor_table import cli
from tractor_table.events import describe
from tractor_table.link import ttlink
from tractor_table.link.engine_replayer import EngineReplayer
from tractor_table.link.verifier import Verifier
from tractor_table.records import Recorder, Store
from tractor_table.sim.virtual.game import BotGame
from tractor_table.sim.virtual.runner import VirtualTable


def _rebuilt_hand(rules: Rules, events: list[list[object]]) -> object:
    """The engine's hand built from the table's events by the verifier's replayer."""
    rp = EngineReplayer(rules)
    rp.reset(None)
    hand = None
    for k, ev in enumerate(events):
        rp.replay(k, ev)  # type: ignore[arg-type]
        hand = rp.hand or hand
    return hand


def test_a_virtual_table_hand_is_recorded_listed_shown_exported_and_checked(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rules = Rules(decks=1)
    db = tmp_path / "records.sqlite"
    store = Store.open(db)
    rec = Recorder(store, port="virtual", source="virtual", rules=rules)
    verifier = Verifier(EngineReplayer(rules), "rules-2026.1", describe=describe)
    vt = VirtualTable(1, readers="direct", rules=rules)
    vt.note_hooks.append(rec.follow(verifier))
    with vt:
        game = BotGame(vt, rules, seed=5, strength=1, say=lambda s: None)
        game.play(1)
        assert vt.link is not None
        vt.link.wait_for(lambda h: h.record.count >= 1 and h.record.events[-1][1][0] == 12, 5)
        events = vt.link.with_link(lambda h: [(h2, list(e)) for h2, e in h.record.events])
    store.close()
    assert rec.failed == "" and game.disagreements == [] and verifier.disagreements == []
    assert rec.new_events == len(events) > 40 and rec.verdicts == len(events)
    end = events[-1][1]
    assert end[0] == 12  # HAND_END

    capsys.readouterr()
    assert cli.main(["records", "list", "--db", str(db)]) == 0
    out = capsys.readouterr().out
    (line,) = [x for x in out.splitlines() if x.strip().startswith("1 ")]
    assert describe(end) in line
    cols = line.split()
    assert cols[0] == "1" and cols[3] == "1" and cols[5] == str(len(events)) and cols[6] == "0"

    assert cli.main(["records", "show", "1", "--db", str(db)]) == 0
    out = capsys.readouterr().out
    for k, (h, ev) in enumerate(events):
        assert f"{k:5d}  {h:08x}  {describe(ev)}  [agreed]" in out

    record_file = tmp_path / "hand1.jsonl"
    assert cli.main(["records", "export", "1", "--db", str(db), "--out", str(record_file)]) == 0
    text = record_file.read_text()
    head = json.loads(text.splitlines()[0])
    assert head["format"] == "tractor-table/hand" and head["rules"] == rules.to_dict()
    hand = erecord.replay(text)  # every line's engine state hash checked on the way
    rebuilt = _rebuilt_hand(rules, [ev for _, ev in events])
    assert hand.state_hash() == rebuilt.state_hash()  # type: ignore[attr-defined]
    res = hand.result()
    assert (res.score, res.kitty_points, res.multiplier) == tuple(end[1:4])

    events_file = tmp_path / "hand1.events.jsonl"
    assert cli.main(["records", "export", "1", "--db", str(db), "--out", str(events_file),
                     "--format", "events"]) == 0
    lines = [json.loads(x) for x in events_file.read_text().splitlines()]
    assert lines[0]["format"] == "tractor-table/table-events"
    assert [(x["hash"], x["event"]) for x in lines[1:]] == events

    assert cli.main(["records", "check", "--db", str(db)]) == 0
    out = capsys.readouterr().out
    assert f"{len(events)} event(s) in the chain checked" in out and "integrity: ok" in out


def test_the_virtual_command_records_by_default_where_it_says(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    assert cli.main(["virtual", "--bots", "--decks", "1", "--readers", "direct", "--seed", "3"]) == 0
    out = capsys.readouterr().out
    where = tmp_path / "data" / "tractor-table" / "records.sqlite"
    assert f"records: {where}" in out
    with Store.open(where, create=False) as store:
        (h,) = store.hands()
        assert h["status"] == "done" and h["disagreements"] == 0
        assert store.check()[0] == []
    assert cli.main(["virtual", "--bots", "--decks", "1", "--readers", "direct", "--no-record"]) == 0
    assert "records: off (--no-record)" in capsys.readouterr().out


def _query(db: Path, sql: str) -> list[tuple[Any, ...]]:
    """What the records hold now, read beside the writer (WAL); nothing yet: []."""
    try:
        con = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=1)
    except sqlite3.Error:
        return []
    try:
        return con.execute(sql).fetchall()
    except sqlite3.Error:
        return []
    finally:
        con.close()


def _count(db: Path, sql: str) -> int:
    rows = _query(db, sql)
    return int(rows[0][0]) if rows else -1


def _until(db: Path, what: str, sql: str, want: int) -> None:
    deadline = time.monotonic() + 20
    while _count(db, sql) != want:
        if time.monotonic() > deadline:
            raise AssertionError(f"the records never showed {what}: {_query(db, sql)}")
        time.sleep(0.02)


def _follow(table: PtyTable, db: Path, monkeypatch: pytest.MonkeyPatch, script: Callable[[], None]) -> None:
    """`tractor-table link` follows the table while ``script`` plays the table's
    part; each step of a script waits for the host to have recorded the one
    before (a slow machine changes the timing, not the story), then the script
    types "quit" on the command's stdin."""
    problems: list[str] = []
    read_end, write_end = os.pipe()

    def drive() -> None:
        try:
            script()
        except AssertionError as exc:
            problems.append(str(exc))
        finally:
            os.write(write_end, b"quit\n")

    driver = threading.Thread(target=drive, daemon=True)
    driver.start()
    stdin = os.fdopen(read_end, "r")
    monkeypatch.setattr(sys, "stdin", stdin)
    try:
        assert cli.main(["link", "--port", table.path, "--seconds", "60", "--no-verify",
                         "--db", str(db), "--quiet"]) == 0
    finally:
        driver.join(30)
        table.close()
        stdin.close()
        os.close(write_end)
    assert problems == []


def test_the_link_command_records_a_table_that_reboots_with_another_history(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    db = tmp_path / "r.sqlite"
    first = hand_events(1)
    table = PtyTable(0x1111, first)
    _follow(table, db, monkeypatch,
            lambda: _until(db, "the first events", "SELECT count(*) FROM events", len(first)))
    out = capsys.readouterr().out
    assert f"records: {db}" in out and f"{len(first)} new event(s)" in out
    assert out.splitlines()[-1].startswith(f"{len(first)} events: 0 judged")

    # the table rebooted and restored a save at event 10 (nothing of it in its
    # ring: the host gets its snapshot), then the game went on otherwise
    h9 = 0
    for ev in first[:10]:
        h9 = ttlink.chain_hash(h9, ev)
    table = PtyTable(0x2222, restore=(10, h9))
    later = [[6, 1, 2, 40], [6, 1, 3, 41]]

    def play_on() -> None:
        _until(db, "the snapshot", "SELECT count(*) FROM snapshots", 1)
        for ev in later:
            table.add(ev)
        _until(db, "the new events", "SELECT count(*) FROM events", len(first) + len(later))

    _follow(table, db, monkeypatch, play_on)
    out = capsys.readouterr().out
    assert "link snapshot: 10" in out and "2 new event(s)" in out and "1 conflict(s)" in out
    with Store.open(db) as store:
        assert store.counts()["tables"] == 1 and store.counts()["boots"] == 2
        assert store.counts()["snapshots"] == 1
        rows = store.query("SELECT idx, current, superseded_why FROM events WHERE idx >= 10 ORDER BY idx, id")
        assert rows == [(10, 0, "fork"), (10, 1, None), (11, 0, "fork"), (11, 1, None),
                        (12, 0, "fork"), (13, 0, "fork"), (14, 0, "fork")]
        problems, remarks = store.check()
        assert problems == [] and any("5 event(s) superseded (fork)" in r for r in remarks)


def test_the_link_command_records_a_rollback_while_it_follows(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The table reboots while the host follows it and restores a save from
    before the events the host already has: the host link's rollback; the
    game then goes on otherwise. The events the table lost stay recorded,
    marked superseded (rollback); the new ones are current."""
    db = tmp_path / "r.sqlite"
    first = hand_events(1)
    table = PtyTable(0x3333, first)
    h9 = 0
    for ev in first[:10]:
        h9 = ttlink.chain_hash(h9, ev)

    def reboot_and_play_on() -> None:
        _until(db, "the first events", "SELECT count(*) FROM events", len(first))
        table.reboot(0x4444, (10, h9))
        _until(db, "the rollback", "SELECT count(*) FROM link_notes WHERE kind = 'rollback'", 1)
        table.add(first[10])  # the same event again: stored once
        table.add([6, 1, 3, 41])  # then another game
        _until(db, "the new event", "SELECT count(*) FROM events WHERE idx = 11", 2)

    _follow(table, db, monkeypatch, reboot_and_play_on)
    out = capsys.readouterr().out
    assert "link reboot:" in out and "link rollback: 10 15" in out
    assert f"{len(first) + 1} new event(s)" in out and "1 conflict(s)" in out
    with Store.open(db) as store:
        assert store.counts()["tables"] == 1 and store.counts()["boots"] == 2
        assert store.counts()["sessions"] == 2
        rows = store.query("SELECT idx, current, superseded_why FROM events WHERE idx >= 10 "
                           "ORDER BY idx, id")
        assert rows == [(10, 1, None), (11, 0, "rollback"), (11, 1, None), (12, 0, "rollback"),
                        (13, 0, "rollback"), (14, 0, "rollback")]
        kinds = [r[0] for r in store.query("SELECT kind FROM link_notes ORDER BY id")]
        assert "reboot" in kinds and "rollback" in kinds
        assert store.check()[0] == []


def test_hands_lost_by_a_revoke_and_a_kitty_turned_up_are_recorded_and_exported(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Tournament rules (revoke = "forfeit", no_bid = "kitty") on the virtual
    table over the link: a seat revokes in each hand, nobody bids in hand 2
    (the kitty turned up). The list and show say who lost each hand by a
    revoke; each hand exports as an engine record that replays to the engine's
    own hand with the table's score; the records check out."""
    rules = Rules.preset("tournament")
    db = tmp_path / "records.sqlite"
    store = Store.open(db)
    rec = Recorder(store, port="virtual", source="virtual", rules=rules)
    verifier = Verifier(EngineReplayer(rules), "rules-2026.1", describe=describe)
    vt = VirtualTable(2, readers="direct", rules=rules)
    vt.note_hooks.append(rec.follow(verifier))
    with vt:
        game = BotGame(vt, rules, seed=638, strength=1, say=lambda s: None, revoke_from=2, quiet_hands=(2,))
        game.play(2)
        assert vt.link is not None
        vt.link.wait_for(lambda h: sum(1 for _, e in h.record.events if e[0] == 12) == 2, 5)
        events = vt.link.with_link(lambda h: [list(e) for _, e in h.record.events])
    store.close()
    assert rec.failed == "" and game.disagreements == [] and verifier.disagreements == []
    assert game.revokes == 2 and game.kitty_reveals == 1
    forfeits = [ev for ev in events if ev[0] == 15]
    assert len(forfeits) == 2 and any(ev[0] == 16 for ev in events)  # FORFEIT x2, KITTY_UP
    starts = [k for k, ev in enumerate(events) if ev[0] == 1] + [len(events)]

    capsys.readouterr()
    assert cli.main(["records", "list", "--db", str(db)]) == 0
    lines = [x for x in capsys.readouterr().out.splitlines() if x.strip()[:1].isdigit()]
    assert len(lines) == 2
    for line, ff in zip(lines, forfeits, strict=True):
        assert line.endswith(f"; lost by S{ff[2]}'s revoke (side {ff[2] & 1} forfeits)")
    for no in (1, 2):
        assert cli.main(["records", "show", str(no), "--db", str(db)]) == 0
        assert f"lost by S{forfeits[no - 1][2]}'s revoke" in capsys.readouterr().out
        out = tmp_path / f"hand{no}.jsonl"
        assert cli.main(["records", "export", str(no), "--db", str(db), "--out", str(out)]) == 0
        hand = erecord.replay(out.read_text())
        mine = events[starts[no - 1]:starts[no]]
        rebuilt = _rebuilt_hand(rules, events[: starts[no]])
        assert hand.state_hash() == rebuilt.state_hash()  # type: ignore[attr-defined]
        assert hand.forfeit == forfeits[no - 1][2] and hand.result().score == mine[-1][1]
    assert cli.main(["records", "check", "--db", str(db)]) == 0
    assert "integrity: ok" in capsys.readouterr().out
