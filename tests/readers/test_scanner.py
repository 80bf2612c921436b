# The four-seat scanner with the firmware driver against four simulated PN532s.
# runs-under: micropython heapsize=512K
import pn532
import scanner
from scanner import EV_CARD, EV_CROSSTALK, EV_FAULT, EV_RECOVERED, EV_TWO, EV_UNKNOWN
from simchip import chip, table, uid7


def _started(**kw):
    t = table(**kw)
    t.run(100)
    assert t.take() == []  # set up, nothing on the readers
    for s in range(4):
        assert t.sc.reader_ok(s)
    return t


def test_card_reported_once_while_it_rests():
    t = _started()
    tag = chip.Tag(uid7(3))
    t.chips[1].place(tag)
    t.run(1000)
    ev = t.take()
    assert ev == [(EV_CARD, 1, 3, -1, 0, tag.uid)]
    assert t.bus.max_fields_on == 2  # polled in pairs: never more than two fields at once
    assert t.bus.collisions == 0


def test_same_tag_again_only_after_away_time():
    t = _started(away_ms=500)
    tag = chip.Tag(uid7(5))
    c = t.chips[0]
    c.place(tag)
    t.run(200)
    c.remove(tag)
    t.run(200)  # lifted, but shorter than away_ms
    c.place(tag)
    t.run(200)
    assert len(t.kinds(t.take(), EV_CARD)) == 1
    c.remove(tag)
    t.run(700)  # away longer than away_ms
    c.place(tag)
    t.run(200)
    assert [e[:3] for e in t.take()] == [(EV_CARD, 0, 5)]


def test_different_cards_in_quick_succession_are_each_reported():
    t = _started()
    c = t.chips[2]
    for i in (1, 2, 4):
        tag = chip.Tag(uid7(i))
        c.place(tag)
        t.run(160)  # two polls at least confirm_ms (80) apart see it
        c.remove(tag)
        t.run(60)
    assert [e[:3] for e in t.take()] == [(EV_CARD, 2, 1), (EV_CARD, 2, 2), (EV_CARD, 2, 4)]


def _one_poll_sight(t, seat, tag):
    # the tag lies on the reader for exactly one poll of the seat (a card of a
    # fanned hand swept over it)
    c = t.chips[seat]
    before = c.commands.count(0x4A)  # InListPassiveTarget: the seat's polls
    c.place(tag)
    while c.commands.count(0x4A) == before:
        t.run(1)  # a tick polls a whole group: its poll is over when it returns
    c.remove(tag)


def test_a_stray_one_poll_read_is_not_a_play():
    t = _started()
    _one_poll_sight(t, 1, chip.Tag(uid7(6)))
    t.run(1000)
    assert t.take() == []
    assert t.sc.unconfirmed == 1  # dropped at the next poll, which saw nothing
    # shown as seen once, then taken off
    assert [e[:3] for e in t.shown] == [(scanner.EV_SEEN, 1, 6), (scanner.EV_GONE, 1, -1)]
    assert t.shown[1][3] - t.shown[0][3] <= 30  # off the display within a cycle
    assert t.sc.shown == [-1, -1, -1, -1]
    # a card put down for real after it is reported
    tag = chip.Tag(uid7(2))
    t.chips[1].place(tag)
    t.run(300)
    assert [e[:3] for e in t.take()] == [(EV_CARD, 1, 2)]
    assert t.sc.unconfirmed == 1


def test_a_stray_read_between_sightings_of_a_resting_card_is_no_error():
    t = _started()
    a = chip.Tag(uid7(1))
    c = t.chips[0]
    c.place(a)
    t.run(300)
    assert [e[:3] for e in t.take()] == [(EV_CARD, 0, 1)]
    c.remove(a)
    _one_poll_sight(t, 0, chip.Tag(uid7(3)))  # swept over, seen once
    c.place(a)  # the resting card is seen again at once: no EV_TWO
    t.run(300)
    assert t.take() == []


def test_confirm_0_reports_at_the_first_sight():
    t = _started(confirm_ms=0)
    _one_poll_sight(t, 3, chip.Tag(uid7(4)))
    t.run(50)
    assert [e[:3] for e in t.take()] == [(EV_CARD, 3, 4)]


