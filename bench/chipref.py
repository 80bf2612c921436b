"""The chip's own times, timed again on this machine in the same run: a speed anchor.

Every RP2040 time figure is a unix-port time on this machine times a factor of
``bench/rp2040.py``. The factors were derived once, from the chip's times and
the unix-port times of the machine of that day (the audit of 2026-12-01,
evening: main at a676471 on the real MicroPython rp2 port, emulated RP2040 at
125 MHz, no flash wait states). This machine's speed moves up to 2x between
sessions, so a fixed factor makes a figure move with the host, not the code.

The anchor puts the chip's measured times beside the unix-port times of *the
same code* (a676471's, taken from the repository with ``git archive``) timed
here, in the same run as the figures it calibrates:

- **rules engine** (:class:`OldEngine`): a676471's ``drules*`` built with
  ``mpy-cross -march=host`` as the firmware is built, the audit's cases
  (:data:`ANCHOR_CASES`) timed by kind through today's path (the "adversary"
  runner with ``kindtime_mp.py``), each estimated by ``rules_ms_by_kind`` (the
  fixed factors, x FLASH_WAIT). A case's anchor ratio is
  chip ms x FLASH_WAIT / that estimate (:func:`rules_anchor`): what today's
  estimate must be multiplied by to give the chip's time (x1.3 kept on top).
  The *pessimistic* anchor is the largest ratio (the case the estimate flatters
  most); the median ratio is reported beside it.
- **table core** (:class:`OldTable`): a676471's firmware (every module, built
  the same way) and its ``bench/table_mp.py``, fed the 40 bot hands of seed 11
  the chip was fed (recorded with a676471's own engine, ``engine/shengji``);
  each input's least time over the runs, the median by kind (lead, follow, the
  hand's end, a snapshot serialised). A kind's factor is chip ms / unix ms now
  (:func:`table_factors`), the anchored ``GENERIC`` their largest
  (:func:`anchored_factors`), as ``rp2040.GENERIC`` is the largest fixed one.

What is measured and what is not: the chip's times are the audit's (one
emulated RP2040, no flash wait states); only the unix side is timed again. A
real chip's flash wait states are not measured: ``FLASH_WAIT`` (x1.3) stays on
top of every anchored factor. The anchor scales every figure by one ratio per
kind of work; it does not re-derive the native / bytecode split of a rules
check (the cases are 60-75 % native), and it assumes today's code slows down
with the machine as a676471's does.
"""

from __future__ import annotations

import io
import json
import os
import statistics
import subprocess
import sys
import tarfile
import tempfile
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any, Self

import rp2040
from tractor_table import adversarial, firmware_build
from tractor_table.paths import FIRMWARE_DIR
from tractor_table.sim import engine
from tractor_table.sim.engine import EngineProcess

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
ADVERSARIAL_DATA = REPO / "tests" / "device_rules" / "data" / "adversarial.jsonl"

#: the commit the chip ran (the audit of 2026-12-01, evening)
COMMIT = "a676471"

#: The chip's times (ms, emulated RP2040, no flash wait states) of the engine of
#: a676471 (audit of 2026-12-01, evening): (low, high) where a range was measured.
MEASURED: dict[str, tuple[float, float]] = {
    "adv-17": (29.4, 29.4),
    "adv-20": (28.3, 28.3),
    "adv-18": (24.3, 24.3),
    "adv-05": (23.1, 23.1),
    "adv-01": (20.9, 20.9),
    "issue-12": (13.1, 14.0),
    "trivial": (0.30, 0.36),
}

#: the cases of the rules anchor: the audit's own (its trivial follow gave no
#: cards: ``TRIVIAL`` only stands for it, and its 3 µs meet the timer's grain)
ANCHOR_CASES: tuple[str, ...] = ("adv-17", "adv-20", "adv-18", "adv-05", "adv-01", "issue-12")

#: "a trivial follow": one card led, one followed in suit (2 decks); the
#: audit does not give its cards, so this one stands for it.
TRIVIAL: dict[str, Any] = {
    "id": "trivial",
    "kind": "follow",
    "rules": {"decks": 2, "level": "2", "trump": "S"},
    "lead": "5H",
    "hand": "7H 9H KH 3C 6C TD",
    "play": "9H",
}

