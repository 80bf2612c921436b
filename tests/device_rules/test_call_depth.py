"""The device engine's call depth is bounded by a constant (issue 21,
docs/firmware.md, "The C stack"): the RP2040's 8 KiB C stack fails a check
about 25 engine frames deep, so no check may recurse with the cards.

Two ways, each against the bound docs/firmware.md states:

- measured: every case of every adversarial and conformance corpus (and a few
  of the differential fuzzer's bot hands) answered by the device engine under
  CPython with a profiler hook (``sys.setprofile``) that sees each Python frame
  the engine enters; the deepest stack of engine frames is at most the bound;
- by construction: the engine's static call graph (every call by name in
  ``firmware/drules*.py``) has no cycle, and its longest chain is within the
  bound, whatever the input.

Both are shown to fail on a deliberately deep variant: ``deep_sweep.py``, the
sweep as it was before it was made iterative (one frame per position and per
kind of run), which gives the same answers 50 frames deep (adv-22)."""

from __future__ import annotations

import ast
import json
import re
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from types import FrameType
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
FIRMWARE = ROOT / "firmware"
RUNNER_DIR = ROOT / "host" / "tractor_table" / "sim" / "engine" / "mpy"
HERE = Path(__file__).resolve().parent
DEEP = HERE / "deep_sweep.py"
CORPORA = [
    *sorted((HERE / "data").glob("*.jsonl")),
    *sorted((ROOT / "tests" / "engine" / "conformance").glob("*.jsonl")),
    *sorted((ROOT / "tests" / "match" / "data").glob("*.jsonl")),
]
ENGINE_FILES = sorted(FIRMWARE.glob("drules*.py"))

for _p in (FIRMWARE, RUNNER_DIR, HERE):
    if str(_p) not in sys.path:
        sys.path.insert(0, str(_p))

import drules  # noqa: E402
import judge_mp  # noqa: E402


def stated_bound() -> int:
    """The bound docs/firmware.md states: "at most N frames"."""
    text = (ROOT / "docs" / "firmware.md").read_text(encoding="utf-8")
    m = re.search(r"call depth bound: at most (\d+) frames", text)
    assert m, 'docs/firmware.md must state the engine\'s "call depth bound: at most N frames"'
    return int(m.group(1))


def corpus_cases() -> list[dict[str, Any]]:
    out = []
    for f in CORPORA:
        out += [json.loads(x) for x in f.read_text(encoding="utf-8").splitlines() if x.strip()]
    return out


def bot_hands(n: int) -> list[dict[str, Any]]:
    from tractor_table import difffuzz

    return [difffuzz.make_script(5000 + i, variant=i % len(difffuzz.VARIANTS)).case for i in range(n)]


class DepthProbe:
    """The deepest chain of engine frames (frames of ``files``) on the stack."""

    def __init__(self, files: set[str]) -> None:
        self.files = files
        self.deepest = 0
        self.chain: list[str] = []

    def hook(self, frame: FrameType, event: str, arg: object) -> None:
        if event != "call" or frame.f_code.co_filename not in self.files:
            return
        depth = 0
        f: FrameType | None = frame
        names = []
        while f is not None and f.f_code.co_filename in self.files:
            depth += 1
            names.append(f.f_code.co_name)
            f = f.f_back
        if depth > self.deepest:
            self.deepest = depth
            self.chain = names[::-1]

    @contextmanager
    def watching(self) -> Iterator[None]:
        old = sys.getprofile()
        sys.setprofile(self.hook)
        try:
            yield
        finally:
            sys.setprofile(old)


def judge(case: dict[str, Any]) -> dict[str, Any]:
    if case.get("kind") == "hand":
        return judge_mp.hand_answer(case)  # type: ignore[no-any-return]
    return judge_mp.answer(case)  # type: ignore[no-any-return]


def deepest(cases: list[dict[str, Any]], files: set[str]) -> list[tuple[int, str, list[str]]]:
    """Each case's deepest engine stack: (depth, id, the chain of calls)."""
    out = []
    for case in cases:
        probe = DepthProbe(files)
        with probe.watching():
            got = judge(case)
        assert "error" not in got, (case.get("id"), got)
        out.append((probe.deepest, str(case.get("id")), probe.chain))
    return sorted(out, key=lambda x: -x[0])


@pytest.fixture
def deep_engine(monkeypatch: pytest.MonkeyPatch) -> Callable[..., Any]:
    """drules.Engine replaced by the recursive variant (judge_mp builds engines through it)."""
    import deep_sweep

    cls = deep_sweep.deep_engine_class()
    monkeypatch.setattr(drules, "Engine", cls)
    return cls  # type: ignore[no-any-return]


ENGINE = {str(p) for p in ENGINE_FILES}


