"""The card-set file format (and the firmware card map made from it).

A *card set* is one physical set of cards (``decks`` decks of 54) with a tag
on each card. Enrollment taps every card on a PN532 reader in a guided order
and records the tag's UID against the card's id; the result is a text file the
operator can read, and from it the firmware's binary map (``cards.bin``,
format in ``firmware/cardmap.py``).

Card-set file (UTF-8 text, ``#`` starts a comment)::

    tractor-table card set 1
    name: Red backs
    decks: 2
    # uid            card  face copy
    04a1b2c3d4e5f6   0     2S   1
    04a1b2c3d4e5f7   1     3S   1

One line per enrolled tag: the UID in hex (4, 7 or 10 bytes), the card id
(copy * 54 + face, docs/protocol.md) and, for people, the face and the copy
(1-based); when present they must agree with the id. Lines are sorted by card id.
The file is rewritten whole (written beside, then renamed) after every card,
so an interrupted enrollment resumes where it stopped and never leaves a
half-written file.

Tag code (optional, NTAG user pages 4 and 5) so that a lost file can be
rebuilt from the cards themselves::

    page 4: 'T' 'T' set-tag (2 bytes, big-endian; CRC-32 of the set name & 0xFFFF)
    page 5: card id (2 bytes, big-endian), decks, check (XOR of the 7 bytes before)
"

The firmware's binary card map (``cards.bin``, format in ``firmware/cardmap.py``)
is written by :meth:`CardSet.export_map` with the format's constants from
that very file, and read back by :func:`read_map_header` with the firmware's
own parser (both through :func:`tractor_table.vocab.firmware`).
"""

from __future__ import annotations

import binascii
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from shengji.cards import face_name, parse_face

from ..errors import CommandError
from ..vocab.loader import firmware

HEADER = "tractor-table card set 1"
FACES = 54
MAX_DECKS = 4
UID_LENGTHS = (4, 7, 10)
#: firmware/cardmap.py, the card map's format (the host's own copy of nothing)
_CARDMAP = firmware("cardmap")
#: the card map's magic
MAP_MAGIC: bytes = _CARDMAP.MAGIC


class CardSetError(CommandError):
    """A card-set file that cannot be used; the message names file, line and fix."""


def card_label(card: int) -> str:
    """The one notation of a physical card (``shengji.cards.card_id_name``, as
    the records and the virtual console write it): ``"7H"`` for card id 18,
    ``"7H.1"`` for the second deck's (72)."""
    from shengji.cards import card_id_name

    return card_id_name(card)


def set_tag(name: str) -> int:
    return binascii.crc32(name.encode("utf-8")) & 0xFFFF


