"""The power-cut soak: the table's saves on littlefs, on the modelled NOR
flash, with the power cut at random erase and program operations.

Bots of the full engine play whole hands (``shengji``), recorded as the
table's inputs (taps and OK presses, :func:`record_actions`). The table core
(``firmware/table.py`` with the device rules, ``tablerules.py``) plays them
under MicroPython (``board/mpy/flashsoak_mp.py``), saving each snapshot with
``persist.Store`` on a ``vfs.VfsLfs2`` on :mod:`norflash <board.mpy.norflash>`
exactly as ``firmware/main.py`` does after ``take_save()``.

First an uncut reference run records every save (its input, event index and
snapshot crc) and every hand's end. Then the soak boots the table again and
again from one flash image, built as ``deploy`` leaves a Pico
(:mod:`.flashimage`): each boot is a new MicroPython process that mounts the
image as the last boot's cut left it, checks the firmware's files, restores
the table from the snapshot as ``main.py`` does at boot (``tablerestore.py``)
and plays the inputs on from that snapshot, until the power goes at a random
erase or program (partway through, often). Checked at every boot:

- the filesystem mounts (the rp2 port's ``_boot.py`` would format it otherwise)
  and every firmware file is whole;
- the state restored is one the reference saved, and the old or the new one of
  the save that was cut: at most the trick in progress is lost;
- every hand played on to its end ends as in the reference (its snapshot's crc
  and the chained hash of all its events), and so does the last one.
"""

from __future__ import annotations

import random
import signal
import statistics
import tempfile
import time
import zlib
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ... import mpy
from ...deploy import manifest as deploy_manifest
from ...errors import CommandError
from ...paths import FIRMWARE_DIR
from . import flashimage

MPY_DIR = Path(__file__).resolve().parent / "mpy"
HEAP = "256K"
NEW, TAP, OK, TAP_DEALER = 0, 1, 2, 3


def record_actions(hands: int, seed: int, decks: int = 2, on_hand: Callable[[int], None] | None = None) -> bytes:
    """``hands`` hands played by the full engine's bots, as the table's inputs
    (3 bytes each: kind, seat, card; see ``flashsoak_mp.py``); ``on_hand(k)``
    after the k-th hand recorded."""
    from shengji import Rules
    from shengji.hand import Bid, Play
    from shengji.match import make_bots, play_hand

    rules = Rules(decks=decks)
    rng = random.Random(seed)
    out = bytearray()
    k = 0
    done = 0
    while done < hands:
        bots = make_bots([1, 2, 1, 2], seed=seed + k)
        k += 1
        hand = play_hand(rules, bots, rng, level=0, dealer=None, first_hand=True)
        if hand.redeal:
            continue
        out += bytes([NEW, 0, 0])
        for e in hand.events:
            if isinstance(e, Bid):
                for c in e.cards:
                    out += bytes([TAP, e.seat, c])
                out += bytes([OK, e.seat, 0])
        out += bytes([OK, 0, 0])  # the draw ends
        for c in hand.buried or ():
            out += bytes([TAP_DEALER, 0, c])
        plays = [e for e in hand.events if isinstance(e, Play)]
        for n, p in enumerate(plays):
            for c in p.cards:
                out += bytes([TAP, p.seat, c])
            if n % 4 == 0:
                out += bytes([OK, p.seat, 0])  # a lead is ended by its seat's OK
        done += 1
        if on_hand is not None:
            on_hand(done)
    return bytes(out)


@dataclass(frozen=True)
class Save:
    k: int
    action: int
    ev: int
    crc: int
    flash_us: int
    serialise_us: int
    ops: int
    hand: int
    tricks: int
    erases: int = 0  # sector erases of the save
    pages: int = 0  # page programs of the save


@dataclass
class Reference:
    saves: list[Save]
    hand_ends: dict[int, tuple[int, int, int]]  # action -> (hand, crc, ev_hash)
    final: tuple[int, int]
    by_action: dict[int, Save] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.by_action = {s.action: s for s in self.saves}


