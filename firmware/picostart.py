# The Pico board's set-up (picoboard.PicoBoard.__init__): the pins from
# hwconfig.py, the card map, the readers and their scanner, the display's
# panel on I2C, the buttons, the buzzer, the LED, the USB serial, flash, the
# watchdog. It runs once, at the start: picoboard loads this module for it and
# drops it after (docs/firmware.md, "Heap"). What it needs of picoboard comes
# as arguments (picoboard imports this module: no import cycle).
try:
    from micropython import const
except ImportError:

    def const(x):  # type: ignore[no-redef]
        return x


# the watchdog (machine.WDT, at most 8,388 ms on the RP2040): fed every turn
WDT_MS = const(8000)


def setup(b, machine, store_path, decoder, retry_ms, edges):
    """b: the PicoBoard; machine: the rp2 port's module, or (tests) a stand-in
    with the same classes; decoder: picoboard.ButtonDecoder; retry_ms: how
    long after an I2C error the display is set up again; edges: the size of
    the buttons' edge ring (picoboard._EDGES, a power of two)."""
    import time

    if machine is None:
        import machine
    I2C = machine.I2C
    PWM = machine.PWM
    Pin = machine.Pin

    import cardmap
    import hwconfig as H
    import persist
    import picohw
    import scanner
    import ttlink_io

    b._time = time
    b._pressed = H.BUTTON_PRESSED  # hwconfig is not kept (main.configured_app drops it)
    b._scanner_mod = scanner
    readers = picohw.readers(machine)
    b.cards = None
    b.problem = ""
    try:
        b.cards = cardmap.load(H.CARDS_FILE)
    except (OSError, cardmap.CardMapError) as exc:
        # without a card map every tag is "unknown": the display says why
        # the display says it in 16 columns, the USB serial says why
        print("no card map:", exc)
        b.problem = "no card map"
    b.decks = b.cards.decks if b.cards is not None else 2
    b.scanner = scanner.Scanner(readers, b.cards)  # in pairs (table.cfg: main.configured_app)
    # what the display shows beside the table core's state (main.App):
    # the card each seat's reader saw once, not counted yet (the
    # scanner's, -1 none), and the seats whose reader does not answer
    b.shown = b.scanner.shown
    b.readers_down = 0  # a bit per seat
    b.view_changed = False  # either changed since main.App looked
    b.tag_sink = None  # enrollmode: sees every scanner event first
    b.oled = None
    b.display_errors = 0  # I2C errors of the display
    b.display_inits = 0  # times it was set up again after one
    b._display_retry = 0  # ticks_ms of the next set-up, while it is down
    # the display's driver: the panel the pin map names, and only its module
    i2c = I2C(H.I2C_ID, sda=Pin(H.I2C_SDA), scl=Pin(H.I2C_SCL), freq=H.I2C_FREQ)
    if H.DISPLAY_KIND == "SSD1309":
        from ssd1309 import SSD1309

        rst = H.DISPLAY_RESET  # RES#, or -1: an RC power-on reset on the module
        b.panel = SSD1309(
            i2c, H.DISPLAY_ADDR, H.DISPLAY_WIDTH, H.DISPLAY_HEIGHT, Pin(rst, Pin.OUT, value=1) if rst >= 0 else None
        )
    else:
        from ssd1306 import SSD1306

        b.panel = SSD1306(i2c, H.DISPLAY_ADDR, H.DISPLAY_WIDTH, H.DISPLAY_HEIGHT)
    b.panel.between = b.serve_readers  # the readers served between a frame's pages
    try:
        b.panel.init()
        b.oled = b.panel
    except OSError:
        b.display_errors += 1
        b._display_retry = time.ticks_add(time.ticks_ms(), retry_ms)
        b.problem = b.problem or "no display (I2C)"
    b.buttons = [Pin(p, Pin.IN, Pin.PULL_UP) for p in H.BUTTONS]
    b.decoder = decoder(H.SEATS)
    # each button's edges, timestamped in its pin's interrupt (PicoBoard._edge)
    # and fed to the decoder at the main loop's next turn (presses): a ring of
    # `edges` (ticks_ms in _edge_t, seat | pressed << 2 in _edge_v); after
    # it, each seat's last edge kept (its ms, and 1 for a press), then (in
    # _edge_t) the edges written so far; _edge_r: those read
    from array import array

    n = H.SEATS
    b._edge_t = array("i", [0] * (edges + n + 1))
    b._edge_v = bytearray(edges + n)
    b._edge_r = 0
    for s in range(n):
        b._edge_t[edges + s] = -(1 << 29)
    handler = b._edge  # one bound method, made here: the interrupt allocates nothing
    for btn in b.buttons:
        btn.irq(handler=handler, trigger=Pin.IRQ_FALLING | Pin.IRQ_RISING, hard=True)
    b.pwm = PWM(Pin(H.BUZZER))
    b.pwm.duty_u16(0)
    b._tone_until = 0
    b.led = Pin(H.LED, Pin.OUT, value=0)
    b.port = ttlink_io.StdioPort()
    # littlefs: atomic at close; the snapshot of a firmware before the
    # directory of its own read until the first save (persist.Store's old)
    old = None
    if store_path.startswith("/save/"):
        old = "/table.json"
        # the directory made now, at boot, if it is not there (the first boot
        # of this firmware): made by the first save it had cost that save's
        # turn a new metadata pair (an erase and littlefs's work: 100-400 ms
        # of board time, a card laid then waiting for it)
        import os

        try:
            os.mkdir("/save")
        except OSError:
            pass  # there already
    b.store = persist.Store(store_path, in_place=True, old=old)
    b.rand = ttlink_io.random32
    # the table's identity (main.App sends it in the link's WELCOME)
    uid = getattr(machine, "unique_id", None)
    b.uid = bytes(uid()) if uid is not None else None
    b._machine = machine
    # the watchdog: it cannot be stopped (a maintenance stop is a reset)
    b.wdt = machine.WDT(timeout=WDT_MS)