def test_two_cards_on_one_reader_is_an_error_not_two_plays():
    t = _started()
    c = t.chips[3]
    a = chip.Tag(uid7(1))
    b = chip.Tag(uid7(2))
    c.place(a)
    c.place(b)
    t.run(500)
    ev = t.take()
    assert [e[:2] for e in ev] == [(EV_TWO, 3)]
    # Lift one: nothing, until the reader has been clear for away_ms.
    c.remove(b)
    t.run(300)
    assert t.take() == []
    c.remove(a)
    t.run(700)
    c.place(a)
    t.run(200)
    assert [e[:3] for e in t.take()] == [(EV_CARD, 3, 1)]


def test_two_tags_alternating_is_an_error():
    t = _started(max_targets=1)
    c = t.chips[0]
    c.alternate = True  # the chip lists one tag per poll, in turn
    c.place(chip.Tag(uid7(1)))
    c.place(chip.Tag(uid7(2)))
    t.run(500)
    ev = t.take()
    assert EV_TWO in [e[0] for e in ev]
    assert len(t.kinds(ev, EV_CARD)) <= 2
    assert len(t.kinds(ev, EV_TWO)) == 1


def test_tag_at_two_seats_is_crosstalk():
    t = _started()
    tag = chip.Tag(uid7(6))
    t.chips[0].place(tag)
    t.run(100)
    t.chips[1].place(tag)  # the same physical tag, in reach of the next reader
    t.run(300)
    ev = t.take()
    assert ev[0][:3] == (EV_CARD, 0, 6)
    assert [(e[0], e[1], e[2], e[3]) for e in ev[1:]] == [(EV_CROSSTALK, 1, 6, 0)]


def test_unknown_tag():
    t = _started()
    stranger = chip.Tag(b"\x08\x99\x88\x77", ntag=False)
    t.chips[2].place(stranger)
    t.run(300)
    assert t.take() == [(EV_UNKNOWN, 2, -1, -1, 0, stranger.uid)]


def _fault_case(fault, cleared_by_reset=True, slow_us=50000):
    t = _started(retry_ms=400)
    bad = t.chips[2]
    bad.inject(fault, cleared_by_reset=cleared_by_reset, slow_us=slow_us)
    # Other seats keep working while seat 2 is broken and being reset.
    tags = [chip.Tag(uid7(i)) for i in range(3)]
    for k, seat in enumerate((0, 1, 3)):
        t.chips[seat].place(tags[k])
        t.run(150)
    t.run(1500)
    return t, bad, t.take()


def test_silent_reader_is_reset_and_recovers_others_keep_playing():
    t, bad, ev = _fault_case(chip.FAULT_SILENT)
    cards = [(e[1], e[2]) for e in t.kinds(ev, EV_CARD)]
    assert cards == [(0, 0), (1, 1), (3, 2)]
    faults = t.kinds(ev, EV_FAULT)
    assert len(faults) == 1 and faults[0][1] == 2 and faults[0][4] == pn532.ERR_NO_ACK
    assert [e[1] for e in t.kinds(ev, EV_RECOVERED)] == [2]
    assert bad.resets == 1
    assert t.sc.reader_ok(2)
    # and it reads cards again
    bad.place(chip.Tag(uid7(7)))
    t.run(200)
    assert [e[:3] for e in t.take()] == [(EV_CARD, 2, 7)]


def test_garbage_reader_is_reset_and_recovers():
    t, bad, ev = _fault_case(chip.FAULT_GARBAGE)
    faults = t.kinds(ev, EV_FAULT)
    assert len(faults) == 1 and faults[0][1] == 2 and faults[0][4] < 0
    assert len(t.kinds(ev, EV_RECOVERED)) == 1
    assert len(t.kinds(ev, EV_CARD)) == 3


def test_stuck_busy_reader_is_reset_and_recovers():
    t, bad, ev = _fault_case(chip.FAULT_BUSY)
    assert [e[1] for e in t.kinds(ev, EV_FAULT)] == [2]
    assert len(t.kinds(ev, EV_RECOVERED)) == 1 and bad.resets == 1


