"""Progress of long work (tractor_table.progress): a Rich bar with the rate and
the time left on a terminal, plain lines otherwise; fuzz-rules stopped with
Ctrl-C prints its partial summary and exits 130."""

from __future__ import annotations

import io
import os
import signal
import subprocess
import sys
import time

from ctrl_c import default_sigint
from tractor_table.progress import Progress


class Clock:
    def __init__(self) -> None:
        self.t = 0.0

    def __call__(self) -> float:
        return self.t


def test_plain_lines_at_each_tenth_with_rate_and_time_left() -> None:
    out, clock = io.StringIO(), Clock()
    with Progress("fuzz-rules", 100, unit="hands", stream=out, clock=clock, every=1e9) as bar:
        for done in range(1, 101):
            clock.t = done * 0.5  # 2 hands a second
            bar.update(done)
    lines = out.getvalue().splitlines()
    assert len(lines) == 10  # one at each tenth; the end adds none (already said)
    assert lines[0] == "fuzz-rules: 10/100 hands (10%), 2.0 hands/s, about 45 s left"
    assert lines[4] == "fuzz-rules: 50/100 hands (50%), 2.0 hands/s, about 25 s left"
    assert lines[-1] == "fuzz-rules: 100/100 hands (100%), 2.0 hands/s, done"


def test_plain_lines_also_every_few_seconds_and_none_without_work() -> None:
    out, clock = io.StringIO(), Clock()
    bar = Progress("x", 1000, unit="items", stream=out, clock=clock, every=5).start()
    bar.update(0)
    assert out.getvalue() == ""
    for done in (1, 2, 3):
        clock.t = done * 3.0
        bar.update(done)
    bar.stop(finished=False)
    assert out.getvalue().splitlines() == [
        "x: 2/1000 items (0%), 0.3 items/s, about 50 min left",  # 5 s or more after the start
        "x: 3/1000 items (0%), 0.3 items/s, about 50 min left",  # the partial count at the stop
    ]


def test_on_a_terminal_a_rich_bar_with_rate_and_eta() -> None:
    out = io.StringIO()
    with Progress("enroll", 54, unit="cards", stream=out, terminal=True) as bar:
        bar.say("enrolled 2S as 04aabbccddeeff (1/54)")
        for k in range(1, 28):
            bar.update(k)
            time.sleep(0.002)
    text = out.getvalue()
    assert "\x1b[" in text  # drawn with the terminal's escapes
    assert "enroll" in text and "27/54" in text and "50%" in text
    assert "cards/s" in text and "ETA" in text
    assert "enrolled 2S as 04aabbccddeeff (1/54)" in text


def test_counting_say_moves_the_bar_and_plain_off_adds_no_lines() -> None:
    out, said = io.StringIO(), io.StringIO()
    bar = Progress("enroll", 54, unit="cards", stream=out, say_stream=said, plain=False, start=10)
    with bar:
        say = bar.counting_say()
        say("[11/54] tap 4S")
        say("enrolled 4S as 04 (11/54)")
    assert bar.done == 11 and out.getvalue() == ""
    assert said.getvalue().splitlines() == ["[11/54] tap 4S", "enrolled 4S as 04 (11/54)"]


def test_fuzz_rules_ctrl_c_prints_the_partial_summary_and_exits_130() -> None:
    proc = subprocess.Popen(
        [sys.executable, "-m", "tractor_table.cli", "fuzz-rules", "--hands", "100000", "--seed", "3",
         "--out", os.devnull + ".d"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, preexec_fn=default_sigint,
    )
    assert proc.stderr is not None
    first = ""
    for line in proc.stderr:  # its progress: MicroPython has started and judged some hands
        if line.startswith("fuzz-rules: ") and "/100000 hands" in line:
            first = line
            break
    assert first, "fuzz-rules ended before it showed any progress"
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, (out, err)
    summary = [x for x in out.splitlines() if x.startswith("fuzz-rules:")]
    assert len(summary) == 1, out
    assert "interrupted after " in summary[0] and " of 100000 hands; so far the engines agree" in summary[0]
    hands = int(summary[0].split("fuzz-rules: ")[1].split(" hands")[0])
    assert hands > 0 and f"interrupted after {hands} of" in summary[0]
    assert "Traceback" not in err


def test_virtual_bots_ctrl_c_prints_what_was_played_and_exits_130() -> None:
    proc = subprocess.Popen(
        [sys.executable, "-m", "tractor_table.cli", "virtual", "--bots", "--hands", "50", "--readers",
         "direct", "--no-record"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, preexec_fn=default_sigint,
    )
    assert proc.stdout is not None
    played = 0
    for line in proc.stdout:  # wait until some tricks are played
        if line.lstrip().startswith("trick "):
            played += 1
            if played == 3:
                break
    assert played == 3, "the bots ended before they played three tricks"
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, (out, err)
    assert "interrupted (Ctrl-C) during hand " in out and " of 50: the figures above are partial" in out
    assert "verifier (full engine replaying the link's events): " in out
    assert "Traceback" not in err
