"""Test collection shared by every suite.

Dual-runtime test files: a test module whose source has a line

    # runs-under: micropython [heapsize=64K]

is collected twice: normally by pytest under CPython, and as one extra item
``<file>::micropython`` that runs all its ``test_*`` functions under
MicroPython's unix port (``tests/support/mpy_harness.py``), with ``firmware/``,
the test's own folder and ``tests/support`` on the module path and the heap
capped. A failure under MicroPython fails the item with MicroPython's output.
"""

from __future__ import annotations

import atexit
import json
import os
import re
import shutil
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tractor_table.vocab import loader

# The commands that keep records (`link`, `virtual`) write to the user's data
# directory by default: under test, that is a folder of this run's own (set
# before any test runs, so subprocesses inherit it), never the real one.
os.environ["XDG_DATA_HOME"] = _DATA_HOME = tempfile.mkdtemp(prefix="tt-test-data-")
atexit.register(shutil.rmtree, _DATA_HOME, ignore_errors=True)

ROOT = Path(__file__).resolve().parents[1]
FIRMWARE = ROOT / "firmware"
SUPPORT = Path(__file__).resolve().parent / "support"

_MARKER = re.compile(r"^# runs-under: micropython(?:[ \t]+heapsize=(\S+))?[ \t]*$", re.M)


# firmware modules imported by their own names (the dual-runtime tests, the
# engine's tests): MicroPython's compile-time helpers and viper's casts, as the
# host's loader gives them (an installed `micropython` package refuses viper)
loader.install_shim()

# tests/support's CPython helpers (vtable_rig) import by name in every suite
if str(SUPPORT) not in sys.path:
    sys.path.insert(0, str(SUPPORT))


