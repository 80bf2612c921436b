# runs-under: micropython heapsize=112K
# (112K with display.py counting the lines it cuts (issue 22), compiled from
# source here; 108K with the layered table core: tablerestore.py, compiled from source at
# the restore, checks the kitty turned up itself (it was tablereveal's); 104K
# before, 112K before the heap work: the firmware's own budget, from .mpy
# files, is checked by test_virtual_table.)
# The display (the panel drivers' bytes on the I2C bus, the display model's lines and
# pixels) and flash persistence (atomic save, load, damaged files).
import os
import sys

import display as D
import events as E
import persist
import table as T
from tablescript import deal_to_play, make, play_trick


class FakeI2C:
    """Records every I2C transaction as (address, bytes)."""

    def __init__(self):
        self.writes = []

    def writeto(self, addr, buf):
        self.writes.append((addr, bytes(buf)))

    def writevto(self, addr, bufs):
        data = b""
        for b in bufs:
            data += bytes(b)
        self.writes.append((addr, data))


def _drop(*names):
    # the drivers' modules out of the heap again: the Pico loads one of them
    # (picoboard.py), and this file's heap (runs-under) is the table's
    for n in names:
        sys.modules.pop(n, None)


def test_ssd1306_init_and_frame_bytes():
    import ssd1306

    bus = FakeI2C()
    oled = ssd1306.SSD1306(bus, 0x3C, 128, 64)
    oled.init()
    # the power-up as command transactions: control byte 0x00, then commands
    cmds = b""
    for addr, data in bus.writes:
        assert addr == 0x3C and data[0] == 0x00
        cmds += data[1:]
    assert cmds[0] == 0xAE and cmds[-1] == 0xAF  # display off first, on last
    charge = cmds.index(b"\x8d")
    assert cmds[charge + 1] == 0x14 and charge < len(cmds) - 1  # the charge pump, before display on
    assert b"\xa8\x3f\xda\x12" in cmds  # multiplex 64 rows, alternative COM pins (the geometry)
    assert b"\x20\x00" in cmds  # horizontal addressing: a window wraps page to page
    bus.writes = []
    frame = bytearray(1024)
    frame[0] = 0x81
    frame[1023] = 0x7E
    lines = ["a", "b", "c", "d", "e", "f", "g", "h"]
    oled.update(frame, lines)
    # the first frame is whole: the window (columns 0-127, pages 0-7), then one data transaction
    assert bus.writes[0] == (0x3C, b"\x00\x21\x00\x7f\x22\x00\x07")
    addr, data = bus.writes[1]
    assert addr == 0x3C and len(data) == 1025
    assert data[0] == 0x40 and data[1] == 0x81 and data[1024] == 0x7E
    assert len(bus.writes) == 2
    # a line changed: its page alone
    bus.writes = []
    lines[5] = "F"
    frame[5 * 128] = 0x55
    oled.update(frame, lines)
    assert bus.writes[0] == (0x3C, b"\x00\x21\x00\x7f\x22\x05\x05")
    assert bus.writes[1] == (0x3C, b"\x40" + bytes(frame[640:768]))
    assert len(bus.writes) == 2
    _drop("ssd1306", "oled")


def test_ssd1309_resets_and_has_no_charge_pump():
    import ssd1309

    class Pin:
        def __init__(self):
            self.levels = []

        def value(self, v):
            self.levels.append(v)

    bus = FakeI2C()
    rst = Pin()
    oled = ssd1309.SSD1309(bus, 0x3C, 128, 64, rst)
    oled.init()
    assert rst.levels == [0, 1]  # RES# low, then high, before any command
    cmds = b"".join(data[1:] for _, data in bus.writes)
    assert 0x8D not in cmds  # no charge pump on the SSD1309
    assert cmds[:3] == b"\xae\xfd\x12" and cmds[-1] == 0xAF  # off, unlocked, ..., on
    assert b"\xdb\x34" in cmds and b"\xd9\xf1" in cmds  # its VCOMH and pre-charge
    # without a reset line (an RC reset on the module): no pin to drive
    bus.writes = []
    ssd1309.SSD1309(bus, 0x3C, 128, 64).init()
    assert b"".join(data[1:] for _, data in bus.writes) == cmds
    _drop("ssd1309", "oled")


def test_card_names():
    assert D.card_name(12) == "AS"
    assert D.card_name(13) == "2H"
    assert D.card_name(54 + 21) == "TH"
    assert D.card_name(52) == "SJ" and D.card_name(107) == "BJ"
    assert D.cards_text([12, 25, 38, 51], 8) == "ASAHADAC"
    assert D.cards_text([12, 25, 38, 51, 52], 8) == "ASAHADA+"


def test_model_lines_follow_the_table():
    t, r = make()
    m = D.DisplayModel()
    lines = m.text_lines(t)
    assert lines[0] == "H1 2/2 ?"
    assert lines[2] == "draw: no bid"
    deal_to_play(t)
    lines = m.text_lines(t)
    assert lines[0] == "H1 2/2 H"
    assert lines[1] == "dealer S1 pts0"
    assert lines[2] == "trick1 S1 plays"
    assert lines[4] == ">S1 "
    t.tap(1, 12, 0)
    t.tap(1, 11, 0)
    assert m.text_lines(t)[4] == ">S1 .."  # two cards tapped, not yet played
    t.button(1, E.BTN_OK, 0)
    lines = m.text_lines(t)
    assert lines[4] == " S1 ASKS" and lines[5] == ">S2 "
    for line in lines:
        assert len(line) <= D.COLS


