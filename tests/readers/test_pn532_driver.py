# The firmware's PN532 driver against the chip model on a simulated SPI bus.
# runs-under: micropython heapsize=256K
import pn532
import pn532cmd
import pn532tag
from simchip import chip, rig, uid7


def _driver(seats=1, **kw):
    clock, bus, chips, css, rsts = rig(seats)
    drv = pn532.PN532(bus, css[0], rsts[0], clock=clock, **kw)
    return clock, bus, chips[0], drv


def test_reverse_table_is_bit_reversal():
    for b in range(256):
        assert pn532._REV[b] == chip.reverse_bits(b)
    assert pn532._REV[0x02] == 0x40 and pn532._REV[0x01] == 0x80 and pn532._REV[0x03] == 0xC0


def test_wire_frame_is_a_valid_frame_lsb_first():
    wire = pn532cmd._wire_frame(b"\xd4\x4a\x02\x00")
    plain = bytes(chip.reverse_bits(b) for b in wire)
    assert plain[0] == 0x01  # data write
    assert plain[1:] == chip.frame(b"\xd4\x4a\x02\x00")


def test_setup_needed_after_power_up_then_version():
    clock, bus, c, drv = _driver()
    # Fresh chip in LowVbat: anything but SAMConfiguration goes unanswered.
    assert drv.firmware_version() == pn532.ERR_NO_ACK
    assert drv.setup() == pn532.OK
    assert drv.firmware_version() == pn532.OK
    assert bytes(drv.version) == b"\x32\x01\x06\x07"
    assert c.max_retries == 0 and not c.rf_on


def test_poll_no_card_one_card_two_cards():
    clock, bus, c, drv = _driver()
    assert drv.setup() == pn532.OK
    assert drv.poll() == 0 and drv.uid_len == 0
    a = chip.Tag(uid7(1))
    b = chip.Tag(uid7(2))
    c.place(a)
    assert drv.poll() == 1
    assert bytes(drv.uid[: drv.uid_len]) == a.uid and drv.sens_res == 0x0044
    assert c.rf_on
    assert drv.field_off() == pn532.OK and not c.rf_on
    c.place(b)
    assert drv.poll(2) == 2
    assert bytes(drv.uid[: drv.uid_len]) == a.uid and bytes(drv.uid2[: drv.uid2_len]) == b.uid
    assert drv.poll(1) == 1  # one target asked for: the chip lists one
    four = chip.Tag(b"\x11\x22\x33\x44", ntag=False)
    c.clear()
    c.place(four)
    assert drv.poll() == 1 and bytes(drv.uid[: drv.uid_len]) == four.uid and drv.sel_res == 0x08


def test_ntag_page_read_write():
    clock, bus, c, drv = _driver()
    drv.setup()
    t = chip.Tag(uid7(7))
    c.place(t)
    assert drv.poll() == 1
    buf = bytearray(16)
    assert pn532tag.read_page(drv, 0, buf) == pn532.OK
    assert bytes(buf[:3]) == t.uid[:3] and bytes(buf[4:8]) == t.uid[3:7]
    assert pn532tag.write_page(drv, 4, b"TTC\x01") == pn532.OK
    assert t.page(4) == b"TTC\x01"
    assert pn532tag.read_page(drv, 4, buf) == pn532.OK and bytes(buf[:4]) == b"TTC\x01"
    assert pn532tag.write_page(drv, 2, b"\x00\x00\x00\x00") == pn532.ERR_TAG  # not a user page
    c.remove(t)
    assert pn532tag.read_page(drv, 4, buf) == pn532.ERR_TAG  # tag gone: time-out status


def test_faults_give_errors_and_hard_reset_recovers():
    clock, bus, c, drv = _driver()
    assert drv.setup() == pn532.OK
    c.inject(chip.FAULT_SILENT)
    assert drv.poll() == pn532.ERR_NO_ACK
    c.inject(chip.FAULT_BUSY)
    assert drv.poll() == pn532.ERR_NO_ACK
    c.inject(chip.FAULT_GARBAGE)
    r = drv.poll()
    assert r < 0, r
    c.inject(chip.FAULT_SLOW, slow_us=100000)
    assert drv.poll() == pn532.ERR_TIMEOUT
    assert c.queue == []  # the driver aborted the command with an ACK frame
    drv.hard_reset()
    assert c.resets == 1 and c.fault == chip.FAULT_NONE
    assert drv.poll() == pn532.ERR_NO_ACK  # LowVbat again: must be set up first
    assert drv.setup() == pn532.OK and drv.poll() == 0


def test_slow_but_in_time_is_fine():
    clock, bus, c, drv = _driver()
    drv.setup()
    c.place(chip.Tag(uid7(3)))
    c.inject(chip.FAULT_SLOW, slow_us=15000)
    t0 = clock.ticks_us()
    assert drv.poll() == 1
    assert clock.ticks_us() - t0 > 15000


