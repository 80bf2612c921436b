"""Card sets, enrollment and deckcheck: the file format, the binary map the
firmware reads, and enrollment end to end (the real adafruit_pn532 library over
pyserial on a pseudo-terminal served by the simulator, a scripted operator)."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from ctrl_c import default_sigint
from tractor_table.enroll import (
    AdafruitUartReader,
    CardSet,
    CardSetError,
    Enrollment,
    card_label,
    check_scan,
    check_static,
    decode_tag_code,
)
from tractor_table.errors import CommandError
from tractor_table.sim.pn532sim.chip import Tag
from tractor_table.sim.pn532sim.serve import PtyPN532

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "firmware"))
sys.path.insert(0, str(Path(__file__).resolve().parent))
import cardmap  # noqa: E402  (firmware module)
from simchip import build_map  # noqa: E402


def uid_for(card: int) -> bytes:
    return bytes((0x04, 0x10, card >> 8, card & 0xFF, 0x21, 0x32, 0x43))


def full_set(decks: int = 1, name: str = "Red backs") -> CardSet:
    cs = CardSet(name, decks)
    for c in range(cs.total):
        cs.cards[uid_for(c)] = c
    return cs


# ---- the file -----------------------------------------------------------------------


def test_label_and_ids() -> None:
    assert card_label(0) == "2S"
    assert card_label(12) == "AS"
    assert card_label(13 + 5) == "7H"
    assert card_label(54 + 53) == "BJ.1"


def test_set_file_round_trip(tmp_path: Path) -> None:
    cs = full_set(2)
    p = tmp_path / "red.cards"
    cs.save(p)
    text = p.read_text()
    assert text.startswith("tractor-table card set 1\nname: Red backs\ndecks: 2\n")
    assert re.search(r"^04100035213243 +53 BJ +1$", text, re.M)
    assert re.search(r"^0410006b213243 +107 BJ +2$", text, re.M)
    again = CardSet.load(p)
    assert again == cs
    assert not (tmp_path / "red.cards.tmp").exists()


@pytest.mark.parametrize(
    "body, message",
    [
        ("nonsense\n", "not a card-set file"),
        ("tractor-table card set 1\ndecks: 1\n", "'name:' and 'decks:'"),
        ("tractor-table card set 1\nname: x\ndecks: 9\n", "decks must be 1..4"),
        ("tractor-table card set 1\nname: x\ndecks: 1\nzz 3\n", ":4: 'zz' is not a hex UID"),
        ("tractor-table card set 1\nname: x\ndecks: 1\n0410 3\n", ":4: a UID is 4, 7 or 10 bytes"),
        ("tractor-table card set 1\nname: x\ndecks: 1\n04100003213243 3 4H 1\n", ":4: card id 3 is 5S"),
        ("tractor-table card set 1\nname: x\ndecks: 1\n04100003213243 54\n", ":4: card 54 is out of range"),
        ("tractor-table card set 1\nname: x\ndecks: 1\n04100003213243 3\n04100003213243 4\n", ":5: tag 04100003213243 is listed twice"),
    ],
)
def test_bad_set_files_are_refused_clearly(body: str, message: str) -> None:
    with pytest.raises(CardSetError, match=re.escape(message)):
        CardSet.loads(body, "f")


@pytest.mark.parametrize(
    "data, message",
    [
        (full_set(1).export_map(), "this is a firmware card map (cards.bin)"),
        (b"tractor-table card set 1\nname: \xe8\n", "not a text file (byte 31 is not UTF-8)"),
    ],
)
def test_binary_files_given_as_a_set_are_named(tmp_path: Path, data: bytes, message: str) -> None:
    p = tmp_path / "x.cards"
    p.write_bytes(data)
    with pytest.raises(CardSetError, match=re.escape(message)):
        CardSet.load(p)
    assert p.read_bytes() == data  # left as it was


def test_good_set_file_with_faces_is_accepted() -> None:
    cs = CardSet.loads("tractor-table card set 1\nname: x\ndecks: 1\n04100003213243 3 5S 1  # five\n")
    assert cs.cards == {uid_for(3): 3}


def test_static_check_finds_missing_and_duplicates() -> None:
    cs = full_set(1)
    assert check_static(cs).ok
    del cs.cards[uid_for(7)]
    extra = bytes.fromhex("04999999999999")
    cs.cards[extra] = 9
    rep = check_static(cs)
    assert rep.missing == [7] and rep.duplicates == {9: sorted([uid_for(9), extra])}
    assert not rep.ok
    text = "\n".join(rep.lines(cs, scanned=False))
    assert "missing (not enrolled): 1: 9S" in text and "duplicate: JS is enrolled on 2 tags" in text


def test_export_matches_independent_builder_and_firmware_reads_it() -> None:
    cs = full_set(2, name="Blue")
    cs.cards[bytes.fromhex("11223344")] = 5  # a 4-byte UID: a different key length
    del cs.cards[uid_for(5)]
    data = cs.export_map()
    assert data == build_map(list(cs.cards.items()), decks=2, name="Blue")
    m = cardmap.CardMap(data)
    assert (m.count, m.decks, m.name) == (108, 2, "Blue")
    for uid, card in cs.cards.items():
        assert m.lookup(uid, len(uid)) == card
    assert m.lookup(uid_for(5), 7) == -1
    assert m.lookup(bytes.fromhex("04999999999999"), 7) == -1
    assert m.lookup(b"\x11\x22\x33", 3) == -1
    bad = bytearray(data)
    bad[60] ^= 1
    with pytest.raises(cardmap.CardMapError, match="CRC"):
        cardmap.CardMap(bytes(bad))
    with pytest.raises(cardmap.CardMapError, match="truncated"):
        cardmap.CardMap(data[:-1])
    cs.cards[bytes.fromhex("04999999999999")] = 0
    with pytest.raises(CardSetError, match="2S is enrolled on 2 tags"):
        cs.export_map()


def test_firmware_lookup_allocates_nothing_under_micropython(tmp_path: Path) -> None:
    from tractor_table import mpy
    from tractor_table.paths import FIRMWARE_DIR

    cs = full_set(2)
    (tmp_path / "cards.bin").write_bytes(cs.export_map())
    code = (
        "import cardmap, micropython\n"
        f"m = cardmap.load({str(tmp_path / 'cards.bin')!r})\n"
        "u = bytearray(b'\\x04\\x10\\x00\\x00\\x21\\x32\\x43')\n"
        "out = bytearray(108)\n"
        "miss = 0\n"
        "stranger = b'\\x01\\x02\\x03\\x04'\n"
        "micropython.heap_lock()\n"
        "for c in range(108):\n"
        "    u[2] = c >> 8\n"
        "    u[3] = c & 255\n"
        "    out[c] = m.lookup(u, 7)\n"
        "miss = m.lookup(stranger, 4)\n"
        "micropython.heap_unlock()\n"
        "print(list(out) == list(range(108)), miss)\n"
    )
    proc = mpy.run(code=code, path=[FIRMWARE_DIR], heapsize="64K", timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["True", "-1"]


def test_card_map_mixed_uid_lengths_and_wide_ids() -> None:
    # the map keeps its records by UID length (cardmap.CardMap): 4-, 7- and
    # 10-byte UIDs in one map, a card id over 255 (two bytes kept), each found
    # in its own run and nowhere else
    pairs = [(bytes((0x04, i, 1, 2, 3, 4, 5)), i) for i in range(40)]
    pairs += [(bytes((0x08, i, 9, 9)), 100 + i) for i in range(20)]
    pairs += [(bytes((0x04, 7, 7, 7, 7, 7, 7, 7, 7, i)), 200 + i) for i in range(10)]
    pairs.append((bytes((0x05, 0, 0, 0, 0, 0, 1)), 300))
    m = cardmap.CardMap(build_map(pairs))
    assert m.count == len(pairs)
    for uid, card in pairs:
        assert m.lookup(uid, len(uid)) == card, (uid.hex(), card)
        assert m.lookup(uid + b"\x00", len(uid) + 1) == -1
        assert m.lookup(uid, len(uid) - 1) == -1
    assert m.lookup(bytes((0x04, 40, 1, 2, 3, 4, 5)), 7) == -1
    assert m.lookup(bytes((0x08, 20, 9, 9)), 4) == -1
    assert m.lookup(bytes((0x04, 0, 0, 0)), 3) == -1
    assert m.lookup(bytes(11), 11) == -1 and m.lookup(b"", 0) == -1
    # ids of one byte: the same map without the wide one
    narrow = cardmap.CardMap(build_map(pairs[:-1]))
    for uid, card in pairs[:-1]:
        assert narrow.lookup(uid, len(uid)) == card


def test_card_map_held_compact_under_micropython(tmp_path: Path) -> None:
    # what the table holds for a 4-deck map of 7-byte UIDs (issue 21): the
    # records as 8 bytes a card, not the file's 13 (2,856 B with the header)
    from tractor_table import mpy
    from tractor_table.paths import FIRMWARE_DIR

    cs = full_set(4)
    (tmp_path / "cards.bin").write_bytes(cs.export_map())
    code = (
        # (cardmapload, the load's code, imported first: compiled from source
        # here it stays, where the table's .mpy leaves the heap after the load)
        "import gc, cardmap, cardmapload\n"
        "gc.collect()\n"
        "a = gc.mem_alloc()\n"
        f"m = cardmap.load({str(tmp_path / 'cards.bin')!r})\n"
        "gc.collect()\n"
        "print(m.count, gc.mem_alloc() - a)\n"
    )
    proc = mpy.run(code=code, path=[FIRMWARE_DIR], heapsize="64K", timeout=60)
    assert proc.returncode == 0, proc.stderr
    count, held = map(int, proc.stdout.split())
    assert count == 216
    # 216 x 8 B of records, the object, its map, the run table, the name
    assert held < 216 * 8 + 512 < 216 * 13, held


def test_tag_code_round_trip() -> None:
    cs = full_set(2, "Red backs")
    code = cs.tag_code(107)
    assert len(code) == 8 and code[:2] == b"TT"
    tag, card, decks = decode_tag_code(code) or (0, 0, 0)
    assert (card, decks) == (107, 2)
    broken = bytearray(code)
    broken[5] ^= 1
    assert decode_tag_code(bytes(broken)) is None
    assert decode_tag_code(b"\x03\x00\xfe\x00\x00\x00\x00\x00") is None


# ---- enrollment through the real library, in process ---------------------------------


class Operator:
    """Acts on the enrollment's messages like a person at the reader."""

    def __init__(self, sim: PtyPN532, tags: dict[int, Tag]) -> None:
        self.sim = sim
        self.tags = tags
        self.log: list[str] = []
        self.on_prompt: dict[int, str] = {}  # prompt number -> trick to play first
        self.current: Tag | None = None

    def say(self, text: str) -> None:
        self.log.append(text)
        m = re.match(r"\[(\d+)/\d+\] tap (\S+)$", text)
        if m:
            from shengji.cards import parse_card_id

            card = parse_card_id(m.group(2))
            self.current = self.tags[card]
            trick = self.on_prompt.pop(int(m.group(1)), "")
            if trick == "old":
                self.sim.place(self.tags[0])  # an already enrolled card
            elif trick == "foreign":
                self.sim.place(Tag(b"\x3a\x01\x02\x03", ntag=False))
            elif trick == "two":
                self.sim.place(self.current)
                self.sim.place(self.tags[card + 1])
            elif trick == "late":
                pass  # misses the tap: waits for the reminder
            else:
                self.sim.place(self.current)
            return
        if text.startswith(("already enrolled", "foreign tag", "two cards")):
            self.sim.clear()
            assert self.current is not None
            self.sim.place(self.current)
        elif text.startswith("missed tap: no card"):
            assert self.current is not None
            self.sim.place(self.current)
        elif text.startswith("missed tap: the card left"):
            assert self.current is not None
            self.sim.place(self.current)
        elif text.startswith("enrolled"):
            self.sim.clear()


