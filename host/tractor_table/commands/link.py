"""``tractor-table link``: follow a table over USB, check every event.

Opens the table's serial port (the Pico found by its USB id, or ``--port``, a
path or a pyserial URL), keeps the link up through unplugs and reboots, prints
the game as the table reports it and re-judges every event with the full rules
engine, by the rules the table was deployed with (``--rules PRESET``, as given to
``tractor-table deploy``); disagreements are shown with both views and appended
to a file (``--disagreements``, checked before the port is opened).
Ends after ``--seconds``, on Ctrl-C or on ``quit`` with a summary.
Everything the table reports, and every verdict, is recorded in SQLite
(:mod:`tractor_table.records`; ``--db FILE``, by default in the user's data
directory; ``--no-record`` records nothing): ``tractor-table records`` reads it.

While it runs it reads commands, one per line, from standard input:
``status`` (the verifier's count so far), ``push`` (the operator's remedy
after a disagreement: send the host's state to the table, which swaps it in
whole or not at all; possible at trick boundaries) and ``quit``.
"""

from __future__ import annotations

import argparse
import select
import sys
import time
from pathlib import Path
from typing import Any

from ..errors import CommandError
from ..vocab.enums import AppCode, readers_status
from ._files import check_writable
from ._rules import rules_help
from ._rules import table_rules as _rules  # link._rules: the name its tests use


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--port", help="serial port or pyserial URL (default: the Pico, USB id 2E8A)")
    parser.add_argument("--seconds", type=float, default=0.0, help="stop after this long (default: run until Ctrl-C)")
    parser.add_argument(
        "--rules",
        default=None,
        metavar="PRESET",
        help=rules_help(
            "the rules the table plays, as given to 'tractor-table deploy --rules' (checked against "
            "the rules the table says it plays; without --rules: the table's own)",
            default=None,
        ),
    )
    parser.add_argument(
        "--decks", type=int, default=None, choices=(1, 2, 3, 4),
        help="decks the table plays with (default: the preset's; without --rules, the table's)",
    )
    parser.add_argument("--no-verify", action="store_true", help="only follow the link, judge nothing")
    parser.add_argument("--disagreements", type=Path, help="append disagreements to this JSON-lines file")
    parser.add_argument("--connect-timeout", type=float, default=10.0, help="seconds to wait for the table (default 10)")
    parser.add_argument("--quiet", action="store_true", help="do not print every event")
    parser.add_argument(
        "--db", type=Path, metavar="FILE",
        help="record the table's events, hands and verdicts in this SQLite file "
        "(default: records.sqlite in the user's data directory)",
    )
    parser.add_argument("--no-record", action="store_true", help="record nothing")
    from . import _club

    _club.add_options(parser)


