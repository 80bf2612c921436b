"""The seat buttons on the board model (issue 22): a click, a double press or
a long press made while the main loop is busy in one long turn (a save's
flash erases: hundreds of ms on the chip) is judged by its real edges, which
the firmware timestamps in its pins' interrupts (picoboard.PicoBoard._edge,
a hard handler: the model runs it with the heap locked, at the board time the
edge is seen). The person presses at a person's pace, not the firmware's."""

from __future__ import annotations

from board_rig import on_board

CODE = """
import events as E
import picoboard as M

b = M.PicoBoard(machine, store_path="/tmp/tt_buttons_%d.json" % time.ticks_us())


def long_turn(ms):
    # one turn of the main loop busy in the flash: sector erases of 45 ms,
    # the models entered between them (where an edge that came meanwhile is
    # taken, as the chip takes it when the erase's atomic section ends)
    end = board.clock.now_us + ms * 1000
    while board.clock.now_us < end:
        board.clock.advance_us(45000)
        machine._enter()
        machine._leave()


def settle():
    # turns of the loop until the decoder decided (DOUBLE_MS after a release)
    got = []
    for _ in range(3):
        long_turn(200)
        got += b.presses(time.ticks_ms())
    return got


print("idle", b.presses(time.ticks_ms()))
board.person._start_press(1, 0)  # a click: 150 ms down, then up
long_turn(900)
got = b.presses(time.ticks_ms()) + settle()
print("click", got == [(1, E.BTN_OK)], got)
board.person._start_press(0, 2)  # a double press: 120 ms down, 150 up, 120 down
long_turn(900)
got = b.presses(time.ticks_ms()) + settle()
print("double", got == [(0, E.BTN_CHALLENGE)], got)
board.person._start_press(2, 1)  # a long press (1200 ms) wholly inside a turn
long_turn(1500)
got = b.presses(time.ticks_ms()) + settle()
print("long inside", got == [(2, E.BTN_UNDO)], got)
board.person._start_press(3, 1)  # a long press across two long turns
long_turn(900)
got = b.presses(time.ticks_ms())
long_turn(900)
got += b.presses(time.ticks_ms()) + settle()
print("long across", got == [(3, E.BTN_UNDO)], got)
"""


def test_presses_during_a_long_turn_of_the_main_loop_count_as_made() -> None:
    out = on_board(CODE)
    assert "idle []" in out, out
    assert "click True" in out, out  # lost before the edges were timestamped
    assert "double True" in out, out
    assert "long inside True" in out, out  # neither a click nor an undo before
    assert "long across True" in out, out



WRAP = """
import events as E
import picoboard as PB

top = 1 << 30
print("wraps", time.ticks_add(top - 1, 1) == 0)  # the model's ticks_ms wraps as the rp2 port's
d = PB.ButtonDecoder()
# a click, pressed before the wrap and released after it
d.feed(0, 1, top - 50)
d.feed(0, 0, 30)
print("click", d.take(100) == [] and d.take(30 + PB.DOUBLE_MS) == [(0, E.BTN_OK)])
# a double press across it
d.feed(1, 1, top - 300)
d.feed(1, 0, top - 220)
d.feed(1, 1, top - 100)
d.feed(1, 0, 20)
print("double", d.take(30) == [(1, E.BTN_CHALLENGE)])
# a long press held across it: an undo once held LONG_MS, while still held
d.feed(2, 1, top - 300)
d.feed(2, 1, PB.LONG_MS - 301)
early = d.take(PB.LONG_MS - 301) == []  # (an empty take is the decoder's own list: compared now)
d.feed(2, 1, PB.LONG_MS - 300)
print("long", early and d.take(PB.LONG_MS) == [(2, E.BTN_UNDO)])
d.feed(2, 0, 2000)
print("long released", d.take(4000) == [])
# contact bounce across it is still bounce: one click
d.feed(3, 1, top - 5)
d.feed(3, 0, 2)
d.feed(3, 1, 8)
d.feed(3, 0, 100)
print("bounce", d.take(100 + PB.DOUBLE_MS) == [(3, E.BTN_OK)])
# a button last changed more than 2**29 ms ago (half the period: its
# ticks_diff is negative): its next press is no bounce
t = 100 + (1 << 29) + 10
d.feed(3, 1, t)
d.feed(3, 0, t + 100)
print("stale", d.take(t + 100 + PB.DOUBLE_MS) == [(3, E.BTN_OK)])
# the first press after power-up, at ticks_ms 0
d = PB.ButtonDecoder()
d.feed(0, 1, 0)
d.feed(0, 0, 100)
print("first", d.take(100 + PB.DOUBLE_MS) == [(0, E.BTN_OK)])
"""


def test_presses_across_the_wrap_of_ticks_ms() -> None:
    # the rp2 port's ticks_ms wraps at 2**30 (every 12.4 days); the board
    # model's time wraps as it does. By plain subtraction a release after the
    # wrap was contact bounce, a click never decided, a long press never long
    out = on_board(WRAP)
    for what in ("wraps", "click", "double", "long", "long released", "bounce", "stale", "first"):
        assert f"{what} True" in out, out
