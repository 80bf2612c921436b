# mypy: ignore-errors
# (MicroPython code: runs under the unix port in the board model, and under
# CPython in the host's tests.)
# An SSD1306 128x64 OLED controller on I2C, at the byte level (SSD1306
# datasheet rev 1.1, sections 8.1.5 (I2C), 9 and 10 (commands)).
#
# Every I2C write transaction starts with a control byte: Co (bit 7) set means
# one byte follows and then another control byte; D/C# (bit 6) says whether the
# bytes are commands (0) or display RAM data (1). Commands with parameters
# may have them in later transactions (the firmware sends each byte as its own
# "0x80, byte" transaction). The model keeps the 8 pages x 128 columns of
# display RAM, the addressing mode and windows, display on/off, contrast,
# inversion, segment remap and COM scan direction, and counts complete frames.
# Reading is not possible on the I2C interface: a read returns zeros.

# command -> number of parameter bytes
_PARAMS = {
    0x81: 1, 0x20: 1, 0x21: 2, 0x22: 2, 0xA8: 1, 0xD3: 1, 0xDA: 1, 0xD5: 1, 0xD9: 1,
    0xDB: 1, 0x8D: 1, 0x26: 6, 0x27: 6, 0x29: 5, 0x2A: 5, 0xA3: 2,
}


class SSD1306Chip:
    WIDTH = 128
    PAGES = 8

    def __init__(self, addr=0x3C):
        self.addr = addr
        self.present = True
        self.ram = bytearray(self.WIDTH * self.PAGES)
        self._power_on()
        self.frames = 0  # times the whole RAM window was written
        self.commands = 0
        self.data_bytes = 0
        self.on_frame = None  # called with the model after each complete frame
        self.on_window = None  # called when a column window is set (a frame begins)
        self.full_frames = 0  # of the frames, those of the whole RAM (1,024 bytes)

    def _power_on(self):
        self.display_on = False
        self.contrast = 0x7F
        self.inverse = False
        self.all_on = False
        self.seg_remap = False
        self.com_reverse = False
        self.mode = 2  # page addressing after reset
        self.col_start, self.col_end = 0, 127
        self.page_start, self.page_end = 0, 7
        self.col, self.page = 0, 0
        self.start_line = 0
        self.mux = 63
        self.charge_pump = False
        self._cmd = -1
        self._params = []
        self._written = 0

    # --- the I2C device interface (machine.I2C)
    def ack(self):
        return self.present

    def read(self, n):
        return bytes(n)

    def write(self, data):
        self.write_parts((data,))

    def write_parts(self, parts):
        """One write transaction made of the buffers ``parts`` in order (as
        I2C.writevto sends them): control bytes and what follows them."""
        state = 0  # 0: a control byte is next; 1: one byte, then a control byte; 2: bytes to the end
        dc = 0
        for data in parts:
            for b in data:
                if state == 0:
                    dc = b & 0x40
                    state = 1 if b & 0x80 else 2
                    continue
                self._byte(b, dc)
                if state == 1:
                    state = 0

    def _byte(self, b, is_data):
        if is_data:
            self._data(b)
        else:
            self._command(b)

    # --- commands
    def _command(self, b):
        if self._cmd >= 0:
            self._params.append(b)
            if len(self._params) >= _PARAMS[self._cmd]:
                self._execute(self._cmd, self._params)
                self._cmd = -1
                self._params = []
            return
        self.commands += 1
        if b in _PARAMS:
            self._cmd = b
            self._params = []
            return
        self._execute(b, ())

    def _execute(self, c, p):
        if c == 0xAE:
            self.display_on = False
        elif c == 0xAF:
            self.display_on = True
        elif c == 0x81:
            self.contrast = p[0]
        elif c in (0xA4, 0xA5):
            self.all_on = c == 0xA5
        elif c in (0xA6, 0xA7):
            self.inverse = c == 0xA7
        elif c in (0xA0, 0xA1):
            self.seg_remap = c == 0xA1
        elif c in (0xC0, 0xC8):
            self.com_reverse = c == 0xC8
        elif 0x40 <= c <= 0x7F:
            self.start_line = c & 0x3F
        elif c == 0x20:
            self.mode = p[0] & 3
        elif c == 0x21:
            self.col_start, self.col_end = p[0] & 0x7F, p[1] & 0x7F
            self.col = self.col_start
            self._written = 0
            if self.on_window is not None:
                self.on_window(self)
        elif c == 0x22:
            self.page_start, self.page_end = p[0] & 7, p[1] & 7
            self.page = self.page_start
            self._written = 0
        elif 0xB0 <= c <= 0xB7:
            self.page = c & 7
        elif c <= 0x0F:
            self.col = (self.col & 0xF0) | c
        elif c <= 0x1F:
            self.col = (self.col & 0x0F) | ((c & 0x0F) << 4)
        elif c == 0xA8:
            self.mux = p[0] & 0x3F
        elif c == 0x8D:
            self.charge_pump = bool(p[0] & 0x04)
        # others (timing, scrolling, COM pins, offset, VCOMH) are accepted as is

    # --- display RAM
    def _data(self, b):
        self.data_bytes += 1
        self.ram[self.page * self.WIDTH + self.col] = b
        if self.mode == 2:  # page addressing: the column wraps within the page
            self.col = (self.col + 1) & 0x7F
            return
        window = (self.col_end - self.col_start + 1) * (self.page_end - self.page_start + 1)
        self._written += 1
        if self.mode == 0:  # horizontal
            if self.col >= self.col_end:
                self.col = self.col_start
                self.page = self.page + 1 if self.page < self.page_end else self.page_start
            else:
                self.col += 1
        else:  # vertical
            if self.page >= self.page_end:
                self.page = self.page_start
                self.col = self.col + 1 if self.col < self.col_end else self.col_start
            else:
                self.page += 1
        if self._written >= window:
            self._written = 0
            self.frames += 1
            if window >= self.WIDTH * self.PAGES:
                self.full_frames += 1
            if self.on_frame is not None:
                self.on_frame(self)

    # --- what a person sees
    def powered(self):
        # the panel's VCC: the SSD1306 module has no other source than the charge pump
        return self.charge_pump

    def glass(self):
        """What the panel shows, as a MONO_VLSB frame (pixel by pixel): what
        a person sees, whatever the RAM holds."""
        if (self.display_on and self.powered() and self.seg_remap and self.com_reverse
                and not self.start_line and not self.inverse and not self.all_on):
            return bytearray(self.ram)  # shown as it is (the firmware's setting)
        out = bytearray(self.WIDTH * self.PAGES)
        for y in range(self.PAGES * 8):
            for x in range(self.WIDTH):
                if self.pixel(x, y):
                    out[(y >> 3) * self.WIDTH + x] |= 1 << (y & 7)
        return out

    def pixel(self, x, y):
        """The pixel at (x, y) of the panel as seen (1 lit), after segment
        remap and COM scan direction: with the firmware's A1/C8 setting (the
        usual module mounting) the panel shows the RAM as the framebuf drew it.
        Dark while the display is off, or without the panel's high voltage
        (the SSD1306 module makes it with the charge pump, 0x8D 0x14)."""
        if not self.display_on or not self.powered():
            return 0
        if self.all_on:
            return 1
        cx = x if self.seg_remap else 127 - x
        cy = y if self.com_reverse else 63 - y
        cy = (cy + self.start_line) & 63
        v = (self.ram[(cy >> 3) * self.WIDTH + cx] >> (cy & 7)) & 1
        return v ^ (1 if self.inverse else 0)
