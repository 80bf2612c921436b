"""A log pane that wraps its long lines (none is cut off, none needs a
horizontal scroll bar at 80 columns) and colours them (console/colour.py);
it keeps its lines as plain text too (:attr:`TextLog.plain`)."""

from __future__ import annotations

from collections.abc import Iterable

from textual.widgets import RichLog

from .colour import coloured


class TextLog(RichLog):
    def __init__(self, *, id: str | None = None, max_lines: int | None = None) -> None:
        super().__init__(id=id, max_lines=max_lines, wrap=True, markup=False, highlight=False,
                         auto_scroll=True)
        self.max_kept = max_lines
        #: every line written, as plain text (the last max_lines of them)
        self.plain: list[str] = []

    def write_line(self, line: str) -> None:
        self.plain.append(line)
        if self.max_kept is not None and len(self.plain) > self.max_kept:
            del self.plain[: len(self.plain) - self.max_kept]
        width = self.scrollable_content_region.width
        # wrapped at the pane's width once it is known (RichLog's own measure
        # wraps at its min_width, 78, on a wide screen)
        self.write(coloured(line), width=width if width > 0 else None)

    def write_lines(self, lines: Iterable[str]) -> None:
        for line in lines:
            self.write_line(line)
