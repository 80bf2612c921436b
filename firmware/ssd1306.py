# The SSD1306 panel (the 0.96" 128x64 OLED of hardware/bom.csv): its power-up
# on I2C; the transfers and the pages that changed are oled.OLED's.
#
# Hardware: SSD1306 controller with its internal charge pump, 128x64 (or
# 128x32) monochrome, I2C at 0x3C (or 0x3D), wired per hardware/pinmap.toml
# (firmware/hwconfig.py: DISPLAY_KIND = "SSD1306"). The module resets itself
# at power-up (no reset line). SSD1306 datasheet rev 1.1, sections 9 and 10,
# and its application note's power-up sequence.
# Dependencies: oled.py.
from oled import OLED

# The power-up: display off, horizontal addressing (0x20 0x00), start line 0,
# column 127 is SEG0 (0xA1) and COM scan from COM[N-1] (0xC8), the usual
# module mounting: the panel shows the RAM as the framebuf drew it; offset 0,
# clock 0x80, pre-charge 0xF1, VCOMH 0x30, full contrast, RAM shown (0xA4),
# not inverted (0xA6), then the charge pump on (0x8D 0x14), which the panel's
# high voltage comes from, before the display on (0xAF). The multiplex ratio
# and COM pins (0xA8, 0xDA) follow the height (oled.OLED.geometry).
_INIT = b"\xae\x20\x00\x40\xa1\xc8\xd3\x00\xd5\x80\xd9\xf1\xdb\x30\x81\xff\xa4\xa6\x8d\x14"
_ON = b"\xaf"


class SSD1306(OLED):
    def init(self):
        """Power the panel up (again: after an I2C error it is set up anew);
        the next update() sends a whole frame."""
        self._sent = None
        self.commands(_INIT)
        self.geometry()
        self.commands(_ON)
