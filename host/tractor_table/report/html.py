"""A hand report as one self-contained, printable HTML file: inline CSS, the
cards drawn as small pictures (rank and suit, hearts and diamonds red,
spades and clubs black, jokers marked), no scripts, no files beside it."""

from __future__ import annotations

from collections.abc import Iterable
from html import escape

from .cards import face_parts, is_red, levels_name, name, trump_name
from .model import HandReport, TrickReport, note_text, result_text, settlement, status_text
from .text import score_text, words

CSS = """
:root { --red: #c8102e; --black: #111; --line: #bbb; }
* { box-sizing: border-box; }
body { font: 14px/1.4 system-ui, "Noto Sans", "Noto Sans CJK SC", sans-serif; color: #111;
       background: #fff; margin: 24px; }
h1 { font-size: 20px; margin: 0 0 4px; }
h2 { font-size: 16px; margin: 18px 0 6px; border-bottom: 1px solid var(--line); }
.facts { color: #333; margin: 2px 0; }
.card { display: inline-flex; flex-direction: column; align-items: center; justify-content: center;
        width: 30px; height: 42px; margin: 1px; border: 1px solid #777; border-radius: 4px;
        background: #fff; vertical-align: middle; font-weight: 700; line-height: 1;
        box-shadow: 1px 1px 0 #ccc; }
.card .r { font-size: 13px; }
.card .s { font-size: 16px; }
.card .c { font-size: 8px; font-weight: 400; color: #555; }
.card.red { color: var(--red); }
.card.black { color: var(--black); }
.card.joker .r { font-size: 7px; letter-spacing: -0.5px; }
.card.joker.black { background: #eee; }
.card.joker.red { background: #fde8ec; }
table { border-collapse: collapse; }
td, th { border: 1px solid var(--line); padding: 3px 6px; text-align: left; vertical-align: middle; }
th { background: #f3f3f3; }
td.num { text-align: right; }
tr.trick td.win { background: #f4fbf4; }
.note { color: #8a4b00; font-size: 12px; }
.finding { margin: 4px 0; }
.view { margin-left: 18px; font-family: ui-monospace, monospace; font-size: 12px; }
.none { color: #666; }
@media print {
  body { margin: 10mm; font-size: 11pt; }
  h2 { break-after: avoid; }
  tr, .finding, .hands div { break-inside: avoid; }
  .card { box-shadow: none; -webkit-print-color-adjust: exact; print-color-adjust: exact; }
  @page { size: A4; margin: 12mm; }
}
"""


def card_html(card: int, lang: str) -> str:
    rank, suit = face_parts(card)
    color = "red" if is_red(card) else "black"
    joker = " joker" if rank == "JOKER" else ""
    if joker and lang == "zh":
        rank = "王"  # 大王 / 小王: the picture's colour tells which
    copy = card // 54
    label = name(card, lang)
    mark = f'<span class="c">.{copy}</span>' if copy else ""
    return (f'<span class="card {color}{joker}" data-card="{escape(name(card))}" title="{escape(label)}">'
            f'<span class="r">{escape(rank)}</span><span class="s">{suit}</span>{mark}</span>')


def cards_html(cards: Iterable[int] | None, lang: str) -> str:
    cs = list(cards or [])
    if not cs:
        return '<span class="none">-</span>'
    return "".join(card_html(c, lang) for c in cs)


def score_cell(t: TrickReport, w: dict[str, str]) -> str:
    """The attackers' column of a trick: their total, or with find-a-friend
    before the partner is known the points by seat."""
    if t.score is None:
        return ""
    if t.score < 0:
        return escape(score_text(t, w))
    return str(t.score)


