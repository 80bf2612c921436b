"""The SSD1306 model fed by the firmware's own driver (ssd1306.SSD1306), its RAM read back as text and as a PNG through the host's frame
decoder (monoframe); the PN532 models read by the firmware's pn532.py and
picohw.readers over the board model's machine.SPI."""

from __future__ import annotations

import sys

import pytest
from board_rig import BOARD, FIRMWARE, on_board
from tractor_table import png
from tractor_table.monoframe import OFF, ON, Frame


@pytest.fixture()
def models() -> object:
    for p in (str(BOARD), str(FIRMWARE)):
        if p not in sys.path:
            sys.path.insert(0, p)
    import ssd1306
    import ssd1306sim

    return ssd1306, ssd1306sim


class _Bus:
    """machine.I2C's writeto/writevto straight to one device (CPython)."""

    def __init__(self, dev: object) -> None:
        self.dev = dev

    def writeto(self, addr: int, buf: bytes) -> int:
        assert addr == 0x3C
        self.dev.write(bytes(buf))  # type: ignore[attr-defined]
        return len(buf)

    def writevto(self, addr: int, vec: tuple[bytes, ...]) -> int:
        return self.writeto(addr, b"".join(bytes(v) for v in vec))


def test_ssd1306_keeps_what_the_driver_sends(models: tuple[object, object]) -> None:
    driver, sim = models
    oled = sim.SSD1306Chip()  # type: ignore[attr-defined]
    drv = driver.SSD1306(_Bus(oled), 0x3C, 128, 64)  # type: ignore[attr-defined]
    drv.init()
    assert oled.display_on and oled.seg_remap and oled.com_reverse and oled.charge_pump
    assert oled.mode == 0 and oled.contrast == 0xFF and oled.mux == 63
    frame = bytes((i * 7) & 0xFF for i in range(1024))
    keys = [str(p) for p in range(8)]
    drv.update(frame, keys)  # the first frame after init: whole
    assert bytes(oled.ram) == frame
    assert oled.frames == 1 and oled.full_frames == 1
    assert bytes(oled.glass()) == frame  # A1/C8 and the charge pump: the RAM as drawn
    # a stray write between frames: the next window restarts at (0, 0)
    oled.write(b"\x40" + bytes(100))
    assert oled.frames == 1  # not a whole window
    # pages 2-3 and 6 changed keys, sent whole (the mask): those pages
    # alone, as two windows
    frame2 = bytearray(frame)
    for p in (2, 3, 6):
        frame2[p * 128 : (p + 1) * 128] = bytes(128)
        keys[p] = "changed"
    sent = oled.data_bytes
    drv.update(bytes(frame2), keys, (1 << 2) | (1 << 3) | (1 << 6))
    assert oled.data_bytes - sent == 3 * 128 and oled.frames == 3 and oled.full_frames == 1
    assert bytes(oled.ram[128:]) == bytes(frame2[128:])  # page 0 holds the stray bytes
    # characters 1-3 of page 4's line changed: their 24 columns alone
    keys[4] = "4abc"
    frame2[4 * 128 + 8 : 4 * 128 + 32] = bytes(range(24))
    sent = oled.data_bytes
    drv.update(bytes(frame2), keys)
    assert oled.data_bytes - sent == 24 and oled.frames == 4
    assert bytes(oled.ram[128:]) == bytes(frame2[128:])
    # nothing changed: nothing sent
    sent = oled.data_bytes
    drv.update(bytes(frame2), keys)
    assert oled.data_bytes == sent
    # a set-up again (after an I2C error): the next frame is whole
    drv.init()
    drv.update(bytes(1024), keys)
    assert bytes(oled.ram) == bytes(1024) and oled.full_frames == 2


def test_ssd1306_page_mode_and_display_off(models: tuple[object, object]) -> None:
    _, sim = models
    oled = sim.SSD1306Chip()  # type: ignore[attr-defined]
    # page addressing (the reset default): page 2, column 0x15, two bytes
    oled.write(b"\x00\xb2\x05\x11")
    oled.write(b"\x40\xff\x01")
    assert oled.ram[2 * 128 + 0x15] == 0xFF and oled.ram[2 * 128 + 0x16] == 0x01
    assert oled.frames == 0  # page mode never completes a window
    assert oled.pixel(0, 0) == 0  # the display is off after reset: dark
    oled.write(b"\x80\xaf")
    assert oled.display_on