@dataclass
class Figures:
    """What a soak found; ``failures`` must stay empty."""

    hands: int = 0
    actions: int = 0
    boots: int = 0
    cuts: int = 0
    rounds: int = 0
    kinds: Counter[str] = field(default_factory=Counter)
    resumes: int = 0
    resumed_new: int = 0  # the save in progress had reached the flash whole
    resumed_old: int = 0  # the one before it was restored
    fresh_starts: int = 0  # cut before the first save ever completed
    events_lost: list[int] = field(default_factory=list)
    tricks_lost: list[int] = field(default_factory=list)
    hand_ends_checked: int = 0
    finals_checked: int = 0
    failures: list[str] = field(default_factory=list)
    notes: Counter[str] = field(default_factory=Counter)
    seconds: float = 0.0
    #: the cuts asked for; ``interrupted``: the stage a Ctrl-C stopped (the figures are those so far)
    asked: int = 0
    interrupted: str = ""

    @property
    def corrupt(self) -> int:
        return len(self.failures)


class Interrupted(KeyboardInterrupt):
    """A Ctrl-C during a soak: ``figures`` holds what the cuts done so far found."""

    def __init__(self, figures: Figures) -> None:
        super().__init__(f"interrupted {figures.interrupted}")
        self.figures = figures


def _firmware(tmp: Path, patch: Path | None = None, compiled: Path | None = None) -> Path:
    """The firmware compiled for this machine (or ``compiled``, already done),
    with ``patch`` (a changed copy of one firmware module: tests) in place of its own."""
    import shutil

    from ..virtual.runner import compile_for_host

    fw = tmp / "fw"
    if compiled is not None:
        shutil.copytree(compiled, fw)
    else:
        compile_for_host(fw)
    if patch is not None:
        compile_for_host(fw, src=patch)
    return fw


def _run(fw: Path, args: list[str], timeout: float = 300) -> list[str]:
    proc = mpy.run(MPY_DIR / "flashsoak_mp.py", path=[fw, MPY_DIR], heapsize=HEAP, args=args, timeout=timeout)
    if proc.returncode == -signal.SIGINT or (proc.returncode != 0 and "KeyboardInterrupt" in proc.stderr[-200:]):
        raise KeyboardInterrupt  # a Ctrl-C at the terminal reached MicroPython first
        tail = "\n".join((proc.stdout + proc.stderr).strip().splitlines()[-6:])
        raise CommandError(f"the soak's MicroPython side failed ({' '.join(args[:1])}):\n{tail}")
    return proc.stdout.splitlines()


def reference(fw: Path, decks: int, actions: Path, tmp: Path) -> Reference:
    lines = _run(fw, ["ref", str(decks), str(actions), str(tmp / "ref.img")], timeout=900)
    saves: list[Save] = []
    ends: dict[int, tuple[int, int, int]] = {}
    final = (0, 0)
    for ln in lines:
        f = ln.split()
        if not f:
            continue
        if f[0] == "S":
            saves.append(Save(*(int(x) for x in f[1:12])))
        elif f[0] == "H":
            ends[int(f[2])] = (int(f[1]), int(f[3]), int(f[4]))
        elif f[0] == "F":
            final = (int(f[1]), int(f[2]))
    if not saves:
        raise CommandError("the reference run saved nothing")
    return Reference(saves, ends, final)


def _manifest(items: Sequence[deploy_manifest.Item], path: Path) -> None:
    path.write_text("".join(f"{i.name} {len(i.data)} {zlib.crc32(i.data)}\n" for i in items))