#: The chip's medians of the table core, 40 hands of bench_table (seed 11), the
#: firmware of a676471 (the audit of 2026-12-01, evening: its table core medians), ms
TABLE_CHIP_MS: dict[str, float] = {"lead": 4.32, "follow": 4.18, "hand_end": 94.6, "snapshot": 14.4}
TABLE_HANDS, TABLE_SEED = 40, 11
#: table_mp.py's series by the kind of bench/rp2040.py they are
TABLE_SERIES = {"lead": "lead", "play": "follow", "end": "hand_end", "serialize": "snapshot"}


# ---- the old code, built for this machine ---------------------------------------


def archive(commit: str, out: Path, paths: list[str]) -> None:
    """``paths`` of ``commit`` (git archive) into ``out``."""
    tar = subprocess.run(["git", "-C", str(REPO), "archive", commit, *paths], capture_output=True, check=False)
    if tar.returncode != 0:
        raise SystemExit(f"git archive {commit} {' '.join(paths)} failed: {tar.stderr.decode().strip()}; give a commit of this repository")
    with tarfile.open(fileobj=io.BytesIO(tar.stdout)) as t:
        t.extractall(out, filter="data")


def compile_host(sources: list[Path], out: Path, commit: str) -> None:
    """``sources`` compiled into ``out`` as the firmware is built, native code for this machine."""
    out.mkdir(parents=True, exist_ok=True)
    for source in sources:
        proc = subprocess.run(
            [firmware_build.mpy_cross_binary(), "-march=host", firmware_build.OPT, "-s", source.stem]
            + ["-o", str(out / (source.stem + ".mpy")), str(source)],
            capture_output=True,
            text=True,
            check=False,
        )
        if proc.returncode != 0:
            raise SystemExit(f"mpy-cross rejected {commit}:{source.name}: {proc.stderr.strip()}")


def old_engine(commit: str, out: Path) -> tuple[Path, Path]:
    """The commit's firmware/ in ``out/src``, its ``drules*`` compiled into ``out/mpy``."""
    archive(commit, out, ["firmware"])
    src, mpy_dir = out / "src", out / "mpy"
    os.rename(out / "firmware", src)
    compile_host(sorted(src.glob("drules*.py")), mpy_dir, commit)
    return src, mpy_dir


def cases(ids: list[str]) -> list[dict[str, Any]]:
    """The cases by id: the regression data's, and ``trivial``."""
    pool = {str(c["id"]): c for c in adversarial.read_cases(ADVERSARIAL_DATA) if "id" in c}
    t = dict(TRIVIAL)
    t["expect"] = adversarial.full_answer(t)
    pool["trivial"] = t
    missing = [i for i in ids if i not in pool]
    if missing:
        raise SystemExit(f"no case {', '.join(missing)}; the ids: {', '.join(sorted(pool))}")
    return [pool[i] for i in ids]


#: one timing of a case: (µs, of which native µs, the answer)
Timing = tuple[float, float, list[Any]]


class _Built:
    """Old code built in a folder of its own, removed at ``close()`` (or the ``with``'s end)."""

    def __init__(self, commit: str) -> None:
        self.commit = commit
        self._tmp = tempfile.TemporaryDirectory(prefix="tt-chipref-")

    def __enter__(self) -> Self:
        return self

    def __exit__(self, t: type[BaseException] | None, e: BaseException | None, tb: TracebackType | None) -> None:
        self.close()

    def close(self) -> None:
        self._tmp.cleanup()


class OldEngine(_Built):
    """The commit's rules engine in one MicroPython process (the "adversary"
    runner, by kind), open for a whole run: ``time(cases)`` is one pass."""

    def __init__(self, commit: str = COMMIT, repeat: int = 5) -> None:
        super().__init__(commit)
        self.repeat = repeat
        self.src, self.mpy_dir = old_engine(commit, Path(self._tmp.name))
        native, inner = adversarial.engine_methods(self.src)
        self.dev = EngineProcess(
            "adversary", args=[str(repeat), "0", ",".join(native), ",".join(inner)], drop=adversarial._NOT_FOR_DEVICE
        )
        # the old engine's drules* (.mpy, first on the path), today's runner and what
        # it imports besides (ruleopts, tableconfig: the rules it builds the Engine from)
        self.dev.path = [self.mpy_dir, engine.MPY_DIR, FIRMWARE_DIR]

    def close(self) -> None:
        self.dev.close()
        super().close()

    def time(self, chosen: list[dict[str, Any]]) -> dict[str, Timing]:
        """One pass over ``chosen``: each case's median of ``repeat`` calls, by kind."""
        out: dict[str, Timing] = {}
        for case in chosen:
            a = self.dev.ask(case)
            if "us" not in a:
                raise SystemExit(f"the engine of {self.commit} could not judge {case['id']}: {a.get('error')}")
            # unlocked: as the chip's audit ran the engine (called directly,
            # its frames from the heap), not locked as the table asks it now
            out[str(case["id"])] = (float(a["us_unlocked"]), float(a["native_us_unlocked"]), list(a["answer"]))
        return out


