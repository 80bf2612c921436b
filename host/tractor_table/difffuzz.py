"""Differential fuzzing of the two rules engines.

The full engine's bots (``shengji.match.iter_hand``) play random hands under
every preset, 1-4 decks, hand scans on and off. Each hand becomes a *script*
(one JSON line): the bids, the burial, every lead and follow actually played,
plus extra attempts (random throws, mixed leads, random follows that are
often illegal). The full engine judges each step here; the device engine
(``firmware/drules*.py``) judges the same script under MicroPython's unix
port, in ONE long-running process fed one script per line
(``sim/engine/mpy/judge_mp.py``, kind ``hand``; ``tractor_table.sim.engine``). Both give one list of
answers: bid accepted, trump and declarer, every verdict with its reason, the
forced unit of each failed throw, each trick's winner and points, the
attackers' score, kitty multiplier and bonus, and the settlement. The lists
must be equal.

With ``no_bid = "kitty"`` a share of the hands goes without a bid
(``QUIET_SHARE``), so that the kitty names trump; with ``permanent_twos`` half
of those turn a 2 up first (NT). ``lianzhong`` plays with ``must_play`` stops
on the full ladder, a four-deck classic variant with stops on the tournament
ladder.

Without hand scans the device does not see the hands during play: it rebuilds
them from the cards played and audits the whole hand at the end (docs/rules.md §10.1),
so the same answers come from another path through the device code.

A disagreement is written as a replayable case file (JSON lines: the script
with the full engine's answers and the device's), which
``tractor-table fuzz-rules --replay FILE`` runs again.
"""

from __future__ import annotations

import json
import random
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from shengji import Rules
from shengji.bots import Bot
from shengji.cards import FACES, face_counts
from shengji.hand import Bid, Bury, EndDraw, Hand, Play
from shengji.match import iter_hand, make_bots
from shengji.order import Order
from shengji.play import Lead, check_follow_counts, check_lead_counts, check_throw
from shengji.rules import NoBid
from shengji.settle import settle
from shengji.units import decompose_faces

from . import rulescodec
from .sim.engine import EngineProcess

#: Heap of the fuzzing process: the scripts are large JSON lines (the engine's
#: own heap budget is measured by bench/bench_device_rules.py).
FUZZ_HEAP = "4M"


#: Rule sets the fuzzer plays: every preset, the classic game with 1-4 decks,
#: and a few options on their own.
VARIANTS: tuple[tuple[str, dict[str, Any]], ...] = (
    ("classic", {}),
    ("classic", {"decks": 1}),
    ("classic", {"decks": 3}),
    ("classic", {"decks": 4}),
    ("classic", {"permanent_twos": True, "no_bid": "kitty"}),
    ("classic", {"same_shape_only": True}),
    ("classic", {"kitty_requires_trump": True, "kitty_multiplier": "cards"}),
    ("qq", {}),
    ("lianzhong", {"must_play": ["5", "T", "K"]}),
    ("tournament", {}),
    ("onedeck", {}),
    ("titanic", {}),
    ("titanic", {"permanent_twos": True}),
    ("xuwen", {}),
    ("xuwen", {"same_shape_only": False, "level_table": "classic", "level_ladder": "tournament", "must_play": ["T", "K"]}),
)


#: With ``no_bid = "kitty"`` this share of the hands goes without a bid, so the
#: kitty names trump; with ``permanent_twos`` too, half of those turn a 2 up
#: first (NT, docs/rules.md §8.1). Drawn from the seed apart from
#: the rest of the script.
QUIET_SHARE = 0.4


class _NoBids(Bot):
    """A bot that never bids (a quiet draw)."""

    def bid(self, hand: Hand, drawn: Sequence[int], cards_per_seat: int) -> tuple[int, ...] | None:
        return None


class _TwoFirst(random.Random):
    """Shuffles as ``random.Random``, then swaps a 2 into the kitty's first
    place (the last ``kitty`` cards of the deal): every card is still dealt once."""

    def __init__(self, seed: int, kitty: int) -> None:
        super().__init__(seed)
        self.kitty = kitty

    def shuffle(self, x: Any, *args: Any) -> None:
        super().shuffle(x)
        k = len(x) - self.kitty
        j = next(i for i in range(k) if x[i] % FACES < 52 and x[i] % FACES % 13 == 0)
        x[k], x[j] = x[j], x[k]


