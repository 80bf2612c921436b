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

    @property
    def ok(self) -> bool:
        return not (self.missing or self.duplicates or self.unknown)

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
) -> CheckReport:
    """The operator taps every card of the set in any order; the check ends when
    all were seen, nothing new came for ``idle`` seconds (None: no such limit),
    ``timeout`` seconds after it began (None: none), or on Ctrl-C, which ends it
    with a partial report (``interrupted``) instead of raising. Every tap is
    told: a card of the set with the count so far, a card or tag tapped again,
    a tag not in the set, two cards at once; with ``remind``, a reminder after
    that many seconds without a tap.

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
    say(
        f"tap every card of set {cs.name!r} ({cs.total} cards, any order); the check ends "
        + ", ".join(ends)
        + " or on Ctrl-C"
    )
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
                if card is None:
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
        stopped=stopped, interrupted=interrupted,
    )

