"""The checks of a card set: the file alone (:func:`check_static`), or every
card tapped again on a reader (:func:`check_scan`)."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

from .cardset import CardSet, card_label
from .readers import TableLostError, TagReader


@dataclass
class CheckReport:
    missing: list[int]
    duplicates: dict[int, list[bytes]]
    unknown: list[bytes] = field(default_factory=list)
    tapped_twice: list[int] = field(default_factory=list)
    seen: int = 0
    #: how a scan ended ("all cards seen", "no new card for 10 s", ...); "" without a scan
    stopped: str = ""
    #: the scan was stopped with Ctrl-C: cards not tapped yet count as missing
    interrupted: bool = False
    #: an in-order scan (``--in-order``): (the card asked for, the card its tag is enrolled as)
    mislabelled: list[tuple[int, int]] = field(default_factory=list)
    total: int = 0

    @property
    def ok(self) -> bool:
        return not (self.missing or self.duplicates or self.unknown or self.mislabelled)

    def shift(self) -> tuple[int, int]:
        """The commonest offset of the mislabelled cards in enroll's order
        (negative: each tag is enrolled as a card before its own) and how many
        share it; (0, 0) when fewer than two do (a single mix-up, not a shift)."""
        counts: dict[int, int] = {}
        n = self.total or 1
        for asked, enrolled in self.mislabelled:
            d = (enrolled - asked) % n
            if d > n // 2:
                d -= n
            counts[d] = counts.get(d, 0) + 1
        if not counts:
            return (0, 0)
        d, k = max(counts.items(), key=lambda item: item[1])
        return (d, k) if k >= 2 else (0, 0)

    def lines(self, cs: CardSet, scanned: bool) -> list[str]:
        out = [f"set {cs.name!r}: {cs.decks} deck(s), {len(cs.cards)} tags enrolled of {cs.total} cards"]
        if scanned:
            out.append(f"scanned {self.seen} distinct tags" + (f" ({self.stopped})" if self.stopped else ""))
        if self.missing:
            what = ("not tapped yet" if self.interrupted else "not tapped") if scanned else "not enrolled"
            out.append(f"missing ({what}): {len(self.missing)}: " + " ".join(_short(c) for c in self.missing))
        for card, uids in self.duplicates.items():
            out.append(f"duplicate: {card_label(card)} is enrolled on {len(uids)} tags: " + ", ".join(u.hex() for u in uids))
        if self.unknown:
            out.append(f"unknown tags (not in this set): {len(self.unknown)}: " + ", ".join(u.hex() for u in self.unknown))
        if self.mislabelled:
            shown = "; ".join(f"{card_label(a)} is enrolled as {card_label(b)}"
                              for a, b in self.mislabelled[:6])
            more = f"; and {len(self.mislabelled) - 6} more" if len(self.mislabelled) > 6 else ""
            out.append(f"mislabelled (a card's tag enrolled as another card): {len(self.mislabelled)}: "
                       f"{shown}{more}")
            d, k = self.shift()
            if k:
                out.append(
                    f"the set's order is shifted: {k} cards' tags are enrolled as the card {abs(d)} "
                    f"place(s) {'before' if d < 0 else 'after'} theirs (taps {'behind' if d < 0 else 'ahead of'} "
                    "enroll's prompts); enroll the set again into a new file (while enrolling, "
                    "u and Enter, or a long press at a table's reader, takes a wrong tap back)"
                )
        if self.tapped_twice:
            out.append("tapped more than once (fine): " + " ".join(_short(c) for c in self.tapped_twice))
        if self.ok:
            out.append("set is complete and consistent")
        elif self.interrupted:
            out.append("check interrupted: not every card was tapped; run it again to the end to check the whole set")
        else:
            out.append("set has problems (see above)")
        return out


def _short(card: int) -> str:
    return card_label(card)


def check_static(cs: CardSet) -> CheckReport:
    return CheckReport(missing=cs.missing(), duplicates=cs.duplicates())


def check_scan(
    cs: CardSet,
    reader: TagReader,
    idle: float | None,
    say: Callable[[str], None] = print,
    clock: Callable[[], float] = time.monotonic,
    timeout: float | None = None,
    remind: float | None = None,
    in_order: bool = False,
) -> CheckReport:
    """The operator taps every card of the set in any order; the check ends when
    all were seen, nothing new came for ``idle`` seconds (None: no such limit),
    ``timeout`` seconds after it began (None: none), or on Ctrl-C, which ends it
    with a partial report (``interrupted``) instead of raising. Every tap is
    told: a card of the set with the count so far, a card or tag tapped again,
    a tag not in the set, two cards at once; with ``remind``, a reminder after
    that many seconds without a tap.

    With ``in_order`` the check asks for the cards one by one in enroll's order
    ("[k/N] tap 2S") and a tag enrolled as another card than the one asked for
    is *mislabelled* (an any-order scan cannot see that: the tag is a card of
    the set); many with one offset are a set whose order is shifted.

    A reader whose ``poll`` reports the tags in its field (a USB PN532) counts a
    tag again only after a poll without it; a ``taps_once`` reader (a table's
    seat reader) reports each tap once."""
    once = bool(getattr(reader, "taps_once", False))
    seen_cards: set[int] = set()
    seen_uids: set[bytes] = set()
    unknown: list[bytes] = []
    twice: list[int] = []
    start = last_new = last_tap = clock()
    present: set[bytes] = set()  # in the field at the last poll (not a new tap)
    ends = ["when all are seen"]
    if idle is not None:
        ends.append(f"{idle:g} s after the last new card")
    if timeout is not None:
        ends.append(f"after {timeout:g} s in all")
    mislabelled: list[tuple[int, int]] = []
    asked = 0  # with in_order: the card asked for (enroll's order: the card ids in turn)
    say(
        f"tap every card of set {cs.name!r} ({cs.total} cards, "
        + ("in enroll's order, as asked" if in_order else "any order")
        + "); the check ends " + ", ".join(ends) + " or on Ctrl-C"
    )

    def ask() -> None:
        if in_order and asked < cs.total:
            say(f"[{asked + 1}/{cs.total}] tap {card_label(asked)}")

    ask()
    stopped = "all cards seen"
    interrupted = False

    def count() -> str:
        return f"({len(seen_cards)}/{cs.total})"

    try:
        while len(seen_cards) < cs.total:
            now = clock()
            if idle is not None and now - last_new >= idle:
                stopped = f"stopped: no new card for {idle:g} s"
                break
            if timeout is not None and now - start >= timeout:
                stopped = f"stopped: --timeout {timeout:g} s reached"
                break
            if remind is not None and now - last_tap >= remind:
                last_tap = now
                say(
                    f"waiting: no tag for {remind:g} s, {len(seen_cards)} of {cs.total} cards seen; "
                    "tap the others, or Ctrl-C ends the check with the report"
                )
            uids = reader.poll()
            if not uids:
                present = set()
                continue
            last_tap = clock()
            if not all(uids):  # a reader that cannot tell the two UIDs (a table's scanner)
                say("two cards on the reader at once: neither was counted; take them away and tap one card at a time")
                continue
            for uid in uids:
                if uid in present:
                    continue  # still resting on the reader
                card = cs.cards.get(uid)
                if uid in seen_uids:
                    if card is None:
                        say(f"unknown tag {uid.hex()} again: put that card aside {count()}")
                        continue
                    if card not in twice:
                        twice.append(card)
                    say(f"again {card_label(card)}: tapped twice, counted once {count()}")
                    continue
                seen_uids.add(uid)
                last_new = clock()
                wanted = asked
                if in_order and asked < cs.total:
                    asked += 1
                if in_order and card is not None and card != wanted and wanted < cs.total:
                    mislabelled.append((wanted, card))
                    seen_cards.add(card)
                    say(f"asked for {card_label(wanted)}, the tag is enrolled as {card_label(card)}: "
                        f"that card's label in the set is wrong {count()}")
                elif card is None:
                    unknown.append(uid)
                    say(
                        f"unknown tag {uid.hex()}: not in set {cs.name!r} (a card of another set, or a tag "
                        f"never enrolled); put that card aside and go on {count()}"
                    )
                elif card in seen_cards:
                    say(
                        f"duplicate: {card_label(card)} again on another tag ({uid.hex()}); "
                        f"the set has this card on more than one tag {count()}"
                    )
                else:
                    seen_cards.add(card)
                    say(f"ok {card_label(card)} {count()}")
                if in_order and wanted != asked:
                    ask()
            present = set() if once else set(uids)
    except KeyboardInterrupt:
        stopped = "stopped by Ctrl-C: a partial check"
        interrupted = True
    except TableLostError:
        # the table came back without enroll mode: the error says why
        say(f"the check stopped with {len(seen_cards)} of {cs.total} cards seen; run it again to check the whole set")
        raise
    missing = [c for c in range(cs.total) if c not in seen_cards]
    return CheckReport(
        missing=missing, duplicates=cs.duplicates(), unknown=unknown, tapped_twice=twice, seen=len(seen_uids),
        stopped=stopped, interrupted=interrupted, mislabelled=mislabelled, total=cs.total,
    )