def test_error_frame_and_bad_checksum_are_caught():
    clock, bus, c, drv = _driver()
    drv.setup()
    # A syntax error answer (the chip's error frame) for an unknown RF item.
    w = pn532cmd._wire_frame(b"\xd4\x32\x77\x00")
    assert drv._call(w, drv._short, 0x32, drv.timeout_us) == pn532.ERR_RESPONSE
    # Corrupt one bit of a response in flight: the DCS check rejects it.
    c.queue = []

    def wire(frame_bytes):  # as read off the bus: LSB first, padded with zeros
        raw = bytes(chip.reverse_bits(b) for b in frame_bytes)
        return raw + bytes(len(drv._short) - len(raw))

    buf = bytearray(chip.frame(b"\xd5\x03\x32\x01\x06\x07"))
    buf[7] ^= 0x10
    drv._short[:] = wire(buf)
    assert drv._parse(drv._short, 0x02) == pn532.ERR_FRAME
    good = chip.frame(b"\xd5\x03\x32\x01\x06\x07")
    drv._short[:] = wire(good)
    assert drv._parse(drv._short, 0x02) == 4
    assert bytes(drv.data[drv.data_at : drv.data_at + 4]) == b"\x32\x01\x06\x07"
    drv._short[:] = wire(good)
    assert drv._parse(drv._short, 0x4A) == pn532.ERR_RESPONSE  # answer to another command
    drv._short[:] = wire(b"\x00\x00\xff\x05\xfa")  # length checksum wrong
    assert drv._parse(drv._short, 0x02) == pn532.ERR_FRAME
    drv._short[:] = wire(b"\xff\x06\xfa\xd5\x03")  # no preamble
    assert drv._parse(drv._short, 0x02) == pn532.ERR_FRAME


def test_learned_waits_keep_status_polls_few():
    clock, bus, c, drv = _driver()
    drv.setup()
    count = [0]
    inner = drv._ready

    def counting():
        count[0] += 1
        return inner()

    drv._ready = counting
    for _ in range(10):  # learning
        drv.poll()
        drv.field_off()
    count[0] = 0
    t0 = clock.ticks_us()
    for _ in range(20):
        assert drv.poll() == 0
        assert drv.field_off() == pn532.OK
    per_poll = count[0] / 20
    # 4 waits per poll + field-off (2 ACKs, 2 answers): one or two status polls each,
    # where polling every poll_us from the start would take about 20.
    assert per_poll <= 9, per_poll
    # and the waits do not overshoot much: modelled chip time is 0.5+0.8 ms per
    # command plus 5 ms RF settle and one 1 ms attempt for the poll
    assert (clock.ticks_us() - t0) / 20 < 11000
    # a change of pace (a card now, so a longer answer) is still waited for
    c.place(chip.Tag(uid7(9)))
    assert drv.poll() == 1


def test_irq_pin_replaces_status_polls():
    clock, bus, chips, css, rsts = rig(1)
    c = chips[0]
    irq = chip.SimIrqPin(c)
    drv = pn532.PN532(bus, css[0], rsts[0], clock=clock, irq=irq)
    assert drv.setup() == pn532.OK
    assert c.irq_enabled  # SAMConfiguration asked the chip to drive P70_IRQ
    c.place(chip.Tag(uid7(4)))
    b0 = bus.bytes
    r0 = irq.reads
    assert drv.poll() == 1 and bytes(drv.uid[:7]) == uid7(4)
    assert drv.field_off() == pn532.OK
    assert irq.reads - r0 >= 4  # every wait read the pin ...
    # ... and the SPI carried only commands, ACKs and answers: no status bytes
    assert bus.bytes - b0 == 12 + 7 + len(drv._long) + 1 + 12 + 7 + len(drv._short) + 1
    c.inject(chip.FAULT_SILENT)
    assert drv.poll() == pn532.ERR_NO_ACK


def test_a_poll_read_late_gives_its_answer_in_one_step():
    # A group launched and read a turn later (Scanner.launch): the ACK and the
    # answer are both waiting; one step() reads both (no return to the
    # scanner and sleep between them) and the answer is the poll's own
    clock, bus, c, drv = _driver()
    assert drv.setup() == pn532.OK
    for _ in range(5):  # the learned waits of the split phase
        drv.poll_begin()
        while drv.step() == pn532.PENDING:
            clock.sleep_us(drv.wait)
    c.place(chip.Tag(uid7(3)))
    drv.poll_begin()
    clock.sleep_us(20000)  # a turn of the main loop: the chip answered long ago
    t0 = clock.ticks_us()
    assert drv.step() == pn532.PENDING
    assert drv._op == 3 and drv.wait > 0  # ACK and answer read, the field-off sent
    while True:
        r = drv.step()
        if r != pn532.PENDING:
            break
        clock.sleep_us(drv.wait)
    assert r == 1 and bytes(drv.uid[: drv.uid_len]) == uid7(3)
    assert drv.off == pn532.OK and not c.rf_on
    # the answer was read at the first step: what is left is the field-off's
    # two phases (0.5 + 0.8 ms modelled) and the SPI bytes
    assert clock.ticks_us() - t0 < 2500
