# runs-under: micropython heapsize=64K
# The panels' drivers (firmware/ssd1306.py, firmware/ssd1309.py): the bytes
# each sends on the I2C bus for its power-up, its reset and the frame's pages
# that changed (docs/display.md, Panels). The board model's panel models
# read the same bytes in tests/board (test_ssd1306_pn532.py, test_panels.py).
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
    # a line changed: its page alone
    bus.writes = []
    lines[5] = "F"
    frame[5 * 128] = 0x55
    oled.update(frame, lines)
    assert bus.writes[0] == (0x3C, b"\x00\x21\x00\x7f\x22\x05\x05")
    assert bus.writes[1] == (0x3C, b"\x40" + bytes(frame[640:768]))
    assert len(bus.writes) == 2


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
                frame[p * 128 + len(lines[p])] = p + 1
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
    # windows: whole; pages 2-3 and 6; nothing; 0 and 7; 1-6 in one
    windows = [w[1][5:] for w in writes[0] if w[1][:2] == b"\x00\x21"]
    assert windows == [b"\x00\x07", b"\x02\x03", b"\x06\x06", b"\x00\x00", b"\x07\x07", b"\x01\x06"]


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
