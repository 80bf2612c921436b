"""The records' words in English and Chinese (``--lang zh``): the table's
events, a hand's status and result, the settlement, the columns of
``records list`` and ``records sheet``.

English is :func:`tractor_table.events.describe`'s (the one vocabulary of the
records, the link and the console); Chinese follows the game's own terms of
docs/rules.md (亮主, 庄家, 闲家, 扣底, 甩牌, 抠底)."""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence
from typing import Any

from ..events import (
    Audit,
    Bid,
    Call,
    Challenge,
    Event,
    EventError,
    Forced,
    Forfeit,
    HandEnd,
    HandStart,
    Kitty,
    KittyUp,
    Partner,
    Play,
    Redeal,
    Reject,
    Revoke,
    Scan,
    Trick,
    Trump,
    Undo,
    as_event,
    describe,
    levels_text,
)
from ..vocab.enums import RulesCode
from .cards import name, names, trump_name

#: the table's reasons (firmware/events.py REASONS), in Chinese
REASONS_ZH = {
    "ok": "通过",
    "out of turn": "未轮到",
    "seen twice": "重复出现",
    "wrong count": "张数不对",
    "mixed suits": "花色混杂",
    "unknown card": "未知的牌",
    "not now": "此时不行",
    "bid too weak": "亮主不够大",
    "not a bid": "不是亮主",
    "kitty count": "底牌张数不对",
    "revoke": "藏牌犯规",
    "bad throw": "甩牌不当",
    "beats nothing": "压不过任何一组",
    "no cards": "没有牌",
    "reader fault": "读卡器故障",
    "not in hand": "不在手牌中",
    "no self-raise": "不可自反",
}

#: the device rules engine's codes (events.RULE_WORDS), in Chinese
RULES_ZH = {
    RulesCode.EMPTY: "空出牌",
    RulesCode.NOT_IN_HAND: "出了手中没有的牌",
    RulesCode.MIXED_SUIT: "首出多门花色",
    RulesCode.WRONG_COUNT: "跟牌张数不对",
    RulesCode.FOLLOW_SUIT: "有首出花色却未跟",
    RulesCode.PAIRS: "有对子却未跟对子",
    RulesCode.TRACTOR: "有拖拉机却未跟拖拉机",
    RulesCode.TRIPLES: "有三张却未跟三张",
    RulesCode.TITANIC: "有泰坦尼克却未跟",
    RulesCode.SAME_SHAPE: "有首出牌型却未跟 (same_shape_only)",
    RulesCode.THROW_FAILED: "别家能压过的甩牌",
}

#: a hand's status (records/hands.py)
STATUS = {
    "en": {},
    "zh": {
        "playing": "进行中", "done": "完成", "redeal": "重新发牌", "incomplete": "未完",
        "abandoned": "中断", "rolled back": "已回退", "revoke": "藏牌失局",
    },
}

#: a verifier's verdict on an event (records show)
VERDICTS_ZH = {"agreed": "一致", "disagreed": "不一致", "not judged": "未判定"}


def status(s: str, lang: str) -> str:
    return STATUS["zh"].get(s, s) if lang == "zh" else s


def reason_in(text: str, lang: str) -> str:
    """A reason of the table's in words (``events.reason``), in ``lang``."""
    return REASONS_ZH.get(text, text) if lang == "zh" else text


def _reason_zh(code: int) -> str:
    from ..events import reason

    return reason_in(reason(code), "zh")


def _rule_zh(code: int) -> str:
    try:
        return RULES_ZH[RulesCode(code)]
    except (ValueError, KeyError):
        return f"规则代码 {code}"


