"""The one codec of the rule options: ``shengji.Rules`` ⇄ ``table.cfg`` ⇄ the
device engine's numbers ⇄ the table's rules digest.

Everything here follows the schema, :data:`shengji.rules.OPTIONS` (name, kind,
values, default, the section of docs/rules.md); each function takes it as
``schema`` so that a test can add an option and see every reader follow.
The table reads the same options with ``firmware/tableconfig.py`` and its
table ``firmware/ruleopts.py``, generated from the schema
(:mod:`tractor_table.ruletable`).

- :func:`table_cfg` / :func:`cfg_lines`: the options as ``table.cfg`` lines
  (``deploy``, the virtual table, the board model), :func:`read_cfg` back.
- :func:`device_values`: each option as the number the device engine takes (a
  flag 0/1, a choice its index in the schema's values, a set of levels a bit
  mask over 2 … A); the same numbers make the digest.
- :func:`digest` / :func:`read_digest`: the rules digest the table sends in its
  WELCOME and its snapshot (docs/protocol.md): the device values in the
  schema's order, joined by ``.`` (``"2.0.0.0.0.0.0.0.0.1.0.0.0.0.0"`` for the
  classic game). It reads back, so the host can say which options differ
  (:func:`differences`, :func:`mismatch_line`) or take the table's rules
  (:func:`rules_of_digest`).
- :func:`case_rules`: the options as a conformance case's ``rules`` object
  (plain JSON values), what the device-engine processes read (judge, the
  fuzzers, the benches).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Final

from shengji.rules import OPTIONS, InvalidRulesError, Option, OptionKind, Rules

__all__ = [
    "RANKS",
    "RulesCodecError",
    "case_rules",
    "cfg_lines",
    "device_value",
    "device_values",
    "differences",
    "digest",
    "mismatch_line",
    "plain",
    "read_cfg",
    "read_digest",
    "rules_of_digest",
    "table_cfg",
    "value_text",
]

#: The levels 2 … A, bit k of a LEVELS option's mask (docs/rules.md §1, ranks 0 … 12).
RANKS: Final = "23456789TJQKA"

Schema = Sequence[Option]


class RulesCodecError(ValueError):
    """A table.cfg value or a digest that does not fit the schema (the message says what)."""


def plain(rules: Rules | Mapping[str, Any], schema: Schema = OPTIONS) -> dict[str, Any]:
    """Every option's plain value (``Rules.to_dict`` form): from a ``Rules``, or a
    mapping with some options (the others take the schema's default)."""
    given = rules.to_dict() if isinstance(rules, Rules) else dict(rules)
    return {o.name: given.get(o.name, o.default) for o in schema}


def case_rules(rules: Rules | Mapping[str, Any], schema: Schema = OPTIONS) -> dict[str, Any]:
    """The options as a case's ``rules`` object (docs/rules.md §13): plain JSON values."""
    return plain(rules, schema)


def _levels(value: Any) -> list[str]:
    if isinstance(value, str):
        value = value.replace(",", " ").split()
    out = []
    for item in value:
        letter = getattr(item, "letter", item)
        text = str(letter).upper()
        if text == "10":
            text = "T"
        if len(text) != 1 or text not in RANKS:
            raise RulesCodecError(f"{item!r} is not a level (2-9, T, J, Q, K, A)")
        out.append(text)
    return out


def device_value(option: Option, value: Any) -> int:
    """One option's plain value as the device engine's number."""
    match option.kind:
        case OptionKind.FLAG:
            return 1 if value else 0
        case OptionKind.CHOICE:
            text = getattr(value, "value", value)
            if text not in option.values:
                raise RulesCodecError(f"{option.name}: {text!r} is not one of {', '.join(option.values)}")
            return option.values.index(text)
        case OptionKind.LEVELS:
            mask = 0
            for letter in _levels(value):
                mask |= 1 << RANKS.index(letter)
            return mask
        case _:
            return int(value)


def plain_value(option: Option, number: int) -> Any:
    """The device engine's number of an option as its plain value (the inverse of :func:`device_value`)."""
    match option.kind:
        case OptionKind.FLAG:
            if number not in (0, 1):
                raise RulesCodecError(f"{option.name}: {number} is not 0 or 1")
            return number == 1
        case OptionKind.CHOICE:
            if not 0 <= number < len(option.values):
                raise RulesCodecError(f"{option.name}: {number} is not a value (0-{len(option.values) - 1})")
            return option.values[number]
        case OptionKind.LEVELS:
            if not 0 <= number < 1 << len(RANKS):
                raise RulesCodecError(f"{option.name}: {number} is not a set of levels")
            return [RANKS[k] for k in range(len(RANKS)) if number >> k & 1]
        case _:
            return number


def device_values(rules: Rules | Mapping[str, Any], schema: Schema = OPTIONS) -> list[int]:
    """Every option as the device engine's number, in the schema's order."""
    values = plain(rules, schema)
    return [device_value(o, values[o.name]) for o in schema]


def value_text(option: Option, value: Any) -> str:
    """One option's value as ``table.cfg`` writes it (and as this host says it)."""
    match option.kind:
        case OptionKind.FLAG:
            return "1" if value else "0"
        case OptionKind.CHOICE:
            return str(getattr(value, "value", value))
        case OptionKind.LEVELS:
            return ",".join(_levels(value))
        case _:
            return str(int(value))


def _words(option: Option, value: Any) -> str:
    match option.kind:
        case OptionKind.FLAG:
            return "true" if value else "false"
        case OptionKind.LEVELS:
            return " ".join(_levels(value)) or "none"
        case _:
            return value_text(option, value)


def cfg_lines(rules: Rules | Mapping[str, Any], *, hand_scan: bool = False, schema: Schema = OPTIONS) -> list[str]:
    """The options as ``table.cfg`` lines, ``name=value``, in the schema's order
    (``hand_scan``: turned on whatever the rules say, as ``virtual --hand-scan``)."""
    values = plain(rules, schema)
    if hand_scan and "hand_scan" in values:
        values["hand_scan"] = True
    return [f"{o.name}={value_text(o, values[o.name])}" for o in schema]


def table_cfg(
    rules: Rules | Mapping[str, Any],
    *,
    hand_scan: bool = False,
    schema: Schema = OPTIONS,
    writer: str = "the host",
) -> str:
    """``table.cfg`` for ``rules``: a comment line, then :func:`cfg_lines`."""
    lines = [f"# table options (firmware/tableconfig.py, docs/rules.md §0), written by {writer}"]
    return "\n".join(lines + cfg_lines(rules, hand_scan=hand_scan, schema=schema)) + "\n"


def _parse_text(option: Option, text: str) -> Any:
    match option.kind:
        case OptionKind.FLAG:
            if text in ("1", "true", "yes", "on"):
                return True
            if text in ("0", "false", "no", "off"):
                return False
            raise RulesCodecError(f"{option.name}: not 0 or 1: {text}")
        case OptionKind.CHOICE:
            if text not in option.values:
                raise RulesCodecError(f"{option.name}: unknown value {text} (one of {', '.join(option.values)})")
            return text
        case OptionKind.LEVELS:
            return _levels(text)
        case _:
            try:
                return int(text)
            except ValueError:
                raise RulesCodecError(f"{option.name}: not a number: {text}") from None


def read_cfg(text: str, schema: Schema = OPTIONS) -> dict[str, Any]:
    """The options a ``table.cfg`` sets, as plain values (the others: the schema's
    defaults); keys outside the schema are deploy's and the readers', skipped."""
    by_name = {o.name: o for o in schema}
    values = {o.name: o.default for o in schema}
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith("#") or "=" not in line:
            continue
        key, value = (part.strip() for part in line.split("=", 1))
        option = by_name.get(key)
        if option is not None:
            values[key] = _parse_text(option, value)
    return values


def digest(rules: Rules | Mapping[str, Any], schema: Schema = OPTIONS) -> str:
    """The rules digest of ``rules``: what a table playing them sends (docs/protocol.md)."""
    return ".".join(str(n) for n in device_values(rules, schema))


def read_digest(text: str, schema: Schema = OPTIONS) -> dict[str, Any]:
    """A table's digest as plain values; :class:`RulesCodecError` names what does not fit."""
    parts = text.split(".")
    if len(parts) != len(schema):
        raise RulesCodecError(
            f"the table's rules digest {text!r} has {len(parts)} options, this host knows {len(schema)}: "
            "the firmware and the host tool are of different versions (make deploy, or update the host)"
        )
    out: dict[str, Any] = {}
    for option, part in zip(schema, parts, strict=True):
        try:
            number = int(part)
        except ValueError:
            raise RulesCodecError(f"the table's rules digest {text!r}: {option.name} is {part!r}, not a number") from None
        out[option.name] = plain_value(option, number)
    return out


def rules_of_digest(text: str) -> Rules:
    """The ``Rules`` a table's digest describes (:class:`RulesCodecError` if it describes none)."""
    try:
        return Rules.from_dict(read_digest(text))
    except InvalidRulesError as exc:
        raise RulesCodecError(f"the table's rules digest {text!r}: {exc}") from None


def differences(
    table: Rules | Mapping[str, Any], host: Rules | Mapping[str, Any], schema: Schema = OPTIONS
) -> list[tuple[str, str, str]]:
    """The options that differ: ``(name, the table's value, the host's value)`` in words."""
    a, b = plain(table, schema), plain(host, schema)
    out = []
    for o in schema:
        if device_value(o, a[o.name]) != device_value(o, b[o.name]):
            out.append((o.name, _words(o, a[o.name]), _words(o, b[o.name])))
    return out


def _preset_of(rules: Rules) -> str:
    """The preset that is ``rules`` exactly, or ""."""
    from shengji.rules import PRESETS

    for name in PRESETS:
        try:
            if Rules.preset(name) == rules:
                return name
        except InvalidRulesError:  # pragma: no cover - every preset is valid
            continue
    return ""


def mismatch_line(table_digest: str, host: Rules, given: str = "--rules") -> str:
    """One line: the options in which the table's rules differ from the host's, and what to do."""
    try:
        table = read_digest(table_digest)
    except RulesCodecError as exc:
        return f"the table's rules cannot be read here ({exc}); verdicts are not comparable"
    diff = differences(table, host)
    said = "; ".join(f"{name} {mine} here, {theirs} on the table" for name, theirs, mine in diff)
    try:
        preset = _preset_of(Rules.from_dict(table))
    except InvalidRulesError:
        preset = ""
    hint = f"run with --rules {preset}" if preset else f"run without {given}"
    return (
        f"the table plays other rules than {given} ({said}): verdicts are not comparable; "
        f"{hint} to judge by the table's rules, or redeploy the table (tractor-table deploy --rules)"
    )


def rules_words(rules: Rules) -> str:
    """Rules in a few words: the preset they are, or the options that differ from the defaults."""
    preset = _preset_of(rules)
    if preset:
        return f"preset {preset}"
    changed = differences(rules, Rules(), OPTIONS)
    return "classic but " + ", ".join(f"{name}={mine}" for name, mine, _ in changed)


def names(schema: Iterable[Option] = OPTIONS) -> list[str]:
    """The options' names, in the schema's order."""
    return [o.name for o in schema]
