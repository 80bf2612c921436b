"""The card set to deploy: the card map read and checked by the firmware's
own parser (under MicroPython) before it goes anywhere (:func:`read_cards`)."""

from __future__ import annotations

import tempfile
from pathlib import Path

from ..enroll.cardset import HEADER, MAP_MAGIC, CardMapData, CardSet, read_map_header
from ..errors import CommandError
from ..paths import CARDS_FILE, FIRMWARE_DIR

#: the card map is small (108 cards x a few bytes); anything far larger is a wrong file
MAX_CARDS_BYTES = 64 * 1024


def read_cards(path: Path) -> CardMapData:
    """The card map to deploy, checked by the firmware's own parser before it goes anywhere."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise CommandError(f"card set {path}: no such file (make one with 'tractor-table enroll')") from None
    except IsADirectoryError:
        raise CommandError(f"card set {path}: is a folder, not a card map") from None
    if not data:
        raise CommandError(f"card set {path}: the file is empty")
    if len(data) > MAX_CARDS_BYTES:
        raise CommandError(f"card set {path}: {len(data)} bytes is far too large for a card map; wrong file?")
    if data[:4] != MAP_MAGIC:
        data = _export_card_set(path, data)
        exported = Path(tempfile.mkdtemp(prefix="tractor-cards-")) / CARDS_FILE
        exported.write_bytes(data)
        try:
            return _parse_on_micropython(exported, data)
        finally:
            exported.unlink()
            exported.parent.rmdir()
    return _parse_on_micropython(path, data)


def _export_card_set(path: Path, data: bytes) -> bytes:
    """The binary map of an enrolled card-set text file (tractor_table.enroll.cardset's format)."""
    if not data.startswith(HEADER.encode()):
        raise CommandError(
            f"card set {path}: neither a card-set file from 'tractor-table enroll' nor a card map "
            "(cards.bin from 'tractor-table deckcheck SET --export FILE')"
        )
    cs = CardSet.load(path)  # CardSetError (a CommandError) names the line that is wrong
    missing = cs.missing()
    if missing:
        raise CommandError(
            f"card set {path}: {len(missing)} of {cs.total} cards are not enrolled; "
            "finish with 'tractor-table enroll' (or check with 'tractor-table deckcheck')"
        )
    return cs.export_map()


def _parse_on_micropython(path: Path, data: bytes) -> CardMapData:
    """Load the map with firmware/cardmap.py under MicroPython, exactly as the table will."""
    from .. import mpy

    code = (
        "import sys, cardmap\n"
        "try:\n"
        f"    m = cardmap.CardMap(open({str(path)!r}, 'rb').read())\n"
        "except ValueError as e:\n"
        "    print('ERR', e)\n"
        "    sys.exit(1)\n"
        "print(repr((m.name, m.decks, m.count)))\n"
    )
    try:
        proc = mpy.run(code=code, path=[FIRMWARE_DIR], heapsize="64K", timeout=30)
    except CommandError:  # no MicroPython here (a user install): the same parser under CPython
        try:
            return read_map_header(data, path.stem)
        except CommandError as exc:
            raise CommandError(
                f"card set {path}: {exc}; export it again with 'tractor-table deckcheck --export'"
            ) from None
    if proc.returncode != 0:
        why = proc.stdout.strip().removeprefix("ERR ") or proc.stderr.strip().splitlines()[-1]
        raise CommandError(f"card set {path}: {why}; export it again with 'tractor-table deckcheck --export'")
    import ast

    name, decks, count = ast.literal_eval(proc.stdout.strip())
    return CardMapData(data, str(name) or path.stem, int(decks), int(count))