def test_every_check_of_every_corpus_is_within_the_bound() -> None:
    bound = stated_bound()
    cases = corpus_cases()
    assert len(cases) > 200
    kinds = {c.get("kind") for c in cases}
    assert {"follow", "throw", "trick", "shape", "settle"} <= kinds, kinds
    cases += bot_hands(6)
    got = deepest(cases, ENGINE)
    depth, cid, chain = got[0]
    assert depth <= bound, f"{cid}: {depth} engine frames deep (bound {bound}): {' > '.join(chain)}"
    # the probe sees the engine: the ladders' follows reach the placement oracle
    assert depth >= 8, (depth, chain)
    assert "check_follow" in chain[0] and "_feasible" in {n for _, _, ch in got for n in ch}


def test_the_deep_variant_fails_the_bound(deep_engine: Callable[..., Any]) -> None:
    bound = stated_bound()
    # adv-21 and adv-beyond-1 crashed the chip with this sweep; since issue 21's
    # greedy first try (a unit's first runs are placed without a sweep) they ask
    # no deep question, and since the oracle's bounds of 2026-12-06 (runs of
    # triples on stretches of triples; the greedy try from the strongest place
    # for runs of pairs) neither do the near misses adv-22 and adv-24: adv-46
    # and adv-30 ask the deepest (the recursive sweep has not the new bound
    # of the 3-faces that runs of pairs take)
    cases = [c for c in corpus_cases() if c.get("id") in ("adv-21", "adv-beyond-1", "adv-46", "adv-30")]
    assert len(cases) == 4
    # the same answers as the iterative sweep's (the cases' recorded answers)
    for c in cases:
        assert judge(c).get("legal") == (c["expect"] == ["ok"]), c["id"]
    got = deepest(cases, ENGINE | {str(DEEP)})
    depth, cid, chain = got[0]
    assert depth > bound, (depth, cid)
    assert chain.count("_sweep") > 5, chain
    assert cid in ("adv-46", "adv-30"), got[:2]


# --- by construction: the static call graph -------------------------------------


def call_graph(files: list[Path]) -> dict[str, set[str]]:
    """Function name -> the names it calls (``self.f(...)``, ``f(...)``,
    ``x.f(...)``), kept to the functions these files define (names are
    unique enough in the engine: a call of a name reaches every definition of it).
    A function that calls its own name is a stub that loads a part and calls
    the part's function of that name (``drules.Engine._feasible``, the
    oracle's search at its first question): not recursion, but one frame more
    on the way, so it is a node of its own (``name'``) that every call of the
    name reaches first and that calls the name's other definitions."""
    calls: dict[str, set[str]] = {}
    stubs: set[str] = set()
    for p in files:
        for node in ast.walk(ast.parse(p.read_text(encoding="utf-8"))):
            if isinstance(node, ast.FunctionDef):
                out: set[str] = set()
                for n in ast.walk(node):
                    if isinstance(n, ast.Call):
                        f = n.func
                        if isinstance(f, ast.Attribute):
                            out.add(f.attr)
                        elif isinstance(f, ast.Name):
                            out.add(f.id)
                if node.name in out:
                    stubs.add(node.name)
                    calls.setdefault(node.name + "'", set()).update(out)
                else:
                    calls.setdefault(node.name, set()).update(out)
    graph = {k: v & calls.keys() for k, v in calls.items()}
    for s in stubs:
        for k, v in graph.items():
            if s in v and k != s + "'":
                v.discard(s)
                v.add(s + "'")
    return graph


def longest_chain(graph: dict[str, set[str]]) -> list[str]:
    """The longest chain of calls; ValueError naming a cycle if there is one."""
    memo: dict[str, list[str]] = {}

    def walk(n: str, on: tuple[str, ...]) -> list[str]:
        if n in on:
            raise ValueError("a cycle: " + " > ".join((*on[on.index(n) :], n)))
        if n not in memo:
            best: list[str] = []
            for m in sorted(graph[n]):
                c = walk(m, (*on, n))
                if len(c) > len(best):
                    best = c
            memo[n] = [n, *best]
        return memo[n]

    return max((walk(n, ()) for n in sorted(graph)), key=len)


def test_the_engine_cannot_recurse_and_its_longest_chain_is_within_the_bound() -> None:
    chain = longest_chain(call_graph(ENGINE_FILES))
    assert len(chain) <= stated_bound(), " > ".join(chain)
    assert len(chain) >= 8  # the graph is the engine's (check_follow down to the oracle)


def test_the_static_check_finds_the_deep_variants_recursion() -> None:
    # the deep variant in place of the sweep (its _tail, _add and _sub, which
    # drules_place holds now, beside them: a name reaches every definition)
    files = [p for p in ENGINE_FILES if p.name != "drules_sweep.py"] + [DEEP]
    with pytest.raises(ValueError, match=r"a cycle: .*(_sweep|_over)"):
        longest_chain(call_graph(files))
