# mypy: ignore-errors
# (MicroPython code: runs under the unix port in the board model and in
# `make screens`, and under CPython in the host's tests.)
# An SSD1309 128x64 OLED controller on I2C, at the byte level: the controller
# of the 2.42" modules (hardware/bom.csv's option), as its datasheet gives it
# where it differs from the SSD1306 (ssd1306sim.py, whose I2C framing, RAM,
# addressing modes and windows it shares):
#
# - no charge pump: 0x8D is no command of the SSD1309. The byte is taken as
#   an unknown one-byte command (counted in `unknown`), and the byte after it
#   as a command of its own (0x14 is "higher column start address" of page
#   addressing). The panel's high voltage comes from the module's boost
#   converter: the glass lights without any command for it.
# - command lock (0xFD, one parameter): 0x16 locks, 0x12 unlocks (after a
#   reset: unlocked). Locked, every command but 0xFD is ignored.
# - the reset: after power-up the controller's state is undefined until RES#
#   has been held low (at least 3 us) and released. With RES# wired to a pin
#   (`reset_wired`; the pin's pull-down holds RES# low from power-up until
#   the firmware drives it), the model ignores every byte written before
#   the first reset (counted in `ignored`) and its glass stays dark; while
#   RES# is low it does not acknowledge its address. Without (an RC power-on reset on
#   the module) it starts reset. A later pulse resets it again: RAM kept,
#   every setting back to its reset value.
import ssd1306sim


class SSD1309Chip(ssd1306sim.SSD1306Chip):
    def __init__(self, addr=0x3C, reset_wired=False):
        # RES# on a Pico pin: the pin's pull-down (the RP2040's pads at reset)
        # holds it low, the controller in reset, until the firmware drives it
        self.in_reset = reset_wired
        self.ready = not reset_wired  # reset since power-up
        self.locked = False
        self.unknown = 0  # command bytes the SSD1309 does not have (0x8D among them)
        self.ignored = 0  # bytes written before the first reset, or while locked
        self.resets = 0
        super().__init__(addr)
        self.params = dict(ssd1306sim._PARAMS)
        del self.params[0x8D]
        self.params[0xFD] = 1

    def set_reset(self, level):
        """RES# driven to ``level`` (machine.Pin): low holds the controller in
        reset; released, it starts from its reset state."""
        if not level:
            self.in_reset = True
            return
        if self.in_reset:
            self.in_reset = False
            self.ready = True
            self.locked = False
            self.resets += 1
            self._power_on()

    def ack(self):
        return self.present and not self.in_reset

    def _byte(self, b, is_data):
        if not self.ready:
            self.ignored += 1
            return
        super()._byte(b, is_data)

    def _command(self, b):
        if self._cmd < 0 and b not in self.params and not self._known(b):
            self.commands += 1
            self.unknown += 1
            return
        if self.locked and self._cmd < 0 and b != 0xFD:
            self.ignored += 1
            return
        if self._cmd >= 0:
            self._params.append(b)
            if len(self._params) >= self.params[self._cmd]:
                self._execute(self._cmd, self._params)
                self._cmd = -1
                self._params = []
            return
        self.commands += 1
        if b in self.params:
            self._cmd = b
            self._params = []
            return
        self._execute(b, ())

    @staticmethod
    def _known(b):
        # the one-byte commands of the SSD1309 (its command table)
        return (
            b <= 0x1F  # page addressing: lower / higher column start
            or 0x40 <= b <= 0x7F  # display start line
            or 0xB0 <= b <= 0xB7  # page start (page addressing)
            or b in (0xA0, 0xA1, 0xA4, 0xA5, 0xA6, 0xA7, 0xAE, 0xAF, 0xC0, 0xC8, 0x2E, 0x2F, 0xE3)
        )

    def _execute(self, c, p):
        if c == 0xFD:
            self.locked = bool(p[0] & 0x04)
            return
        super()._execute(c, p)

    def powered(self):
        return True  # VCC from the module's boost converter
