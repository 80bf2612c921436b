"""Table identity: each table says who it is in the link's WELCOME (the
Pico's machine.unique_id(), a virtual table's identity made with it), so two
tables whose first events are alike keep records of their own; a file written
before (schema 2), where such tables were merged, is told apart where its
boots allow it."""

from __future__ import annotations

import io
import sqlite3
import sys
from pathlib import Path
from typing import Any

import pytest
from records_notes import FW, RULES_ID, event_notes, hand_events, head_of, up
from tractor_table import cli
from tractor_table.records import SCHEMA_VERSION, Recorder, Store
from tractor_table.records.schema import undo_5


def _up_uid(boot: int, uid: str, count: int = 0, head: int = 0) -> list[Any]:
    return ["up", [1, FW, RULES_ID, boot, 12345, count, head, 1, uid]]


def _feed(rec: Recorder, notes: list[list[Any]]) -> None:
    for n in notes:
        rec.on_note(n)
    assert rec.failed == ""


def test_two_tables_alike_at_first_keep_their_own_records(tmp_path: Path) -> None:
    one = event_notes(hand_events(1))
    other = event_notes(hand_events(1, card0=30))  # same first events, other plays
    with Store.open(tmp_path / "r.sqlite") as store:
        _feed(Recorder(store), [_up_uid(111, "e66130a1b2c3d4e5"), *one])
        # a new table that announces, after its first event, the same state hash
        rec = Recorder(store)
        _feed(rec, [_up_uid(222, "0011223344556677", count=1, head=head_of(other, 1)), *other])
        assert rec.conflicts == 0 and rec.replayed == 0
        hands = store.hands()
        assert [(h["table_id"], h["status"]) for h in hands] == [(1, "done"), (2, "done")]
        assert store.query("SELECT id, uid FROM tables ORDER BY id") == [
            (1, "e66130a1b2c3d4e5"), (2, "0011223344556677")]
        # the first table again (a reboot that kept its flash): its own records
        rec = Recorder(store)
        _feed(rec, [_up_uid(333, "e66130a1b2c3d4e5", count=len(one), head=head_of(one, len(one))),
                    *one])
        assert rec.table_id == 1 and rec.replayed == len(one) and rec.conflicts == 0
        assert store.check()[0] == []


def _as_schema_2(path: Path) -> None:
    """The file as today's schema 2 wrote it (no tables.uid)."""
    db = sqlite3.connect(path, isolation_level=None)
    undo_5(db)
    db.execute("DROP INDEX tables_uid")
    db.execute("ALTER TABLE tables DROP COLUMN uid")
    db.execute("PRAGMA user_version = 2")
    db.close()


