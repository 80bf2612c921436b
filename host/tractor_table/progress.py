"""Progress of long work: a bar with the rate and the time left on a terminal
(Rich), plain lines when the output is a file or a pipe (a log stays readable).

    with Progress("fuzz-rules", total=1000, unit="hands") as bar:
        for ...:
            bar.update(done)          # or bar.advance()
            bar.say("a line above the bar")

Plain lines come at most every ``every`` seconds and at every tenth of the
work, plus one at the end: ``fuzz-rules: 500/1000 hands (50%), 61.2 hands/s,
about 8 s left``. Used by fuzz-rules, enroll, deckcheck, deploy and the benches.
"""

from __future__ import annotations

import re
import sys
import time
from collections.abc import Callable
from types import TracebackType
from typing import Any, TextIO

_COUNT = re.compile(r"\((\d+)/(\d+)\)")


def rate_text(done: float, seconds: float, unit: str) -> str:
    if seconds <= 0 or done <= 0:
        return f"- {unit}/s"
    r = done / seconds
    return f"{r:.1f} {unit}/s" if r < 100 else f"{r:.0f} {unit}/s"


def left_text(done: float, total: float, seconds: float, begin: float = 0.0) -> str:
    if done - begin <= 0 or seconds <= 0 or total <= done:
        return "done" if total <= done else "time left unknown"
    left = (total - done) * seconds / (done - begin)
    if left >= 90:
        return f"about {left / 60:.0f} min left"
    return f"about {left:.0f} s left"


class Progress:
    """One task's progress, shown on ``stream`` (default stderr)."""

    def __init__(
        self,
        label: str,
        total: float,
        *,
        unit: str = "items",
        stream: TextIO | None = None,
        every: float = 5.0,
        terminal: bool | None = None,
        clock: Any = time.monotonic,
        say_stream: TextIO | None = None,
        plain: bool = True,
        start: float = 0.0,
    ) -> None:
        self.label = label
        self.total = max(float(total), 0.0)
        self.unit = unit
        self.stream = stream if stream is not None else sys.stderr
        self.every = every
        #: where say() prints when there is no bar (default stdout)
        self.say_stream = say_stream
        #: plain lines when there is no terminal (False: the work's own lines tell
        #: the count already, as enroll's "(k/N)")
        self.plain = plain
        #: work done before this run (a resumed enrollment): not in the rate
        self.begin = float(start)
        self.clock = clock
        if terminal is None:
            isatty = getattr(self.stream, "isatty", None)
            terminal = bool(isatty()) if isatty is not None else False
        self.terminal = terminal
        self.done = float(start)
        self.t0 = clock()
        self._last_line = -1e18
        self._last_tenth = 0
        self._printed = -1.0  # the work done at the last plain line
        self._rich: Any = None
        self._task: Any = None

    # --- life cycle ---------------------------------------------------------------

    def __enter__(self) -> Progress:
        return self.start()

    def __exit__(
        self, et: type[BaseException] | None, ev: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop(finished=et is None)

    def start(self) -> Progress:
        self.t0 = self._last_line = self.clock()
        if self.terminal:
            from rich.console import Console
            from rich.progress import (
                BarColumn,
                MofNCompleteColumn,
                TaskProgressColumn,
                TextColumn,
                TimeElapsedColumn,
                TimeRemainingColumn,
            )
            from rich.progress import Progress as RichProgress

            console = Console(file=self.stream, force_terminal=True)
            self._rich = RichProgress(
                TextColumn("{task.description}"),
                BarColumn(),
                MofNCompleteColumn(),
                TextColumn(self.unit),
                TaskProgressColumn(),
                TextColumn("{task.fields[rate]}"),
                TimeElapsedColumn(),
                TextColumn("ETA"),
                TimeRemainingColumn(),
                console=console,
                transient=False,
            )
            self._rich.start()
            self._task = self._rich.add_task(self.label, total=self.total or None, rate="",
                                             completed=self.done)
        return self

    def stop(self, finished: bool = True) -> None:
        if self._rich is not None:
            self._rich.refresh()
            self._rich.stop()
            self._rich = None
        elif finished or self.done > self.begin:
            self._line(force=True)

    # --- updates --------------------------------------------------------------------

    def update(self, done: float, total: float | None = None) -> None:
        if total is not None:
            self.total = float(total)
        self.done = float(done)
        seconds = self.clock() - self.t0
        if self._rich is not None:
            self._rich.update(
                self._task, completed=self.done, total=self.total or None,
                rate=rate_text(self.done - self.begin, seconds, self.unit),
            )
            return
        self._line()

    def advance(self, n: float = 1) -> None:
        self.update(self.done + n)

    def say(self, text: str) -> None:
        """A line of its own (above the bar on a terminal)."""
        if self._rich is not None:
            self._rich.console.print(text, markup=False, highlight=False)
        else:
            print(text, file=self.say_stream or sys.stdout, flush=True)

    def counting_say(self) -> Callable[[str], None]:
        """A ``say`` for code that tells its count as "(k/N)" in its lines
        (enroll, deckcheck): each line said, the bar moved to k."""

        def say(text: str) -> None:
            self.say(text)
            m = _COUNT.search(text)
            if m:
                self.update(int(m[1]), int(m[2]))

        return say

    def line(self) -> str:
        """The plain line for the progress so far."""
        seconds = self.clock() - self.t0
        total = f"/{self.total:g}" if self.total else ""
        pct = f" ({100 * self.done / self.total:.0f}%)" if self.total else ""
        left = f", {left_text(self.done, self.total, seconds, self.begin)}" if self.total else ""
        return (f"{self.label}: {self.done:g}{total} {self.unit}{pct}, "
                f"{rate_text(self.done - self.begin, seconds, self.unit)}{left}")

    def _line(self, force: bool = False) -> None:
        if not self.plain:
            return
        now = self.clock()
        tenth = int(10 * self.done / self.total) if self.total else 0
        if not force and tenth <= self._last_tenth and now - self._last_line < self.every:
            return
        if not force and self.done <= self.begin:
            return
        if force and self.done == self._printed:
            return
        self._printed = self.done
        self._last_tenth = max(tenth, self._last_tenth)
        self._last_line = now
        print(self.line(), file=self.stream, flush=True)
