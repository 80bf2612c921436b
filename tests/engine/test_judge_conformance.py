"""The public conformance cases, run through the real ``tractor-table judge``."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

HERE = Path(__file__).resolve().parent
CASES = sorted((HERE / "conformance").glob("*.jsonl"))
ENGINE_KINDS = {"compare", "shape", "throw", "follow", "trick"}


def _command() -> list[str]:
    # the installed console script when there is one, else the same entry point
    script = Path(sys.executable).parent / "tractor-table"
    return [str(script)] if script.exists() else [sys.executable, "-m", "tractor_table.cli"]


def run_judge(text: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*_command(), "judge", *args],
        input=text,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def _norm(key: str, value: Any) -> Any:
    # cards are compared as multisets
    if key == "play" and isinstance(value, str):
        return sorted(value.split())
    return value


def _load() -> list[dict[str, Any]]:
    cases = []
    for path in CASES:
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                cases.append(json.loads(line))
    return cases


@pytest.fixture(scope="module")
def answers() -> dict[str, dict[str, Any]]:
    text = "".join(p.read_text(encoding="utf-8") for p in CASES)
    proc = run_judge(text)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert len(lines) == len(_load())
    return {a["id"]: a for a in map(json.loads, lines)}


def test_vendored_cases_exist() -> None:
    kinds = {c["kind"] for c in _load()}
    assert ENGINE_KINDS <= kinds


@pytest.mark.parametrize(
    "case", [c for c in _load() if c["kind"] in ENGINE_KINDS], ids=lambda c: c["id"]
)
def test_case(case: dict[str, Any], answers: dict[str, dict[str, Any]]) -> None:
    got = answers[case["id"]]
    assert "error" not in got, got
    for key, value in case["expect"].items():
        assert _norm(key, got.get(key)) == _norm(key, value), (case["id"], key, got)


def test_answers_keep_the_input_order() -> None:
    cases = [c for c in _load() if c["kind"] in ENGINE_KINDS][:5]
    proc = run_judge("".join(json.dumps(c) + "\n" for c in reversed(cases)))
    ids = [json.loads(line)["id"] for line in proc.stdout.splitlines()]
    assert ids == [c["id"] for c in reversed(cases)]


def test_malformed_lines_get_error_answers_and_the_run_goes_on() -> None:
    good = {
        "id": "ok",
        "rules": {"level": "T", "trump": "S"},
        "kind": "compare",
        "a": "TS",
        "b": "TH",
    }
    lines = [
        "this is not json",
        "[1, 2]",
        json.dumps({"id": "no-kind"}),
        json.dumps({"id": "bad-kind", "kind": "poker"}),
        json.dumps({"id": "bad-card", "rules": {}, "kind": "compare", "a": "ZZ", "b": "AS"}),
        json.dumps({"id": "bad-rules", "rules": {"decks": 9}, "kind": "shape", "cards": "AS"}),
        json.dumps({"id": "bad-option", "rules": {"colour": 1}, "kind": "shape", "cards": "AS"}),
        json.dumps({"id": "no-hands", "rules": {}, "kind": "throw", "leader": 0, "lead": "AS KS"}),
        json.dumps(
            {
                "id": "bad-seat",
                "rules": {},
                "kind": "trick",
                "leader": 7,
                "plays": ["AS", "2S", "3S", "4S"],
            }
        ),
        json.dumps(
            {
                "id": "short-trick",
                "rules": {},
                "kind": "trick",
                "leader": 0,
                "plays": ["AS AS", "2S", "3S", "4S"],
            }
        ),
        json.dumps({"id": "too-many", "rules": {"decks": 1}, "kind": "shape", "cards": "AS AS"}),
        json.dumps(
            {
                "id": "not-in-hand",
                "rules": {},
                "kind": "follow",
                "lead": "AS",
                "hand": "3S",
                "play": "4S",
            }
        ),
        json.dumps(
            {
                "id": "mixed-lead",
                "rules": {},
                "kind": "follow",
                "lead": "AS AH",
                "hand": "3S 4S",
                "play": "3S 4S",
            }
        ),
        "",
        json.dumps(good),
    ]
    proc = run_judge("\n".join(lines) + "\n")
    assert proc.returncode == 0, proc.stderr
    out = [json.loads(line) for line in proc.stdout.splitlines()]
    assert len(out) == len(lines) - 1  # the blank line is skipped
    for answer in out[:-1]:
        assert set(answer) == {"id", "error"}, answer
        assert answer["error"]
    assert out[4]["id"] == "bad-card" and "ZZ" in out[4]["error"]
    assert "decks" in out[5]["error"]
    assert out[-1] == {"id": "ok", "cmp": 1}


def test_device_engine_is_reported_when_missing_or_runs() -> None:
    proc = run_judge(
        json.dumps({"id": "x", "kind": "compare", "a": "AS", "b": "KS"}) + "\n",
        "--engine",
        "device",
    )
    try:
        import tractor_table.device_judge  # noqa: F401
    except ModuleNotFoundError:
        assert proc.returncode == 1
        assert "not built" in proc.stderr and "Traceback" not in proc.stderr
    else:
        assert proc.returncode == 0, proc.stderr
        assert json.loads(proc.stdout.splitlines()[0])["id"] == "x"


def test_hand_kinds_answered_or_reported() -> None:
    from shengji.conformance import answer

    case = {
        "id": "k",
        "rules": {"level": "T", "trump": "S"},
        "kind": "kitty",
        "lead": "AC",
        "winner_play": "3S",
        "kitty": "KD",
    }
    got = answer(case)
    try:
        import shengji.conformance_hand  # noqa: F401
    except ModuleNotFoundError:
        assert "not implemented" in got["error"]
    else:
        assert "error" not in got


def test_a_line_that_is_not_utf8_gets_an_error_answer() -> None:
    good = json.dumps({"id": "after", "rules": {}, "kind": "compare", "a": "10♥", "b": "AS"})
    proc = subprocess.run(
        [*_command(), "judge"],
        input=b"\xff\xfe not text\n" + good.encode("utf-8") + b"\n",
        capture_output=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    out = [json.loads(line) for line in proc.stdout.decode("utf-8").splitlines()]
    assert "UTF-8" in out[0]["error"]
    assert out[1] == {"id": "after", "cmp": "none"}


@pytest.mark.parametrize("engine", ["full", "device"])
def test_lines_json_cannot_hold_get_error_answers_too(engine: str) -> None:
    # Python's json raises RecursionError for deep nesting and ValueError for an
    # integer of more than 4300 digits; both runners answer them like any other
    # malformed line and go on
    good = {"id": "ok", "rules": {"level": "T", "trump": "S"}, "kind": "compare", "a": "TS", "b": "TH"}
    lines = ["[" * 100_000 + "]" * 100_000, '{"id": ' + "1" * 5000 + "}", json.dumps(good)]
    proc = run_judge("\n".join(lines) + "\n", "--engine", engine)
    assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stderr
    out = [json.loads(line) for line in proc.stdout.splitlines()]
    assert out[0] == {"id": None, "error": "unreadable JSON: nested too deeply"}
    assert out[1]["id"] is None and "4300 digits" in out[1]["error"]
    assert out[2] == {"id": "ok", "cmp": 1}