def test_too_slow_reader_is_reset_but_slow_in_time_is_not_a_fault():
    t, bad, ev = _fault_case(chip.FAULT_SLOW, slow_us=80000)
    assert [e[4] for e in t.kinds(ev, EV_FAULT)] == [pn532.ERR_TIMEOUT]
    assert len(t.kinds(ev, EV_RECOVERED)) == 1
    t2, bad2, ev2 = _fault_case(chip.FAULT_SLOW, slow_us=5000)
    assert t2.kinds(ev2, EV_FAULT) == [] and bad2.resets == 0
    assert len(t2.kinds(ev2, EV_CARD)) == 3


def test_dead_reader_reported_once_retried_slowly_others_served():
    t, bad, ev = _fault_case(chip.FAULT_SILENT, cleared_by_reset=False)
    assert len(t.kinds(ev, EV_FAULT)) == 1
    assert t.kinds(ev, EV_RECOVERED) == []
    assert len(t.kinds(ev, EV_CARD)) == 3
    # ~1950 ms of outage with retry_ms=400: a handful of resets, not one per tick
    assert 2 <= bad.resets <= 6, bad.resets
    assert not t.sc.reader_ok(2)
    bad.inject(chip.FAULT_NONE)  # someone fixed the wire
    t.run(1000)
    assert [e[:2] for e in t.take()] == [(EV_RECOVERED, 2)]


def test_four_seat_cycle_is_under_50ms():
    t = _started()
    for s in range(4):
        t.chips[s].place(chip.Tag(uid7(s)))
    t.run(200)
    t.take()
    polls0 = t.sc.polls
    t0 = t.clock.ticks_us()
    t.run(1000)
    cycles = (t.sc.polls - polls0) / 4
    cycle_ms = (t.clock.ticks_us() - t0) / 1000 / cycles
    # in pairs: two polls with a card, 9.6 ms of RF each, plus the field-offs
    assert 15 < cycle_ms < 30, cycle_ms
    assert t.bus.max_fields_on == 2


def test_launched_polls_are_read_by_the_next_tick_before_another_group():
    t = _started()
    sc = t.sc
    g = sc._group  # the group launch() begins: seats g and g + 2
    tag = chip.Tag(uid7(2))
    t.chips[g].place(tag)
    before = t.bus.bytes
    assert sc.launch(t.clock.ticks_ms())
    # only the two polls' command frames (12 bytes each): no status read, no wait
    assert t.bus.bytes - before == 24
    assert [c.rf_on for c in t.chips] == [s % 2 == g for s in range(4)]
    assert not sc.launch(t.clock.ticks_ms())  # one group in flight at most
    t.clock.advance_us(20000)  # the main loop's turn: the chips find the tag meanwhile
    sc.tick(t.clock.ticks_ms())
    assert [c.rf_on for c in t.chips] == [False] * 4  # both groups' fields off again
    assert sc.pop() == scanner.EV_SEEN and sc.seat == g and sc.card == 2
    assert t.bus.max_fields_on == 2
    # a set_group() while a group is in flight is refused
    assert sc.launch(t.clock.ticks_ms())
    try:
        sc.set_group(scanner.GROUP_ALL)
        raise AssertionError("set_group with polls running")
    except ValueError as exc:
        assert "running" in str(exc)


def test_serve_reads_a_launched_group_without_waiting_then_launches_the_next():
    # (issue 22, cycle4) between a frame's pages: each call looks at the
    # group in flight and never sleeps; once every reader has answered (its
    # field off) and nothing was seen, the next group is set to work
    t = _started()
    sc = t.sc
    g = sc._group
    assert sc.launch(t.clock.ticks_ms())
    t0 = t.clock.ticks_us()
    assert not sc.serve(t.clock.ticks_ms())  # just launched: nothing to read yet
    assert t.clock.ticks_us() - t0 < 500  # no sleep: only a look or two on the SPI
    calls = 0
    while not sc.serve(t.clock.ticks_ms()):
        calls += 1
        assert sc._flight == g  # still the same group in flight
        t.clock.advance_us(1000)  # a page of the frame (3.4 ms on the Pico)
    assert calls >= 6  # the poll's 5.4 ms and its field-off's 1.3 ms, waited for outside
    assert sc._flight == 1 - g  # the next group launched by serve()
    assert [c.rf_on for c in t.chips] == [s % 2 == 1 - g for s in range(4)]
    assert t.bus.max_fields_on == 2
    assert t.take() == []
    # a sighting: the group is done, and the next one waits for the main loop
    t.clock.advance_us(20000)
    sc.tick(t.clock.ticks_ms(), False)  # that group read (mid_readers)
    tag = chip.Tag(uid7(4))
    t.chips[g].place(tag)
    assert sc.launch(t.clock.ticks_ms())
    t.clock.advance_us(20000)  # the answers in: read, the fields' switching off waited for outside
    while not sc.serve(t.clock.ticks_ms()):
        t.clock.advance_us(1000)
    assert sc._flight < 0 and sc.pending() == 1  # seen once: taken before another group
    assert sc.pop() == scanner.EV_SEEN and sc.seat == g and sc.card == 4
    assert not sc.serve(t.clock.ticks_ms())  # nothing in flight: nothing done


