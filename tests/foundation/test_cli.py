from __future__ import annotations

import pytest
from tractor_table import cli


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        cli.main(["--version"])
    assert exc.value.code == 0
    assert "tractor-table" in capsys.readouterr().out


def test_no_command_prints_help(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main([]) == 2
    assert "COMMAND" in capsys.readouterr().out


def test_unknown_command_is_an_error() -> None:
    with pytest.raises(SystemExit) as exc:
        cli.main(["no-such-command"])
    assert exc.value.code == 2


def test_every_listed_command_module_loads() -> None:
    missing = [name for name, c in cli.COMMANDS.items() if cli._load(c.module) is None]
    assert missing == []


def test_building_the_parser_loads_no_command_s_heavy_dependencies() -> None:
    # every command module is imported to build the parser: what a command
    # needs to run (bots, the link, the virtual table, mpremote, pyserial) must
    # wait for its run(), so that one command's dependencies never slow down or
    # break another
    import subprocess
    import sys

    code = (
        "import sys; from tractor_table import cli; cli.build_parser(); "
        "print(' '.join(sorted(sys.modules)))"
    )
    loaded = set(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                                check=True, timeout=60).stdout.split())
    heavy = {"tractor_table.difffuzz", "tractor_table.deploy", "tractor_table.sim.virtual", "tractor_table.link",
             "tractor_table.device_judge", "tractor_table.sim.engine", "shengji.match", "shengji.hand", "shengji.bots", "mpremote", "serial"}
    assert loaded & heavy == set()
