# mypy: ignore-errors
# (MicroPython code, run by the unix port: not part of the typed host package.)
# The rp2 port's ``machine`` module, modelled for the board model.
#
# On MICROPYPATH ahead of the unix port's built-in ``machine``, which it
# replaces. It models the API of MicroPython's rp2 port (v1.2x,
# ports/rp2/machine_*.c) with its quirks, and forwards the traffic to the
# board's device models (picoboot.py attaches the board with _attach()):
#
# - Pin: GPIO 0-29 (names "GPn", "LED"), modes IN/OUT/OPEN_DRAIN/ALT, pulls
#   PULL_UP/PULL_DOWN, value/on/off/high/low/toggle/irq. One object state per
#   GPIO, as on the rp2 (Pin(n) again keeps the mode). An input nobody drives
#   reads 0 unless a pull-up holds it high. irq() with no argument returns the
#   pin's irq object unchanged (one per GPIO, made at its first irq() call, a
#   heap object as on the rp2 port); its flags() are those of the last
#   interrupt (ports/rp2/machine_pin.c: gpio_irq sets irq->flags from the IO
#   bank's latched edges). While interrupts are off (_irq_hold/_irq_release:
#   the flash model's erases and programs, rp2_flash.c's critical sections)
#   the edges are latched, and at the end the handler runs once per pin with
#   every edge that came: rising and falling at once after a whole press.
# - SPI(0|1): the baud rate the RP2040's divider really gives, polarity,
#   phase, bits; firstbit=SPI.LSB refused (NotImplementedError "LSB") as the
#   rp2 port refuses it; sck/mosi/miso checked against the pins each bus can
#   use ("bad SCK pin"); write, read, readinto, write_readinto. Every byte is
#   charged to the virtual clock at the baud rate and goes to the device whose
#   chip select is low.
# - I2C(0|1): freq, scl/sda checked; writeto, writevto, readfrom,
#   readfrom_into, readfrom_mem(_into), writeto_mem, scan. An address no device
#   acknowledges raises OSError(EIO) (the hardware block's error), a
#   zero-length write (scan's probe) is bit-banged as on the rp2 port and a
#   NAK there is OSError(ENODEV). Bytes are charged at the bus frequency.
# - PWM, WDT (timeout at most 8,388 ms: ValueError above; expiry resets the
#   board), Timer (virtual, id -1), unique_id, freq, reset, soft_reset,
#   reset_cause (PWRON_RESET, then WDT_RESET after a reset: the rp2 port resets
#   through the watchdog), idle, lightsleep, disable_irq/enable_irq.
import micropython
import utime

PWRON_RESET = 1
WDT_RESET = 3

_board = None
_cause = PWRON_RESET
_freq = 125000000


class BoardReset(BaseException):
    """Raised by reset(), soft_reset() and an expired WDT; the board's boot
    loop (picoboot.main) catches it and boots again. Not an Exception: the
    firmware's ``except Exception`` must not swallow a reset."""

    def __init__(self, cause, why=""):
        super().__init__(why)
        self.cause = cause
        self.why = why


def _attach(board, cause=PWRON_RESET):
    global _board, _cause, _held
    _board = board
    _cause = cause
    _held = 0
    _gpio_reset()


def _enter(kind=0):
    b = _board
    if b is not None:
        b.clock.enter(kind)
        try:
            b.update()
        except BaseException:
            b.clock.leave()
            raise


def _leave():
    b = _board
    if b is not None:
        b.clock.leave()


# ------------------------------------------------------------------ Pin

_NPINS = 30
# per GPIO: [mode, pull, out level, irq handler, irq trigger, last level, hard,
# edges latched while interrupts are off, flags of the last interrupt, irq object]
_gpio = []
# interrupts off (depth): the RP2040 runs nothing, the IO bank latches the edges
_held = 0


def _gpio_reset():
    del _gpio[:]
    for _ in range(_NPINS):
        _gpio.append([-1, 0, 0, None, 0, 0, False, 0, 0, None])


