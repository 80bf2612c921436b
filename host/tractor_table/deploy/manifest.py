"""What lands on the flash: every file to copy, in order (:func:`manifest`:
the firmware's ``.mpy`` modules, ``main.py`` and ``boot.py`` as source, the card
set, ``table.cfg``, ``deployed.txt``), the files the new firmware would find in
its way (:func:`stale_files`, :func:`orphans`) and the room it needs
(:func:`check_space`)."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass

from .. import firmware_build
from ..enroll.cardset import CardMapData
from ..errors import CommandError
from ..paths import CARDS_FILE, CONFIG_FILE
from .config import MAX_CONFIG_BYTES, config_text

#: the names on the board: CARDS_FILE and CONFIG_FILE (.paths, mirrored in the generated
#: firmware/hwconfig.py), and the list of files the last deploy put there (for removing
#: them when they go)
DEPLOYED_FILE = "deployed.txt"


#: suffix of the files written before they are verified and renamed into place
TEMP_SUFFIX = ".new"


@dataclass(frozen=True)
class Item:
    """One file to put on the board."""

    name: str  # on the board, in /
    data: bytes
    what: str  # "module", "source", "card set", "configuration"

    @property
    def sha256(self) -> bytes:
        return hashlib.sha256(self.data).digest()


@dataclass(frozen=True)
class Result:
    items: tuple[Item, ...]
    removed: tuple[str, ...]  # stale files taken away
    seconds: float

    @property
    def total_bytes(self) -> int:
        return sum(len(i.data) for i in self.items)


def manifest(
    compiled: Sequence[firmware_build.Compiled],
    *,
    cards: CardMapData | None,
    config: bytes | None,
    rules: str = "",
) -> list[Item]:
    """Every file to copy, in the order they are written (modules, then sources, card set, config)."""
    items: list[Item] = []
    sources: list[Item] = []
    for c in sorted(compiled, key=lambda c: c.source.name):
        if c.source.name in firmware_build.SOURCE_ONLY:
            sources.append(Item(c.source.name, c.source.read_bytes(), "source"))
        else:
            items.append(Item(c.output.name, c.output.read_bytes(), "module"))
    items += sources
    if cards is not None:
        items.append(Item(CARDS_FILE, cards.data, "card set"))
    if config is None:
        config = config_text(cards, rules=rules)
    elif rules:
        raise CommandError("give either --config FILE or --rules PRESET, not both (the rules go into table.cfg)")
    if len(config) > MAX_CONFIG_BYTES:
        raise CommandError(f"configuration: {len(config)} bytes; at most {MAX_CONFIG_BYTES} fit the table's reader")
    items.append(Item(CONFIG_FILE, config, "configuration"))
    code = [i.name for i in items if i.what in ("module", "source")]
    items.append(Item(DEPLOYED_FILE, ("\n".join(code) + "\n").encode(), "list of deployed files"))
    return items


def stale_files(items: Sequence[Item], on_board: Sequence[str]) -> list[str]:
    """Files on the board that would shadow or confuse the new firmware.

    A ``NAME.py`` left from an earlier copy wins over the new ``NAME.mpy``
    (MicroPython tries ``.py`` first), and ``.new`` files are leftovers of an
    interrupted deploy.
    """
    modules = {i.name[: -len(".mpy")] for i in items if i.name.endswith(".mpy")}
    present = set(on_board)
    stale = [f"{m}.py" for m in sorted(modules) if f"{m}.py" in present]
    stale += sorted(n for n in present if n.endswith(TEMP_SUFFIX))
    return stale


def check_space(items: Sequence[Item], free_bytes: int, block: int) -> None:
    """Refuse before writing anything if the new files cannot fit beside the old ones."""
    need = sum(-(-len(i.data) // block) * block for i in items) + 2 * block
    if need > free_bytes:
        raise CommandError(
            f"not enough room on the board: the new files need {need // 1024} KB while the old ones "
            f"are still there, {free_bytes // 1024} KB is free; remove unused files "
            f"(mpremote connect PORT fs ls / rm) and try again"
        )


def orphans(items: Sequence[Item], on_board: Sequence[str], last_deployed: Sequence[str]) -> list[str]:
    """Firmware files an earlier deploy put on the board that this one no longer has
    (a module renamed or removed). Only names from the earlier deploy's own list, and
    only code: never the owner's files, the card map or the configuration."""
    new = {i.name for i in items}
    present = set(on_board)
    return sorted(
        n for n in set(last_deployed)
        if n not in new and n in present and n.endswith((".mpy", ".py"))
    )
