"""``records sheet`` as HTML and CSV, and ``--lang zh`` throughout: the
report, the event log, the list and the sheet in Chinese, their columns
lined up by display width (issue 26, item 6)."""

from __future__ import annotations

import csv
import html
import io
import re
import unicodedata
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
from tractor_table import cli
from tractor_table.records import Store
from tractor_table.report import html as report_html

RANKS = "23456789TJQKA"


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A records file with a few bots' hands (the demo's command, three hands)."""
    path = tmp_path_factory.mktemp("sheet") / "records.sqlite"
    assert cli.main(["virtual", "--bots", "--hands", "3", "--seed", "3", "--db", str(path)]) == 0
    return path


@pytest.fixture(scope="module")
def hands(db: Path) -> list[dict[str, Any]]:
    with Store.open(db, create=False) as store:
        hs: list[dict[str, Any]] = store.hands()
    assert len(hs) >= 2 and any(h["status"] == "done" for h in hs)
    return hs


def _run(capsys: pytest.CaptureFixture[str], *args: str) -> str:
    capsys.readouterr()
    assert cli.main(list(args)) == 0
    return capsys.readouterr().out


def _cols(text: str) -> int:
    """Display columns, counted here on their own: wide and full-width characters take two."""
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)


def _cells(line: str) -> list[tuple[int, int]]:
    """The (start, end) display columns of each cell of a line (cells are apart by two spaces or more)."""
    return [(_cols(line[: m.start()]), _cols(line[: m.end()])) for m in re.finditer(r"\S+(?: \S+)*", line)]


def _assert_lined_up(block: list[str], aligns: str) -> None:
    """Every row's cells start (left-aligned) or end (right-aligned) in the header's display columns."""
    head = _cells(block[0])
    assert len(head) == len(aligns)
    for line in block[1:]:
        cells = _cells(line)
        assert len(cells) == len(head), (line, cells)
        for k, (a, (s, e), (hs, he)) in enumerate(zip(aligns, cells, head, strict=True)):
            if a == "<":
                assert s == hs, f"column {k} starts at {s}, its heading at {hs}: {line!r}"
            else:
                assert e == he, f"column {k} ends at {e}, its heading at {he}: {line!r}"


#: English that must not be left in a Chinese output (ASCII words but the hash
#: and UTC; seats S0, ranks and counts are not words)
def _english(text: str) -> set[str]:
    words = set(re.findall(r"(?<![A-Za-z])[A-Za-z]{2,}(?![A-Za-z])", text))
    return {w for w in words if w != "UTC" and not re.fullmatch(r"[0-9a-f]+", w)}


def test_show_in_chinese_says_the_events_status_and_settlement_in_chinese(
    db: Path, hands: list[dict[str, Any]], capsys: pytest.CaptureFixture[str]
) -> None:
    done = next(h for h in hands if h["status"] == "done")
    en = _run(capsys, "records", "show", str(done["id"]), "--db", str(db), "--color", "never")
    assert "done" in en and ("take the deal over" in en or "keep the deal" in en) and " plays " in en
    zh = _run(capsys, "records", "show", str(done["id"]), "--db", str(db), "--lang", "zh", "--color", "never")
    assert _english(zh) == set(), sorted(_english(zh))
    for phrase in ("done", "take the deal over", "keep the deal", "the attackers", "plays", "hand over",
                   "agreed", "result", "trick"):
        assert phrase not in zh
    assert "完成" in zh and ("上台坐庄" in zh or "保庄" in zh)
    assert "第 1 墩：S" in zh and " 出 " in zh and "本局结束：闲家" in zh and "[一致]" in zh
    page = _run(capsys, "records", "show", str(done["id"]), "--db", str(db), "--lang", "zh", "--format", "html")
    body = html.unescape(re.sub(r"<style>.*?</style>|<[^>]+>", " ", page, flags=re.S))
    assert _english(body) == set(), sorted(_english(body))
    assert "完成" in body and ("上台坐庄" in body or "保庄" in body) and "闲家" in body


def test_list_and_sheet_in_chinese_line_up_by_display_width(
    db: Path, hands: list[dict[str, Any]], capsys: pytest.CaptureFixture[str]
) -> None:
    listed = _run(capsys, "records", "list", "--db", str(db), "--lang", "zh").splitlines()
    assert listed[1].split()[:3] == ["牌局", "日期", "(UTC)"]
    rows = listed[1:]
    assert len(rows) == 1 + len(hands)
    assert _english("\n".join(rows)) == set(), sorted(_english("\n".join(rows)))
    assert all("本局结束" in r or "重新发牌" in r or "进行中" in r for r in rows[1:])
    assert any("黑桃" in r or "红桃" in r or "方块" in r or "梅花" in r or "无将" in r for r in rows[1:])
    # hand, date, table, #, events, disagree; dealer, trump, attackers, points, kitty, levels; result
    _assert_lined_up(rows, "><>>>>><<><<<")

    sheet = _run(capsys, "records", "sheet", "--db", str(db), "--lang", "zh").splitlines()
    assert sheet[1].startswith("牌桌 1：")
    block = [x for x in sheet[2:] if x.strip() and not x.startswith("当前级别")]
    assert len(block) == 1 + len(hands)
    assert _english("\n".join(block)) == set(), sorted(_english("\n".join(block)))
    assert any("亮主" in r for r in block[1:]) and any("完成" in r for r in block[1:])
    _assert_lined_up(block, ">>>><<><<<")
    # and in English, as before
    en = [x for x in _run(capsys, "records", "sheet", "--db", str(db)).splitlines()[2:]
          if x.strip() and not x.startswith("levels now")]
    _assert_lined_up(en, ">>>><<><<<")


class _Sheet(HTMLParser):
    """The rows of every table.sheet, and the totals' lines."""

    def __init__(self) -> None:
        super().__init__()
        self.rows: list[list[str]] = []
        self.heads: list[str] = []
        self.totals: dict[str, str] = {}
        self.tags: list[str] = []
        self._cell: list[str] | None = None
        self._totals: str | None = None
        self._in_sheet = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        self.tags.append(tag)
        if tag == "table" and a.get("class") == "sheet":
            self._in_sheet = True
        elif tag == "tr" and self._in_sheet and a.get("class") == "hand":
            self.rows.append([])
        elif tag in ("td", "th") and self._in_sheet:
            self._cell = []
        elif tag == "p" and a.get("class") == "totals":
            self._totals = a.get("id") or ""
            self.totals[self._totals] = ""

    def handle_endtag(self, tag: str) -> None:
        if tag == "table":
            self._in_sheet = False
        elif tag in ("td", "th") and self._cell is not None:
            text = "".join(self._cell).strip()
            if tag == "th":
                self.heads.append(text)
            else:
                self.rows[-1].append(text)
            self._cell = None
        elif tag == "p":
            self._totals = None

    def handle_data(self, data: str) -> None:
        if self._cell is not None:
            self._cell.append(data)
        elif self._totals is not None:
            self.totals[self._totals] += data


