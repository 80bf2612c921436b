"""The console's colours: cards by suit (hearts and diamonds red, spades and
clubs in the terminal's own ink, "black"; the big joker red, the small one
black), and the verifier's verdicts (agreed green, disagrees red, not verified
or not judged yellow and dim), refusals yellow."""

from __future__ import annotations

import re

from rich.highlighter import Highlighter
from rich.text import Text

RED = "bold red"
BLACK = "bold"
AGREED = "green"
DISAGREES = "bold white on red"
NOT_VERIFIED = "yellow"
NOT_JUDGED = "dim"
REFUSED = "yellow"

_CARD = re.compile(r"(?<![\w#])(?:10|[2-9TJQKA])([SHDC])(?:#\d)?(?!\w)|(?<!\w)(SJ|BJ)(?!\w)")
_WORDS: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"\[agreed\]|\b\d+ agreed\b"), AGREED),
    (re.compile(r"\[DISAGREES\]|\bDISAGREEMENT\b|\b[1-9]\d* disagree(?:ment)?s?\b"), DISAGREES),
    (re.compile(r"\[not verified[^\]]*\]|not verifying[^)\n]*"), NOT_VERIFIED),
    (re.compile(r"\[not judged\]"), NOT_JUDGED),
    (re.compile(r"\brefused\b|\bnot a bid\b|\bbid too weak\b"), REFUSED),
)


def card_style(suit: str) -> str:
    return RED if suit in ("H", "D", "BJ") else BLACK


class ConsoleHighlighter(Highlighter):
    """Colours a pane's or a log line's text in place."""

    def highlight(self, text: Text) -> None:
        plain = text.plain
        for m in _CARD.finditer(plain):
            suit = m[1] or m[2]
            text.stylize(card_style(suit), m.start(), m.end())
        for pattern, style in _WORDS:
            for m in pattern.finditer(plain):
                text.stylize(style, m.start(), m.end())


HIGHLIGHTER = ConsoleHighlighter()


def coloured(text: str) -> Text:
    return HIGHLIGHTER(text)