@pytest.fixture(scope="session")
def firmware_build(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One compile of the firmware per test process (as `make firmware`, for
    this CPU): the folder of .mpy files that each module's ``compiled`` copies."""
    from vtable_rig import compile_firmware

    return compile_firmware(tmp_path_factory.mktemp("fw-build")) / "firmware"


@pytest.fixture(scope="module")
def compiled(tmp_path_factory: pytest.TempPathFactory, firmware_build: Path) -> Path:
    """The firmware compiled for the test module: the base folder that
    vtable_rig.table_in puts tables under, with the test process's one compile
    copied into its ``firmware`` (a copy, not a link: a board with its own
    pinmap compiles its hwconfig into it, as before for this module only)."""
    base = tmp_path_factory.mktemp("fw")
    shutil.copytree(firmware_build, base / "firmware")
    return base


#: how many more live objects a test module may leave behind in its test
#: process (see _objects_left)
_OBJECTS_LEFT_MAX = 400_000


@pytest.fixture(scope="module", autouse=True)
def _objects_left() -> Iterator[None]:
    """A test module leaves no large heap behind it. Every later gc.collect()
    in the same test process walks what is left, and the firmware's code
    under CPython collects often: a million syntax trees kept in a cache made
    each collection there take 2 s, and tests/table/test_main_app.py 55 s
    instead of 4 (a cache of a test's own is cleared by a module fixture of
    its own)."""
    import gc

    before = len(gc.get_objects())
    yield
    grown = len(gc.get_objects()) - before
    if grown > _OBJECTS_LEFT_MAX:
        gc.collect()  # garbage in cycles not collected yet is no leak
        grown = len(gc.get_objects()) - before
    assert grown <= _OBJECTS_LEFT_MAX, (
        f"this test module left {grown:,} more live objects in the test process "
        f"(at most {_OBJECTS_LEFT_MAX:,}): clear its caches in a module fixture"
    )


def micropython_path(test_dir: Path) -> list[Path]:
    return [FIRMWARE, test_dir, SUPPORT]


class MicroPythonItem(pytest.Item):
    def __init__(self, *, heapsize: str, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.heapsize = heapsize
        self.output = ""

    def runtest(self) -> None:
        from tractor_table import mpy

        path = Path(self.path).resolve()
        # Paths relative to the checkout, run from its root: MicroPython keeps
        # module paths in its heap, so absolute ones would make the heap a test
        # needs depend on where the checkout lies.
        proc = mpy.run(
            (SUPPORT / "mpy_harness.py").relative_to(ROOT),
            args=[path.stem],
            path=[p.relative_to(ROOT) for p in micropython_path(path.parent)],
            heapsize=self.heapsize,
            timeout=600,
            cwd=ROOT,
        )
        self.output = proc.stdout + proc.stderr
        if proc.returncode != 0:
            raise MicroPythonFailure(self.output)

    def repr_failure(self, excinfo: Any, style: Any = None) -> str:
        if isinstance(excinfo.value, MicroPythonFailure):
            return f"under MicroPython (heapsize={self.heapsize}):\n{excinfo.value}"
        return str(super().repr_failure(excinfo))

    def reportinfo(self) -> tuple[Path, int, str]:
        return Path(self.path), 0, f"{self.name} (heapsize={self.heapsize})"


class MicroPythonFailure(Exception):
    pass


class DualRuntimeModule(pytest.Module):
    def collect(self) -> Iterator[Any]:  # type: ignore[override]
        yield from super().collect()
        match = _MARKER.search(Path(self.path).read_text(encoding="utf-8"))
        assert match is not None
        yield MicroPythonItem.from_parent(self, name="micropython", heapsize=match.group(1) or "160K")


def pytest_pycollect_makemodule(module_path: Path, parent: Any) -> Any:
    try:
        text = module_path.read_text(encoding="utf-8")
    except OSError:
        return None
    if _MARKER.search(text):
        # CPython side: firmware modules import each other by top-level name.
        for p in micropython_path(module_path.parent):
            if str(p) not in sys.path:
                sys.path.insert(0, str(p))
        return DualRuntimeModule.from_parent(parent, path=module_path)
    return None


# ---- the suite's order: the longest test files first ------------------------------
#
# `make test` runs `pytest -n 2 --dist loadfile`: each test file goes whole to
# one of the two workers, the next file to whichever asks first. xdist sends
# the files by their number of tests by default, so a long file of few tests
# (a board-model run, a club event) came last and left the other core idle for
# its whole length. Here each worker sorts the collected files by their time in
# DURATIONS (longest first; files not in it, new ones, before them all, in
# collection order; a file's own tests keep their order), and the controller
# sends them in that order (--no-loadscope-reorder). The table is measured, not
# guessed: `pytest -n 2 --dist loadfile --write-durations tests/durations.json`
# rewrites the times of the files that ran (docs/development.md, "The suite's
# time"). A stale table only costs time, never a test.

DURATIONS = Path(__file__).resolve().parent / "durations.json"
#: this process's test files' times so far (with xdist, the controller's: every worker's reports)
_FILE_TIMES: dict[str, float] = {}


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--write-durations", metavar="PATH", default=None,
        help="write each test file's time (its tests' setup, call and teardown, seconds) into the JSON "
             "table at PATH, keeping the other files' (the suite's order: tests/durations.json)",
    )


def pytest_configure(config: pytest.Config) -> None:
    if getattr(config.option, "dist", "no") in ("loadfile", "loadscope"):
        config.option.loadscopereorder = False  # the order collected: longest first


def _file_of(nodeid: str) -> str:
    return nodeid.split("::", 1)[0]


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if not hasattr(config, "workerinput"):
        return  # one process: the files in their usual order
    try:
        times = {str(k): float(v) for k, v in json.loads(DURATIONS.read_text(encoding="utf-8")).items()}
    except FileNotFoundError:
        return
    except (OSError, ValueError, AttributeError) as exc:
        raise pytest.UsageError(f"{DURATIONS}: not a table of test files' seconds ({exc}); "
                                "rewrite it with --write-durations (docs/development.md)") from None
    # stable: every worker gets the same order, and a file's tests stay together in theirs
    items.sort(key=lambda item: -times.get(_file_of(item.nodeid), float("inf")))


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    f = _file_of(report.nodeid)
    _FILE_TIMES[f] = _FILE_TIMES.get(f, 0.0) + report.duration


def pytest_sessionfinish(session: pytest.Session) -> None:
    path = session.config.getoption("write_durations")
    if path is None or hasattr(session.config, "workerinput"):
        return
    target = Path(path)
    try:
        table = {str(k): float(v) for k, v in json.loads(target.read_text(encoding="utf-8")).items()}
    except (OSError, ValueError):
        table = {}
    table.update(_FILE_TIMES)
    ordered = dict(sorted(((k, round(v, 1)) for k, v in table.items()), key=lambda kv: (-kv[1], kv[0])))
    target.write_text(json.dumps(ordered, indent=1) + "\n", encoding="utf-8")
