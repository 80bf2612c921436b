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


def _traced(cid: str) -> tuple[dict[str, Any], dict[str, int]]:
    """The judge's answer to case ``cid`` and the search's calls on it: of
    ``_feasible`` (the search's bounds, then the sweep), of ``_posbound`` and
    of ``_sweep``, and the sweep's states (CPython runs the native methods'
    source, so a profiler hook sees them)."""
    n = {"feasible": 0, "posbound": 0, "sweep": 0, "states": 0}

    def calls(frame: Any, event: str, arg: Any) -> Any:
        name = frame.f_code.co_name
        if name in ("_feasible", "_posbound", "_sweep") and frame.f_code.co_filename.endswith("drules_sweep.py"):
            n[name[1:]] += 1
            if name == "_sweep":
                s0 = frame.f_locals["self"].nstates

                def ret(f: Any, ev: str, a: Any) -> Any:
                    if ev == "return":
                        n["states"] += f.f_locals["self"].nstates - s0
                    return ret

                return ret
        return None

    _engine_with_parts()
    sys.settrace(calls)
    try:
        got = judge_mp.answer(case(cid))
    finally:
        sys.settrace(None)
    return got, n


@pytest.mark.parametrize(("cid", "most"), [("adv-51", 2), ("adv-52", 3)])
def test_a_bound_by_position_that_failed_answers_the_shorter_runs(cid: str, most: int) -> None:
    # adv-51's holding: a tractor of three pairs beside a quad tractor and a
    # Titanic, its runs of three pairs, then of two, fail on the bound by
    # position; adv-52's tractor of five pairs beside a Titanic, four, then
    # three. The bound holds for the runs of triples and quads alone: no
    # placement of them leaves room for more pairs in runs than _posbound
    # found (self._tb[24:27]), so the shorter runs' question fails at
    # drules_sweep._beaten, with no greedy try and no _feasible (before: 3
    # and 4 calls of _feasible, 3 of _posbound each).
    c = case(cid)
    got, n = _traced(cid)
    assert got["legal"] == (c["expect"] == ["ok"])
    assert n["feasible"] <= most and n["posbound"] <= 2, n


def test_runs_of_pairs_with_no_stretch_long_enough_or_too_few_pairs_for_the_sets_fail_before_the_sweep() -> None:
    # adv-66 (4 decks, level 3, trump D: a 31-card throw of a quad, a triple
    # tractor, a tractor of five pairs, two of two and pairs, followed from
    # a 49-card hand): two of its questions (a quad, the triple tractor, a
    # run of 3 pairs, one of 2 and 4 or 2 pairs as sets) swept 17 and 20
    # states to fail. Either placement of the triple tractor leaves no 3
    # positions in a row with pairs (the run of 3 has no room), or leaves
    # 8 pairs against the 9 the runs and the sets take: _posbound now asks
    # both (before: 4 sweeps, 53 states; now the two that succeed, 8 each).
    c = case("adv-66")
    got, n = _traced("adv-66")
    assert got["legal"] == (c["expect"] == ["ok"])
    assert n["sweep"] <= 2 and n["states"] <= 16, n


