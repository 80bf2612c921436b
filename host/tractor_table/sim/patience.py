"""Time-outs that do not fire because the machine is busy.

A simulator waits for a firmware process (MicroPython's unix port) to answer,
with a time-out only to catch a table that hangs. On a loaded machine (two
cores, a test suite with ``-n 2`` and other work beside it) a process can wait
seconds for a CPU, and a wall-clock time-out then fails a table that is only
slow. :class:`Patience` counts time as the process would have lived it on an
idle machine: the wall time less what the watched processes spent runnable but
not running (Linux ``schedstat``, the run delay, summed over their threads).
A process that hangs (idle, or spinning on a CPU it has) still runs out of
patience after the time given; one that waits for a CPU does not.

Where ``/proc/PID/task/*/schedstat`` cannot be read (not Linux, or the process
has gone) the run delay reads as nothing: plain wall time, the safe old
behaviour."""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterable
from pathlib import Path


def run_delay_ns(pid: int) -> int:
    """The nanoseconds every thread of process ``pid`` has spent waiting for a
    CPU since it started (0 if that cannot be read)."""
    total = 0
    try:
        tasks = list(Path(f"/proc/{pid}/task").iterdir())
    except OSError:
        return 0
    for task in tasks:
        try:
            fields = (task / "schedstat").read_text().split()
            total += int(fields[1])
        except (OSError, IndexError, ValueError):
            continue
    return total


class Patience:
    """``seconds`` of time as an idle machine would count it, for the processes
    ``pids`` (the firmware's, and by default this one: its reader threads must
    run for an answer to arrive)."""

    def __init__(
        self,
        seconds: float,
        pids: Iterable[int] = (),
        *,
        self_too: bool = True,
        follow: Callable[[], Iterable[int]] | None = None,
    ) -> None:
        self.seconds = seconds
        self.pids = [p for p in pids if p > 0]
        if self_too:
            self.pids.append(os.getpid())
        self.start = time.monotonic()
        self.delay0 = self._delay()
        # ``follow``: the firmware's process now, read at each look (a board
        # relaunched after a reset or a power cut is a new process: watched
        # by its first pid only, its successor's wait for a CPU was counted
        # as the table's, and reset tests timed out on a loaded machine).
        # Each process followed: its run delay when first seen (0 for one
        # started since) and the largest read; their waits add up, one after
        # the other
        self.follow = follow
        self._seen: dict[int, list[int]] = {}
        if follow is not None:
            for pid in follow():
                if pid > 0:
                    d = run_delay_ns(pid)
                    self._seen[pid] = [d, d]

    def _delay(self) -> float:
        # the largest process's run delay: each process's own wait counts once,
        # and summing over processes would stretch the time-out for nothing
        return max((run_delay_ns(p) for p in self.pids), default=0) / 1e9

    def _followed(self) -> float:
        if self.follow is None:
            return 0.0
        for pid in self.follow():
            if pid <= 0:
                continue
            d = run_delay_ns(pid)
            seen = self._seen.get(pid)
            if seen is None:
                self._seen[pid] = [0, d]
            elif d > seen[1]:
                seen[1] = d  # (a process gone reads 0: what it waited stays)
        return sum(last - base for base, last in self._seen.values()) / 1e9

    def used(self) -> float:
        """Seconds of the time-out used so far."""
        waited = max(0.0, self._delay() - self.delay0, self._followed())
        return max(0.0, time.monotonic() - self.start - waited)

    def left(self) -> float:
        """Seconds left before the time-out (0 once it has run out)."""
        return max(0.0, self.seconds - self.used())

    def expired(self) -> bool:
        return self.left() <= 0