def test_the_frame_decoder_and_its_png() -> None:
    ram = bytearray(1024)
    ram[0] = 0x01  # pixel (0, 0)
    ram[128 + 5] = 0x80  # pixel (5, 15)
    f = Frame(ram)
    assert f.pixel(0, 0) and f.pixel(5, 15) and not f.pixel(1, 0) and f.lit() == 2
    im = png.decode(f.png(scale=2, border=0))
    assert (im.width, im.height) == (256, 128)
    assert im.pixel(0, 0) == im.pixel(1, 1) == ON and im.pixel(2, 0) == OFF
    assert im.pixel(10, 30) == ON and im.pixel(10, 28) == OFF  # (5, 15) at 2x
    art = f.half_blocks()
    assert len(art) == 32 and art[0][0] == "▀"
    with pytest.raises(ValueError, match="1024 bytes, not 10"):
        Frame(bytes(10))
    with pytest.raises(IndexError, match="outside"):
        f.pixel(128, 0)


def test_display_text_read_back_from_the_ram() -> None:
    out = on_board("""
    import display, framebuf, binascii
    m = display.DisplayModel()
    m.fb.fill(0)
    m.fb.text("H1 2/2 NT", 0, 0, 1)
    m.fb.fill_rect(0, 56, 128, 8, 1)
    m.fb.text("err: bad", 0, 56, 0)
    from machine import I2C, Pin
    import ssd1306
    d = ssd1306.SSD1306(I2C(0, sda=Pin(16), scl=Pin(17)), 0x3C, 128, 64)
    d.init()
    t = time.ticks_us()
    d.update(m.buf, m.lines)
    print("us", time.ticks_diff(time.ticks_us(), t))
    print("font", binascii.hexlify(picoboot.font_table()).decode())
    print("ram", binascii.hexlify(board.oled.ram).decode())
    """)
    font = bytes.fromhex(out.split("font ")[1].split()[0])
    ram = bytes.fromhex(out.split("ram ")[1].split()[0])
    lines = Frame(ram).text_lines(font)
    assert lines[0] == "H1 2/2 NT"
    assert lines[7] == "err: bad"  # inverse video reads too
    assert lines[1:7] == [""] * 6
    # 1,025 bytes and the window (7 bytes, one transaction) at 400 kHz: about 24 ms on the bus
    us = int(out.split("us ")[1].split()[0])
    assert 23_000 < us < 30_000


def test_pn532_over_machine_spi() -> None:
    out = on_board("""
    import picohw, pn532, chip
    board.clock.factor = 0
    readers = picohw.readers(machine)
    for r in readers:
        r.hard_reset()
        print("setup", r.setup(), r.firmware_version(), bytes(r.version))
    board.chips[2].place(chip.Tag(b"\\x04\\x54\\x54\\x00\\x07\\x5a\\xa5"))
    found = []
    for r in readers:
        found.append(r.poll())
        r.field_off()  # as the scanner does: one RF field on at a time
    print("poll", found)
    r = readers[2]
    print("uid", bytes(r.uid[: r.uid_len]))
    print("fields", board.max_fields_on, "collisions", board.spibus.collisions)
    for r in readers:
        r.poll()  # no field_off: every field stays on
    print("fields_left_on", board.max_fields_on)
    # the wrong SPI mode: the chip clocks in shifted bits and never answers
    from machine import SPI, Pin
    bad = SPI(0, baudrate=1000000, polarity=1, phase=1)
    rd = pn532.PN532(bad, Pin(3, Pin.OUT, value=1), Pin(11, Pin.OUT, value=1))
    rd.hard_reset()
    print("badmode", rd.setup(), board.spibus.mode_errors > 0)
    """)
    assert out.count("setup 0 0 b'2\\x01\\x06\\x07'") == 4
    assert "poll [0, 0, 1, 0]" in out
    assert "uid b'\\x04TT\\x00\\x07Z\\xa5'" in out
    assert "fields 1 collisions 0" in out
    assert "fields_left_on 4" in out
    assert "badmode -1 True" in out or "badmode -2 True" in out
