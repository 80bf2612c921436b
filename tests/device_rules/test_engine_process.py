"""The device engine's process client (``tractor_table.sim.engine.EngineProcess``)
against the real runners under MicroPython: answers, error answers, a process
that dies and the fresh one that follows, the fields kept back."""

from __future__ import annotations

import pytest
from tractor_table.errors import CommandError
from tractor_table.sim.engine import EngineProcess, EngineStopped

COMPARE = {"id": "c", "rules": {"level": "T", "trump": "S"}, "kind": "compare", "a": "TS", "b": "TH"}


def test_answers_and_error_answers_from_one_process() -> None:
    with EngineProcess("judge") as dev:
        assert dev.ask(COMPARE) == {"id": "c", "cmp": 1}
        bad = dev.ask({"id": "x", "kind": "nonsense"})
        assert bad["id"] == "x" and "nonsense" in bad["error"]
        missing = dev.ask({"id": "m", "kind": "compare", "a": "2S"})
        assert missing["id"] == "m" and "missing field" in missing["error"]
        assert dev.ask(COMPARE)["cmp"] == 1
        assert dev.starts == 1  # errors are answers: the same process goes on


def test_a_process_that_died_between_cases_is_replaced() -> None:
    dev = EngineProcess("judge")
    try:
        assert dev.ask(COMPARE)["cmp"] == 1
        assert dev.proc is not None
        dev.proc.kill()
        dev.proc.wait()
        assert dev.ask(COMPARE)["cmp"] == 1  # a fresh process
        assert dev.starts == 2
    finally:
        dev.close()
    assert dev.proc is None


def test_a_process_that_dies_on_a_case_is_reported_and_replaced() -> None:
    # a heap too small for the engine to load: the process ends on each case
    dev = EngineProcess("judge", heapsize="8K")
    try:
        for n in (1, 2):
            with pytest.raises(EngineStopped) as info:
                dev.ask(COMPARE)
            # the port prints its uncaught error (on stdout: "crashed"; on stderr: "stopped")
            assert info.value.reason in ("crashed", "stopped")
            assert "MemoryError" in str(info.value), info.value
            assert isinstance(info.value, CommandError)  # the fuzzer and the search stop with it
            assert dev.starts == n and dev.proc is None
    finally:
        dev.close()


def test_the_callers_fields_are_kept_back() -> None:
    # "note" holds what JSON cannot carry: sent, it would fail to encode
    case = {"id": "t", "kind": "trick", "rules": {"level": "2", "trump": "S"}, "leader": 0,
            "plays": ["3S", "4S", "5S", "6S"], "expect": [3, 5], "note": {"not", "json"}}
    with EngineProcess("adversary", args=["1"], drop=("expect", "note")) as dev:
        got = dev.ask(case)
    assert got["id"] == "t" and got["answer"] == [3, 5] and got["n"] == 1 and got["us"] >= 0
    with EngineProcess("adversary", args=["1"]) as dev, pytest.raises(TypeError):
        dev.ask(case)


def test_an_unknown_runner_is_refused_by_name() -> None:
    with pytest.raises(ValueError, match="judge, adversary, chipjudge"):
        EngineProcess("nosuch")
