"""The host side's own parts: the shared module is the firmware's file, its
stub matches it, ports are found by USB id, opened exclusively."""

from __future__ import annotations

import ast
import inspect
import os
import pty
import tty
from pathlib import Path
from typing import Any

import pytest
import serial
from serial.tools import list_ports_common
from tractor_table.errors import CommandError
from tractor_table.link import SHARED_SOURCE, serial_link, ttlink, ttlink_host
from tractor_table.paths import FIRMWARE_DIR

HERE = Path(serial_link.__file__).parent
#: each firmware module the host takes (tractor_table.link) and its stub
STUBS = [(ttlink, HERE / "_ttlink.pyi"), (ttlink_host, HERE / "_ttlink_host.pyi")]


def test_the_host_runs_the_firmware_file_itself() -> None:
    assert SHARED_SOURCE == FIRMWARE_DIR / "ttlink.py"
    assert Path(ttlink.__file__ or "") == SHARED_SOURCE
    assert Path(ttlink_host.__file__ or "") == FIRMWARE_DIR / "ttlink_host.py"
    assert not list(HERE.glob("_ttlink*.py"))


def _stub_defs(stub: Path) -> dict[str, list[str] | None]:
    """name -> parameter names (None for constants), classes as Class.method."""
    tree = ast.parse(stub.read_text())
    out: dict[str, list[str] | None] = {}
    for node in tree.body:
        if isinstance(node, ast.FunctionDef):
            out[node.name] = [a.arg for a in node.args.args]
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            out[node.target.id] = None
        elif isinstance(node, ast.ClassDef):
            out[node.name] = None
            for item in node.body:
                if isinstance(item, ast.FunctionDef):
                    out[f"{node.name}.{item.name}"] = [a.arg for a in item.args.args]
    return out


@pytest.mark.parametrize(("module", "stub", "least"), [(*STUBS[0], 40), (*STUBS[1], 10)],
                         ids=["ttlink", "ttlink_host"])
def test_stub_matches_the_module(module: Any, stub: Path, least: int) -> None:
    defs = _stub_defs(stub)
    assert len(defs) > least
    file = Path(module.__file__).name
    for name, params in defs.items():
        obj: Any = module
        for part in name.split("."):
            assert hasattr(obj, part), f"{stub.name} names {name}, {file} has no such thing"
            obj = getattr(obj, part)
        if params is not None and not isinstance(obj, property):
            assert list(inspect.signature(obj).parameters) == params, name
    # and the other way round: every public function and class is typed
    shims = {"const", "ticks_diff"}  # MicroPython names the module defines on CPython
    for name in dir(module):
        if name.startswith("_") or name in shims:
            continue
        value = getattr(module, name)
        if inspect.isfunction(value) or inspect.isclass(value):
            if getattr(value, "__module__", "") == module.__name__:
                assert name in defs, f"{name} is not in {stub.name}"


class FakePortInfo(list_ports_common.ListPortInfo):
    def __init__(self, device: str, vid: int | None, pid: int | None = 0x0005) -> None:
        super().__init__(device, skip_link_detection=True)
        self.vid = vid
        self.pid = pid


def test_picos_are_found_by_usb_vendor_id(monkeypatch: pytest.MonkeyPatch) -> None:
    # USB enumeration is what cannot run here: the port list is the fake
    ports = [FakePortInfo("/dev/ttyACM1", 0x2E8A), FakePortInfo("/dev/ttyUSB0", 0x0403),
             FakePortInfo("/dev/ttyS0", None), FakePortInfo("/dev/ttyACM0", 0x2E8A),
             FakePortInfo("/dev/ttyACM2", 0x2E8A, 0x000C)]  # a debug probe
    monkeypatch.setattr(serial_link.list_ports, "comports", lambda: ports)
    assert serial_link.find_pico_ports() == ["/dev/ttyACM0", "/dev/ttyACM1"]
    with pytest.raises(CommandError, match="several Picos"):
        serial_link.resolve_port(None)
    assert serial_link.resolve_port("/dev/ttyX") == "/dev/ttyX"
    monkeypatch.setattr(serial_link.list_ports, "comports", lambda: ports[1:3])
    with pytest.raises(CommandError, match="no Raspberry Pi Pico found"):
        serial_link.resolve_port(None)


def test_a_port_is_opened_exclusively() -> None:
    master, slave = pty.openpty()
    tty.setraw(slave)
    try:
        path = os.ttyname(slave)
        first = serial_link.open_port(path)
        with pytest.raises(serial.SerialException):
            serial_link.open_port(path)
        first.write(b"ping\n")
        assert os.read(master, 100) == b"ping\n"
        first.close()
        serial_link.open_port(path).close()  # free again once closed
    finally:
        os.close(master)
        os.close(slave)


def test_a_pyserial_url_is_a_port() -> None:
    ser = serial_link.open_port("loop://")
    ser.write(b"abc")
    assert ser.read(3) == b"abc"
    ser.close()


def test_host_identity_comes_from_the_firmware_version_file() -> None:
    version, rules = serial_link.host_identity()
    assert rules == "rules-2026.1" and version