def _cycle_ms(then, turn_us):
    t = _started()
    for s in range(4):
        t.chips[s].place(chip.Tag(uid7(s)))
    t.then = then
    t.turn_us = turn_us
    t.run(200)
    got = t.take()
    assert sorted(e[:3] for e in got) == [(EV_CARD, s, s) for s in range(4)]
    polls0 = t.sc.polls
    t0 = t.clock.ticks_us()
    t.run(1000)
    assert t.bus.max_fields_on == 2 and t.bus.collisions == 0
    return (t.clock.ticks_us() - t0) / 1000 / ((t.sc.polls - polls0) / 4)


def test_launch_overlaps_the_main_loops_turn_with_a_groups_search():
    # cards on all four readers (9.6 ms of RF a poll), a main loop's turn of 5 ms:
    # the second group searching through the turn saves about the turn
    blocking = _cycle_ms("twice", 5000)
    launched = _cycle_ms("launch", 5000)
    assert launched < blocking - 4, (launched, blocking)


def test_launch_keeps_a_stray_read_harmless():
    t = _started()
    t.then = "launch"
    t.turn_us = 4000
    _one_poll_sight(t, 1, chip.Tag(uid7(6)))
    t.run(1000)
    assert t.take() == []
    assert [e[:3] for e in t.shown] == [(scanner.EV_SEEN, 1, 6), (scanner.EV_GONE, 1, -1)]
    assert t.bus.max_fields_on == 2


def test_a_launched_polls_sighting_is_judged_by_the_time_it_began():
    # the tag was in the field when the poll ran, not a turn later: the dwell
    # (confirm_ms) is measured between polls, however long the turn between
    # a poll's launch and its reading (a save step: 400 ms at worst)
    t = _started()
    sc = t.sc
    g = sc._group
    t.chips[g].place(chip.Tag(uid7(3)))
    now0 = t.clock.ticks_ms()
    assert sc.launch(now0)
    t.clock.advance_us(400000)
    sc.tick(t.clock.ticks_ms())  # reads it (and, having seen it, polls no other group)
    assert sc.pop() == scanner.EV_SEEN and sc.seat == g and sc.t_ms == now0
    assert t.bus.max_fields_on == 2


def test_a_tag_seen_again_by_the_next_poll_is_one_tap_however_late_it_came():
    # (issue 22: launch() switched on, the board stalled with the flash at its
    # maximum times) a card laid as a group is launched; the turn then erases
    # a sector (400 ms, the CPU stopped); the next turn reads the launched
    # answers (a first sighting, judged by the launch's time) and launches
    # the other group; the seat's next poll comes a turn later, 510 ms after
    # the first sighting, with no poll between them: the tag never went unseen, and that
    # poll confirms it (it was taken for a new appearance of the same tag,
    # away longer than away_ms: shown again, never counted, and the player,
    # whose card had been read twice, took it away)
    t = _started(away_ms=500)
    sc = t.sc
    g = sc._group
    t.chips[g].place(chip.Tag(uid7(5)))
    now0 = t.clock.ticks_ms()
    assert sc.launch(now0)
    t.clock.advance_us(470000)  # the save's erase
    assert sc.tick(t.clock.ticks_ms())  # the launched answers: seen once
    assert sc.pop() == scanner.EV_SEEN and sc.seat == g and sc.t_ms == now0
    assert sc.launch(t.clock.ticks_ms())  # the other group (PicoBoard.taps)
    t.clock.advance_us(40000)  # the turn that drew it
    sc.tick(t.clock.ticks_ms())  # the other group read, then the seat's next poll
    assert sc.pop() == EV_CARD and sc.seat == g and sc.card == 5
    assert sc.pop() == scanner.EV_NONE and sc.unconfirmed == 0
    # a card found gone by a poll, and back after away_ms, is a new tap still
    t.then = "launch"
    t.chips[g].clear()
    t.run(600)
    t.chips[g].place(chip.Tag(uid7(5)))
    t.run(200)
    assert [e[:3] for e in t.take()] == [(EV_CARD, g, 5)]