def _plain_posbound(
    a: list[int],
    st: list[int],
    np_: int,
    wide: list[tuple[int, int]],
    runs: list[int],
    sets: tuple[int, int, int] = (0, 0, 0),
) -> tuple[bool, int]:
    """The bound by position written plainly (docs/firmware.md, "Bounds by
    position"): every placement of the runs of triples and quads `wide` (at
    most two, (width, length)), each position's pairs u(p) left by them
    (quads 4-faces, triples 3-faces first), the pairs of runs at p at most
    min(u(p), u(p - 1) + u(p + 1)); whether some placement's sum reaches
    the pairs of the runs of pairs (`runs`: their lengths), while all the
    pairs u holds reach those and the sets' (`sets`: pairs, triples, quads;
    a quad takes two), and the stretches of u > 0 at least as long as the
    longest runs of pairs hold them (each a stretch's sum // their length);
    and the most any placement's sum is."""
    need = sum(runs)
    kl = max(runs)
    ns = need + sets[0] + sets[1] + 2 * sets[2]
    found = False
    best = -1
    starts = [[s for s in range(np_) if st[(m - 2) * _NPOS + s] >= k] for m, k in wide]
    placements: list[tuple[int, ...]] = [()]
    for opts in starts:
        placements = [pl + (s,) for pl in placements for s in opts]
    for pl in placements:
        u = []
        for p in range(np_):
            q = sum(1 for (m, k), s in zip(wide, pl, strict=True) if m == 4 and s <= p < s + k)
            t = sum(1 for (m, k), s in zip(wide, pl, strict=True) if m == 3 and s <= p < s + k)
            c3, c4 = a[_NPOS + p], a[2 * _NPOS + p] - q
            if t > c3:
                c4 -= t - c3
                c3 = 0
            else:
                c3 -= t
            if c4 < 0:
                break
            u.append(a[p] + c3 + 2 * c4)
        else:
            v = [0, *u, 0]
            b = sum(min(v[p], v[p - 1] + v[p + 1]) for p in range(1, np_ + 1))
            best = max(best, b)
            sums, p = [], 0
            for n in "".join("x" if x else " " for x in u).split(" "):
                sums.append((len(n), sum(u[p : p + len(n)])))
                p += len(n) + 1
            held = sum(su // kl for sl, su in sums if sl >= kl)
            if b >= need and held >= runs.count(kl) and sum(u) >= ns:
                found = True
    return found, max(best, 0)


_NPOS = 18  # the engine's positions per suit (firmware/drules.py)


def test_the_bound_by_position_and_what_it_remembers_against_a_plain_one() -> None:
    import random

    eng = _engine_with_parts()
    e = eng(4)
    rng = random.Random(2126)
    seen = {True: 0, False: 0}
    for _ in range(400):
        e.set_trump(rng.randrange(13), rng.randrange(5))
        if not e._memo:
            e._sweep_init()
        s = rng.randrange(5)
        dens = 0.4 + 0.6 * rng.random()
        cnt = bytearray(rng.choice((1, 2, 2, 3, 3, 4, 4)) if rng.random() < dens else 0 for _ in range(54))
        e._psetup(cnt, s, 3)
        wide = [(rng.choice((3, 4)), rng.randrange(2, 5)) for _ in range(rng.randrange(3))]
        # runs of pairs, longest first (as _feasible sorts the kinds): of
        # 2 to 4 pairs, the longest of them 1 to 3 runs
        kl = rng.randrange(2, 5)
        runs = [kl] * rng.randrange(1, 4) + [rng.randrange(2, kl + 1) for _ in range(rng.randrange(3))]
        runs.sort(reverse=True)
        sets = (rng.randrange(5), rng.randrange(3), rng.randrange(3))
        e._n[0], e._n[1], e._n[2] = sets
        nd = 0
        for m, k in wide:
            e._dm[nd], e._dk[nd], e._dn[nd] = m, k, 1
            nd += 1
        for k in runs:
            e._dm[nd], e._dk[nd], e._dn[nd] = 2, k, 1
            nd += 1
        ok, most = _plain_posbound(list(e._a), list(e._st), e._np, wide, runs, sets)
        assert e._posbound(nd) == ok, (wide, runs, sets)
        seen[ok] += 1
        if not ok:
            # what it remembers for the ladders' next questions (_beaten)
            tb = e._tb
            assert tb[24] == most + 1, (wide, runs, sets, most)
            assert sorted(tb[25:27]) == sorted([(m << 5) | k for m, k in wide] + [0] * (2 - len(wide)))
    assert min(seen.values()) > 40, seen


def test_the_t_searchs_frames_hold_every_search_the_table_makes() -> None:
    # _fill enters at most n + 1 frames (n: _t's steps, drules_play's _TSTEPS
    # for the table's every call), so its explicit stack (drules_match._FD
    # frames, made by drules_init) needs no more; a deeper search stops at the
    # last frame and the oracle answers, as when its steps run out
    import drules_init
    import drules_match

    assert drules_match._FD == drules_init._FD
    assert drules_play._TSTEPS + 1 <= drules_match._FD