def test_a_schema_2_file_that_merged_two_tables_is_told_apart(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite"
    one = event_notes(hand_events(1))
    other = event_notes(hand_events(1, card0=30))
    fork_at = next(k for k, (a, b) in enumerate(zip(one, other, strict=True)) if a[3] != b[3])
    with Store.open(path) as store:
        # without identities (as schema 2 recorded): the second table joins
        # the first at its first event, its history a fork of the first's
        _feed(Recorder(store), [up(111), *one])
        rec = Recorder(store)
        _feed(rec, [up(222, count=1, head=head_of(other, 1)), *other])
        assert rec.table_id == 1 and rec.conflicts == 1
        # one hand listed, the first table's hidden (the bug schema 3 fixes)
        assert [h["status"] for h in store.hands()] == ["done"]
        rec.on_verdict(0, "agreed")  # the second table's verdict on the shared event 0
    _as_schema_2(path)
    with Store.open(path) as store:
        assert store.query("PRAGMA user_version") == [(SCHEMA_VERSION,)]
        hands = store.hands()
        assert [(h["table_id"], h["status"], h["events"]) for h in hands] == [
            (1, "done", len(one)), (2, "done", len(other))]
        for h, notes in zip(hands, (one, other), strict=True):
            evs = store.hand_events(h)
            assert [(e["index"], e["hash"], e["event"].raw()) for e in evs] == [tuple(n[1:]) for n in notes]
            assert all(e["current"] for e in evs)
        assert store.query("SELECT table_id FROM boots ORDER BY boot_id") == [(1,), (2,)]
        # the verdict of table 2's session went with its copy of event 0
        assert store.query(
            "SELECT e.table_id, e.idx FROM verdicts v JOIN events e ON e.id = v.event_id"
        ) == [(2, 0)]
        assert fork_at > 0
        problems, remarks = store.check()
        assert problems == [] and not any("superseded" in r for r in remarks)


def test_a_rollback_of_one_table_stays_one_table_through_the_migration(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite"
    notes = event_notes(hand_events(1) + hand_events(2, dealer=1))
    cut = len(hand_events(1))
    again = event_notes(hand_events(1) + hand_events(2, dealer=3))
    with Store.open(path) as store:
        rec = Recorder(store)
        _feed(rec, [up(111), *notes])
        rec2 = Recorder(store)
        _feed(rec2, [up(222, count=cut, head=head_of(notes, cut)), ["rollback", cut, len(notes)],
                     *again[cut:]])
    _as_schema_2(path)
    with Store.open(path) as store:
        assert [(h["table_id"], h["status"]) for h in store.hands()] == [
            (1, "done"), (1, "rolled back"), (1, "done")]
        assert store.check()[0] == []


def test_two_demos_and_a_manual_hand_are_three_hands_nobody_hid(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    assert cli.main(["demo"]) == 0
    assert cli.main(["demo"]) == 0
    monkeypatch.setattr(sys, "stdin", io.StringIO("tap 0 2S\nshow\nquit\n"))
    assert cli.main(["virtual", "--readers", "direct"]) == 0
    capsys.readouterr()
    assert cli.main(["records", "list"]) == 0
    out = capsys.readouterr().out
    rows = [x.split() for x in out.splitlines()[2:]]
    assert [(r[0], r[3]) for r in rows] == [("1", "1"), ("2", "2"), ("3", "3")]  # hand, table
    assert "3 hand(s)" in out and "rolled back" not in out and "superseded" not in out
    assert sum("hand over" in x for x in out.splitlines()) == 2
    assert cli.main(["records", "check"]) == 0
    assert "superseded" not in capsys.readouterr().out


def test_a_file_written_by_schema_2s_code_for_the_issues_story_migrates_to_three_hands(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """tests/records/data/schema2-demo-virtual-demo.sqlite was written by the
    code before table identities (commit c3a4d08): `demo`, then `virtual`
    with a bid typed (2S) and quit, then `demo` again. It listed one hand,
    the manual one superseded by the second demo (a 'fork')."""
    path = tmp_path / "old.sqlite"
    path.write_bytes((Path(__file__).parent / "data" / "schema2-demo-virtual-demo.sqlite").read_bytes())
    db = sqlite3.connect(path)
    assert db.execute("PRAGMA user_version").fetchone() == (2,)
    assert db.execute("SELECT COUNT(*) FROM hands").fetchone() == (1,)
    assert db.execute("SELECT COUNT(*) FROM events WHERE superseded_why = 'fork'").fetchone() == (1,)
    db.close()
    with Store.open(path) as store:
        hands = store.hands()
        assert [(h["table_id"], h["status"], h["events"]) for h in hands] == [
            (1, "done", 116), (2, "playing", 2), (3, "done", 116)]
        # the demos' hands are the same game, told apart by their boots and sessions
        a, b = (store.hand_events(hands[k]) for k in (0, 2))
        assert [e["hash"] for e in a] == [e["hash"] for e in b]
        assert {v["session"] for e in a for v in e["verdicts"]} != {v["session"] for e in b for v in e["verdicts"]}
        manual = store.hand_events(hands[1])
        assert [e["event"].kind for e in manual] == [1, 2] and all(e["current"] for e in manual)
        assert store.hands()[1]["started_at"] > hands[0]["ended_at"]
        problems, remarks = store.check()
        assert problems == [] and not any("superseded" in r for r in remarks)


def test_a_virtual_table_keeps_its_identity_when_resumed(compiled: Path) -> None:
    from vtable_rig import table_in

    seen = []
    for keep in (False, True, False):
        vt = table_in(compiled, "t1", keep=keep, readers="direct")
        with vt:
            assert vt.link is not None
            welcome = vt.link.with_link(lambda h: list(h.device))
        seen.append((vt.uid, welcome[8]))
    assert all(len(u) == 16 and u == w for u, w in seen)  # the WELCOME carries it
    (made, _), (resumed, _), (remade, _) = seen
    assert resumed == made and remade != made
