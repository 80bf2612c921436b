# runs-under: micropython heapsize=128K
# The panels' drivers (firmware/ssd1306.py, firmware/ssd1309.py): the bytes
# each sends on the I2C bus for its power-up, its reset and the frame's pages
# that changed (docs/display.md, Panels). The board model's panel models
# read the same bytes in tests/board (test_ssd1306_pn532.py, test_panels.py).
# (128K: the drivers send through display.send, and display, compiled from
# source here with the table base it imports, is in this heap; on the Pico
# display is resident whatever the driver)
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
    between = []
    oled.between = lambda: between.append(len(bus.writes))
    oled.update(frame, lines)
    # the first frame is whole: the window (columns 0-127, pages 0-7), then a
    # data transaction a page (the RAM's pointer runs on through the window),
    # the board's between() between two pages (the readers served: issue 22)
    assert bus.writes[0] == (0x3C, b"\x00\x21\x00\x7f\x22\x00\x07")
    assert len(bus.writes) == 9
    assert all(a == 0x3C and len(d) == 129 and d[0] == 0x40 for a, d in bus.writes[1:])
    assert b"".join(d[1:] for a, d in bus.writes[1:]) == bytes(frame)
    assert between == [2, 3, 4, 5, 6, 7, 8]  # after each page but the last, none before the first
    oled.between = None
    # a line changed: its page alone, the columns of the character that
    # differs (the keys are the pages' text lines, a character every 8 columns)
    bus.writes = []
    lines[5] = "F"
    frame[5 * 128] = 0x55
    oled.update(frame, lines)
    assert bus.writes[0] == (0x3C, b"\x00\x21\x00\x07\x22\x05\x05")
    assert bus.writes[1] == (0x3C, b"\x40" + bytes(frame[640:648]))
    assert len(bus.writes) == 2
    # characters added after the text: their columns only; a page in the
    # mask ``whole`` goes whole (by default the message line, 7)
    bus.writes = []
    lines[3] = "d (AS)"
    lines[7] = "msg"
    oled.update(frame, lines)
    assert bus.writes[0] == (0x3C, b"\x00\x21\x10\x2f\x22\x03\x03")  # the space looks alike
    assert bus.writes[1] == (0x3C, b"\x40" + bytes(frame[3 * 128 + 16 : 3 * 128 + 48]))
    assert bus.writes[2] == (0x3C, b"\x00\x21\x00\x7f\x22\x07\x07")
    assert bus.writes[3] == (0x3C, b"\x40" + bytes(frame[7 * 128 :]))
    assert len(bus.writes) == 4
    # characters taken off the end: their columns too (blank now); a space
    # where there was none is no change
    bus.writes = []
    lines[3] = "d "
    oled.update(frame, lines)
    assert bus.writes[0] == (0x3C, b"\x00\x21\x10\x2f\x22\x03\x03")
    assert len(bus.writes) == 2
    bus.writes = []
    lines[3] = "d"
    oled.update(frame, lines)
    assert bus.writes == []


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


def test_both_panels_send_the_pages_that_changed_alike():
    # the SSD1306 and the SSD1309 address their RAM alike: their drivers'
    # update() (the same code, in a module each) must send the same bytes
    import ssd1306
    import ssd1309

    writes = []
    for oled in (ssd1306.SSD1306(FakeI2C(), 0x3C, 128, 64), ssd1309.SSD1309(FakeI2C(), 0x3C, 128, 64)):
        frame = bytearray(1024)
        lines = [""] * 8
        oled.init()
        oled.i2c.writes = []
        oled.update(frame, lines)  # whole
        for changed in ((2, 3, 6), (), (0, 7), (1, 2, 3, 4, 5, 6)):
            for p in changed:
                lines[p] += "x"
                frame[p * 128 + 8 * len(lines[p]) - 4] = p + 1
            oled.update(frame, lines)
        writes.append(list(oled.i2c.writes))
        # a failed write: the RAM is unknown, the next frame whole
        def broken(addr, bufs):
            raise OSError(5)

        oled.i2c.writevto = broken
        lines[4] += "y"
        try:
            oled.update(frame, lines)
        except OSError:
            pass
        del oled.i2c.writevto
        oled.i2c.writes = []
        lines[1] += "z"
        oled.update(frame, lines)
        assert oled.i2c.writes[0][1] == b"\x00\x21\x00\x7f\x22\x00\x07" and len(oled.i2c.writes) == 9
    assert writes[0] == writes[1]
    # windows (columns, pages): whole; pages 2-3 and 6 (their first
    # character); nothing; 0 (first) and 7 (the message line: whole by
    # default); 1 (first), 2-3 (second), 4-5
    # (first), 6 (second): one window for pages next to each other with the
    # same columns
    windows = [w[1][2:4] + w[1][5:] for w in writes[0] if w[1][:2] == b"\x00\x21"]
    assert windows == [
        b"\x00\x7f\x00\x07", b"\x00\x07\x02\x03", b"\x00\x07\x06\x06", b"\x00\x07\x00\x00",
        b"\x00\x7f\x07\x07", b"\x00\x07\x01\x01", b"\x08\x0f\x02\x03", b"\x00\x07\x04\x05",
        b"\x08\x0f\x06\x06",
    ], windows


