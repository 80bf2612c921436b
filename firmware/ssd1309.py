# The SSD1309 panel (the 2.42" 128x64 OLED, the option of hardware/bom.csv):
# its power-up on I2C; the transfers and the pages that changed are oled.OLED's.
#
# Hardware: SSD1309 controller, 128x64 monochrome, I2C at 0x3C (or 0x3D; the
# module's jumpers set from SPI to I2C), wired per hardware/pinmap.toml
# (firmware/hwconfig.py: DISPLAY_KIND = "SSD1309", DISPLAY_RESET its RES#
# line, or -1 for an RC power-on reset on the module). It takes the SSD1306's
# addressing and drawing commands, but: it has no charge pump (the panel's
# high voltage VCC comes from a boost converter on the module; 0x8D is no
# command of the SSD1309), its commands may be locked (0xFD 0x16; 0xFD 0x12
# unlocks), its pre-charge and VCOMH settings differ, and after power-up it
# needs RES# held low at least 3 us, then high, before the first command
# (the SSD1309 datasheet: its power-on sequence and command table).
# Dependencies: oled.py; a machine.Pin for RES# when wired, time.sleep_ms.
try:
    from time import sleep_ms  # type: ignore[attr-defined]  (CPython has none: below)
except ImportError:  # CPython (host tests): no sleep_ms

    def sleep_ms(ms):
        from time import sleep

        sleep(ms / 1000)


from oled import OLED

# The power-up: display off, commands unlocked (0xFD 0x12), clock 0xA0,
# horizontal addressing, start line 0, SEG remap and COM scan as on the
# SSD1306 (the panel shows the RAM as the framebuf drew it), offset 0,
# pre-charge 0xF1, VCOMH 0x34 (0.78 x VCC), full contrast, RAM shown, not
# inverted; the multiplex ratio and COM pins (oled.OLED.geometry); then the
# display on. No 0x8D: the module's boost converter gives VCC.
_INIT = b"\xae\xfd\x12\xd5\xa0\x20\x00\x40\xa1\xc8\xd3\x00\xd9\xf1\xdb\x34\x81\xff\xa4\xa6"
_ON = b"\xaf"


class SSD1309(OLED):
    def __init__(self, i2c, addr, width, height, reset=None):
        # reset: the Pin wired to RES# (an output), or None (RC power-on reset)
        super().__init__(i2c, addr, width, height)
        self.reset = reset

    def init(self):
        """Reset the controller through RES# (when wired: the set-up after an
        I2C error may follow a power dip), power the panel up; the next
        update() sends a whole frame."""
        self._sent = None
        r = self.reset
        if r is not None:
            r.value(0)
            sleep_ms(1)  # at least 3 us low
            r.value(1)
            sleep_ms(1)
        self.commands(_INIT)
        self.geometry()
        self.commands(_ON)
