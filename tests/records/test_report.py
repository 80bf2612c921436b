"""Hand reports of a demo hand (the virtual table's bots, as `tractor-table
demo` plays it, recorded): the HTML report rendered by a real headless
Chromium shows every trick as cards; the terminal text, stdout export, the
score sheet, and replay forwards and back from the command line (a recorded
hand and a `simulate --records` file), in English and Chinese."""

from __future__ import annotations

import io
import json
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import pytest
from shengji import record as erecord
from shengji.cards import card_id_name
from tractor_table import cli, png
from tractor_table import events as E
from tractor_table.commands.demo import CANDIDATES
from tractor_table.events import EV
from tractor_table.records import Store


@pytest.fixture(scope="module")
def demo_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A records file with one demo hand: the demo's own command, with --db."""
    db = tmp_path_factory.mktemp("report") / "records.sqlite"
    module, argv = CANDIDATES[0]
    assert module == "virtual"
    assert cli.main(["virtual", *argv, "--db", str(db)]) == 0
    return db


def _events(db: Path) -> list[list[Any]]:
    with Store.open(db, create=False) as store:
        (h,) = store.hands()
        assert h["status"] == "done"
        return [e["event"].raw() for e in store.hand_events(h)]


def _tricks(events: list[list[Any]]) -> dict[int, list[tuple[int, list[int]]]]:
    """trick number (1-based) -> the plays as the table took them (forced throws as forced)."""
    out: dict[int, list[tuple[int, list[int]]]] = {}
    for ev in map(E.decode, events):
        if isinstance(ev, E.Play):
            out.setdefault(ev.trick + 1, []).append((ev.seat, list(ev.ids)))
        elif isinstance(ev, E.Forced):
            plays = out[ev.trick + 1]
            plays[0] = (ev.leader, list(ev.ids))
    return out


def _run(capsys: pytest.CaptureFixture[str], *args: str, stdin: str | None = None,
         monkeypatch: pytest.MonkeyPatch | None = None) -> str:
    capsys.readouterr()
    if stdin is not None:
        assert monkeypatch is not None
        monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
    assert cli.main(list(args)) == 0
    return capsys.readouterr().out


CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


def _chromium(*args: str) -> subprocess.CompletedProcess[str]:
    assert CHROMIUM is not None
    with tempfile.TemporaryDirectory(prefix="tt-chromium-") as profile:
        return subprocess.run(
            [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
             "--no-first-run", "--disable-background-networking", "--disable-component-update",
             "--disable-sync", f"--user-data-dir={profile}", *args],
            capture_output=True, text=True, timeout=120, check=False,
        )


@pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed (.ci/run installs it; apt-get install chromium)")
def test_the_html_report_rendered_by_chromium_shows_every_trick_as_cards(
    demo_db: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    page = tmp_path / "hand1.html"
    _run(capsys, "records", "export", "1", "--db", str(demo_db), "--format", "html", "--out", str(page))
    html = page.read_text(encoding="utf-8")
    # self-contained: no scripts, no links to other files
    assert "<script" not in html and "src=" not in html and "href=" not in html
    assert "@media print" in html

    dom = _chromium("--dump-dom", page.as_uri())
    assert dom.returncode == 0, dom.stderr[-2000:]
    rows = re.findall(r'<tr class="trick" data-trick="(\d+)">(.*?)</tr>', dom.stdout, re.S)
    tricks = _tricks(_events(demo_db))
    assert len(tricks) >= 10 and [int(n) for n, _ in rows] == sorted(tricks)
    for n, row in rows:
        cells = re.findall(r'<td(?: class="win")? title="S(\d)[^"]*">(.*?)</td>', row, re.S)
        assert len(cells) == 4
        shown = {int(s): re.findall(r'data-card="([^"]+)"', c) for s, c in cells}
        assert shown == {s: [card_id_name(c) for c in cards] for s, cards in tricks[int(n)]}

    shot = tmp_path / "hand1.png"
    r = _chromium("--force-device-scale-factor=0.5", f"--screenshot={shot}", "--window-size=1000,2400",
                  page.as_uri())
    assert r.returncode == 0 and shot.exists(), r.stderr[-2000:]
    im = png.decode(shot.read_bytes())
    assert (im.width, im.height) == (500, 1200)
    pixels = im.pixels()
    red = sum(1 for p in pixels if p[0] > 150 and p[1] < 90 and p[2] < 100)
    dark = sum(1 for p in pixels if max(p) < 60)
    assert red > 500 and dark > 2000  # red hearts and diamonds, black spades, clubs and text


def test_the_text_report_and_stdout_export(demo_db: Path, capsys: pytest.CaptureFixture[str],
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    events = _events(demo_db)
    tricks = _tricks(events)
    out = _run(capsys, "records", "show", "1", "--db", str(demo_db))
    assert "\x1b[" not in out  # not a terminal: no colours
    for n, plays in tricks.items():
        line = "  ".join(f"S{s} " + " ".join(card_id_name(c) for c in cards) for s, cards in plays)
        assert f"{n:>2}. {line}  -> S" in out
    end = next(ev for ev in events if ev[0] == EV.HAND_END)
    assert f"attackers {end[1]}; kitty bonus {end[2]} x{end[3]} = {end[4]}" in out
    a = next(ev for ev in events if ev[0] == EV.TRUMP)[3] % 2
    keep = end[5] % 2 == a
    assert ("keep the deal" if keep else "take the deal over") in out
    assert "findings\n  none" in out
    coloured = _run(capsys, "records", "show", "1", "--db", str(demo_db), "--color", "always")
    assert "\x1b[31m" in coloured
    zh = _run(capsys, "records", "show", "1", "--db", str(demo_db), "--lang", "zh")
    assert "红桃" in zh and "黑桃" in zh and "出牌" in zh

    # export to standard output: left out, or '-'
    for extra in ([], ["--out", "-"]):
        text = _run(capsys, "records", "export", "1", "--db", str(demo_db), *extra)
        hand = erecord.replay(text)
        assert hand.result().score == end[1]
    lines = _run(capsys, "records", "export", "1", "--db", str(demo_db), "--format", "events").splitlines()
    assert json.loads(lines[0])["format"] == "tractor-table/table-events"
    assert [json.loads(x)["event"] for x in lines[1:]] == events
    html = _run(capsys, "records", "show", "1", "--db", str(demo_db), "--format", "html")
    assert html.startswith("<!DOCTYPE html>") and html.count('class="trick"') == len(tricks)
    # the bidding table: three headed columns, every row's verdict said
    bids = html.split('<table id="bids">')[1].split("</table>")[0]
    assert "<th>seat</th><th>cards</th><th>verdict</th>" in bids
    rows = re.findall(r"<tr><td>S\d</td><td>.*?</td><td>(.*?)</td></tr>", bids)
    assert len(rows) == sum(1 for ev in events if ev[0] == EV.BID) > 0
    assert all(r == "accepted" or r.startswith("refused: ") for r in rows), rows


def test_the_score_sheet_and_the_list_have_the_same_columns(
    demo_db: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    events = _events(demo_db)
    end = next(ev for ev in events if ev[0] == EV.HAND_END)
    trump = next(ev for ev in events if ev[0] == EV.TRUMP)
    out = _run(capsys, "records", "sheet", "--db", str(demo_db))
    (row,) = [x for x in out.splitlines() if x.split()[:1] == ["1"]]
    a = (trump[3] + 1) % 2
    want = f"S{trump[3]}  {'SHDC'[trump[1]] if trump[1] < 4 else 'NT'} (by {trump[2]})"
    assert want in row and f"{a}&{a + 2}" in row and f" {end[1]} " in row
    ranks = "23456789TJQKA"
    assert f"{ranks[end[6]]} {ranks[end[7]]}" in row and row.endswith("done")
    assert f"next dealer S{end[5]}" in out
    listed = _run(capsys, "records", "list", "--db", str(demo_db))
    (lrow,) = [x for x in listed.splitlines() if x.split()[:1] == ["1"]]
    assert want in lrow and f"{ranks[end[6]]} {ranks[end[7]]}" in lrow
    assert _run(capsys, "records", "sheet", "--db", str(demo_db), "--table", "9").count("table ") == 0


def test_replay_steps_forwards_and_back(demo_db: Path, capsys: pytest.CaptureFixture[str],
                                        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    events = _events(demo_db)
    out = _run(capsys, "records", "replay", "1", "--db", str(demo_db), stdin="\nn\nb\nl\nx\nq\n",
               monkeypatch=monkeypatch)
    steps = re.findall(r"-- step (\d+)/(\d+): event (\d+)", out)
    n = str(len(events))
    assert steps == [("1", n, "0"), ("2", n, "1"), ("3", n, "2"), ("2", n, "1"), (n, n, str(len(events) - 1))]
    assert "not a key: 'x'" in out and "hand over: attackers" in out
    # a simulate --records file, in Chinese
    folder = tmp_path / "sim"
    assert cli.main(["simulate", "--hands", "1", "--seed", "4", "--records", str(folder), "--quiet"]) == 0
    (path,) = sorted(folder.glob("*.jsonl"))
    lines = path.read_text().splitlines()
    out = _run(capsys, "records", "replay", str(path), "--lang", "zh", stdin="\n\n\nb\nq\n",
               monkeypatch=monkeypatch)
    got = re.findall(r"-- step (\d+)/(\d+)", out)
    total = str(len(lines))
    assert got == [("1", total), ("2", total), ("3", total), ("4", total), ("3", total)]
    assert "holds" in out and ("红桃" in out or "黑桃" in out)
    bad = tmp_path / "bad.jsonl"
    bad.write_text("not json\n")
    capsys.readouterr()
    assert cli.main(["records", "replay", str(bad)]) != 0
    assert "not a hand record" in capsys.readouterr().err


def test_reports_of_rolled_back_and_unfinished_hands(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    from records_notes import event_notes, hand_events, head_of, up
    from tractor_table.records import Recorder

    db = tmp_path / "r.sqlite"
    notes = event_notes(hand_events(1) + hand_events(2, dealer=1))
    cut = len(hand_events(1))
    again = event_notes(hand_events(1) + hand_events(2, dealer=3)[:6])
    with Store.open(db) as store:
        rec = Recorder(store)
        for n in [up(111), *notes]:
            rec.on_note(n)
        rec2 = Recorder(store)
        for n in [up(222, count=cut, head=head_of(notes, cut)), ["rollback", cut, len(notes)], *again[cut:]]:
            rec2.on_note(n)
        statuses = [h["status"] for h in store.hands()]
    assert statuses == ["done", "rolled back", "playing"]
    for hand in ("1", "2", "3"):
        text = _run(capsys, "records", "show", hand, "--db", str(db))
        assert text.startswith(f"hand {hand}: table 1")
        page = _run(capsys, "records", "show", hand, "--db", str(db), "--format", "html")
        assert page.count('class="trick"') == (2 if hand != "3" else 1)
        steps = _run(capsys, "records", "replay", hand, "--db", str(db), stdin="l\nq\n",
                     monkeypatch=monkeypatch)
        assert "-- step 1/" in steps
    sheet = _run(capsys, "records", "sheet", "--db", str(db))
    assert "rolled back" in sheet and "playing" in sheet and "done" in sheet
