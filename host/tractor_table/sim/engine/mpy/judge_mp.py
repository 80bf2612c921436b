# The device engine's conformance runner: runs under MicroPython (unix port)
# with firmware/ on the module path. Reads cases (docs/rules.md §13) as JSON
# lines on stdin, writes one JSON answer per line on stdout, flushing each.
#
# Parsing notation and JSON lives here, on the host side of the device engine:
# the engine itself (firmware/drules*.py) works on small ints only.
#
# Besides the public kinds, the differential fuzzer (tractor_table/difffuzz.py)
# sends "hand" cases: one whole hand's plays, answered with every verdict.
# The process loop is serve_mp.py's (a line "quit" ends it); the host's client
# is tractor_table.sim.engine.EngineProcess.
import drules  # type: ignore[import-not-found]
import drules_hand  # type: ignore[import-not-found]
import ruleopts  # type: ignore[import-not-found]
import tableconfig  # type: ignore[import-not-found]
import tablerules  # type: ignore[import-not-found]
from serve_mp import CaseError, serve  # type: ignore[import-not-found]

#: [True] to ask the checks as the table asks them (tablerules.ask: the heap
#: locked, the engine's frames on the C stack): chipjudge_mp.py's, on the
#: chip's stack; else each engine method is called as it is
LOCKED = [False]


def check(e, what: int, a, b=None, c=0, d=None):  # type: ignore[no-untyped-def]
    """The engine e's check `what` (tablerules.FOLLOW, LEAD, TRICK,
    DECOMPOSE) of the arguments, locked as the table asks it if LOCKED."""
    if LOCKED[0]:
        return tablerules.ask(e, what, a, b, c, d)
    if what == tablerules.FOLLOW:
        return e.check_follow(a, b, c)
    if what == tablerules.LEAD:
        return e.check_lead(a, b, c, d)
    if what == tablerules.TRICK:
        return e.trick_winner(a)
    return e.decompose(a)


RANKS = "23456789TJQKA"
SUITS = "SHDC"
TRUMPS = {"S": 0, "H": 1, "D": 2, "C": 3, "NT": 4}
REASONS = {
    drules.OK: "ok",
    drules.R_EMPTY: "empty",
    drules.R_NOT_IN_HAND: "not_in_hand",
    drules.R_MIXED_SUIT: "mixed_suits",
    drules.R_WRONG_COUNT: "wrong_count",
    drules.R_FOLLOW_SUIT: "must_follow_suit",
    drules.R_PAIRS: "must_play_pairs",
    drules.R_TRACTOR: "must_play_tractor",
    drules.R_TRIPLES: "must_play_triples",
    drules.R_TITANIC: "must_play_titanic",
    drules.R_SAME_SHAPE: "must_play_same_shape",
    drules.R_THROW_FAILED: "throw_failed",
}
# the rule options and their device numbers: the firmware's table, generated
# from the host's schema (shengji.rules.OPTIONS; firmware/ruleopts.py)
OPTIONS = {o[0]: o for o in ruleopts.OPTIONS}
KNOWN = ("level", "trump") + tuple(OPTIONS)
#: level tables written for one number of decks (docs/rules.md §8.4)
TABLE_DECKS = {"onedeck": 1, "tournament": 2, "xuwen": 4}


def rank_of(text: str) -> int:
    t = text.upper()
    if t == "10":
        t = "T"
    if len(t) != 1 or t not in RANKS:
        raise CaseError(f"bad level {text!r}")
    return RANKS.index(t)


def level_of(x: object) -> int:
    """A level: "2" .. "A" (or "10"), or an int rank index 0 (2) .. 12 (A)."""
    if isinstance(x, bool):
        raise CaseError(f"bad level {x!r}")
    if isinstance(x, int):
        if 0 <= x <= 12:
            return x
        raise CaseError(f"bad level {x!r}: a rank index is 0 (2) .. 12 (A)")
    if not isinstance(x, str):
        raise CaseError(f"bad level {x!r}")
    return rank_of(x.strip())


def rank_name(r: int) -> str:
    return RANKS[r]


SYMBOLS = {"♠": 0, "♥": 1, "♦": 2, "♣": 3, "♤": 0, "♡": 1, "♢": 2, "♧": 3}


