"""littlefs on the NOR flash model: the deploy image, and the power-cut soak of
the table's saves (persist.Store, as main.py saves) over whole hands.

The soak sample is seeded: a few dozen cuts at random erases and programs,
each followed by a boot from the image as the cut left it (a new MicroPython
process). A Store that is not atomic is caught by the same soak.
"""

from __future__ import annotations

import re
import statistics
from pathlib import Path

import pytest
from tractor_table.deploy.manifest import Item
from tractor_table.errors import CommandError
from tractor_table.sim.board import flashimage, flashsoak

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def fw(compiled: Path) -> Path:
    return compiled / "firmware"


def test_the_deploy_image_holds_what_deploy_puts_on_a_pico(fw: Path, tmp_path: Path) -> None:
    items = flashimage.deploy_items(march="host", precompiled=fw)
    names = {i.name for i in items}
    assert {"main.py", "boot.py", "table.cfg", "deployed.txt", "table.mpy", "persist.mpy"} <= names
    assert "main.mpy" not in names and "table.py" not in names
    image = tmp_path / "pico.img"
    result = flashimage.build(image, items)
    assert image.stat().st_size == 352 * 4096
    assert result.erases > 0 and result.programs > 0 and result.busy_us > 45_000
    listing = flashimage.listing(image)
    assert listing == {i.name: len(i.data) for i in items}
    main = next(i for i in items if i.name == "main.py")
    assert flashimage.read(image, "main.py") == main.data
    with pytest.raises(CommandError, match="no file nothing.py"):
        flashimage.read(image, "nothing.py")


def test_an_image_is_extracted_file_by_file(tmp_path: Path) -> None:
    items = [Item("cards.bin", bytes(range(256)) * 40, "card set"), Item("table.cfg", b"decks=2\n", "configuration")]
    image = tmp_path / "small.img"
    flashimage.build(image, items)
    out = flashimage.extract(image, tmp_path / "out")
    assert sorted(p.name for p in out) == ["cards.bin", "table.cfg"]
    assert (tmp_path / "out" / "cards.bin").read_bytes() == items[0].data


def test_an_image_that_is_not_littlefs_is_refused(tmp_path: Path) -> None:
    image = tmp_path / "blank.img"
    image.write_bytes(b"\xff" * (352 * 4096))
    with pytest.raises(CommandError, match="not a littlefs image"):
        flashimage.listing(image)
    with pytest.raises(CommandError, match="not a plain file name"):
        flashimage.build(tmp_path / "x.img", [Item("a/b", b"", "source")])


def test_power_cuts_lose_at_most_the_trick_in_progress(fw: Path) -> None:
    fig, ref = flashsoak.soak(36, hands=5, seed=11, compiled=fw)
    assert fig.failures == []
    assert fig.cuts == 36 and fig.resumes >= 30
    # cuts of both kinds, partway through as well as at the ends
    assert any(k.startswith("erase") for k in fig.kinds)
    assert any(k.startswith("program partway") for k in fig.kinds)
    assert max(fig.tricks_lost) <= 1
    assert max(fig.events_lost) <= 8  # a trick: its plays and the TRICK event, or a bid
    assert fig.hand_ends_checked >= 3  # hands played on to their end, as the uncut run
    # the cost of a save on littlefs, the chip's typical times charged
    st = flashsoak.save_times(ref)
    assert 1 <= st["ops_median"] <= 12
    assert 1 < st["flash_median"] < 150 and st["flash_worst"] >= 45
    assert statistics.median(fig.events_lost) >= 1


@pytest.mark.parametrize("decks", [2, 3])
def test_a_hand_s_saves_stay_inline_in_littlefs(fw: Path, tmp_path: Path, decks: int) -> None:
    # issue 22: the tricks are saved packed (persist._dense), so that a 1-3
    # deck hand's snapshot stays within littlefs's inline size (512 bytes)
    # to the hand's end: a save is then a commit of page programs, with an
    # erase only when the directory's metadata block is full (about one save
    # in seven); as JSON lists it took a block of its own from about the
    # 10th trick on, erased at every save (main at 6223603, seed 1: 35 and
    # 57 erases in 61 and 76 saves of the play, 2 and 3 decks)
    actions = tmp_path / "actions.bin"
    actions.write_bytes(flashsoak.record_actions(3, 1, decks))
    ref = flashsoak.reference(fw, decks, actions, tmp_path)
    play = [s for s in ref.saves if s.tricks > 0]
    assert len(play) >= 50
    erasing = [s for s in play if s.erases]
    assert len(erasing) * 5 <= len(play), [(s.tricks, s.erases) for s in play]
    assert all(s.erases <= 1 for s in play)