def _irq_hold():
    """Interrupts off: rp2_flash.c's begin_critical_flash_section() around
    each erase and each program (XIP is off, the CPU waits for the flash)."""
    global _held
    _held += 1


def _irq_release(run=True):
    """Interrupts on again (end_critical_flash_section): each pin whose edges
    came meanwhile interrupts once, in GPIO order as gpio_irq() serves them,
    with all of them in its flags. run=False (the power went meanwhile): the
    latched edges are dropped."""
    global _held
    _held -= 1
    if _held > 0:
        return
    _held = 0
    for n in range(_NPINS):
        g = _gpio[n]
        f = g[7]
        if f:
            g[7] = 0
            if run and g[3] is not None:
                _irq_run(n, f)


_gpio_reset()


def _pin_id(p):
    if isinstance(p, Pin):
        return p._id
    if isinstance(p, str):
        if p == "LED":
            return 25
        if p.startswith("GP") and p[2:].isdigit():
            p = int(p[2:])
        else:
            raise ValueError("unknown named pin \"%s\"" % p)
    if not isinstance(p, int):
        raise TypeError("expecting a Pin or an int")
    if not 0 <= p < _NPINS:
        raise ValueError("invalid pin")
    return p


def _level(n):
    """What GPIO n reads now: driven by the Pico, by a device, or its pull."""
    g = _gpio[n]
    mode = g[0]
    if mode == Pin.OUT:
        return g[2]
    ext = _board.pin_in(n) if _board is not None else None
    if mode == Pin.OPEN_DRAIN and g[2] == 0:
        return 0
    if ext is not None:
        return ext
    if g[1] == Pin.PULL_UP:
        return 1
    return 0  # floating, or pulled down: an undriven input reads 0


def _edge(n):
    """A device changed what it drives on GPIO n: run the pin's irq handler."""
    g = _gpio[n]
    new = _level(n)
    old = g[5]
    g[5] = new
    if g[3] is None or new == old:
        return
    f = g[4] & (Pin.IRQ_FALLING if new == 0 else Pin.IRQ_RISING)
    if not f:
        return
    if _held:
        # interrupts off (a flash erase or program): the edge is latched and
        # taken when they are on again (_irq_release), with any other edge of
        # the pin that comes meanwhile: one interrupt for all of them
        g[7] |= f
        return
    _irq_run(n, f)


def _irq_run(n, f):
    """The pin's interrupt, with flags f (IRQ_FALLING, IRQ_RISING or both)."""
    g = _gpio[n]
    g[8] = f  # irq->flags: what pin.irq().flags() returns from now on
    h = g[3]
    if not g[6]:
        h(Pin(n))
        return
    # hard=True: the rp2 port runs the handler in the interrupt, the heap
    # locked (an allocation there is a MemoryError); at the board time the
    # edge is seen: the models' next entry after the person's change, or the
    # end of the flash erase or program during which it came (interrupts off)
    pin = Pin(n)
    c = _board.clock if _board is not None else None
    if c is not None:
        c.hard = True  # the models the handler calls unlock it meanwhile
    micropython.heap_lock()
    try:
        h(pin)
    finally:
        micropython.heap_unlock()
        if c is not None:
            c.hard = False


class _PinIRQ:
    def __init__(self, n):
        self._n = n

    @micropython.native  # no heap frame: called in a hard handler, the heap locked
    def flags(self):
        # the edges of the pin's last interrupt (machine_pin_irq_info)
        return _gpio[self._n][8]

    def trigger(self, t=None):
        g = _gpio[self._n]
        if t is not None:
            g[4] = t
            g[7] = 0
            g[8] = 0
        return g[4]


_UNSET = object()  # Pin.irq(): an argument not given


