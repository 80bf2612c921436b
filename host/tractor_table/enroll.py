"""Card sets: which NFC tag is which card, made by enrollment.

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
"""

from __future__ import annotations

import binascii
import os
import queue
import time
from collections import deque
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from shengji.cards import face_name, parse_face

from .errors import CommandError

HEADER = "tractor-table card set 1"
FACES = 54
MAX_DECKS = 4
UID_LENGTHS = (4, 7, 10)


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
        if data.startswith(b"TTCM"):  # firmware/cardmap.py's magic
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
        recs = []
        for uid, card in self.cards.items():
            key = bytes((len(uid),)) + uid.ljust(10, b"\x00")
            recs.append(key + card.to_bytes(2, "little"))
        recs.sort()
        body = b"".join(recs)
        nm = self.name.encode("utf-8")
        head = b"TTCM" + bytes((1, 13)) + len(recs).to_bytes(2, "little")
        head += bytes((self.decks, len(nm), 0, 0))
        head += (binascii.crc32(body) & 0xFFFFFFFF).to_bytes(4, "little")
        head += nm.ljust(32, b"\x00")
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


# ---- the reader ----------------------------------------------------------------------


class TagReader(Protocol):
    """What enrollment needs from a reader.

    A reader that reports each tap once (a table's scanner, which already
    ignores a card resting on the reader) says so with a true ``taps_once``
    attribute: its ``poll`` returns a tag once per tap, and enrollment then
    does not wait for the reader to clear."""

    def poll(self) -> list[bytes]:
        """UIDs of the tags in the field now (0, 1 or 2)."""
        ...

    def read_code(self) -> bytes | None:
        """Pages 4-5 of the tag found by the last poll, or None if unreadable."""
        ...

    def write_code(self, data: bytes) -> bool:
        """Write 8 bytes to pages 4-5 of that tag; False if it failed."""
        ...


class AdafruitUartReader:
    """A PN532 on a USB-UART adapter, driven by Adafruit's ``PN532_UART`` over pyserial."""

    def __init__(self, port: str, baudrate: int = 115200) -> None:
        import serial
        from adafruit_pn532.uart import PN532_UART  # type: ignore[import-untyped]

        try:
            # The library reads more bytes than a short answer holds and waits for
            # the read timeout; it starts reading only once the answer is arriving,
            # and the longest answer (two tags, 34 bytes) takes 3 ms at 115200 baud.
            self.serial = serial.Serial(port, baudrate, timeout=0.01)
        except (serial.SerialException, OSError) as exc:
            raise CommandError(
                f"cannot open the reader on {port}: {exc}; is the USB-UART adapter plugged in?"
            ) from None
        try:
            self.pn532 = PN532_UART(self.serial)
            self.pn532.SAM_configuration()
            # Bounded passive activation (3 attempts): a poll without a card returns.
            self.pn532.call_function(0x32, params=[0x05, 0xFF, 0x01, 0x02])
        except (RuntimeError, OSError) as exc:
            self.serial.close()
            raise CommandError(
                f"no PN532 answered on {port} ({exc}); check TX/RX are crossed, "
                "the board's interface switches are set to HSU/UART, and its power"
            ) from None

    def close(self) -> None:
        self.serial.close()

    def poll(self) -> list[bytes]:
        try:
            resp = self.pn532.call_function(0x4A, response_length=40, params=[0x02, 0x00], timeout=0.5)
        except RuntimeError:
            return []  # a broken answer counts as "nothing seen"; the next poll retries
        if not resp:
            return []
        out = []
        i = 1
        for _ in range(min(resp[0], 2)):
            if i + 5 > len(resp):
                break
            n = resp[i + 4]
            out.append(bytes(resp[i + 5 : i + 5 + n]))
            i += 5 + n
        return out

    def read_code(self) -> bytes | None:
        try:
            data = self.pn532.mifare_classic_read_block(4)
        except (RuntimeError, TypeError):
            return None
        return bytes(data[:8]) if data is not None and len(data) >= 8 else None

    def write_code(self, data: bytes) -> bool:
        try:
            return bool(
                self.pn532.ntag2xx_write_block(4, data[:4]) and self.pn532.ntag2xx_write_block(5, data[4:8])
            )
        except (RuntimeError, TypeError):
            return False


#: firmware/main.py and firmware/enrollmode.py: the link's application messages
APP_REPLY = 100
APP_ENROLL = 104
APP_TAG = 105
SEATS = 4


class TableLostError(CommandError):
    """The link to the table came back (a replug, a table restart) but enroll
    mode could not be turned back on: the table refused or did not answer."""


