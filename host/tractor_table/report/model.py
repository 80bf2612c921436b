"""A recorded hand as a report: what the table's events say, in the order a
person reads it (the bidding, trump and dealer; the hands where known and
the kitty; every trick with its winner, points and the running score; the
kitty bonus, the settlement and the levels; the table's and the verifier's
findings, with both views of a disagreement)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from ..events import (
    Audit,
    Bid,
    Call,
    Challenge,
    Event,
    Forced,
    Forfeit,
    HandEnd,
    HandStart,
    Kitty,
    KittyUp,
    Partner,
    Play,
    Reject,
    Revoke,
    Scan,
    Trick,
    Trump,
    Undo,
    decode,
    describe,
    reason,
)

SEATS = 4


@dataclass
class ReportBid:
    seat: int
    cards: list[int]
    accepted: bool
    why: str = ""


@dataclass
class TrickReport:
    number: int  # 1-based
    leader: int | None = None
    plays: list[tuple[int, list[int]]] = field(default_factory=list)
    winner: int | None = None
    points: int | None = None
    score: int | None = None  # the attackers' running score after it (-1: partner not yet known)
    by_seat: list[int] = field(default_factory=lambda: [0] * SEATS)  # the points each seat has taken so far
    notes: list[Event] = field(default_factory=list)  # forced throws, challenges, take-backs (note_text)
    attempt: list[int] = field(default_factory=list)  # a failed throw as laid


@dataclass
class ReportFinding:
    source: str  # "table" or "verifier"
    text: str
    table_view: str = ""
    host_view: str = ""
    event: Event | None = None  # a table's finding: its event (said again in the report's language)
    index: int | None = None  # a verifier's: the event's index, what differs, both events
    what: str = ""
    table_event: Any = None
    host_event: Any = None

    def text_in(self, lang: str) -> str:
        if lang != "zh":
            return self.text
        from .words import describe_in

        if self.event is not None:
            return describe_in(self.event, lang)
        if self.index is not None:
            return f"事件 {self.index}：牌桌与完整引擎不一致 ({self.what})"
        return self.text

    def views_in(self, lang: str) -> tuple[str, str]:
        """The table's and the host's view of a disagreement, in ``lang``."""
        if lang != "zh" or self.index is None:
            return self.table_view, self.host_view
        from .words import describe_in

        return (describe_in(self.table_event, lang) if self.table_event is not None else self.table_view,
                describe_in(self.host_event, lang) if self.host_event is not None else "-")


@dataclass
class HandReport:
    hand_id: int
    table_id: int
    table_uid: str | None
    hand_no: int | None
    status: str
    started_at: str | None
    ended_at: str | None
    decks: int | None = None
    dealer: int | None = None
    declarer: int | None = None
    trump: int | None = None
    levels: tuple[int | None, ...] = (None, None)  # per side, or per seat (find-a-friend)
    called: int | None = None  # find-a-friend: the face called
    partner: int | None = None  # the dealer's partner once known (-1: alone)
    bids: list[ReportBid] = field(default_factory=list)
    hands: list[list[int] | None] = field(default_factory=lambda: [None] * SEATS)
    hands_from: str = ""  # "scanned" (hand_scan), "played" (every card played), ""
    kitty: list[int] | None = None
    kitty_points: int | None = None
    kitty_up: list[int] | None = None
    tricks: list[TrickReport] = field(default_factory=list)
    end: dict[str, Any] | None = None
    findings: list[ReportFinding] = field(default_factory=list)
    rules: dict[str, Any] | None = None
    events: int = 0
    result: str = ""

    @property
    def attackers(self) -> str:
        """The attacking side ('1&3'), from the dealer; with find-a-friend from
        the dealer and its partner ('?' until the partner is known)."""
        if self.dealer is None or self.dealer < 0:
            return "?"
        return attackers_of(self.dealer, len(self.levels) == 4, self.partner)


def _taken_over(rep: HandReport, att: list[int], before: Any, after: Any) -> bool:
    """Find-a-friend: did the attackers take the deal over? (The next dealer
    does not say: the partner deals next when the defenders keep the deal,
    and it may sit next after the dealer.) The rules' level result for the
    score; without the rules, whether an attacker went up."""
    e = rep.end
    assert e is not None
    if rep.rules is not None:
        from shengji import Rules
        from shengji.settle import level_result

        r = Rules.from_dict(rep.rules)
        return level_result(max(e["score"], 0), r.decks, r.level_table).attackers_win
    return any((after[s] or 0) > (before[s] or 0) for s in att)


def attackers_of(dealer: int, per_seat: bool, partner: int | None) -> str:
    """'1&3' with fixed partners; with find-a-friend the seats against the
    dealer and its partner ('?' while the partner is unknown)."""
    if not per_seat:
        a = (dealer + 1) % 2
        return f"{a}&{a + 2}"
    if partner is None or partner == -2:
        return "?"
    return "&".join(str(s) for s in range(SEATS) if s not in (dealer, partner))


def levels_of(hand: dict[str, Any]) -> tuple[int | None, ...]:
    """A recorded hand's levels: per side, or per seat (find-a-friend, schema 4)."""
    if hand.get("level2") is not None:
        return (hand["level0"], hand["level1"], hand["level2"], hand["level3"])
    return (hand["level0"], hand["level1"])