def hand_end_zh(score: int, kitty_points: int, multiplier: int, bonus: int, levels: Sequence[int],
                next_dealer: int, match_winner: int) -> str:
    """HAND_END in Chinese (``match_winner``: a side, or with four levels a bit mask of seats)."""
    if len(levels) == 4:
        won = " ".join(f"S{s}" for s in range(4) if match_winner >= 0 and match_winner >> s & 1)
        winner = f"；{won} 赢得比赛" if won else ""
    else:
        winner = "" if match_winner < 0 else f"；{match_winner} 方赢得比赛"
    return (f"本局结束：闲家 {score} 分 (抠底 {kitty_points} x{multiplier} = {bonus})；"
            f"级别 {levels_text(levels)}，下一庄家 S{next_dealer}{winner}")


def describe_in(event: Event | Sequence[Any], lang: str = "en") -> str:
    """An event in words, in ``lang``: English as :func:`tractor_table.events.describe`
    (its cards in the one notation), Chinese with the Chinese card names."""
    if lang != "zh":
        from .cards import describe_in as describe_en

        return describe_en(event)
    try:
        ev = as_event(event)
    except EventError:
        return describe(event)  # not an event: "event [...]"
    return _zh(ev)


def _zh(ev: Event) -> str:  # noqa: C901, PLR0911, PLR0912 - one line per kind
    cards = names(ev.ids, "zh") if ev.ids else ""
    match ev:
        case HandStart():
            dealer = f"S{ev.dealer}" if ev.dealer >= 0 else "由第一个亮主决定"
            return f"第 {ev.hand_no} 局：{ev.decks} 副牌，级别 {levels_text(ev.levels)}，庄家 {dealer}"
        case Call():
            face = name(ev.face, "zh") if 0 <= ev.face < 54 else f"牌面 {ev.face}"
            return f"S{ev.dealer} 叫 {face} (找朋友)"
        case Partner():
            if ev.partner == -2:
                return f"第 {ev.trick + 1} 墩：朋友尚未可知"
            who = f"S{ev.partner} 是庄家的朋友" if ev.partner >= 0 else "庄家一人独打"
            return f"第 {ev.trick + 1} 墩：{who}；闲家 {ev.attackers_score} 分"
        case Bid():
            verdict = "接受" if ev.accepted else f"不接受 ({_reason_zh(ev.reason)})"
            return f"S{ev.seat} 亮主 {cards}：{verdict}"
        case Trump():
            who = f"S{ev.declarer} 亮主" if ev.declarer >= 0 else "无人亮主"
            return f"主牌 {trump_name(ev.trump, 'zh')} ({who})，庄家 S{ev.dealer}"
        case Redeal():
            return f"第 {ev.hand_no} 局：无人亮主，重新发牌"
        case Kitty():
            return f"S{ev.dealer} 扣底 {cards} ({ev.points} 分)"
        case Play():
            return f"第 {ev.trick + 1} 墩：S{ev.seat} 出 {cards}"
        case Undo():
            if not ev.cards:
                return f"第 {ev.trick + 1} 墩：S{ev.seat} 此处没有可收回的牌"
            return f"第 {ev.trick + 1} 墩：S{ev.seat} 收回 {cards}；轮到 S{ev.seat} 出牌"
        case Reject():
            return f"第 {ev.trick + 1} 墩：S{ev.seat} 不接受：{_reason_zh(ev.reason)} {cards}".rstrip()
        case Challenge():
            verdict = "甩牌失败" if ev.accepted else "未能压过"
            return f"第 {ev.trick + 1} 墩：S{ev.seat} 以 {cards} 挑战甩牌：{verdict}"
        case Forced():
            return f"第 {ev.trick + 1} 墩：S{ev.leader} 须出 {cards} (罚 {ev.penalty} 分)"
        case Trick():
            score = "朋友未明" if ev.attackers_score == -1 else f"闲家 {ev.attackers_score} 分"
            return f"第 {ev.trick + 1} 墩：S{ev.winner} 赢 {ev.points} 分；{score}"
        case Audit():
            why = f"：{_rule_zh(ev.rules_reason)}" if ev.rules_reason else ""
            return f"审核：第 {ev.trick + 1} 墩，S{ev.seat}：{_reason_zh(ev.reason)}{why}"
        case Revoke():
            if ev.rules_reason == 0:
                return f"第 {ev.trick + 1} 墩：未能证实 S{ev.seat} 在第 {ev.earlier_trick + 1} 墩藏牌"
            return (f"第 {ev.trick + 1} 墩：证实 S{ev.seat} 在第 {ev.earlier_trick + 1} 墩藏牌 "
                    f"({_rule_zh(ev.rules_reason)})")
        case Forfeit():
            if ev.seat < 0:
                return "没有藏牌使本局判负"
            where = f"在第 {ev.trick + 1} 墩" if ev.trick >= 0 else ""
            return f"S{ev.seat} {where}藏牌，{ev.seat & 1} 方本局判负"
        case KittyUp():
            if ev.dealer < 0:
                return f"此处不应翻底 (已有亮主、本场第一局，或 no_bid 不是 kitty)：{cards or '-'}"
            if not ev.cards:
                return f"无人亮主：S{ev.dealer} 须先翻底再定主"
            return f"无人亮主：S{ev.dealer} 翻底：{cards} (第一张定主)"
        case HandEnd():
            return hand_end_zh(ev.attackers_score, ev.kitty_points, ev.multiplier, ev.bonus, ev.levels,
                               ev.next_dealer, ev.match_winner)
        case Scan():
            return f"S{ev.seat} 扫描 {len(ev.cards)} 张牌：{cards}"
    return describe(ev)


