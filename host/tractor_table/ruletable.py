"""What is generated from, and checked against, the rules schema
(:data:`shengji.rules.OPTIONS`): the firmware's option table and the docs.

- ``firmware/ruleopts.py``: the options ``firmware/tableconfig.py`` reads from
  ``table.cfg`` (and the device-engine runners read from a case), one row per
  option in the schema's order, written by :func:`render` (``make rules``);
  :func:`stale` says when the checked-in file is not what the schema gives
  (``tests/foundation/test_rules_schema.py``, as ``make hardware`` is checked).
- :func:`docs_problems`: what docs/rules.md §0's table of options does not say
  as the schema does (an option missing, values, default first, section).

``python -m tractor_table.ruletable`` writes the file; ``--check`` only says
whether it is up to date (exit status 1 when it is not).
"""

from __future__ import annotations

import re
import sys
from collections.abc import Sequence
from pathlib import Path

from shengji.rules import OPTIONS, Option, OptionKind

from .paths import DOCS_DIR, FIRMWARE_DIR

RULEOPTS_PATH = FIRMWARE_DIR / "ruleopts.py"
RULES_DOC = DOCS_DIR / "rules.md"

_KIND = {OptionKind.INT: "INT", OptionKind.FLAG: "FLAG", OptionKind.CHOICE: "CHOICE", OptionKind.LEVELS: "LEVELS"}

_HEAD = '''\
# The rule options table.cfg may set (docs/rules.md §0), as the table reads them.
#
# GENERATED from shengji.rules.OPTIONS by `make rules` -- do not edit;
# tests/foundation/test_rules_schema.py fails when this file and the schema differ.
#
# One row per option, in the schema's order (the order of the rules digest that
# the table sends in its WELCOME and its snapshot, docs/protocol.md):
#   (name, kind, values, default device value)
# kind INT: values (lowest, highest or -1 for no bound, step); FLAG: (), 0 or 1;
# CHOICE: the value names, a value's device number its index (the engine's
# constants: drules.KM_*, drules_hand.LT_*, LL_*, NB_*, FD_*; TableRules'
# partners and revoke); LEVELS: ranks 2..A, a bit mask (bit 0: 2).
# Loaded by tableconfig.py at start and dropped with it; the device-engine
# runners (judge_mp.py) read it too.
try:
    from micropython import const
except ImportError:

    def const(x):  # type: ignore[no-redef]
        return x


INT = const(0)
FLAG = const(1)
CHOICE = const(2)
LEVELS = const(3)

OPTIONS = (
'''


def _default(o: Option) -> int:
    from .rulescodec import device_value

    return device_value(o, o.default)


def _row(o: Option) -> str:
    if o.kind is OptionKind.INT:
        values = f"({o.low}, {o.high}, {o.step})"
    elif o.kind is OptionKind.CHOICE:
        values = "(" + ", ".join(f'"{v}"' for v in o.values) + ("," if len(o.values) == 1 else "") + ")"
    else:
        values = "()"
    return f'    ("{o.name}", {_KIND[o.kind]}, {values}, {_default(o)}),  # docs/rules.md {o.section}\n'


def render(schema: Sequence[Option] = OPTIONS) -> str:
    """``firmware/ruleopts.py`` for ``schema``."""
    return _HEAD + "".join(_row(o) for o in schema) + ")\n"


def stale(schema: Sequence[Option] = OPTIONS, path: Path | None = None) -> list[Path]:
    """The generated files that are not what ``schema`` gives (``[]``: up to date)."""
    target = path or RULEOPTS_PATH
    try:
        now = target.read_text(encoding="utf-8")
    except FileNotFoundError:
        return [target]
    return [] if now == render(schema) else [target]


def _options_table(text: str) -> list[list[str]]:
    lines = text.splitlines()
    try:
        start = next(i for i, line in enumerate(lines) if line.startswith("| option |"))
    except StopIteration:
        return []
    rows: list[list[str]] = []
    for line in lines[start + 1 :]:
        if line.startswith("|"):
            rows.append([c.strip() for c in line.strip().strip("|").split("|")])
        elif rows:
            break
    return rows[1:]


def _doc_values(o: Option) -> list[str]:
    if o.kind is OptionKind.FLAG:
        return ["true", "false"] if o.default else ["false", "true"]
    if o.kind is OptionKind.CHOICE:
        d = str(o.default)
        return [d] + [v for v in o.values if v != d]
    return []


def docs_problems(schema: Sequence[Option] = OPTIONS, text: str | None = None) -> list[str]:
    """What docs/rules.md §0's table of options says otherwise than ``schema``, one
    line each naming the option (``[]``: the docs follow the schema)."""
    doc = RULES_DOC.read_text(encoding="utf-8") if text is None else text
    rows = _options_table(doc)
    if not rows:
        return ["docs/rules.md: no table of options (a table headed '| option |' in §0)"]
    by_name = {r[0].strip("`"): r for r in rows}
    problems = []
    listed = [r[0].strip("`") for r in rows]
    for o in schema:
        row = by_name.get(o.name)
        if row is None:
            problems.append(f"docs/rules.md §0: option {o.name} is not in the table of options (add its row)")
            continue
        if len(row) < 4:
            problems.append(f"docs/rules.md §0: the row of {o.name} has {len(row)} cells, not 5")
            continue
        values = [v.strip().strip("`") for v in row[1].split(",")]
        want = _doc_values(o)
        if want and values != want:
            problems.append(f"docs/rules.md §0: {o.name} lists {', '.join(values)}, the schema {', '.join(want)} (default first)")
        if o.kind is OptionKind.INT and values[0] != str(o.default):
            problems.append(f"docs/rules.md §0: {o.name} lists {values[0]} first, the schema's default is {o.default}")
        if o.kind is OptionKind.LEVELS and values[0] != ("none" if not o.default else " ".join(o.default)):
            problems.append(f"docs/rules.md §0: {o.name} lists {values[0]} first, the schema's default is none")
        if row[3] != o.section:
            problems.append(f"docs/rules.md §0: {o.name} cites {row[3]}, the schema {o.section}")
        if not re.fullmatch(r"§\d+(\.\d+)?", o.section):
            problems.append(f"the schema: {o.name} cites {o.section!r}, not a section of docs/rules.md")
    known = {o.name for o in schema}
    for name in listed:
        if name not in known:
            problems.append(f"docs/rules.md §0: {name} is in the table of options but not an option of the schema")
    if [n for n in listed if n in known] != [o.name for o in schema if o.name in by_name]:
        problems.append("docs/rules.md §0: the options are not listed in the schema's order")
    return problems


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if args and args != ["--check"]:
        print("usage: python -m tractor_table.ruletable [--check]", file=sys.stderr)
        return 2
    if args == ["--check"]:
        out = stale()
        for p in out:
            print(f"stale: {p.name} (run 'make rules')", file=sys.stderr)
        return 1 if out else 0
    RULEOPTS_PATH.write_text(render(), encoding="utf-8")
    print(f"wrote {RULEOPTS_PATH.relative_to(FIRMWARE_DIR.parent)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