def test_the_renderer_draws_for_the_geometry_it_is_given():
    import display

    assert len(display.DisplayModel().buf) == 128 * 64 // 8
    # a taller panel: the same 8 lines at its top, a frame of its size
    assert len(display.DisplayModel(128, 128).buf) == 128 * 128 // 8
    for width, height in ((96, 64), (128, 32), (128, 60)):
        try:
            display.DisplayModel(width, height)
        except ValueError as exc:
            assert f"{width}x{height}" in str(exc) and "128x64" in str(exc)
        else:
            raise AssertionError(f"{width}x{height} accepted")


class GlyphBuffer:
    """framebuf's fill_rect and text for whole lines, where each character's
    8 columns hold its code (a space: blank), for CPython (no framebuf)."""

    def __init__(self, buf):
        self.buf = buf

    def fill_rect(self, x, y, w, h, c):
        base = (y // 8) * 128
        for i in range(x, x + w):
            self.buf[base + i] = 255 if c else 0

    def text(self, s, x, y, c):
        base = (y // 8) * 128
        for k, ch in enumerate(s.encode()):
            v = 0 if ch == 32 else ch
            for i in range(8):
                if x + 8 * k + i < 128:
                    self.buf[base + x + 8 * k + i] = v if c else 255 - v


class RamI2C:
    """A panel's RAM fed by the driver's transactions (horizontal addressing:
    the window's columns, then page after page), as the board model's."""

    def __init__(self):
        self.ram = bytearray(1024)
        self.data = 0
        self.win = (0, 127, 0, 7)
        self.at = (0, 0)

    def writeto(self, addr, b):
        if b[0] == 0 and b[1] == 0x21:
            self.win = (b[2], b[3], b[5], b[6])
            self.at = (b[2], b[5])

    def writevto(self, addr, bufs):
        assert len(bufs[0]) == 1 and bufs[0][0] == 0x40
        c0, c1, _, _ = self.win
        col, page = self.at
        for v in bufs[1:]:
            for x in v:
                self.ram[page * 128 + col] = x
                self.data += 1
                col += 1
                if col > c1:
                    col = c0
                    page += 1
        self.at = (col, page)


def test_the_panel_holds_the_frame_drawn_line_by_line():
    # the renderer's way (display.DisplayModel.render): a line's page cleared
    # and its text drawn with framebuf's 8x8 font, the message line (7) in
    # inverse video while it holds text; each update sends the columns of
    # the characters that changed (line 7 whole), and the panel's RAM is then
    # the frame, byte for byte
    import ssd1306

    buf = bytearray(1024)
    try:
        import framebuf

        fb = framebuf.FrameBuffer(buf, 128, 64, framebuf.MONO_VLSB)
    except ImportError:
        fb = GlyphBuffer(buf)  # CPython: a glyph of its own for each character
    bus = RamI2C()
    oled = ssd1306.SSD1306(bus, 0x3C, 128, 64)
    oled.init()
    lines = [""] * 8
    states = [
        ["H1 2/2 NT", "dealer S1 pts0", "trick1 S1 plays", " S0", ">S1", " S2", " S3", ""],
        [None, None, None, None, ">S1 (AS)", None, None, None],
        [None, None, "trick1 S2 plays", None, " S1 AS", ">S2", None, None],
        [None, None, None, None, None, ">S2 (??)", None, "S2 not in hand"],
        [None, None, None, None, None, ">S2", None, ""],
        [None, "dealer S1 pts10", "trick done", " S0 KH", " S1 AS", " S2 QS", " S3 2S", "S1 wins 10"],
        [None, None, "trick2 S1 plays", " S0", ">S1", " S2", " S3 won last", "S1 wins 10"],
    ]
    sent = []
    for st in states:
        for i in range(8):
            if st[i] is not None:
                lines[i] = st[i]
            inv = 1 if i == 7 and lines[7] else 0
            fb.fill_rect(0, i * 8, 128, 8, inv)
            fb.text(lines[i], 0, i * 8, 1 - inv)
        d = bus.data
        oled.update(buf, lines)
        sent.append(bus.data - d)
        assert bus.ram == buf, st
    # the whole frame first; a card seen once: its 5 characters (" (AS)",
    # the space alike: 4, 32 bytes); the line 7 message whole
    assert sent[0] == 1024 and sent[1] == 32, sent
    assert sent[3] == 32 + 128, sent