class Pin:
    IN = 0
    OUT = 1
    OPEN_DRAIN = 2
    ALT = 3
    PULL_UP = 1
    PULL_DOWN = 2
    IRQ_FALLING = 4
    IRQ_RISING = 8
    ALT_SPI = 1
    ALT_UART = 2
    ALT_I2C = 3
    ALT_PWM = 4
    ALT_SIO = 5
    ALT_PIO0 = 6
    ALT_PIO1 = 7
    ALT_GPCK = 8
    ALT_USB = 9

    def __new__(cls, id, *a, **k):
        # the rp2 port's static object for the GPIO (see _statics below)
        if isinstance(id, int) and 0 <= id < _NPINS and _PINS:
            return _PINS[id]
        if isinstance(id, Pin):
            return id
        return object.__new__(cls)

    def __init__(self, id, mode=-1, pull=-1, *, value=None, alt=-1):
        self._id = _pin_id(id)
        if mode != -1 or pull != -1 or value is not None:
            self.init(mode, pull, value=value, alt=alt)

    @micropython.native  # no heap frame: allocates nothing in the firmware's stretch
    def init(self, mode=-1, pull=-1, *, value=None, alt=-1):
        g = _gpio[self._id]
        if mode not in (-1, Pin.IN, Pin.OUT, Pin.OPEN_DRAIN, Pin.ALT):
            raise ValueError("invalid pin mode")
        if pull not in (-1, 0, Pin.PULL_UP, Pin.PULL_DOWN, None):
            raise ValueError("invalid pull")
        _enter()
        try:
            if value is not None:
                g[2] = 1 if value else 0
            if pull != -1:
                g[1] = pull or 0
            if mode != -1:
                g[0] = mode
            g[5] = _level(self._id)
            if _board is not None and g[0] in (Pin.OUT, Pin.OPEN_DRAIN):
                _board.pin_out(self._id, _level(self._id))
        finally:
            _leave()

    def __repr__(self):
        return "Pin(GPIO%d)" % self._id

    @micropython.native  # no heap frame: allocates nothing in the firmware's stretch
    def value(self, x=None):
        n = self._id
        g = _gpio[n]
        _enter(1)
        try:
            if x is None:
                if _board is not None and g[0] != Pin.OUT:
                    _board.pin_read(n)
                return _level(n)
            v = 1 if x else 0
            if v != g[2]:
                g[2] = v
                if _board is not None and g[0] in (Pin.OUT, Pin.OPEN_DRAIN):
                    _board.pin_out(n, _level(n))
            return None
        finally:
            _leave()

    def __call__(self, x=None):
        return self.value(x)

    def on(self):
        self.value(1)

    def off(self):
        self.value(0)

    high = on
    low = off

    def toggle(self):
        self.value(1 - _gpio[self._id][2])

    @micropython.native  # no heap frame: irq() is called in a hard handler, the heap locked
    def irq(self, handler=_UNSET, trigger=_UNSET, hard=_UNSET):
        # with any argument: set up (the others at their defaults, pending
        # edges cleared, as mp_hal_pin_interrupt); with none: the irq object
        # as it is (what a handler calls for its flags)
        g = _gpio[self._id]
        if handler is not _UNSET or trigger is not _UNSET or hard is not _UNSET:
            g[3] = None if handler is _UNSET else handler
            g[4] = 12 if trigger is _UNSET else trigger
            g[5] = _level(self._id)
            g[6] = False if hard is _UNSET else bool(hard)
            g[7] = 0
            g[8] = 0
        if g[9] is None:
            g[9] = _PinIRQ(self._id)  # a heap object, made once (machine_pin_get_irq)
        return g[9]


# ------------------------------------------------------------------ SPI

_CLK_PERI = 125000000


def _spi_baud(baud):
    # pico-sdk spi_set_baudrate(): an even prescale 2-254, then a post-divider
    # 1-256; the rate actually set (at or below the one asked for)
    if baud <= 0:
        raise ValueError("baudrate must be positive")
    prescale = 2
    while prescale <= 254:
        if _CLK_PERI < (prescale + 2) * 256 * baud:
            break
        prescale += 2
    if prescale > 254:
        prescale = 254
    postdiv = 256
    while postdiv > 1:
        if _CLK_PERI // (prescale * (postdiv - 1)) > baud:
            break
        postdiv -= 1
    return _CLK_PERI // (prescale * postdiv)


