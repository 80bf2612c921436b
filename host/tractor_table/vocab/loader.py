"""The host's one loader of firmware modules, and the reader of their ``const()`` names.

:func:`firmware` runs ``firmware/<name>.py`` under CPython as the module
``tractor_table.firmware.<name>``, once, with the firmware's imports of each
other resolved to the same loader (never through ``sys.path``: no firmware
module shadows a host one) and ``micropython`` given as a shim (``const``,
``native``, ``viper``), with the viper emitter's casts as builtins
(``ptr8``, ``ptr16``, ``ptr32``: the buffer itself; ``uint``: ``int``).
:func:`const_names` reads a module's ``NAME =
const(int)`` from its source; :class:`Consts` is one module's, refusing by
name one the host asks for and the module has not.
"""

from __future__ import annotations

import ast
import builtins
import functools
import importlib.util
import sys
import threading
import types
from collections.abc import Sequence
from typing import Any

from ..paths import FIRMWARE_DIR

PACKAGE = "tractor_table.firmware"

_lock = threading.RLock()
_loaded: dict[str, types.ModuleType] = {}


def _micropython_shim() -> types.ModuleType:
    shim = types.ModuleType("micropython", "MicroPython's compile-time helpers, as no-ops under CPython")

    def const(x: Any) -> Any:
        return x

    def native(f: Any) -> Any:
        return f

    # the heap's lock (tablerules.ask, drules._load): CPython allocates
    # anyway, so only its depth is kept, as MicroPython's py/gc.c keeps it (a
    # 16-bit count of locks, bit 0 not its: an unlock of an unlocked heap
    # wraps to 32767, which the next lock brings back to 0)
    depth = [0]

    def heap_lock() -> None:
        depth[0] = (depth[0] + 1) & 0x7FFF

    def heap_unlock() -> int:
        depth[0] = (depth[0] - 1) & 0x7FFF
        return depth[0]

    shim.const = const  # type: ignore[attr-defined]
    shim.native = native  # type: ignore[attr-defined]
    shim.viper = native  # type: ignore[attr-defined]
    shim.heap_lock = heap_lock  # type: ignore[attr-defined]
    shim.heap_unlock = heap_unlock  # type: ignore[attr-defined]
    return shim


_MICROPYTHON = _micropython_shim()


def _ptr(buf: Any) -> Any:
    # viper's ptr8(bytearray): under CPython the buffer itself, indexed as
    # the pointer is (a store out of 0-255 raises here, where the chip's
    # truncates: a test that passes here never relies on the truncation)
    return buf


#: the builtins of viper code (``@micropython.viper``), for the firmware under CPython
_VIPER_BUILTINS = {"ptr8": _ptr, "ptr16": _ptr, "ptr32": _ptr, "uint": int}


def install_shim() -> None:
    """For a process that imports firmware modules by their own top-level names
    under CPython (the dual-runtime tests: ``firmware/`` on ``sys.path``), not
    through :func:`firmware`: ``micropython`` is this shim (an installed
    ``micropython`` package, Adafruit Blinka's, refuses ``@micropython.viper``),
    and viper's casts are builtins."""
    sys.modules["micropython"] = _MICROPYTHON
    for name, value in _VIPER_BUILTINS.items():
        setattr(builtins, name, value)


@functools.cache
def firmware_names() -> frozenset[str]:
    """The firmware's module names (``firmware/*.py``)."""
    return frozenset(p.stem for p in FIRMWARE_DIR.glob("*.py"))


def _import(
    name: str,
    globals: Any = None,  # noqa: A002 - __import__'s signature
    locals: Any = None,  # noqa: A002
    fromlist: Sequence[str] = (),
    level: int = 0,
) -> types.ModuleType:
    if level == 0:
        if name == "micropython":
            return _MICROPYTHON
        if name in firmware_names():
            return firmware(name)
    return builtins.__import__(name, globals, locals, fromlist, level)


def firmware(name: str) -> types.ModuleType:
    """``firmware/<name>.py`` loaded under CPython (once; see the module docs).
    Raises ImportError naming the file when there is no such module."""
    with _lock:
        module = _loaded.get(name)
        if module is not None:
            return module
        source = FIRMWARE_DIR / f"{name}.py"
        if not source.is_file():
            raise ImportError(f"no firmware module {name!r} ({source} does not exist)")
        spec = importlib.util.spec_from_file_location(f"{PACKAGE}.{name}", source)
        if spec is None or spec.loader is None:  # pragma: no cover - broken checkout
            raise ImportError(f"cannot load the firmware module {source}")
        module = importlib.util.module_from_spec(spec)
        # the firmware's own imports (import events as E, from ttlink import ...)
        # go to this loader, at load time and in functions that import later
        module.__dict__["__builtins__"] = {**vars(builtins), **_VIPER_BUILTINS, "__import__": _import}
        _loaded[name] = module  # before running it: the firmware's modules import each other
        sys.modules[spec.name] = module
        try:
            spec.loader.exec_module(module)
        except BaseException:
            del _loaded[name]
            del sys.modules[spec.name]
            raise
        return module


@functools.cache
def const_names(name: str) -> tuple[tuple[str, int], ...]:
    """The ``NAME = const(int)`` of a firmware module, in source order (private
    names too: the compiler inlines those and the device's heap never holds them)."""
    tree = ast.parse((FIRMWARE_DIR / f"{name}.py").read_text(encoding="utf-8"))
    out: list[tuple[str, int]] = []
    for node in tree.body:
        if (
            isinstance(node, ast.Assign)
            and len(node.targets) == 1
            and isinstance(node.targets[0], ast.Name)
            and isinstance(node.value, ast.Call)
            and isinstance(node.value.func, ast.Name)
            and node.value.func.id == "const"
        ):
            target = node.targets[0].id
            try:  # const(literal), as the compiler reads it; else as the module computes it
                value = ast.literal_eval(node.value.args[0])
            except (ValueError, TypeError, SyntaxError, IndexError):
                value = getattr(firmware(name), target)
            out.append((target, int(value)))
    return tuple(out)


def const_run(module: str, first: str, count: int, strip: str = "") -> dict[str, int]:
    """``count`` const names of ``module`` from ``first`` on, in source order."""
    names = const_names(module)
    at = next((i for i, (n, _) in enumerate(names) if n == first), None)
    if at is None or at + count > len(names):
        raise ImportError(f"firmware/{module}.py: no run of {count} const names from {first}")
    return {n.removeprefix(strip): v for n, v in names[at : at + count]}


def const_prefixed(module: str, prefix: str) -> dict[str, int]:
    return {n.removeprefix(prefix): v for n, v in const_names(module) if n.startswith(prefix)}


class Consts:
    """A firmware module's const names; one the host names and the module has
    not stops the import, saying which."""

    def __init__(self, module: str) -> None:
        self.module = module
        self.values = dict(const_names(module))

    def __getitem__(self, name: str) -> int:
        try:
            return self.values[name]
        except KeyError:
            raise ImportError(
                f"firmware/{self.module}.py has no const {name}, which tractor_table.vocab names: "
                "change the one or the other"
            ) from None
