"""The device engine's time budget on the slow follows (issue 21, "Time
accounted by kind"): the t-search gives up after _TSTEPS frames (the
oracle answers the rest, the same verdicts; the play's t is then the
oracle's at once). (The greedy packing bound, _pack, whose native code
this file checked against a plain greedy packing, is gone since
2026-12-06: docs/firmware.md.)

Run under CPython (the same source the chip runs); the verdicts of every
corpus are the conformance and adversarial tests' (test_adversarial.py)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
for _p in (ROOT / "firmware", ROOT / "host" / "tractor_table" / "sim" / "engine" / "mpy"):
    if str(_p) not in sys.path:
        sys.path.insert(0, str(_p))

import drules_play  # noqa: E402
import judge_mp  # noqa: E402

DATA = Path(__file__).resolve().parent / "data"


def _engine_class(name: str) -> Any:
    """The engine's base class ``name`` as the judge's engine inherits it: the
    table core's tests drop the engine's modules from sys.modules and load
    them again (enroll mode), so ``import drules_place`` may give another
    module than the one judge_mp's engine was built from."""
    return next(c for c in judge_mp.drules.Engine.__mro__ if c.__name__ == name)


def _engine_with_parts() -> Any:
    """The judge's engine class with every part's methods on it (the oracle's
    and the ladders' come as the rules or a check ask them, drules._parts, and
    are looked up on the class itself): where a patch of one of them is seen."""
    import drules_sweep

    drules_sweep.load_all(judge_mp.drules)
    return judge_mp.drules.Engine


def case(cid: str) -> dict[str, Any]:
    for f in ("adversarial.jsonl", "adversarial-host.jsonl"):
        for line in (DATA / f).read_text(encoding="utf-8").splitlines():
            if line.strip() and json.loads(line)["id"] == cid:
                return json.loads(line)  # type: ignore[no-any-return]
    raise AssertionError(cid)


@pytest.mark.parametrize("cid", ["adv-22", "adv-23"])
def test_the_t_search_stops_after_tsteps_frames(cid: str, monkeypatch: pytest.MonkeyPatch) -> None:
    budgets: list[int] = []
    matching = _engine_class("Matching")
    fill = matching._fill

    def watched(self: Any, pr: bytearray, np_: int, avail: int) -> None:
        budgets.append(self._steps)
        fill(self, pr, np_, avail)

    monkeypatch.setattr(matching, "_fill", watched)
    c = case(cid)
    got = judge_mp.answer(c)
    assert got["legal"] == (c["expect"] == ["ok"])
    # these near misses use up the search: the oracle (_tpoly) answers them
    assert budgets, "the follow no longer reaches the t-search"
    # the holding's search only: once it gives up, the play's t is the oracle's at once
    assert budgets == [drules_play._TSTEPS] == [8], budgets