def test_render_draws_text_and_inverts_the_message():
    t, r = make()
    m = D.DisplayModel()
    buf = m.render(t)
    assert len(buf) == 1024
    if not D.HAVE_FRAMEBUF:
        assert m.lines[0] == "H1 2/2 ?"  # CPython: the lines only; MicroPython checks pixels
        return
    assert any(buf[:128])  # line 0 has text
    assert not any(buf[896:])  # no message: the last page is dark
    t.tap(2, 7, 0)
    t.button(2, E.BTN_OK, 0)  # "S2 not a bid"
    buf = m.render(t)
    assert m.lines[7] == "S2 not a bid"
    # inverse video: most of the last page is lit
    lit = 0
    for b in buf[896:]:
        if b:
            lit += 1
    assert lit > 100


def _tmpdir(name):
    base = "/tmp/tt_" + name + "_" + str(id(object()) & 0xFFFFFF)
    try:
        os.mkdir(base)
    except OSError:
        pass
    return base


def _cleanup(base):
    for n in os.listdir(base):
        os.remove(base + "/" + n)
    os.rmdir(base)


def test_store_saves_atomically_and_loads():
    base = _tmpdir("store")
    try:
        s = persist.Store(base + "/table.json")
        assert s.load() is None and s.last_error == ""
        t, r = make()
        deal_to_play(t)
        play_trick(t, [[0], [1], [2], [4]])
        snap = t.snapshot()
        s.save(snap)
        assert sorted(os.listdir(base)) == ["table.json"]  # the .new file was renamed
        assert s.load() == snap
        # the next save replaces it whole
        play_trick(t, [[5], [6], [7], [9]])
        s.save(t.snapshot())
        back = s.load()
        assert back == t.snapshot() and back != snap
        t2, r2 = make()
        t2.restore(back)
        assert t2.score == t.score and t2.turn == t.turn
    finally:
        _cleanup(base)


def test_store_ignores_damaged_files_and_falls_back():
    base = _tmpdir("damaged")
    try:
        s = persist.Store(base + "/table.json")
        t, r = make()
        s.save(t.snapshot())
        good = s.load()
        f = open(base + "/table.json")
        text = f.read()
        f.close()
        # a torn write: the file cut short (its trailer with the crc is missing)
        f = open(base + "/table.json", "w")
        f.write(text[: len(text) // 2])
        f.close()
        assert s.load() is None
        assert "cut short" in s.last_error
        # a damaged body under an intact trailer: the crc catches it
        i = text.index("1")
        f = open(base + "/table.json", "w")
        f.write(text[:i] + "7" + text[i + 1 :])
        f.close()
        assert s.load() is None
        assert "checksum" in s.last_error
        # not a snapshot file at all
        f = open(base + "/table.json", "w")
        f.write("hello")
        f.close()
        assert s.load() is None and "not a table snapshot" in s.last_error
        # power lost between removing the old file and the rename: .new is used
        os.remove(base + "/table.json")
        f = open(base + "/table.json.new", "w")
        f.write(text)
        f.close()
        assert s.load() == good
        s.clear()
        assert os.listdir(base) == []
    finally:
        _cleanup(base)


def test_store_prefers_a_whole_newer_new_file():
    base = _tmpdir("newer")
    try:
        s = persist.Store(base + "/table.json")
        t, r = make()
        deal_to_play(t)
        s.save(t.snapshot())
        old = s.load()
        play_trick(t, [[0], [1], [2], [4]])
        newer = t.snapshot()
        # the power went after .new was closed, before the rename
        s2 = persist.Store(base + "/other.json")
        s2.save(newer)
        os.rename(base + "/other.json", base + "/table.json.new")
        assert s.load() == newer and newer[13] > old[13]
        # an older .new (a leftover) loses to table.json
        os.remove(base + "/table.json.new")
        s.save(newer)
        s2.save(old)
        os.rename(base + "/other.json", base + "/table.json.new")
        assert s.load() == newer
        # a torn .new is ignored
        f = open(base + "/table.json.new", "w")
        f.write("[1, 2")
        f.close()
        assert s.load() == newer and s.last_error == ""
    finally:
        _cleanup(base)


def test_store_saves_in_steps():
    base = _tmpdir("steps")
    try:
        s = persist.Store(base + "/table.json")
        t, r = make()
        deal_to_play(t)
        play_trick(t, [[0], [1], [2], [4]])
        snap = t.snapshot()
        s.begin(snap)
        steps = 1
        while s.step():
            assert s.busy() and s.load() is None  # nothing renamed until the last step
            steps += 1
        assert not s.busy() and s.saves == 1 and steps > 10
        assert s.load() == snap
    finally:
        _cleanup(base)


def test_restore_takes_a_trick_in_progress():
    t, r = make()
    deal_to_play(t)
    t.tap(1, 12, 0)
    t.tap(1, 11, 0)
    t.button(1, E.BTN_OK, 0)
    t.tap(2, 0, 0)
    t.tap(2, 1, 0)  # seat 2 followed; seat 3 to play
    snap = t.snapshot()
    assert snap[20] == [1, 0, 0, None, [12, 11], [0, 1], None]  # the follow closed the throw
    t2, r2 = make()
    t2.restore(snap)
    assert t2.turn == 3 and t2.lead == [12, 11] and t2.leader == 1 and not t2.throw_open
    assert t2.seen[12] == 1 and t2.seen[1] == 1
    t2.tap(3, 2, 0)
    t2.tap(3, 3, 0)
    t2.tap(0, 4, 0)
    t2.tap(0, 5, 0)
    evs = [e[2] for e in t2.take_events()]
    assert [e[0] for e in evs] == [E.PLAY, E.PLAY, E.TRICK]
    bad = list(snap)
    bad[20] = [1, 0, 1, None, [12, 11], [12], None]  # a card twice
    try:
        t2.restore(bad)
    except T.TableError as exc:
        assert "twice" in str(exc)
    else:
        raise AssertionError("a card played twice was accepted")
