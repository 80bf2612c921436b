"""The SQLite records (tractor_table.records): schema, idempotent replays,
rollback conflicts kept and marked, verdicts, migrations, files that are not
ours left untouched, and a writer killed mid-stream."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from records_notes import event_notes, hand_events, head_of, up
from tractor_table import cli, records
from tractor_table.events import Event, decode
from tractor_table.link import ttlink
from tractor_table.link.verifier import Verifier
from tractor_table.records import (
    APPLICATION_ID,
    SCHEMA_VERSION,
    Recorder,
    RecordsError,
    Store,
    derive_hands,
)

HERE = Path(__file__).resolve().parent


def _feed(rec: Recorder, notes: list[list[Any]]) -> None:
    for n in notes:
        rec.on_note(n)
    assert rec.failed == ""


def _one(store: Store, sql: str, params: tuple[Any, ...] = ()) -> Any:
    return store.query(sql, params)[0][0]


def test_a_new_file_gets_the_versioned_schema(tmp_path: Path) -> None:
    path = tmp_path / "sub" / "r.sqlite"
    with Store.open(path) as store:
        assert _one(store, "PRAGMA user_version") == SCHEMA_VERSION
        assert _one(store, "PRAGMA application_id") == APPLICATION_ID
        assert _one(store, "PRAGMA journal_mode") == "wal"
        assert _one(store, "PRAGMA foreign_keys") == 1
        names = {r[0] for r in store.query("SELECT name FROM sqlite_master WHERE type = 'table'")}
        assert {"tables", "boots", "sessions", "events", "snapshots", "link_notes", "hands",
                "verdicts"} <= names
        # foreign keys are enforced: an event of a table that does not exist is refused
        with pytest.raises(sqlite3.IntegrityError), store.transaction() as db:
            db.execute("INSERT INTO events (table_id, idx, hash, event, kind, session_id, "
                       "received_at) VALUES (7, 0, 0, '[1]', 1, 7, 'now')")
    # opened again: nothing to migrate, the same file
    with Store.open(path) as store:
        assert _one(store, "PRAGMA user_version") == SCHEMA_VERSION


def test_events_sessions_and_hands_as_the_events_say(tmp_path: Path) -> None:
    notes = event_notes(hand_events(1, dealer=0, score=85) + hand_events(2, dealer=1, score=40))
    with Store.open(tmp_path / "r.sqlite") as store:
        rec = Recorder(store, port="/dev/ttyACM0", rules={"decks": 2})
        _feed(rec, [up(111), *notes, ["synced", len(notes)], ["down", "no frame for 3000 ms"]])
        assert rec.new_events == len(notes) and len(rec.hands_seen) == 2
        assert _one(store, "SELECT COUNT(*) FROM events") == len(notes)
        h1, h2 = store.hands()
        assert (h1["status"], h1["hand_no"], h1["dealer"], h1["trump"], h1["attackers_score"],
                h1["start_idx"], h1["end_idx"], h1["partial"]) == ("done", 1, 0, 0, 85, 0, 14, 0)
        assert h1["result"].startswith("hand over: attackers 85")
        assert (h2["hand_no"], h2["dealer"], h2["attackers_score"], h2["start_idx"]) == (2, 1, 40, 15)
        assert h2["events"] == 15 and h2["disagreements"] == 0
        s = store.query("SELECT port, up_at, synced_at, down_at, down_reason, rules FROM sessions")[0]
        assert s[0] == "/dev/ttyACM0" and s[1] and s[2] and s[3] and s[4] == "no frame for 3000 ms"
        assert s[5] == '{"decks": 2}'
        # every event exactly as the link delivered it: index, hash, canonical JSON
        for n in notes:
            row = store.query("SELECT hash, event FROM events WHERE idx = ?", (n[1],))[0]
            assert row == (n[2], ttlink.canonical(n[3]).decode())
        assert store.check()[0] == []


def test_an_event_replayed_after_a_reconnect_is_stored_once(tmp_path: Path) -> None:
    notes = event_notes(hand_events(1))
    with Store.open(tmp_path / "r.sqlite") as store:
        rec = Recorder(store)
        _feed(rec, [up(111), *notes[:9], ["down", "port closed"]])
        # the same host reconnects: the table replays from where the host's record stood
        _feed(rec, [up(111, count=len(notes), head=head_of(notes, len(notes))), *notes[9:]])
        # a new run of the host: its record is empty, the table's ring replays everything
        again = Recorder(store)
        _feed(again, [up(111, count=len(notes), head=head_of(notes, len(notes))), *notes])
        assert again.replayed == len(notes) and again.new_events == 0
        assert _one(store, "SELECT COUNT(*) FROM events") == len(notes)
        assert _one(store, "SELECT COUNT(*) FROM sessions") == 3
        assert _one(store, "SELECT COUNT(*) FROM tables") == 1
        assert _one(store, "SELECT COUNT(*) FROM boots") == 1
        assert [h["status"] for h in store.hands()] == ["done"]
        assert store.check()[0] == []


def test_a_rollback_conflict_is_kept_and_marked_never_overwritten(tmp_path: Path) -> None:
    first = hand_events(1) + hand_events(2, dealer=1)
    notes = event_notes(first)
    cut = 17  # the table rebooted and restored a save from before event 17 (hand 2 under way)
    with Store.open(tmp_path / "r.sqlite") as store:
        rec = Recorder(store)
        _feed(rec, [up(111), *notes])
        head = head_of(notes, cut)
        # a new boot that announces a log the records hold: the same table
        _feed(rec, [up(222, count=cut, head=head), ["reboot", 111, 222],
                    ["rollback", cut, len(notes)]])
        # the table sends events 17 and 18 again, the very same: stored once
        _feed(rec, notes[cut:cut + 2])
        assert rec.conflicts == 0 and rec.replayed == 2
        # then the game goes on otherwise: event 19 differs
        other = first[:cut + 2] + [[6, 0, 3, 49], [6, 0, 0, 50]]
        new_notes = event_notes(other)
        _feed(rec, new_notes[cut + 2:])
        assert rec.conflicts == 1
        assert _one(store, "SELECT COUNT(*) FROM tables") == 1
        assert _one(store, "SELECT COUNT(*) FROM boots") == 2
        rows = store.query("SELECT idx, hash, current, superseded_why, replaces, id FROM events "
                           "WHERE idx >= 19 ORDER BY idx, id")
        old = [r for r in rows if not r[2]]
        new = [r for r in rows if r[2]]
        assert [r[0] for r in old] == list(range(19, len(notes)))  # every lost event kept
        assert {r[3] for r in old} == {"rollback"}
        assert [(r[0], r[1]) for r in new] == [(n[1], n[2]) for n in new_notes[19:]]
        old19 = next(r for r in old if r[0] == 19)
        assert next(r for r in new if r[0] == 19)[4] == old19[5]  # the new one names the one it replaced
        # at most one current event per index, by the schema itself
        with pytest.raises(sqlite3.IntegrityError), store.transaction() as db:
            db.execute("UPDATE events SET current = 1 WHERE id = ?", (old19[5],))
        h1, h2 = store.hands()
        assert h1["status"] == "done" and h2["status"] == "playing" and h2["end_idx"] == 20
        problems, remarks = store.check()
        assert problems == [] and any("superseded (rollback)" in r for r in remarks)


def test_a_hand_the_table_lost_is_kept_as_rolled_back(tmp_path: Path) -> None:
    notes = event_notes(hand_events(1) + hand_events(2, dealer=1)[:6])
    cut = 15  # hand 2 started at 15: the table lost all of it
    with Store.open(tmp_path / "r.sqlite") as store:
        rec = Recorder(store)
        _feed(rec, [up(111), *notes])
        _feed(rec, [up(222, count=cut, head=head_of(notes, cut)), ["rollback", cut, len(notes)]])
        again = event_notes(hand_events(1) + hand_events(2, dealer=3)[:2])
        _feed(rec, again[cut:])
        hands = store.hands()
        assert [(h["hand_no"], h["dealer"], h["status"]) for h in hands] == [
            (1, 0, "done"), (2, 1, "rolled back"), (2, 3, "playing")]
        # the rolled back hand shows its own events
        lost = store.hand_events(hands[1])
        assert [e["event"].raw() for e in lost] == [n[3] for n in notes[cut:]]
        assert all(not e["current"] for e in lost)
        assert store.check()[0] == []


def test_a_table_whose_log_forked_while_no_host_listened(tmp_path: Path) -> None:
    notes = event_notes(hand_events(1))
    fork = event_notes(hand_events(1)[:5] + [[6, 0, 1, 51]] + hand_events(1)[6:])
    with Store.open(tmp_path / "r.sqlite") as store:
        _feed(Recorder(store), [up(111), *notes])
        # same boot (no reboot seen), another history from event 5 on
        rec = Recorder(store)
        _feed(rec, [up(111, count=len(fork), head=head_of(fork, len(fork))), *fork])
        assert rec.conflicts == 1 and rec.replayed == 5
        assert {r[0] for r in store.query("SELECT superseded_why FROM events WHERE current = 0")} == {"fork"}
        assert store.check()[0] == []


class _Bent:
    """A replayer that agrees with everything but a TRICK's points."""

    name = "bent"

    def reset(self, snapshot: bytes | None) -> None:
        pass

    def replay(self, index: int, event: Event) -> Event | None:
        raw = event.raw()
        if raw[0] == 10 and raw[1] == 1:
            return decode([10, 1, 1, 15, raw[4]])
        return event if raw[0] != 5 else None

    def host_state(self) -> bytes | None:
        return None


