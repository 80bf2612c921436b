"""One client and one server loop for the device engine's process
(``tractor_table.sim.engine``): the runners of ``sim/engine/mpy/`` are started
by ``EngineProcess`` alone (the judge, the fuzzer, the adversarial search, the
benches and the tests all use it), and every runner answers with the loop of
``serve_mp.py``. Read from the source."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from functools import cache
from pathlib import Path

import pytest
from astread import docstring_ids

ROOT = Path(__file__).resolve().parents[2]
ENGINE = ROOT / "host" / "tractor_table" / "sim" / "engine"
MPY = ENGINE / "mpy"
CLIENT = ENGINE / "__init__.py"
#: the runners a process is started with (each has a main())
SERVERS = ("judge_mp.py", "adversary_mp.py", "chipjudge_mp.py")


def python_files() -> list[Path]:
    out: list[Path] = []
    for top in ("host", "bench", "tests", "engine"):
        out += [p for p in sorted((ROOT / top).rglob("*.py")) if "__pycache__" not in p.parts]
    return out


@cache
def parsed(path: Path) -> ast.Module:
    """``path``'s syntax tree, parsed once for the module's tests (each reads every file)."""
    return ast.parse(path.read_text(encoding="utf-8"))


@pytest.fixture(scope="module", autouse=True)
def _trees_dropped_after() -> Iterator[None]:
    # every file's tree is about a million objects: kept to the end of the
    # test process they made each later gc.collect() in it take 2 s, and the
    # firmware's tests under CPython collect often (tests/conftest.py,
    # "_objects_left")
    yield
    parsed.cache_clear()


def code_strings(tree: ast.AST) -> list[tuple[int, str]]:
    """(line, text) of every string constant but docstrings."""
    docs = docstring_ids(tree)
    return [
        (n.lineno, n.value)
        for n in ast.walk(tree)
        if isinstance(n, ast.Constant) and isinstance(n.value, str) and id(n) not in docs
    ]


def test_only_the_client_names_a_runner_to_start() -> None:
    # a runner's file named in code (not in a docstring or a comment) anywhere
    # but the client is a second client in the making
    bad = []
    for path in python_files():
        if path in (CLIENT, Path(__file__).resolve()) or path.parent == MPY:
            continue
        for line, text in code_strings(parsed(path)):
            if any(text == s or text.endswith("/" + s) for s in SERVERS):  # a file name, a path
                bad.append(f"{path.relative_to(ROOT)}:{line}: {text!r}")
    assert bad == [], "start the device engine through tractor_table.sim.engine.EngineProcess:\n" + "\n".join(bad)
    named = {text for _, text in code_strings(ast.parse(CLIENT.read_text(encoding="utf-8")))}
    assert set(SERVERS) <= named


def test_exactly_one_client_class() -> None:
    # the classes that start a MicroPython process for the engine: one
    clients = []
    for path in python_files():
        for cls in (n for n in ast.walk(parsed(path)) if isinstance(n, ast.ClassDef)):
            src = ast.unparse(cls)
            if "popen" in src and ("RUNNERS" in src or any(s in src for s in SERVERS)):
                clients.append(f"{path.relative_to(ROOT)}:{cls.name}")
    assert clients == ["host/tractor_table/sim/engine/__init__.py:EngineProcess"]
    for gone in ("DeviceRunner", "DeviceEngine", "DeviceChecker"):
        for path in python_files():
            assert f"class {gone}" not in path.read_text(encoding="utf-8"), (path, gone)


def test_every_runner_answers_with_the_one_loop() -> None:
    for name in SERVERS:
        tree = ast.parse((MPY / name).read_text(encoding="utf-8"))
        calls = {ast.unparse(n.func) for n in ast.walk(tree) if isinstance(n, ast.Call)}
        assert "serve" in calls, f"{name} does not answer with serve_mp.serve"
        assert not any("stdin" in c for c in calls), f"{name} reads stdin itself"
    readers = [
        p.name for p in sorted(MPY.glob("*.py"))
        if "sys.stdin" in p.read_text(encoding="utf-8") and p.name != "serve_mp.py"
    ]
    assert readers == []