def test_the_soak_catches_a_store_that_is_not_atomic(fw: Path, tmp_path: Path) -> None:
    # littlefs commits a file only at close (or flush): written in place with a
    # flush between the body and its crc line, a cut there leaves a torn file
    src = (ROOT / "firmware" / "persist.py").read_text(encoding="utf-8")
    broken = src.replace('self.tmp = path + ".new"', "self.tmp = path").replace(
        "self.flush()", "f.flush()"
    )
    assert broken.count("f.flush()") >= 2 and "self.flush()" not in broken
    patch = tmp_path / "persist.py"
    patch.write_text(broken, encoding="utf-8")
    fig, _ref = flashsoak.soak(12, hands=2, seed=5, compiled=fw, patch=patch)
    assert fig.failures, "a non-atomic save survived power cuts"


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--cuts", "0"], "--cuts must be at least 1"),
        (["--cuts", "5", "--max-gap", "0"], "--max-gap at least 1"),
    ],
)
def test_soak_flash_refuses_bad_options(argv: list[str], message: str, capsys: pytest.CaptureFixture[str]) -> None:
    from tractor_table import cli

    assert cli.main(["soak-flash", *argv]) == 1
    assert message in capsys.readouterr().err


def test_a_ctrl_c_during_the_cuts_gives_the_figures_so_far(fw: Path) -> None:
    seen: list[str] = []

    def on_boot(fig: flashsoak.Figures) -> None:
        if fig.cuts >= 3:
            raise KeyboardInterrupt

    with pytest.raises(flashsoak.Interrupted) as stop:
        flashsoak.soak(50, hands=2, seed=5, compiled=fw, stage=seen.append, on_boot=on_boot)
    fig = stop.value.figures
    assert fig.cuts == 3 and fig.asked == 50 and fig.interrupted == "during the cuts"
    assert fig.failures == [] and fig.resumes >= 2 and sum(fig.kinds.values()) == 3
    assert seen[0].startswith("the bots play 2 hands") and seen[-1].startswith("50 power cuts")
    lines = flashsoak.report(fig)
    assert lines[0].startswith("cut points: 3 over ")
    assert lines[-1].endswith("(interrupted during the cuts: 3 of 50 cuts done)")


def test_soak_flash_shows_its_progress_and_a_sigint_prints_the_partial_figures() -> None:
    import os
    import signal
    import subprocess
    import sys

    from ctrl_c import default_sigint

    # its own process group, as a terminal's: Ctrl-C reaches the soak and its MicroPython boot alike
    proc = subprocess.Popen(
        [sys.executable, "-m", "tractor_table.cli", "soak-flash", "--cuts", "100", "--hands", "2", "--seed", "5"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True,
        preexec_fn=default_sigint,
    )
    assert proc.stderr is not None
    before: list[str] = []
    try:
        for line in proc.stderr:  # the preparation's steps, then the bar of the cuts
            before.append(line)
            if line.startswith("soak-flash: cuts: "):
                os.killpg(proc.pid, signal.SIGINT)
                break
        out, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    steps = "".join(before)
    assert "soak-flash: compiling the firmware" in steps
    assert "soak-flash: hands: 2/2 hands" in steps
    assert "soak-flash: the uncut reference run" in steps
    assert "soak-flash: 100 power cuts" in steps
    assert proc.returncode == 130, err[-2000:]
    m = re.search(r"interrupted during the cuts after (\d+) of 100 cuts", err)
    assert m is not None, err[-2000:]
    cuts = int(m[1])
    assert 1 <= cuts < 100 and "Traceback" not in err
    assert f"cut points: {cuts} over " in out and "corrupt or half-restored states: 0" in out
    assert f"(interrupted during the cuts: {cuts} of 100 cuts done)" in out