def _levels_after(h: dict[str, Any]) -> str:
    return f"{RANKS[h['next_level0']]} {RANKS[h['next_level1']]}"


def test_the_sheet_as_a_printable_html_page(
    db: Path, hands: list[dict[str, Any]], capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    out = tmp_path / "sheet.html"
    capsys.readouterr()
    assert cli.main(["records", "sheet", "--db", str(db), "--format", "html", "--out", str(out)]) == 0
    assert "written to" in capsys.readouterr().err
    page = out.read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>") and report_html.CSS in page and "@media print" in page
    assert "<script" not in page and "src=" not in page and "href=" not in page
    p = _Sheet()
    p.feed(page)
    assert p.heads[:9] == ["hand", "table", "#", "dealer", "trump", "attackers", "points", "kitty", "levels"]
    assert len(p.rows) == len(hands)
    for row, h in zip(p.rows, hands, strict=True):
        assert row[0] == str(h["id"]) and row[1] == str(h["table_id"]) and row[3] == f"S{h['dealer']}"
        if h["status"] == "done":
            assert row[6] == str(h["attackers_score"]) and row[8] == _levels_after(h)
            assert row[9] in ("done", "revoke")
    last = [h for h in hands if h["status"] == "done"][-1]
    assert p.totals["totals-1"] == (f"levels now {_levels_after(last)} (sides 0&2, 1&3), "
                                    f"next dealer S{last['next_dealer']}")
    zh = _run(capsys, "records", "sheet", "--db", str(db), "--format", "html", "--lang", "zh")
    assert '<html lang="zh">' in zh and "比赛记分表" in zh and "当前级别" in zh


def test_the_sheet_as_csv_reads_back_to_the_records_figures(
    db: Path, hands: list[dict[str, Any]], capsys: pytest.CaptureFixture[str]
) -> None:
    text = _run(capsys, "records", "sheet", "--db", str(db), "--format", "csv")
    rows = list(csv.DictReader(io.StringIO(text)))
    assert len(rows) == len(hands)
    for r, h in zip(rows, hands, strict=True):
        assert int(r["table"]) == h["table_id"] and int(r["hand"]) == h["id"]
        assert int(r["number"]) == h["hand_no"] and int(r["dealer"]) == h["dealer"]
        assert r["trump"] == ("S", "H", "D", "C", "NT")[h["trump"]]
        assert int(r["declarer"]) == h["declarer"]
        if h["status"] == "done":
            assert r["status"] in ("done", "revoke")
            assert int(r["points"]) == h["attackers_score"]
            assert r["levels_after"] == _levels_after(h)
            if h["multiplier"]:
                assert (int(r["kitty_points"]), int(r["multiplier"]), int(r["kitty_bonus"])) == (
                    h["kitty_points"], h["multiplier"], h["bonus"])
            else:
                assert r["kitty_bonus"] == ""
    assert sum(int(r["points"]) for r in rows if r["points"]) == sum(
        h["attackers_score"] for h in hands if h["attackers_score"] is not None)


@pytest.mark.parametrize(
    "argv, message",
    [
        (["sheet", "--format", "engine"], "the sheet is written as 'text', 'html' or 'csv'"),
        (["export", "1", "--format", "csv"], "'records sheet --format csv' writes the score sheet"),
        (["list", "--format", "html"], "--format goes with 'records show', 'records export' and 'records sheet'"),
    ],
)
def test_formats_that_do_not_fit_are_refused(
    db: Path, argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    capsys.readouterr()
    assert cli.main(["records", *argv, "--db", str(db)]) == 1
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1
