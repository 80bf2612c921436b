"""The match score sheet of recorded hands: one line per hand with the dealer,
trump, the attackers' points, the kitty bonus and the levels after, as
``tractor-table simulate`` prints them; then, table by table, the levels now
and the next dealer.

Written as text (columns lined up by display width: a Chinese character
takes two), as one printable HTML page (the hand report's style, no scripts,
no files beside it) or as CSV (one row per hand, the figures in fields of
their own)."""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass, field
from html import escape
from typing import Any

from .cards import level_name, trump_name
from .model import attackers_of, levels_of
from .words import columns_text, status

#: the sheet's columns of a hand (``cells``), their headings and alignment
HEADINGS = {
    "en": ("dealer", "trump", "attackers", "points", "kitty", "levels"),
    "zh": ("庄家", "主牌", "闲家", "得分", "抠底", "级别"),
}
ALIGN = "><<><<"
#: the sheet's own first columns and last
LEAD = {"en": ("hand", "table", "#"), "zh": ("牌局", "牌桌", "局")}
RESULT = {"en": "result", "zh": "结果"}
TITLE = {"en": "Match score sheet", "zh": "比赛记分表"}

CSV_FIELDS = ("table", "hand", "number", "status", "dealer", "trump", "declarer", "attackers", "points",
              "kitty_points", "multiplier", "kitty_bonus", "levels", "levels_after")


def _lang(lang: str) -> str:
    return "zh" if lang == "zh" else "en"


def cells(h: dict[str, Any], lang: str = "en") -> list[str]:
    """The sheet's columns of a hand of ``Store.hands()`` (without the hand and table numbers)."""
    dealer = f"S{h['dealer']}" if h["dealer"] is not None and h["dealer"] >= 0 else "-"
    trump = "-"
    if h["trump"] is not None:
        trump = trump_name(h["trump"], lang)
        if h["declarer"] is not None and h["declarer"] >= 0:
            trump += f" ({h['declarer']} 亮主)" if lang == "zh" else f" (by {h['declarer']})"
    att = "-"
    per_seat = h.get("level2") is not None  # find-a-friend: levels per seat
    if h["dealer"] is not None and h["dealer"] >= 0:
        att = attackers_of(h["dealer"], per_seat, h.get("partner"))
    points = "-" if h["attackers_score"] is None else str(h["attackers_score"])
    kitty = "-"
    if h["multiplier"]:
        kitty = f"{h['kitty_points']}x{h['multiplier']}={h['bonus']}"
    if h["status"] == "done" and h["next_level0"] is not None:
        levels = " ".join(level_name(x) for x in _next(h))
    elif h["level0"] is not None:
        levels = f"({' '.join(level_name(x) for x in levels_of(h))})"
    else:
        levels = "?"
    return [dealer, trump, att, points, kitty, levels]


def _next(h: dict[str, Any]) -> tuple[Any, ...]:
    """The levels after a hand: per side, or per seat (find-a-friend)."""
    if h.get("next_level2") is not None:
        return (h["next_level0"], h["next_level1"], h["next_level2"], h["next_level3"])
    return (h["next_level0"], h["next_level1"])


def _result(h: dict[str, Any]) -> str:
    if h["status"] != "done":
        return str(h["status"])
    return "revoke" if (h["forfeit_seat"] if h["forfeit_seat"] is not None else -1) >= 0 else "done"


@dataclass
class TableSheet:
    """One table's part of the sheet."""

    table: int
    hands: list[dict[str, Any]]
    finished: int
    rows: list[list[str]] = field(default_factory=list)  # hand, table, #, the cells, result
    summary: str = ""  # the levels now, the next dealer (and the match's winner)

    def title(self, lang: str) -> str:
        if lang == "zh":
            return f"牌桌 {self.table}：{len(self.hands)} 局，{self.finished} 局打完"
        return f"table {self.table}: {len(self.hands)} hand(s), {self.finished} finished"


def header(lang: str) -> list[str]:
    lg = _lang(lang)
    return [*LEAD[lg], *HEADINGS[lg], RESULT[lg]]


def tables(hands: list[dict[str, Any]], lang: str = "en") -> list[TableSheet]:
    """The sheet, table by table (levels after each finished hand; in
    brackets, the levels a hand not finished was played at)."""
    out: list[TableSheet] = []
    for t in sorted({h["table_id"] for h in hands}):
        mine = [h for h in hands if h["table_id"] == t]
        done = [h for h in mine if h["status"] == "done"]
        ts = TableSheet(t, mine, len(done))
        for h in mine:
            no = "?" if h["hand_no"] is None else str(h["hand_no"])
            ts.rows.append([str(h["id"]), str(h["table_id"]), no, *cells(h, lang), status(_result(h), lang)])
        last = next((h for h in reversed(done) if h["next_level0"] is not None), None)
        if last is not None:
            ts.summary = _summary(last, lang)
        out.append(ts)
    return out


