"""``tractor-table simulate``: the score sheet, records, errors."""

from __future__ import annotations

from pathlib import Path

import pytest
from shengji import record
from tractor_table import cli


def test_score_sheet(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["simulate", "--hands", "3", "--seed", "4", "--rules", "classic"]) == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    assert "rules classic" in lines[0] and "hand" in lines[1]
    rows = [ln for ln in lines[2:] if ln.startswith("   ")]
    assert len(rows) == 3
    assert "3 hands in" in out


def test_same_seed_same_sheet(capsys: pytest.CaptureFixture[str]) -> None:
    cli.main(["simulate", "--hands", "2", "--seed", "9", "--rules", "qq", "--bots", "good"])
    a = capsys.readouterr().out.splitlines()[:-1]
    cli.main(["simulate", "--hands", "2", "--seed", "9", "--rules", "qq", "--bots", "good"])
    b = capsys.readouterr().out.splitlines()[:-1]
    assert a == b


def test_records_replay(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["simulate", "--hands", "2", "--rules", "onedeck", "--records", str(tmp_path)]) == 0
    files = sorted(tmp_path.glob("*.jsonl"))
    assert len(files) == 2
    for f in files:
        h = record.replay(f.read_text(encoding="utf-8"))
        assert h.is_over


def test_called_partners_until_won(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["simulate", "--until-won", "--rules", "onedeck", "--partners", "called", "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "match won by seats" in out


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--rules", "nope"], "unknown preset"),
        (["--rules", "onedeck", "--decks", "2"], "onedeck"),
        (["--decks", "7"], "--rules classic --decks 7: decks: must be 1-4, not 7"),
        (["--bots", "genius"], "--bots"),
        (["--hands", "0"], "--hands"),
    ],
)
def test_errors(argv: list[str], message: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["simulate", *argv]) == 1
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


def test_a_won_match_ends_the_run_and_says_so(capsys: pytest.CaptureFixture[str]) -> None:
    import contextlib
    import io

    buf = io.StringIO()
    with contextlib.redirect_stdout(buf), contextlib.suppress(SystemExit):
        cli.main(["simulate", "--help"])
    help_text = " ".join(buf.getvalue().split())
    assert "a won match ends the run first, so a large --hands plays one whole match" in help_text
    capsys.readouterr()
    assert cli.main(["simulate", "--hands", "100000", "--quiet", "--rules", "onedeck", "--seed", "1"]) == 0
    out = capsys.readouterr().out
    played = int(out.split("match won by ")[1].split(" after ")[1].split()[0])
    assert played < 100000
    assert f"the won match ended the run ({played} of the --hands 100000 asked for were played)" in out
