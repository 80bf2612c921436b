"""``--club URL`` and ``--token`` for the commands that record (link, virtual, console):
an uploader thread beside the recorder (tractor_table.club.uploader, docs/club.md)."""

from __future__ import annotations

import argparse
import os
from typing import Any

from ..errors import CommandError


def add_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--club", metavar="URL",
                        help="upload the records live to the club server at URL (docs/club.md)")
    parser.add_argument("--token", metavar="TOKEN",
                        help="the token the club issued this host (default: TT_CLUB_TOKEN)")


def start(args: argparse.Namespace, recorder: Any, *, quiet: bool = False,
          commands: Any = None) -> Any:
    """The uploader for ``--club`` (None without it), started; it never holds up recording.
    ``commands`` (a :class:`~tractor_table.club.tablecommands.LinkCommands`) takes the
    server's commands for the table (a competition's new match, time called)."""
    url = getattr(args, "club", None)
    if not url:
        return None
    token = getattr(args, "token", None) or os.environ.get("TT_CLUB_TOKEN", "")
    if not token:
        raise CommandError("--club needs the host's token: --token TOKEN or TT_CLUB_TOKEN "
                           "(the club makes one with 'tractor-table club token add NAME')")
    if recorder is None:
        raise CommandError("--club uploads the records: it cannot go with --no-record")
    from ..club.uploader import HEARTBEAT_S, Uploader

    heartbeat_s = HEARTBEAT_S
    beat = os.environ.get("TT_CLUB_HEARTBEAT_S", "")
    if beat:
        try:
            heartbeat_s = float(beat)
        except ValueError:
            heartbeat_s = -1.0
        if not 0.1 <= heartbeat_s <= 600:  # (a NaN too)
            raise CommandError(f"TT_CLUB_HEARTBEAT_S={beat}: give the seconds between the uploader's "
                               f"heartbeats, 0.1 to 600 (default {HEARTBEAT_S:g})")
    up = Uploader(recorder.store.path, url, token, heartbeat_s=heartbeat_s,
                  on_status=None if quiet else (lambda s: print(f"club {url}: {s}", flush=True)),
                  on_command=commands)
    recorder.on_written.append(up.wake)
    if not quiet:
        print(f"club: uploading to {url}")
    return up.start()


def link_commands(quiet: bool = False) -> Any:
    """The host's handler of the club's table commands (attached to the link later)."""
    from ..club.tablecommands import LinkCommands

    return LinkCommands(say=None if quiet else (lambda s: print(s, flush=True)))


def tell_verifier(cmds: Any, verifier: Any) -> None:
    """The host's verifier told of each new match the club has the table start (its
    replayer then starts a fresh match there, not the next hand of the one in play)."""
    cmds.before_send.append(lambda name: verifier.expect_new_match() if name == "new_match" else None)


def stop(up: Any) -> None:
    if up is None:
        return
    up.stop()
    line = f"club {up.url}: {up.sent} item(s) uploaded, journal acknowledged through {up.acked}"
    if up.refused:
        line += f"; {up.refused}"
    print(line)