@dataclass
class CardSet:
    name: str
    decks: int
    #: tag UID -> card id
    cards: dict[bytes, int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not self.name.strip() or "\n" in self.name:
            raise CardSetError("a card set needs a one-line name (--name)")
        if len(self.name.encode("utf-8")) > 31:
            raise CardSetError(f"set name {self.name!r} is longer than 31 bytes; choose a shorter one")
        if not 1 <= self.decks <= MAX_DECKS:
            raise CardSetError(f"decks must be 1..{MAX_DECKS}, not {self.decks}")

    @property
    def total(self) -> int:
        return self.decks * FACES

    def by_card(self) -> dict[int, list[bytes]]:
        out: dict[int, list[bytes]] = {}
        for uid, card in self.cards.items():
            out.setdefault(card, []).append(uid)
        return out

    def missing(self) -> list[int]:
        have = self.by_card()
        return [c for c in range(self.total) if c not in have]

    def duplicates(self) -> dict[int, list[bytes]]:
        """Cards enrolled on more than one tag."""
        return {c: sorted(u) for c, u in sorted(self.by_card().items()) if len(u) > 1}

    # ---- text file -------------------------------------------------------------
    def dumps(self) -> str:
        lines = [HEADER, f"name: {self.name}", f"decks: {self.decks}", "# uid                 card face copy"]
        for uid, card in sorted(self.cards.items(), key=lambda kv: (kv[1], kv[0])):
            copy, face = divmod(card, FACES)
            lines.append(f"{uid.hex():<20}  {card:>4} {face_name(face):<4} {copy + 1}")
        return "\n".join(lines) + "\n"

    def save(self, path: Path) -> None:
        """Write atomically: a power cut leaves the old file or the new one."""
        tmp = path.with_name(path.name + ".tmp")
        made = False
        try:
            with open(tmp, "w", encoding="utf-8") as f:
                made = True
                f.write(self.dumps())
                f.flush()
                os.fsync(f.fileno())
            os.replace(tmp, path)
        except BaseException:
            if made:  # no half-written temporary file is left beside the set
                tmp.unlink(missing_ok=True)
            raise

    @classmethod
    def loads(cls, text: str, where: str = "card set") -> CardSet:
        lines = text.splitlines()
        if not lines or lines[0].strip() != HEADER:
            raise CardSetError(f"{where}: not a card-set file (first line must be {HEADER!r})")
        name: str | None = None
        decks: int | None = None
        entries: list[tuple[int, bytes, int]] = []
        for no, raw in enumerate(lines[1:], start=2):
            line = raw.split("#", 1)[0].strip()
            if not line:
                continue
            if line.startswith("name:"):
                name = line[5:].strip()
                continue
            if line.startswith("decks:"):
                try:
                    decks = int(line[6:])
                except ValueError:
                    raise CardSetError(f"{where}:{no}: decks must be a number") from None
                continue
            entries.append((no, *_parse_entry(line, f"{where}:{no}")))
        if name is None or decks is None:
            raise CardSetError(f"{where}: the 'name:' and 'decks:' lines are required")
        cs = cls(name, decks)
        for no, uid, card in entries:
            if card >= cs.total:
                raise CardSetError(f"{where}:{no}: card {card} is out of range for {decks} deck(s)")
            if uid in cs.cards:
                raise CardSetError(
                    f"{where}:{no}: tag {uid.hex()} is listed twice "
                    f"({card_label(cs.cards[uid])} and {card_label(card)}); keep one line"
                )
            cs.cards[uid] = card
        return cs

    @classmethod
    def load(cls, path: Path) -> CardSet:
        try:
            data = path.read_bytes()
        except FileNotFoundError:
            raise CardSetError(f"card set {path}: no such file (make one with 'tractor-table enroll')") from None
        except OSError as exc:
            raise CardSetError(f"card set {path}: cannot read it ({exc.strerror or exc})") from None
        if data.startswith(MAP_MAGIC):
            raise CardSetError(
                f"card set {path}: this is a firmware card map (cards.bin), made from a set by "
                "--export; give the set file it was made from"
            )
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise CardSetError(
                f"card set {path}: not a text file (byte {exc.start} is not UTF-8); give the set file "
                "'tractor-table enroll' wrote"
            ) from None
        return cls.loads(text, str(path))

    # ---- firmware map ------------------------------------------------------------
    def export_map(self) -> bytes:
        """The firmware's binary card map (format in firmware/cardmap.py)."""
        dup = self.duplicates()
        if dup:
            c = next(iter(dup))
            raise CardSetError(
                f"set {self.name!r}: {card_label(c)} is enrolled on {len(dup[c])} tags; "
                "run 'tractor-table deckcheck' and fix the set before exporting"
            )
        cm = _CARDMAP
        recs = []
        for uid, card in self.cards.items():
            key = bytes((len(uid),)) + uid.ljust(cm.UID_MAX, b"\x00")
            recs.append(key + card.to_bytes(2, "little"))
        recs.sort()
        body = b"".join(recs)
        nm = self.name.encode("utf-8")
        head: bytes = MAP_MAGIC + bytes((cm.VERSION, cm.RECORD)) + len(recs).to_bytes(2, "little")
        head += bytes((self.decks, len(nm), 0, 0))
        head += (binascii.crc32(body) & 0xFFFFFFFF).to_bytes(4, "little")
        head += nm.ljust(cm.HEADER - len(head), b"\x00")
        return head + body

    # ---- tag codes ---------------------------------------------------------------
    def tag_code(self, card: int) -> bytes:
        """The 8 bytes (pages 4 and 5) written into a card's tag."""
        t = set_tag(self.name)
        b = bytearray(b"TT" + t.to_bytes(2, "big") + card.to_bytes(2, "big") + bytes((self.decks,)))
        check = 0
        for x in b:
            check ^= x
        b.append(check)
        return bytes(b)


@dataclass(frozen=True)
class CardMapData:
    """A firmware card map (``cards.bin``, the bytes :meth:`CardSet.export_map`
    writes) with what its header says: what ``tractor-table deploy`` copies."""

    data: bytes
    name: str
    decks: int
    count: int


def read_map_header(data: bytes, default_name: str) -> CardMapData:
    """A card map read by the firmware's own parser (``firmware/cardmap.py``
    under CPython, through :func:`tractor_table.vocab.firmware`: the host has
    no parser of its own); ``default_name`` when the map's name is empty.
    Raises :class:`CardSetError` with the parser's reason."""
    try:
        m = _CARDMAP.CardMap(data)
    except _CARDMAP.CardMapError as exc:
        raise CardSetError(str(exc)) from None
    return CardMapData(data, str(m.name) or default_name, int(m.decks), int(m.count))


def decode_tag_code(data: bytes) -> tuple[int, int, int] | None:
    """(set tag, card id, decks) from pages 4-5, or None if they hold no code."""
    if len(data) < 8 or data[:2] != b"TT":
        return None
    check = 0
    for x in data[:7]:
        check ^= x
    if check != data[7]:
        return None
    return int.from_bytes(data[2:4], "big"), int.from_bytes(data[4:6], "big"), data[6]


def _parse_entry(line: str, where: str) -> tuple[bytes, int]:
    parts = line.split()
    if len(parts) not in (2, 4):
        raise CardSetError(f"{where}: expected 'UID CARD [FACE COPY]', got {line!r}")
    try:
        uid = bytes.fromhex(parts[0])
    except ValueError:
        raise CardSetError(f"{where}: {parts[0]!r} is not a hex UID") from None
    if len(uid) not in UID_LENGTHS:
        raise CardSetError(f"{where}: a UID is 4, 7 or 10 bytes, {parts[0]!r} has {len(uid)}")
    try:
        card = int(parts[1])
    except ValueError:
        raise CardSetError(f"{where}: card id {parts[1]!r} is not a number") from None
    if card < 0:
        raise CardSetError(f"{where}: card id {card} is negative")
    if len(parts) == 4:
        copy, face = divmod(card, FACES)
        try:
            named = parse_face(parts[2])
        except ValueError:
            raise CardSetError(f"{where}: {parts[2]!r} is not a card face") from None
        if named != face or parts[3] != str(copy + 1):
            raise CardSetError(
                f"{where}: card id {card} is {card_label(card)}, but the line says "
                f"{parts[2]} copy {parts[3]}; fix the id or the face"
            )
    return uid, card


def open_or_create(path: Path, name: str | None, decks: int | None) -> CardSet:
    """Resume the set in ``path`` (name/decks must agree when given) or start one."""
    if path.exists():
        cs = CardSet.load(path)
        if name is not None and name != cs.name:
            raise CardSetError(
                f"{path} holds set {cs.name!r}, not {name!r}; drop --name to resume it, or choose another file"
            )
        if decks is not None and decks != cs.decks:
            raise CardSetError(f"{path} holds a {cs.decks}-deck set, not {decks}; drop --decks to resume it")
        return cs
    if name is None:
        raise CardSetError(f"{path} does not exist yet: give the new set a --name")
    cs = CardSet(name, 2 if decks is None else decks)
    return cs


def labels(cards: Iterable[int]) -> Sequence[str]:
    return [card_label(c) for c in cards]
