# The SSD1306 panel (the 0.96" 128x64 OLED of hardware/bom.csv): its driver,
# which owns the panel's power-up and every transfer to it, and sends only
# the pages of a frame that changed (update). docs/display.md, "Panels".
#
# Hardware: SSD1306 controller with its internal charge pump, 128x64 (or
# 128x32) monochrome, I2C at 0x3C (or 0x3D), wired per hardware/pinmap.toml
# (firmware/hwconfig.py: DISPLAY_KIND = "SSD1306"); the module resets itself
# at power-up (no reset line). SSD1306 datasheet rev 1.1: 8.1.5 (I2C: a
# control byte, 0x00 the rest are commands, 0x40 the rest are display RAM
# data), 9 and 10 (commands), and its application note's power-up sequence.
# The frame is MONO_VLSB as display.DisplayModel draws it: page p (rows 8p
# to 8p+7) is `width` bytes from p * width, a byte per column, bit k row 8p+k.
# Dependencies: none (the bus is passed in: a machine.I2C, or any object
# with writeto/writevto). ssd1309.py is the SSD1309's driver: the same
# addressing (so the same transfers), another power-up.
from display import send as _send  # a frame's changes sent (one copy for both drivers)


# The power-up: display off, horizontal addressing (0x20 0x00: a window
# wraps each page's last column to the next page), start line 0, column 127
# is SEG0 (0xA1) and COM scan from COM[N-1] (0xC8), the usual module
# mounting: the panel shows the RAM as the framebuf drew it; offset 0, clock
# 0x80, pre-charge 0xF1, VCOMH 0x30, full contrast, RAM shown (0xA4), not
# inverted (0xA6), the charge pump on (0x8D 0x14), which the panel's high
# voltage comes from; then the multiplex ratio and COM pins of the height
# (0xA8, 0xDA: init()) and the display on (0xAF).
_INIT = b"\x00\xae\x20\x00\x40\xa1\xc8\xd3\x00\xd5\x80\xd9\xf1\xdb\x30\x81\xff\xa4\xa6\x8d\x14"


class SSD1306:
    """A panel of ``width`` x ``height`` pixels at ``addr`` on the bus ``i2c``."""

    # the readers on core 1 draw on the panel too (readcore.mark): a lock
    # then, taken by each core for what it sends (PicoBoard.show)
    lock = None

    def __init__(self, i2c, addr, width, height):
        self.i2c = i2c
        self.addr = addr
        self.width = width
        self.pages = height // 8
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
        """Power the panel up (again, after an I2C error); the next update()
        sends a whole frame."""
        self._sent = None
        h = self.pages * 8
        w = self.i2c.writeto
        w(self.addr, _INIT)
        # multiplex ratio (rows - 1), COM pins (alternative for 64 rows, sequential for 32), display on
        w(self.addr, bytes((0, 0xA8, h - 1, 0xDA, 0x12 if h > 32 else 0x02, 0xAF)))

    def update(self, buf, keys, whole=0x80):
        """Send what changed of the frame ``buf`` since the last frame.
        ``keys[p]`` is page p's text line (display.DisplayModel: a character
        of the 8x8 font every 8 columns, blank past the text): only the
        columns of the characters that differ are sent (a card seen once adds
        5 characters to a seat's line: 40 bytes, about 1 ms of I2C at 400
        kHz, not the page's 128 bytes and 3.4 ms; issue 22). A page in the
        bit mask ``whole`` that changed is sent whole (by default the
        message line, 7: its inverse video spans the page). The whole frame (1 KB, about 24 ms)
        after init() and after a write that failed (it leaves the RAM
        unknown). Pages next to each other with the same columns share a
        window; between two pages the board's ``between()`` (PicoBoard: the
        readers served, issue 22)."""
        _send(self, buf, keys, whole)
