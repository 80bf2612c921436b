"""The board model's second core (host/tractor_table/sim/board/mpy/cores.py):
the firmware's ``_thread`` runs its function on core 1, on board time of its
own, the two cores in turn (the one behind runs), exact where they meet (the
firmware's locks); the flash's sections stop core 1; its stack is checked
against the chip's; what it raises ends its thread, or resets the board.

Every case runs under MicroPython on board time with no CPU charged (the
board's factor 0): the times below are the sleeps' own, exact."""

from __future__ import annotations

import textwrap

from board_rig import on_board

# the firmware's _thread on the board (picoboot.main installs it so)
CORES = """
import sys, cores
sys.modules["_thread"] = cores.ThreadModule(board.cores, lambda: None)
import _thread
"""


def _run(code: str) -> str:
    return on_board(CORES + textwrap.dedent(code))


def _figures(out: str, key: str) -> list[int]:
    for line in out.splitlines():
        if line.startswith(key + " "):
            return [int(x) for x in line.split()[1:]]
    raise AssertionError(f"no {key!r} in:\n{out}")


def test_core1_runs_beside_core0_on_its_own_board_time() -> None:
    # core 1 ticks every 2 ms of board time; core 0 sleeps 100 ms in 10 ms
    # steps and reads core 1's count under a lock at each step: core 1 has
    # run exactly as far as core 0's time (the lock is where they meet)
    out = _run("""
    lk = _thread.allocate_lock()
    n = [0, 0]
    def one():
        t0 = time.ticks_ms()
        while n[1] == 0:
            time.sleep_ms(2)
            lk.acquire()
            n[0] = time.ticks_diff(time.ticks_ms(), t0)
            lk.release()
    t0 = time.ticks_ms()
    _thread.start_new_thread(one, ())
    seen = []
    for i in range(10):
        time.sleep_ms(10)
        lk.acquire()
        seen.append((time.ticks_diff(time.ticks_ms(), t0), n[0]))
        lk.release()
    n[1] = 1
    time.sleep_ms(5)
    lk.acquire()  # (core 1 runs up to here: it saw n[1] and ended)
    lk.release()
    print("seen", " ".join("%d %d" % s for s in seen))
    print("alive", 1 if board.cores.alive1 else 0, board.cores.hand_overs > 10)
    """)
    seen = _figures(out, "seen")
    pairs = list(zip(seen[::2], seen[1::2], strict=True))
    assert [t for t, _ in pairs] == list(range(10, 101, 10)), out
    # core 1's last tick before core 0's time: within one of its 2 ms steps
    for t, c in pairs:
        assert t - 2 <= c <= t, out
    assert "alive 0 True" in out, out  # its function returned: the thread ended


def test_a_flash_section_stops_core1() -> None:
    # core 0 holds the flash 45 ms (an erase's atomic section, FlashCalls):
    # core 1, ticking every ms, stands still through it (multicore lockout)
    out = _run("""
    ticks = []
    stop = [0]
    def one():
        while not stop[0]:
            ticks.append(time.ticks_ms())
            time.sleep_ms(1)
    _thread.start_new_thread(one, ())
    time.sleep_ms(20)
    a = board.clock.now_us
    board.clock.advance_us(45000)  # the erase, as norflash charges it
    board.cores.stall(a, board.clock.now_us)
    time.sleep_ms(20)
    stop[0] = 1
    time.sleep_ms(3)
    gaps = [ticks[i + 1] - ticks[i] for i in range(len(ticks) - 1)]
    print("gaps", max(gaps), len([g for g in gaps if g > 1]))
    print("stalled", board.cores.stalled_n, board.cores.stalled_us // 1000)
    """)
    biggest, long_gaps = _figures(out, "gaps")
    assert 45 <= biggest <= 47 and long_gaps == 1, out
    n, ms = _figures(out, "stalled")
    assert n == 1 and 44 <= ms <= 45, out


def test_core1s_stack_is_the_chips() -> None:
    # a recursion on core 1 that calls a model at each level: it fails
    # deeper with an 8 KiB stack than with the port's default 4 KiB, and
    # never reaches 200 levels (each level is a bytecode frame and a call)
    out = _run("""
    res = []
    def deep(n):
        time.ticks_us()
        return n if n == 0 else 1 + deep(n - 1)
    def one(k):
        try:
            res.append(deep(k))
        except RuntimeError as e:
            res.append(-1)
    for size, k in ((0, 200), (8192, 200), (0, 5)):
        _thread.stack_size(size)
        del res[:]
        _thread.start_new_thread(one, (k,))
        while board.cores.alive1:
            time.sleep_ms(1)
        print("size", size, k, res[0], board.cores.stack_max, board.cores.stack_limit)
    """)
    rows = [[int(x) for x in ln.split()[1:]] for ln in out.splitlines() if ln.startswith("size ")]
    assert len(rows) == 3, out
    (s4, _, r4, used4, lim4), (s8, _, r8, used8, lim8), (_, _, r5, _, _) = rows
    assert r4 == -1 and r8 == -1, out  # 200 levels: too deep for either
    assert lim8 > lim4 and used8 > used4, out  # the larger stack went deeper first
    assert r5 == 5, out  # a shallow call works


def test_core1s_exception_ends_its_thread_and_a_reset_is_the_boards() -> None:
    out = _run("""
    def bad():
        time.sleep_ms(1)
        raise ValueError("core 1 broke")
    _thread.start_new_thread(bad, ())
    for i in range(5):
        time.sleep_ms(1)
    print("after", 1 if board.cores.alive1 else 0)
    def reset():
        time.sleep_ms(1)
        raise machine.BoardReset(machine.WDT_RESET, "the watchdog expired")
    _thread.start_new_thread(reset, ())
    try:
        for i in range(5):
            time.sleep_ms(1)
        print("no reset")
    except machine.BoardReset as r:
        print("reset on core 0:", r.why)
    """)
    assert "ValueError: core 1 broke" in out, out  # printed, as the chip does
    assert "after 0" in out, out
    assert "reset on core 0: the watchdog expired" in out, out


def test_core1s_stack_is_a_block_of_the_heap() -> None:
    # the chip takes core 1's stack from the GC heap (rp2 mpthreadport.c):
    # started, the heap holds about its size more (in this port's bytes:
    # cores.HEAP_DATA), and gives it back once the thread ended
    out = _run("""
    import gc
    stop = [0]
    def one():
        while not stop[0]:
            time.sleep_ms(1)
    gc.collect(); a0 = gc.mem_alloc()
    _thread.stack_size(8192)
    _thread.start_new_thread(one, ())
    time.sleep_ms(2)
    gc.collect(); a1 = gc.mem_alloc()
    stop[0] = 1
    while board.cores.alive1:
        time.sleep_ms(1)
    gc.collect(); a2 = gc.mem_alloc()
    print("heap", a1 - a0, a2 - a0)
    """)
    grew, after = _figures(out, "heap")
    assert 8192 / 0.89 <= grew <= 8192 / 0.89 + 2048, out
    assert after < 1024, out