def _valid_spi_pin(bus, pin, low2):
    return (pin & 3) == low2 and ((pin & 8) >> 3) == bus


class SPI:
    LSB = 0
    MSB = 1
    _pins = ((18, 19, 16), (10, 11, 8))  # defaults: sck, mosi, miso (RPI_PICO)

    def __new__(cls, id, *a, **k):
        if isinstance(id, int) and 0 <= id <= 1 and _SPIS:
            return _SPIS[id]
        return object.__new__(cls)  # __init__ says what is wrong

    def __init__(self, id, baudrate=1000000, *, polarity=0, phase=0, bits=8, firstbit=1, sck=None, mosi=None, miso=None):
        if not isinstance(id, int):
            raise TypeError("can't convert %s to int" % type(id).__name__)
        if not 0 <= id <= 1:
            raise ValueError("SPI(%d) doesn't exist" % id)
        self._bus = id
        d = SPI._pins[id]
        self.sck, self.mosi, self.miso = d
        if sck is not None:
            s = _pin_id(sck)
            if not _valid_spi_pin(id, s, 2):
                raise ValueError("bad SCK pin")
            self.sck = s
        if mosi is not None:
            s = _pin_id(mosi)
            if not _valid_spi_pin(id, s, 3):
                raise ValueError("bad MOSI pin")
            self.mosi = s
        if miso is not None:
            s = _pin_id(miso)
            if not _valid_spi_pin(id, s, 0):
                raise ValueError("bad MISO pin")
            self.miso = s
        self.polarity = polarity
        self.phase = phase
        self.bits = bits
        self.firstbit = firstbit
        if firstbit == SPI.LSB:
            raise NotImplementedError("LSB")
        self.baudrate = _spi_baud(baudrate)
        self._frac = 0

    def __repr__(self):
        return "SPI(%u, baudrate=%u, polarity=%u, phase=%u, bits=%u, sck=%u, mosi=%u, miso=%u)" % (
            self._bus, self.baudrate, self.polarity, self.phase, self.bits, self.sck, self.mosi, self.miso)

    def init(self, baudrate=-1, *, polarity=-1, phase=-1, bits=-1, firstbit=-1):
        if baudrate != -1:
            self.baudrate = _spi_baud(baudrate)
        if polarity != -1:
            self.polarity = polarity
        if phase != -1:
            self.phase = phase
        if bits != -1:
            self.bits = bits
        if firstbit != -1:
            self.firstbit = firstbit
            if firstbit == SPI.LSB:
                raise NotImplementedError("LSB")

    def deinit(self):
        pass

    @micropython.native  # no heap frame: allocates nothing in the firmware's stretch
    def _xfer(self, src, dst, fill):
        # one byte at a time to the bus; the time of the whole transfer charged
        _enter(2)
        try:
            b = _board
            n = len(src) if src is not None else len(dst)
            # 8 bits a byte at the set rate, in whole microseconds (remainder kept)
            t = n * 8000000 + self._frac
            us = t // self.baudrate
            self._frac = t - us * self.baudrate
            if b is not None:
                b.clock.advance_us(us)
                bus = b.spi_bus(self._bus)
                bus.transfer(self, src, dst, fill)
            elif dst is not None:
                for i in range(n):
                    dst[i] = 0xFF
        finally:
            _leave()

    def write(self, buf):
        self._xfer(buf, None, 0)

    def read(self, nbytes, write=0):
        out = bytearray(nbytes)
        self._xfer(None, out, write & 0xFF)
        return bytes(out)

    def readinto(self, buf, write=0):
        self._xfer(None, buf, write & 0xFF)

    def write_readinto(self, write_buf, read_buf):
        if len(write_buf) != len(read_buf):
            raise ValueError("buffers must be the same length")
        self._xfer(write_buf, read_buf, 0)


# ------------------------------------------------------------------ I2C

_EIO = 5
_ENODEV = 19


