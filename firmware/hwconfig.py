# Board configuration of the table: which Pico pin does what.
#
# GENERATED from hardware/pinmap.toml by `make hardware` -- do not edit;
# tests/hardware fails when this file and the pin map differ.
# Numbers are RP2040 GPIO numbers, as machine.Pin() takes them.

try:
    from micropython import const
except ImportError:  # CPython: the virtual table and the host import this file too

    def const(x):  # type: ignore[no-redef]
        return x


BOARD = "Raspberry Pi Pico"
PINMAP_DIGEST = "f107a032adf8"  # sha256 of hardware/pinmap.toml, first 12 hex digits

SEATS = const(4)

# PN532 readers on one SPI bus (mode 0; bits reversed in software for LSB-first)
SPI_ID = const(0)
SPI_SCK = const(6)
SPI_MOSI = const(7)
SPI_MISO = const(4)
SPI_BAUDRATE = const(4000000)
SPI_POLARITY = const(0)
SPI_PHASE = const(0)
READER0_CS = const(0)
READER1_CS = const(1)
READER2_CS = const(2)
READER3_CS = const(3)
READER0_RSTPD_N = const(8)
READER1_RSTPD_N = const(9)
READER2_RSTPD_N = const(10)
READER3_RSTPD_N = const(11)
# by seat: chip-select (idle high) and RSTPD_N (low = hard power-down / reset)
READER_CS = (0, 1, 2, 3)
READER_RSTPD_N = (8, 9, 10, 11)

# the display: an SSD1306 panel on I2C (its driver: firmware/ssd1306.py)
DISPLAY_KIND = "SSD1306"
I2C_ID = const(0)
I2C_SDA = const(16)
I2C_SCL = const(17)
I2C_FREQ = const(400000)
DISPLAY_ADDR = const(0x3c)
DISPLAY_WIDTH = const(128)
DISPLAY_HEIGHT = const(64)
DISPLAY_RESET = const(-1)  # RES#, -1: none (the module resets itself)

# seat buttons: switch to GND, internal pull-up, pressed reads 0
BUTTON0 = const(12)
BUTTON1 = const(13)
BUTTON2 = const(14)
BUTTON3 = const(15)
BUTTONS = (12, 13, 14, 15)
BUTTON_PRESSED = const(0)

# passive piezo buzzer on PWM; status LED, high = on
BUZZER = const(18)
LED = const(19)

# files the deploy command copies next to the firmware
CARDS_FILE = "cards.bin"
CONFIG_FILE = "table.cfg"