def render(rep: HandReport, *, lang: str = "en") -> str:
    w = words(lang)
    e = escape
    no = "?" if rep.hand_no is None else rep.hand_no
    if lang == "zh":
        title = f"牌局 {rep.hand_id}：牌桌 {rep.table_id}，本场第 {no} 局"
    else:
        title = f"Hand {rep.hand_id}: table {rep.table_id}, hand {no} of its match"
    when = (rep.started_at or "")[:19].replace("T", " ") + " UTC"
    dealer = f"S{rep.dealer}" if rep.dealer is not None and rep.dealer >= 0 else "?"
    decl = (f"{w['declared by']} S{rep.declarer}" if rep.declarer is not None and rep.declarer >= 0
            else w["nobody"])
    p: list[str] = [
        "<!DOCTYPE html>",
        f'<html lang="{"zh" if lang == "zh" else "en"}"><head><meta charset="utf-8">',
        f"<title>{e(title)}</title><style>{CSS}</style></head><body>",
        f"<h1>{e(title)}</h1>",
        f'<p class="facts">{e(when)}; {e(status_text(rep, lang))}; {rep.events} {e(w["events"])}'
        + (f"; {e(w['table id'])} {e(rep.table_uid)}" if rep.table_uid else "") + "</p>",
        f'<p class="facts" id="trump">{e(w["dealer"])} {dealer}; {e(w["trump"])} '
        f"<b>{e(trump_name(rep.trump, lang))}</b> ({e(decl)}); {e(w['levels'])} "
        f"{levels_name(rep.levels)}; {e(w['attackers'])} {rep.attackers}</p>",
        f"<h2>{e(w['bidding'])}</h2>",
    ]
    if not rep.bids:
        p.append(f'<p class="none">{e(w["no bids"])}</p>')
    else:
        p.append(f'<table id="bids"><tr><th>{e(w["seat"])}</th><th>{e(w["cards"])}</th><th>{e(w["verdict"])}</th></tr>')
        for b in rep.bids:
            verdict = w["accepted"] if b.accepted else f"{w['refused']}: {b.why}"
            p.append(f"<tr><td>S{b.seat}</td><td>{cards_html(b.cards, lang)}</td><td>{e(verdict)}</td></tr>")
        p.append("</table>")
    if rep.kitty_up is not None:
        p.append(f"<p>{e(w['turned up'])}: {cards_html(rep.kitty_up, lang)}</p>")
    how = f" ({w[rep.hands_from]})" if rep.hands_from else ""
    p.append(f"<h2>{e(w['hands'] + how)}</h2><div class=\"hands\">")
    for seat, cards in enumerate(rep.hands):
        body = cards_html(cards, lang) if cards else f'<span class="none">{e(w["unknown"])}</span>'
        p.append(f'<div id="hand-{seat}"><b>S{seat}</b> {body}</div>')
    pts = f" ({rep.kitty_points} {w['points']})" if rep.kitty_points is not None else ""
    kitty = cards_html(rep.kitty, lang) if rep.kitty else f'<span class="none">{e(w["unknown"])}</span>'
    p.append(f'<div id="kitty"><b>{e(w["kitty"])}</b> ({e(w["buried"])}) {kitty}{e(pts)}</div></div>')
    p.append(f"<h2>{e(w['tricks'])}</h2>")
    p.append('<table id="tricks"><tr><th>#</th><th>S0</th><th>S1</th><th>S2</th><th>S3</th>'
             f"<th>{e(w['wins'])}</th><th>{e(w['points'])}</th><th>{e(w['attackers'])}</th></tr>")
    for t in rep.tricks:
        cells = {s: c for s, c in t.plays}
        row = [f'<tr class="trick" data-trick="{t.number}"><td class="num">{t.number}</td>']
        for s in range(4):
            lead = ((" (首出)" if lang == "zh" else " (lead)") if s == t.leader else "")
            cls = ' class="win"' if s == t.winner else ""
            row.append(f'<td{cls} title="S{s}{lead}">{cards_html(cells.get(s), lang)}</td>')
        win = f"S{t.winner}" if t.winner is not None else ""
        row.append(f'<td>{win}</td><td class="num">{"" if t.points is None else t.points}</td>'
                   f'<td class="num">{score_cell(t, w)}</td></tr>')
        p.append("".join(row))
        for n in t.notes:
            p.append(f'<tr><td></td><td colspan="7" class="note">{e(note_text(n, lang))}</td></tr>')
    p.append("</table>")
    if rep.end is not None:
        en = rep.end
        p.append(f"<h2>{e(w['end'])}</h2>")
        win = "" if en["match_winner"] < 0 else f"; {w['side']} {en['match_winner']} {w['wins match']}"
        p.append(
            f'<p id="end">{e(w["attackers"])} <b>{en["score"]}</b>; {e(w["bonus"])} '
            f"{en['kitty_points']} &times; {en['multiplier']} = {en['bonus']}<br>"
            f"{e(w['levels after'])} <b>{levels_name(en['levels'])}</b>; "
            f"{e(w['next dealer'])} S{en['next_dealer']}{e(win)}"
            + (f"<br><b>{e(settlement(rep, lang))}</b>" if settlement(rep) else "")
            + (f"<br>{e(result_text(rep, lang))}" if rep.result else "") + "</p>"
        )
    p.append(f"<h2>{e(w['findings'])}</h2>")
    if not rep.findings:
        p.append(f'<p class="none" id="findings">{e(w["none"])}</p>')
    else:
        p.append('<div id="findings">')
        for f in rep.findings:
            p.append(f'<div class="finding"><b>[{e(w.get("source " + f.source, f.source))}]</b> '
                     f"{e(f.text_in(lang))}")
            if f.table_view or f.host_view:
                tv, hv = f.views_in(lang)
                p.append(f'<div class="view">{e(w["table view"])}: {e(tv)}</div>'
                         f'<div class="view">{e(w["host view"])}: {e(hv)}</div>')
            p.append("</div>")
        p.append("</div>")
    p.append("</body></html>")
    return "\n".join(p) + "\n"
