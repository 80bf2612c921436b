"""Bad input to the ``tractor-table`` commands: one clear line on stderr, a
non-zero exit status, no traceback, and no output file left half-written.

The commands run for real (in-process through ``cli.main`` or as a
subprocess where the exit path itself is under test); the ports and files are
real paths that are missing, folders, or closed pipes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _cli(*args: str) -> list[str]:
    return [sys.executable, "-m", "tractor_table.cli", *args]


def _one_line_error(capsys: pytest.CaptureFixture[str], rc: int, *needles: str) -> str:
    err = capsys.readouterr().err
    assert rc == 1, err
    assert "Traceback" not in err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    for needle in needles:
        assert needle in lines[0], lines[0]
    return lines[0]


# ---- output to a closed pipe (`| head`) ------------------------------------------------------


def test_output_into_a_closed_pipe_ends_quietly() -> None:
    read_end, write_end = os.pipe()
    os.close(read_end)  # the reader is gone before the first line
    try:
        r = subprocess.run(
            _cli("simulate", "--hands", "2", "--quiet"),
            stdout=write_end, stderr=subprocess.PIPE, text=True, timeout=120,
        )
    finally:
        os.close(write_end)
    assert r.returncode == 141  # as a program killed by SIGPIPE
    assert r.stderr == ""


def test_output_into_an_open_pipe_is_unchanged() -> None:
    r = subprocess.run(_cli("simulate", "--hands", "2", "--quiet"), capture_output=True, text=True, timeout=120)
    assert r.returncode == 0 and r.stderr == ""
    assert "2 hands in" in r.stdout


def test_judge_answers_malformed_lines_and_goes_on() -> None:
    lines = ["not json", "[1, 2]", '{"id": "x", "kind": "compare", "a": "ZZ", "b": "TH"}',
             '{"id": "ok", "rules": {"level": "T", "trump": "S"}, "kind": "compare", "a": "TS", "b": "TH"}']
    r = subprocess.run(_cli("judge"), input="\n".join(lines) + "\n", capture_output=True, text=True, timeout=60)
    assert r.returncode == 0 and r.stderr == ""
    answers = [json.loads(x) for x in r.stdout.splitlines()]
    assert [("error" in a) for a in answers] == [True, True, True, False]
    assert answers[3] == {"id": "ok", "cmp": 1}
