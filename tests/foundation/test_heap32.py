"""The firmware on MicroPython's 32-bit webassembly port (host/tractor_table/wasm32.py):
a small version of bench/bench_heap32.py whose figures must be sane against the
64-bit unix port on the same inputs. Skipped, with the reason, without node or npm."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from tractor_table import mpy, paths, wasm32

BENCH = paths.ROOT / "bench"
pytestmark = pytest.mark.skipif(bool(wasm32.missing()), reason=wasm32.missing() or "node and npm are here")


@pytest.fixture(scope="module", autouse=True)
def installed() -> None:
    # every test runs the port, whichever runs first (xdist): install it once
    wasm32.install()  # npm ci from tools/wasm/package-lock.json into build/wasm (once)


@pytest.fixture(scope="module")
def firmware(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    out = tmp_path_factory.mktemp("wasm-fw")
    wasm32.build_firmware(out)
    yield out


def both(script: Path, fw: Path, args: list[str], files: tuple[Path, ...] = ()) -> tuple[str, str]:
    w = wasm32.run(script, path=[fw, BENCH], args=args, files=files, timeout=300)
    assert w.returncode == 0, w.stderr
    u = mpy.run(script, path=[fw, BENCH], args=args, heapsize="1M", timeout=300)
    assert u.returncode == 0, u.stderr
    return w.stdout, u.stdout


def test_the_port_is_32_bit_and_has_what_the_firmware_needs(tmp_path: Path) -> None:
    probe = tmp_path / "probe.py"
    probe.write_text(
        "import sys, framebuf, gc\n"
        "print(sys.platform, sys.maxsize == 2**31 - 1, sys.implementation._mpy >> 10, sys.argv[1:])\n"
    )
    proc = wasm32.run(probe, path=[], args=["a", "b"])
    assert proc.returncode == 0, proc.stderr
    # 32-bit, and no native architecture (so no @micropython.native)
    assert proc.stdout.split() == ["webassembly", "True", "0", "['a',", "'b']"]


def test_native_code_is_a_syntax_error_there_and_is_blanked(tmp_path: Path) -> None:
    src = "import micropython\n\n@micropython.native\ndef f(x):\n    return x + 1\n\nprint(f(41))\n"
    native = tmp_path / "native.py"
    native.write_text(src)
    proc = wasm32.run(native, path=[])
    assert proc.returncode == 1 and "SyntaxError" in proc.stderr
    plain = tmp_path / "plain.py"
    plain.write_text(wasm32.strip_native(src))
    assert plain.read_text().count("\n") == src.count("\n")  # line numbers kept
    proc = wasm32.run(plain, path=[])
    assert proc.returncode == 0 and proc.stdout.strip() == "42", proc.stderr
    # viper code runs as bytecode too: its decorator blanked, its pointer casts defined at the end
    src = (
        "import micropython\n\n@micropython.viper\ndef g(b, i: int) -> int:\n"
        "    p = ptr8(b)\n    p[i] += 1\n    return int(p[i]) + 1\n"
    )
    mod = tmp_path / "vmod.py"
    mod.write_text(src)
    main = tmp_path / "vmain.py"
    main.write_text("import vmod\nprint(vmod.g(bytearray(3), 1))\n")
    proc = wasm32.run(main, path=[tmp_path])
    assert proc.returncode == 1 and "SyntaxError" in proc.stderr
    mod.write_text(wasm32.strip_native(src))
    assert mod.read_text().splitlines()[: src.count("\n")] == ["" if ln == "@micropython.viper" else ln for ln in src.splitlines()]
    proc = wasm32.run(main, path=[tmp_path])
    assert proc.returncode == 0 and proc.stdout.strip() == "2", proc.stderr


def test_a_failing_script_reports_its_traceback(tmp_path: Path) -> None:
    bad = tmp_path / "bad.py"
    bad.write_text("def f():\n    raise ValueError('on purpose')\nf()\n")
    proc = wasm32.run(bad, path=[])
    assert proc.returncode == 1
    assert "ValueError: on purpose" in proc.stderr and "line 2" in proc.stderr


def test_the_live_heap_is_collected_on_both_ports(tmp_path: Path) -> None:
    # the webassembly port collects only at its top level: heapprobe's points must see garbage go
    prog = tmp_path / "garbage.py"
    prog.write_text(
        "import heapprobe\n"
        "def run():\n"
        "    yield\n"
        "    a = heapprobe.last()\n"
        "    x = [bytearray(100) for _ in range(500)]\n"
        "    yield\n"
        "    held = heapprobe.last() - a\n"
        "    x = None\n"
        "    yield\n"
        "    print(held, heapprobe.last() - a)\n"
        "heapprobe.drive(run())\n"
    )
    w, u = both(prog, tmp_path, [])
    (w_held, w_after), (u_held, u_after) = (map(int, w.split()), map(int, u.split()))
    assert 500 * 100 < w_held < u_held  # 32-bit objects are smaller
    assert w_after < 1000 and u_after < 1000  # and the garbage is gone on both


def test_table_core_rules_and_link_use_less_heap_with_32_bit_objects(firmware: Path, tmp_path: Path) -> None:
    sys.path.insert(0, str(BENCH))
    try:
        from bench_table import record_hands
        from tractor_table import difffuzz
    finally:
        sys.path.remove(str(BENCH))
    data = tmp_path / "hands.jsonl"
    data.write_text("".join(json.dumps(h) + "\n" for h in record_hands(3, 11)))
    w, u = both(BENCH / "table_mp.py", firmware, [str(data), str(tmp_path / "t.json"), "3"], (data,))
    w_peak, u_peak = (int(next(ln for ln in out.splitlines() if ln.startswith("mem ")).split()[1]) for out in (w, u))
    assert 40_000 < w_peak < u_peak
    # the table core's peak holds its code and its state: between the
    # bytecode factor (0.74) and the data factor (0.89) of bench/rp2040.py,
    # with the spread of a 3-hand run (the rp2 port's own run was 40 hands)
    assert 0.65 < w_peak / u_peak < 0.9

    case = tmp_path / "case.json"
    case.write_text(json.dumps(difffuzz.make_script(7, variant=0).case))
    for args, keys in ((["code"], ["total"]), (["rules", str(case)], ["code", "state_peak"]), (["link"], ["module", "total"])):
        w, u = both(BENCH / "heap32_mp.py", firmware, args, (case,))
        wr, ur = json.loads(w.splitlines()[-1]), json.loads(u.splitlines()[-1])
        for key in keys:
            assert 0 < wr[key] < ur[key], (args, key, wr, ur)
            assert wr[key] / ur[key] > 0.45, (args, key, wr, ur)  # smaller, not vanished
    assert wr["total"] < 12 * 1024  # the link's budget (docs/performance.md, "Link")