class TableTagReader:
    """A connected table's seat reader, through the link (``enroll --table``).

    The host asks the table for enroll mode at one seat (``[APP_ENROLL, seat]``);
    the table then plays no cards and reports every tag its scanner sees at that
    seat as ``[APP_TAG, seat, "uidhex"]``, or a reader error as
    ``[APP_TAG, seat, "", "two" | "crosstalk" | "fault"]``. ``close()`` leaves
    enroll mode (``[APP_ENROLL, -1]``). The scanner reports a tag once per tap,
    so this reader is ``taps_once``; it cannot read or write tag memory.

    Enroll mode belongs to the link session that asked for it, and the link
    starts a new session whenever it comes back (the cable was out, the table
    restarted): then ``poll`` asks for enroll mode again at the same seat,
    waits for the table's answer and says so in one line; a table that refuses
    or does not answer ends the reading with :class:`TableLostError`. Tags the
    table reported in the old session are delivered once (the link numbers
    them within a session and drops its queue with the session), so none is
    counted twice; a tap the table reported into a dead link is lost, and the
    operator is asked to tap the last card again."""

    taps_once = True

    def __init__(
        self,
        port: str,
        seat: int = 0,
        say: Callable[[str], None] = print,
        timeout: float = 10.0,
        poll_wait: float = 0.05,
    ) -> None:
        from .link.serial_link import SerialLink

        if not 0 <= seat < SEATS:
            raise CommandError(f"--seat must be 0-{SEATS - 1}, not {seat}")
        self.port = port
        self.seat = seat
        self.say = say
        self.timeout = timeout
        self.poll_wait = poll_wait
        #: what the link thread hands over, in its order: (kind, session, data)
        #: with kind "up", "down", "tag" or "reply"; session counts the link's
        #: sessions ("up" notes), so an answer is matched to its request
        self._inbox: queue.Queue[tuple[str, int, Any]] = queue.Queue()
        self._stash: deque[tuple[str, int, Any]] = deque()  # tags that came during a request
        self._sessions = 0  # "up" notes so far (written by the link thread only)
        self._boot: dict[int, Any] = {}  # session -> the table's boot id in it
        self._mode_session = 0  # the session in which the table agreed to enroll mode
        self._down_told = False
        self._unsure = False  # asked again, no answer: the table may be in enroll mode
        self.active = False
        #: times enroll mode was turned back on after the link came back
        self.resumed = 0
        self.link = SerialLink(port, on_note=self.on_note, reconnect_s=0.1).start()
        try:
            if not self.link.wait_synced(timeout):
                raise CommandError(
                    f"no table answered on {port} within {timeout:g} s (no link handshake); "
                    "is the table running and the port the table's?"
                )
            status, why = self._request(seat, timeout)
            if status == "refused":
                raise CommandError(f"the table on {port} refused enroll mode: {why}")
            if status != "ok":
                raise CommandError(
                    f"the table on {port} did not answer the enroll request; "
                    "its firmware may predate enroll mode (deploy it again)"
                )
        except BaseException:
            self.link.close()
            raise
        self.active = True

    def on_note(self, note: list[Any]) -> None:
        """The link's notes (called from its thread, under the link's lock)."""
        if not note:
            return
        kind = note[0]
        if kind == "up":
            self._sessions += 1
            info = note[1] if len(note) > 1 else None
            self._boot[self._sessions] = info[3] if isinstance(info, list) and len(info) > 3 else None
            self._inbox.put(("up", self._sessions, None))
        elif kind == "down":
            self._inbox.put(("down", self._sessions, str(note[1]) if len(note) > 1 else ""))
        elif kind == "app" and len(note) > 1 and note[1]:
            p = list(note[1])
            if p[0] == APP_TAG and len(p) >= 3 and p[1] == self.seat:
                self._inbox.put(("tag", self._sessions, p))
            elif p[0] == APP_REPLY and len(p) >= 3 and p[1] == APP_ENROLL:
                self._inbox.put(("reply", self._sessions, p))

    # --- asking the table

    def _send_now(self, payload: list[Any]) -> int:
        """Send in the session that is up now: its number, or -1 if none is up."""

        from .link import ttlink

        def send(h: Any) -> int:
            if h.state != ttlink.UP:
                return -1  # queued now, it would be dropped with the session
            h.send_app(payload)
            return self._sessions

        result: int = self.link.with_link(send)
        return result

    def _link_up(self) -> bool:
        from .link import ttlink

        up: bool = self.link.with_link(lambda h: h.state == ttlink.UP)
        return up

    def _next(self, timeout: float) -> tuple[str, int, Any] | None:
        if self._stash:
            return self._stash.popleft()
        try:
            return self._inbox.get(timeout=max(timeout, 0.0))
        except queue.Empty:
            return None

    def _request(self, seat: int, timeout: float) -> tuple[str, str]:
        """Ask for enroll mode at ``seat`` (-1: leave it) and wait for the answer:
        ("ok", ""), ("refused", why), ("no answer", "") if none came within
        ``timeout`` of the request, or ("no link", "") if the link was not up
        within ``timeout``. A request lost with its session (the link went down
        meanwhile) is sent again in the next one, which has ``timeout`` again."""
        from .link import ttlink

        deadline = time.monotonic() + timeout
        sent_in = -1
        while True:
            left = deadline - time.monotonic()
            if sent_in < 0:
                if not self.link.wait_for(lambda h: h.state == ttlink.UP, max(left, 0.0)):
                    return ("no link", "")
                sent_in = self._send_now([APP_ENROLL, seat])
                if sent_in >= 0:
                    deadline = time.monotonic() + timeout
                continue
            if left <= 0:
                return ("no answer", "") if self._link_up() else ("no link", "")
            try:  # tags stay in the inbox's order: the stash is read first by poll
                kind, session, data = self._inbox.get(timeout=left)
            except queue.Empty:
                continue
            if kind == "reply":
                if session != sent_in:
                    continue  # the answer to a request of an earlier session
                if data[2] == 0:
                    if seat >= 0:
                        self._mode_session = session
                    return ("ok", "")
                return ("refused", str(data[3]) if len(data) > 3 else "")
            if kind == "up":
                if session > sent_in:
                    sent_in = -1  # the request went down with its session: again
                continue
            if kind == "down":
                if session >= sent_in:
                    sent_in = -1  # lost with its session: sent again in the next one
                self._tell_down(data)
                continue
            self._stash.append((kind, session, data))

    def _tell_down(self, why: str) -> None:
        # ``why`` (pyserial's words, or the keepalive's) is in the link's log
        if self.active and not self._down_told:
            self._down_told = True
            self.say(
                f"lost the link to the table on {self.port} (cable out, or the table restarting); "
                "waiting for it to come back: tap no card meanwhile (the table may take it as a play)"
            )

    def _resume(self, session: int) -> None:
        """The link came back in a new session: enroll mode again, same seat."""
        restarted = self._boot.get(session) != self._boot.get(self._mode_session)
        what = "restarted" if restarted else "reconnected"
        status, why = self._request(self.seat, self.timeout)
        if status == "ok":
            self.resumed += 1
            self._down_told = False
            self.say(
                f"the table {what}: enroll mode is back on at seat {self.seat}; "
                "tap the last card again if it was not counted"
            )
            return
        if status == "no link":
            return  # down again before it answered: asked again when it is back
        self.active = False
        # a restart or another table on the port: the host cannot tell them apart
        came_back = f"after the link to the table on {self.port} came back, the table"
        if status == "refused":
            raise TableLostError(f"{came_back} refused enroll mode at seat {self.seat}: {why}")
        self._unsure = True
        raise TableLostError(
            f"{came_back} did not answer the request for enroll mode at seat {self.seat} "
            f"within {self.timeout:g} s; check the table and run the command again"
        )

    def close(self) -> None:
        try:
            if self.active:
                self.active = False
                # with the link down, wait a little for it (not the whole reply timeout)
                status, why = self._request(-1, self.timeout if self._link_up() else min(self.timeout, 2.0))
                if status == "refused":
                    self.say(f"note: the table on {self.port} refused to leave enroll mode: {why}")
                elif status != "ok":
                    self.say(
                        f"note: the table on {self.port} did not confirm that it left enroll mode; "
                        "with this host gone it leaves it at the next tap, and that tap is the game's"
                    )
                # let the table see the ack of its answer before we let go of the port
                self.link.wait_for(lambda h: False, 0.3)
            elif self._unsure:
                self._unsure = False
                self._send_now([APP_ENROLL, -1])  # in case the request got there after all
                self.link.wait_for(lambda h: False, 0.3)
        finally:
            self.link.close()

    # --- the reader

    def poll(self) -> list[bytes]:
        item = self._next(self.poll_wait)
        if item is None:
            return []
        kind, session, data = item
        if kind == "down":
            self._tell_down(data)
            return []
        if kind == "up":
            if self.active and session > self._mode_session:
                self._resume(session)
            return []
        if kind != "tag":
            return []  # a late answer to a request already given up on
        p = data
        if p[2]:
            try:
                return [bytes.fromhex(p[2])]
            except (TypeError, ValueError):
                self.say(f"the table sent a tag UID that is not hex ({p[2]!r}); tap the card again")
                return []
        reason = p[3] if len(p) > 3 else ""
        if reason == "two":
            return [b"", b""]  # two tags, UIDs not told: enrollment asks for one at a time
        if reason == "crosstalk":
            self.say(
                f"the tag was also seen at another seat's reader (crosstalk); "
                f"tap the card again in the middle of seat {self.seat}'s reader, away from the others"
            )
        elif reason == "fault":
            self.say(f"the table reports that seat {self.seat}'s reader stopped answering; it is being reset")
        else:
            self.say(f"the table reported a reader error at seat {self.seat} ({reason!r}); tap the card again")
        return []

    def read_code(self) -> bytes | None:
        return None  # the table does not read tag memory for the host

    def write_code(self, data: bytes) -> bool:
        return False


# ---- enrollment ------------------------------------------------------------------------


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
        say(f"{len(missing)} card(s) not found: " + " ".join(_short(c) for c in missing))
    say(f"set saved to {path}")
    return cs


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