def _quiet_draw(rules: Rules, seed: int, bots: list[Bot]) -> tuple[list[Bot], random.Random]:
    """The bots and the deal's rng of the hand of ``seed``: as given, or for a
    share of the ``no_bid = "kitty"`` hands bots that do not bid."""
    deal_rng = random.Random(seed ^ 0x5EED)
    if rules.no_bid != NoBid.KITTY:
        return bots, deal_rng
    pick = random.Random(seed ^ 0xB1D)
    if pick.random() >= QUIET_SHARE:
        return bots, deal_rng
    quiet: list[Bot] = []
    for b in bots:
        q = _NoBids(b.seat, b.strength)
        q.rng = b.rng
        quiet.append(q)
    if rules.permanent_twos and pick.random() < 0.5:
        deal_rng = _TwoFirst(seed ^ 0x5EED, rules.kitty_size)
    return quiet, deal_rng


def _names(reason: object) -> str:
    return "ok" if reason is None else str(getattr(reason, "value", reason))


@dataclass
class FuzzScript:
    """One hand as the device is asked to judge it, with the full engine's answers."""

    case: dict[str, Any]
    expect: list[Any] = field(default_factory=list)
    labels: list[str] = field(default_factory=list)

    def add(self, answer: Any, label: str) -> None:
        self.expect.append(answer)
        self.labels.append(label)


def _faces(cards: Sequence[int]) -> list[int]:
    return [c % FACES for c in cards]


def _attempt_follows(
    order: Order, lead: Lead, held: list[int], actual: Sequence[int], rng: random.Random
) -> list[list[int]]:
    """Random follows (faces) besides the one played: often illegal."""
    n = lead.size
    s = lead.esuit
    cards = [f for f in range(FACES) for _ in range(held[f])]
    suit = [f for f in cards if order.esuit[f] == s]
    other = [f for f in cards if order.esuit[f] != s]
    out: list[list[int]] = []
    if len(cards) >= n:
        out.append(rng.sample(cards, n))
    take = min(n, len(suit))
    if len(other) >= n - take:
        out.append(rng.sample(suit, take) + rng.sample(other, n - take))
    if take == n and n >= 2 and len(suit) > n:
        # Most structured first: the pairs of the suit, then singles.
        pairs = [f for f in order.suit_faces[s] if held[f] >= 2]
        rng.shuffle(pairs)
        play: list[int] = []
        for f in pairs:
            if len(play) + 2 <= n:
                play += [f, f]
        rest = list(suit)
        for f in play:
            rest.remove(f)
        play += rng.sample(rest, n - len(play))
        out.append(play)
    key = sorted(actual)
    return [p for p in out if sorted(p) != key]


def _attempt_leads(order: Order, held: list[int], rng: random.Random) -> list[list[int]]:
    """A random throw from one suit and, now and then, a mixed lead."""
    cards = [f for f in range(FACES) for _ in range(held[f])]
    out: list[list[int]] = []
    suits = sorted({order.esuit[f] for f in cards})
    s = rng.choice(suits)
    suit = [f for f in cards if order.esuit[f] == s]
    if len(suit) >= 2:
        out.append(rng.sample(suit, rng.randint(2, min(8, len(suit)))))
    if len(suits) >= 2 and rng.random() < 0.2:
        a, b = rng.sample(suits, 2)
        out.append([next(f for f in cards if order.esuit[f] == a), next(f for f in cards if order.esuit[f] == b)])
    return out


def _lead_answer(order: Order, seat: int, faces: list[int], holdings: list[list[int]]) -> list[Any]:
    v = check_lead_counts(order, holdings[seat], faces)
    if not v.legal:
        return [_names(v.reason)]
    d = decompose_faces(order, faces)
    assert d is not None
    if not d.is_throw:
        return ["ok"]
    r = check_throw(order, seat, faces, holdings)
    if r.ok:
        return ["ok"]
    assert r.forced is not None
    return ["throw_failed", r.forced.width, r.forced.length, r.forced.top]


def pick_variant(rng: random.Random) -> tuple[str, Rules]:
    name, extra = rng.choice(VARIANTS)
    return name, Rules.preset(name, **extra)