def test_seen_once_reads_a_launched_group_first():
    # the main loop asks before a save step (picoboard.card_pending): a card
    # the launched polls found is pending, and no field stays on through the
    # flash work a False would let begin
    t = _started()
    sc = t.sc
    g = sc._group
    t.chips[g].place(chip.Tag(uid7(4)))
    now0 = t.clock.ticks_ms()
    assert sc.launch(now0)
    t.clock.advance_us(3000)  # the rest of the turn: shorter than the polls
    assert [c.rf_on for c in t.chips] == [s % 2 == g for s in range(4)]
    assert sc.seen_once(t.clock.ticks_ms())
    assert [c.rf_on for c in t.chips] == [False] * 4
    assert sc.pop() == scanner.EV_SEEN and sc.seat == g and sc.t_ms == now0
    # a card the launched group confirms: True until its EV_CARD is taken (the
    # turn that counts and draws it comes before any flash work)
    t.clock.advance_us(50000)
    assert sc.tick(t.clock.ticks_ms()) == 0  # the other group
    assert sc.launch(t.clock.ticks_ms())  # the group of g, 50 ms after: confirming
    assert sc.seen_once(t.clock.ticks_ms())
    assert sc.pending() == 1 and not max(sc._pend)
    assert sc.pop() == EV_CARD and sc.seat == g and sc.card == 4
    assert not sc.seen_once(t.clock.ticks_ms())
    # nothing in flight, nothing seen once: False, and not a byte on the bus
    t.run(300)
    t.take()
    before = t.bus.bytes
    assert not sc.seen_once(t.clock.ticks_ms())
    assert t.bus.bytes == before


def test_seen_once_while_a_card_waits_for_its_confirming_poll():
    # the main loop starts no save while it is True (picoboard.card_pending)
    t = _started()
    sc = t.sc
    assert not sc.seen_once(t.clock.ticks_ms())
    t.chips[1].place(chip.Tag(uid7(4)))
    while not t.shown:
        t.run(1)
    assert t.shown[0][:3] == (scanner.EV_SEEN, 1, 4)
    assert sc.seen_once(t.clock.ticks_ms())
    t.run(200)  # confirmed: counted, nothing pending
    assert [e[:3] for e in t.take()] == [(EV_CARD, 1, 4)]
    assert not sc.seen_once(t.clock.ticks_ms())


def test_event_queue_overflow_counts_drops():
    t = _started()
    sc = t.sc
    for i in range(sc._q + 3):
        sc._emit(EV_CARD, 0, i, b"", 0, 0)
    assert sc.dropped == 3 and sc.pending() == sc._q
    got = []
    while sc.pop():
        got.append(sc.card)
    assert got == list(range(sc._q))


def test_ticks_diff_wraps_like_micropython():
    assert scanner.ticks_diff(5, 0x3FFFFFFF) == 6
    assert scanner.ticks_diff(0x3FFFFFFF, 5) == -6
    assert scanner.ticks_diff(1000, 400) == 600


def _script(chips, ms, done):
    # From 150 ms a card at seat 1; from 300 ms one at seat 3; at 450 ms both lifted.
    if ms >= 150 and done[0] == 0:
        chips[1].place(chip.Tag(uid7(4)))
        done[0] = 1
    if ms >= 300 and done[0] == 1:
        chips[3].place(chip.Tag(uid7(5)))
        done[0] = 2
    if ms >= 450 and done[0] == 2:
        chips[1].clear()
        chips[3].clear()
        done[0] = 3