def case_rows(chosen: list[dict[str, Any]], passes: list[dict[str, Timing]]) -> list[dict[str, Any]]:
    """Each case over the passes: its median pass (by total µs), its least, the
    spread, and whether every answer is the case's ``expect``."""
    out = []
    for case in chosen:
        rs = sorted((p[str(case["id"])] for p in passes), key=lambda r: r[0])
        us, nat, _ = rs[(len(rs) - 1) // 2]
        out.append(
            {
                "id": case["id"],
                "us": us,
                "native_us": nat,
                # the least run, as bench_device_rules.py takes a check's time (the least of its passes)
                "least_us": rs[0][0],
                "least_native_us": rs[0][1],
                "spread": (rs[0][0], rs[-1][0]),
                "agrees": all(adversarial.agree(case, list(case["expect"]), r[2]) for r in rs),
            }
        )
    return out


def estimate(r: dict[str, Any], fn: float, fb: float, least: bool = False) -> float:
    """ms on the chip, no flash wait states, with factors fn (native) and fb
    (bytecode): of the median run, or of the least (``least``)."""
    us, nat = (r["least_us"], r["least_native_us"]) if least else (r["us"], r["native_us"])
    return (nat * fn + (us - nat) * fb) / 1000.0


def chip(r: dict[str, Any]) -> float:
    """The chip's time, ms (the middle of a measured range)."""
    lo, hi = MEASURED[r["id"]]
    return (lo + hi) / 2


# ---- the anchor's arithmetic (numbers in, numbers out: tests feed it) -------------


@dataclass(frozen=True)
class Anchor:
    """Ratios chip / estimate by case (or kind): what an estimate made with the
    fixed factors is multiplied by to give the chip's time."""

    ratios: dict[str, float]

    @property
    def pessimistic(self) -> float:
        """The largest ratio: the case the fixed estimate flatters most."""
        return max(self.ratios.values())

    @property
    def median(self) -> float:
        return statistics.median(self.ratios.values())

    @property
    def flattered(self) -> str:
        """The case (kind) of the pessimistic ratio."""
        return max(self.ratios, key=lambda k: self.ratios[k])

    def json(self) -> dict[str, Any]:
        return {
            "ratios": {k: round(v, 4) for k, v in self.ratios.items()},
            "pessimistic": round(self.pessimistic, 4),
            "median": round(self.median, 4),
            "flattered": self.flattered,
        }


def rules_anchor(est_ms: dict[str, float], chip_ms: dict[str, float] | None = None) -> Anchor:
    """The rules engine's anchor: per case, chip ms x FLASH_WAIT / the case's
    by-kind estimate this run (``rules_ms_by_kind``, x FLASH_WAIT included).
    ``chip_ms``: the chip's time per case, by default the high end of each
    measured range of :data:`MEASURED` (the pessimistic end)."""
    chip_ms = chip_ms if chip_ms is not None else {k: MEASURED[k][1] for k in est_ms}
    return Anchor({k: chip_ms[k] * rp2040.FLASH_WAIT / est_ms[k] for k in est_ms})


def anchor_estimates(timings: dict[str, tuple[float, float]]) -> dict[str, float]:
    """Each anchor case's by-kind estimate (ms, x FLASH_WAIT) from its
    (µs, native µs) of this run."""
    return {k: rp2040.rules_ms_by_kind(nat, us - nat) for k, (us, nat) in timings.items()}


def check_answers(chosen: list[dict[str, Any]], passes: list[dict[str, Timing]], commit: str = COMMIT) -> None:
    """Stop when the old engine answered any case otherwise than its ``expect``."""
    wrong = [str(r["id"]) for r in case_rows(chosen, passes) if not r["agrees"]]
    if wrong:
        raise SystemExit(f"the engine of {commit} gave another answer than the case's on {', '.join(wrong)}")


def least_timings(passes: list[dict[str, Timing]]) -> dict[str, tuple[float, float]]:
    """Each case's least pass (µs, native µs measured in that pass), as
    bench_device_rules.py takes a check's time."""
    out: dict[str, tuple[float, float]] = {}
    for k in passes[0]:
        us, nat, _ = min((p[k] for p in passes), key=lambda t: t[0])
        out[k] = (us, nat)
    return out


def table_factors(unix_ms: dict[str, float], chip_ms: dict[str, float] | None = None) -> dict[str, float]:
    """rp2 / unix time now, by kind of table-core input (no flash wait)."""
    chip_ms = chip_ms if chip_ms is not None else TABLE_CHIP_MS
    return {k: chip_ms[k] / unix_ms[k] for k in chip_ms}


@dataclass(frozen=True)
class BoardFactors:
    """The board model's charges (x FLASH_WAIT included): bytecode
    (``cpu_factor``) and compiled code (``c_factor``), with where they come from."""

    cpu_factor: float
    c_factor: float
    generic: float  # the table factor taken (no flash wait)
    rules: float  # the rules anchor taken (1.0: the fixed native factor)

    def ratios(self) -> dict[str, float]:
        """Each against the fixed factor it replaces."""
        return {
            "cpu_factor": self.cpu_factor / fixed_board().cpu_factor,
            "c_factor": self.c_factor / fixed_board().c_factor,
        }


def fixed_board() -> BoardFactors:
    """The fixed factors of bench/rp2040.py, as the board model charged them before the anchor."""
    return BoardFactors(
        rp2040.GENERIC * rp2040.FLASH_WAIT, rp2040.TIME["rules_native"] * rp2040.FLASH_WAIT, rp2040.GENERIC, 1.0
    )


def anchored_factors(table: dict[str, float], rules: Anchor) -> BoardFactors:
    """The board's anchored charges: bytecode at the largest table-core factor
    now (as GENERIC is the largest fixed one), compiled code at the fixed
    native factor times the pessimistic rules anchor; x FLASH_WAIT on both."""
    generic = max(table.values())
    native = rp2040.TIME["rules_native"] * rules.pessimistic
    return BoardFactors(generic * rp2040.FLASH_WAIT, native * rp2040.FLASH_WAIT, generic, rules.pessimistic)


# ---- the table core of the commit ---------------------------------------------


def record_hands(commit_engine: Path, hands: int, seed: int) -> list[list[object]]:
    """bench_table.py's bot hands, recorded with the commit's own engine
    (``engine/`` of the commit first on the path), in a process of their own."""
    code = (
        "import json, sys, bench_table\n"
        f"json.dump(bench_table.record_hands({hands}, {seed}), sys.stdout)\n"
    )
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(commit_engine), str(HERE)]))
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=600, check=False)
    if proc.returncode != 0:
        raise SystemExit(f"recording the hands with the commit's engine failed:\n{proc.stderr[-2000:]}")
    got: list[list[object]] = json.loads(proc.stdout)
    return got