def soak(
    cuts: int,
    *,
    hands: int = 0,
    seed: int = 1,
    decks: int = 2,
    max_gap: int = 80,
    say: Callable[[str], None] | None = None,
    patch: Path | None = None,
    compiled: Path | None = None,
    stage: Callable[[str], None] | None = None,
    on_hand: Callable[[int], None] | None = None,
    on_boot: Callable[[Figures], None] | None = None,
) -> tuple[Figures, Reference]:
    """Cut the power ``cuts`` times; ``hands`` (0: about one per 5 cuts) recorded hands.
    ``compiled``: the firmware already compiled for this machine; ``patch``: a
    changed copy of one firmware module used in the boots (not the reference).

    Progress: ``stage(text)`` as each step of the preparation begins (the
    firmware compiled, the bots' hands, the uncut reference run, the flash
    image) and as the cuts begin; ``on_hand(k)`` as the hands begin (0) and after each;
    ``on_boot(figures)`` as the cuts begin and after each boot checked; ``say`` a line every 50 boots.
    A Ctrl-C (KeyboardInterrupt) raises :class:`Interrupted` with the figures so far."""
    if cuts < 1:
        raise CommandError("--cuts must be at least 1")
    start = time.monotonic()
    hands = hands or max(2, cuts // 5)
    rng = random.Random(seed)
    fig = Figures(hands=hands, asked=cuts)
    tell = stage or (lambda _text: None)
    where = "while compiling the firmware"
    try:
        with tempfile.TemporaryDirectory(prefix="tractor-soak-") as tmpname:
            tmp = Path(tmpname)
            if compiled is None:
                tell("compiling the firmware for this machine")
            fw = _firmware(tmp, compiled=compiled)
            where = "while the bots played the hands"
            tell(f"the bots play {hands} hands (the table's inputs)")
            if on_hand is not None:
                on_hand(0)
            acts = tmp / "actions.bin"
            acts.write_bytes(record_actions(hands, seed, decks, on_hand=on_hand))
            fig.actions = acts.stat().st_size // 3
            where = "during the uncut reference run"
            tell(f"the uncut reference run: {fig.actions} inputs, every save recorded")
            ref = reference(fw, decks, acts, tmp)
            where = "while building the flash image"
            tell(f"the flash image as deploy leaves a Pico ({len(ref.saves)} saves in the reference)")
            if patch is not None:
                (tmp / "fw").rename(tmp / "fw-ref")
                fw = _firmware(tmp, patch, compiled=tmp / "fw-ref")
            (tmp / "ref.txt").write_text("".join(f"{s.crc} {s.action}\n" for s in ref.saves))
            items = flashimage.deploy_items(march="host", src=FIRMWARE_DIR, precompiled=fw)
            manifest = tmp / "manifest.txt"
            _manifest(items, manifest)
            pristine = tmp / "pristine.img"
            flashimage.build(pristine, items)
            where = "during the cuts"
            tell(f"{cuts} power cuts, each followed by a boot from the image as left")
            _cut(fig, cuts, rng, fw, decks, acts, tmp, ref, manifest, pristine, max_gap, say, on_boot)
    except KeyboardInterrupt:
        fig.interrupted = where
        fig.seconds = time.monotonic() - start
        raise Interrupted(fig) from None
    fig.seconds = time.monotonic() - start
    return fig, ref


def _cut(
    fig: Figures, cuts: int, rng: random.Random, fw: Path, decks: int, acts: Path, tmp: Path, ref: Reference,
    manifest: Path, pristine: Path, max_gap: int, say: Callable[[str], None] | None,
    on_boot: Callable[[Figures], None] | None,
) -> None:
    """The cuts: boot after boot from one image, until ``cuts`` cuts are done."""
    image = tmp / "table.img"
    last_cut: tuple[int, int] | None = None  # (action, ev) of the last cut
    if on_boot is not None:
        on_boot(fig)  # the cuts begin
    while fig.cuts < cuts:
        if last_cut is None:
            image.write_bytes(pristine.read_bytes())
            fig.rounds += 1
        gap = 1 + rng.randrange(max_gap)
        lines = _run(
            fw,
            ["boot", str(decks), str(acts), str(image), str(tmp / "ref.txt"), str(gap),
             str(rng.randrange(1 << 30)), str(manifest)],
        )
        fig.boots += 1
        last_cut = _check_boot(lines, ref, last_cut, fig)
        if on_boot is not None:
            on_boot(fig)
        if say is not None and fig.boots % 50 == 0:
            say(f"  {fig.cuts} cuts, {fig.boots} boots, {len(fig.failures)} failures")


def _check_boot(lines: list[str], ref: Reference, last_cut: tuple[int, int] | None, fig: Figures) -> tuple[int, int] | None:
    """Check one boot's report; the (action, ev) of its cut, or None if the inputs ended."""
    where = f"boot {fig.boots}"
    cut: tuple[int, int] | None = None
    booted = False
    for ln in lines:
        f = ln.split()
        if not f:
            continue
        tag = f[0]
        if tag == "X":
            fig.failures.append(f"{where}: {ln[2:]}")
            return None
        if tag == "N":
            fig.notes[ln[2:].split(":")[-1].strip()] += 1
        elif tag == "B":
            booted = True
            k, resume, ev = int(f[1]), int(f[2]), int(f[3])
            _check_resume(k, resume, ev, ref, last_cut, fig, where)
        elif tag == "H":
            action = int(f[2])
            want = ref.hand_ends.get(action)
            got = (int(f[1]), int(f[3]), int(f[4]))
            if want != got:
                fig.failures.append(f"{where}: hand {got[0]} ended unlike the uncut run ({got} != {want})")
            fig.hand_ends_checked += 1
        elif tag == "C":
            fig.cuts += 1
            kind, how, part = f[2], f[3], int(f[4])
            phase = "nothing done" if part == 0 else "all done" if part >= 1000 else "partway"
            fig.kinds[f"{kind} {phase}" + (f" ({how})" if phase == "partway" else "")] += 1
            cut = (int(f[5]), int(f[6]))
        elif tag == "F":
            if (int(f[1]), int(f[2])) != ref.final:
                fig.failures.append(f"{where}: the last state differs from the uncut run's")
            fig.finals_checked += 1
    if not booted:
        fig.failures.append(f"{where}: no boot report: " + " | ".join(lines[-3:]))
    return cut


def _check_resume(
    k: int, resume: int, ev: int, ref: Reference, last_cut: tuple[int, int] | None, fig: Figures, where: str
) -> None:
    if last_cut is None:
        if k != -1:
            fig.failures.append(f"{where}: a fresh image restored save {k}")
        return
    action, ev_cut = last_cut
    cut_save = ref.by_action.get(action)
    if cut_save is None:
        fig.failures.append(f"{where}: the power went at input {action}, where the reference does not save")
        return
    fig.resumes += 1
    if k == -1:
        if cut_save.k != 0:
            fig.failures.append(f"{where}: nothing restored after a cut in save {cut_save.k}")
            return
        fig.fresh_starts += 1
        fig.events_lost.append(ev_cut)
        fig.tricks_lost.append(0)
        return
    if k not in (cut_save.k, cut_save.k - 1):
        fig.failures.append(f"{where}: restored save {k}, cut in save {cut_save.k}: neither the old nor the new")
        return
    got = ref.saves[k]
    if got.ev != ev or resume != got.action + 1:
        fig.failures.append(f"{where}: save {k} restored with event index {ev}, saved with {got.ev}")
    if k == cut_save.k:
        fig.resumed_new += 1
    else:
        fig.resumed_old += 1
    fig.events_lost.append(ev_cut - ev)
    lost = cut_save.tricks - got.tricks if got.hand == cut_save.hand else 0
    fig.tricks_lost.append(lost)
    if lost > 1:
        fig.failures.append(f"{where}: {lost} tricks lost")


def save_times(ref: Reference) -> dict[str, float]:
    """A snapshot save on littlefs: the flash's erase/program/read time charged
    (virtual ms), and the snapshot's serialisation on this CPU (unix-port ms)."""
    flash = [s.flash_us / 1000 for s in ref.saves]
    ser = [s.serialise_us / 1000 for s in ref.saves]
    ops = [float(s.ops) for s in ref.saves]
    return {
        "saves": float(len(flash)),
        "flash_median": statistics.median(flash),
        "flash_worst": max(flash),
        "ser_median": statistics.median(ser),
        "ser_worst": max(ser),
        "ops_median": statistics.median(ops),
        "ops_worst": max(ops),
    }


def report(fig: Figures) -> list[str]:
    ev = fig.events_lost or [0]
    tr = fig.tricks_lost or [0]
    kinds = ", ".join(f"{k}: {n}" for k, n in sorted(fig.kinds.items()))
    return [
        f"cut points: {fig.cuts} over {fig.boots} boots ({fig.rounds} round(s) of {fig.hands} hands, {fig.actions} inputs each)",
        f"operations cut: {kinds}",
        f"resumes: {fig.resumes} (the new snapshot {fig.resumed_new}, the old one {fig.resumed_old}, "
        f"nothing saved yet {fig.fresh_starts})",
        f"events lost: median {statistics.median(ev):g}, max {max(ev)}",
        f"tricks lost: max {max(tr)} ({sum(1 for t in tr if t)} resumes lost the trick just completed)",
        f"hand ends checked against the uncut run: {fig.hand_ends_checked}, last states: {fig.finals_checked}",
        f"corrupt or half-restored states: {fig.corrupt}",
        f"{fig.seconds:.0f} s" + (f" (interrupted {fig.interrupted}: {fig.cuts} of {fig.asked} cuts done)"
                                  if fig.interrupted else ""),
    ]
