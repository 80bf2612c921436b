"""The enrollment procedure: every card tapped in a guided order
(:class:`Enrollment`), and a lost set rebuilt from its tags' codes (:func:`rebuild`)."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
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

    def order(self) -> list[int]:
        """Guided order: deck by deck, suits S H D C, 2 to A, then the jokers."""
        return list(range(self.cardset.total))

    def run(self) -> int:
        cs = self.cardset
        todo = [c for c in self.order() if c not in cs.by_card()]
        done = cs.total - len(todo)
        if done:
            self.say(f"resuming set {cs.name!r}: {done} of {cs.total} cards already enrolled")
        else:
            self.say(f"enrolling set {cs.name!r}: {cs.total} cards ({cs.decks} deck(s)); Ctrl-C stops, progress is kept")
        self._wait_clear()
        for card in todo:
            self._enroll_one(card, cs.total - len(todo) + todo.index(card) + 1)
        self.say(f"all {cs.total} cards enrolled; set saved to {self.path}")
        return 0

    def _prompt(self, card: int, k: int) -> None:
        self.say(f"[{k}/{self.cardset.total}] tap {card_label(card)}")

    def _enroll_one(self, card: int, k: int) -> None:
        cs = self.cardset
        self._prompt(card, k)
        while True:
            uids = self._wait_tag(card)
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
            self._wait_clear([uid])
            return

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

    def _wait_tag(self, card: int) -> list[bytes]:
        start = self.clock()
        warned = 0
        while True:
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
