"""Conformance cases of the kinds ``kitty``, ``settle`` and ``declare``.

The public cases (vendored into ``tests/engine/conformance/``) and
our own extra cases (``data/hand_cases.jsonl``) must all pass.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from shengji.conformance_hand import HANDLERS

HERE = Path(__file__).resolve().parent
SOURCES = [HERE.parent / "engine" / "conformance", HERE / "data"]


def _cases() -> list[dict[str, Any]]:
    out = []
    for folder in SOURCES:
        for path in sorted(folder.glob("*.jsonl")):
            for line in path.read_text(encoding="utf-8").splitlines():
                if line.strip():
                    case = json.loads(line)
                    if case.get("kind") in HANDLERS:
                        out.append(case)
    return out


CASES = _cases()


def test_cases_found() -> None:
    kinds = {c["kind"] for c in CASES}
    assert kinds == {"kitty", "settle", "declare"}


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_case(case: dict[str, Any]) -> None:
    answer = HANDLERS[case["kind"]](case)
    assert {k: answer.get(k) for k in case["expect"]} == case["expect"]


@pytest.mark.parametrize(
    ("case", "field"),
    [
        ({"kind": "settle", "dealer": 0, "levels": ["2", "2"]}, "score"),
        ({"kind": "settle", "score": 10, "dealer": 0, "levels": ["2", "Z"]}, "level"),
        ({"kind": "declare", "first_hand": True, "bids": [{"seat": 7, "cards": "2S"}]}, "seat"),
        ({"kind": "declare", "first_hand": True, "bids": [{"seat": 0, "cards": "XX"}]}, "XX"),
        ({"kind": "kitty", "lead": "AS AH", "winner_play": "2S", "kitty": ""}, "lead"),
        ({"kind": "kitty", "rules": {"trump": "Q"}, "lead": "AS", "winner_play": "2S", "kitty": ""}, "trump"),
        ({"kind": "settle", "rules": {"decks": 9}, "score": 0, "dealer": 0, "levels": ["2", "2"]}, "decks"),
    ],
)
def test_malformed_cases_name_the_field(case: dict[str, Any], field: str) -> None:
    with pytest.raises(ValueError, match=field):
        HANDLERS[case["kind"]](case)
