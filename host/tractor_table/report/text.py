"""A hand report for the terminal: the same content as the HTML report, with
red and black suits (ANSI colours) when the output is a terminal."""

from __future__ import annotations

from collections.abc import Iterable

from .cards import is_red, levels_name, name, trump_name
from .model import HandReport, TrickReport, note_text, result_text, settlement, status_text

RED, BOLD, DIM, RESET = "\x1b[31m", "\x1b[1m", "\x1b[2m", "\x1b[0m"

WORDS = {
    "en": {
        "dealer": "dealer",
        "trump": "trump", "declared by": "declared by", "nobody": "nobody bid", "levels": "levels",
        "bidding": "bidding", "no bids": "no bids", "refused": "refused", "hands": "hands",
        "kitty": "kitty", "buried": "buried", "points": "points", "tricks": "tricks",
        "wins": "wins", "attackers": "attackers", "end": "hand over",
        "bonus": "kitty bonus", "next dealer": "next dealer", "levels after": "levels after",
        "findings": "findings", "none": "none", "table view": "table", "host view": "engine",
        "side": "side", "wins match": "wins the match", "turned up": "kitty turned up",
        "scanned": "as scanned", "played": "as played", "played so far": "played so far",
        "seat": "seat", "cards": "cards", "events": "events", "table id": "table id",
        "unknown": "not known", "by seat": "points by seat",
        "no partner yet": "partner not yet known", "verdict": "verdict", "accepted": "accepted",
        "source table": "table", "source verifier": "verifier",
    },
    "zh": {
        "dealer": "庄家",
        "trump": "主牌", "declared by": "亮主", "nobody": "无人亮主", "levels": "级别",
        "bidding": "叫牌", "no bids": "无人叫牌", "refused": "不接受", "hands": "手牌",
        "kitty": "底牌", "buried": "扣底", "points": "分", "tricks": "出牌",
        "wins": "赢", "attackers": "闲家", "end": "本局结束",
        "bonus": "抠底", "next dealer": "下一庄家", "levels after": "之后级别",
        "findings": "问题", "none": "无", "table view": "牌桌", "host view": "引擎",
        "side": "方", "wins match": "赢得比赛", "turned up": "翻底",
        "scanned": "扫描", "played": "已出", "played so far": "已出（未完）",
        "seat": "座位", "cards": "牌", "events": "个事件", "table id": "牌桌编号",
        "unknown": "未知", "by seat": "各家得分",
        "no partner yet": "朋友未明", "verdict": "结果", "accepted": "接受",
        "source table": "牌桌", "source verifier": "核对",
    },
}


def words(lang: str) -> dict[str, str]:
    return WORDS["zh" if lang == "zh" else "en"]


def score_text(t: TrickReport, w: dict[str, str]) -> str:
    """The score after a trick: the attackers' total; with find-a-friend,
    before the partner is known (the table sends -1), the points by seat."""
    if t.score is not None and t.score < 0:
        seats = " ".join(f"S{s} {p}" for s, p in enumerate(t.by_seat))
        return f"{w['by seat']} {seats}, {w['no partner yet']}"
    return f"{w['attackers']} {t.score}"


def card_text(card: int, lang: str, color: bool) -> str:
    n = name(card, lang)
    if color and is_red(card):
        return f"{RED}{n}{RESET}"
    return n


def cards_text(cards: Iterable[int], lang: str, color: bool) -> str:
    return " ".join(card_text(c, lang, color) for c in cards) or "-"


