from __future__ import annotations

from pathlib import Path

import pytest
from tractor_table import perfdoc


def test_sections_are_replaced_not_duplicated(tmp_path: Path) -> None:
    page = tmp_path / "performance.md"
    perfdoc.write_section("alpha", "first", page)
    perfdoc.write_section("beta", "other", page)
    perfdoc.write_section("alpha", "second", page)
    text = page.read_text()
    assert text.count("<!-- bench:alpha -->") == 1
    assert "second" in text and "first" not in text
    assert "other" in text
    assert text.index("alpha") < text.index("beta")


def test_bad_section_name(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="bad section name"):
        perfdoc.write_section("Has Space", "x", tmp_path / "p.md")
