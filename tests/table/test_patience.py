"""sim/patience.py: a time-out that a busy machine does not fire, and that a
hung table still does."""

from __future__ import annotations

import os
import subprocess
import sys
import time

import pytest
from tractor_table.sim import patience as patience_mod
from tractor_table.sim.patience import Patience, run_delay_ns


def test_a_hung_process_still_runs_out_of_patience() -> None:
    # an idle child (it never answers) waits for no CPU: the time-out is wall time
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    try:
        p = Patience(0.3, [child.pid])
        while not p.expired():
            time.sleep(0.02)
        assert p.used() >= 0.3 and p.left() == 0
    finally:
        child.kill()
        child.wait()


def test_the_run_delay_reads_as_nothing_for_a_process_that_is_gone() -> None:
    assert run_delay_ns(os.getpid()) >= 0
    assert run_delay_ns(2**22 + 12345) == 0  # no such process: plain wall time


def test_time_spent_waiting_for_a_cpu_is_not_counted(monkeypatch: pytest.MonkeyPatch) -> None:
    # the kernel's figure stood in for: 0.5 s of waiting for a CPU in 0.05 s of wall time
    delay = {"ns": 0}
    monkeypatch.setattr(patience_mod, "run_delay_ns", lambda pid: delay["ns"])
    p = Patience(0.2, [1], self_too=False)
    time.sleep(0.05)
    delay["ns"] = 500_000_000
    assert p.used() == 0.0 and not p.expired()
    delay["ns"] = 0  # a figure that went back (a process gone) never counts twice
    assert p.used() >= 0.05


def test_a_relaunched_process_is_followed(monkeypatch: pytest.MonkeyPatch) -> None:
    # a board relaunched after a reset is a new process: the one followed now
    # (``follow``) is watched, and what the one before waited for a CPU still
    # counts once it is gone (reset tests on a loaded machine timed out on
    # the new process's wait, counted as the table's)
    delay = {1: 100_000_000, 2: 0}
    monkeypatch.setattr(patience_mod, "run_delay_ns", lambda pid: delay.get(pid, 0))
    current = [1]
    p = Patience(0.2, follow=lambda: current, self_too=False)
    time.sleep(0.05)
    delay[1] = 400_000_000  # the first process waited 0.3 s more, then is gone
    assert p.used() == 0.0
    delay[1] = 0
    current[0] = 2  # its successor, started since: all its wait counts
    delay[2] = 300_000_000
    assert p.used() == 0.0 and not p.expired()
    time.sleep(0.05)
    delay[2] = 300_000_000  # no more waiting: wall time runs on
    assert 0.0 <= p.used() < 0.2
    # without following, the new process's wait was the table's
    q = Patience(0.2, [1], self_too=False)
    delay[1] = 0
    time.sleep(0.25)
    assert q.expired()