def render(rep: HandReport, *, lang: str = "en", color: bool = False) -> str:
    w = words(lang)
    b = (lambda s: f"{BOLD}{s}{RESET}") if color else (lambda s: s)
    out: list[str] = []
    no = "?" if rep.hand_no is None else rep.hand_no
    who = f" ({rep.table_uid})" if rep.table_uid else ""
    if lang == "zh":
        out.append(b(f"牌局 {rep.hand_id}：牌桌 {rep.table_id}{who}，本场第 {no} 局；{status_text(rep, lang)}；"
                     f"{rep.events} 个事件"))
    else:
        out.append(b(f"hand {rep.hand_id}: table {rep.table_id}{who}, hand {no} of its match; "
                     f"{status_text(rep, lang)}; {rep.events} events"))
    when = (rep.started_at or "")[:19].replace("T", " ")
    if rep.ended_at:
        when += " - " + rep.ended_at[:19].replace("T", " ")
    out.append(f"  {when} UTC")
    dealer = f"S{rep.dealer}" if rep.dealer is not None and rep.dealer >= 0 else "?"
    decl = (f"{w['declared by']} S{rep.declarer}" if rep.declarer is not None and rep.declarer >= 0
            else w["nobody"])
    out.append(f"  {w['dealer']} {dealer}; {w['trump']} {trump_name(rep.trump, lang)} ({decl}); "
               f"{w['levels']} {levels_name(rep.levels)}; "
               f"{w['attackers']} {rep.attackers}")
    out.append("")
    out.append(b(w["bidding"]))
    if not rep.bids:
        out.append(f"  {w['no bids']}")
    for bid in rep.bids:
        verdict = "" if bid.accepted else f"  ({w['refused']}: {bid.why})"
        out.append(f"  S{bid.seat}: {cards_text(bid.cards, lang, color)}{verdict}")
    if rep.kitty_up is not None:
        out.append(f"  {w['turned up']}: {cards_text(rep.kitty_up, lang, color)}")
    out.append("")
    how = f" ({w[rep.hands_from]})" if rep.hands_from else ""
    out.append(b(w["hands"] + how))
    for seat, cards in enumerate(rep.hands):
        out.append(f"  S{seat}: {cards_text(cards, lang, color) if cards else w['unknown']}")
    kitty = cards_text(rep.kitty, lang, color) if rep.kitty else w["unknown"]
    pts = f" ({rep.kitty_points} {w['points']})" if rep.kitty_points is not None else ""
    out.append(f"  {w['kitty']} ({w['buried']}): {kitty}{pts}")
    out.append("")
    out.append(b(w["tricks"]))
    for t in rep.tricks:
        plays = "  ".join(f"S{s} {cards_text(c, lang, color)}" for s, c in t.plays)
        end = ""
        if t.winner is not None:
            end = f"  -> S{t.winner} {w['wins']} {t.points} {w['points']}; {score_text(t, w)}"
        out.append(f"  {t.number:>2}. {plays}{end}")
        if t.attempt:
            out.append(f"      (S{t.leader}: {cards_text(t.attempt, lang, color)})")
        for n in t.notes:
            out.append(f"      {note_text(n, lang)}")
    out.append("")
    if rep.end is not None:
        e = rep.end
        out.append(b(w["end"]))
        out.append(f"  {w['attackers']} {e['score']}; {w['bonus']} {e['kitty_points']} x{e['multiplier']} "
                   f"= {e['bonus']}")
        win = "" if e["match_winner"] < 0 else f"; {w['side']} {e['match_winner']} {w['wins match']}"
        out.append(f"  {w['levels after']} {levels_name(e['levels'])}; "
                   f"{w['next dealer']} S{e['next_dealer']}{win}")
        settle = settlement(rep, lang)
        if settle:
            out.append(f"  {settle}")
        if rep.result:
            out.append(f"  {result_text(rep, lang)}")
        out.append("")
    out.append(b(w["findings"]))
    if not rep.findings:
        out.append(f"  {w['none']}")
    for f in rep.findings:
        out.append(f"  [{w.get('source ' + f.source, f.source)}] {f.text_in(lang)}")
        if f.table_view or f.host_view:
            tv, hv = f.views_in(lang)
            out.append(f"      {w['table view']}: {tv}")
            out.append(f"      {w['host view']}: {hv}")
    return "\n".join(out) + "\n"
