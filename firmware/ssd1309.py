# The SSD1309 panel (the 2.42" 128x64 OLED, the option of hardware/bom.csv):
# its driver, which owns the panel's reset, power-up and every transfer to
# it, and sends only the pages of a frame that changed (update).
# docs/display.md, "Panels".
#
# Hardware: SSD1309 controller, 128x64 monochrome, I2C at 0x3C (or 0x3D; the
# module's jumpers set from SPI to I2C), wired per hardware/pinmap.toml
# (firmware/hwconfig.py: DISPLAY_KIND = "SSD1309", DISPLAY_RESET its RES#
# line, or -1 for an RC power-on reset on the module). It takes the SSD1306's
# I2C framing, addressing and drawing commands (so update() is ssd1306.py's,
# byte for byte: tests/table/test_display_persist.py), but: it has no charge
# pump (the panel's high voltage VCC comes from a boost converter on the
# module; 0x8D is no command of the SSD1309), its commands may be locked
# (0xFD 0x16; 0xFD 0x12 unlocks), its pre-charge and VCOMH settings differ,
# and after power-up it needs RES# held low at least 3 us, then high, before
# the first command (the SSD1309 datasheet: its power-on sequence and
# command table). Only the driver the pin map names is loaded (picoboard.py).
# Dependencies: a machine.Pin for RES# when wired, time.sleep_ms.
from display import send as _send  # a frame's changes sent (one copy for both drivers)

try:
    from time import sleep_ms  # type: ignore[attr-defined]  (CPython has none: below)
except ImportError:  # CPython (host tests): no sleep_ms

    def sleep_ms(ms):
        from time import sleep

        sleep(ms / 1000)


# The power-up: display off, commands unlocked (0xFD 0x12), clock 0xA0,
# horizontal addressing, start line 0, SEG remap and COM scan as on the
# SSD1306 (the panel shows the RAM as the framebuf drew it), offset 0,
# pre-charge 0xF1, VCOMH 0x34 (0.78 x VCC), full contrast, RAM shown, not
# inverted; then the multiplex ratio and COM pins of the height (init()) and
# the display on. No 0x8D: the module's boost converter gives VCC.
_INIT = b"\x00\xae\xfd\x12\xd5\xa0\x20\x00\x40\xa1\xc8\xd3\x00\xd9\xf1\xdb\x34\x81\xff\xa4\xa6"


class SSD1309:
    """A panel of ``width`` x ``height`` pixels at ``addr`` on the bus ``i2c``;
    ``reset`` the Pin wired to RES# (an output), or None (an RC reset)."""

    # the readers on core 1 draw on the panel too (readcore.mark): a lock
    # then, taken by each core for what it sends (PicoBoard.show)
    lock = None

    def __init__(self, i2c, addr, width, height, reset=None):
        self.i2c = i2c
        self.addr = addr
        self.width = width
        self.pages = height // 8
        self.reset = reset
        # the window: commands (0x00), columns 0 to width-1 (0x21), pages (0x22) set per transfer
        self._win = bytearray((0, 0x21, 0, width - 1, 0x22, 0, 0))
        # the key of each page as last sent (update); None: the RAM is unknown
        self._keys = [None] * self.pages
        self._sent = None
        # each page's first and last character to send (update; first > last: none)
        self._span = bytearray(2 * self.pages)
        # the data transaction's parts (the control byte 0x40, then a page's
        # columns) and the frame's memoryview: made once, not a tuple and a
        # view a page (issue 22)
        self._vec = [b"\x40", None]
        self._buf = None
        self._mv = None
        #: called between two pages of an update (None: nothing)
        self.between = None

    def init(self):
        """Reset the controller through RES# when wired (the set-up after an
        I2C error may follow a power dip), power the panel up; the next
        update() sends a whole frame."""
        self._sent = None
        r = self.reset
        if r is not None:
            r.value(0)
            sleep_ms(1)  # at least 3 us low
            r.value(1)
            sleep_ms(1)
        h = self.pages * 8
        w = self.i2c.writeto
        w(self.addr, _INIT)
        # multiplex ratio (rows - 1), COM pins (alternative for 64 rows, sequential for 32), display on
        w(self.addr, bytes((0, 0xA8, h - 1, 0xDA, 0x12 if h > 32 else 0x02, 0xAF)))

    def update(self, buf, keys, whole=0x80):
        """Send what changed of the frame ``buf`` since the last frame: as
        ssd1306.SSD1306.update (display.send: the same addressing, the same
        bytes; its docstring says which columns and pages are sent)."""
        _send(self, buf, keys, whole)
