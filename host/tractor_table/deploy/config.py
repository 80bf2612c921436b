"""``table.cfg``: the configuration deploy writes (the card set's decks, the
rules preset's options: docs/rules.md §0), and the firmware's own check of one
given (:func:`config_problems`)."""

from __future__ import annotations

import hashlib
import tempfile
from datetime import UTC, datetime
from pathlib import Path

from ..enroll.cardset import CardMapData
from ..errors import CommandError
from ..paths import CONFIG_FILE, FIRMWARE_DIR

MAX_CONFIG_BYTES = 4 * 1024


def rule_lines(preset: str, cards: CardMapData | None) -> list[str]:
    """The rule options of a preset (docs/rules.md §0) as table.cfg lines (firmware/tableconfig.py's keys).

    The deck count is the card set's when one is given: a preset that cannot be
    played with it is refused here, not discovered at the table."""
    from shengji import Rules
    from shengji.rules import InvalidRulesError

    from .. import rulescodec

    try:
        rules = Rules.preset(preset, **({"decks": cards.decks} if cards is not None else {}))
    except InvalidRulesError as exc:
        what = f" with the card set's {cards.decks} deck(s)" if cards is not None else ""
        raise CommandError(f"--rules {preset}{what}: {exc}") from None
    return rulescodec.cfg_lines(rules)


def config_problems(config: bytes, src: Path = FIRMWARE_DIR) -> list[str]:
    """What the firmware's own reader (firmware/tableconfig.py, under MicroPython) finds
    wrong in a table.cfg: options the table does not play, values it cannot read."""
    from .. import mpy

    if not (src / "tableconfig.py").exists():
        return []
    with tempfile.TemporaryDirectory(prefix="tractor-cfg-") as tmp:
        path = Path(tmp) / CONFIG_FILE
        path.write_bytes(config)
        code = f"import tableconfig as t\nprint(repr(t.Options(t.read({str(path)!r})).problems))\n"
        try:
            proc = mpy.run(code=code, path=[src], heapsize="128K", timeout=30)
        except CommandError:  # no MicroPython here: the table itself will tell
            return []
    if proc.returncode != 0:
        return [f"the firmware could not read it ({(proc.stderr.strip().splitlines() or ['?'])[-1]})"]
    import ast

    return [str(p) for p in ast.literal_eval(proc.stdout.strip())]


def config_text(cards: CardMapData | None, now: datetime | None = None, rules: str = "") -> bytes:
    """The default ``table.cfg``: ``key=value`` lines the firmware can read without a parser:
    what was deployed, and with ``rules`` (a preset name) the options the table plays by."""
    from ..hardware import pinmap

    pm = pinmap.load()
    version = _firmware_identity()
    stamp = (now or datetime.now(UTC)).strftime("%Y-%m-%dT%H:%M:%SZ")
    lines = [
        "# tractor-table configuration, written by `tractor-table deploy`",
        f"firmware={version[0]}",
        f"rules={version[1]}",
        f"pinmap={pm.digest}",
        f"deployed={stamp}",
    ]
    if cards is not None:  # without --cards the map on the board (if any) is left as it is
        lines[-1:-1] = [
            "cards=" + " ".join(cards.name.split()),
            f"decks={cards.decks}",
            f"cards_sha256={hashlib.sha256(cards.data).hexdigest()[:12]}",
        ]
    if rules:
        lines.append(f"# rules: preset {rules}")
        lines += [ln for ln in rule_lines(rules, cards) if not (cards is not None and ln.startswith("decks="))]
    return ("\n".join(lines) + "\n").encode("utf-8")


def _firmware_identity(src: Path = FIRMWARE_DIR) -> tuple[str, str]:
    values: dict[str, str] = {}
    version = src / "version.py"
    if version.exists():
        for line in version.read_text(encoding="utf-8").splitlines():
            key, sep, value = line.partition("=")
            if sep and key.strip() in ("FIRMWARE_VERSION", "RULES_ID"):
                values[key.strip()] = value.strip().strip("\"'")
    return values.get("FIRMWARE_VERSION", "unknown"), values.get("RULES_ID", "unknown")