class OldTable(_Built):
    """The commit's table core (every firmware module built for this machine)
    and its ``bench/table_mp.py``, with the hands the chip was fed."""

    def __init__(self, commit: str = COMMIT, hands: int = TABLE_HANDS, seed: int = TABLE_SEED) -> None:
        import bench_table

        super().__init__(commit)
        self._bench_table = bench_table
        root = Path(self._tmp.name)
        archive(commit, root, ["firmware", "engine", "bench/table_mp.py", "bench/heapprobe.py"])
        self.fw = root / "fw"
        compile_host(firmware_build.firmware_sources(root / "firmware"), self.fw, commit)
        self.bench = root / "bench"
        self.hands = record_hands(root / "engine", hands, seed)

    def time(self, runs: int = 3) -> dict[str, float]:
        """The unix-port medians now, ms by kind (each input its least of ``runs``)."""
        with tempfile.TemporaryDirectory() as tmp:
            try:
                got = self._bench_table.time_inputs(self.bench / "table_mp.py", [self.fw, self.bench], self.hands, runs, Path(tmp))
            except RuntimeError as exc:
                raise SystemExit(f"the table core of {self.commit} failed:\n{str(exc)[-2000:]}") from exc
        least = self._bench_table.least_inputs(got)
        return {kind: statistics.median(least[series]) / 1000.0 for series, kind in TABLE_SERIES.items()}


def load() -> list[float]:
    """The load averages (1, 5, 15 minutes), rounded."""
    return [round(x, 2) for x in os.getloadavg()]