class LiftedEarly(Tag):
    """A tag the operator pulls away while its code is being written (once)."""

    def __init__(self, uid: bytes, sim: PtyPN532) -> None:
        super().__init__(uid)
        self.sim = sim
        self.lifted = False

    def write(self, page: int, data: bytes) -> bool:
        if not self.lifted:
            self.lifted = True
            self.sim.chip.remove(self)  # gone: the chip reports a time-out
            return False
        return super().write(page, data)


def test_enrollment_guided_with_mistakes_through_adafruit_uart(tmp_path: Path) -> None:
    with PtyPN532() as sim:
        tags = {c: Tag(uid_for(c)) for c in range(54)}
        tags[4] = LiftedEarly(uid_for(4), sim)
        op = Operator(sim, tags)
        op.on_prompt = {2: "old", 3: "foreign", 6: "two", 8: "late"}
        reader = AdafruitUartReader(sim.port)
        cs = CardSet("Green", 1)
        path = tmp_path / "green.cards"
        try:
            en = Enrollment(reader, cs, path, say=op.say, write_codes=True, tap_timeout=0.3)
            assert en.run() == 0
        finally:
            reader.close()
    log = "\n".join(op.log)
    assert "already enrolled: that tag is 2S; take it away and tap 3S" in log
    assert "foreign tag 3a010203: a 4-byte UID is not an NTAG21x card sticker" in log
    assert "two cards on the reader" in log
    assert "missed tap: no card seen for 0 s; still waiting for 9S" in log
    assert "missed tap: the card left the reader before its code was written; tap 6S again" in log
    assert op.log[-1] == f"all 54 cards enrolled; set saved to {path}"
    saved = CardSet.load(path)
    assert saved.cards == {uid_for(c): c for c in range(54)}
    for c in (0, 4, 53):
        assert decode_tag_code(tags[c].page(4) + tags[c].page(5)) == (
            decode_tag_code(saved.tag_code(c))
        )
    assert check_static(saved).ok


