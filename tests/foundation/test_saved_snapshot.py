"""The host's reader of a table's snapshot file (vocab.snapshot.saved_snapshot)
reads what the firmware's store writes (firmware/persist.py, its tricks packed
as one base64 string) and what an older firmware wrote (tricks as lists)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from tractor_table.vocab.snapshot import saved_snapshot

ROOT = Path(__file__).resolve().parents[2]

TRICKS = [
    [3, 1, 300, 1, [215, 214, 0], [1], [2, 3], []],
    [0, 3, 25, 0, [12, 11], [0, 1], [2, 3], [4, 5]],
    [2, 2, 0, 0, [7], [8], [9], [10]],
]


def _snap(tricks: list[list[object]]) -> list[object]:
    # a snapshot's shape: fields 0-16, the tricks, then 18-21
    return [2, 2, 2, 1, 1, 0, 0, 0, 1, 0, 0, 0, None, 9, 77, [[0, [12]]], [1, 2, 3], tricks, [], None, None, []]


def test_the_host_reads_the_firmware_store_s_file(tmp_path: Path) -> None:
    sys.path.insert(0, str(ROOT / "firmware"))
    try:
        import persist
        import tablebase
    finally:
        sys.path.remove(str(ROOT / "firmware"))
    for tricks in (TRICKS, TRICKS[2:], []):
        # the tricks packed as the table keeps them, as the store takes them
        packed = tablebase.Tricks(len(tricks), sum(len(p) for x in tricks for p in x[4:8]))
        for x in tricks:
            packed.add(x[0], x[1], x[2], x[3], x[4:8])
        snap = _snap(tricks)
        snap[17] = packed
        path = tmp_path / "table.json"
        store = persist.Store(str(path))
        store.save(snap)
        text = path.read_text(encoding="utf-8")
        assert isinstance(json.loads(text.rpartition("\nttsnap1 ")[0])[17], str)
        assert saved_snapshot(text) == _snap(tricks)
        assert store.load() == _snap(tricks)


def test_an_older_file_with_tricks_as_lists_is_read_too() -> None:
    text = json.dumps(_snap(TRICKS)) + "\nttsnap1 00000000\n"
    assert saved_snapshot(text) == _snap(TRICKS)


@pytest.mark.parametrize(
    "text, message",
    [
        ("[1,2]", "no ttsnap1 line"),
        (json.dumps(_snap([])[:17] + ["IAUBDA=="] + _snap([])[18:]) + "\nttsnap1 0\n", "cut short"),
    ],
)
def test_what_is_not_a_snapshot_file_is_refused(text: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        saved_snapshot(text)