def test_verdicts_and_disagreements_with_both_views(tmp_path: Path) -> None:
    notes = event_notes(hand_events(1))
    verifier = Verifier(_Bent(), "rules-2026.1")
    with Store.open(tmp_path / "r.sqlite") as store:
        rec = Recorder(store)
        feed = rec.follow(verifier)
        for n in [up(111), *notes]:
            feed(n)
        assert rec.failed == "" and len(verifier.disagreements) == 1
        counts = dict(store.query("SELECT verdict, COUNT(*) FROM verdicts GROUP BY verdict"))
        assert counts == {"agreed": len(notes) - 2, "unchecked": 1, "disagreed": 1}
        d = verifier.disagreements[0]
        row = store.query("SELECT e.idx, v.what, v.host_event, v.table_hash, v.host_hash, v.fields "
                          "FROM verdicts v JOIN events e ON e.id = v.event_id "
                          "WHERE v.verdict = 'disagreed'")[0]
        assert row == (d.index, "verdict", "[10, 1, 1, 15, 20]", d.device_hash, d.host_hash, "[\"points\"]")
        assert store.hands()[0]["disagreements"] == 1
        # a verdict given by hand (a verifier the recorder does not follow)
        rec.on_verdict(0, "unchecked")
        assert rec.failed == ""