def test_deckcheck_scan_finds_unknown_and_missing(tmp_path: Path) -> None:
    cs = full_set(1)
    with PtyPN532() as sim:
        reader = AdafruitUartReader(sim.port)
        played: list[str] = []
        order = [c for c in range(54) if c != 17] + [3]  # 17 lost, 3 tapped twice
        stranger = Tag(bytes.fromhex("04eeeeeeeeeeee"))
        heard = threading.Event()

        def say(text: str) -> None:
            played.append(text)
            heard.set()

        def operator() -> None:
            import time

            heard.wait(2)  # the opening line
            for k, c in enumerate(order):
                heard.clear()
                sim.place(Tag(uid_for(c)) if c != 20 else stranger)
                # held until the check has read it (a repeat says nothing: short wait)
                heard.wait(0.3 if k == len(order) - 1 else 3)
                sim.clear()
                time.sleep(0.03)

        th = threading.Thread(target=operator)
        th.start()
        try:
            rep = check_scan(cs, reader, idle=1.0, say=say)
        finally:
            th.join()
            reader.close()
    assert rep.unknown == [stranger.uid]
    assert rep.missing == [17, 20]
    assert rep.tapped_twice == [3]
    assert not rep.ok


# ---- the command line, end to end over a pseudo-terminal ----------------------------


