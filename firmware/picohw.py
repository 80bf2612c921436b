# The table's readers as wired in hwconfig.py (generated from hardware/pinmap.toml).
#
# Hardware: four PN532 boards on one SPI bus, one chip-select and one RSTPD_N
# each. Dependencies: hwconfig, pn532; the machine module (the rp2 port's, or a
# stand-in with the same classes in tests) is passed in.
#
# One place builds them, so that the table (main.py) and the self-test
# (selftest.py) drive exactly the same wiring. Also the maintenance start:
# seat 0's button held at power-up keeps main.py from starting the table.
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


def maintenance_start(machine=None):
    """True while seat 0's button is held at power-up: the table then does
    not start, Ctrl-C keeps working and the REPL is free (for deploy)."""
    if machine is None:
        import machine
    pin = machine.Pin(H.BUTTONS[0], machine.Pin.IN, machine.Pin.PULL_UP)
    return pin.value() == H.BUTTON_PRESSED


MAINTENANCE_FLAG = "/maintenance"


def maintenance_flag(take=False, set_it=False):
    """The flag file that makes the next boot a maintenance start (the
    watchdog cannot be stopped, so a maintenance stop is a reset into it):
    set_it writes it; take returns whether it was there and removes it."""
    import os

    if set_it:
        with open(MAINTENANCE_FLAG, "w") as f:
            f.write("maintenance\n")
        return True
    try:
        os.stat(MAINTENANCE_FLAG)
    except OSError:
        return False
    if take:
        os.remove(MAINTENANCE_FLAG)
    return True