class I2C:
    _pins = ((5, 4), (7, 6))  # defaults: scl, sda (RPI_PICO)

    def __new__(cls, id=0, *a, **k):
        if isinstance(id, int) and 0 <= id <= 1 and _I2CS:
            return _I2CS[id]
        return object.__new__(cls)  # __init__ says what is wrong

    def __init__(self, id=0, freq=400000, *, scl=None, sda=None, timeout=50000):
        if not 0 <= id <= 1:
            raise ValueError("I2C(%d) doesn't exist" % id)
        self._bus = id
        self.scl, self.sda = I2C._pins[id]
        if scl is not None:
            s = _pin_id(scl)
            if not ((s & 1) == 1 and ((s & 2) >> 1) == id):
                raise ValueError("bad SCL pin")
            self.scl = s
        if sda is not None:
            s = _pin_id(sda)
            if not ((s & 1) == 0 and ((s & 2) >> 1) == id):
                raise ValueError("bad SDA pin")
            self.sda = s
        if freq <= 0:
            raise ValueError("freq must be positive")
        self.freq = freq
        self.timeout = timeout
        self._frac = 0

    def __repr__(self):
        return "I2C(%u, freq=%u, scl=%u, sda=%u, timeout=%u)" % (self._bus, self.freq, self.scl, self.sda, self.timeout)

    def init(self, *, freq=400000):
        self.freq = freq

    def deinit(self):
        pass

    def _charge(self, nbytes):
        # START, address byte, data bytes (9 clocks each with the ACK), STOP
        t = (2 + 9 * (1 + nbytes)) * 1000000 + self._frac
        us = t // self.freq
        self._frac = t - us * self.freq
        _board.clock.advance_us(us)

    def _dev(self, addr):
        if _board is None:
            return None
        return _board.i2c_device(self._bus, addr)

    def _write(self, addr, data):
        # one write transaction; the number of bytes acknowledged
        dev = self._dev(addr)
        if len(data) == 0:
            # the rp2 port bit-bangs zero-length writes (its I2C block cannot
            # send one): about 2 bit times per clock at freq, and ENODEV on NAK
            _board.clock.advance_us(20 * (500000 // self.freq + 1))
            if dev is None or not dev.ack():
                raise OSError(_ENODEV)
            return 0
        self._charge(len(data))
        if dev is None or not dev.ack():
            raise OSError(_EIO)
        dev.write(data)
        return len(data)

    @micropython.native  # no heap frame: allocates nothing in the firmware's stretch
    def writeto(self, addr, buf, stop=True):
        _enter()
        try:
            return self._write(addr, bytes(buf))
        finally:
            _leave()

    @micropython.native  # no heap frame: allocates nothing in the firmware's stretch
    def writevto(self, addr, vector, stop=True):
        _enter()
        try:
            n = 0
            for v in vector:
                n += len(v)
            dev = self._dev(addr)
            if n == 0 or dev is None or not hasattr(dev, "write_parts"):
                return self._write(addr, b"".join(bytes(v) for v in vector))
            # one transaction of all the buffers, fed to the device as they
            # are (no copy: a display frame is 1 KB of the heap the firmware
            # shares with the models)
            self._charge(n)
            if not dev.ack():
                raise OSError(_EIO)
            dev.write_parts(vector)
            return n
        finally:
            _leave()

    @micropython.native  # no heap frame: allocates nothing in the firmware's stretch
    def readfrom_into(self, addr, buf, stop=True):
        _enter()
        try:
            dev = self._dev(addr)
            self._charge(len(buf))
            if dev is None or not dev.ack():
                raise OSError(_EIO)
            data = dev.read(len(buf))
            for i in range(len(buf)):
                buf[i] = data[i]
        finally:
            _leave()

    def readfrom(self, addr, nbytes, stop=True):
        out = bytearray(nbytes)
        self.readfrom_into(addr, out, stop)
        return bytes(out)

    def _memaddr(self, memaddr, addrsize):
        n = addrsize // 8
        return bytes((memaddr >> (8 * (n - 1 - i))) & 0xFF for i in range(n))

    def readfrom_mem_into(self, addr, memaddr, buf, *, addrsize=8):
        self.writeto(addr, self._memaddr(memaddr, addrsize), False)
        self.readfrom_into(addr, buf)

    def readfrom_mem(self, addr, memaddr, nbytes, *, addrsize=8):
        out = bytearray(nbytes)
        self.readfrom_mem_into(addr, memaddr, out, addrsize=addrsize)
        return bytes(out)

    def writeto_mem(self, addr, memaddr, buf, *, addrsize=8):
        self.writeto(addr, self._memaddr(memaddr, addrsize) + bytes(buf))

    def scan(self):
        # as extmod/machine_i2c.c: a zero-length write to each address 0x08-0x77
        found = []
        for addr in range(0x08, 0x78):
            _enter()
            try:
                self._write(addr, b"")
                found.append(addr)
            except OSError:
                pass
            finally:
                _leave()
        return found


# ------------------------------------------------------------------ PWM


class PWM:
    def __new__(cls, dest, *a, **k):
        n = dest._id if isinstance(dest, Pin) else dest
        if isinstance(n, int) and 0 <= n < _NPINS and _PWMS:
            return _PWMS[n]
        return object.__new__(cls)

    def __init__(self, dest, *, freq=-1, duty_u16=-1, duty_ns=-1, invert=False):
        self._pin = _pin_id(dest)
        self._freq = 0
        self._duty = 0
        self.invert = invert
        if freq != -1:
            self.freq(freq)
        if duty_u16 != -1:
            self.duty_u16(duty_u16)
        if duty_ns != -1:
            self.duty_ns(duty_ns)

    def __repr__(self):
        return "<PWM slice=%d channel=%d invert=%d>" % ((self._pin >> 1) & 7, self._pin & 1, 1 if self.invert else 0)

    def init(self, *, freq=-1, duty_u16=-1, duty_ns=-1, invert=-1):
        if invert != -1:
            self.invert = bool(invert)
        if freq != -1:
            self.freq(freq)
        if duty_u16 != -1:
            self.duty_u16(duty_u16)
        if duty_ns != -1:
            self.duty_ns(duty_ns)

    def freq(self, f=None):
        if f is None:
            return self._freq
        # the rp2 slice: 125 MHz / (divider 1-255 x 65536 top) .. 125 MHz / 2
        if f < 8:
            raise ValueError("freq too small")
        if f > _freq // 2:
            raise ValueError("freq too large")
        self._freq = f
        self._out()

    def duty_u16(self, d=None):
        if d is None:
            return self._duty
        if not 0 <= d <= 65535:
            raise ValueError("duty_u16 must be from 0 to 65535")
        self._duty = d
        self._out()

    def duty_ns(self, ns=None):
        if ns is None:
            return 0 if not self._freq else self._duty * 1000000000 // (65535 * self._freq)
        self.duty_u16(0 if not self._freq else min(65535, ns * self._freq * 65535 // 1000000000))

    def deinit(self):
        self._duty = 0
        self._out()

    @micropython.native  # no heap frame: allocates nothing in the firmware's stretch
    def _out(self):
        if _board is not None:
            _enter()
            try:
                _board.pwm(self._pin, self._freq, self._duty)
            finally:
                _leave()


# ------------------------------------------------------------------ WDT, Timer

_WDT_TIMEOUT_MAX = 8388


class WDT:
    def __new__(cls, id=0, *a, **k):
        if id == 0 and _WDTS:
            return _WDTS[0]
        return object.__new__(cls)  # __init__ says what is wrong

    def __init__(self, id=0, timeout=5000):
        if id != 0:
            raise ValueError("WDT(%d) doesn't exist" % id)
        if timeout < 0 or timeout > _WDT_TIMEOUT_MAX:
            raise ValueError("timeout exceeds %d" % _WDT_TIMEOUT_MAX)
        self.timeout = timeout
        if _board is not None:
            _board.wdt_start(timeout)

    @micropython.native  # no heap frame: allocates nothing in the firmware's stretch
    def feed(self):
        if _board is not None:
            _enter()
            try:
                _board.wdt_feed()
            finally:
                _leave()


class Timer:
    ONE_SHOT = 0
    PERIODIC = 1

    def __init__(self, id=-1, **kw):
        if id != -1:
            raise ValueError("Timer doesn't exist")
        self._due = -1
        self._period = 0
        self._mode = Timer.PERIODIC
        self._cb = None
        if kw:
            self.init(**kw)

    def init(self, *, mode=1, freq=-1, period=-1, tick_hz=1000, callback=None):
        if freq != -1:
            us = int(1000000 // freq)
        elif period != -1:
            us = int(period * 1000000 // tick_hz)
        else:
            us = 1000000
        if us <= 0:
            raise ValueError("period too small")
        self._mode = mode
        self._period = us
        self._cb = callback
        if _board is not None:
            self._due = _board.clock.now_us + us
            _board.timer_add(self)

    def deinit(self):
        self._due = -1
        if _board is not None:
            _board.timer_remove(self)

    def _fire(self, now):
        if self._mode == Timer.PERIODIC:
            self._due += self._period
        else:
            self.deinit()
        if self._cb is not None:
            self._cb(self)


# ------------------------------------------------------------------ the chip


def unique_id():
    # the flash chip's 64-bit unique id, as rp2 reports it
    return b"\xe6\x61\x38\x52\x83\x4a\x21\x2c"


def freq(hz=None):
    global _freq
    if hz is None:
        return _freq
    if not 48000000 <= hz <= 250000000:
        raise ValueError("cannot change frequency")
    _freq = hz
    return None


def reset():
    raise BoardReset(WDT_RESET, "machine.reset()")


def soft_reset():
    raise BoardReset(-1, "machine.soft_reset()")


def reset_cause():
    return _cause


def bootloader(value=None):
    raise BoardReset(-2, "machine.bootloader()")


def idle():
    # waits for the next interrupt: at most a system tick (1 ms)
    import time

    time.sleep_us(1000)


def lightsleep(time_ms=None):
    import time

    time.sleep_ms(time_ms if time_ms is not None else 1000)


def deepsleep(time_ms=None):
    raise BoardReset(PWRON_RESET, "machine.deepsleep()")


def disable_irq():
    return 0


def enable_irq(state=0):
    return None


def time_pulse_us(pin, pulse_level, timeout_us=1000000):
    return -2


# ---- the peripherals' objects: static on the rp2 port -------------------------
# machine.Pin(n), SPI(id), I2C(id), PWM(pin) and WDT() return objects of static
# tables of the rp2 firmware (ports/rp2/machine_pin.c, machine_spi.c,
# machine_i2c.c, machine_pwm.c, machine_wdt.c): the same object each time, and
# none in the GC heap. The model makes its objects here, when the board model
# loads this module (before it measures its own share of the heap: picoboot.py,
# sim_bytes), and each constructor returns the one of its id (``__new__``), so
# that the firmware's heap holds none of them either (issue 21: they were
# counted as the firmware's data, about 2 KB of this port's heap). Each object
# is initialised once here: the firmware's call sets the same attributes again,
# which takes no new heap. A Pin.irq() handler, a Timer and select.poll are
# heap objects on the rp2 port and stay so here.
_PINS = []
_SPIS = []
_I2CS = []
_PWMS = []
_WDTS = []


def _statics(cls, ids):
    out = []
    for i in ids:
        o = object.__new__(cls)
        o.__init__(i)
        out.append(o)
    return out


_PINS.extend(_statics(Pin, range(_NPINS)))
_SPIS.extend(_statics(SPI, range(2)))
_I2CS.extend(_statics(I2C, range(2)))
_PWMS.extend(_statics(PWM, range(_NPINS)))
_WDTS.extend(_statics(WDT, range(1)))


del utime