def _cli(*args: str) -> list[str]:
    return [sys.executable, "-m", "tractor_table.cli", *args]


def _operate(proc: subprocess.Popen[str], sim: PtyPN532, tags: dict[int, Tag], stop_after: int | None) -> list[str]:
    lines = []
    assert proc.stdout is not None
    stopped = False
    for line in proc.stdout:
        line = line.rstrip("\n")
        lines.append(line)
        if stopped:
            continue
        m = re.match(r"\[(\d+)/\d+\] tap (\S+)$", line)
        if m:
            from shengji.cards import parse_card_id

            sim.place(tags[parse_card_id(m.group(2))])
        elif line.startswith("enrolled"):
            sim.clear()
            done = int(re.search(r"\((\d+)/", line).group(1))  # type: ignore[union-attr]
            if stop_after is not None and done == stop_after:
                proc.send_signal(signal.SIGINT)
                stopped = True
    return lines


def test_enroll_command_interrupted_and_resumed_then_exported(tmp_path: Path) -> None:
    path = tmp_path / "sets" / "blue.cards"
    out = tmp_path / "cards.bin"
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    with PtyPN532() as sim:
        tags = {c: Tag(uid_for(c)) for c in range(54)}
        first = subprocess.Popen(
            _cli("enroll", "--reader", sim.port, "--set", str(path), "--name", "Blue", "--decks", "1"),
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, preexec_fn=default_sigint,
        )
        lines = _operate(first, sim, tags, stop_after=10)
        assert first.wait(timeout=30) == 130
        assert first.stderr is not None
        assert "stopped: 10 of 54 cards are saved" in first.stderr.read()
        assert lines[0].startswith("enrolling set 'Blue': 54 cards")
        assert len(CardSet.load(path).cards) == 10
        sim.clear()
        second = subprocess.Popen(
            _cli("enroll", "--reader", sim.port, "--set", str(path), "--export", str(out)),
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
        )
        lines = _operate(second, sim, tags, stop_after=None)
        assert second.wait(timeout=60) == 0, second.stderr.read() if second.stderr else ""
    assert lines[0] == "resuming set 'Blue': 10 of 54 cards already enrolled"
    assert lines[1] == "[11/54] tap QS"
    assert lines[-1] == f"wrote the firmware map {out} (54 tags)"
    m = cardmap.CardMap(out.read_bytes())
    assert all(m.lookup(uid_for(c), 7) == c for c in range(54))
    check = subprocess.run(_cli("deckcheck", str(path)), capture_output=True, text=True, timeout=30)
    assert check.returncode == 0 and "set is complete and consistent" in check.stdout