def build(store: Any, hand: dict[str, Any]) -> HandReport:
    """The report of a hand of ``store`` (a :class:`~tractor_table.records.Store`)."""
    from ..records.export import branch

    uid = None
    for (u,) in store.query("SELECT uid FROM tables WHERE id = ?", (hand["table_id"],)):
        uid = u
    rep = HandReport(
        hand_id=hand["id"], table_id=hand["table_id"], table_uid=uid, hand_no=hand["hand_no"],
        status=hand["status"], started_at=hand["started_at"], ended_at=hand["ended_at"],
        decks=hand["decks"], dealer=hand["dealer"], declarer=hand["declarer"], trump=hand["trump"],
        levels=levels_of(hand), result=hand["result"] or "",
        called=hand.get("called"), partner=hand.get("partner"),
    )
    events = branch(store, hand)
    rep.events = len(events)
    if events:
        rep.rules = store.session_rules(events[0]["session"])
    for e in events:
        feed(rep, e["event"])
        for v in e["verdicts"]:
            if v["verdict"] != "disagreed":
                continue
            host = json.loads(v["host_event"]) if v["host_event"] else None
            rep.findings.append(ReportFinding(
                "verifier",
                f"event {e['index']}: the table and the full engine disagree ({v['what']})",
                table_view=v["table_text"] or describe(e["event"]),
                host_view=v["host_text"] or (describe(host) if host else "-"),
                index=e["index"], what=v["what"], table_event=e["event"], host_event=host,
            ))
    finish(rep)
    return rep


def _trick(rep: HandReport, no: int) -> TrickReport:
    while len(rep.tricks) <= no:
        rep.tricks.append(TrickReport(len(rep.tricks) + 1))
    return rep.tricks[no]


def feed(rep: HandReport, event: Event | list[Any]) -> None:
    """One table event into the report."""
    ev = decode(event, lenient=True)
    cards = list(ev.ids)
    match ev:
        case HandStart():
            rep.hand_no, rep.dealer, rep.decks = ev.hand_no, ev.dealer, ev.decks
            rep.levels = ev.levels
        case Call():
            rep.called = ev.face
        case Partner():
            rep.partner = ev.partner
        case Bid():
            rep.bids.append(ReportBid(ev.seat, cards, ev.accepted, "" if ev.accepted else reason(ev.reason)))
        case Trump():
            rep.trump, rep.declarer, rep.dealer = ev.trump, ev.declarer, ev.dealer
        case Kitty():
            rep.kitty, rep.kitty_points = cards, ev.points
        case KittyUp():
            rep.kitty_up = cards
        case Scan():
            rep.hands[ev.seat] = sorted(cards, key=card_order)
            rep.hands_from = "scanned"
        case Play():
            t = _trick(rep, ev.trick)
            if not t.plays:
                t.leader = ev.seat
            t.plays.append((ev.seat, cards))
        case Undo():  # a long press took the seat's last play back: it is not in the trick
            t = _trick(rep, ev.trick)
            for i in range(len(t.plays) - 1, -1, -1):
                if t.plays[i][0] == ev.seat:
                    del t.plays[i]
                    break
            if not t.plays:
                t.leader = None
            t.notes.append(ev)
        case Forced():
            t = _trick(rep, ev.trick)
            t.notes.append(ev)
            if t.plays and t.plays[0][0] == ev.leader:
                t.attempt = t.plays[0][1]
                t.plays[0] = (ev.leader, cards)
            rep.findings.append(ReportFinding("table", describe(ev), event=ev))
        case Challenge():
            t = _trick(rep, ev.trick)
            t.notes.append(ev)
            if not ev.accepted:
                rep.findings.append(ReportFinding("table", describe(ev), event=ev))
        case Trick():
            t = _trick(rep, ev.trick)
            t.winner, t.points, t.score = ev.winner, ev.points, ev.attackers_score
            before = rep.tricks[ev.trick - 1].by_seat if ev.trick > 0 else [0] * SEATS
            t.by_seat = list(before)
            if 0 <= t.winner < SEATS:
                t.by_seat[t.winner] += t.points
        case HandEnd():
            per_seat = len(ev.levels) == 4  # find-a-friend: the winners are a bit mask of seats
            won = ev.match_winner
            rep.end = {
                "score": ev.attackers_score, "kitty_points": ev.kitty_points, "multiplier": ev.multiplier,
                "bonus": ev.bonus, "next_dealer": ev.next_dealer, "levels": ev.levels,
                "match_winner": -1 if per_seat else won,
                "winners": [s for s in range(SEATS) if won >= 0 and won >> s & 1] if per_seat else [],
            }
        case Reject() | Audit() | Revoke() | Forfeit():
            rep.findings.append(ReportFinding("table", describe(ev), event=ev))
        case _:
            pass