def make_script(seed: int, variant: int | None = None) -> FuzzScript:
    """Play one bot hand (everything drawn from ``seed``) and script it."""
    rng = random.Random(seed)
    name, extra = VARIANTS[variant] if variant is not None else rng.choice(VARIANTS)
    rules = Rules.preset(name, **extra)
    ladder = [r.value for r in rules.levels]
    level = rng.choice(ladder)
    dealer = rng.randrange(4)
    levels = [level, rng.choice(ladder)] if dealer % 2 == 0 else [rng.choice(ladder), level]
    scan = rng.random() < 0.5
    strengths = rng.randrange(3)
    opts = rulescodec.case_rules(rules)  # the device engine's runner reads them by the schema
    for k in ("partners", "hand_scan", "revoke"):
        opts.pop(k, None)
    case: dict[str, Any] = {
        "id": f"hand-{seed}",
        "kind": "hand",
        "rules": {**opts, "level": "23456789TJQKA"[level], "trump": "NT"},
        "variant": f"{name} {json.dumps(extra, sort_keys=True)}",
        "scan": scan,
        "dealer": dealer,
        "levels": levels,
        "steps": [],
    }
    script = FuzzScript(case)
    steps: list[list[Any]] = case["steps"]
    bots, deal_rng = _quiet_draw(rules, seed, make_bots(strengths, seed))
    order: Order | None = None
    holdings: list[list[int]] = []
    trick_no = 0
    hand = None
    for step in iter_hand(rules, bots, deal_rng, level=level, dealer=dealer, first_hand=False):
        ev = step.event
        hand = step.hand
        if isinstance(ev, Bid):
            accepted = hand.would_accept_bid(ev.seat, ev.cards)
            steps.append(["b", ev.seat, list(ev.cards)])
            script.add(1 if accepted else 0, f"bid by seat {ev.seat}")
        elif isinstance(ev, EndDraw):
            hand.apply(ev)
            trump = 4 if hand.trump is None else int(hand.trump)
            steps.append(["e", list(hand.dealt_kitty or ())])
            script.add([trump, -1 if hand.declarer is None else hand.declarer], "end of the draw")
            hand.undo()
        elif isinstance(ev, Bury):
            assert hand.hands is not None and hand.dealer is not None
            steps.append(["k", list(ev.cards)])
        elif isinstance(ev, Play):
            assert hand.hands is not None
            if order is None:
                order = hand.ruling.order
                case["hands"] = [list(h) for h in hand.hands]
            holdings = [face_counts(_faces(h)) for h in hand.hands]
            trick = hand.current_trick()
            seat = ev.seat
            faces = _faces(ev.cards)
            if trick is None:
                for att in _attempt_leads(order, holdings[seat], rng):
                    steps.append(["L", seat, att, 0])
                    script.add(_lead_answer(order, seat, att, holdings), f"trick {trick_no + 1}: lead attempt by seat {seat}")
                steps.append(["L", seat, faces, 1])
                script.add(_lead_answer(order, seat, faces, holdings), f"trick {trick_no + 1}: lead by seat {seat}")
            else:
                lead = Lead(order, _faces(trick.lead))
                for att in _attempt_follows(order, lead, holdings[seat], faces, rng):
                    v = check_follow_counts(order, lead, holdings[seat], att)
                    steps.append(["F", seat, att])
                    script.add(_names(v.reason), f"trick {trick_no + 1}: follow attempt by seat {seat}")
                v = check_follow_counts(order, lead, holdings[seat], faces)
                steps.append(["F", seat, faces])
                script.add(_names(v.reason), f"trick {trick_no + 1}: follow by seat {seat}")
            hand.apply(ev)
            t = hand.tricks[trick_no]
            # the cards that stand (a failed throw's forced unit)
            stood = t.plays[-1][1] if trick is not None else t.lead
            steps.append(["P", seat, list(stood)])
            if t.complete:
                script.add([t.winner, t.points], f"trick {trick_no + 1}: winner and points")
                trick_no += 1
            hand.undo()
    assert hand is not None
    if hand.redeal or not hand.tricks:
        return script
    res = hand.result()
    steps.append(["K"])
    script.add([res.trick_points, res.penalty, res.multiplier, res.kitty_bonus, res.score], "end of the hand: score")
    s = settle(rules, res.score, res.dealer, levels, kitty_j=res.kitty_j)
    steps.append(["S"])
    winner = s.winner if not isinstance(s.winner, tuple) else -2
    script.add([s.next_dealer, s.levels[0], s.levels[1], -1 if winner is None else winner], "settlement")
    return script


def device_engine(heapsize: str = FUZZ_HEAP) -> EngineProcess:
    """The device engine in one long-running MicroPython process (the "judge"
    runner: kind "hand"); its death stops the run with a CommandError."""
    return EngineProcess("judge", heapsize=heapsize, close_timeout=10.0)


@dataclass
class FuzzDisagreement:
    seed: int
    variant: str
    index: int
    label: str
    full: Any
    device: Any


