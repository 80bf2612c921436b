"""The enrollment procedure: every card tapped in a guided order
(:class:`Enrollment`), and a lost set rebuilt from its tags' codes (:func:`rebuild`)."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from .cardset import CardSet, CardSetError, card_label, decode_tag_code, set_tag
from .readers import TagReader


@dataclass
class Enrollment:
    """Guided enrollment of one card set through one reader."""

    reader: TagReader
    cardset: CardSet
    path: Path
    say: Callable[[str], None] = print
    write_codes: bool = False
    tap_timeout: float = 20.0
    clear_timeout: float = 5.0
    poll_pause: float = 0.0
    clock: Callable[[], float] = time.monotonic
    enrolled_now: int = 0
    #: the operator's undo at the keyboard: true once per request (None: no keyboard)
    undo_requested: Callable[[], bool] | None = None
    #: the cards enrolled in this run, in order (what undo takes back first)
    history: list[int] = field(default_factory=list)

    def order(self) -> list[int]:
        """Guided order: deck by deck, suits S H D C, 2 to A, then the jokers."""
        return list(range(self.cardset.total))

    def run(self) -> int:
        cs = self.cardset
        done = len(cs.by_card())
        if done:
            self.say(f"resuming set {cs.name!r}: {done} of {cs.total} cards already enrolled")
        else:
            self.say(f"enrolling set {cs.name!r}: {cs.total} cards ({cs.decks} deck(s)); Ctrl-C stops, progress is kept")
        if self.undo_requested is not None or self._reader_undo() is not None:
            self.say(f"a wrong tap? {self._undo_how()} takes the last card back and asks for it again")
        self._wait_clear()
        while True:
            have = cs.by_card()
            todo = [c for c in self.order() if c not in have]
            if not todo:
                break
            if not self._enroll_one(todo[0], cs.total - len(todo) + 1):
                self._undo()
        self.say(f"all {cs.total} cards enrolled; set saved to {self.path}")
        return 0

    def _undo_how(self) -> str:
        ways = []
        if self.undo_requested is not None:
            ways.append("u and Enter here")
        if self._reader_undo() is not None:
            ways.append("a long press of the seat's button")
        return " or ".join(ways)

    def _reader_undo(self) -> Callable[[], bool] | None:
        take: Callable[[], bool] | None = getattr(self.reader, "take_undo", None)
        return take

    def _undo_wanted(self) -> bool:
        """An undo asked for since the last look: at the keyboard, or at the reader
        (a table's seat button)."""
        take = self._reader_undo()
        wanted = take is not None and take()
        if self.undo_requested is not None and self.undo_requested():
            wanted = True
        return wanted

    def _undo(self) -> None:
        """The last card enrolled taken back (its tag free again, the set saved
        without it): it is the next card asked for."""
        cs = self.cardset
        have = cs.by_card()
        while self.history and self.history[-1] not in have:
            self.history.pop()
        if self.history:
            card = self.history.pop()
        else:  # enrolled in an earlier run: the last of the guided order
            before = [c for c in self.order() if c in have]
            if not before:
                self.say("nothing to undo: no card of the set is enrolled yet")
                return
            card = before[-1]
        uid = have[card][-1]
        del cs.cards[uid]
        try:
            cs.save(self.path)
        except OSError as exc:
            cs.cards[uid] = card  # what is in memory stays what is saved
            raise CardSetError(
                f"card set {self.path}: cannot save it without {card_label(card)} "
                f"({exc.strerror or exc}); it still holds {len(cs.cards)} of {cs.total} cards: "
                "free some disk space or fix the folder, then run the same command again"
            ) from None
        self.enrolled_now = max(self.enrolled_now - 1, 0)
        self.say(f"undone: {card_label(card)} (tag {uid.hex()}) is no longer enrolled "
                 f"({len(cs.cards)}/{cs.total}); tap {card_label(card)}")

    def _prompt(self, card: int, k: int) -> None:
        self.say(f"[{k}/{self.cardset.total}] tap {card_label(card)}")

    def _enroll_one(self, card: int, k: int) -> bool:
        """Enroll ``card`` (True), or False when an undo was asked for meanwhile."""
        cs = self.cardset
        self._prompt(card, k)
        while True:
            uids = self._wait_tag(card)
            if uids is None:
                return False
            if len(uids) > 1:
                self.say("two cards on the reader: take them away and tap one card at a time")
                while not self._taps_once() and len(self.reader.poll()) > 1:
                    pass  # until at most one is left (that one is then read as the tap)
                continue
            uid = uids[0]
            if uid in cs.cards:
                self.say(
                    f"already enrolled: that tag is {card_label(cs.cards[uid])}; "
                    f"take it away and tap {card_label(card)}"
                )
                self._wait_clear([uid])
                continue
            foreign = self._foreign(uid)
            if foreign:
                self.say(f"foreign tag {uid.hex()}: {foreign}; take it away and tap {card_label(card)}")
                self._wait_clear([uid])
                continue
            if self.write_codes and not self._write_code(card):
                self.say(
                    f"missed tap: the card left the reader before its code was written; "
                    f"tap {card_label(card)} again and hold it still"
                )
                # No waiting for the reader to clear: the card is usually gone
                # already, and if it is back (or still there) the write is retried.
                continue
            cs.cards[uid] = card
            try:
                cs.save(self.path)
            except OSError as exc:
                del cs.cards[uid]  # what is in memory stays what is saved
                raise CardSetError(
                    f"card set {self.path}: cannot save {card_label(card)} ({exc.strerror or exc}); "
                    f"{len(cs.cards)} of {cs.total} cards are saved in it: free some disk space or "
                    "fix the folder, then run the same command again to resume"
                ) from None
            self.enrolled_now += 1
            self.say(f"enrolled {card_label(card)} as {uid.hex()} ({len(cs.cards)}/{cs.total})")
            self.history.append(card)
            self._wait_clear([uid])
            return True

    def _taps_once(self) -> bool:
        return bool(getattr(self.reader, "taps_once", False))

    def _foreign(self, uid: bytes) -> str:
        if len(uid) != 7:
            return f"a {len(uid)}-byte UID is not an NTAG21x card sticker (a bank or transit card?)"
        code = self.reader.read_code()
        if code is None:
            return ""
        decoded = decode_tag_code(code)
        if decoded is None:
            return ""
        tag, card, decks = decoded
        if tag != set_tag(self.cardset.name) or decks != self.cardset.decks:
            return "it carries the code of another card set"
        return ""

    def _write_code(self, card: int) -> bool:
        code = self.cardset.tag_code(card)
        if not self.reader.write_code(code):
            return False
        return self.reader.read_code() == code

    def _wait_tag(self, card: int) -> list[bytes] | None:
        """The tags of the next tap, or None when an undo was asked for."""
        start = self.clock()
        warned = 0
        while True:
            if self._undo_wanted():
                return None
            uids = self.reader.poll()
            if uids:
                return uids
            waited = self.clock() - start
            if waited >= self.tap_timeout * (warned + 1):
                warned += 1
                self.say(
                    f"missed tap: no card seen for {waited:.0f} s; still waiting for "
                    f"{card_label(card)} (hold it flat on the reader; Ctrl-C stops, progress is kept)"
                )
            if self.poll_pause:
                time.sleep(self.poll_pause)

    def _wait_clear(self, gone: Sequence[bytes] = ()) -> None:
        """Wait until the tags in ``gone`` have left the reader (all tags if empty);
        another card already put down stays and counts as the next tap.
        A ``taps_once`` reader reports every tap once: nothing to wait for."""
        if self._taps_once():
            return
        start = self.clock()
        warned = False
        while True:
            seen = self.reader.poll()
            if not seen or (gone and not any(u in seen for u in gone)):
                return
            if not warned and self.clock() - start >= self.clear_timeout:
                warned = True
                self.say("take the card away from the reader")
            if self.poll_pause:
                time.sleep(self.poll_pause)



def rebuild(
    reader: TagReader,
    name: str,
    decks: int,
    path: Path,
    idle: float,
    say: Callable[[str], None] = print,
    clock: Callable[[], float] = time.monotonic,
) -> CardSet:
    """Rebuild a lost card-set file from the codes that ``enroll --write-codes``
    put into the tags: the operator taps every card in any order; the set is
    saved after each card; it ends when all cards were found or nothing new
    came for ``idle`` seconds."""
    if path.exists():
        raise CardSetError(f"{path} exists; rebuild into a new file (it is never overwritten)")
    cs = CardSet(name, decks)
    want = set_tag(name)
    seen: set[bytes] = set()
    last_new = clock()
    cs.save(path)
    say(f"rebuilding set {name!r} ({cs.total} cards) from the codes in the tags: tap every card, any order")
    while len(cs.cards) < cs.total and clock() - last_new < idle:
        uids = reader.poll()
        if len(uids) != 1 or uids[0] in seen:
            continue
        uid = uids[0]
        code = reader.read_code()
        decoded = decode_tag_code(code) if code is not None else None
        if code is None:
            continue  # not read completely: the card is read again on the next poll
        seen.add(uid)
        last_new = clock()
        if decoded is None:
            say(f"tag {uid.hex()} carries no card code (enrolled without --write-codes?): enroll it again")
            continue
        tag, card, tag_decks = decoded
        if tag != want or tag_decks != decks or card >= cs.total:
            say(f"tag {uid.hex()} carries the code of another card set: put it aside")
            continue
        if card in cs.by_card():
            say(f"tag {uid.hex()} says {card_label(card)}, which another tag already is: a duplicate")
            continue
        cs.cards[uid] = card
        cs.save(path)
        say(f"found {card_label(card)} ({len(cs.cards)}/{cs.total})")
    missing = cs.missing()
    if missing:
        say(f"{len(missing)} card(s) not found: " + " ".join(card_label(c) for c in missing))
    say(f"set saved to {path}")
    return cs
