# The table's readers as wired in hwconfig.py (generated from hardware/pinmap.toml).
#
# Hardware: four PN532 boards on one SPI bus, one chip-select and one RSTPD_N
# each. Dependencies: hwconfig, pn532; the machine module (the rp2 port's, or a
# stand-in with the same classes in tests) is passed in.
#
# One place builds them, so that the table (main.py) and the self-test
# (selftest.py) drive exactly the same wiring.
import hwconfig as H
import pn532


def readers(machine):
    """The four seats' PN532 drivers on SPI, every reader deselected first."""
    Pin = machine.Pin
    cs = [Pin(p, Pin.OUT, value=1) for p in H.READER_CS]
    rst = [Pin(p, Pin.OUT, value=1) for p in H.READER_RSTPD_N]
    spi = machine.SPI(
        H.SPI_ID,
        baudrate=H.SPI_BAUDRATE,
        polarity=H.SPI_POLARITY,
        phase=H.SPI_PHASE,
        sck=Pin(H.SPI_SCK),
        mosi=Pin(H.SPI_MOSI),
        miso=Pin(H.SPI_MISO),
    )
    return [pn532.PN532(spi, cs[s], rst[s]) for s in range(H.SEATS)]