def test_show_prints_both_views_of_a_disagreement_in_either_language(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "r.sqlite"
    with Store.open(db) as store:
        feed = Recorder(store).follow(Verifier(_Bent(), "rules-2026.1"))
        for n in [up(111), *event_notes(hand_events(1))]:
            feed(n)
    capsys.readouterr()
    assert cli.main(["records", "show", "1", "--db", str(db)]) == 0
    en = capsys.readouterr().out
    assert "the table and the host disagree (verdict, session 1):" in en
    assert "           table: trick 2: S1 wins 10 points; attackers 20  [10, 1, 1, 10, 20]" in en
    assert "           host:  trick 2: S1 wins 15 points; attackers 20  [10, 1, 1, 15, 20]" in en
    assert "fields that differ: points" in en
    assert cli.main(["records", "show", "1", "--db", str(db), "--lang", "zh"]) == 0
    zh = capsys.readouterr().out
    assert "牌桌与主机不一致 (verdict，会话 1)：" in zh and "[不一致]" in zh
    assert "           牌桌: 第 2 墩：S1 赢 10 分；闲家 20 分  [10, 1, 1, 10, 20]" in zh
    assert "           主机: 第 2 墩：S1 赢 15 分；闲家 20 分  [10, 1, 1, 15, 20]" in zh
    assert "不同的字段: points" in zh and "disagree" not in zh


def test_a_migration_from_schema_1_derives_the_hands(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite"
    db = sqlite3.connect(path, isolation_level=None)
    records.MIGRATIONS[1](db)
    db.execute(f"PRAGMA application_id = {APPLICATION_ID}")
    db.execute("PRAGMA user_version = 1")
    db.execute("INSERT INTO tables VALUES (1, 'a', 'b', '0.1.0', 'rules-2026.1')")
    db.execute("INSERT INTO boots VALUES (1, 1, 111, '0.1.0', 'rules-2026.1', 'a', 'b')")
    db.execute("INSERT INTO sessions (id, table_id, boot, source, port, host_version, up_at, "
               "table_count, table_head, agree) VALUES (1, 1, 1, 'link', 'p', '0.1.0', 'a', 0, 0, 1)")
    for n in event_notes(hand_events(1)):
        db.execute("INSERT INTO events (table_id, idx, hash, event, kind, session_id, received_at) "
                   "VALUES (1, ?, ?, ?, ?, 1, ?)",
                   (n[1], n[2], ttlink.canonical(n[3]).decode(), n[3][0], f"2026-01-01T00:00:{n[1]:02d}"))
    db.close()
    with Store.open(path) as store:
        assert _one(store, "PRAGMA user_version") == SCHEMA_VERSION
        (h,) = store.hands()
        assert (h["status"], h["attackers_score"], h["started_at"]) == ("done", 85, "2026-01-01T00:00:00")
        assert store.check()[0] == []


def _refused(path: Path, *words: str) -> None:
    before = path.read_bytes()
    with pytest.raises(RecordsError) as err:
        Store.open(path)
    assert str(path) in str(err.value)
    for w in words:
        assert w in str(err.value)
    assert path.read_bytes() == before
    assert not Path(str(path) + "-wal").exists()


def test_files_that_are_not_our_records_are_refused_and_left_untouched(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = tmp_path / "notes.txt"
    text.write_text("my shopping list\n" * 100)
    _refused(text, "not an SQLite database", "--db")
    # the commands say so in one line, before opening any port
    assert cli.main(["records", "list", "--db", str(text)]) == 1
    assert cli.main(["link", "--port", "/nonexistent/ttyACM9", "--db", str(text)]) == 1
    err = capsys.readouterr().err
    assert err.count("not an SQLite database") == 2 and "Traceback" not in err
    assert text.read_text() == "my shopping list\n" * 100

    foreign = tmp_path / "other.sqlite"
    db = sqlite3.connect(foreign)
    db.execute("CREATE TABLE photos (id INTEGER PRIMARY KEY, name TEXT)")
    db.commit()
    db.close()
    _refused(foreign, "another program")

    newer = tmp_path / "newer.sqlite"
    Store.open(newer).close()
    db = sqlite3.connect(newer)
    db.execute("PRAGMA user_version = 99")
    db.close()
    _refused(newer, "newer tractor-table", "schema 99")


def test_a_damaged_file_is_refused_and_left_untouched(tmp_path: Path) -> None:
    path = tmp_path / "r.sqlite"
    with Store.open(path) as store:
        _feed(Recorder(store), [up(111), *event_notes(hand_events(1))])
    data = bytearray(path.read_bytes())
    assert data[:16] == b"SQLite format 3\x00" and not Path(str(path) + "-wal").exists()
    data[100:4096] = b"\xa5" * (4096 - 100)  # the schema's page, overwritten
    path.write_bytes(bytes(data))
    _refused(path, "damaged", "left as it is")


WRITER = """
import sys, time
sys.path.insert(0, {here!r})
from records_notes import event_notes, hand_events, up
from tractor_table.records import Recorder, Store

store = Store.open(sys.argv[1])
rec = Recorder(store)
rec.on_note(up(111))
evs = []
for k in range(1, 400):
    evs += hand_events(k, dealer=k % 4, tricks=3, card0=k % 40)
for n in event_notes(evs):
    rec.on_note(n)
    assert not rec.failed, rec.failed
print("all written", flush=True)
time.sleep(60)
"""


def test_a_writer_killed_mid_stream_leaves_a_consistent_database(tmp_path: Path) -> None:
    path = tmp_path / "r.sqlite"
    proc = subprocess.Popen(
        [sys.executable, "-c", WRITER.format(here=str(HERE)), str(path)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        deadline = time.monotonic() + 20
        seen = 0
        while time.monotonic() < deadline and seen < 150:
            time.sleep(0.05)
            if proc.poll() is not None:
                break
            try:
                with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as db:
                    seen = db.execute("SELECT COUNT(*) FROM events").fetchone()[0]
            except sqlite3.Error:
                seen = 0
        assert proc.poll() is None, proc.stderr.read() if proc.stderr else ""
        os.kill(proc.pid, signal.SIGKILL)  # in the middle of the stream
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait()
    assert seen >= 150
    with Store.open(path) as store:
        n = _one(store, "SELECT COUNT(*) FROM events")
        assert n >= seen
        assert n < 399 * 20  # it did not finish
        # the events are whole and in order, the chain holds, the hands match them
        assert [r[0] for r in store.query("SELECT idx FROM events ORDER BY idx")] == list(range(n))
        problems, _ = store.check()
        assert problems == []
        assert sum(h["events"] for h in store.hands()) == n
        assert store.hands()[-1]["status"] in ("playing", "done")


def test_derive_hands_gaps_partial_and_abandoned() -> None:
    evs = hand_events(1)
    rows = [(100 + i, i, ev, "t") for i, ev in enumerate(evs)]
    # the records start inside hand 1 (events 0-2 missing), a gap ends a hand
    hands = derive_hands(rows[3:8] + rows[10:])
    assert [(h.partial, h.status, h.start_idx, h.end_idx) for h in hands] == [
        (1, "incomplete", 3, 7), (1, "done", 10, len(evs) - 1)]
    # a HAND_START while a hand is open: the open one was abandoned
    hands = derive_hands([*rows[:5], (200, 5, [1, 2, 1, 2, 0, 0, 0], "t")])
    assert [(h.status, h.facts.get("hand_no")) for h in hands] == [("abandoned", 1), ("playing", 2)]


def test_export_says_why_a_hand_is_no_faithful_engine_record(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "r.sqlite"
    notes = event_notes(hand_events(1) + hand_events(2, dealer=1))
    with Store.open(db) as store:
        _feed(Recorder(store), [up(111), *notes[:15]])  # no rules kept with the session
        _feed(Recorder(store, rules={"decks": 2}), [up(111, count=15, head=head_of(notes, 15)),
                                                   *notes[15:]])
    out = tmp_path / "h.jsonl"
    assert cli.main(["records", "export", "1", "--db", str(db), "--out", str(out)]) == 1
    err = capsys.readouterr().err
    assert "hand 1 cannot be written as an engine hand record faithfully" in err
    assert "rules the table played by were not recorded" in err and "--format events" in err
    assert not out.exists()
    # hand 2's rules are known; the engine cannot follow the made-up burial (6 cards, not 8)
    assert cli.main(["records", "export", "2", "--db", str(db), "--out", str(out)]) == 1
    assert "the full engine cannot follow the table" in capsys.readouterr().err
    # the table's own events always export
    assert cli.main(["records", "export", "2", "--db", str(db), "--out", str(out),
                     "--format", "events"]) == 0
    lines = out.read_text().splitlines()
    assert len(lines) == 1 + 15 and '"rules": {"decks": 2}' in lines[0]
    # bad requests: one clear line each
    assert cli.main(["records", "show", "--db", str(db)]) == 1
    assert cli.main(["records", "show", "9", "--db", str(db)]) == 1
    assert cli.main(["records", "list", "--db", str(tmp_path / "none.sqlite")]) == 1
    err = capsys.readouterr().err
    assert "give the hand's number" in err and "no hand 9" in err and "no records there yet" in err
    assert cli.main(["records", "list", "2", "--db", str(db)]) == 1
    assert cli.main(["records", "show", "2", "--table", "1", "--db", str(db)]) == 1
    assert cli.main(["records", "check", "--out", str(out), "--db", str(db)]) == 1
    err = capsys.readouterr().err
    assert "takes no hand number" in err and "--table goes with" in err and "--out goes with" in err
    assert not (tmp_path / "none.sqlite").exists()


def test_check_finds_a_broken_chain_and_hands_that_differ_from_their_events(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "r.sqlite"
    with Store.open(db) as store:
        _feed(Recorder(store), [up(111), *event_notes(hand_events(1) + hand_events(2))])
    assert cli.main(["records", "check", "--db", str(db)]) == 0
    assert "integrity: ok" in capsys.readouterr().out
    with Store.open(db) as store, store.transaction() as d:
        # a play's card changed behind the records' back, and a hand's score
        d.execute("UPDATE events SET event = '[6,0,1,33]' WHERE idx = 5")
        d.execute("UPDATE hands SET attackers_score = 5 WHERE hand_no = 2")
    assert cli.main(["records", "check", "--db", str(db)]) == 1
    out = capsys.readouterr().out
    assert "PROBLEM: table 1 event 5: state hash" in out and "the chain is broken here" in out
    assert "PROBLEM: table 1: the hands stored differ from what the events say" in out
    assert "integrity: 2 problem(s)" in out


def test_a_failed_write_stops_recording_with_a_message_not_the_link(tmp_path: Path) -> None:
    path = tmp_path / "r.sqlite"
    notes = event_notes(hand_events(1))
    with Store.open(path) as store:
        rec = Recorder(store)
        _feed(rec, [up(111), *notes[:5]])
        other = sqlite3.connect(path)
        other.execute("DROP TABLE verdicts")  # the file changed under the recorder
        other.execute("DROP TABLE hands")
        other.commit()
        other.close()
        for n in notes[5:]:
            rec.on_note(n)  # never raises into the link's thread
        assert rec.failed.startswith("recording stopped:") and "hands" in rec.failed
        assert f"records {path}: recording stopped" in rec.summary()
        # the event in flight was rolled back whole; what was committed stays
        assert _one(store, "SELECT COUNT(*) FROM events") == 5


def test_a_hand_joined_from_the_tables_snapshot_takes_its_facts_from_it(tmp_path: Path) -> None:
    """The host plugged in mid-hand, the table's ring no longer reaching back:
    the log starts at the table's snapshot (firmware/tablesnap.py layout), and
    the partial hand gets hand number, dealer, levels, trump and score from it."""
    evs = hand_events(7, dealer=3, tricks=3)
    notes = event_notes(evs)
    start = 9  # inside trick 2 of hand 7
    head = head_of(notes, start)
    snap = [2, 2, 2, 7, 0, 3, 4, 5, 1, 3, 10, 0, -1, start, head, [[3, [0]]], [3, 4, 5, 6, 7, 8],
            [[3, 1, 10, 0, [13], [10], [11], [12]]], [], None, None, []]
    with Store.open(tmp_path / "r.sqlite") as store:
        rec = Recorder(store)
        _feed(rec, [up(5, count=30, head=12345, agree=-1),
                    ["snapshot", start, head, ttlink.canonical(snap)], *notes[start:]])
        (h,) = store.hands()
        assert (h["partial"], h["hand_no"], h["dealer"], h["level0"], h["level1"], h["trump"],
                h["declarer"], h["status"], h["attackers_score"]) == (1, 7, 3, 4, 5, 1, 3, "done", 85)
        problems, remarks = store.check()
        assert problems == [] and any("start at the table's snapshot at event 9" in r for r in remarks)