def test_enroll_command_errors_are_one_clear_line(tmp_path: Path) -> None:
    from tractor_table.cli import main

    with pytest.raises(CommandError, match="cannot open the reader on /nonexistent/tty"):
        AdafruitUartReader("/nonexistent/tty")
    r = subprocess.run(_cli("enroll", "--table", "/dev/null", "--rebuild", "--set", str(tmp_path / "x")),
                       capture_output=True, text=True, timeout=30)
    assert r.returncode == 1 and "--rebuild reads or writes the tags' memory" in r.stderr and "Traceback" not in r.stderr
    r = subprocess.run(_cli("enroll", "--reader", "/dev/null", "--set", str(tmp_path / "new.cards")),
                       capture_output=True, text=True, timeout=30)
    assert r.returncode == 1 and "does not exist yet: give the new set a --name" in r.stderr
    bad = tmp_path / "bad.cards"
    bad.write_text("hello\n")
    assert main(["deckcheck", str(bad)]) == 1
    half = tmp_path / "half.cards"
    cs = full_set(1)
    del cs.cards[uid_for(0)]
    cs.save(half)
    r = subprocess.run(_cli("deckcheck", str(half), "--export", str(tmp_path / "c.bin")),
                       capture_output=True, text=True, timeout=30)
    assert r.returncode == 1 and "missing (not enrolled): 1: 2S" in r.stdout
    assert "not exporting: 1 card(s)" in r.stderr and not (tmp_path / "c.bin").exists()


def test_deckcheck_command_with_reader_and_nothing_tapped(tmp_path: Path) -> None:
    path = tmp_path / "s.cards"
    full_set(1).save(path)
    with PtyPN532() as sim:
        r = subprocess.run(_cli("deckcheck", str(path), "--reader", sim.port, "--idle", "0.3"),
                           capture_output=True, text=True, timeout=30)
    assert r.returncode == 1
    assert "scanned 0 distinct tags" in r.stdout and "missing (not tapped): 54:" in r.stdout


