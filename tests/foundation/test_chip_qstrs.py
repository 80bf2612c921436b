"""The firmware's names in the RP2040's qstr pools (tractor_table.chip_qstrs;
docs/firmware.md, "The chip's qstr pools"): the rp2 port interns a module's
names at its import and never frees one; past 1,260 names a seventh pool
takes 7.7 KB at once, a step the unix-port models cannot show."""

from __future__ import annotations

from pathlib import Path

from tractor_table import chip_qstrs, firmware_build


def test_the_pools_are_the_ports_six_then_a_seventh_of_1280_names() -> None:
    # measured on the emulated port (bench/chip_heap.py): 16,350 B for six
    # pools and the names' text, 8,606 B of it the text: 7,744 B of pools
    assert chip_qstrs.pools(chip_qstrs.SIX_POOLS) == (6, 1260, 7744)
    assert chip_qstrs.pools(1) == (1, 20, 144)
    n, cap, size = chip_qstrs.pools(chip_qstrs.SIX_POOLS + 1)
    assert (n, cap) == (7, 2540) and size - 7744 >= 7680  # one name more: 1,280 entries of 6 bytes


def test_a_module_interns_its_names_less_the_ports_and_its_files_name() -> None:
    names = chip_qstrs.module_names(["ttlink"])["ttlink"]
    ported = names & chip_qstrs.PORT_NAMES
    assert ported  # (json, binascii, ... : the port has them)
    assert chip_qstrs.interned(["ttlink"]) == len(names - chip_qstrs.PORT_NAMES) + 1
    # a name two modules hold is interned once
    both = chip_qstrs.interned(["events", "ttlink"])
    assert both < chip_qstrs.interned(["events"]) + chip_qstrs.interned(["ttlink"])


def test_the_most_a_match_loads_fits_the_chips_six_pools() -> None:
    worst = chip_qstrs.worst_match()
    assert {"drules_sweep", "tablefriend", "tablescan", "tablereveal", "tableforfeit", "tableundo", "tablerestore", "ttlink_snap"} <= set(worst)
    n = chip_qstrs.interned(worst) + chip_qstrs.RUNTIME_NAMES
    assert n <= chip_qstrs.SIX_POOLS, f"{n} names: the chip takes a seventh qstr pool, 7.7 KB (docs/firmware.md)"


def test_the_check_sees_a_set_of_names_that_does_not_fit() -> None:
    # every firmware module, the maintenance ones too (never in one power-up
    # with a match): past the six pools
    every = [p.stem for p in firmware_build.firmware_sources()]
    assert chip_qstrs.pools(chip_qstrs.interned(every) + chip_qstrs.RUNTIME_NAMES)[0] == 7


def test_a_table_interns_the_names_of_its_rules_modules() -> None:
    from shengji import Rules

    four = chip_qstrs.match_modules(Rules.preset("xuwen"))
    two = chip_qstrs.match_modules(Rules.preset("classic"))
    friend = chip_qstrs.match_modules(Rules.preset("friend"), pico=False, readers=False)
    assert set(chip_qstrs.LADDERS) <= set(four) and not set(chip_qstrs.LADDERS) & set(two)
    assert set(chip_qstrs.FRIEND) <= set(friend) and not set(chip_qstrs.FRIEND) & set(four)
    assert not set(chip_qstrs.PICO_BOARD + chip_qstrs.READERS) & set(friend)
    assert set(chip_qstrs.PICO_BOARD) <= set(two)
    assert not set(chip_qstrs.RARE) & set(four)  # the rare paths' names come if they are taken
    assert "tablescan" in chip_qstrs.match_modules(Rules.preset("classic"), hand_scan=True) and "tablescan" not in two


def test_the_firmwares_names_first_fill_the_pools_as_they_do_alone(tmp_path: Path) -> None:
    # the models intern the firmware's names before their own (start.py,
    # fwnames.py): the firmware's share of the heap is then its share alone;
    # with the fast board's own modules first it was 7 KB more (a seventh
    # pool, the firmware's names spilling past the board's)
    from shengji import Rules
    from tractor_table import mpy
    from tractor_table.sim.virtual.runner import (
        BOARD_SOURCES,
        CHIP_SOURCE,
        compile_board,
        compile_for_host,
        write_names,
    )

    fw, sim = tmp_path / "fw", tmp_path / "sim"
    compile_for_host(fw)
    compile_for_host(sim, CHIP_SOURCE)
    compile_board(sim, BOARD_SOURCES)
    mods = chip_qstrs.match_modules(Rules.preset("xuwen"), pico=False)
    write_names(sim / "fwnames.txt", fw, mods)
    board = ["chipstack", "vboard", "hands", "chip"]

    def firmware(first: bool) -> int:
        code = (
            "import gc, sys\ngc.collect()\ns0 = gc.mem_alloc()\nF = 0\n"
            + ("import fwnames\nF = fwnames.intern(sys.argv[0], 0)\n" if first else "")
            + f"gc.collect()\ns1 = gc.mem_alloc()\nfor m in {board!r}:\n    __import__(m)\n"
            + "gc.collect()\nown = gc.mem_alloc() - s1\n"
            + f"for m in {mods!r}:\n    __import__(m)\n"
            + "gc.collect()\nprint('FW', gc.mem_alloc() - s0 - own)\n"
        )
        script = sim / ("first.py" if first else "after.py")
        script.write_text(code)
        proc = mpy.run(script, path=[sim, fw], heapsize="2M", timeout=60)
        assert proc.returncode == 0, proc.stderr
        return int(proc.stdout.split("FW")[1])

    alone_code = f"import gc\ngc.collect()\ns0 = gc.mem_alloc()\nfor m in {mods!r}:\n    __import__(m)\ngc.collect()\nprint('FW', gc.mem_alloc() - s0)\n"
    alone = int(mpy.run(code=alone_code, path=[fw], heapsize="2M", timeout=60).stdout.split("FW")[1])
    assert abs(firmware(True) - alone) < 2048
    assert firmware(False) - alone > 4096
