"""The device engine's time budget on the slow follows (issue 21, "Time
accounted by kind"): the t-search gives up after _TSTEPS frames (the
oracle answers the rest, the same verdicts; the play's t is then the
oracle's at once), and the greedy packing bound,
native now, is the greedy packing of the room _a gives.

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
_NPOS = 18  # the engine's stride (firmware/drules_place.py)


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
    judge_mp.drules.load_all()
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


def greedy_pack(a: bytes, np_: int, m: int, k: int, lo: int, need: int) -> int:
    """_pack's greedy packing, written plainly: the room per position from _a."""
    room = [a[2 * _NPOS + p] * (2 if m == 2 else 1) + (a[_NPOS + p] if m <= 3 else 0) + (a[p] if m == 2 else 0) for p in range(np_)]
    got = 0
    for p in range(lo, np_ - k + 1):
        if got >= need:
            break
        x = min(room[p : p + k])
        for q in range(p, p + k):
            room[q] -= x
        got += x
    return got


@pytest.mark.parametrize("cid", ["adv-24", "adv-28", "adv-33", "adv-30"])
def test_the_native_packing_bound_is_the_greedy_packing(cid: str, monkeypatch: pytest.MonkeyPatch) -> None:
    placer = _engine_with_parts()
    seen: list[int] = []
    pack = placer._pack

    def checked(self: Any, m: int, k: int, lo: int, need: int) -> int:
        got: int = pack(self, m, k, lo, need)
        assert got == greedy_pack(bytes(self._a), self._np, m, k, lo, need), (m, k, lo, need)
        seen.append(got)
        return got

    monkeypatch.setattr(placer, "_pack", checked)
    c = case(cid)
    assert judge_mp.answer(c)["legal"] == (c["expect"] == ["ok"])
    assert len(seen) >= 3  # the slow follows' calls (a bound each; fewer since the greedy first try of issue 21, and one run is _sb's)