def note_text(ev: Event, lang: str = "en") -> str:
    """A trick's note in words: a take-back, a failed throw, a challenge."""
    zh = lang == "zh"
    match ev:
        case Undo():
            cards = _names(list(ev.ids), lang)
            return f"S{ev.seat} 收回 {cards}" if zh else f"S{ev.seat} took back {cards}"
        case Forced():
            cards = _names(list(ev.ids), lang)
            if zh:
                return f"S{ev.leader} 甩牌失败：{cards} 作为首出 (罚 {ev.penalty} 分)"
            return f"S{ev.leader}'s throw fails: {cards} stands as the lead (penalty {ev.penalty})"
    from .words import describe_in

    return describe_in(ev, lang)


def status_text(rep: HandReport, lang: str = "en") -> str:
    from .words import status

    return status(rep.status, lang)


def result_text(rep: HandReport, lang: str = "en") -> str:
    """The hand's result line (the HAND_END event described), in ``lang``."""
    if lang != "zh" or not rep.result:
        return rep.result
    from .words import hand_end_zh

    e = rep.end
    if rep.status == "redeal":
        return "重新发牌：无人亮主"
    if e is None:
        return rep.result
    won = e["match_winner"]
    if e["winners"]:
        won = sum(1 << s for s in e["winners"])
    return hand_end_zh(e["score"], e["kitty_points"], e["multiplier"], e["bonus"], e["levels"],
                       e["next_dealer"], won)


def settlement(rep: HandReport, lang: str = "en") -> str:
    """Who keeps or takes the deal and how many levels a side goes up (from
    the levels before and after the hand)."""
    zh = lang == "zh"
    e = rep.end
    if e is None or rep.dealer is None or rep.dealer < 0 or None in rep.levels:
        return ""
    before = rep.levels
    after = e["levels"]
    if len(before) == 4:  # find-a-friend: levels per seat
        dealer = rep.dealer
        seats = " ".join(f"S{s}" for s in e["winners"])
        if seats:
            return f"{seats} 赢得比赛" if zh else f"{seats} win the match"
        defenders = {dealer} | ({rep.partner} if rep.partner is not None and rep.partner >= 0 else set())
        side = "+".join(f"S{s}" for s in sorted(defenders))
        att = [s for s in range(SEATS) if s not in defenders]
        if not _taken_over(rep, att, before, after):
            up = (after[dealer] or 0) - (before[dealer] or 0)
            if zh:
                return f"庄家一方 ({side}) 保庄，每人升 {up} 级"
            return f"the defenders ({side}) keep the deal, +{up} level(s) each"
        up = (after[att[0]] or 0) - (before[att[0]] or 0) if att else 0
        them = "+".join(f"S{s}" for s in att)
        if zh:
            return f"闲家 ({them}) 上台坐庄，每人升 {up} 级"
        return f"the attackers ({them}) take the deal over, +{up} level(s) each"
    d = rep.dealer % 2
    a = 1 - d
    w = e["match_winner"]
    if w is not None and w >= 0:
        return f"{w} 方 ({w}&{w + 2}) 赢得比赛" if zh else f"side {w} ({w}&{w + 2}) wins the match"
    if e["next_dealer"] % 2 == d:
        up = after[d] - before[d]
        if zh:
            return f"庄家一方 ({d}&{d + 2}) 保庄，升 {up} 级"
        return f"the defenders ({d}&{d + 2}) keep the deal, +{up} level(s)"
    up = after[a] - before[a]
    if zh:
        return f"闲家 ({a}&{a + 2}) 上台坐庄，升 {up} 级"
    return f"the attackers ({a}&{a + 2}) take the deal over, +{up} level(s)"


def finish(rep: HandReport) -> None:
    """The hands where the events tell them: scanned, else every card each
    seat played (the whole hand once the last trick is in)."""
    if rep.hands_from or not rep.tricks:
        return
    played: list[list[int]] = [[] for _ in range(SEATS)]
    for t in rep.tricks:
        for seat, cards in t.plays:
            if 0 <= seat < SEATS:
                played[seat] += cards
    if any(played):
        rep.hands = [sorted(p, key=card_order) for p in played]
        rep.hands_from = "played" if rep.end is not None else "played so far"


def _names(cards: list[int], lang: str = "en") -> str:
    from .cards import names

    return names(cards, lang)


def card_order(card: int) -> tuple[int, int]:
    """Suit by suit (spades, hearts, diamonds, clubs, then the jokers), low to high."""
    return (card % 54, card // 54)