@dataclass
class Report:
    hands: int = 0
    checks: int = 0
    plays: int = 0
    seconds: float = 0.0
    variants: dict[str, int] = field(default_factory=dict)
    disagreements: list[FuzzDisagreement] = field(default_factory=list)
    files: list[Path] = field(default_factory=list)


def compare(script: FuzzScript, answer: dict[str, Any]) -> tuple[int, Any] | None:
    """(index, device answer) of the first difference, or None when equal."""
    if "error" in answer:
        return (-1, {"error": answer["error"]})
    got = answer.get("out")
    if not isinstance(got, list):
        return (-1, answer)
    for i, want in enumerate(script.expect):
        have = got[i] if i < len(got) else None
        if have != want:
            return (i, have)
    if len(got) != len(script.expect):
        return (len(script.expect), got[len(script.expect) :])
    return None


def write_case(out_dir: Path, script: FuzzScript, d: FuzzDisagreement, answer: dict[str, Any]) -> Path:
    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / f"disagreement-{d.seed}.jsonl"
    record = dict(script.case)
    record["expect"] = script.expect
    record["labels"] = script.labels
    record["device"] = answer.get("out", answer)
    record["first_difference"] = {"index": d.index, "label": d.label, "full": d.full, "device": d.device}
    path.write_text(json.dumps(record) + "\n", encoding="utf-8")
    return path


def _script_of(s: int) -> tuple[int, FuzzScript]:
    return s, make_script(s, variant=s % len(VARIANTS))


def scripts_for(hands: int, seed: int, jobs: int = 1) -> Iterator[tuple[int, FuzzScript]]:
    """Scripts of ``hands`` hands: seeds seed, seed+1, ...; the variants in turn,
    so that any 15 consecutive hands cover every variant. With ``jobs`` > 1 the
    bots play in that many worker processes (the order is kept)."""
    seeds = range(seed, seed + hands)
    if jobs <= 1:
        for s in seeds:
            yield _script_of(s)
        return
    import multiprocessing

    with multiprocessing.get_context("fork").Pool(jobs) as pool:
        yield from pool.imap(_script_of, seeds, chunksize=8)


def run(
    hands: int,
    seed: int = 0,
    out_dir: Path | None = None,
    progress: Callable[[Report], None] | None = None,
    heapsize: str = FUZZ_HEAP,
    stop_after: int = 20,
    jobs: int = 1,
    progress_every: int = 500,
) -> Report:
    """Fuzz ``hands`` hands; disagreements go to ``out_dir`` (if given);
    ``progress`` gets the report every ``progress_every`` hands."""
    report = Report()
    t0 = time.perf_counter()
    with device_engine(heapsize) as dev:
        for s, script in scripts_for(hands, seed, jobs):
            answer = dev.ask(script.case)
            _account(report, script)
            diff = compare(script, answer)
            if diff is not None:
                idx, have = diff
                label = script.labels[idx] if 0 <= idx < len(script.labels) else "the whole hand"
                want = script.expect[idx] if 0 <= idx < len(script.expect) else None
                d = FuzzDisagreement(s, str(script.case.get("variant")), idx, label, want, have)
                report.disagreements.append(d)
                if out_dir is not None:
                    report.files.append(write_case(out_dir, script, d, answer))
                if len(report.disagreements) >= stop_after:
                    break
            if progress is not None and report.hands % progress_every == 0:
                progress(report)
    report.seconds = time.perf_counter() - t0
    return report


def _account(report: Report, script: FuzzScript) -> None:
    report.hands += 1
    report.checks += len(script.expect)
    report.plays += sum(1 for st in script.case["steps"] if st[0] == "P")
    v = str(script.case.get("variant"))
    report.variants[v] = report.variants.get(v, 0) + 1


def replay(path: Path, heapsize: str = FUZZ_HEAP) -> list[tuple[str, tuple[int, Any] | None]]:
    """Run the scripts of a case file again: (id, first difference or None) each."""
    out: list[tuple[str, tuple[int, Any] | None]] = []
    with device_engine(heapsize) as dev:
        for line in path.read_text(encoding="utf-8").splitlines():
            if not line.strip():
                continue
            rec = json.loads(line)
            case = {k: v for k, v in rec.items() if k not in ("expect", "labels", "device", "first_difference")}
            script = FuzzScript(case, list(rec["expect"]), list(rec.get("labels", [])))
            out.append((str(case.get("id")), compare(script, dev.ask(case))))
    return out
