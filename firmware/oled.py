# The I2C side of a page-addressed monochrome OLED controller of the SSD1306
# family: commands, the column and page window, and the frame's pages that
# changed since the last one. A panel's own module (ssd1306.py, ssd1309.py:
# picoboard.py imports the one hwconfig.DISPLAY_KIND names, and only it) adds
# its power-up: the commands, a reset line. docs/display.md, "Panels".
#
# Hardware: an SSD1306 or SSD1309 on I2C. Every write starts with a control
# byte: 0x00 the rest are commands, 0x40 the rest are display RAM data
# (SSD1306 datasheet 8.1.5.2; SSD1309 datasheet 8.1.5, the same). The frame is
# MONO_VLSB as display.DisplayModel draws it: page p (rows 8p..8p+7) is
# `width` bytes from p * width, a byte per column, its bit k row 8p + k.
# Dependencies: none (the bus and the pins are passed in).

# the control byte before a command list, and the window's commands
_WINDOW = b"\x00\x21\x00\x7f\x22\x00\x07"
_DATA = b"\x40"


class OLED:
    """A panel of ``width`` x ``height`` pixels at ``addr`` on the bus ``i2c``
    (a machine.I2C, or any object with writeto/writevto)."""

    def __init__(self, i2c, addr, width, height):
        self.i2c = i2c
        self.addr = addr
        self.width = width
        self.pages = height // 8
        # the window command list: columns 0 to width-1, pages set per transfer
        w = self._win = bytearray(_WINDOW)
        w[3] = width - 1
        # the key of each page as last sent (update); None: the RAM is unknown
        self._keys = [None] * self.pages
        self._sent = None

    def commands(self, cmds):
        # one transaction: the command control byte, then the commands
        self.i2c.writevto(self.addr, (b"\x00", cmds))

    def geometry(self):
        # the multiplex ratio (rows - 1) and the COM pins: alternative for 64
        # rows, sequential for 32 (both controllers, the same commands)
        h = self.pages * 8
        self.commands(bytes((0xA8, h - 1, 0xDA, 0x12 if h > 32 else 0x02)))

    def update(self, buf, keys):
        """Send the pages of the frame ``buf`` whose key changed since the
        last frame: ``keys[p]`` is anything that changes whenever page p's
        pixels do (display.DisplayModel's text line p). A whole frame is 1 KB,
        about 24 ms of I2C at 400 kHz that the readers wait behind; a tap
        changes a line or two. The whole frame after init(), and after a
        write that failed (it leaves the RAM unknown)."""
        sent = self._sent
        n = self.pages
        self._sent = None
        if sent is None:
            self._send(buf, 0, n - 1)
            sent = self._keys
            for p in range(n):
                sent[p] = keys[p]
            self._sent = sent
            return
        p = 0
        while p < n:
            if keys[p] == sent[p]:
                p += 1
                continue
            q = p
            while q < n - 1 and keys[q + 1] != sent[q + 1]:
                q += 1
            self._send(buf, p, q)
            while p <= q:
                sent[p] = keys[p]
                p += 1
        self._sent = sent

    def _send(self, buf, p, q):
        # pages p to q: the window (horizontal addressing wraps each page's
        # last column to the next page), then their bytes in one transaction
        w = self._win
        w[5] = p
        w[6] = q
        self.i2c.writeto(self.addr, w)
        n = self.width
        self.i2c.writevto(self.addr, (_DATA, memoryview(buf)[p * n : (q + 1) * n]))
