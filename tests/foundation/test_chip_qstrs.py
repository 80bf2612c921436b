"""The firmware's names in the RP2040's qstr pools (tractor_table.chip_qstrs;
docs/firmware.md, "The chip's qstr pools"): the rp2 port interns a module's
names at its import and never frees one; past 1,260 names a seventh pool
takes 7.7 KB at once, a step the unix-port models cannot show."""

from __future__ import annotations

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