def test_polling_path_allocates_nothing():
    import sys

    if sys.implementation.name != "micropython":
        # CPython: no heap to lock (the MicroPython run checks this; the
        # host's micropython shim keeps only the lock's depth, for
        # tablerules.ask)
        return
    import micropython

    lock = micropython.heap_lock
    unlock = micropython.heap_unlock
    import cardmap
    from simchip import PlainPin, RecordingBus, ReplayBus, build_map

    # 1. Record the bus traffic of a scripted run against the chip model.
    clock = chip.SimClock(1000000)
    bus = RecordingBus(clock)
    chips = []
    drivers = []
    for _ in range(4):
        c = chip.Chip(clock)
        cs, rst = bus.attach(c)
        chips.append(c)
        drivers.append(pn532.PN532(bus, cs, rst, clock=clock))
    cm = cardmap.CardMap(build_map([(uid7(i), i) for i in range(8)]))
    sc = scanner.Scanner(drivers, cm)

    ticks = 220
    want = []
    done = [0]
    for _ in range(ticks):
        _script(chips, clock.ticks_ms() - 1000, done)
        before = clock.now_us
        sc.tick(clock.ticks_ms())
        while sc.pop():
            want.append((sc.kind, sc.seat, sc.card))
        if clock.now_us == before:
            clock.advance_us(1000)
    assert done[0] == 3
    # each card shown as seen once, then counted (and the replay sees the same)
    seen = scanner.EV_SEEN
    assert want == [(seen, 1, 4), (EV_CARD, 1, 4), (seen, 3, 5), (EV_CARD, 3, 5)]
    # 2. Replay it to a fresh scanner with the heap locked after the set-up.
    import gc

    rclock = chip.SimClock(1000000)
    rbus = ReplayBus(rclock, bus.miso)
    gc.collect()
    heap0 = gc.mem_alloc()
    rdrivers = [pn532.PN532(rbus, PlainPin(), PlainPin(), clock=rclock) for _ in range(4)]
    rsc = scanner.Scanner(rdrivers, cm)
    gc.collect()
    # Four drivers and the scanner with their buffers: about 13 KB on the 64-bit
    # unix port (objects are about half that size on the RP2040).
    assert gc.mem_alloc() - heap0 < 16 * 1024, gc.mem_alloc() - heap0
    got = bytearray(16)
    n = 0
    for step in range(ticks):
        if step == 8:
            lock()  # the four set-ups are done: from here on, polling only
        before = rclock.now_us
        rsc.tick(rclock.now_us // 1000)
        while rsc.pop():
            got[n] = rsc.kind
            got[n + 1] = rsc.seat
            got[n + 2] = rsc.card
            n += 3
        if rclock.now_us == before:
            rclock.now_us += 1000
    unlock()
    assert n == 3 * len(want)
    assert [(got[i], got[i + 1], got[i + 2]) for i in range(0, n, 3)] == want
    assert rbus.pos == len(bus.miso)


def test_reader_that_reset_itself_is_set_up_again():
    t = _started()
    c = t.chips[1]
    c.set_rstpd(0)  # a brown-out: the chip restarts on its own, in LowVbat
    c.set_rstpd(1)
    t.run(300)
    ev = t.take()
    assert [e[:2] for e in ev] == [(EV_FAULT, 1), (EV_RECOVERED, 1)]
    c.place(chip.Tag(uid7(2)))
    t.run(200)  # two sightings confirm_ms apart
    assert [e[:3] for e in t.take()] == [(EV_CARD, 1, 2)]


def test_rx_gain_is_set_with_rfconfiguration_0x0a():
    t = _started()
    d = t.drivers[0]
    c = t.chips[0]
    assert c.rx_gain == 5  # the chip's default, 38 dB
    assert d.set_rx_gain(pn532.RX_GAIN_LOW) == pn532.OK
    assert c.rx_gain == 4 and c.rf_cfg == 0x49  # 33 dB, the other CIU_RFCfg bits kept
    assert d.set_rx_gain(8) == pn532.ERR_RESPONSE  # not a gain code: nothing sent
    assert c.rx_gain == 4
    # the reader still reads at the lower gain
    tag = chip.Tag(uid7(1))
    c.place(tag)
    t.run(300)
    assert [e[:3] for e in t.take()] == [(EV_CARD, 0, 1)]


def test_scanner_sets_the_rx_gain_at_each_set_up():
    t = table()
    t.sc.rx_gain = pn532.RX_GAIN_LOW
    t.run(100)
    assert [c.rx_gain for c in t.chips] == [4, 4, 4, 4]
