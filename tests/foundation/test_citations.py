"""Code, ``--help`` and the docs cite only documents in the repository.

The rules are cited as ``docs/rules.md §N.M`` (docs/rules.md, "How to cite this
page"). A citation of a document that is not in the repository — the shared
notes' ``RULES.md``, ``INTERFACES``, ``CONFORMANCE.md``, ``ARCHITECTURE.md``, the
source texts ("seed 001 §捌", named only in docs/rules.md §14), "engine I" — or of
a section of docs/rules.md that does not exist fails here, naming the file, the
line and what to write instead.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
RULES_DOC = ROOT / "docs" / "rules.md"

#: Where citations are checked: every text file below these (README.md and the
#: build files at the top too).
CHECKED = ("engine", "host", "docs", "bench", "hardware", "tests", "tools", "README.md", "Makefile", "pyproject.toml")
#: Not yet moved to docs/rules.md: each turns into a failure (strict xfail) when
#: its citations are mended, and then joins CHECKED.
PENDING = {
    "firmware": "firmware/ still cites RULES.md and the seeds (its engineers edit those files now)",
}
SUFFIXES = {".py", ".md", ".txt", ".toml", ".cfg", ".ini", ".sh", ".tcss"}
NAMES = {"Makefile"}
#: Files that name a forbidden citation on purpose (to check it is absent).
ALLOWED = {
    Path("tests/foundation/test_citations.py"),
    Path("tests/foundation/test_messages.py"),  # asserts "RULES.md preset" is not in --help
}

#: (what is wrong, pattern, what to write instead)
FORBIDDEN: tuple[tuple[str, re.Pattern[str], str], ...] = (
    ("RULES.md (the shared notes, not in the repository)",
     re.compile(r"(?<![\w./-])RULES(?:\.md\b|\s*§|\s+section\b)"), "docs/rules.md §N"),
    ("a source text (seed NNN), named only in docs/rules.md §14",
     re.compile(r"\bseeds?\s+0\d\d\b", re.IGNORECASE), "the docs/rules.md section that carries the rule"),
    ("INTERFACES (notes not in the repository)",
     re.compile(r"\bINTERFACES\b"), "docs/rules.md §1 (card ids), docs/protocol.md (the link)"),
    ("'engine I/II' (a session's name, not a document)",
     re.compile(r"\b[Ee]ngine II?\b"), "the module: shengji.play, shengji.hand, ..."),
    ("a shared note not in the repository",
     re.compile(r"\b(?:ARCHITECTURE|CONFORMANCE|STYLE|PREAMBLE)\.md\b|rp2040-figures\.md|/work/(?:shared|issues)\b"),
     "the docs/ page (conformance cases: docs/rules.md §13, tractor-table judge --help)"),
)
#: A § that belongs to another document: a datasheet's, or a source's in docs/rules.md §14.
FOREIGN_SECTION = re.compile(r"(?:\bUM\d{4}-\d\d|\bseeds?\s+\d+(?:'s)?)\s*$")
SECTION = re.compile(r"§\s?(\d+(?:\.\d+)*)(?:\s?-\s?§?(\d+(?:\.\d+)*))?")
NAMED = re.compile(r"rules\.md,?\s*\(?\"([^\"]+)\"")


def rules_sections(text: str | None = None) -> set[str]:
    """The section numbers docs/rules.md defines: its headings' ``§N.M`` and its bold ``**§N.M``."""
    text = RULES_DOC.read_text(encoding="utf-8") if text is None else text
    found = set(re.findall(r"^#{1,6} §(\d+(?:\.\d+)*)\b", text, re.MULTILINE))
    found |= set(re.findall(r"\*\*§(\d+(?:\.\d+)*)\b", text))
    return found


def rules_names(text: str | None = None) -> set[str]:
    """The headings and bold terms of docs/rules.md, that a citation may quote by name."""
    text = RULES_DOC.read_text(encoding="utf-8") if text is None else text
    names = {re.sub(r"^§\S+\s+", "", h).strip() for h in re.findall(r"^#{1,6} (.+)$", text, re.MULTILINE)}
    names |= {b.strip().rstrip(".") for b in re.findall(r"\*\*([^*]+)\*\*", text)}
    return names


def problems(text: str, where: str, sections: set[str], names: set[str], *, rules_doc: bool = False) -> list[str]:
    """Every citation in ``text`` that is not to the repository, as ``where:line: what (write: ...)``."""
    out: list[str] = []
    for n, line in enumerate(text.splitlines(), 1):
        for what, pattern, instead in FORBIDDEN:
            if rules_doc and what.startswith("a source text"):
                continue  # docs/rules.md names the sources (§14)
            for m in pattern.finditer(line):
                out.append(f"{where}:{n}: cites {what}: {m.group(0)!r}; write {instead}")
        for m in SECTION.finditer(line):
            if FOREIGN_SECTION.search(line[: m.start()]):
                continue
            start, end = m.group(1), m.group(2)
            cited = [start]
            if end:
                cited.append(end if "." in end or "." not in start else f"{start.split('.')[0]}.{end}")
            for s in cited:
                if s not in sections:
                    out.append(f"{where}:{n}: cites docs/rules.md §{s}, which does not exist "
                               f"(its sections: the headings of docs/rules.md)")
        for m in NAMED.finditer(line):
            if m.group(1) not in names:
                out.append(f"{where}:{n}: cites docs/rules.md {m.group(1)!r}, no heading or term of that name")
    return out