def run(args: argparse.Namespace) -> int:
    from ..events import Event, describe
    from ..link.notes import (
        App,
        Conflict,
        DeviceLine,
        Down,
        Incompatible,
        Note,
        Reboot,
        Rollback,
        SnapshotDone,
        SnapshotIn,
        Synced,
        Up,
        note_words,
    )
    from ..link.serial_link import SerialLink, host_identity, resolve_port
    from ..link.verifier import TrustingReplayer, Verifier

    rules = _given_rules(args)
    for name in ("seconds", "connect_timeout"):
        value = getattr(args, name)
        if value < 0 or (name == "connect_timeout" and value == 0):
            flag = "--" + name.replace("_", "-")
            raise CommandError(f"{flag} must be above 0{' (0: run until Ctrl-C)' if name == 'seconds' else ''}, not {value:g}")
    if args.disagreements is not None:
        check_writable(args.disagreements, "--disagreements")
    port = resolve_port(args.port)
    _, rules_id = host_identity()
    if args.no_verify:
        replayer: Any = TrustingReplayer()
        adopt = None
    else:
        from ..link.engine_replayer import EngineReplayer

        replayer = EngineReplayer(rules) if rules is not None else TrustingReplayer()
        adopt = EngineReplayer
    given = " ".join(f"--{k} {v}" for k, v in (("rules", args.rules), ("decks", args.decks)) if v) or "--rules"
    verifier = Verifier(replayer, rules_id, log_path=args.disagreements, rules=rules, adopt=adopt, given=given)
    from ..records.recorder import open_recorder

    recorder = open_recorder(args.db, args.no_record, port=port, source="link", rules=rules)
    from ..console.source import check_port

    try:
        check_port(port)  # at once, as the console does: no port, or one that does not open
    except CommandError:
        if recorder is not None:
            recorder.store.close()
        raise
    from . import _club

    cmds = _club.link_commands()
    _club.tell_verifier(cmds, verifier)
    try:
        club = _club.start(args, recorder, commands=cmds)
    except CommandError:
        if recorder is not None:
            recorder.store.close()
        raise
    feed = recorder.follow(verifier) if recorder is not None else verifier.on_note
    print(f"records: {recorder.store.path}" if recorder is not None else "records: off (--no-record)")

    told: list[str] = []  # a failure to record, said once as it happens
    from ..tablewatch import TableWatch, describe_in

    # the phase as the events tell it: a refusal is labelled by phase ("burial:"),
    # not with the table's trick number; "" (not known yet, or after a resync
    # until the next HAND_START or TRUMP): the table's own label
    watches: list[TableWatch] = []  # made once the rules are known (given, or the table's WELCOME)

    def the_watch() -> TableWatch | None:
        known = rules if rules is not None else verifier.rules
        if not watches and known is not None:
            watches.append(TableWatch(known))
            watches[0].phase = ""
        return watches[0] if watches else None

    def on_note(note: Note) -> None:
        before = len(verifier.disagreements)
        feed(note)
        cmds.on_note(note)
        match note:
            case Up() as up:
                print(f"link up: firmware {up.fw_version}, rules {up.rules_id}, boot {up.boot_id:08x}, "
                      f"{up.count} events on the table")
                if verifier.refused:
                    print(f"  {verifier.refused}")
                elif verifier.rules_note:
                    print(f"  {verifier.rules_note}")
            case Event() as ev:
                watch = the_watch()
                if not args.quiet:
                    print(f"{ev.index:5d}  {describe_in(ev, watch) if watch is not None else describe(ev)}")
                if watch is not None:
                    watch.on_event(ev)
            case Down() | Reboot() | Rollback() | SnapshotIn() | Conflict() | Incompatible() | Synced():
                if isinstance(note, Rollback | SnapshotIn) and watches:
                    watches[0].phase = ""  # the table's state was replaced: its events may start anywhere
                print(f"link {note_words(note)}")
            case SnapshotDone() as done:
                print(f"push: snapshot {done.id} " + ("taken by the table" if done.ok else f"refused: {done.reason}"))
            case DeviceLine(text=text):
                print(f"table says: {text}")
            case App(payload=payload) if len(payload) >= 2 and payload[0] == AppCode.READERS:
                print(readers_status(payload[1]))
            case _:
                pass
        for d in verifier.disagreements[before:]:
            print(d.show())
        if recorder is not None and recorder.failed and not told:
            told.append(recorder.failed)
            print(f"records {recorder.store.path}: {recorder.failed}")

    link = SerialLink(port, on_note=on_note)
    cmds.attach(link.send_app, link.synced)  # the club's table commands, over this link
    push = recorder.pushing(link.push_snapshot) if recorder is not None else link.push_snapshot
    try:
        interrupted = _follow(args, link, verifier, push, port)
    finally:
        _club.stop(club)
        if recorder is not None:
            print(recorder.summary())
            recorder.store.close()
    print(verifier.summary() + (" (interrupted: Ctrl-C)" if interrupted else ""))
    return 130 if interrupted else 0


def _given_rules(args: argparse.Namespace) -> Any:
    """The rules given on the command line (``--rules``, ``--decks`` alone: classic
    with that many), or None: the table's, from its WELCOME."""
    if args.rules is None and args.decks is None:
        return None
    if args.rules is None:
        args.rules = "classic"
    return _rules(args)


def _follow(args: argparse.Namespace, link: Any, verifier: Any, push: Any, port: str) -> bool:
    """Follow the link until --seconds, quit or Ctrl-C; True after a Ctrl-C."""
    with link:
        if not link.wait_synced(args.connect_timeout):
            reason = link.last_error or "no answer to the handshake: is the table's firmware running?"
            raise CommandError(f"no link with the table on {port} within {args.connect_timeout:g} s ({reason})")
        end = time.monotonic() + args.seconds if args.seconds > 0 else None
        commands = _Commands(sys.stdin)
        try:
            while end is None or time.monotonic() < end:
                cmd = commands.next(0.05)
                if cmd == "quit":
                    break
                if cmd == "status":
                    print(verifier.summary())
                elif cmd == "push":
                    try:
                        sid = verifier.push_host_state(push)
                    except CommandError as exc:
                        print(f"push: {exc}")
                    else:
                        print(f"push: snapshot {sid} sent; the table answers when it has checked it")
                elif cmd:
                    print(f"unknown command {cmd!r}: status, push or quit")
        except KeyboardInterrupt:
            return True
    return False


class _Commands:
    """Lines from a stream, without blocking (stdin may be a file, a pipe or closed)."""

    def __init__(self, stream: Any) -> None:
        try:
            self.fd: int | None = stream.fileno()
        except (AttributeError, OSError, ValueError):
            self.fd = None
        self.buf = b""

    def next(self, timeout: float) -> str:
        if self.fd is None:
            time.sleep(timeout)
            return ""
        if b"\n" not in self.buf:
            ready, _, _ = select.select([self.fd], [], [], timeout)
            if ready:
                import os

                chunk = os.read(self.fd, 1024)
                if not chunk:
                    self.fd = None  # end of input: keep following the link
                self.buf += chunk
        if b"\n" not in self.buf:
            return ""
        line, self.buf = self.buf.split(b"\n", 1)
        return line.decode("utf-8", "replace").strip()