def face_of(tok: str) -> int:
    """A card face from a token: rank then suit (AS, 10H, TH), a suit symbol on
    either side (10♥, ♠A), any case; SJ / BJ (小王 / 大王) for the jokers."""
    t = tok.strip().upper()
    if t in ("SJ", "小王"):
        return 52
    if t in ("BJ", "大王"):
        return 53
    if not t:
        raise CaseError("empty card")
    if t[0] in SYMBOLS:
        suit, rank = SYMBOLS[t[0]], t[1:]
    elif t[-1] in SYMBOLS:
        suit, rank = SYMBOLS[t[-1]], t[:-1]
    elif t[-1] in SUITS:
        suit, rank = SUITS.index(t[-1]), t[:-1]
    else:
        raise CaseError(f"bad card {tok!r}: write rank then suit, e.g. AS, TH, 10H, SJ")
    if rank == "10":
        rank = "T"
    if len(rank) != 1 or rank not in RANKS:
        raise CaseError(f"bad card {tok!r}: {rank!r} is not a rank")
    return suit * 13 + RANKS.index(rank)


def card_name(c: int) -> str:
    f = c % 54
    if f == 52:
        return "SJ"
    if f == 53:
        return "BJ"
    return RANKS[f % 13] + SUITS[f // 13]


def parse_cards(text: object, decks: int, seen: list[int] | None = None, empty: bool = False) -> bytearray:
    """Card ids for a notation string; copies numbered by order of appearance
    (across the strings sharing `seen`). More copies than decks is an error."""
    if not isinstance(text, str):
        raise CaseError("cards must be a string of notation")
    used = seen if seen is not None else [0] * 54
    mine = [0] * 54
    out = bytearray()
    for tok in text.replace(",", " ").split():
        f = face_of(tok)
        mine[f] += 1
        if mine[f] > decks:
            raise CaseError(f"{card_name(f)} appears {mine[f]} times with {decks} deck(s)")
        copy = used[f]
        used[f] += 1
        out.append((copy % decks) * 54 + f)
    if not out and not empty:
        raise CaseError("no cards")
    return out


def names(cards: bytes | bytearray | list[int]) -> str:
    return " ".join(card_name(c) for c in cards)


def option_value(name: str, value: object) -> int:
    """A case's value of one rule option (JSON) as the device engine's number
    (firmware/ruleopts.py: a flag 0/1, a choice its index, levels a mask)."""
    _, kind, values, _ = OPTIONS[name]
    if kind == ruleopts.FLAG:
        if not isinstance(value, bool):
            raise CaseError(f"{name} must be true or false")
        return 1 if value else 0
    if kind == ruleopts.CHOICE:
        if value not in values:
            raise CaseError(f"bad {name} {value!r}: one of {', '.join(values)}")
        return int(values.index(value))
    if kind == ruleopts.LEVELS:
        if isinstance(value, str):
            value = value.replace(",", " ").split()
        if not isinstance(value, list):
            raise CaseError(f"{name} must be a list of levels")
        mask = 0
        for r in value:
            mask |= 1 << rank_of(str(r))
        return mask
    lo, hi, step = values
    if not isinstance(value, int) or isinstance(value, bool) or value < lo or (hi >= 0 and value > hi) or (value - lo) % step:
        what = f"{lo}-{hi}" if hi >= 0 else f"{lo} or more"
        raise CaseError(f"{name} must be {what}" + (f", a multiple of {step}" if step > 1 else ""))
    return value


class CaseRules:
    """A case's rules: the engine plus the hand-level options."""

    def __init__(self, rules: object) -> None:
        if rules is None:
            rules = {}
        if not isinstance(rules, dict):
            raise CaseError("rules must be an object")
        for k in rules:
            if k not in KNOWN:
                raise CaseError(f"unknown rule option {k!r}")
        v = {name: option_value(name, rules[name]) if name in rules else o[3] for name, o in OPTIONS.items()}
        self.values = v
        decks = self.decks = v["decks"]
        self.level = rank_of(str(rules.get("level", "2")))
        trump = rules.get("trump", "NT")
        if trump not in TRUMPS:
            raise CaseError(f"bad trump {trump!r}")
        lt = OPTIONS["level_table"][2][v["level_table"]]
        need = TABLE_DECKS.get(lt)
        if need is not None and need != decks:
            raise CaseError(f"level_table {lt!r} needs decks={need}")
        self.table = v["level_table"]
        self.ladder = v["level_ladder"]
        bad = tableconfig.off_ladder(v["must_play"], self.ladder)
        if bad >= 0:
            raise CaseError(f"must_play level {RANKS[bad]} is not on the {OPTIONS['level_ladder'][2][self.ladder]} ladder")
        self.must_play = v["must_play"]
        self.no_bid = v["no_bid"]
        self.first_dealer = v["first_dealer"]
        self.allow_self_override = bool(v["allow_self_override"])
        self.engine = drules.Engine(
            decks,
            bool(v["permanent_twos"]),
            bool(v["same_shape_only"]),
            v["kitty_multiplier"],
            bool(v["kitty_requires_trump"]),
            v["throw_penalty"],
        )
        self.engine.set_trump(self.level, TRUMPS[trump])

    def cards(self, text: object, seen: list[int] | None = None, empty: bool = False) -> bytearray:
        return parse_cards(text, self.decks, seen, empty)


def seat_of(v: object) -> int:
    if not isinstance(v, int) or v < 0 or v > 3:
        raise CaseError("seat must be 0-3")
    return v


def answer(case: dict) -> dict:  # type: ignore[type-arg]
    kind = case.get("kind")
    t = CaseRules(case.get("rules"))
    e = t.engine
    if kind == "compare":
        a = t.cards(case["a"])
        b = t.cards(case["b"])
        if len(a) != 1 or len(b) != 1:
            raise CaseError("compare takes one card each")
        r = e.compare(a[0], b[0])
        return {"cmp": "none" if r == drules.CMP_NONE else r}
    if kind == "shape":
        cards = t.cards(case["cards"])
        n = check(e, tablerules.DECOMPOSE, cards)
        if n < 0:
            return {"suit": "mixed"}
        s = e.lead_suit(cards)
        return {"suit": "trump" if s == drules.TRUMP else SUITS[s], "shape": shape_list(e.units, n)}
    if kind == "throw":
        leader = seat_of(case["leader"])
        lead = t.cards(case["lead"])
        hands_text = case["hands"]
        if not isinstance(hands_text, list) or len(hands_text) != 4:
            raise CaseError("hands must be four strings")
        hands = [drules.hand_from(t.cards(h, empty=True)) for h in hands_text]
        # The leader's own hand plays no part in a throw check (only the
        # other seats can beat it): the lead stands for it.
        drules.hand_from(lead, hands[leader])
        forced = bytearray(len(lead))
        r = check(e, tablerules.LEAD, lead, hands, leader, forced)
        if r == drules.R_THROW_FAILED:
            return {"ok": False, "play": names(forced[: e.nforced])}
        if r != drules.OK:
            raise CaseError("not a lead: " + REASONS[r])
        return {"ok": True, "play": names(lead)}
    if kind == "follow":
        lead = t.cards(case["lead"])
        if e.lead_suit(lead) == drules.MIXED:
            raise CaseError("lead: the cards span several effective suits")
        hand = drules.hand_from(t.cards(case["hand"]))
        play = t.cards(case["play"])
        r = check(e, tablerules.FOLLOW, lead, hand, play)
        if r == drules.R_NOT_IN_HAND:
            raise CaseError("play: not in the hand")
        out = {"legal": r == drules.OK}
        if case.get("_reason"):
            out["reason"] = REASONS[r]
        return out
    if kind == "trick":
        leader = seat_of(case["leader"])
        plays_text = case["plays"]
        if not isinstance(plays_text, list) or len(plays_text) != 4:
            raise CaseError("plays must be four strings")
        seen = [0] * 54
        plays = [t.cards(p, seen) for p in plays_text]
        if e.lead_suit(plays[0]) == drules.MIXED:
            raise CaseError("plays[0]: the lead spans several effective suits")
        for i in range(1, 4):
            if len(plays[i]) != len(plays[0]):
                raise CaseError(f"plays[{i}]: {len(plays[i])} cards, the lead has {len(plays[0])}")
        w = check(e, tablerules.TRICK, plays)
        pts = 0
        for p in plays:
            pts += e.points(p)
        return {"winner": (leader + w) % 4, "points": pts}
    if kind == "kitty":
        lead = t.cards(case["lead"])
        if e.lead_suit(lead) == drules.MIXED:
            raise CaseError("lead: the cards span several effective suits")
        win = t.cards(case["winner_play"], empty=True)
        kitty = t.cards(case["kitty"], empty=True)
        m = e.kitty_multiplier(lead)
        bonus = e.kitty_bonus(lead, win, kitty) if len(win) else (0 if e.kitty_requires_trump else e.points(kitty) * m)
        return {"multiplier": m, "bonus": bonus}
    if kind == "settle":
        score = case["score"]
        if isinstance(score, bool) or not isinstance(score, (int, float)):
            raise CaseError("score must be a number")
        score = int(score)
        dealer = case["dealer"]
        if isinstance(dealer, bool) or not isinstance(dealer, int):
            raise CaseError("dealer must be a seat")
        dealer = seat_of(dealer)
        lv = case["levels"]
        if not isinstance(lv, list) or len(lv) not in (2, 4):
            raise CaseError("levels: give [side0, side1] (or four seat levels with find-a-friend)")
        levels = [level_of(x) for x in lv]
        kitty_j = bool(case.get("kitty_j", False))
        if "winner_play" in case and case.get("attackers_won_last", True):
            for c in t.cards(case["winner_play"], empty=True):
                if c % 54 < 52 and c % 13 == 9:
                    kitty_j = True
        if len(levels) == 2:
            out = drules_hand.settle(
                score, dealer, levels, t.decks, t.table, t.ladder, t.must_play, kitty_j=kitty_j
            )
            return {
                "dealer": out[0],
                "levels": [rank_name(out[1]), rank_name(out[2])],
                "winner": None if out[3] < 0 else out[3],
            }
        defenders = case.get("defenders")
        mask = 0
        if defenders is None:
            mask = (1 << dealer) | (1 << ((dealer + 2) & 3))
        else:
            for sd in defenders:
                mask |= 1 << seat_of(sd)
        if not (mask >> dealer) & 1:
            raise CaseError("the dealer must be one of the defenders")
        out = drules_hand.settle_seats(
            score, dealer, levels, mask, t.decks, t.table, t.ladder, t.must_play, kitty_j
        )
        won = [sd for sd in range(4) if (out[5] >> sd) & 1]
        return {
            "dealer": out[0],
            "levels": [rank_name(out[1 + i]) for i in range(4)],
            "winner": won if won else None,
        }
    if kind == "declare":
        fh = case["first_hand"]
        if not isinstance(fh, bool):
            raise CaseError("first_hand must be true or false")
        given = case.get("dealer")
        if given is not None and (isinstance(given, bool) or not isinstance(given, int)):
            raise CaseError("dealer must be a seat 0-3 or null")
        bids = case["bids"]
        if not isinstance(bids, list):
            raise CaseError("bids must be a list")
        bidding = drules_hand.Bidding(t.decks, t.level, t.allow_self_override)
        accepted = []
        for b in bids:
            if not isinstance(b, dict) or "seat" not in b or "cards" not in b:
                raise CaseError("a bid needs 'seat' and 'cards'")
            seat = b["seat"]
            if isinstance(seat, bool):
                raise CaseError("bid seat must be a seat 0-3")
            faces = bytes(face_of(x) for x in str(b["cards"]).replace(",", " ").split())
            accepted.append(bidding.bid(seat_of(seat), faces))
        kitty_cards = t.cards(case["kitty"], empty=True) if "kitty" in case else None
        if not fh and given is None:
            raise CaseError("a later hand needs its dealer")
        trump, declarer, dealer = drules_hand.end_of_draw(
            bidding,
            fh,
            -1 if given is None else seat_of(given),
            t.no_bid,
            t.first_dealer,
            kitty_cards,
            t.engine.permanent_twos,
        )
        return {
            "accepted": accepted,
            "trump": None if trump < 0 else ("NT" if trump == 4 else SUITS[trump]),
            "declarer": None if declarer < 0 else declarer,
            "dealer": None if dealer < 0 else dealer,
        }
    raise CaseError(f"unknown kind {kind!r}")


def shape_list(units: bytearray, n: int) -> list[str]:
    out = []
    for i in range(n):
        m = units[3 * i]
        k = units[3 * i + 1]
        out.append("sp34"[m - 1] if k == 1 else "tTQ"[m - 2] + str(k))
    return out


def one(case: dict) -> dict:  # type: ignore[type-arg]
    """A public case, or the fuzzer's whole hand."""
    if case.get("kind") == "hand":
        return hand_answer(case)
    return answer(case)


def main() -> None:
    serve(one)


def hand_answer(case: dict) -> dict:  # type: ignore[type-arg]
    """A whole hand scripted by the differential fuzzer (tractor_table/difffuzz.py).

    Steps: ["b", seat, ids] a bid; ["e", dealt kitty] end of the draw;
    ["k", ids] the burial; ["L", seat, cards, real] a lead to judge; ["F", seat,
    cards] a follow to judge; ["P", seat, ids] the cards that stand (the table
    applies them; the fourth ends the trick); ["K"] the end of play; ["S"]
    settling. With "scan" the hands are known from the start; without, they are
    rebuilt from the cards played and the hand is judged as an audit at its end.
    """
    t = CaseRules(case["rules"])
    e = t.engine
    scan = bool(case.get("scan"))
    dealer = seat_of(case["dealer"])
    levels = case["levels"]
    steps = case["steps"]
    dside = dealer & 1
    hands = [bytearray(54) for _ in range(4)]
    if scan:
        for s in range(4):
            drules.hand_from(case["hands"][s], hands[s])
    else:
        for st in steps:
            if st[0] == "P":
                for c in st[2]:
                    hands[st[1]][c % 54] += 1
    bidding = drules_hand.Bidding(t.decks, t.level, t.allow_self_override)
    forced = bytearray(54 * 4)
    out: list[object] = []
    plays = [b"", b"", b"", b""]
    nplays = 0
    leader = 0
    lead = b""
    kitty = b""
    attackers = 0
    penalty = 0
    last_winner = -1
    last_lead = b""
    last_play = b""
    score = 0
    kitty_j = False
    for st in steps:
        k = st[0]
        if k == "b":
            out.append(1 if bidding.bid(st[1], bytes(st[2])) else 0)
        elif k == "e":
            trump, declarer, _ = drules_hand.end_of_draw(
                bidding, False, dealer, t.no_bid, t.first_dealer, bytes(st[1]), e.permanent_twos
            )
            e.set_trump(t.level, drules.NT if trump < 0 else trump)
            out.append([trump, declarer])
        elif k == "k":
            kitty = bytes(st[1])
        elif k == "L":
            seat = st[1]
            cards = bytes(st[2])
            r = check(e, tablerules.LEAD, cards, hands, seat, forced)
            if r == drules.R_THROW_FAILED:
                e.decompose(forced[: e.nforced])
                u = e.units
                out.append([REASONS[r], u[0], u[1], u[2]])
                if st[3]:
                    penalty += e.throw_penalty if (seat & 1) == dside else -e.throw_penalty
            else:
                out.append([REASONS[r]])
        elif k == "F":
            out.append(REASONS[check(e, tablerules.FOLLOW, lead, hands[st[1]], bytes(st[2]))])
        elif k == "P":
            seat = st[1]
            cards = bytes(st[2])
            if nplays == 0:
                lead = cards
                leader = seat
            plays[nplays] = cards
            nplays += 1
            h = hands[seat]
            for c in cards:
                drules.hand_remove(h, c)
            if nplays == 4:
                w = check(e, tablerules.TRICK, plays)
                pts = 0
                for p in plays:
                    pts += e.points(p)
                winner = (leader + w) & 3
                if (winner & 1) != dside:
                    attackers += pts
                out.append([winner, pts])
                last_winner = winner
                last_lead = lead
                last_play = plays[w]
                nplays = 0
        elif k == "K":
            mult = bonus = 0
            kitty_j = False
            if last_winner >= 0 and (last_winner & 1) != dside:
                mult = e.kitty_multiplier(last_lead)
                bonus = e.kitty_bonus(last_lead, last_play, kitty)
                for c in last_play:
                    f = c % 54
                    if f < 52 and f % 13 == 9:
                        kitty_j = True
            score = attackers + bonus + penalty
            out.append([attackers, penalty, mult, bonus, score])
        elif k == "S":
            r = drules_hand.settle(
                score, dealer, levels, t.decks, t.table, t.ladder, t.must_play, kitty_j=kitty_j
            )
            out.append([r[0], r[1], r[2], r[3]])
        else:
            raise CaseError(f"bad step {k!r}")
    return {"out": out}


if __name__ == "__main__":
    main()