def _files(top: str) -> Iterator[Path]:
    base = ROOT / top
    if base.is_file():
        yield base
        return
    for path in sorted(base.rglob("*")):
        if any(part in {"__pycache__", ".venv", "build", "node_modules"} for part in path.parts):
            continue
        if path.is_file() and (path.suffix in SUFFIXES or path.name in NAMES):
            yield path


def _problems_in(tops: tuple[str, ...]) -> list[str]:
    sections, names = rules_sections(), rules_names()
    out: list[str] = []
    for top in tops:
        for path in _files(top):
            rel = path.relative_to(ROOT)
            if rel in ALLOWED:
                continue
            text = path.read_text(encoding="utf-8", errors="replace")
            out += problems(text, str(rel), sections, names, rules_doc=path == RULES_DOC)
    return out


def test_rules_md_has_numbered_sections_for_every_part_of_the_rules() -> None:
    sections = rules_sections()
    # §1-§11 as the shared normative notes (one to one), the subsections code cites
    for s in [str(i) for i in range(15)] + ["5.2", "6.1", "6.2", "6.3", "8.1", "8.4", "8.6", "9.1", "10.1", "10.3"]:
        assert s in sections, s


def test_code_and_docs_cite_only_documents_in_the_repository() -> None:
    found = _problems_in(CHECKED)
    assert not found, "\n".join(found)


@pytest.mark.parametrize(
    "top", [pytest.param(top, marks=pytest.mark.xfail(strict=True, reason=why)) for top, why in PENDING.items()]
)
def test_pending_trees_cite_only_documents_in_the_repository(top: str) -> None:
    found = _problems_in((top,))
    assert not found, "\n".join(found)


def test_help_cites_only_documents_in_the_repository() -> None:
    from tractor_table import cli

    parser = cli.build_parser()
    texts = [("tractor-table --help", parser.format_help())]
    sub = next(a for a in parser._actions if a.dest == "command")
    texts += [(f"tractor-table {name} --help", p.format_help()) for name, p in sub.choices.items()]  # type: ignore[attr-defined]
    assert len(texts) == len(cli.COMMANDS) + 1
    sections, names = rules_sections(), rules_names()
    found = [p for where, text in texts for p in problems(text, where, sections, names)]
    assert not found, "\n".join(found)


# --- the checker itself: each rule with a citation it refuses and one it takes ---

SECTIONS = {"5", "5.2", "6", "6.1", "6.2", "10", "10.1"}
NAMES_ = {"Declaring trump", "How the table reads it"}


@pytest.mark.parametrize(
    "bad",
    [
        "the weakest unit (RULES.md §5)",
        "see RULES §6.2",
        "RULES.md section 10: a revoke",
        "the tournament rule (seed 001 §捌)",
        "# seeds 000/003, 2 decks",
        "the id of INTERFACES.md",
        "the project's INTERFACES notes",
        "engine I supplies the checks",
        "Code (engine II): shengji.settle",
        "conformance cases (CONFORMANCE.md)",
        "The budget (ARCHITECTURE.md)",
        "docs/rules.md §7.4",  # no such section
        "docs/rules.md §6.1-4",  # the range's end does not exist
        "breaks §11",  # a bare § is docs/rules.md's
        'docs/rules.md, "Declaring trumps"',  # no such heading
    ],
)
def test_the_checker_refuses_a_citation_outside_the_repository(bad: str) -> None:
    assert problems(bad, "x.py", SECTIONS, NAMES_), bad


@pytest.mark.parametrize(
    "good",
    [
        "the weakest unit (docs/rules.md §5.2)",
        "(docs/rules.md §6.1-2, §10)",
        "docs/rules.md §5-§6.2",
        'docs/rules.md, "Declaring trump"',
        '[rules.md](rules.md), "How the table reads it"',
        "UM0701-02 §7.3.1: CIU_RFCfg",  # a datasheet's section
        "rp2040.RULES * rp2040.FLASH_WAIT; RULES_ID",
        "--seed 1000; seed 553",
        "the engine is one",
    ],
)
def test_the_checker_takes_a_citation_of_the_repository(good: str) -> None:
    assert problems(good, "x.py", SECTIONS, NAMES_) == [], good


def test_docs_rules_md_may_name_its_sources() -> None:
    line = "| `tournament` | ... | seed 001 §捌 十二 |"
    assert problems(line, "docs/rules.md", SECTIONS, NAMES_, rules_doc=True) == []
    assert problems(line, "docs/firmware.md", SECTIONS, NAMES_)
