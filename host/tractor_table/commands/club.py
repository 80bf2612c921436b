"""``tractor-table club``: the club server and its tokens, and pushing a carried records file.

- ``club serve [--db URL | --data DIR] [--host H] [--port N]``: the server
  (Starlette on uvicorn) on the PostgreSQL at URL, or on an embedded one in DIR
  (started from Debian's PostgreSQL or the ``pgserver`` wheel; the default
  folder is ``club/`` in the user's data directory);
- ``club token add NAME`` (the token is the last line printed; only its hash
  is kept), ``club token list``, ``club token revoke NAME``;
- ``club director add NAME``: a director's login for ``/director`` (the password from
  ``TT_DIRECTOR_PASSWORD`` or asked for; stored with scrypt);
- ``club upload --db FILE --club URL --token T``: push a records file (one a
  host wrote offline, or carried from a dead laptop) the same idempotent way
  the hosts upload live;
- ``club demo [--tables N] [--port P] [--competition [--sim]]``: ``make club-demo``, a club
  night on this machine (embedded PostgreSQL, the server, N tables of bots uploading; with
  ``--competition`` real virtual tables playing the rounds the director starts).

docs/club.md says how to run a club night with them.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import Any

from ..errors import CommandError

ACTIONS = ("serve", "token", "upload", "director", "demo")


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("action", choices=ACTIONS, help="serve the club; manage tokens; upload a records file")
    parser.add_argument("rest", nargs="*", metavar="ARG", help="token: add NAME | list | revoke NAME; director: add NAME")
    parser.add_argument("--db", metavar="URL|FILE",
                        help="serve, token: the PostgreSQL (postgresql://...); upload: the records file")
    parser.add_argument("--data", type=Path, metavar="DIR",
                        help="serve, token: the embedded PostgreSQL's folder (default: club/ in the "
                        "user's data directory)")
    parser.add_argument("--host", default="127.0.0.1", help="serve: the address to listen on (0.0.0.0: the room's network)")
    parser.add_argument("--port", type=int, default=8080, help="serve: the port (default 8080)")
    parser.add_argument("--workers", type=int, default=1, metavar="N",
                        help="serve: N server processes on the one port (default 1; a club's "
                        "server with more cores: one per core; each follows the database's "
                        "notifications, so every page is live whichever process serves it)")
    parser.add_argument("--offline-after", type=float, default=30.0, metavar="S",
                        help="serve: a table whose host has not been heard for S seconds is "
                        "shown offline (default 30)")
    parser.add_argument("--club", metavar="URL", help="upload: the club server's URL")
    parser.add_argument("--token", metavar="TOKEN", help="upload: the host's token (or TT_CLUB_TOKEN)")
    parser.add_argument("--tables", type=int, default=4, help="demo: how many tables play (default 4)")
    parser.add_argument("--pace", type=float, default=0.75, metavar="S",
                        help="demo: mean seconds between a table's inputs (default 0.75)")
    parser.add_argument("--competition", action="store_true",
                        help="demo: a competition run from the director's pages (a login is "
                        "made and printed, a player list written); the tables play each round's "
                        "match when the director starts it (docs/competition.md)")
    kind = parser.add_mutually_exclusive_group()
    kind.add_argument("--virtual", action="store_true",
                      help="demo --competition: the tables are real virtual tables (the firmware "
                      "under MicroPython, each with its host recording and uploading, taking the "
                      "round's commands over its link; the default with --competition)")
    kind.add_argument("--sim", action="store_true",
                      help="demo --competition: the lighter simulated tables (the firmware's table "
                      "core in the demo's process, no link), for more than 8 tables")
    parser.add_argument("--seconds", type=float, default=0.0,
                        help="demo: stop after this long (default: run until Ctrl-C)")


def _data_dir(args: argparse.Namespace) -> Path:
    if args.data is not None:
        return Path(args.data)
    import platformdirs

    return platformdirs.user_data_path("tractor-table", appauthor=False) / "club"


def _database(args: argparse.Namespace) -> tuple[str, Any]:
    """(URL, the embedded cluster or None)."""
    if args.db:
        if not args.db.startswith(("postgresql://", "postgres://")):
            raise CommandError(f"--db {args.db!r}: give a PostgreSQL URL (postgresql://user@host/db), "
                               "or leave it out for the embedded server in --data")
        return args.db, None
    from ..club.pg import Cluster, PgError

    try:
        cluster = Cluster(_data_dir(args))
        return cluster.start(), cluster
    except (PgError, OSError) as exc:
        raise CommandError(str(exc)) from None


def run(args: argparse.Namespace) -> int:
    if args.action == "serve":
        return _serve(args)
    if args.action == "token":
        return _token(args)
    if args.action == "director":
        return _director(args)
    if args.action == "demo":
        return _demo(args)
    return _upload(args)


def _director(args: argparse.Namespace) -> int:
    from ..club import db
    from ..competition import web

    if len(args.rest) != 2 or args.rest[0] != "add":
        raise CommandError("usage: club director add NAME (password from TT_DIRECTOR_PASSWORD or asked)")
    password = os.environ.get("TT_DIRECTOR_PASSWORD")
    if password is None:
        import getpass

        password = getpass.getpass(f"password for director {args.rest[1]!r}: ")
    url, cluster = _database(args)
    try:
        with db.connect(url) as conn:
            db.migrate(conn)
            try:
                web.add_director(conn, args.rest[1], password)
            except ValueError as exc:
                raise CommandError(str(exc)) from None
        print(f"director {args.rest[1]!r} can log in at /director")
    finally:
        if cluster is not None and cluster.started_here:
            cluster.stop()
    return 0


def _serve(args: argparse.Namespace) -> int:
    import uvicorn

    from ..club.app import create_app
    from ..club.db import SchemaError

    url, cluster = _database(args)
    try:
        try:
            from ..competition import web

            app = create_app(url, extra_routes=web.ROUTES, offline_s=args.offline_after)
        except SchemaError as exc:
            raise CommandError(str(exc)) from None
        where = "embedded PostgreSQL in " + str(cluster.data) if cluster else url.split("@")[-1]
        print(f"club: database {where}", flush=True)
        print(f"club: serving http://{args.host}:{args.port}/"
              + (f" ({args.workers} processes)" if args.workers > 1 else ""), flush=True)
        if args.workers > 1:
            return _serve_workers(app, args)
        # open pages hold event streams for ever: on Ctrl-C give them 3 s, then close them
        uvicorn.run(app, host=args.host, port=args.port, log_level="warning", access_log=False,
                    timeout_graceful_shutdown=3)
    finally:
        if cluster is not None and cluster.started_here:
            cluster.stop()
    return 0


def _serve_workers(app: Any, args: argparse.Namespace) -> int:
    """``args.workers`` processes serving ``app`` on one listening socket (forked after it
    is bound; each opens its own pool and LISTEN connection in its lifespan). SIGTERM or
    Ctrl-C to this process stops them all; one that dies is reported and the rest stopped."""
    import signal
    import socket

    import uvicorn

    if not 1 < args.workers <= 64:
        raise CommandError(f"--workers {args.workers}: give 1 to 64 (one per core is enough)")
    sock = socket.socket(socket.AF_INET6 if ":" in args.host else socket.AF_INET)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((args.host, args.port))
    except OSError as exc:
        raise CommandError(f"cannot listen on {args.host}:{args.port}: {exc}") from None
    sock.listen(2048)
    sock.set_inheritable(True)
    children: list[int] = []
    for _ in range(args.workers):
        pid = os.fork()
        if pid == 0:  # a worker: serve until told to stop
            code = 0
            try:
                # uvicorn shuts down on SIGTERM or SIGINT, then raises the signal again
                # for the handler it found: a no-op here, so a stopped worker exits 0
                for sig in (signal.SIGTERM, signal.SIGINT):
                    signal.signal(sig, lambda _s, _f: None)
                config = uvicorn.Config(app, log_level="warning", access_log=False,
                                        timeout_graceful_shutdown=3)
                uvicorn.Server(config).run(sockets=[sock])
            except BaseException:
                code = 1
            finally:
                os._exit(code)
        children.append(pid)
    sock.close()

    def stop(_sig: int = 0, _frame: Any = None) -> None:
        for c in children:
            try:
                os.kill(c, signal.SIGTERM)
            except ProcessLookupError:
                pass

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    failed = 0
    live = set(children)
    while live:
        try:
            pid, status = os.wait()
        except ChildProcessError:
            break
        if pid in live:
            live.discard(pid)
            if status != 0:
                failed += 1
                stop()  # one worker gone: stop the rest rather than serve part-way
    return 1 if failed else 0


def _token(args: argparse.Namespace) -> int:
    from ..club import db, tokens

    what = args.rest[0] if args.rest else ""
    if what not in ("add", "list", "revoke") or (what != "list" and len(args.rest) != 2):
        raise CommandError("usage: club token add NAME | club token list | club token revoke NAME")
    url, cluster = _database(args)
    try:
        with db.connect(url) as conn:
            db.migrate(conn)
            if what == "add":
                try:
                    tok = tokens.add(conn, args.rest[1])
                except ValueError as exc:
                    raise CommandError(str(exc)) from None
                print(f"token {args.rest[1]!r} made; give it to the host as --token or TT_CLUB_TOKEN "
                      "(it is shown only now):")
                print(tok)
            elif what == "list":
                for name, made, state in tokens.listing(conn):
                    print(f"{name}\t{made}\t{state}")
            else:
                if not tokens.revoke(conn, args.rest[1]):
                    raise CommandError(f"no valid token called {args.rest[1]!r}")
                print(f"token {args.rest[1]!r} revoked")
    finally:
        if cluster is not None and cluster.started_here:
            cluster.stop()
    return 0


def _upload(args: argparse.Namespace) -> int:
    from ..club.uploader import UploadError, upload_file

    if not args.db:
        raise CommandError("upload: give the records file with --db FILE")
    token = args.token or os.environ.get("TT_CLUB_TOKEN", "")
    if not args.club or not token:
        raise CommandError("upload: give the club's URL with --club and the token with --token "
                           "(or TT_CLUB_TOKEN)")
    try:
        sent, acked = upload_file(Path(args.db), args.club, token)
    except UploadError as exc:
        raise CommandError(str(exc)) from None
    print(f"club: {sent} item(s) sent; the server holds this file's journal through {acked}")
    return 0


def _demo(args: argparse.Namespace) -> int:
    """The embedded PostgreSQL (a fresh folder), the server, and ``--tables``
    tables of bots (the firmware's table core, the real recorder and uploader)
    playing at about a person's pace (docs/club.md, "Try it")."""
    from ..club.pg import PgError
    from ..sim.virtual.clubdemo import Demo

    if not 1 <= args.tables <= 64:
        raise CommandError(f"--tables {args.tables}: give 1 to 64 tables")
    if args.pace <= 0:
        raise CommandError(f"--pace {args.pace}: give the mean seconds between inputs, above 0")
    if (args.virtual or args.sim) and not args.competition:
        flag = "--virtual" if args.virtual else "--sim"
        raise CommandError(f"{flag} is for the competition's tables: add --competition (without "
                           "it the demo's tables are simulated and play hand after hand)")
    virtual = args.competition and not args.sim
    if virtual and args.tables > 8:
        raise CommandError(f"--tables {args.tables}: at most 8 virtual tables (each is a "
                           "MicroPython process and a host); add --sim for more")
    if virtual:
        from ..mpy import micropython_binary

        micropython_binary()  # at once: no MicroPython, no virtual table
    demo = Demo(tables=args.tables, host=args.host, port=args.port, pace_s=args.pace,
                competition=args.competition, virtual=virtual)
    try:
        demo.start_database()
    except (PgError, OSError) as exc:
        demo.stop()
        raise CommandError(str(exc)) from None
    try:
        demo.run(args.seconds)
    except KeyboardInterrupt:  # uvicorn hands Ctrl-C on once it has shut down; all is stopped
        pass
    print("club demo: stopped; its database and records removed", flush=True)
    return 0