def _summary(last: dict[str, Any], lang: str) -> str:
    levels = " ".join(level_name(x) for x in _next(last))
    win = last["match_winner"]
    if last.get("next_level2") is not None:
        won = " ".join(f"S{s}" for s in range(4) if win is not None and win >= 0 and win >> s & 1)
        if lang == "zh":
            return (f"当前级别 {levels} (S0 S1 S2 S3)，下一庄家 S{last['next_dealer']}"
                    + (f"；{won} 赢得比赛" if won else ""))
        return (f"levels now {levels} (S0 S1 S2 S3), next dealer S{last['next_dealer']}"
                + (f"; {won} won the match" if won else ""))
    won_side = win is not None and win >= 0
    if lang == "zh":
        return (f"当前级别 {levels} (0&2 方, 1&3 方)，下一庄家 S{last['next_dealer']}"
                + (f"；{win} 方赢得比赛" if won_side else ""))
    return (f"levels now {levels} (sides 0&2, 1&3), next dealer S{last['next_dealer']}"
            + (f"; side {win} won the match" if won_side else ""))


def render(hands: list[dict[str, Any]], lang: str = "en") -> str:
    """The sheet as text, its columns lined up by display width."""
    out: list[str] = []
    for ts in tables(hands, lang):
        out.append(ts.title(lang))
        out += columns_text(header(lang), ts.rows, ">>>" + ALIGN + "<")
        if ts.summary:
            out.append(ts.summary)
        out.append("")
    return "\n".join(out)


SHEET_CSS = """
table.sheet td { white-space: nowrap; }
p.totals { margin: 6px 0 0; font-weight: 600; }
"""


def render_html(hands: list[dict[str, Any]], lang: str = "en", source: str = "") -> str:
    """The sheet as one self-contained, printable HTML page (the hand report's style)."""
    from .html import CSS

    lg = _lang(lang)
    e = escape
    title = TITLE[lg]
    p = [
        "<!DOCTYPE html>",
        f'<html lang="{lg}"><head><meta charset="utf-8">',
        f"<title>{e(title)}</title><style>{CSS}{SHEET_CSS}</style></head><body>",
        f"<h1>{e(title)}</h1>",
    ]
    if source:
        count = f"{len(hands)} 局" if lg == "zh" else f"{len(hands)} hand(s)"
        p.append(f'<p class="facts">{e(source)}: {e(count)}</p>')
    heads = header(lg)
    nums = {0, 1, 2, 6}  # hand, table, #, points
    for ts in tables(hands, lg):
        p.append(f"<h2>{e(ts.title(lg))}</h2>")
        p.append(f'<table class="sheet" id="sheet-{ts.table}"><tr>'
                 + "".join(f"<th>{e(h)}</th>" for h in heads) + "</tr>")
        for row in ts.rows:
            tds = "".join(f'<td class="num">{e(c)}</td>' if i in nums else f"<td>{e(c)}</td>"
                          for i, c in enumerate(row))
            p.append(f'<tr class="hand" data-hand="{e(row[0])}">{tds}</tr>')
        p.append("</table>")
        if ts.summary:
            p.append(f'<p class="totals" id="totals-{ts.table}">{e(ts.summary)}</p>')
    if not hands:
        p.append(f'<p class="none">{"没有牌局" if lg == "zh" else "no hands"}</p>')
    p.append("</body></html>")
    return "\n".join(p) + "\n"


def render_csv(hands: list[dict[str, Any]]) -> str:
    """The sheet as CSV: a header, then one row per hand with the figures in
    fields of their own (seats and sides as numbers, trump S H D C NT, levels
    as ranks), whatever the language."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(CSV_FIELDS)

    def num(x: Any) -> str:
        return "" if x is None or (isinstance(x, int) and x < 0) else str(x)

    for h in sorted(hands, key=lambda h: (h["table_id"], h["id"])):
        per_seat = h.get("level2") is not None
        att = ""
        if h["dealer"] is not None and h["dealer"] >= 0:
            att = attackers_of(h["dealer"], per_seat, h.get("partner"))
        after = " ".join(level_name(x) for x in _next(h)) if h["status"] == "done" and h["next_level0"] is not None else ""
        before = " ".join(level_name(x) for x in levels_of(h)) if h["level0"] is not None else ""
        w.writerow([
            h["table_id"], h["id"], num(h["hand_no"]), _result(h), num(h["dealer"]),
            "" if h["trump"] is None else trump_name(h["trump"], "en"), num(h["declarer"]), att,
            num(h["attackers_score"]), num(h["kitty_points"]) if h["multiplier"] else "",
            num(h["multiplier"]) if h["multiplier"] else "", num(h["bonus"]) if h["multiplier"] else "",
            before, after,
        ])
    return buf.getvalue()