def lost_by(seat: int | None, lang: str) -> str:
    """A hand a revoke lost (the FORFEIT event): who lost it."""
    if seat is None or seat < 0:
        return ""
    if lang == "zh":
        return f"；S{seat} 藏牌，{seat & 1} 方判负"
    return f"; lost by S{seat}'s revoke (side {seat & 1} forfeits)"


def result_of(h: dict[str, Any], lang: str) -> str:
    """A recorded hand's result (``Store.hands()``) in ``lang``: the stored
    text is English (the HAND_END event described); Chinese is said again
    from the hand's facts."""
    if lang != "zh":
        return h["result"] or ""
    if h["status"] == "redeal":
        return "重新发牌：无人亮主"
    if h["status"] != "done" or h.get("next_level0") is None or h.get("attackers_score") is None:
        return status(h["result"] or h["status"], lang)
    levels: tuple[int, ...] = (h["next_level0"], h["next_level1"])
    if h.get("next_level2") is not None:
        levels = (*levels, h["next_level2"], h["next_level3"])
    win = h.get("match_winner")
    return hand_end_zh(h["attackers_score"], h["kitty_points"] or 0, h["multiplier"] or 0, h["bonus"] or 0,
                       levels, h["next_dealer"] if h.get("next_dealer") is not None else -1,
                       -1 if win is None else win)


# --- columns by display width --------------------------------------------------


def width(text: str) -> int:
    """Columns on a terminal: East Asian wide and full-width characters take two."""
    w = 0
    for ch in text:
        if unicodedata.combining(ch):
            continue
        w += 2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1
    return w


def pad(text: str, cols: int, align: str = "<") -> str:
    """``text`` padded with spaces to ``cols`` display columns (``>``: on the left)."""
    fill = " " * max(0, cols - width(text))
    return fill + text if align == ">" else text + fill


def columns_text(header: Sequence[str], rows: Sequence[Sequence[str]], aligns: str, gap: int = 2) -> list[str]:
    """A header and rows as lines of columns lined up by display width (the last
    column not padded)."""
    n = len(header)
    widths = [max([width(header[i])] + [width(r[i]) for r in rows]) for i in range(n)]
    out = []
    for r in (header, *rows):
        cells = [pad(r[i], widths[i], aligns[i]) if i < n - 1 else r[i] for i in range(n)]
        out.append((" " * gap).join(cells).rstrip())
    return out
