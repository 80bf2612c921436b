"""Write benchmark figures into ``docs/performance.md``.

Each benchmark owns one section of the page, fenced by HTML comments
``<!-- bench:NAME -->`` … ``<!-- /bench:NAME -->``; writing a section replaces
only that section, so benchmarks can run alone or together and the rest of the
page (prose, other figures) is kept.
"""

from __future__ import annotations

import platform
import re
import statistics
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from .paths import DOCS_DIR

PAGE = DOCS_DIR / "performance.md"

_HEADER = """# Performance

Figures measured by `make bench` (the section "Flash" by `make soak-flash`:
the power-cut soak takes minutes, so `make bench` leaves it out) on the machine
named in each section. Machines here are shared and noisy: each figure is a
median over repeated runs, and where it matters it is given as a ratio to a
reference measured in the same run.

"""


def machine_line() -> str:
    """A one-line description of where a figure was measured, and when."""
    return (
        f"{platform.machine()}, {platform.python_implementation()} "
        f"{platform.python_version()}, {time.strftime('%Y-%m-%d')}"
    )


def median(values: Sequence[float]) -> float:
    return statistics.median(values)


def write_section(name: str, body: str, page: Path = PAGE) -> None:
    """Replace (or append) the section ``name`` of the performance page with ``body``."""
    if not re.fullmatch(r"[a-z0-9_-]+", name):
        raise ValueError(f"bad section name {name!r}: use lower-case letters, digits, - and _")
    start, end = f"<!-- bench:{name} -->", f"<!-- /bench:{name} -->"
    block = f"{start}\n{body.strip()}\n{end}"
    text = page.read_text(encoding="utf-8") if page.exists() else _HEADER
    pattern = re.compile(re.escape(start) + r".*?" + re.escape(end), re.S)
    if pattern.search(text):
        text = pattern.sub(lambda _m: block, text)
    else:
        text = text.rstrip("\n") + "\n\n" + block + "\n"
    page.parent.mkdir(parents=True, exist_ok=True)
    page.write_text(text, encoding="utf-8")
    print(f"wrote section '{name}' of {page}", file=sys.stderr)
