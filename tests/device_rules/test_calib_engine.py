"""bench/calib_engine.py: the engine the chip was measured with (a676471),
built and timed by kind through today's path, set against the chip's times.
Structure only, never figures: the machine's load moves every time."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "bench" / "calib_engine.py"
COMMIT = "a676471"


def _has_commit() -> bool:
    got = subprocess.run(["git", "-C", str(ROOT), "cat-file", "-e", f"{COMMIT}^{{commit}}"], capture_output=True, check=False)
    return got.returncode == 0


needs_history = pytest.mark.skipif(not _has_commit(), reason=f"a shallow clone: no commit {COMMIT}")


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True, cwd=ROOT, timeout=300, check=False)


@needs_history
def test_the_old_engine_judges_the_cases_and_its_time_splits_by_kind() -> None:
    got = _run("--runs", "2", "--repeat", "1", "--cases", "issue-12,trivial", "--json")
    assert got.returncode == 0, got.stderr
    rows: list[dict[str, Any]] = [json.loads(line) for line in got.stdout.splitlines()]
    assert [r["id"] for r in rows] == ["issue-12", "trivial"]
    for r in rows:
        assert r["agrees"] is True  # the old engine's answer is the case's expect
        assert 0 < r["least_us"] <= r["us"]
        assert r["spread"][0] == r["least_us"] and r["spread"][1] >= r["us"]
    # issue-12 runs the old engine's @micropython.native methods: a native part, and a bytecode part
    assert 0 < rows[0]["native_us"] < rows[0]["us"]


@needs_history
def test_the_markdown_has_a_row_per_case_and_the_fits() -> None:
    got = _run("--runs", "1", "--repeat", "1", "--cases", "adv-17,adv-01")
    assert got.returncode == 0, got.stderr
    lines = got.stdout.splitlines()
    assert lines[0].startswith("`.venv/bin/python bench/calib_engine.py --commit a676471")
    rows = [ln for ln in lines if ln.startswith("| adv-")]
    assert [r.split(" | ")[0] for r in rows] == ["| adv-17", "| adv-01"]
    assert all(r.count("|") == 9 for r in rows)
    assert "Best fit" in got.stdout


def test_bad_input_is_named() -> None:
    got = _run("--cases", "adv-99")
    assert got.returncode != 0 and "no chip time for adv-99" in got.stderr
    got = _run("--commit", "0000000", "--cases", "trivial")
    assert got.returncode != 0 and "git archive 0000000 firmware failed" in got.stderr
    got = _run("--runs", "0")
    assert got.returncode != 0 and "--runs 0" in got.stderr
