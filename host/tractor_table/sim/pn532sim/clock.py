"""A real-time clock for the chip model (host side)."""

from __future__ import annotations

import time


class RealClock:
    """Microseconds since an arbitrary start, from ``time.monotonic_ns``."""

    def __init__(self) -> None:
        self._t0 = time.monotonic_ns()

    def ticks_us(self) -> int:
        return (time.monotonic_ns() - self._t0) // 1000

    def ticks_ms(self) -> int:
        return self.ticks_us() // 1000

    def ticks_diff(self, a: int, b: int) -> int:
        return a - b

    def sleep_us(self, us: int) -> None:
        time.sleep(us / 1e6)
