"""Bad input to the ``tractor-table`` commands: one clear line on stderr, a
non-zero exit status, no traceback, and no output file left half-written.

The commands run for real (in-process through ``cli.main`` or as a
subprocess where the exit path itself is under test); the ports and files are
real paths that are missing, folders, or closed pipes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from tractor_table import cli
from tractor_table import tapgrammar as grammar
from tractor_table.commands import _files, fuzz_rules, link
from tractor_table.errors import CommandError

ROOT = Path(__file__).resolve().parents[2]


def _cli(*args: str) -> list[str]:
    return [sys.executable, "-m", "tractor_table.cli", *args]


def _one_line_error(capsys: pytest.CaptureFixture[str], rc: int, *needles: str) -> str:
    err = capsys.readouterr().err
    assert rc == 1, err
    assert "Traceback" not in err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    for needle in needles:
        assert needle in lines[0], lines[0]
    return lines[0]


# ---- output to a closed pipe (`| head`) ------------------------------------------------------


def test_output_into_a_closed_pipe_ends_quietly() -> None:
    read_end, write_end = os.pipe()
    os.close(read_end)  # the reader is gone before the first line
    try:
        r = subprocess.run(
            _cli("simulate", "--hands", "2", "--quiet"),
            stdout=write_end, stderr=subprocess.PIPE, text=True, timeout=120,
        )
    finally:
        os.close(write_end)
    assert r.returncode == 141  # as a program killed by SIGPIPE
    assert r.stderr == ""


def test_output_into_an_open_pipe_is_unchanged() -> None:
    r = subprocess.run(_cli("simulate", "--hands", "2", "--quiet"), capture_output=True, text=True, timeout=120)
    assert r.returncode == 0 and r.stderr == ""
    assert "2 hands in" in r.stdout


# ---- output files: whole or not at all ---------------------------------------------------------


def test_write_atomic_replaces_the_file_whole(tmp_path: Path) -> None:
    path = tmp_path / "cards.bin"
    path.write_bytes(b"old")
    _files.write_atomic(path, b"new contents", "--export")
    assert path.read_bytes() == b"new contents"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cards.bin"]


def test_write_atomic_failure_names_the_file_and_leaves_no_temporary(tmp_path: Path) -> None:
    target = tmp_path / "taken"
    target.mkdir()
    (target / "inside").write_text("keep")  # a non-empty folder cannot be replaced by a file
    with pytest.raises(CommandError, match=r"--export .*taken: cannot write it"):
        _files.write_atomic(target, b"data", "--export")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["taken"]
    assert (target / "inside").read_text() == "keep"
    with pytest.raises(CommandError, match=r"x\.bin: cannot write it \(No such file or directory\)"):
        _files.write_atomic(tmp_path / "missing" / "x.bin", b"data", "--export")


def test_check_writable(tmp_path: Path) -> None:
    _files.check_writable(tmp_path / "new.jsonl", "--out")  # a new file in a folder: fine
    assert not (tmp_path / "new.jsonl").exists()  # and nothing was created
    with pytest.raises(CommandError, match="is a folder"):
        _files.check_writable(tmp_path, "--out")
    with pytest.raises(CommandError, match="no folder"):
        _files.check_writable(tmp_path / "a" / "b.jsonl", "--out")


def test_simulate_records_a_record_it_cannot_write_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from shengji import record

    (tmp_path / "hand-0-002.jsonl").mkdir()  # the second hand's record cannot be written
    rc = cli.main(["simulate", "--hands", "3", "--quiet", "--records", str(tmp_path)])
    _one_line_error(capsys, rc, "--records", "hand-0-002.jsonl", "cannot write it")
    # the first record is whole (it replays, hashes checked); no temporary file is left
    assert sorted(p.name for p in tmp_path.iterdir()) == ["hand-0-001.jsonl", "hand-0-002.jsonl"]
    hand = record.replay((tmp_path / "hand-0-001.jsonl").read_text(encoding="utf-8"))
    assert hand.result().score >= 0


def test_simulate_record_names_sort_in_play_order(tmp_path: Path) -> None:
    assert cli.main(["simulate", "--hands", "1200", "--quiet", "--records", str(tmp_path)]) == 0
    names = sorted(p.name for p in tmp_path.iterdir())
    assert names[:2] == ["hand-0-0001.jsonl", "hand-0-0002.jsonl"]
    assert [int(n.split("-")[2].split(".")[0]) for n in names] == list(range(1, len(names) + 1))


# ---- fuzz-rules --replay and --out --------------------------------------------------------------


def _case_file(tmp_path: Path) -> Path:
    from tractor_table import difffuzz

    script = difffuzz.make_script(3, variant=0)
    d = difffuzz.FuzzDisagreement(3, str(script.case["variant"]), 0, script.labels[0], script.expect[0], None)
    return difffuzz.write_case(tmp_path, script, d, {"out": script.expect})


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ("garbage\n", "line 1: not JSON"),
        ('{"id": "a"}\n', "line 1: not a fuzz-rules case"),
        ("[1, 2]\n", "line 1: not a fuzz-rules case"),
        ("\n\n", "holds no case"),
    ],
)
def test_fuzz_rules_replay_refuses_what_is_not_a_case_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], body: str, message: str
) -> None:
    path = tmp_path / "case.jsonl"
    path.write_text(body, encoding="utf-8")
    rc = cli.main(["fuzz-rules", "--replay", str(path)])
    _one_line_error(capsys, rc, str(path), message)


def test_fuzz_rules_replay_of_a_real_case_file_and_of_a_truncated_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _case_file(tmp_path)
    assert fuzz_rules.check_case_file(path) == 1
    # the device engine gives what the file expects: the engines agree on it
    assert cli.main(["fuzz-rules", "--replay", str(path)]) == 0
    assert "hand-3: the engines agree" in capsys.readouterr().out
    cut = tmp_path / "cut.jsonl"
    cut.write_bytes(path.read_bytes()[: len(path.read_bytes()) // 2])
    rc = cli.main(["fuzz-rules", "--replay", str(cut)])
    _one_line_error(capsys, rc, "cut.jsonl, line 1: not JSON")
    binary = tmp_path / "cards.bin"
    binary.write_bytes(b"TTCM\x01\x0d\xa0\xff")
    rc = cli.main(["fuzz-rules", "--replay", str(binary)])
    _one_line_error(capsys, rc, "cannot read it")


def test_fuzz_rules_out_must_be_a_folder(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    afile = tmp_path / "afile"
    afile.write_text("x")
    rc = cli.main(["fuzz-rules", "--hands", "1", "--out", str(afile)])
    _one_line_error(capsys, rc, "--out", "is a file")


# ---- virtual: the typed console and --heapsize -----------------------------------------------


@pytest.mark.parametrize(
    ("line", "decks", "want"),
    [
        ("tap 1 AS", 2, ("tap", 1, 12)),
        ("tap 3 AS.1", 2, ("tap", 3, 66)),
        ("tap 3 红桃A.1", 2, ("tap", 3, 54 + 25)),
        ("tap 2 大王", 2, ("tap", 2, 53)),
        ("TAP 0 bj.3", 4, ("tap", 0, 3 * 54 + 53)),
        ("ok 2", 2, ("ok", 2, -1)),
        ("undo 0", 1, ("undo", 0, -1)),
        ("challenge 3", 2, ("challenge", 3, -1)),
        ("show", 2, ("show", -1, -1)),
        ("quit", 2, ("quit", -1, -1)),
        ("   ", 2, None),
    ],
)
def test_console_reads_commands(line: str, decks: int, want: object) -> None:
    assert grammar.parse_console(line, decks) == want


@pytest.mark.parametrize(
    ("line", "decks", "message"),
    [
        ("tap 9 AS", 2, "seat '9': give a seat 0-3"),
        ("ok x", 2, "seat 'x': give a seat 0-3"),
        ("ok -1", 2, "give a seat 0-3"),
        ("tap 1 ZZ", 2, "'ZZ': not a card"),
        ("tap 1 AS.2", 2, "'AS.2': the copy after the dot is the deck, 0-1 with 2 deck(s)"),
        ("tap 1 AS.1", 1, "the copy after the dot is the deck, 0 with 1 deck(s)"),
        ("tap 1 AS.", 2, "the copy after the dot is the deck"),
        ("tap 1 AS#1", 2, "the copy goes after a dot: write e.g. 'AS.1'"),
        ("tap 1 红桃Z", 2, "'Z' is not a rank"),
        ("undo", 2, "not a command: 'undo'"),
        ("tap 1", 2, "not a command"),
        ("dance 1", 2, "not a command: 'dance 1'; commands: tap SEAT"),
    ],
)
def test_console_refuses_bad_lines_with_a_sentence(line: str, decks: int, message: str) -> None:
    with pytest.raises(ValueError) as exc:
        grammar.parse_console(line, decks)
    assert message in str(exc.value)


def test_virtual_heapsize_is_checked_and_its_help_is_true(capsys: pytest.CaptureFixture[str]) -> None:
    from tractor_table.sim.virtual import runner

    rc = cli.main(["virtual", "--heapsize", "banana"])
    _one_line_error(capsys, rc, "--heapsize banana", "160K")
    parser = cli.build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    help_text = " ".join(sub.choices["virtual"].format_help().split())  # type: ignore[attr-defined]
    for table in (runner.FIRMWARE_HEAP_BY_DECKS, runner.SIM_HEAP_BY_DECKS):
        for decks, heap in table.items():
            assert f"{heap} with {decks} deck(s)" in help_text
            assert runner.default_heap(decks, "spi" if table is runner.SIM_HEAP_BY_DECKS else "direct") == heap


# ---- link: the rules it judges by, the disagreements file ---------------------------------------


def test_link_judges_by_the_rules_given(capsys: pytest.CaptureFixture[str]) -> None:
    from shengji import Rules

    parser = cli.build_parser()
    # without --rules: none given, the table's are taken from its WELCOME
    assert link._given_rules(parser.parse_args(["link"])) is None
    assert link._given_rules(parser.parse_args(["link", "--rules", "tournament"])) == Rules.preset("tournament")
    assert link._given_rules(parser.parse_args(["link", "--rules", "onedeck"])).decks == 1
    assert link._given_rules(parser.parse_args(["link", "--decks", "3"])) == Rules(decks=3)
    rc = cli.main(["link", "--rules", "bogus", "--port", "/nonexistent/ttyACM9"])
    _one_line_error(capsys, rc, "--rules", "unknown preset 'bogus'")
    rc = cli.main(["link", "--rules", "onedeck", "--decks", "2", "--port", "/nonexistent/ttyACM9"])
    _one_line_error(capsys, rc, "'onedeck' is the one-deck table")


def test_link_disagreements_file_is_checked_before_connecting(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rc = cli.main(["link", "--port", "/nonexistent/ttyACM9", "--disagreements", str(tmp_path / "no" / "d.jsonl")])
    _one_line_error(capsys, rc, "--disagreements", "no folder")
    rc = cli.main(["link", "--port", "/nonexistent/ttyACM9", "--disagreements", str(tmp_path)])
    _one_line_error(capsys, rc, "--disagreements", "is a folder")


@pytest.mark.parametrize(
    ("args", "needles"),
    [
        (["--seconds", "-1"], ("--seconds must be above 0 (0: run until Ctrl-C), not -1",)),
        (["--connect-timeout", "0"], ("--connect-timeout must be above 0, not 0",)),
        (["--connect-timeout", "-2.5"], ("--connect-timeout must be above 0, not -2.5",)),
    ],
)
def test_link_times_are_checked_before_connecting(
    args: list[str], needles: tuple[str, ...], capsys: pytest.CaptureFixture[str]
) -> None:
    rc = cli.main(["link", "--port", "/nonexistent/ttyACM9", *args])
    _one_line_error(capsys, rc, *needles)


def test_link_with_good_times_goes_on_to_the_port(capsys: pytest.CaptureFixture[str]) -> None:
    rc = cli.main(["link", "--port", "/nonexistent/ttyACM9", "--seconds", "0", "--connect-timeout", "0.2"])
    _one_line_error(capsys, rc, "/nonexistent/ttyACM9")


# ---- enroll: options checked before a file is made or a port opened -----------------------------


def test_enroll_bad_options_make_no_set_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    new = tmp_path / "new.cards"
    rc = cli.main(["enroll", "--table", "/nonexistent/ttyACM9", "--seat", "9", "--set", str(new), "--name", "X"])
    _one_line_error(capsys, rc, "--seat must be 0-3, not 9")
    rc = cli.main(["enroll", "--reader", "/nonexistent/ttyUSB9", "--set", str(new), "--name", "X",
                   "--tap-timeout", "0"])
    _one_line_error(capsys, rc, "--tap-timeout must be a number of seconds above 0")
    rc = cli.main(["enroll", "--reader", "/nonexistent/ttyUSB9", "--set", str(new), "--name", "X",
                   "--export", str(tmp_path / "no" / "cards.bin")])
    _one_line_error(capsys, rc, "--export", "no folder")
    # a reader that is not there: said in one line, and no empty set file left behind
    # (a later run with a corrected --name would otherwise be refused)
    rc = cli.main(["enroll", "--reader", "/nonexistent/ttyUSB9", "--set", str(new), "--name", "X"])
    _one_line_error(capsys, rc, "cannot open the reader on /nonexistent/ttyUSB9")
    assert list(tmp_path.iterdir()) == []


def test_enroll_resumed_complete_set_exports_whole(tmp_path: Path) -> None:
    from tractor_table.enroll import CardSet
    from tractor_table.sim.pn532sim.serve import PtyPN532

    sys.path.insert(0, str(ROOT / "firmware"))
    try:
        import cardmap
    finally:
        sys.path.remove(str(ROOT / "firmware"))
    cs = CardSet("Green", 1)
    for c in range(54):
        cs.cards[bytes((0x04, 0x20, c, 1, 2, 3, 4))] = c
    path = tmp_path / "green.cards"
    cs.save(path)
    out = tmp_path / "cards.bin"
    out.write_bytes(b"an old map")
    with PtyPN532() as sim:
        r = subprocess.run(_cli("enroll", "--reader", sim.port, "--set", str(path), "--export", str(out)),
                           capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert f"wrote the firmware map {out} (54 tags)" in r.stdout
    m = cardmap.CardMap(out.read_bytes())
    assert m.count == 54 and m.lookup(bytes((0x04, 0x20, 7, 1, 2, 3, 4)), 7) == 7
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cards.bin", "green.cards"]


def test_judge_answers_malformed_lines_and_goes_on() -> None:
    lines = ["not json", "[1, 2]", '{"id": "x", "kind": "compare", "a": "ZZ", "b": "TH"}',
             '{"id": "ok", "rules": {"level": "T", "trump": "S"}, "kind": "compare", "a": "TS", "b": "TH"}']
    r = subprocess.run(_cli("judge"), input="\n".join(lines) + "\n", capture_output=True, text=True, timeout=60)
    assert r.returncode == 0 and r.stderr == ""
    answers = [json.loads(x) for x in r.stdout.splitlines()]
    assert [("error" in a) for a in answers] == [True, True, True, False]
    assert answers[3] == {"id": "ok", "cmp": 1}


# ---- deploy: the command line's files and names, checked before the port ----------------------


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--cards", "{tmp}/missing.cards"], "--cards {tmp}/missing.cards: no such file (make one with 'tractor-table enroll')"),
        (["--cards", "{tmp}"], "--cards {tmp}: is a folder, not a file"),
        (["--config", "{tmp}/table.cfg"], "--config {tmp}/table.cfg: no such file"),
        (["--rules", "bogus"], "--rules bogus: unknown preset; choose one of classic, qq"),
        (["--rules", "qq", "--config", "{tmp}/table.cfg"], "give either --config FILE or --rules PRESET, not both"),
        (["--timeout", "0"], "--timeout must be a number of seconds above 0"),
    ],
)
def test_deploy_names_a_bad_file_or_preset_before_the_port(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], extra: list[str], message: str
) -> None:
    # no board is plugged in (the port does not exist), yet the mistake named is the user's file
    argv = ["deploy", "--port", "/nonexistent/ttyACM9", *(a.format(tmp=tmp_path) for a in extra)]
    rc = cli.main(argv)
    _one_line_error(capsys, rc, message.format(tmp=tmp_path))
    assert list(tmp_path.iterdir()) == []


def test_deploy_with_good_inputs_and_no_board_names_the_port(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cards = tmp_path / "red.cards"
    cards.write_text("tractor-table card set 1\nname: Red\ndecks: 1\n", encoding="utf-8")
    rc = cli.main(["deploy", "--port", "/nonexistent/ttyACM9", "--cards", str(cards), "--rules", "onedeck"])
    _one_line_error(capsys, rc, "no such port /nonexistent/ttyACM9")