def test_rebuild_a_lost_set_from_tag_codes(tmp_path: Path) -> None:
    from tractor_table.enroll import rebuild

    original = full_set(1, "Red backs")
    tags = []
    for uid, card in original.cards.items():
        t = Tag(uid)
        code = original.tag_code(card)
        assert t.write(4, code[:4]) and t.write(5, code[4:])
        tags.append(t)
    bare = tags[10]  # enrolled without a code
    bare.memory[16:24] = b"\x03\x00\xfe\x00\x00\x00\x00\x00"
    other = Tag(bytes.fromhex("04777777777777"))
    code = full_set(1, "Blue backs").tag_code(3)
    other.write(4, code[:4])
    other.write(5, code[4:])
    heard = threading.Event()
    log: list[str] = []

    def say(text: str) -> None:
        log.append(text)
        heard.set()

    path = tmp_path / "red-again.cards"
    with PtyPN532() as sim:
        reader = AdafruitUartReader(sim.port)

        def operator() -> None:
            heard.wait(2)
            for t in [*tags, other]:
                heard.clear()
                sim.place(t)
                heard.wait(3)
                sim.clear()

        th = threading.Thread(target=operator)
        th.start()
        try:
            cs = rebuild(reader, "Red backs", 1, path, idle=1.0, say=say)
        finally:
            th.join()
            reader.close()
    assert cs.missing() == [10]
    assert {u: c for u, c in cs.cards.items()} == {u: c for u, c in original.cards.items() if c != 10}
    assert CardSet.load(path) == cs
    text = "\n".join(log)
    assert f"tag {bare.uid.hex()} carries no card code" in text
    assert "tag 04777777777777 carries the code of another card set" in text
    assert "1 card(s) not found: QS" in text
    with pytest.raises(CardSetError, match="never overwritten"):
        rebuild(reader, "Red backs", 1, path, idle=0.1, say=say)


def test_reader_that_does_not_answer_is_one_clear_error() -> None:
    from tractor_table.sim.pn532sim.chip import FAULT_SILENT

    with PtyPN532() as sim:
        sim.inject(FAULT_SILENT)
        with pytest.raises(CommandError, match=f"no PN532 answered on {re.escape(sim.port)}.*TX/RX"):
            AdafruitUartReader(sim.port)


def test_a_set_that_cannot_be_saved_stops_the_enrollment_with_what_is_kept(tmp_path: Path) -> None:
    """A save that fails (here the temporary file's name is taken by a folder,
    as a full disk would fail the write) ends the enrollment with one line
    naming the file, the card and how many cards the file keeps; the set in
    memory is what the file holds, and the file is untouched."""
    with PtyPN532() as sim:
        tags = {c: Tag(uid_for(c)) for c in range(54)}
        op = Operator(sim, tags)
        reader = AdafruitUartReader(sim.port)
        cs = CardSet("Blue", 1)
        path = tmp_path / "blue.cards"
        for c in range(3):
            cs.cards[uid_for(c)] = c
        cs.save(path)
        before = path.read_bytes()
        (tmp_path / "blue.cards.tmp").mkdir()
        try:
            with pytest.raises(CardSetError) as err:
                Enrollment(reader, cs, path, say=op.say, tap_timeout=0.3).run()
        finally:
            reader.close()
    assert str(err.value) == (
        f"card set {path}: cannot save 5S (Is a directory); 3 of 54 cards are saved in it: "
        "free some disk space or fix the folder, then run the same command again to resume"
    )
    assert cs.cards == {uid_for(c): c for c in range(3)}
    assert path.read_bytes() == before and CardSet.load(path).cards == cs.cards
    assert sorted(p.name for p in tmp_path.iterdir()) == ["blue.cards", "blue.cards.tmp"]
