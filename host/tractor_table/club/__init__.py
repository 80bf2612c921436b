"""The club server: every table of a room on one PostgreSQL, live in any browser.

- :mod:`.pg` — find and run a real PostgreSQL (Debian's, or the ``pgserver`` wheel's);
- :mod:`.db` — connections and the numbered SQL migrations (``migrations/NNN_*.sql``);
- :mod:`.tokens` — the hosts' upload tokens, stored hashed;
- :mod:`.ingest` — a host's batch checked and applied in one transaction (the hash chain);
- :mod:`.tableview` — a table's events folded into what a spectator may see;
- :mod:`.live` — one LISTEN connection fanned out to server-sent event streams;
- :mod:`.app` — the Starlette application (:func:`~.app.create_app`, :data:`~.app.ROUTES`);
- :mod:`.journal` and :mod:`.uploader` — the host side: the outbox and its sender.

docs/club.md is the user's and maintainer's page.
"""
